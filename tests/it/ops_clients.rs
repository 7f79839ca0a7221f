//! Clients that misbehave and configurations that say little: a client that disconnects in the
//! middle of its body is a 499 (not a 500), slow clients are cut off by the header and body
//! deadlines (keep-alive idling is not), and a minimal configuration file keeps the documented
//! upstream timeouts.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness;
use crate::harness::http::client;
use crate::harness::metrics::{metrics_when, sample};
use crate::harness::server::TestServer;
use crate::harness::upstream::{FakeUpstream, Reply};

const KEY: &str = "key-of-tenant-a";

fn count(metrics: &str, route: &str, status: u16) -> u64 {
    let series = format!(
        r#"tarnkappe_http_requests_total{{route="{route}",method="POST",status="{status}"}}"#
    );
    sample(metrics, &series) as u64
}

fn send_then_close(server: &TestServer, head: &str, partial_body: &[u8]) {
    let mut s = TcpStream::connect(server.addr).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(partial_body).unwrap();
    s.flush().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    drop(s);
}

#[test]
fn a_client_gone_mid_body_is_a_499() {
    let up = FakeUpstream::start(|_| Reply::json(&json!({})));
    let url = up.url();
    let server = TestServer::start(&[
        ("TARNKAPPE_OPENAI_UPSTREAM", url.as_str()),
        ("TARNKAPPE_API_KEYS", "tenant-a:key-of-tenant-a"),
    ]);
    send_then_close(
        &server,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
        br#"{"model": "m", "messages": [{"role": "user", "content": "Max"#,
    );
    send_then_close(
        &server,
        &format!("POST /api/v1/anonymize HTTP/1.1\r\nHost: x\r\nX-API-Key: {KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"),
        br#"{"text": "Max"#,
    );
    let m = metrics_when(&server, |m| {
        count(m, "/v1/", 499) == 1 && count(m, "/api/v1/anonymize", 499) == 1
    });
    assert_eq!(count(&m, "/v1/", 499), 1, "{m}");
    assert_eq!(count(&m, "/api/v1/anonymize", 499), 1, "{m}");
    for route in ["/v1/", "/api/v1/anonymize"] {
        for status in [400, 500] {
            assert_eq!(count(&m, route, status), 0, "{route} {status}: {m}");
        }
    }
    assert!(up.requests().is_empty(), "nothing forwarded");
    let log = server.log_when(|l| l.matches("status=499").count() >= 2);
    assert!(log.contains("status=499"), "{log}");
    assert!(!log.contains("status=500"), "{log}");
}

/// Sends `bytes` one per `pace`; returns how long until the server closed the connection
/// (a failed write, or the end of what it answered), and what it answered.
fn dribble(server: &TestServer, prefix: &[u8], bytes: &[u8], pace: Duration) -> (Duration, String) {
    let mut s = TcpStream::connect(server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(10))).unwrap();
    let started = Instant::now();
    s.write_all(prefix).unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    for &b in bytes {
        if s.write_all(&[b]).is_err() {
            break;
        }
        std::thread::sleep(pace);
        match s.read(&mut buf) {
            Ok(0) => return (started.elapsed(), String::from_utf8_lossy(&answer).into()),
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return (started.elapsed(), String::from_utf8_lossy(&answer).into()),
        }
    }
    (started.elapsed(), String::from_utf8_lossy(&answer).into())
}

#[test]
fn slow_clients_are_cut_off_and_idle_keep_alive_is_not() {
    let up = FakeUpstream::start(|_| Reply::chat("ok"));
    let url = up.url();
    let server = TestServer::start(&[
        ("TARNKAPPE_OPENAI_UPSTREAM", url.as_str()),
        ("TARNKAPPE_API_KEYS", "tenant-a:key-of-tenant-a"),
        ("TARNKAPPE_CLIENT_HEADER_TIMEOUT_MS", "2000"),
        ("TARNKAPPE_CLIENT_BODY_TIMEOUT_MS", "2000"),
    ]);
    let second = Duration::from_secs(1);

    // a header at one byte per second: cut off at the header deadline
    let head =
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n";
    let (took, answer) = dribble(&server, b"", head.as_bytes(), second);
    assert!(
        took < Duration::from_secs(6),
        "header dribble lasted {took:?}"
    );
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 4"),
        "{answer}"
    );

    // a body at one byte per second: 408, connection closed, nothing forwarded
    let body = br#"{"model": "m", "messages": [{"role": "user", "content": "hallo"}]}"#;
    for (path, extra) in [
        ("/v1/chat/completions", String::new()),
        ("/api/v1/anonymize", format!("X-API-Key: {KEY}\r\n")),
    ] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let (took, answer) = dribble(&server, head.as_bytes(), body, second);
        assert!(
            took < Duration::from_secs(6),
            "{path}: body dribble lasted {took:?}"
        );
        assert!(answer.starts_with("HTTP/1.1 408"), "{path}: {answer}");
    }
    assert!(up.requests().is_empty(), "nothing forwarded");

    // a keep-alive connection idling longer than the header deadline still serves a request
    let mut s = harness::http::connect(server.addr);
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    for round in 0..2 {
        s.write_all(request.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut answer = Vec::new();
        let mut buf = [0u8; 1024];
        while !String::from_utf8_lossy(&answer).contains("\"ok\"") {
            let n = s.read(&mut buf).expect("answer");
            assert!(n > 0, "round {round}: closed");
            answer.extend_from_slice(&buf[..n]);
        }
        assert!(answer.starts_with(b"HTTP/1.1 200"), "round {round}");
        std::thread::sleep(Duration::from_millis(3000));
    }
}

#[test]
fn a_minimal_config_keeps_the_documented_upstream_timeouts() {
    let up = FakeUpstream::start(|_| {
        std::thread::sleep(Duration::from_millis(50));
        Reply::chat("spät")
    });
    let toml = format!(
        "[server]\nlisten = \"127.0.0.1:0\"\n[[route]]\nprefix = \"/v1/\"\nupstream = \"{}\"\nformat = \"openai\"\n",
        up.url()
    );
    let server = TestServer::start_with_config(&[], &toml);
    let resp = client()
        .post(server.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "messages": [{"role": "user", "content": "hallo"}]}))
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert!(resp.text().unwrap().contains("spät"));
}
