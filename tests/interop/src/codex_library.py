# Prepares a Codex config dir without starting the server: with no argument, migrates the
# database and creates its first rows (the admin/admin user among them); with a folder, also
# adds that folder as a library, which Codex polls and imports when it starts.
# Run in Codex's virtualenv with CODEX_CONFIG_DIR set.
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codex.settings")
import django
django.setup()
from codex.startup.db import ensure_db_schema
from codex.startup import ensure_db_rows
if len(sys.argv) == 1:
    ensure_db_schema()
    ensure_db_rows()
else:
    from codex.models import Library
    Library.objects.get_or_create(path=sys.argv[1])
    from django.db import connection
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE);")
