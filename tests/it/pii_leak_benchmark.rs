//! The PyPI package `pii-leak-benchmark` (0.6.0, `scripts/requirements-test.txt`, installed by
//! `scripts/setup`) against the proxy: its `selfcheck` starts a capture server that plays the
//! OpenAI upstream, sends a chat completion holding fresh synthetic values (e-mail, US SSN,
//! card; with `pii-secrets-v1` also AWS, GitHub and Slack credentials) through the target, and
//! reports CLEAN only when no value reached the capture and the streamed reply gave every value
//! back. Both profiles must be CLEAN through Tarnkappe, and in the same run two negative
//! controls must report LEAK: the benchmark's own `capture://self` (no gateway at all), and the
//! same proxy with a key whose policy detects nothing — which shows that the capture does see
//! the proxy's traffic and that detection, not routing, keeps the values back.

use std::process::{Command, Output};

use tarnkappe::config::hash_key;

use crate::harness::python::INSTALL;
use crate::harness::server::{free_port, TestServer};

const GUARDED_KEY: &str = "benchmark-guarded";
const OPEN_KEY: &str = "benchmark-open";

fn config(capture_port: u16) -> String {
    format!(
        r#"
[[api.keys]]
name = "guarded"
sha256 = "{guarded}"

[[api.keys]]
name = "open"
sha256 = "{open}"
policy = "nothing"

[policies.nothing]
types = []

[[route]]
prefix = "/v1/"
upstream = "http://127.0.0.1:{capture_port}"
format = "openai"
require_key = true
"#,
        guarded = hash_key(GUARDED_KEY),
        open = hash_key(OPEN_KEY),
    )
}

/// `pii-leak-benchmark selfcheck` with `args`, through the `python3` that pip installed it for.
fn selfcheck(args: &[&str]) -> (i32, String) {
    let out: Output = Command::new("python3")
        .args(["-m", "pii_leak_benchmark.cli", "selfcheck"])
        .args(args)
        .args(["--iterations", "2", "--timeout-seconds", "60"])
        .env("NO_COLOR", "1")
        .output()
        .expect("run python3");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !text.contains("No module named pii_leak_benchmark"),
        "pii-leak-benchmark is not installed: {INSTALL}"
    );
    (out.status.code().unwrap_or(-1), text)
}

/// The verdict line of a selfcheck report (`CLEAN`, `LEAK`, `CHECK FAILED`, `NOT MEASURED`).
fn verdict(report: &str) -> &str {
    report
        .lines()
        .map(str::trim)
        .find(|l| ["CLEAN", "LEAK", "CHECK FAILED", "NOT MEASURED"].contains(l))
        .unwrap_or("none")
}

#[test]
fn both_profiles_are_clean_through_the_proxy_and_the_negative_controls_leak() {
    let capture = free_port();
    let server = TestServer::start_with_config(&[], &config(capture));
    let base = server.url("/v1");
    let port = capture.to_string();

    for profile in ["pii-v1", "pii-secrets-v1"] {
        let header = format!("X-API-Key={GUARDED_KEY}");
        let (code, report) = selfcheck(&[
            "--target-base-url",
            &base,
            "--capture-port",
            &port,
            "--profile",
            profile,
            "--target-header",
            &header,
        ]);
        assert_eq!(
            (code, verdict(&report)),
            (0, "CLEAN"),
            "{profile} through the proxy:\n{report}\nserver log:\n{}",
            server.log()
        );
        assert!(report.contains("contained"), "{report}");
    }

    // Negative control 1: the benchmark's own direct connection, no gateway.
    let (code, report) = selfcheck(&[
        "--target-base-url",
        "capture://self",
        "--capture-port",
        &port,
        "--profile",
        "pii-secrets-v1",
    ]);
    assert_eq!((code, verdict(&report)), (1, "LEAK"), "{report}");

    // Negative control 2: the same proxy and route, a key whose policy detects nothing.
    let header = format!("X-API-Key={OPEN_KEY}");
    let (code, report) = selfcheck(&[
        "--target-base-url",
        &base,
        "--capture-port",
        &port,
        "--profile",
        "pii-secrets-v1",
        "--target-header",
        &header,
    ]);
    assert_eq!((code, verdict(&report)), (1, "LEAK"), "{report}");
    for leaked in ["EMAIL", "SSN", "CREDIT_CARD", "AWS_ACCESS_KEY_ID"] {
        assert!(report.contains(leaked), "{leaked} should leak:\n{report}");
    }
}
