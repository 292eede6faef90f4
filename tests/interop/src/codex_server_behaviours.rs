//! Behaviours of Carrel with Codex that need the server-handling work still landing: adding a
//! server by its plain address (the catalog is discovered), one local book per comic however
//! many of Codex's views list it, and a signed-in download that keeps the session instead of
//! sending the password with every request (counted by the wrapper in `codex`).

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
    let installed = Installed::load();
    let server = codex::start(&installed, 3, 3);
    let cli = Cli::new();
    cli.add_server("codex", &server.opds1(), Some(ADMIN));
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
    let installed = Installed::load();
    let server = codex::start(&installed, 1, 200);
    let cli = Cli::new();
    cli.add_server("codex", &server.opds1(), Some(ADMIN));
    let found = cli.json(&["search", "codex", "Interop Comic 01"]);
    let book = found["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "book")
        .unwrap_or_else(|| panic!("comic not found: {found}"));
    let id = book["book_id"].as_i64().unwrap().to_string();
    server.reset_password_checks();
    let cpu_before = server.process.cpu_seconds();
    cli.ok(&["open", &id, "--page", "1"]);
    cli.ok(&["sync", "--until-idle"]);
    let cpu = server.process.cpu_seconds() - cpu_before;
    for p in [1, 100, 200] {
        cli.json(&["path", &id, "--page", &p.to_string()]);
    }
    let checks = server.password_checks();
    assert!(checks <= MAX_PASSWORD_CHECKS, "a 200-page signed-in download made Codex check the password {checks} times ({cpu:.1} s of Codex's CPU)");
    eprintln!("200-page signed-in download: {checks} password checks, {cpu:.1} s of Codex's CPU");
}
