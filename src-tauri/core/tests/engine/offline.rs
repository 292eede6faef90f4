//! Catalog pages and covers kept for offline use, against a fixture server that is then
//! stopped: what was seen stays browsable, marked offline; covers are fetched once. A feed's
//! books also say whether they have been read.

use carrel_core::Failure;
use carrel_core::{
    catalog::client::{CatalogClient, CatalogView, CatalogViewItem},
    catalog::cover_cache::{self, Cover, CoverCache},
    catalog::series_read_ahead,
    engine::book_downloads::BookState,
    http::http_fetch::{HttpClient, HttpConfig},
    library::books,
    library::servers::Server,
    ErrorKind,
};
use fixture_server::{Behavior, Config, RunningServer};

use crate::support::Env;

/// A fixture server of four books that behaves as `behavior` says.
fn start(behavior: Behavior) -> RunningServer {
    fixture_server::Server::start(Config {
        books: 4,
        behavior,
        ..Config::default()
    })
    .expect("the fixture server starts")
}

/// A fixture server of four books that behaves as `behavior` says, added as "Fixture" to a
/// fresh library.
fn four_books(behavior: Behavior) -> (RunningServer, Env, Server) {
    let fixture = start(behavior);
    let (env, server) = Env::with_fixture(&fixture);
    (fixture, env, server)
}

/// The fixture's `/opds/books` feed, as the windows see it.
async fn books_view(client: &CatalogClient<'_>, server: &Server) -> CatalogView {
    client
        .browse_view(server.id, Some("/opds/books"))
        .await
        .unwrap()
}

/// The local ids of the books of the fixture's `/opds/books` feed, as the windows see it.
async fn books_feed(client: &CatalogClient<'_>, server: &Server) -> Vec<i64> {
    book_ids(&books_view(client, server).await.entries)
}

/// A book's cover as the windows ask for it.
async fn cover_of(
    covers: &CoverCache,
    env: &Env,
    http: &HttpClient,
    book_id: i64,
) -> Option<Cover> {
    covers
        .cover(&env.store, &env.credentials, http, book_id)
        .await
        .unwrap()
}

fn book_ids(entries: &[CatalogViewItem]) -> Vec<i64> {
    read_flags(entries).into_iter().map(|(id, _)| id).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_seen_before_is_shown_offline_when_the_server_is_away() {
    let (fixture, env, server) = four_books(Behavior::default());
    let client = env.client();
    let root = client.browse_view(server.id, None).await.unwrap();
    assert!(!root.offline);
    assert!(root.searchable);
    assert_eq!(root.server_id, server.id);
    let books = books_view(&client, &server).await;
    assert!(!books.offline);
    let ids = book_ids(&books.entries);
    assert_eq!(ids.len(), 4);
    for entry in &books.entries {
        if let CatalogViewItem::Book {
            has_cover,
            status,
            authors,
            ..
        } = entry
        {
            assert!(has_cover, "every fixture book has a cover");
            assert_eq!(status.state, BookState::Remote);
            assert!(!authors.is_empty());
        }
    }
    let found = client.search_view(server.id, "a").await.unwrap();
    assert!(!found.offline);
    let fetched_at = books.fetched_at_ms;

    fixture.stop();

    let again = books_view(&client, &server).await;
    assert!(again.offline, "the kept copy, marked offline");
    assert_eq!(
        again.fetched_at_ms, fetched_at,
        "with the time it was fetched"
    );
    assert_eq!(
        book_ids(&again.entries),
        ids,
        "the same books under the same ids"
    );
    assert_eq!(again.feed_url, books.feed_url);
    assert_eq!(again.next, books.next);
    let root_again = client.browse_view(server.id, None).await.unwrap();
    assert!(root_again.offline);
    assert_eq!(root_again.entries.len(), root.entries.len());
    let found_again = client.search_view(server.id, "a").await.unwrap();
    assert!(
        found_again.offline,
        "search goes through kept documents too"
    );
    assert_eq!(book_ids(&found_again.entries), book_ids(&found.entries));

    // Never seen: nothing to show, and the failure says the server is away.
    let err = client
        .browse_view(server.id, Some("/opds/comics"))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Server, "{err}");
    let err = client
        .search_view(server.id, "never asked")
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Server, "{err}");
}

