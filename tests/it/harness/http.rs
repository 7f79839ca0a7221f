//! HTTP from the test side: a blocking client, and raw HTTP/1.1 over a TCP socket for what a
//! client library hides (headers without a body, chunked bodies, keep-alive).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::Value;

use crate::harness::server::TestServer;

/// A blocking HTTP client without proxies or connection reuse surprises.
pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("http client")
}

/// Like [`client`], with the client socket bound to `local` (e.g. `127.0.0.2`): the server sees
/// that address as the peer.
pub fn client_from(local: &str) -> reqwest::blocking::Client {
    let local: std::net::IpAddr = local.parse().expect("local address");
    reqwest::blocking::Client::builder()
        .no_proxy()
        .local_address(local)
        .timeout(Duration::from_secs(30))
        .build()
        .expect("http client")
}

/// POSTs `body` as `application/json` to `path`; the status and the body as text (empty when
/// it cannot be read).
pub fn post_bytes(server: &TestServer, path: &str, body: &[u8]) -> (u16, String) {
    let resp = client()
        .post(server.url(path))
        .header("content-type", "application/json")
        .body(body.to_vec())
        .send()
        .expect("request");
    let status = resp.status().as_u16();
    (status, resp.text().unwrap_or_default())
}

/// [`post_bytes`] with `body` serialised.
pub fn post_json(server: &TestServer, path: &str, body: &Value) -> (u16, String) {
    post_bytes(
        server,
        path,
        &serde_json::to_vec(body).expect("serialisable JSON"),
    )
}

/// The value of header `name` (any case) among `headers`.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
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
        header(&self.headers, name)
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

/// Connects to `addr` and sends the request `head` (request line and headers, without the
/// blank line that ends them); the body, if any, is the caller's to send.
pub fn send_head(addr: SocketAddr, head: &str) -> TcpStream {
    let mut s = connect(addr);
    s.write_all(format!("{head}\r\n\r\n").as_bytes())
        .expect("send the request head");
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
