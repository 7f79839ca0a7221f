//! The Codex CLI's requests through the proxy (issue 48). Quick tier: the shape of the request
//! Codex 0.171.0 sends (captured from the real client against a fake upstream, see
//! docs/proxy.md) — its settings (`reasoning.effort`, `text.verbosity`, the turn metadata
//! that repeats `"reasoning_effort":"low"`) reach a provider that validates them unchanged,
//! its instructions stay byte-identical, and tool-call arguments keep their bytes except for
//! the replaced strings. Full tier ([`real`]): the real Codex CLI, pinned in
//! tests/agents/package.json, with its default model and with `gpt-5.1-codex` at every effort.

use serde_json::{json, Value};

use crate::harness::http::post_bytes;
use crate::harness::stream::sse;
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

/// The user's own value, planted in the prompt.
pub(crate) const NAME: &str = "Roswitha Quernheim";

/// Settings a Responses provider validates, with the values it accepts (as the real API,
/// which answers 400 to anything else).
const SETTINGS: &[(&str, &str, &[&str])] = &[
    (
        "reasoning",
        "effort",
        &["none", "minimal", "low", "medium", "high", "xhigh"],
    ),
    (
        "reasoning",
        "summary",
        &["auto", "concise", "detailed", "none"],
    ),
    ("reasoning", "context", &["all_turns", "last_turn"]),
    ("text", "verbosity", &["low", "medium", "high"]),
];

/// The setting the provider would refuse, if any.
fn bad_setting(req: &Value) -> Option<String> {
    for (obj, key, allowed) in SETTINGS {
        if let Some(v) = req.get(*obj).and_then(|o| o.get(*key)) {
            if !v.as_str().is_some_and(|s| allowed.contains(&s)) {
                return Some(format!("{obj}.{key} = {v}"));
            }
        }
    }
    for (key, allowed) in [
        ("tool_choice", &["auto", "none", "required"][..]),
        ("service_tier", &["auto", "default", "flex", "priority"]),
        ("truncation", &["auto", "disabled"]),
    ] {
        if let Some(v) = req.get(key).filter(|v| v.is_string()) {
            if !v.as_str().is_some_and(|s| allowed.contains(&s)) {
                return Some(format!("{key} = {v}"));
            }
        }
    }
    None
}