fn read_flags(entries: &[CatalogViewItem]) -> Vec<(i64, bool)> {
    entries
        .iter()
        .filter_map(|e| match e {
            CatalogViewItem::Book { book_id, read, .. } => Some((*book_id, *read)),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feeds_books_say_whether_they_are_read() {
    let (_fixture, env, server) = four_books(Behavior::default());
    let client = env.client();
    let first = books_view(&client, &server).await;
    let flags = read_flags(&first.entries);
    assert_eq!(flags.len(), 4);
    assert!(flags.iter().all(|(_, read)| !read), "nothing read yet");
    let marked = flags[1].0;

    series_read_ahead::mark_read(&env.store, marked, true).unwrap();
    let again = books_view(&client, &server).await;
    for (id, read) in read_flags(&again.entries) {
        assert_eq!(read, id == marked, "book {id}");
    }
    let found = client.search_view(server.id, "a").await.unwrap();
    for (id, read) in read_flags(&found.entries) {
        assert_eq!(read, id == marked, "found book {id}");
    }

    series_read_ahead::mark_read(&env.store, marked, false).unwrap();
    let unread = books_view(&client, &server).await;
    assert!(read_flags(&unread.entries).iter().all(|(_, read)| !read));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cover_is_fetched_once_kept_and_served_by_its_sniffed_type() {
    let (fixture, env, server) = four_books(Behavior::default());
    let client = env.client();
    let ids = books_feed(&client, &server).await;
    let book = books::get(&env.store, ids[0]).unwrap();
    let n: u32 = book.catalog_id.rsplit(':').next().unwrap().parse().unwrap();
    let cover_path = url::Url::parse(book.cover_url.as_deref().unwrap())
        .unwrap()
        .path()
        .to_owned();
    fixture.reset_stats();

    let covers = CoverCache::new(&env.dir);
    let first = cover_of(&covers, &env, &env.http, book.id).await.unwrap();
    assert_eq!(first.content_type, "image/png");
    let expected = if cover_path.ends_with("thumbnail") {
        fixture.thumbnail_bytes(n)
    } else {
        fixture.cover_bytes(n)
    };
    assert_eq!(Some(first.bytes.clone()), expected);
    let kept = cover_cache::find_local(&env.dir, book.id).unwrap();
    assert_eq!(
        kept,
        cover_cache::cache_dir(&env.dir).join(format!("{}.png", book.id))
    );
    // Many windows asking at once still cost one request.
    let (a, b) = tokio::join!(
        covers.cover(&env.store, &env.credentials, &env.http, ids[1]),
        covers.cover(&env.store, &env.credentials, &env.http, ids[1]),
    );
    assert_eq!(a.unwrap(), b.unwrap());
    let second = cover_of(&covers, &env, &env.http, book.id).await.unwrap();
    assert_eq!(second, first);
    let stats = fixture.stats();
    assert_eq!(stats.hits(&cover_path), 1, "fetched once");
    assert_eq!(stats.total_requests, 2, "one request per book");

    fixture.stop();
    let offline = cover_of(&covers, &env, &env.http, book.id).await;
    assert_eq!(offline, Some(first), "a kept cover needs no server");
    assert_eq!(
        cover_of(&covers, &env, &env.http, ids[2]).await,
        None,
        "away: none for now"
    );
    assert_eq!(
        cover_of(&covers, &env, &env.http, 999_999).await,
        None,
        "unknown book"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn covers_refused_for_want_of_a_password_come_as_soon_as_one_is_given() {
    let fixture = start(Behavior {
        auth: Some("reader:open sesame".into()),
        ..Default::default()
    });
    let env = Env::new();
    let server = env.add_server_as("Locked", &fixture.url("/opds"), "reader", "open sesame");
    let client = env.client();
    let ids = books_feed(&client, &server).await;
    let covers = CoverCache::new(&env.dir);

    // The password changes on the server: covers are refused, and not asked for again and again.
    fixture.set_behavior(Behavior {
        auth: Some("reader:new words".into()),
        ..Default::default()
    });
    fixture.reset_stats();
    assert_eq!(cover_of(&covers, &env, &env.http, ids[0]).await, None);
    assert_eq!(cover_of(&covers, &env, &env.http, ids[1]).await, None);
    assert_eq!(fixture.stats().total_requests, 1, "one refusal is enough");

    // The reader types the new password: the covers come at once.
    carrel_core::library::server_secrets::update_with_secret(
        &env.store,
        &env.credentials,
        server.id,
        &carrel_core::library::servers::NewServer {
            name: "Locked".into(),
            url: fixture.url("/opds"),
            username: Some("reader".into()),
            ..Default::default()
        },
        &carrel_core::library::server_secrets::PasswordChange::Set(
            carrel_core::library::credentials::Secret::new("new words"),
        ),
    )
    .unwrap();
    assert!(cover_of(&covers, &env, &env.http, ids[0]).await.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_cover_never_marks_the_server_away() {
    let (_fixture, env, server) = four_books(Behavior::default());
    let client = env.client();
    let ids = books_feed(&client, &server).await;
    // One book's catalog entry names its cover inline.
    env.store
        .write(|tx| {
            tx.execute(
                "UPDATE books SET cover_url = 'data:image/png;base64,iVBORw0KGgo=' WHERE id = ?1",
                [ids[0]],
            )
            .map_err(|e| env.store.sql_error(e))
        })
        .unwrap();
    let covers = CoverCache::new(&env.dir);
    assert_eq!(cover_of(&covers, &env, &env.http, ids[0]).await, None);
    let other = cover_of(&covers, &env, &env.http, ids[1]).await;
    assert!(other.is_some(), "the server's other covers still come");
}

/// A server that stops answering without closing its connections (a stopped process, `kill
/// -STOP`): once a request to it ran out of time, the pages kept are given at once, and a
/// search it cannot answer says so by the server's name; a handle that asks it anyway (the
/// reader's "Try again", a retry in the background) sees it again as soon as it answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stopped_answering_is_not_waited_for_again() {
    let fixture = start(Behavior::default());
    let env = Env::new();
    let server = env.add_server("Home library", &fixture.url("/opds"));
    let http = HttpClient::new(HttpConfig {
        connect_timeout: std::time::Duration::from_secs(2),
        read_timeout: std::time::Duration::from_secs(2),
    })
    .unwrap();
    let client = env.catalog(&http);
    client.browse_view(server.id, None).await.unwrap();
    books_view(&client, &server).await;

    fixture.set_faults(fixture_server::Faults {
        latency_ms: 600_000,
        ..Default::default()
    });
    let started = std::time::Instant::now();
    let first = client.browse_view(server.id, None).await.unwrap();
    assert!(first.offline);
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(2),
        "the first request waits for its time limit"
    );

    let started = std::time::Instant::now();
    let books = books_view(&client, &server).await;
    assert!(books.offline, "the kept copy");
    let err = client
        .search_view(server.id, "never asked")
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "a server known not to answer is not waited for: {:?}",
        started.elapsed()
    );
    assert_eq!(err.kind(), ErrorKind::Server);
    assert_eq!(err.to_string(), "Home library is not answering");

    fixture.clear_faults();
    let skipping = books_view(&client, &server).await;
    assert!(skipping.offline, "not asked again by itself");
    let asking = http.asking_unresponsive();
    let fresh = env.catalog(&asking);
    let answered = fresh
        .browse_view(server.id, Some("/opds/books"))
        .await
        .unwrap();
    assert!(!answered.offline, "asked, it answers");
    let again = books_view(&client, &server).await;
    assert!(!again.offline, "once it answered, every request asks it");
}

/// A feed's facet links reach the window in groups, the one shown active; and Codex's orders,
/// which it lists as navigation entries, come as its order groups instead of as folders.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feeds_facets_and_codexs_order_entries_come_as_facet_groups() {
    let (_fixture, env, server) = four_books(Behavior::default());
    let client = env.client();
    let comics = client
        .browse_view(server.id, Some("/opds/comics"))
        .await
        .unwrap();
    let shape = |view: &CatalogView| -> Vec<(Option<String>, Vec<(String, bool)>)> {
        view.facets
            .iter()
            .map(|g| {
                (
                    g.title.clone(),
                    g.facets
                        .iter()
                        .map(|f| (f.title.clone(), f.active))
                        .collect(),
                )
            })
            .collect()
    };
    assert_eq!(
        shape(&comics),
        [(
            Some("Sort".to_owned()),
            vec![
                ("Title".to_owned(), true),
                ("Newest first".to_owned(), false)
            ]
        )]
    );
    let newest = client
        .browse_view(server.id, Some(&comics.facets[0].facets[1].href))
        .await
        .unwrap();
    assert_eq!(
        shape(&newest)[0].1,
        [
            ("Title".to_owned(), false),
            ("Newest first".to_owned(), true)
        ]
    );
    let mut reversed = book_ids(&comics.entries);
    reversed.reverse();
    assert_eq!(
        book_ids(&newest.entries),
        reversed,
        "the same books, newest first"
    );

    let (_codex, env, server) = four_books(Behavior {
        codex_order_entries: true,
        ..Default::default()
    });
    let client = env.client();
    let books = books_view(&client, &server).await;
    let folders: Vec<&str> = books
        .entries
        .iter()
        .filter_map(|e| match e {
            CatalogViewItem::Navigation { title, .. } => Some(title.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(folders, ["Browse by series"], "the orders are no folders");
    assert_eq!(
        shape(&books),
        [
            (
                Some("Order By".to_owned()),
                vec![("Name".to_owned(), true), ("Date".to_owned(), false)]
            ),
            (
                Some("Order".to_owned()),
                vec![
                    ("Ascending".to_owned(), true),
                    ("Descending".to_owned(), false)
                ]
            ),
        ]
    );
    assert!(books.facets[0].facets[1]
        .href
        .ends_with("/opds/books?orderBy=date"));
    assert_eq!(book_ids(&books.entries).len(), 4);
}

/// A search that matches nothing, as two real servers say it: calibre's content server answers
/// `404 No books found`, Codex an acquisition feed holding only its "Start of catalog" entry.
/// Both are results with no book in them, not errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_that_matches_nothing_is_an_empty_result() {
    for behavior in [
        Behavior {
            empty_search_404: true,
            ..Default::default()
        },
        Behavior {
            start_entry_in_feeds: true,
            ..Default::default()
        },
    ] {
        let (_fixture, env, server) = four_books(behavior.clone());
        let client = env.client();
        let found = client
            .search_view(server.id, "zzzqqq")
            .await
            .unwrap_or_else(|e| panic!("{behavior:?}: {e}"));
        assert!(!found.offline);
        assert!(book_ids(&found.entries).is_empty(), "{behavior:?}");
        let some = client.search_view(server.id, "a").await.unwrap();
        assert!(!book_ids(&some.entries).is_empty(), "{behavior:?}");
    }
}
