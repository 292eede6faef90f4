# The language's own name, as the Settings → Language list shows it.
language-name = Deutsch
