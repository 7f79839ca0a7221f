//! The REST API from the test side: a server with two tenants, JSON requests with the blocking
//! client, and the error shape every refusal has.

use reqwest::blocking::Response;
use serde_json::Value;

use crate::harness::http::client;
use crate::harness::server::TestServer;

pub const KEY_A: &str = "key-of-tenant-a";
pub const KEY_B: &str = "key-of-tenant-b";
pub const KEYS: &str = "tenant-a:key-of-tenant-a,tenant-b:key-of-tenant-b";

/// A server with two tenants and a rate limit high enough not to interfere.
pub fn server() -> TestServer {
    TestServer::start(&[
        ("TARNKAPPE_API_KEYS", KEYS),
        ("TARNKAPPE_RATE_LIMIT", "100000"),
    ])
}

/// POST `body` (serialized) as JSON with `key`.
pub fn post(server: &TestServer, path: &str, key: Option<&str>, body: &Value) -> Response {
    post_raw(server, path, key, serde_json::to_vec(body).expect("json"))
}

pub fn post_raw(server: &TestServer, path: &str, key: Option<&str>, body: Vec<u8>) -> Response {
    let mut req = client()
        .post(server.url(path))
        .header("content-type", "application/json")
        .body(body);
    if let Some(key) = key {
        req = req.header("x-api-key", key);
    }
    req.send().expect("request")
}

pub fn delete(server: &TestServer, id: &str, key: Option<&str>) -> Response {
    let mut req = client().delete(server.url(&format!("/api/v1/session/{id}")));
    if let Some(key) = key {
        req = req.header("x-api-key", key);
    }
    req.send().expect("request")
}

/// Status and JSON body; panics when the body is not JSON.
pub fn status_json(resp: Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let text = resp.text().expect("body");
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("status {status}: body is not JSON ({e}): {text:?}"));
    (status, body)
}

/// Status and JSON body; `Null` when the body is not JSON.
#[cfg(feature = "full-tier")]
pub fn status_value(resp: Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    (status, resp.json().unwrap_or(Value::Null))
}

/// Asserts the error shape of api.md: exactly `error` and `message`, the expected pair.
pub fn assert_error(resp: Response, status: u16, code: &str) -> Value {
    let (got, body) = status_json(resp);
    assert_eq!(
        (got, body["error"].as_str()),
        (status, Some(code)),
        "body: {body}"
    );
    let obj = body.as_object().expect("object");
    assert_eq!(obj.len(), 2, "only error and message: {body}");
    let message = body["message"].as_str().expect("message is a string");
    assert!(message.ends_with('.') && !message.is_empty());
    body
}

/// Anonymizes `text` with `key`, returning the whole result.
pub fn anonymize(server: &TestServer, key: &str, text: &str) -> Value {
    let (status, body) = status_json(post(
        server,
        "/api/v1/anonymize",
        Some(key),
        &serde_json::json!({ "text": text }),
    ));
    assert_eq!(status, 200, "{body}");
    body
}

/// Anonymizes `text` with `key` and returns the new session's id.
pub fn session_of(server: &TestServer, key: &str, text: &str) -> String {
    let body = anonymize(server, key, text);
    body["session_id"].as_str().expect("session_id").to_owned()
}
