//! Downloads: ranges, validators, revisions, authentication, page numbering and bookmarks.

use std::collections::BTreeMap;

use fixture_server::{Behavior, Config};

use crate::common::*;

async fn ranged(url: &str, range: &str, if_range: Option<&str>) -> reqwest::Response {
    let mut req = client().get(url).header("Range", range);
    if let Some(v) = if_range {
        req = req.header("If-Range", v);
    }
    req.send().await.expect("request sent")
}

#[tokio::test]
async fn range_requests_return_the_exact_slice() {
    let server = start(small_config());
    let file = server.book_bytes(2).unwrap();
    let len = file.len();
    let url = server.url("/books/2/file");

    let full = client().get(&url).send().await.unwrap();
    assert_eq!(full.status(), 200);
    assert_eq!(header(full.headers(), "accept-ranges"), Some("bytes"));
    let etag = header(full.headers(), "etag").unwrap().to_string();
    assert!(
        etag.starts_with('"') && etag.ends_with('"'),
        "strong ETag: {etag}"
    );
    assert!(header(full.headers(), "last-modified")
        .unwrap()
        .ends_with(" GMT"));

    let resp = ranged(&url, "bytes=100-199", None).await;
    assert_eq!(resp.status(), 206);
    assert_eq!(
        header(resp.headers(), "content-range"),
        Some(format!("bytes 100-199/{len}").as_str())
    );
    assert_eq!(header(resp.headers(), "content-length"), Some("100"));
    assert_eq!(resp.bytes().await.unwrap().as_ref(), &file[100..200]);

    let resp = ranged(&url, "bytes=1000-", None).await;
    assert_eq!(resp.status(), 206);
    assert_eq!(
        header(resp.headers(), "content-range"),
        Some(format!("bytes 1000-{}/{len}", len - 1).as_str())
    );
    assert_eq!(resp.bytes().await.unwrap().as_ref(), &file[1000..]);

    let resp = ranged(&url, "bytes=-10", None).await;
    assert_eq!(resp.status(), 206);
    assert_eq!(resp.bytes().await.unwrap().as_ref(), &file[len - 10..]);

    let resp = ranged(&url, &format!("bytes={len}-"), None).await;
    assert_eq!(resp.status(), 416);
    assert_eq!(
        header(resp.headers(), "content-range"),
        Some(format!("bytes */{len}").as_str())
    );

    // Several ranges at once are answered with the whole file.
    let resp = ranged(&url, "bytes=0-1,5-6", None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.bytes().await.unwrap().len(), len);

    // Range works on pages too, and If-None-Match gives 304.
    let page = server.page_bytes(2, 3).unwrap();
    let resp = ranged(&server.url("/books/2/pages/3"), "bytes=8-15", None).await;
    assert_eq!(resp.status(), 206);
    assert_eq!(resp.bytes().await.unwrap().as_ref(), &page[8..16]);
    let resp = client()
        .get(&url)
        .header("If-None-Match", etag.as_str())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 304);
    assert!(resp.bytes().await.unwrap().is_empty());

    // HEAD gives the headers only.
    let resp = client().head(&url).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        header(resp.headers(), "content-length"),
        Some(len.to_string().as_str())
    );
    assert!(resp.bytes().await.unwrap().is_empty());
}

#[tokio::test]
async fn with_range_off_the_range_header_is_ignored() {
    let server = start(Config {
        behavior: Behavior {
            range: false,
            etag: false,
            last_modified: false,
            ..Behavior::default()
        },
        ..small_config()
    });
    let file = server.book_bytes(1).unwrap();
    let resp = ranged(&server.url("/books/1/file"), "bytes=100-199", None).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().get("accept-ranges").is_none());
    assert!(resp.headers().get("content-range").is_none());
    assert!(resp.headers().get("etag").is_none());
    assert!(resp.headers().get("last-modified").is_none());
    assert_eq!(resp.bytes().await.unwrap().as_ref(), &file[..]);

    // Switched on at run time, ranges work again.
    server.set_behavior(Behavior::default());
    let resp = ranged(&server.url("/books/1/file"), "bytes=100-199", None).await;
    assert_eq!(resp.status(), 206);
}

