//! Fault injection: latency, bandwidth, 503s, cut bodies, stalls, filters and the control API.

use std::time::{Duration, Instant};

use fixture_server::{Config, Faults, RunningServer};

use crate::common::*;

fn only(prefix: &str, faults: Faults) -> Faults {
    Faults {
        path_prefix: Some(prefix.to_string()),
        ..faults
    }
}

/// A small library whose answers to requests under `prefix` have the faults `set` sets.
fn small_library_with(prefix: &str, set: impl FnOnce(&mut Faults)) -> RunningServer {
    let mut faults = Faults::default();
    set(&mut faults);
    let server = start(small_config());
    server.set_faults(only(prefix, faults));
    server
}

/// A GET of book 1's file from a small library whose answers for it have the faults `set`
/// sets: the server, the file's bytes and the raw answer, a 200 that declares the whole
/// file's length.
fn book_1_file_with(set: impl FnOnce(&mut Faults)) -> (RunningServer, Vec<u8>, RawResponse) {
    let server = small_library_with("/books/1/file", set);
    let full = server.book_bytes(1).unwrap();
    let resp = raw_get(server.addr(), "/books/1/file", &[]);
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.content_length(), full.len());
    (server, full, resp)
}

#[test]
fn truncated_body_is_shorter_than_its_content_length() {
    let (server, full, resp) = book_1_file_with(|f| f.truncate_body = true);
    assert!(resp.error.is_none(), "closed cleanly: {:?}", resp.error);
    assert!(
        !resp.body.is_empty() && resp.body.len() < full.len(),
        "{} of {}",
        resp.body.len(),
        full.len()
    );
    assert_eq!(
        &resp.body[..],
        &full[..resp.body.len()],
        "what was sent is the real prefix"
    );

    // Other URLs are unaffected.
    let other = raw_get(server.addr(), "/books/2/file", &[]);
    assert_eq!(other.body.len(), other.content_length());
}

#[test]
fn reset_aborts_the_connection_mid_body() {
    let (_server, full, resp) = book_1_file_with(|f| f.reset_mid_body = true);
    assert!(resp.body.len() < full.len());
    let error = resp
        .error
        .expect("the read ends in an error, not a clean close");
    assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset, "{error}");
}

#[tokio::test]
async fn reqwest_sees_cut_bodies_as_errors() {
    let server = start(small_config());
    for faults in [
        Faults {
            reset_mid_body: true,
            ..Faults::default()
        },
        Faults {
            truncate_body: true,
            ..Faults::default()
        },
    ] {
        server.set_faults(only("/books/2/file", faults.clone()));
        let resp = client()
            .get(server.url("/books/2/file"))
            .send()
            .await
            .expect("headers arrive");
        assert_eq!(resp.status(), 200);
        assert!(resp.bytes().await.is_err(), "{faults:?}");
    }
    let stats = server.stats();
    assert_eq!(
        stats.global_in_flight, 0,
        "cut bodies are no longer in flight"
    );
}

#[tokio::test]
async fn latency_applies_to_matching_requests_only() {
    let server = small_library_with("/books/", |f| f.latency_ms = 1000);
    let t = Instant::now();
    let cover = server.url("/books/1/cover");
    let slow = tokio::spawn(async move { get_bytes(&cover).await });
    // Once the matching request waits in the server, a request elsewhere is answered while
    // it still waits: the latency is the matching request's alone.
    while server.stats().global_in_flight == 0 {
        assert!(
            !slow.is_finished(),
            "the cover was answered before it was seen"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(get_text(&server.url("/opds/search.xml")).await.0, 200);
    assert!(
        !slow.is_finished(),
        "the cover (1 s of latency) was answered before the search feed, asked for after it"
    );
    assert_eq!(slow.await.unwrap().0, 200);
    let slow = t.elapsed();
    assert!(slow >= Duration::from_millis(1000), "{slow:?}");
}

#[tokio::test]
async fn faults_can_be_limited_to_the_next_requests() {
    let server = start(small_config());
    server.set_faults(Faults {
        error_rate: 1.0,
        path_prefix: Some("/books/2/file".into()),
        next_requests: Some(1),
        ..Faults::default()
    });
    assert_eq!(
        get_bytes(&server.url("/books/1/file")).await.0,
        200,
        "not matched"
    );
    let (status, _, body) = get_bytes(&server.url("/books/2/file")).await;
    assert_eq!(status, 503);
    assert!(String::from_utf8_lossy(&body).contains("fault"));
    assert_eq!(
        get_bytes(&server.url("/books/2/file")).await.0,
        200,
        "only the first is broken"
    );
    assert_eq!(server.faults().next_requests, Some(0));
}

async fn statuses(server: &fixture_server::RunningServer, n: usize) -> Vec<u16> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(get_text(&server.url("/opds/search.xml")).await.0.as_u16());
    }
    out
}

