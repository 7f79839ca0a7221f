//! A coding agent's real request through the proxy: Claude Code (from npm, pinned in
//! tests/agents/package.json and installed by scripts/setup) runs in non-interactive mode
//! against the fake upstream. Its system prompt and tool definitions are instructions, not
//! personal data: they reach the model intact (no NAME or ORT token anywhere in them), while the
//! user's own name, e-mail address and IBAN in the same request are masked. The client's
//! prompts are not committed here; the test runs the client live. With thinking on, in a tool
//! loop, the signed thinking block it sends back reaches the model as signed. A missing client
//! fails the test; it never skips.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::stream::sse;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::{signed, FakeUpstream, Recorded, Reply};

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
    let work = tempfile::tempdir().expect("temp work dir");
    let prompt = format!(
        "Ich bin {NAME}, meine E-Mail ist {EMAIL} und meine IBAN {IBAN}. \
         Antworte nur mit ok."
    );
    run_claude(&up, &prompt, work.path(), &[], &[]);
    up.requests()
        .iter()
        .filter(|r| r.path.starts_with("/v1/messages"))
        .map(Recorded::json)
        .find(|v| v.get("system").is_some() && v.get("tools").is_some())
        .expect("the client sent a Messages request with a system prompt and tools")
}

/// Runs `claude -p prompt` in `work` through a proxy in front of `up`, with `env` and `args`
/// on top; it must finish well within 120 s and succeed.
fn run_claude(up: &FakeUpstream, prompt: &str, work: &Path, env: &[(&str, &str)], args: &[&str]) {
    let server = up.proxy(&[]);
    let home = tempfile::tempdir().expect("temp home");
    let mut child = Command::new(claude())
        .args(["-p", prompt])
        .args(args)
        .current_dir(work)
        .env("HOME", home.path())
        .env("ANTHROPIC_BASE_URL", server.url(""))
        .env("ANTHROPIC_API_KEY", "dummy-key-for-the-fake-upstream")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .envs(env.iter().copied())
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

/// The thinking fake for a tool loop: a request with thinking on, tools and no tool result
/// yet gets a signed thinking block that names the user's token (bracketed and bare) and
/// someone the prompt never named, then a call of `Read` on `file`; everything else gets `ok`.
/// A thinking block sent back that does not match its signature is refused as the real API
/// refuses it.
fn thinking_answer(file: String) -> impl Fn(&Recorded) -> Reply + Send + Sync + 'static {
    move |r| {
        let req: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        if let Some(refusal) = signed::refusal(&req) {
            return refusal;
        }
        let tool_result = r.body_str().contains("\"tool_result\"");
        if !req["thinking"].is_object() || req.get("tools").is_none() || tool_result {
            return answer(r);
        }
        let token = tokens_in(&r.body_str())
            .into_iter()
            .find(|t| t.starts_with("[[NAME_"))
            .unwrap_or_default();
        let bare = token.replace(['[', ']'], "");
        let thinking = format!(
            "{token} möchte die Notiz lesen. {bare} ist die Kundin; Berta Krüger aus Hamburg prüft mit."
        );
        let message = json!({"type": "message_start", "message": {"id": "msg_t", "type": "message",
            "role": "assistant", "model": "m", "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}}});
        let mut ev = vec![(Some("message_start"), message.to_string())];
        ev.extend(signed::thinking_events(0, &thinking));
        let start = json!({"type": "content_block_start", "index": 1, "content_block":
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}});
        ev.push((Some("content_block_start"), start.to_string()));
        let input = json!({"file_path": file}).to_string();
        let delta = json!({"type": "input_json_delta", "partial_json": input});
        ev.push((Some("content_block_delta"), signed::block_delta(1, delta)));
        ev.push((Some("content_block_stop"), signed::stop(1)));
        let end = json!({"type": "message_delta", "delta": {"stop_reason": "tool_use",
            "stop_sequence": null}, "usage": {"output_tokens": 1}});
        ev.push((Some("message_delta"), end.to_string()));
        ev.push((
            Some("message_stop"),
            json!({"type": "message_stop"}).to_string(),
        ));
        Reply::stream("text/event-stream", sse(&ev), 29)
    }
}

#[test]
fn claude_code_sends_signed_thinking_back_byte_exact_in_a_tool_loop() {
    let work = tempfile::tempdir().expect("temp work dir");
    let file = work.path().join("notiz.txt");
    std::fs::write(&file, format!("Kundin: {NAME}, {EMAIL}\n")).expect("write the note");
    let up = FakeUpstream::start(thinking_answer(file.display().to_string()));
    let prompt = format!("Ich bin {NAME}. Lies notiz.txt und sag ok.");
    let env = [("MAX_THINKING_TOKENS", "2048")];
    run_claude(&up, &prompt, work.path(), &env, &["--allowedTools", "Read"]);
    let requests = up.requests();
    let sent_back: Vec<Value> = requests
        .iter()
        .filter(|r| r.path.starts_with("/v1/messages"))
        .map(Recorded::json)
        .filter(|v| v.to_string().contains("\"tool_result\""))
        .collect();
    assert!(!sent_back.is_empty(), "the tool loop never sent its result");
    for req in &sent_back {
        assert!(
            signed::refusal(req).is_none(),
            "a thinking block lost its signature"
        );
        let thinking: Vec<&Value> = req["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| m["content"].as_array().into_iter().flatten())
            .filter(|b| b["type"] == "thinking")
            .collect();
        assert!(
            !thinking.is_empty(),
            "the client sent no thinking back: {req}"
        );
        let text = thinking[0]["thinking"].as_str().unwrap_or("");
        assert!(text.contains("[[NAME_") && text.contains("Berta"), "{text}");
    }
    for r in &requests {
        let body = r.body_str();
        for v in [NAME, "Quernheim", EMAIL] {
            assert!(!body.contains(v), "{v:?} reached the upstream");
        }
    }
}