/// A Responses provider: 400 for a changed setting, otherwise `ok` (streamed when asked).
pub(crate) fn provider(r: &Recorded) -> Reply {
    let req: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
    if r.path.starts_with("/v1/chat/completions") {
        return Reply::chat("ok");
    }
    if let Some(bad) = bad_setting(&req) {
        let mut reply = Reply::json(&json!({"error": {"type": "invalid_request_error",
            "message": format!("Invalid value: {bad}")}}));
        reply.status = 400;
        return reply;
    }
    let done = json!({"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
        "model": "m", "output": [{"type": "message", "id": "msg_1", "status": "completed",
        "role": "assistant", "content": [{"type": "output_text", "text": "ok", "annotations": []}]}],
        "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
        "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}});
    if req.get("stream").and_then(Value::as_bool) != Some(true) {
        return Reply::json(&done);
    }
    let item = done["output"][0].clone();
    let mut started = done.clone();
    started["status"] = json!("in_progress");
    started["output"] = json!([]);
    let ev: Vec<(Option<&str>, String)> = [
        ("response.created", json!({"response": started})),
        (
            "response.output_text.delta",
            json!({"output_index": 0, "content_index": 0,
            "item_id": "msg_1", "delta": "ok"}),
        ),
        (
            "response.output_item.done",
            json!({"output_index": 0, "item": item}),
        ),
        ("response.completed", json!({"response": done})),
    ]
    .into_iter()
    .map(|(name, mut v)| {
        v["type"] = json!(name);
        (Some(name), v.to_string())
    })
    .collect();
    Reply::stream("text/event-stream", sse(&ev), 48)
}

/// Developer instructions as Codex writes them: settings named in prose, words that hold a
/// setting's value (`follow`, `allows`, `below`), typefaces that read like names.
const INSTRUCTIONS: &str = "You are Codex. Give the user enough context to follow your \
    reasoning; it allows a free-text answer. Use the fonts listed below: Atkinson Hyperlegible \
    Next, Barlow Condensed, Castoro, Cormorant Garamond, Cossette Texte, Cutive Mono, DM Sans, \
    DM Serif Text, Instrument Sans, Instrument Serif, Young Serif. Reasoning efforts: low \
    (default), medium, high, xhigh. I’ve checked it and I’ll report back.";

/// A request in the shape Codex 0.171.0 sends (`codex exec`, custom provider with
/// `wire_api = "responses"`), with `effort` as its reasoning effort.
fn codex_request(effort: &str, stream: bool) -> Value {
    let turn = json!({"session_id": "01a22258-82f9-7c03-8a4d-3f9c3dafff4f", "agent_name": "/root",
        "request_kind": "turn", "sandbox_mode": "read-only", "model": "gpt-5.1-codex",
        "reasoning_effort": effort, "comfort": "high", "report": "weekly", "sort": "asc"});
    json!({
        "model": "gpt-5.1-codex",
        "stream": stream,
        "input": [
            {"type": "message", "role": "developer",
             "content": [{"type": "input_text", "text": INSTRUCTIONS}]},
            {"type": "message", "role": "user",
             "content": [{"type": "input_text", "text": format!("Ich bin {NAME}. Sag nur ok.")}]}
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": false,
        "reasoning": {"effort": effort, "summary": "auto", "context": "all_turns"},
        "store": false,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": "01a22258-82f9-7c03-8a4d-3f9c3dafff4f",
        "text": {"verbosity": "low"},
        "client_metadata": {"x-codex-turn-metadata": turn.to_string()}
    })
}

#[test]
fn codex_settings_and_instructions_reach_the_provider_unchanged() {
    let up = FakeUpstream::start(provider);
    let server = up.proxy(&[]);
    for effort in ["low", "medium", "high", "minimal"] {
        for stream in [false, true] {
            let req = codex_request(effort, stream);
            let body = serde_json::to_vec(&req).expect("JSON");
            let (status, reply) = post_bytes(&server, "/v1/responses", &body);
            assert_eq!(status, 200, "effort {effort}, stream {stream}: {reply}");
            let got = up.last().json();
            let meta = &req["client_metadata"]["x-codex-turn-metadata"];
            for (path, want) in [
                ("/reasoning", &req["reasoning"]),
                ("/text", &req["text"]),
                ("/include", &req["include"]),
                ("/client_metadata/x-codex-turn-metadata", meta),
                ("/input/0", &req["input"][0]),
            ] {
                assert_eq!(got.pointer(path), Some(want), "{path} changed ({effort})");
            }
            let user = got["input"][1]["content"][0]["text"].as_str().unwrap_or("");
            assert!(
                !user.contains("Roswitha"),
                "the user's name reached the upstream"
            );
            assert!(
                user.contains("[[NAME_1]]"),
                "the user's name has no token: {user}"
            );
        }
    }
}

/// Function-call arguments with odd whitespace and key order, `value` in one of them.
fn args_with(value: &str) -> [String; 2] {
    [
        "{ \"zeta\" :  1 ,\n  \"alpha\":\"kein Wert\", \"list\" : [ 1,2 ,\"x\" ] }".to_owned(),
        format!(
            "{{\"to\" :  \"{value}\",\n\t\"note\": \"Gr\\u00fc\\u00dfe \\n\", \"an\": \"Hallo {value}\",  \"n\":1.50 }}"
        ),
    ]
}

#[test]
fn tool_call_arguments_keep_their_bytes_but_for_the_replaced_strings() {
    let up = FakeUpstream::start(provider);
    let server = up.proxy(&[]);
    let [plain, valued] = args_with(NAME);
    let responses = json!({"model": "m", "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text",
            "text": format!("Schreib {NAME}.")}]},
        {"type": "function_call", "call_id": "c1", "name": "look", "arguments": plain},
        {"type": "function_call_output", "call_id": "c1", "output": "nichts"},
        {"type": "function_call", "call_id": "c2", "name": "send", "arguments": valued},
        {"type": "function_call_output", "call_id": "c2", "output": "gesendet"}]});
    let chat = json!({"model": "m", "messages": [
        {"role": "user", "content": format!("Schreib {NAME}.")},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "look", "arguments": plain}},
            {"id": "c2", "type": "function", "function": {"name": "send", "arguments": valued}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "nichts"},
        {"role": "tool", "tool_call_id": "c2", "content": "gesendet"}]});
    let [_, want] = args_with("[[NAME_1]]");
    for (path, req, at) in [
        (
            "/v1/responses",
            &responses,
            ["/input/1/arguments", "/input/3/arguments"],
        ),
        (
            "/v1/chat/completions",
            &chat,
            [
                "/messages/1/tool_calls/0/function/arguments",
                "/messages/1/tool_calls/1/function/arguments",
            ],
        ),
    ] {
        let body = serde_json::to_vec(req).expect("JSON");
        let (status, reply) = post_bytes(&server, path, &body);
        assert_eq!(status, 200, "{path}: {reply}");
        let got = up.last().json();
        assert_eq!(
            got.pointer(at[0]).and_then(Value::as_str),
            Some(plain.as_str()),
            "{path}"
        );
        assert_eq!(
            got.pointer(at[1]).and_then(Value::as_str),
            Some(want.as_str()),
            "{path}"
        );
    }
}

