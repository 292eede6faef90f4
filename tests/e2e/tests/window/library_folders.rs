//! Library folders in the window: a folder added in Settings → Library folders is scanned (its
//! CBZ counted), a CBZ dropped into it afterwards is taken in by the watcher without a click,
//! and both books are in Books on this device. The folder and its comics are made by the test.

use carrel_e2e::{default_timeout, TestCase};

use super::support::{crc32, go, launch, sel, stored_zip, texts, wait_for_element};

#[test]
fn a_comic_dropped_into_a_library_folder_joins_books_on_this_device() {
    let case = TestCase::start();
    let books = tempfile::tempdir().unwrap();
    std::fs::write(books.path().join("Harbour Lights 01.cbz"), comic_cbz(2)).unwrap();
    let app = launch(&case);

    go(&app, "settings-nav", "settings-view");
    app.wait_for_displayed(&sel("library-folders-empty"))
        .unwrap();
    let field = app
        .wait_for_displayed(&sel("library-folders-path"))
        .unwrap();
    field.send_keys(books.path().to_str().unwrap()).unwrap();
    app.find(&sel("library-folders-add-path"))
        .unwrap()
        .click()
        .unwrap();
    wait_for_element(
        &app,
        &sel("library-folder-count"),
        "the folder with its one comic, scanned",
        |t| t.contains("One book") && t.contains("scanned") && !t.contains("not scanned"),
    );

    // A comic copied in (written under another name, then renamed, as file managers do) is
    // taken in by the watcher: nothing to click.
    let partial = books.path().join(".Harbour Lights 02.cbz.part");
    std::fs::write(&partial, comic_cbz(3)).unwrap();
    std::fs::rename(&partial, books.path().join("Harbour Lights 02.cbz")).unwrap();
    wait_for_element(
        &app,
        &sel("library-folder-count"),
        "the folder's count after a comic was dropped into it",
        |t| t.contains("2 books"),
    );

    go(&app, "on-device-nav", "on-device-view");
    app.wait_until("both comics on this device", default_timeout(), |_| {
        let shown = texts(&app, &sel("on-device-item")).join("\n");
        Ok(
            (shown.contains("Harbour Lights 01") && shown.contains("Harbour Lights 02"))
                .then_some(()),
        )
    })
    .unwrap();
    app.close().unwrap();
    // The reader's files, untouched.
    assert_eq!(
        std::fs::read(books.path().join("Harbour Lights 02.cbz")).unwrap(),
        comic_cbz(3)
    );
}

/// A comic of `pages` one-pixel pages, as a CBZ (stored entries).
fn comic_cbz(pages: u8) -> Vec<u8> {
    stored_zip((0..pages).map(|page| (format!("page-{:03}.png", page + 1), one_pixel_png(page))))
}

/// A one-pixel PNG of a grey level of its own.
fn one_pixel_png(grey: u8) -> Vec<u8> {
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut png, b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
    // zlib: one stored block holding the filter byte and the pixel.
    let raw = [0u8, grey];
    let mut idat = vec![0x78, 0x01, 0x01, 0x02, 0x00, 0xfd, 0xff];
    idat.extend_from_slice(&raw);
    idat.extend_from_slice(&adler32(&raw).to_be_bytes());
    chunk(&mut png, b"IDAT", &idat);
    chunk(&mut png, b"IEND", &[]);
    png
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in bytes {
        a = (a + x as u32) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}
