//! Behaviours of Carrel with Codex's own ways: adding a server by its plain address (the
//! catalog is discovered), one local book per comic however many of Codex's views list it, a
//! signed-in download that keeps the session instead of sending the password with every
//! request (counted by the wrapper in `codex`), and series known from Codex's series feeds.

use crate::codex::{self, ADMIN};
use crate::support::{self, Cli, Installed};

/// At most this many password checks for a whole signed-in download (the sign-in itself, and a
/// retry should the session lapse), where sending the password each time would cost one per page.
const MAX_PASSWORD_CHECKS: usize = 3;

#[test]
fn codex_added_by_its_plain_address_discovers_the_catalog() {
    let installed = Installed::load();
    let server = codex::start(&installed, 2, 3);
    let cli = Cli::new();
    let added = cli.add_server("codex", &format!("{}/", server.base), Some(ADMIN));
    // Discovery may happen when the server is added or when it is first browsed: either way the
    // catalog must be reached from the plain address.
    let walk = support::walk(&cli, "codex", 40);
    assert!(
        walk.books.len() >= 2,
        "no comics reached from the plain address ({added}): {:?}",
        walk.ids_by_title.keys()
    );
}

#[test]
fn codex_walked_catalog_has_one_local_book_per_comic() {
    let (server, cli) = codex::start_signed_in(3, 3);
    let walk = support::walk(&cli, "codex", 40);
    assert!(walk.feeds >= 10, "only {} feeds walked", walk.feeds);
    let count = cli.local_book_count();
    assert_eq!(
        count,
        server.comics.len() as i64,
        "walking {} feeds made {count} local books for {} comics: {:?}",
        walk.feeds,
        server.comics.len(),
        walk.ids_by_title
    );
}

#[test]
fn codex_signed_in_download_checks_the_password_a_bounded_number_of_times() {
    let (server, cli) = codex::start_signed_in(1, 200);
    let found = cli.json(&["search", "codex", "Interop Comic 01"]);
    let book = found["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "book")
        .unwrap_or_else(|| panic!("comic not found: {found}"));
    let id = book["book_id"].as_i64().unwrap().to_string();
    // The first signed-in requests won no session yet: Codex checked the password (the counter
    // was reset once the library was imported). None here means the counter counts nothing.
    let sign_in = server.password_checks();
    assert!(
        sign_in >= 1,
        "adding the server and searching it signed in made Codex check the password {sign_in} times"
    );
    server.reset_password_checks();
    let cpu_before = server.process.cpu_seconds();
    cli.ok(&["open", &id, "--page", "1"]);
    cli.ok(&["sync", "--until-idle"]);
    let cpu = server.process.cpu_seconds() - cpu_before;
    for p in [1, 100, 200] {
        cli.json(&["path", &id, "--page", &p.to_string()]);
    }
    // The session won above may be kept (0 checks), or lapse and be won again (a few).
    let checks = server.password_checks();
    assert!(checks <= MAX_PASSWORD_CHECKS, "a 200-page signed-in download made Codex check the password {checks} times ({cpu:.1} s of Codex's CPU)");
    eprintln!("200-page signed-in download: {checks} password checks, {cpu:.1} s of Codex's CPU");
}

/// Codex names no series in a comic's entry (OPDS 1.2 or 2.0): its series feed lists them, in
/// issue order, under the series' name. Found by browsing as a reader does, the series is known
/// and a read-ahead on it keeps the next comics after the one read, in issue order.
#[test]
fn codex_series_read_ahead_keeps_the_next_comics_of_what_is_read() {
    let installed = Installed::load();
    let server = codex::start(&installed, 5, 3);
    for root in [server.opds1(), format!("{}/opds/v2.0/", server.base)] {
        let cli = Cli::new();
        cli.add_server("codex", &root, Some(ADMIN));
        let walk = support::walk(&cli, "codex", 80);
        let shown = walk
            .books
            .keys()
            .map(|id| cli.run(&["--json", "series", "show", &id.to_string()]))
            .find(|out| out.status.success())
            .unwrap_or_else(|| {
                panic!(
                    "no comic of {root} is in a series: {:?}",
                    walk.ids_by_title.keys()
                )
            });
        let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
        assert_eq!(shown["series"], "Interop Series", "{root}: {shown}");
        let books = shown["books"].as_array().unwrap();
        assert_eq!(books.len(), 5, "{root}: one book per comic: {shown}");
        let titles: Vec<&str> = books.iter().map(|b| b["title"].as_str().unwrap()).collect();
        for (n, title) in titles.iter().enumerate() {
            assert!(
                title.contains(&format!("#{}", n + 1)),
                "{root}: issue order: {titles:?}"
            );
        }
        let ids: Vec<String> = books.iter().map(|b| b["book_id"].to_string()).collect();
        let states = |v: &serde_json::Value| -> Vec<String> {
            v["books"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["status"]["state"].as_str().unwrap().to_owned())
                .collect()
        };

        let kept = cli.json(&["series", "keep", &ids[0], "--next", "2"]);
        assert_eq!(
            states(&kept),
            ["remote", "queued", "queued", "remote", "remote"],
            "{root}"
        );
        cli.ok(&["sync", "--until-idle"]);
        let shown = cli.json(&["series", "show", &ids[0]]);
        assert_eq!(
            states(&shown),
            ["remote", "stored", "stored", "remote", "remote"],
            "{root}"
        );
        // The second comic opened at its last page brings the fourth. Through OPDS 1.2 the page
        // stream says how many pages it has, so it is also read to its end; OPDS 2 gives Codex's
        // comics as whole CBZ files, whose pages are counted once the reader opens the archive.
        cli.ok(&["open", &ids[1], "--page", "3"]);
        let shown = cli.json(&["series", "show", &ids[0]]);
        assert_eq!(states(&shown)[3], "queued", "{root}: {shown}");
        if root.contains("/v1.2/") {
            assert_eq!(shown["books"][1]["finished"], true, "{root}: {shown}");
        }
    }
}