/// The real Codex CLI (npm `@openai/codex`, pinned in tests/agents/package.json, installed by
/// `scripts/setup` with `TARNKAPPE_SETUP_TESTS=1`) in `codex exec`, with a custom provider
/// entry (`wire_api = "responses"`). Each run goes once straight to the fake provider (what
/// Codex sends) and once through the proxy; a missing client fails the test.
#[cfg(feature = "full-tier")]
pub(crate) mod real {
    use std::path::Path;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use serde_json::Value;

    use super::provider;
    pub(crate) use super::NAME;
    use crate::harness::upstream::{FakeUpstream, Recorded};

    fn codex() -> String {
        format!(
            "{}/tests/agents/node_modules/.bin/codex",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    /// Runs `codex exec` with `base` as its provider's address and `config` overrides; the
    /// Responses requests the provider behind it received.
    fn run(home: &Path, work: &Path, up: &FakeUpstream, base: &str, config: &[&str]) -> Value {
        let toml = format!(
            "model_provider = \"tk\"\n[model_providers.tk]\nname = \"tk\"\n\
             base_url = \"{base}/v1\"\nwire_api = \"responses\"\nenv_key = \"TK_TEST_KEY\"\n"
        );
        let before = up.requests().len();
        run_codex(home, work, &toml, config);
        up.requests()[before..]
            .iter()
            .filter(|r| r.path.ends_with("/responses"))
            .map(Recorded::json)
            .next_back()
            .expect("codex sent a Responses request")
    }

    /// Runs `codex exec` in `work` with `config_toml` as its `~/.codex/config.toml` and
    /// `config` overrides, the prompt naming [`NAME`] (the key in `TK_TEST_KEY` and
    /// `OPENAI_API_KEY`); its standard output. A failed run fails the test.
    pub(crate) fn run_codex(
        home: &Path,
        work: &Path,
        config_toml: &str,
        config: &[&str],
    ) -> String {
        std::fs::create_dir_all(home.join(".codex")).expect("codex home");
        std::fs::write(home.join(".codex/config.toml"), config_toml).expect("codex config");
        let mut cmd = Command::new(codex());
        cmd.arg("exec").arg("--skip-git-repo-check");
        for c in config {
            cmd.args(["-c", c]);
        }
        let prompt = format!("Ich bin {NAME}. Antworte nur mit ok.");
        let mut child = cmd
            .arg(prompt)
            .current_dir(work)
            .env("HOME", home)
            .env("CODEX_HOME", home.join(".codex"))
            .env("TK_TEST_KEY", "dummy-key-for-the-fake-upstream")
            .env("OPENAI_API_KEY", "dummy-key-for-the-fake-upstream")
            .env_remove("OPENAI_BASE_URL")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "the Codex CLI must be installed (TARNKAPPE_SETUP_TESTS=1 scripts/setup): {e}"
                )
            });
        let deadline = Instant::now() + Duration::from_secs(120);
        while child.try_wait().expect("wait for codex").is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("codex exec did not finish within 120 s");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let out = child.wait_with_output().expect("codex output");
        assert!(
            out.status.success(),
            "codex exec {config:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `codex login --with-api-key` in `home`: the key the built-in provider sends (it reads no
    /// key variable).
    pub(crate) fn codex_login(home: &Path, key: &str) {
        std::fs::create_dir_all(home.join(".codex")).expect("codex home");
        let mut child = Command::new(codex())
            .args(["login", "--with-api-key"])
            .env("HOME", home)
            .env("CODEX_HOME", home.join(".codex"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the Codex CLI must be installed (TARNKAPPE_SETUP_TESTS=1 scripts/setup)");
        if let Some(mut stdin) = child.stdin.take() {
            std::io::Write::write_all(&mut stdin, key.as_bytes()).expect("key to codex login");
        }
        assert!(
            child.wait().expect("codex login").success(),
            "codex login failed"
        );
    }

    /// Codex's own instructions: every input item but the user's messages, and the tools.
    pub(crate) fn instructions(req: &Value) -> Vec<Value> {
        let mut out: Vec<Value> = req["input"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|i| i["role"] != "user")
            .map(|i| {
                let mut i = i.clone();
                // ids and times Codex draws per run
                if let Some(o) = i.as_object_mut() {
                    o.remove("id");
                    o.remove("internal_chat_message_metadata_passthrough");
                }
                i
            })
            .collect();
        out.extend(["instructions", "tools"].map(|k| req[k].clone()));
        out
    }

    /// Where `b` first departs from `a`, with some context of both.
    pub(crate) fn first_difference(a: &str, b: &str) -> String {
        let at = a
            .char_indices()
            .zip(b.chars())
            .find(|((_, x), y)| x != y)
            .map_or(a.len().min(b.len()), |((i, _), _)| i);
        let from = a.floor_char_boundary(at.saturating_sub(60));
        let cut =
            |s: &str| s[from.min(s.len())..s.ceil_char_boundary((at + 60).min(s.len()))].to_owned();
        format!("sent …{}…\ngot  …{}…", cut(a), cut(b))
    }

    fn check(config: &[&str]) {
        let up = FakeUpstream::start(provider);
        let server = up.proxy(&[]);
        let home = tempfile::tempdir().expect("temp home");
        let work = tempfile::tempdir().expect("temp work dir");
        let sent = run(home.path(), work.path(), &up, &up.url(), config);
        let got = run(home.path(), work.path(), &up, &server.url(""), config);
        let (want, have) = (instructions(&sent), instructions(&got));
        assert!(want.iter().map(|v| v.to_string().len()).sum::<usize>() > 10_000);
        let changed: Vec<String> = want
            .iter()
            .zip(&have)
            .filter(|(a, b)| a != b)
            .map(|(a, b)| first_difference(&a.to_string(), &b.to_string()))
            .collect();
        assert!(
            changed.is_empty(),
            "{config:?}: Codex's instructions changed:\n{}",
            changed.join("\n")
        );
        assert_eq!(want.len(), have.len());
        for key in [
            "reasoning",
            "text",
            "include",
            "tool_choice",
            "parallel_tool_calls",
        ] {
            assert_eq!(got[key], sent[key], "{config:?}: {key} changed");
        }
        let meta = "/client_metadata/x-codex-turn-metadata";
        let effort = |v: &Value| -> Option<String> {
            let m: Value = serde_json::from_str(v.pointer(meta)?.as_str()?).ok()?;
            Some(m.get("reasoning_effort")?.to_string())
        };
        assert_eq!(effort(&got), effort(&sent), "{config:?}: turn metadata");
        let body = got.to_string();
        assert!(
            !body.contains("Quernheim"),
            "the user's name reached the upstream"
        );
        assert!(body.contains("[[NAME_1]]"), "the user's name has no token");
    }

    #[test]
    fn codex_with_its_default_model_and_settings() {
        check(&[]);
    }

    #[test]
    fn codex_with_gpt_5_1_codex_at_every_reasoning_effort() {
        for effort in ["low", "medium", "high"] {
            let effort = format!("model_reasoning_effort={effort}");
            check(&["model=gpt-5.1-codex", &effort]);
        }
    }
}

/// Tool definitions are instructions: the example dates in their descriptions (as Open WebUI's
/// built-in tools write them) reach the model as written, while a real address there and the
/// user's values are masked.
#[test]
fn example_dates_in_tool_descriptions_stay_as_written() {
    let up = FakeUpstream::start(provider);
    let server = up.proxy(&[]);
    let start = "Start of the range in the format YYYY-MM-DD HH:MM, e.g. \"2023-10-01 00:00\".";
    let end =
        "Ende des Zeitraums, z. B. 31.12.2023. Fragen an kalender-team.hessler@beispiel-firma.de";
    let tool = json!({"type": "function", "function": {"name": "search_events",
        "description": "Search the calendar. Dates are local time, for example 2024-01-15.",
        "parameters": {"type": "object", "properties": {
            "start": {"type": "string", "description": start},
            "end": {"type": "string", "description": end}},
            "required": ["start"]}}});
    for stream in [false, true] {
        let req = json!({"model": "m", "stream": stream, "tools": [tool], "messages": [
            {"role": "user", "content": format!("Ich bin {NAME}, geboren am 03.04.1987.")}]});
        let (status, reply) = post_bytes(
            &server,
            "/v1/chat/completions",
            &serde_json::to_vec(&req).expect("JSON"),
        );
        assert_eq!(status, 200, "{reply}");
        let got = up.last().json();
        let f = &got["tools"][0]["function"];
        assert_eq!(f["description"], tool["function"]["description"]);
        assert_eq!(f["parameters"]["properties"]["start"]["description"], start);
        let end_got = f["parameters"]["properties"]["end"]["description"]
            .as_str()
            .unwrap_or("");
        assert!(
            end_got.starts_with("Ende des Zeitraums, z. B. 31.12.2023. "),
            "{end_got}"
        );
        assert!(
            end_got.contains("[[EMAIL_1]]"),
            "the address in a description: {end_got}"
        );
        let user = got["messages"][0]["content"].as_str().unwrap_or("");
        assert!(
            !user.contains(NAME) && !user.contains("03.04.1987"),
            "{user}"
        );
    }
}
