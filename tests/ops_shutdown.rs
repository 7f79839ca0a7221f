//! SIGTERM is graceful: the listener closes at once, a request that is already in flight is
//! still answered within the grace period, and then the process exits by itself.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use common::TestServer;

const GRACE_SECONDS: u64 = 3;

fn config_with_grace(dir: &std::path::Path) -> std::path::PathBuf {
    let toml = tarnkappe::config::DEFAULT_TOML.replace(
        "grace_period_seconds = 10",
        &format!("grace_period_seconds = {GRACE_SECONDS}"),
    );
    assert!(toml.contains(&format!("grace_period_seconds = {GRACE_SECONDS}")));
    let path = dir.join("proxy.toml");
    std::fs::write(&path, toml).expect("write config");
    path
}

#[test]
fn sigterm_lets_in_flight_requests_finish_then_exits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = config_with_grace(dir.path());
    let config = config.to_str().expect("utf-8 path");
    let mut server =
        TestServer::start_with_args(&[("TARNKAPPE_API_KEYS", "t:k")], &["--config", config]);

    // A request in flight: its head is only half sent when SIGTERM arrives.
    let mut conn = TcpStream::connect(server.addr).expect("connect");
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    conn.write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: tarnkappe\r\n")
        .expect("first half");
    std::thread::sleep(Duration::from_millis(200));

    let sent = Instant::now();
    let status = Command::new("kill")
        .arg("-TERM")
        .arg(server.pid().to_string())
        .status()
        .expect("kill");
    assert!(status.success());

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
    conn.write_all(b"Connection: close\r\n\r\n")
        .expect("second half");
    let mut response = Vec::new();
    conn.read_to_end(&mut response).expect("response");
    let response = String::from_utf8_lossy(&response);
    assert!(
        response.starts_with("HTTP/1.1 "),
        "no response to the in-flight request: {response:?}"
    );
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
