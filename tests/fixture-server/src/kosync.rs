//! A KOReader sync (KOSync) server under `/kosync`, speaking the protocol as KOReader's own
//! client does (koreader `plugins/kosync.koplugin/api.json` and `KOSyncClient.lua`; the
//! reference server is koreader/koreader-sync-server):
//!
//! - every request signs in with the headers `x-auth-user` and `x-auth-key` (the key is the MD5
//!   of the password, in hex); a wrong pair is `401 {"message": "Unauthorized"}`;
//! - `GET /kosync/users/auth` → `200 {"authorized": "OK"}`;
//! - `PUT /kosync/syncs/progress` with JSON `{document, progress, percentage, device,
//!   device_id}` → `200 {document, timestamp}` (the server's clock, unix seconds);
//! - `GET /kosync/syncs/progress/<document>` → `200` with what was put last for that document
//!   and user, plus its `timestamp`; `200 {}` when nothing was.
//!
//! Positions are kept per user and document; a later put replaces an earlier one, whichever
//! device sent it (the server does not judge which is newer: the clients do).

use hyper::body::Incoming;
use hyper::{Method, Request, StatusCode};
use serde_json::{json, Value};

use crate::http::{read_body, Reply};
use crate::state::{lock, State};
use crate::util::now_unix;

const TYPE: &str = "application/json";

pub(crate) async fn handle(state: &State, req: Request<Incoming>) -> Reply {
    let Some((user, expected_key)) = state.behavior().kosync_user else {
        return Reply::json(
            StatusCode::NOT_FOUND,
            &json!({ "message": "no sync server here" }),
        );
    };
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    };
    if header("x-auth-user") != user || header("x-auth-key") != expected_key {
        return Reply::json(
            StatusCode::UNAUTHORIZED,
            &json!({ "message": "Unauthorized" }),
        );
    }
    let path = req.uri().path().trim_end_matches('/').to_string();
    let rest = path.strip_prefix("/kosync").unwrap_or("");
    match (req.method().clone(), rest) {
        (Method::GET, "/users/auth") => Reply::json(StatusCode::OK, &json!({ "authorized": "OK" })),
        (Method::PUT, "/syncs/progress") => {
            let Some(body) = read_body(req.into_body(), 64 * 1024).await else {
                return Reply::json(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &json!({ "message": "too large" }),
                );
            };
            let Ok(Value::Object(mut doc)) = serde_json::from_slice::<Value>(&body) else {
                return Reply::json(
                    StatusCode::BAD_REQUEST,
                    &json!({ "message": "Invalid request" }),
                );
            };
            let complete = doc
                .get("document")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.is_empty())
                && doc.get("progress").is_some_and(Value::is_string)
                && doc.get("percentage").is_some_and(Value::is_number)
                && doc.get("device").is_some_and(Value::is_string)
                && doc.get("device_id").is_some_and(Value::is_string);
            if !complete {
                return Reply::json(
                    StatusCode::FORBIDDEN,
                    &json!({ "message": "Field 'document', 'progress', 'percentage', 'device' or 'device_id' not provided." }),
                );
            }
            let document = doc["document"].as_str().unwrap_or_default().to_string();
            let timestamp = now_unix();
            doc.insert("timestamp".into(), json!(timestamp));
            lock(&state.kosync).insert((user, document.clone()), Value::Object(doc));
            Reply::json(
                StatusCode::OK,
                &json!({ "document": document, "timestamp": timestamp }),
            )
        }
        (Method::GET, rest) if rest.starts_with("/syncs/progress/") => {
            let document = crate::util::percent_decode(&rest["/syncs/progress/".len()..]);
            let found = lock(&state.kosync).get(&(user, document)).cloned();
            Reply::new(
                StatusCode::OK,
                TYPE,
                serde_json::to_vec(&found.unwrap_or_else(|| json!({}))).unwrap_or_default(),
            )
        }
        _ => Reply::json(StatusCode::NOT_FOUND, &json!({ "message": "not found" })),
    }
}