#[tokio::test]
async fn revising_a_book_changes_bytes_and_validators() {
    let server = start(small_config());
    let url = server.url("/books/1/file");
    let before = server.book(1).unwrap();
    let old_bytes = server.book_bytes(1).unwrap();
    let old_page = server.page_bytes(1, 0).unwrap();
    let resp = client().get(&url).send().await.unwrap();
    let old_etag = header(resp.headers(), "etag").unwrap().to_string();
    let old_date = header(resp.headers(), "last-modified").unwrap().to_string();
    assert_eq!(old_etag, before.etag);

    let (status, info) = json_answer(client().post(server.url("/_control/revise/1"))).await;
    assert_eq!(status, 200);
    assert_eq!(info["revision"], 1);

    let resp = client().get(&url).send().await.unwrap();
    let new_etag = header(resp.headers(), "etag").unwrap().to_string();
    let new_date = header(resp.headers(), "last-modified").unwrap().to_string();
    let new_bytes = resp.bytes().await.unwrap().to_vec();
    assert_ne!(new_etag, old_etag);
    assert_ne!(new_date, old_date);
    assert_ne!(new_bytes, old_bytes);
    assert_ne!(new_bytes.len(), old_bytes.len());
    assert_eq!(new_bytes, server.book_bytes(1).unwrap());
    assert_ne!(server.page_bytes(1, 0).unwrap(), old_page);
    assert_eq!(info["etag"], new_etag.as_str());
    assert_eq!(info["length"], new_bytes.len());

    // A resume with the old validator gets the whole new file, never a slice of it.
    for stale in [old_etag.as_str(), old_date.as_str()] {
        let resp = ranged(&url, "bytes=500-", Some(stale)).await;
        assert_eq!(resp.status(), 200, "If-Range: {stale}");
        assert!(resp.headers().get("content-range").is_none());
        assert_eq!(resp.bytes().await.unwrap().as_ref(), &new_bytes[..]);
    }
    for current in [new_etag.as_str(), new_date.as_str()] {
        let resp = ranged(&url, "bytes=500-", Some(current)).await;
        assert_eq!(resp.status(), 206, "If-Range: {current}");
        assert_eq!(resp.bytes().await.unwrap().as_ref(), &new_bytes[500..]);
    }

    // The Rust handle revises too, and the feed's length follows.
    let again = server.revise_book(1).unwrap();
    assert_eq!(again.revision, 2);
    assert_ne!(again.etag, new_etag);
    let (_, _, feed) = get_text(&server.url("/opds/books")).await;
    assert!(feed.contains(&format!(
        "href=\"/books/1/file\" length=\"{}\"",
        again.length
    )));
    assert!(server.revise_book(999).is_none());
    assert_eq!(
        status_of(client().post(server.url("/_control/revise/999"))).await,
        404
    );
}

#[tokio::test]
async fn basic_and_bearer_authentication() {
    let server = start(Config {
        behavior: Behavior {
            auth: Some("reader:s3cret".into()),
            bearer_token: Some("tok-123".into()),
            ..Behavior::default()
        },
        ..small_config()
    });
    let url = server.url("/opds");
    let resp = client().get(&url).send().await.unwrap();
    assert_eq!(resp.status(), 401);
    assert_eq!(
        header(resp.headers(), "www-authenticate"),
        Some("Basic realm=\"fixture\"")
    );

    assert_eq!(
        status_of(client().get(&url).basic_auth("reader", Some("s3cret"))).await,
        200
    );
    assert_eq!(
        status_of(client().get(&url).basic_auth("reader", Some("wrong"))).await,
        401
    );
    assert_eq!(
        status_of(client().get(&url).bearer_auth("tok-123")).await,
        200
    );
    assert_eq!(
        status_of(client().get(&url).bearer_auth("tok-999")).await,
        401
    );
    assert_eq!(
        status_of(
            client()
                .get(&url)
                .header("Authorization", "Basic !!!not-base64")
        )
        .await,
        401
    );
    assert_eq!(
        status_of(client().get(server.url("/books/1/file"))).await,
        401
    );

    // Statistics and control stay open.
    assert_eq!(status_of(client().get(server.url("/_stats"))).await, 200);
}

