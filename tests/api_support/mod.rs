//! Helpers for the API integration tests (`tests/api_*.rs`): JSON requests with the blocking
//! client, and raw HTTP/1.1 over a TCP socket for what a client library hides (headers without a
//! body, chunked bodies, keep-alive).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use reqwest::blocking::Response;
use serde_json::Value;

use crate::common::{client, TestServer};

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

/// A parsed raw HTTP response.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("json body")
    }
}

pub fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    s
}

/// Reads one response (status line, headers, `Content-Length` body) from `stream`. Interim
/// `100 Continue` responses are skipped.
pub fn read_response(stream: &mut TcpStream) -> RawResponse {
    loop {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            let n = stream.read(&mut byte).expect("read header");
            assert!(
                n == 1,
                "connection closed before a complete header: {:?}",
                String::from_utf8_lossy(&head)
            );
            head.push(byte[0]);
        }
        let text = String::from_utf8(head).expect("ascii header");
        let mut lines = text.split("\r\n");
        let status: u16 = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .expect("status line");
        let headers: Vec<(String, String)> = lines
            .filter(|l| !l.is_empty())
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
            .collect();
        if status == 100 {
            continue;
        }
        let len: usize = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
            .map(|(_, v)| v.parse().expect("content-length"))
            .expect("every local response has Content-Length");
        let mut body = vec![0u8; len];
        stream.read_exact(&mut body).expect("body");
        return RawResponse {
            status,
            headers,
            body,
        };
    }
}

/// Sends `head` (request line and headers, without the blank line) plus `body` and reads the answer.
pub fn raw_request(addr: SocketAddr, head: &str, body: &[u8]) -> RawResponse {
    let mut s = connect(addr);
    s.write_all(format!("{head}\r\n\r\n").as_bytes())
        .expect("write");
    s.write_all(body).expect("write body");
    read_response(&mut s)
}
