//! SIGTERM is graceful: the listener closes at once, a request that is already in flight is
//! still answered within the grace period, and then the process exits by itself.
//!
//! (Pingora drops connections that are idle or still sending their request head at SIGTERM;
//! a request whose head has arrived is in flight and is completed.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::harness::config::edited;
use crate::harness::server::TestServer;

const GRACE_SECONDS: u64 = 3;

#[test]
fn sigterm_lets_in_flight_requests_finish_then_exits() {
    let grace = format!("grace_period_seconds = {GRACE_SECONDS}");
    let toml = edited(&[("grace_period_seconds = 10", &grace)]);
    let mut server = TestServer::start_with_config(&[("TARNKAPPE_API_KEYS", "t:k")], &toml);

    // A request in flight: its head is sent, its body only half when SIGTERM arrives.
    let body = br#"{"text": "Bitte an max@example.org schreiben."}"#;
    let (first, second) = body.split_at(12);
    let mut conn = TcpStream::connect(server.addr).expect("connect");
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let head = format!(
        "POST /api/v1/anonymize HTTP/1.1\r\nHost: tarnkappe\r\nX-API-Key: k\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    conn.write_all(head.as_bytes()).expect("head");
    conn.write_all(first).expect("first half");
    std::thread::sleep(Duration::from_millis(300));

    let sent = Instant::now();
    assert!(server.sigterm(), "SIGTERM sent");

    // New connections are refused soon after SIGTERM.
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        if TcpStream::connect_timeout(&server.addr, Duration::from_millis(100)).is_err() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the listener still accepts connections after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // The in-flight request completes, well after SIGTERM.
    std::thread::sleep(Duration::from_millis(800));
    conn.write_all(second).expect("second half");
    let mut response = Vec::new();
    conn.read_to_end(&mut response).expect("response");
    let response = String::from_utf8_lossy(&response);
    assert!(
        response.starts_with("HTTP/1.1 200 "),
        "no complete answer to the in-flight request: {response:?}\n{}",
        server.log()
    );
    assert!(response.contains("[[EMAIL_1]]"), "{response}");
    assert!(
        response.to_ascii_lowercase().contains("x-request-id: "),
        "{response}"
    );

    // Then the process ends by itself, after the grace period (pingora always waits it out).
    assert!(
        server.terminate(Duration::from_secs(GRACE_SECONDS + 10)),
        "the process did not exit after the grace period"
    );
    assert!(sent.elapsed() >= Duration::from_secs(GRACE_SECONDS) - Duration::from_millis(500));
    let log = server.log();
    assert!(log.contains("SIGTERM received"), "{log}");
}
