//! Per-client accounting: in-flight maxima, hits and bytes per URL.

use std::time::Duration;

use fixture_server::{Faults, Stats};

use crate::common::*;

async fn get_as(client_name: &str, url: String) -> usize {
    let resp = client()
        .get(url)
        .header("X-Carrel-Client", client_name)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    resp.bytes().await.unwrap().len()
}

#[tokio::test]
async fn concurrent_requests_raise_max_in_flight_and_sequential_ones_do_not() {
    let server = start(small_config());
    server.set_faults(Faults {
        latency_ms: 300,
        ..Faults::default()
    });
    let (a, b, c) = tokio::join!(
        get_as("parallel", server.url("/books/1/pages/0?maxWidth=")),
        get_as("parallel", server.url("/books/1/pages/1?maxWidth=")),
        get_as("parallel", server.url("/books/1/pages/2?maxWidth=")),
    );
    assert!(a > 0 && b > 0 && c > 0);
    for _ in 0..3 {
        get_as("serial", server.url("/books/1/pages/0?maxWidth=")).await;
    }
    let stats = server.stats();
    let parallel = stats.client("parallel").expect("parallel client recorded");
    assert_eq!(parallel.max_in_flight, 3);
    assert_eq!(parallel.in_flight, 0);
    assert_eq!(parallel.requests, 3);
    let serial = stats.client("serial").expect("serial client recorded");
    assert_eq!(serial.max_in_flight, 1);
    assert_eq!(serial.requests, 3);
    assert_eq!(serial.hits.get("/books/1/pages/0?maxWidth="), Some(&3));
    let page_len = server.page_bytes(1, 0).unwrap().len() as u64;
    assert_eq!(
        serial.bytes.get("/books/1/pages/0?maxWidth="),
        Some(&(3 * page_len))
    );
    assert_eq!(stats.global_max_in_flight, 3);
    assert_eq!(stats.total_requests, 6);
    assert_eq!(stats.hits("/books/1/pages/0?maxWidth="), 4);
    assert_eq!(stats.bytes("/books/1/pages/0?maxWidth="), 4 * page_len);

    // Resetting zeroes the counters; a fresh sequential run peaks at one.
    assert_eq!(
        status_of(client().post(server.url("/_control/reset-stats"))).await,
        200
    );
    let stats = server.stats();
    assert_eq!(stats.total_requests, 0);
    assert_eq!(stats.global_max_in_flight, 0);
    assert!(stats.clients.is_empty());
    server.clear_faults();
    for n in 0..5 {
        get_as("serial", server.url(&format!("/books/1/pages/{n}"))).await;
    }
    let stats = server.stats();
    assert_eq!(stats.client("serial").unwrap().max_in_flight, 1);
    assert_eq!(stats.global_max_in_flight, 1);
}

#[tokio::test]
async fn clients_are_told_apart_and_control_requests_are_not_counted() {
    let server = start(small_config());
    let ua = reqwest::Client::builder()
        .no_proxy()
        .user_agent("Carrel/0.1")
        .build()
        .unwrap();
    assert_eq!(
        ua.get(server.url("/opds")).send().await.unwrap().status(),
        200
    );
    // X-Carrel-Client wins over User-Agent.
    let resp = ua
        .get(server.url("/opds"))
        .header("X-Carrel-Client", "bench-7")
        .send()
        .await
        .unwrap();
    let opds_len = resp.bytes().await.unwrap().len() as u64;
    // reqwest sends no User-Agent by default.
    assert_eq!(status_of(client().get(server.url("/opds"))).await, 200);
    // Neither of these is counted.
    client().get(server.url("/_stats")).send().await.unwrap();
    client()
        .get(server.url("/_control/faults"))
        .send()
        .await
        .unwrap();

    let stats: Stats = get_json(&server.url("/_stats")).await;
    assert_eq!(
        stats.clients.keys().collect::<Vec<_>>(),
        vec!["Carrel/0.1", "anonymous", "bench-7"]
    );
    assert_eq!(stats.total_requests, 3);
    assert_eq!(
        stats.client("bench-7").unwrap().bytes.get("/opds"),
        Some(&opds_len)
    );
    assert_eq!(
        stats,
        server.stats(),
        "the endpoint and the Rust call agree"
    );
}

#[tokio::test]
async fn abandoned_downloads_leave_flight() {
    let server = start(small_config());
    let file_len = server.book_bytes(1).unwrap().len() as u64;
    server.set_faults(Faults {
        bandwidth: Some(40_000),
        ..Faults::default()
    });
    let mut resp = client()
        .get(server.url("/books/1/file"))
        .header("X-Carrel-Client", "quitter")
        .send()
        .await
        .unwrap();
    let first = resp.chunk().await.unwrap().expect("some data");
    assert!(!first.is_empty());
    assert_eq!(server.stats().client("quitter").unwrap().in_flight, 1);
    drop(resp);

    let mut waited = Duration::ZERO;
    loop {
        let stats = server.stats();
        let quitter = stats.client("quitter").unwrap();
        if quitter.in_flight == 0 {
            assert_eq!(stats.global_in_flight, 0);
            assert_eq!(quitter.max_in_flight, 1);
            let sent = quitter.bytes["/books/1/file"];
            assert!(sent > 0 && sent < file_len, "{sent} of {file_len}");
            break;
        }
        assert!(
            waited < Duration::from_secs(10),
            "in-flight count never fell"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    }
}

#[tokio::test]
async fn progression_documents_are_stored_and_older_updates_refused() {
    let server = start(small_config());
    let url = server.url("/books/1/progression");
    let (status, _, _) = get_text(&url).await;
    assert_eq!(status, 404, "no position yet");

    let put = |modified: &str, position: u32| {
        let body = serde_json::json!({
            "modified": modified,
            "device": { "id": "test", "name": "Test" },
            "locator": { "locations": { "position": position } }
        });
        client().put(url.clone()).body(body.to_string()).send()
    };
    let first = put("2025-06-01T10:00:00Z", 4).await.unwrap();
    assert_eq!(first.status(), 200);
    let newer = put("2025-06-01T12:00:00.5+01:00", 6).await.unwrap();
    assert_eq!(newer.status(), 200);
    let older = put("2025-06-01T10:30:00Z", 5).await.unwrap();
    assert_eq!(older.status(), 409);
    let kept: serde_json::Value = serde_json::from_str(&older.text().await.unwrap()).unwrap();
    assert_eq!(kept["locator"]["locations"]["position"], 6);

    let (status, headers, text) = get_text(&url).await;
    assert_eq!(status, 200);
    assert_eq!(
        header(&headers, "content-type"),
        Some("application/vnd.readium.progression+json")
    );
    assert!(text.contains("\"position\":6"), "{text}");
    let bad = client().put(url.clone()).body("{}").send().await.unwrap();
    assert_eq!(bad.status(), 400);

    let stats: Stats = server.stats();
    assert_eq!(
        (
            stats.progressions[&1].puts,
            stats.progressions[&1].conflicts
        ),
        (2, 1)
    );
    assert_eq!(stats.hits("/books/1/progression"), 6);
    assert_eq!(
        server.progression(1).unwrap()["locator"]["locations"]["position"],
        6
    );
}
