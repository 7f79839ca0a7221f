//! The official Python SDKs (`openai`, `anthropic`, pinned in scripts/requirements-test.txt
//! and installed by scripts/setup) pointed at the proxy, plain and streaming, with tool calls.
//! A missing SDK or interpreter fails these tests; they never skip.

use std::process::Command;

use crate::harness::fixtures::{prompt, VALUES};
use crate::harness::upstream::echo::echo;
use crate::harness::upstream::FakeUpstream;

fn run_sdk_script(script: &str) {
    let up = FakeUpstream::start(echo);
    let server = up.proxy(&[]);
    let path = format!("{}/tests/sdk/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(&path)
        .env("TARNKAPPE_PROXY", server.url(""))
        .env("TARNKAPPE_VALUES", serde_json::to_string(&VALUES).unwrap())
        .env("TARNKAPPE_PROMPT", prompt())
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_BASE_URL")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .expect("python3 must be installed to run the SDK tests");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{script} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    for r in up.requests() {
        for v in VALUES {
            assert!(
                !r.body_str().contains(v),
                "the upstream received an original value"
            );
        }
    }
}

#[test]
fn openai_python_sdk() {
    run_sdk_script("openai_sdk.py");
}

#[test]
fn anthropic_python_sdk() {
    run_sdk_script("anthropic_sdk.py");
}
