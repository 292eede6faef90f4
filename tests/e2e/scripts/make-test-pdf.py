#!/usr/bin/python3
"""PDFs for the PDF reader's window tests.

    make-test-pdf.py book OUT PAGES     a book made by ReportLab: PAGES pages, each a colour of
                                        its own with "Page N" in large type, and an outline
                                        ("Chapter K" every two pages, "Part" entries under it)
    make-test-pdf.py hostile OUT URL    a hostile PDF: a script run on opening, a script and a
                                        launch on the page's link, a link and a form that point
                                        at URL, and a font whose FontMatrix carries script text
                                        (the shape of CVE-2024-4367). Written object by object,
                                        since no tool writes such a file on purpose.
"""
import sys


def book(out, pages):
    from reportlab.lib.pagesizes import A5
    from reportlab.pdfgen import canvas

    width, height = A5
    c = canvas.Canvas(out, pagesize=A5)
    c.setTitle("A Reader's Test Book")
    for n in range(1, pages + 1):
        hue = (n * 47) % 360
        # A pale colour of its own per page, so a window test can tell pages apart.
        r, g, b = [0.55 + 0.4 * abs(((hue / 60.0 + k) % 6) - 3) / 3 for k in (0, 4, 2)]
        c.setFillColorRGB(r, g, b)
        c.rect(0, 0, width, height, stroke=0, fill=1)
        c.setFillColorRGB(0.05, 0.05, 0.1)
        c.setFont("Helvetica-Bold", 48)
        c.drawCentredString(width / 2, height / 2, "Page %d" % n)
        c.setFont("Helvetica", 12)
        c.drawCentredString(width / 2, 40, "of %d" % pages)
        key = "p%d" % n
        c.bookmarkPage(key)
        if n % 2 == 1:
            c.addOutlineEntry("Chapter %d" % ((n + 1) // 2), key, level=0)
        else:
            c.addOutlineEntry("Part %d" % n, key, level=1)
        c.showPage()
    c.save()


def hostile(out, url):
    marker = "window.__carrelHostilePdf = (window.__carrelHostilePdf || 0) + 1; document.title = 'pwned'"
    js = "app.alert('pdf script ran'); " + marker
    # Escaped as a PDF string: backslash, parentheses.
    def s(text):
        return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"

    content = b"BT /F1 36 Tf 40 300 Td (Hostile page) Tj ET\n0 0 1 rg 40 200 200 40 re f\n"
    objects = [
        # 1: the catalogue, with a script run on opening and an XFA form.
        "<< /Type /Catalog /Pages 2 0 R /OpenAction 5 0 R /Names << /JavaScript << /Names [(boot) 5 0 R] >> >>"
        " /AcroForm << /Fields [7 0 R] /XFA 8 0 R >> >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 595] /Contents 4 0 R"
        " /Resources << /Font << /F1 6 0 R >> >> /Annots [9 0 R 10 0 R 7 0 R] /AA << /O 5 0 R >> >>",
        None,  # 4: the content stream
        "<< /S /JavaScript /JS %s /Next << /S /Launch /F (/bin/sh) >> >>" % s(js),
        # 6: a font whose FontMatrix holds script text where numbers belong.
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FontMatrix [1 2 3 4 5 %s] >>"
        % s("1); " + marker + "; //"),
        # 7: a form field that submits to the server and runs a script when calculated.
        "<< /FT /Tx /T (name) /Rect [40 100 240 130] /Subtype /Widget /Type /Annot"
        " /AA << /K << /S /JavaScript /JS %s >> /C << /S /JavaScript /JS %s >> >>"
        " /A << /S /SubmitForm /F << /FS /URL /F %s >> >> >>" % (s(marker), s(marker), s(url + "/submit")),
        None,  # 8: the XFA stream
        "<< /Type /Annot /Subtype /Link /Rect [40 200 240 240] /A << /S /URI /URI %s >> >>" % s(url + "/link"),
        "<< /Type /Annot /Subtype /Link /Rect [40 250 240 290] /A << /S /JavaScript /JS %s >> >>" % s(marker),
    ]
    xfa = ('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"><template><subform><script contentType="application/x-javascript">'
           + marker + '</script></subform></template></xdp:xdp>').encode()
    streams = {4: content, 8: xfa}
    body = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(body))
        if i in streams:
            data = streams[i]
            body += b"%d 0 obj\n<< /Length %d >>\nstream\n" % (i, len(data)) + data + b"\nendstream\nendobj\n"
        else:
            body += ("%d 0 obj\n%s\nendobj\n" % (i, obj)).encode("latin-1")
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        body += b"%010d 00000 n \n" % offset
    body += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    with open(out, "wb") as f:
        f.write(body)


if __name__ == "__main__":
    kind, out, arg = sys.argv[1:4]
    if kind == "book":
        book(out, int(arg))
    elif kind == "hostile":
        hostile(out, arg)
    else:
        sys.exit("unknown kind: " + kind)
