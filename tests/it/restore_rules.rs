//! Restoring within bounds and only where the proxy put a token: the restored text of
//! `/deanonymize` is bounded, a proxied reply never grows past its documented multiple, the
//! client's own token-like words are never rewritten, and tokens used as JSON keys are restored.

use serde_json::{json, Value};

use crate::harness;
use crate::harness::fixtures::EMAIL;
use crate::harness::http::{client, post_bytes};
use crate::harness::server::TestServer;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::{chat_completion, FakeUpstream, Recorded, Reply};

fn post(server: &TestServer, path: &str, body: &Value) -> (u16, String) {
    post_bytes(server, path, &serde_json::to_vec(body).expect("json"))
}

#[test]
fn deanonymize_refuses_to_build_an_oversized_text() {
    let server = harness::api::server();
    let key = Some(harness::api::KEY_A);
    // 20 KB in, 100 MB out before the bound
    let body = json!({"text": "a".repeat(10_000), "mapping": [{"token": "a", "value": "b".repeat(10_000)}]});
    let (status, v) = harness::api::status_json(harness::api::post(
        &server,
        "/api/v1/deanonymize",
        key,
        &body,
    ));
    assert_eq!(
        (status, v["error"].as_str()),
        (413, Some("too_large")),
        "{v}"
    );
    assert!(!v["message"].as_str().unwrap_or("").contains("bbb"));

    // session mode: one token for a long URL, repeated
    let url = format!("https://kunde.example.com/akte/{}", "x".repeat(99_000));
    let (status, v) = harness::api::status_json(harness::api::post(
        &server,
        "/api/v1/anonymize",
        key,
        &json!({ "text": format!("Akte {url} bitte") }),
    ));
    assert_eq!(status, 200, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let token = v["mapping"][0]["token"].as_str().unwrap().to_owned();
    let (status, v) = harness::api::status_json(harness::api::post(
        &server,
        "/api/v1/deanonymize",
        key,
        &json!({"text": token.repeat(200), "session_id": id}),
    ));
    assert_eq!((status, v["error"].as_str()), (413, Some("too_large")));
    // within the bound (10 copies, about 1 MB) it still restores
    let (status, v) = harness::api::status_json(harness::api::post(
        &server,
        "/api/v1/deanonymize",
        key,
        &json!({"text": token.repeat(10), "session_id": id}),
    ));
    assert_eq!(status, 200);
    assert_eq!(v["text"].as_str().unwrap(), url.repeat(10));
    // the server is still there and small
    assert_eq!(
        client()
            .get(server.url("/api/v1/health"))
            .send()
            .unwrap()
            .status()
            .as_u16(),
        200
    );
}

#[test]
fn a_restored_reply_stays_within_its_growth_bound() {
    const COPIES: usize = 2_000;
    let up = FakeUpstream::start(|r: &Recorded| {
        let toks = tokens_in(&r.body_str());
        Reply::chat(&toks[0].repeat(COPIES))
    });
    let server = up.proxy(&[]);
    let url = format!("https://kunde.example.com/akte/{}", "y".repeat(50_000));
    let (status, body) = post(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user", "content": format!("Akte {url}")}]}),
    );
    assert_eq!(status, 200);
    let sent = up.last();
    assert!(
        !sent.body_str().contains("yyyyyyyy"),
        "the URL was replaced"
    );
    let token = tokens_in(&sent.body_str())[0].clone();
    // what the upstream answered, measured like the fake upstream wrote it
    let upstream_len = serde_json::to_vec(&chat_completion(&token.repeat(COPIES)))
        .unwrap()
        .len();
    let bound = 17 * upstream_len + 1024 * 1024;
    assert!(
        body.len() <= bound,
        "{} bytes restored from {upstream_len} (bound {bound})",
        body.len()
    );
    let v: Value = serde_json::from_str(&body).expect("still a complete JSON reply");
    let content = v["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(content.starts_with(&url), "restored up to the bound");
    assert!(content.ends_with(&token), "the rest passes as tokens");
    let log = server.log_when(|l| l.contains("restore_limited="));
    assert!(log.contains("restore_limited=true"), "{log}");
    assert!(!log.contains("yyyyyyyy"));
}

#[test]
fn the_clients_own_token_like_words_are_never_restored() {
    let own = "EMAIL_1 NAME_1 **NAME_1** [NAME_1] [[name_1]] [EMAIL_1]";
    let up = FakeUpstream::start(move |r: &Recorded| {
        let toks = tokens_in(&r.body_str());
        // the model quotes the client's words and uses the issued tokens
        Reply::chat(&format!("Sie schrieben: {own} | echt: {}", toks.join(" ")))
    });
    let server = up.proxy(&[]);
    let (status, body) = post(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user",
            "content": format!("Vorlage: {own}. Bitte an Herrn Jörg Maier schreiben, {EMAIL}.")}]}),
    );
    assert_eq!(status, 200);
    let sent = up.last().body_str();
    let toks = tokens_in(&sent);
    assert!(
        toks.contains(&"[[EMAIL_1]]".to_owned()) && toks.contains(&"[[NAME_1]]".to_owned()),
        "the tokens whose forms the client wrote were issued: {toks:?}"
    );
    let v: Value = serde_json::from_str(&body).unwrap();
    let content = v["choices"][0]["message"]["content"].as_str().unwrap();
    let (quoted, real) = content.split_once(" | echt: ").unwrap();
    assert_eq!(quoted, format!("Sie schrieben: {own}"));
    assert!(
        real.contains(EMAIL) && real.contains("Jörg Maier"),
        "{real}"
    );
}

