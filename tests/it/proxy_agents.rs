//! A coding agent's real request through the proxy: Claude Code (from npm, pinned in
//! tests/agents/package.json and installed by scripts/setup) runs in non-interactive mode
//! against the fake upstream. Its system prompt and tool definitions are instructions, not
//! personal data: they reach the model intact (no NAME or ORT token anywhere in them), while the
//! user's own name, e-mail address and IBAN in the same request are masked. The client's
//! prompts are not committed here; the test runs the client live. A missing client fails the
//! test; it never skips.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::stream::sse;
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

/// The user's own values, put into the prompt.
const NAME: &str = "Roswitha Quernheim";
const EMAIL: &str = "r.quernheim@beispiel-mail.de";
const IBAN: &str = "DE89 3704 0044 0532 0130 00";

fn claude() -> String {
    format!(
        "{}/tests/agents/node_modules/.bin/claude",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// An Anthropic Messages answer (streamed when asked) saying `ok`, nothing else.
fn answer(r: &Recorded) -> Reply {
    let req: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
    if !r.path.starts_with("/v1/messages") {
        return Reply::json(&json!({"type": "error", "error": {"type": "not_found_error"}}));
    }
    let message = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 1}});
    if req.get("stream").and_then(Value::as_bool) != Some(true) {
        let mut m = message;
        m["content"] = json!([{"type": "text", "text": "ok"}]);
        m["stop_reason"] = json!("end_turn");
        return Reply::json(&m);
    }
    let ev: Vec<(Option<&str>, String)> = [
        ("message_start", json!({"message": message})),
        (
            "content_block_start",
            json!({"index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
        ),
        ("content_block_stop", json!({"index": 0})),
        (
            "message_delta",
            json!({"delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 1}}),
        ),
        ("message_stop", json!({})),
    ]
    .into_iter()
    .map(|(name, mut v)| {
        v["type"] = json!(name);
        (Some(name), v.to_string())
    })
    .collect();
    Reply::stream("text/event-stream", sse(&ev), 27)
}

/// Every string below `v`, with its JSON path.
fn strings<'v>(v: &'v Value, path: &str, out: &mut Vec<(String, &'v str)>) {
    match v {
        Value::String(s) => out.push((path.to_owned(), s)),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                strings(x, &format!("{path}[{i}]"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                strings(x, &format!("{path}.{k}"), out);
            }
        }
        _ => {}
    }
}

/// Runs the client once through the proxy and returns the Messages request with the system
/// prompt and tools that reached the upstream.
fn agent_request() -> Value {
    let up = FakeUpstream::start(answer);
    let server = up.proxy(&[]);
    let home = tempfile::tempdir().expect("temp home");
    let work = tempfile::tempdir().expect("temp work dir");
    let prompt = format!(
        "Ich bin {NAME}, meine E-Mail ist {EMAIL} und meine IBAN {IBAN}. \
         Antworte nur mit ok."
    );
    let mut child = Command::new(claude())
        .args(["-p", &prompt])
        .current_dir(work.path())
        .env("HOME", home.path())
        .env("ANTHROPIC_BASE_URL", server.url(""))
        .env("ANTHROPIC_API_KEY", "dummy-key-for-the-fake-upstream")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("Claude Code must be installed (TARNKAPPE_SETUP_TESTS=1 scripts/setup): {e}")
        });
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("wait for the client").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("Claude Code did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().expect("client output");
    assert!(
        out.status.success(),
        "claude -p failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    up.requests()
        .iter()
        .filter(|r| r.path.starts_with("/v1/messages"))
        .map(Recorded::json)
        .find(|v| v.get("system").is_some() && v.get("tools").is_some())
        .expect("the client sent a Messages request with a system prompt and tools")
}

#[test]
fn claude_code_instructions_pass_intact_and_the_users_values_are_masked() {
    let req = agent_request();
    let body = req.to_string();
    // The user's own values never reach the upstream, in any spelling.
    for v in [
        NAME,
        "Roswitha",
        "Quernheim",
        EMAIL,
        IBAN,
        "DE89370400440532013000",
    ] {
        assert!(!body.contains(v), "{v:?} reached the upstream");
    }
    assert!(body.contains("[[NAME_"), "the user's name has no token");
    assert!(body.contains("[[EMAIL_"), "the e-mail address has no token");
    assert!(body.contains("[[IBAN_"), "the IBAN has no token");
    // The client's own instructions: system prompt and tool definitions, tens of kilobytes.
    let mut texts = Vec::new();
    strings(&req["system"], "system", &mut texts);
    strings(&req["tools"], "tools", &mut texts);
    let size: usize = texts.iter().map(|(_, s)| s.len()).sum();
    assert!(size > 10_000, "only {size} bytes of instructions");
    let hits: Vec<String> = texts
        .iter()
        .filter(|(_, s)| s.contains("[[NAME_") || s.contains("[[ORT_"))
        .flat_map(|(path, s)| {
            s.match_indices("[[")
                .filter(|(i, _)| s[*i..].starts_with("[[NAME_") || s[*i..].starts_with("[[ORT_"))
                .map(|(i, _)| {
                    let a = s.floor_char_boundary(i.saturating_sub(40));
                    let b = s.ceil_char_boundary((i + 50).min(s.len()));
                    format!("{path}: …{}…", &s[a..b])
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        hits.is_empty(),
        "{} NAME/ORT tokens in the instructions:\n{}",
        hits.len(),
        hits.join("\n")
    );
}