#[tokio::test]
async fn error_rate_follows_the_seed() {
    let faults = Faults {
        error_rate: 0.5,
        ..Faults::default()
    };
    let a = start(Config {
        seed: 5,
        faults: faults.clone(),
        ..small_config()
    });
    let b = start(Config {
        seed: 5,
        faults: faults.clone(),
        ..small_config()
    });
    let c = start(Config {
        seed: 6,
        faults: faults.clone(),
        ..small_config()
    });
    let sa = statuses(&a, 32).await;
    let sb = statuses(&b, 32).await;
    let sc = statuses(&c, 32).await;
    assert_eq!(sa, sb);
    assert_ne!(sa, sc);
    let errors = sa.iter().filter(|s| **s == 503).count();
    assert!((4..=28).contains(&errors), "{sa:?}");
    assert!(sa.iter().all(|s| *s == 200 || *s == 503));

    // Setting the faults again restarts the same sequence.
    a.set_faults(faults);
    assert_eq!(statuses(&a, 32).await, sa);
}

#[tokio::test]
async fn bandwidth_cap_slows_the_body() {
    let server = start(Config {
        page_bytes: 100 * 1024,
        ..Config::default()
    });
    let page = server.page_bytes(1, 0).unwrap();
    server.set_faults(only(
        "/books/1/pages/",
        Faults {
            bandwidth: Some(200_000),
            ..Faults::default()
        },
    ));
    let t = Instant::now();
    let (status, _, body) = get_bytes(&server.url("/books/1/pages/0")).await;
    let elapsed = t.elapsed();
    assert_eq!(status, 200);
    assert_eq!(body, page);
    // About 100 KiB at 200 kB/s: roughly half a second.
    assert!(elapsed >= Duration::from_millis(400), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn stall_pauses_half_way_and_then_finishes() {
    let server = small_library_with("/books/1/file", |f| f.stall_ms = 600);
    let file = server.book_bytes(1).unwrap();
    let t = Instant::now();
    let mut resp = client()
        .get(server.url("/books/1/file"))
        .send()
        .await
        .unwrap();
    let mut received = Vec::new();
    // The longest wait between two chunks, and how much had come before it.
    let (mut last, mut pause, mut before_pause) = (Instant::now(), Duration::ZERO, 0);
    while let Some(chunk) = resp.chunk().await.unwrap() {
        let waited = last.elapsed();
        if waited > pause {
            (pause, before_pause) = (waited, received.len());
        }
        received.extend_from_slice(&chunk);
        last = Instant::now();
    }
    let total = t.elapsed();
    assert_eq!(received, file);
    // The first half came, then the pause, then the rest: the pause is between chunks.
    assert_eq!(
        before_pause,
        file.len() / 2,
        "the longest wait ({pause:?}) came after {before_pause} of {} bytes",
        file.len()
    );
    assert!(pause >= Duration::from_millis(600), "{pause:?}");
    assert!(total >= Duration::from_millis(600), "{total:?}");
}

#[tokio::test]
async fn control_endpoint_merges_settings() {
    let server = start(small_config());
    let c = client();
    let (status, current) =
        json_answer(c.post(server.url("/_control/faults")).body(
            r#"{"latency_ms": 20, "range": false, "path_prefix": "/books/1/", "auth": "u:p"}"#,
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(current["latency_ms"], 20);
    assert_eq!(current["range"], false);
    assert_eq!(current["etag"], true);
    assert_eq!(server.faults().latency_ms, 20);
    assert_eq!(server.faults().path_prefix.as_deref(), Some("/books/1/"));
    assert!(!server.behavior().range);
    assert_eq!(get_text(&server.url("/opds")).await.0, 401);

    for bad in [
        r#"{"no_such_knob": 1}"#,
        r#"{"error_rate": 2.0}"#,
        r#"{"latency_ms": "slow"}"#,
        "not json",
        "[1]",
    ] {
        let resp = c
            .post(server.url("/_control/faults"))
            .body(bad)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 400, "{bad}");
        let err: serde_json::Value = resp.json().await.unwrap();
        assert!(err["error"].is_string());
    }
    assert_eq!(
        server.faults().latency_ms,
        20,
        "rejected changes leave settings alone"
    );

    assert_eq!(
        status_of(c.delete(server.url("/_control/faults"))).await,
        200
    );
    assert_eq!(server.faults(), Faults::default());
    assert!(
        !server.behavior().range,
        "clearing faults keeps the behaviour switches"
    );
    let resp = c
        .post(server.url("/_control/faults"))
        .body(r#"{"auth": null, "range": true}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(get_text(&server.url("/opds")).await.0, 200);

    let books: Vec<fixture_server::BookInfo> = get_json(&server.url("/_control/books")).await;
    assert_eq!(books, server.books());
    assert_eq!(status_of(c.get(server.url("/_control/nothing"))).await, 404);
    assert_eq!(
        status_of(c.get(server.url("/_control/revise/1"))).await,
        405
    );
}

#[tokio::test]
async fn faults_from_config_apply_from_the_start() {
    let server = start(Config {
        faults: Faults {
            error_rate: 1.0,
            next_requests: Some(2),
            ..Faults::default()
        },
        ..small_config()
    });
    assert_eq!(get_text(&server.url("/opds")).await.0, 503);
    assert_eq!(get_text(&server.url("/opds")).await.0, 503);
    assert_eq!(get_text(&server.url("/opds")).await.0, 200);
    // Control requests are never faulted.
    assert_eq!(status_of(client().get(server.url("/_stats"))).await, 200);
}