#[test]
fn tokens_used_as_json_keys_are_restored() {
    let up = FakeUpstream::start(|r: &Recorded| {
        let toks = tokens_in(&r.body_str());
        let t = toks[0].clone();
        let path = r.path.clone();
        if path.starts_with("/v1/messages") {
            Reply::json(
                &json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "rank", "input": {t.as_str(): "top", "nested": {t.as_str(): [t.as_str()]}}}],
                "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}),
            )
        } else if path.starts_with("/api/chat") {
            let line = |v: Value| serde_json::to_string(&v).unwrap() + "\n";
            let mut body = line(
                json!({"model": "m", "created_at": "x", "message": {"role": "assistant", "content": "",
                "tool_calls": [{"function": {"name": "rank", "arguments": {t.as_str(): "top"}}}]}, "done": false}),
            );
            body += &line(
                json!({"model": "m", "created_at": "x", "message": {"role": "assistant", "content": ""}, "done": true}),
            );
            Reply::stream("application/x-ndjson", body.into_bytes(), 3)
        } else {
            // a whole-JSON reply whose object keys are tokens
            Reply::json(
                &json!({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "rank", "arguments": json!({t.as_str(): "top"}).to_string()}}]},
                    "finish_reason": "tool_calls"}],
                "extra": {t.as_str(): 1}}),
            )
        }
    });
    let server = up.proxy(&[]);
    let prompt = format!("Rangliste für {EMAIL}");

    let (s, body) = post(
        &server,
        "/v1/messages",
        &json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": prompt}]}),
    );
    assert_eq!(s, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["content"][0]["input"][EMAIL], "top", "{body}");
    assert_eq!(v["content"][0]["input"]["nested"][EMAIL][0], EMAIL);

    let (s, body) = post(
        &server,
        "/api/chat",
        &json!({"model": "m", "messages": [{"role": "user", "content": prompt}]}),
    );
    assert_eq!(s, 200);
    let first: Value = serde_json::from_str(body.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["message"]["tool_calls"][0]["function"]["arguments"][EMAIL], "top",
        "{body}"
    );

    let (s, body) = post(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user", "content": prompt}]}),
    );
    assert_eq!(s, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    let args: Value = serde_json::from_str(
        v["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(args[EMAIL], "top");
    assert_eq!(v["extra"][EMAIL], 1, "{body}");
}
