//! The protocols' request paths under generated input: what [`book_page`], [`book_id`] and
//! [`number`] accept is exactly the documented form (`/<id>/<page>`, the slash also written
//! `%2F`; `/<id>`; decimal digits, at most 18, an id above 0), every such path gives back its
//! numbers, and nothing panics or takes long — also for paths as `http::Uri` hands them over.
//!
//! `CARREL_FUZZ_CASES` sets the cases per property (1,000 by default; `make fuzz` runs
//! 100,000).

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use tauri::http::Uri;

use crate::page_protocol::book_page;
use crate::protocol_replies::{book_id, number};

fn runner() -> TestRunner {
    let cases = std::env::var("CARREL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1_000);
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// The documented number: 1 to 18 ASCII digits.
fn is_number(s: &str) -> bool {
    (1..=18).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
}

/// The documented page path, read the plainest way: (id digits, page digits).
fn documented_page(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix('/')?;
    let (id, page) = match rest.split_once('/') {
        Some(parts) => parts,
        None => {
            let at = (0..rest.len().saturating_sub(2)).find(|&i| {
                rest.as_bytes()[i] == b'%'
                    && rest.as_bytes()[i + 1] == b'2'
                    && matches!(rest.as_bytes()[i + 2], b'f' | b'F')
            })?;
            (&rest[..at], &rest[at + 3..])
        }
    };
    (is_number(id) && is_number(page) && id.bytes().any(|b| b != b'0')).then_some((id, page))
}

fn path_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[0-9]{0,20}",
        3 => prop::sample::select(vec![
            "/", "%2F", "%2f", "%2G", "%252F", "%", "%2", "-", "+", " ", ".", "..", "?x=1", "#f",
            "0", "000000000000000000", "999999999999999999", "9223372036854775807",
            "9223372036854775808", "\u{0663}", "\u{FF11}", "\u{0}", "\u{1F600}", "é",
        ])
        .prop_map(str::to_owned),
        1 => "\\PC{0,3}",
    ]
}

fn path() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (any::<bool>(), prop::collection::vec(path_piece(), 0..6))
            .prop_map(|(slash, pieces)| format!("{}{}", if slash { "/" } else { "" }, pieces.concat())),
        1 => "\\PC{0,40}",
        1 => prop::collection::vec(any::<u8>(), 0..40)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

/// Checks one path against the documented forms, in bounded time.
fn check_path(path: &str) -> Result<(), TestCaseError> {
    let started = Instant::now();
    let page = book_page(path);
    let id = book_id(path);
    let digits = number(path.strip_prefix('/').unwrap_or(path));
    prop_assert!(
        started.elapsed() < Duration::from_secs(1),
        "{path:?} took long"
    );
    match documented_page(path) {
        Some((i, p)) => prop_assert_eq!(
            page,
            Some((i.parse().unwrap(), p.parse().unwrap())),
            "{:?}",
            path
        ),
        None => prop_assert_eq!(page, None, "{:?}", path),
    }
    let bare = path.strip_prefix('/').filter(|s| is_number(s));
    prop_assert_eq!(
        id,
        bare.map(|s| s.parse::<i64>().unwrap()).filter(|&n| n > 0),
        "{:?}",
        path
    );
    let plain = path.strip_prefix('/').unwrap_or(path);
    prop_assert_eq!(
        digits,
        is_number(plain).then(|| plain.parse::<i64>().unwrap()),
        "{:?}",
        path
    );
    Ok(())
}

#[test]
fn request_paths_are_read_only_in_their_documented_form() {
    runner().run(&path(), |p| check_path(&p)).unwrap();
}

#[test]
fn every_documented_page_path_gives_back_its_numbers() {
    let strategy = (
        1i64..1_000_000_000_000_000_000,
        0i64..1_000_000_000_000_000_000,
        0usize..4,
        0usize..4,
        prop::sample::select(vec!["/", "%2F", "%2f"]),
    );
    runner()
        .run(&strategy, |(id, page, zeros_id, zeros_page, sep)| {
            let id_digits = format!("{}{id}", "0".repeat(zeros_id));
            let page_digits = format!("{}{page}", "0".repeat(zeros_page));
            let path = format!("/{id_digits}{sep}{page_digits}");
            let expected = (id_digits.len() <= 18 && page_digits.len() <= 18).then_some((id, page));
            prop_assert_eq!(book_page(&path), expected, "{:?}", path);
            Ok(())
        })
        .unwrap();
}

#[test]
fn paths_as_the_webview_hands_them_over_are_read_safely() {
    runner()
        .run(&path(), |p| {
            for scheme in ["carrel-page://localhost", "http://carrel-page.localhost"] {
                if let Ok(uri) = Uri::try_from(format!("{scheme}{p}")) {
                    check_path(uri.path())?;
                }
            }
            Ok(())
        })
        .unwrap();
}
