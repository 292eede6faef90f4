# Makes the interop suite's books: `comics DIR COUNT PAGES` writes CBZ files of PNG pages (each
# page a different colour and stripe, so no two pages are byte-identical); `epubs DIR COUNT`
# writes minimal valid EPUB 2 books. Standard library only.
import os, struct, sys, zipfile, zlib

def png(width, height, seed):
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            stripe = 255 if (x + y + seed) % 17 == 0 else 0
            row += bytes(((seed * 37 + x) % 256, (seed * 91 + y) % 256, stripe))
        rows.append(bytes(row))
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b"")

def comics(folder, count, pages):
    for n in range(1, count + 1):
        path = os.path.join(folder, "Interop Comic %02d.cbz" % n)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
            for p in range(1, pages + 1):
                z.writestr("page%03d.png" % p, png(120, 160, n * 1000 + p))
            z.writestr("ComicInfo.xml",
                '<?xml version="1.0"?><ComicInfo><Title>Interop Comic %02d</Title><Series>Interop Series</Series>'
                '<Number>%d</Number><Writer>Ada Tester</Writer><PageCount>%d</PageCount></ComicInfo>' % (n, n, pages))

def epubs(folder, count):
    for n in range(1, count + 1):
        path = os.path.join(folder, "Interop Novel %02d.epub" % n)
        title = "Interop Novel %02d" % n
        with zipfile.ZipFile(path, "w") as z:
            z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
            z.writestr("META-INF/container.xml",
                '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                '<rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
            z.writestr("content.opf",
                '<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">'
                '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>%s</dc:title><dc:creator>Bea Author</dc:creator>'
                '<dc:language>en</dc:language><dc:identifier id="id">urn:uuid:00000000-0000-4000-8000-%012d</dc:identifier></metadata>'
                '<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/></manifest>'
                '<spine toc="ncx"><itemref idref="c1"/></spine></package>' % (title, n))
            z.writestr("toc.ncx",
                '<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><head/><docTitle><text>%s</text></docTitle>'
                '<navMap><navPoint id="p1" playOrder="1"><navLabel><text>One</text></navLabel><content src="c1.xhtml"/></navPoint></navMap></ncx>' % title)
            z.writestr("c1.xhtml",
                '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>%s</title></head>'
                '<body><h1>%s</h1><p>%s</p></body></html>' % (title, title, ("Chapter text %d. " % n) * 50))

kind, folder, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(folder, exist_ok=True)
if kind == "comics":
    comics(folder, count, int(sys.argv[4]))
else:
    epubs(folder, count)
