//! A schemathesis run (all checks, positive and negative data, stateful links) against the
//! running service and its own `/openapi.json`. The CLI comes from PyPI
//! (`scripts/requirements-test.txt`, installed by `scripts/setup`); without it this test fails.

use std::time::Instant;

use crate::harness::python::pip_tool;
use crate::harness::server::TestServer;

const KEY: &str = "schemathesis-key";

#[test]
fn schemathesis_passes_against_the_running_service() {
    let server = TestServer::start(&[
        ("TARNKAPPE_API_KEYS", &format!("schemathesis:{KEY}")),
        // Far above what the run sends, so that 429 never masks a real answer.
        ("TARNKAPPE_RATE_LIMIT", "1000000"),
    ]);
    let work = tempfile::tempdir().expect("temp dir");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemathesis.toml");
    let started = Instant::now();
    let output = pip_tool("schemathesis")
        .current_dir(work.path())
        .env("NO_COLOR", "1")
        .args(["--no-color", "--config-file", config, "run"])
        .arg(server.url("/openapi.json"))
        .args(["--checks", "all"])
        .args(["--header", &format!("X-API-Key: {KEY}")])
        .args(["--max-examples", "60"])
        .args(["--workers", "2"])
        .args(["--request-timeout", "20"])
        .output()
        .expect("run schemathesis");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Generated bodies can be 100000 characters long: keep the report readable.
    let shorten = |s: &str| -> String {
        s.lines()
            .map(|l| {
                if l.len() > 400 {
                    format!("{}…", &l[..l.floor_char_boundary(400)])
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        output.status.success(),
        "schemathesis failed ({}):\n{}\n{}",
        output.status,
        shorten(&stdout),
        shorten(&stderr)
    );
    assert!(stdout.contains("No issues found"), "{}", shorten(&stdout));
    eprintln!(
        "schemathesis passed in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