#[tokio::test]
async fn bookmark_parameter_moves_the_reading_position() {
    let server = start(Config {
        behavior: Behavior {
            bookmark_param: Some("markRead".into()),
            ..Behavior::default()
        },
        reading_positions: Some(BTreeMap::new()),
        ..small_config()
    });
    let (_, _, feed) = get_text(&server.url("/opds/books")).await;
    assert!(
        feed.contains("href=\"/books/1/pages/{pageNumber}?maxWidth={maxWidth}&amp;markRead=true\"")
    );
    assert!(!feed.contains("pse:lastRead="));

    // Background fetches without the parameter leave the position alone.
    for n in 0..4 {
        assert_eq!(
            get_bytes(&server.url(&format!("/books/1/pages/{n}?maxWidth=100")))
                .await
                .0,
            200
        );
    }
    assert_eq!(
        get_bytes(&server.url("/books/1/pages/2?maxWidth=100&markRead=false"))
            .await
            .0,
        200
    );
    assert!(server.reading_position(1).is_none());

    assert_eq!(
        get_bytes(&server.url("/books/1/pages/5?maxWidth=100&markRead=true"))
            .await
            .0,
        200
    );
    let pos = server.reading_position(1).expect("position recorded");
    assert_eq!((pos.page, pos.index, pos.moves), (5, 5, 1));
    let (_, _, feed) = get_text(&server.url("/opds/books")).await;
    let doc = roxmltree::Document::parse(&feed).unwrap();
    let stream = book_entry(&doc, 1)
        .unwrap()
        .children()
        .find(|n| n.attribute("rel") == Some("http://vaemendis.net/opds-pse/stream"))
        .unwrap();
    assert_eq!(stream.attribute((PSE, "lastRead")), Some("5"));
    assert!(stream
        .attribute((PSE, "lastReadDate"))
        .unwrap()
        .ends_with('Z'));

    let stats: serde_json::Value = get_json(&server.url("/_stats")).await;
    assert_eq!(stats["reading_positions"]["1"]["page"], 5);
    assert_eq!(stats["reading_positions"]["1"]["moves"], 1);
}

#[tokio::test]
async fn one_based_pages_shift_the_numbering() {
    let server = start(Config {
        comic_pages: BTreeMap::from([(1, 10)]),
        reading_positions: Some(BTreeMap::from([(1, 4)])),
        behavior: Behavior {
            one_based_pages: true,
            ..Behavior::default()
        },
        ..small_config()
    });
    assert_eq!(get_bytes(&server.url("/books/1/pages/0")).await.0, 404);
    let (status, _, first) = get_bytes(&server.url("/books/1/pages/1")).await;
    assert_eq!(status, 200);
    assert_eq!(first, server.page_bytes(1, 0).unwrap());
    let (status, _, last) = get_bytes(&server.url("/books/1/pages/10")).await;
    assert_eq!(status, 200);
    assert_eq!(last, server.page_bytes(1, 9).unwrap());
    assert_eq!(get_bytes(&server.url("/books/1/pages/11")).await.0, 404);

    // The advertised position follows the numbering.
    let (_, _, feed) = get_text(&server.url("/opds/books")).await;
    assert!(
        feed.contains("pse:lastRead=\"5\""),
        "index 4 is page 5 when numbering from 1"
    );
    assert_eq!(server.reading_position(1).unwrap().page, 5);

    server.set_behavior(Behavior::default());
    let (_, _, zero) = get_bytes(&server.url("/books/1/pages/0")).await;
    assert_eq!(zero, server.page_bytes(1, 0).unwrap());
}
