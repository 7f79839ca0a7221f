//! Hostile request bodies of the second outside review (issue 29), over real HTTP through the
//! proxy to the fake upstream: values written as JSON numbers (masked and seen by block mode),
//! values as member names, one value split over two text parts of a message, and a body with
//! many values (linear replacement, and the bound past which the request is refused). Each test
//! searches what the upstream received for every original value.

use serde_json::{json, Value};

use crate::harness::config::card_blocking_route;
use crate::harness::fixtures::{two_text_parts, CARD};
use crate::harness::http::post_json;
use crate::harness::server::TestServer;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::says::{said, says};
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

const STEUER_ID: &str = "86095742719";
const MAIL: &str = "max.mustermann@example.de";
const OTHER_MAIL: &str = "erika.musterfrau@example.org";

fn ok(r: &Recorded) -> Reply {
    says(r, "ok")
}

fn post(server: &TestServer, path: &str, body: &Value) -> (u16, Value) {
    let (status, text) = post_json(server, path, body);
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn assert_absent(r: &Recorded, values: &[&str]) {
    let body = r.body_str();
    for v in values {
        assert!(!body.contains(v), "{v} went upstream: {body}");
    }
}

fn is_token(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.starts_with("[[") && s.ends_with("]]") && tokens_in(s).len() == 1)
}

#[test]
fn json_numbers_in_tool_arguments_and_tool_use_input_are_replaced() {
    let up = FakeUpstream::start(ok);
    let server = up.proxy(&[]);
    let args = format!(r#"{{"card_number":{CARD},"steuer_id":{STEUER_ID},"menge":3}}"#);
    let body = json!({
        "model": "m", "temperature": 0.5, "max_tokens": 100,
        "metadata": {"kunde": 4111111111111111_u64},
        "messages": [
            {"role": "user", "content": "Bitte buchen."},
            {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "buchen", "arguments": args}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "gebucht"}
        ]
    });
    let (status, _) = post(&server, "/v1/chat/completions", &body);
    assert_eq!(status, 200);
    let r = up.last();
    assert_absent(&r, &[CARD, STEUER_ID]);
    let sent = r.json();
    let args = sent["messages"][1]["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap();
    let args: Value = serde_json::from_str(args).expect("arguments stay JSON");
    assert!(is_token(&args["card_number"]), "{args}");
    assert!(is_token(&args["steuer_id"]), "{args}");
    assert_eq!(args["menge"], 3, "a number that is no value stays a number");
    assert!(is_token(&sent["metadata"]["kunde"]));
    assert_eq!(sent["metadata"]["kunde"], args["card_number"], "one token");
    assert_eq!(sent["temperature"], 0.5);
    assert_eq!(sent["max_tokens"], 100);

    let body = json!({
        "model": "c", "max_tokens": 50,
        "messages": [
            {"role": "user", "content": "Bitte buchen."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "buchen",
                "input": {"card_number": 4111111111111111_u64, "ids": [86095742719_u64], "menge": 2}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}
        ]
    });
    let (status, _) = post(&server, "/v1/messages", &body);
    assert_eq!(status, 200);
    let r = up.last();
    assert_absent(&r, &[CARD, STEUER_ID]);
    let input = &r.json()["messages"][1]["content"][0]["input"];
    assert!(is_token(&input["card_number"]), "{input}");
    assert!(is_token(&input["ids"][0]), "{input}");
    assert_eq!(input["menge"], 2);
}

#[test]
fn block_mode_sees_a_card_written_as_a_number() {
    let up = FakeUpstream::start(ok);
    let toml = card_blocking_route(&up.url());
    let server = TestServer::start_with_config(&[], &toml);
    let args = format!(r#"{{"card_number":{CARD}}}"#);
    for stream in [false, true] {
        let body = json!({"model": "m", "stream": stream, "messages": [
            {"role": "user", "content": "Bitte zahlen."},
            {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "zahlen", "arguments": args}}]}
        ]});
        let (status, reply) = post(&server, "/karten/chat/completions", &body);
        assert_eq!(status, 422, "{reply}");
        assert_eq!(reply["error"]["code"], "privacy_proxy_policy_blocked");
        assert!(!reply.to_string().contains(CARD));
    }
    // the same card as text, for comparison, and a body without one passes
    let text =
        json!({"model": "m", "messages": [{"role": "user", "content": format!("Karte {CARD}")}]});
    assert_eq!(post(&server, "/karten/chat/completions", &text).0, 422);
    assert!(up.requests().is_empty(), "nothing went upstream");
    let plain = json!({"model": "m", "messages": [{"role": "user", "content": "Hallo"}]});
    assert_eq!(post(&server, "/karten/chat/completions", &plain).0, 200);
}

#[test]
fn member_names_that_are_values_are_replaced_everywhere() {
    let up = FakeUpstream::start(ok);
    let server = up.proxy(&[]);
    let args = json!({MAIL: {OTHER_MAIL: true}, "betreff": "Termin"}).to_string();
    let body = json!({
        "model": "m",
        "metadata": {MAIL: "vip", OTHER_MAIL: "neu"},
        "messages": [
            {"role": "user", "content": format!("Kontakt: {MAIL}")},
            {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "senden", "arguments": args}}]}
        ],
        "tools": [{"type": "function", "function": {"name": "senden", "description": "Sendet",
            "parameters": {"type": "object", "properties": {"betreff": {"type": "string"}}}}}]
    });
    let (status, _) = post(&server, "/v1/chat/completions", &body);
    assert_eq!(status, 200);
    let r = up.last();
    assert_absent(&r, &[MAIL, OTHER_MAIL]);
    let sent = r.json();
    let tokens = tokens_in(&r.body_str());
    let mail = &tokens[0];
    assert_eq!(sent["metadata"][mail.as_str()], "vip", "{sent}");
    assert_eq!(sent["messages"][0]["content"], format!("Kontakt: {mail}"));
    let args: Value = serde_json::from_str(
        sent["messages"][1]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert!(args[mail.as_str()].is_object(), "{args}");
    assert_eq!(args["betreff"], "Termin");
    // structure stays: schema property names and provider keys
    assert_eq!(
        sent["tools"][0]["function"]["parameters"]["properties"]["betreff"]["type"],
        "string"
    );

    let body = json!({"model": "c", "max_tokens": 50, "messages": [
        {"role": "user", "content": "Bitte eintragen."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "eintragen",
            "input": {OTHER_MAIL: {"rolle": "Kundin"}}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}
    ]});
    let (status, _) = post(&server, "/v1/messages", &body);
    assert_eq!(status, 200);
    let r = up.last();
    assert_absent(&r, &[OTHER_MAIL]);
    let input = r.json()["messages"][1]["content"][0]["input"].clone();
    let key = input.as_object().unwrap().keys().next().unwrap().clone();
    assert!(is_token(&json!(key)), "{input}");
    assert_eq!(input[key.as_str()]["rolle"], "Kundin");
}

const IBAN_SPACED: &str = "DE89 3704 0044 0532 0130 00";

/// The parts of a message that carry one IBAN between them, in each format's shape.
fn split_iban_bodies(stream: bool) -> Vec<(&'static str, Value)> {
    two_text_parts(
        stream,
        "Meine IBAN lautet DE89 3704 0044",
        "0532 0130 00. Danke!",
    )
}

/// The upstream repeats the first token it received, plain or streamed.
fn echo_first_token(r: &Recorded) -> Reply {
    let token = tokens_in(&r.body_str())
        .into_iter()
        .next()
        .unwrap_or_default();
    let text = format!("Ihre IBAN ist {token}.");
    if r.path.starts_with("/v1/responses") {
        return Reply::chat(&text);
    }
    says(r, &text)
}

#[test]
fn a_value_split_over_two_text_parts_is_replaced_in_both() {
    let up = FakeUpstream::start(echo_first_token);
    let server = up.proxy(&[]);
    for stream in [false, true] {
        for (path, body) in split_iban_bodies(stream) {
            let (status, text) = post_json(&server, path, &body);
            assert_eq!(status, 200, "{path}: {text}");
            let r = up.last();
            assert_absent(&r, &["DE89", "3704 0044", "0532 0130 00"]);
            let sent = r.json();
            let parts = sent
                .pointer("/messages/0/content")
                .or_else(|| sent.pointer("/input/0/content"))
                .unwrap();
            let first = parts[0]["text"].as_str().unwrap();
            let second = parts[1]["text"].as_str().unwrap();
            assert!(
                first.starts_with("Meine IBAN lautet [[IBAN_"),
                "{path}: {first}"
            );
            assert_eq!(second, ". Danke!", "{path}");
            if path != "/v1/responses" {
                let reply = said(&text);
                assert_eq!(reply, format!("Ihre IBAN ist {IBAN_SPACED}."), "{path}");
            }
        }
    }
}

/// `n` e-mail addresses `x{i}@b.de` and `pad` bytes of `x` in one message: every value starts
/// with the byte the padding is made of.
fn many_values(n: usize, pad: usize) -> Value {
    let mut text = String::with_capacity(n * 12 + pad);
    for i in 0..n {
        text += &format!("x{i}@b.de ");
    }
    text += &"x".repeat(pad);
    json!({"model": "m", "messages": [{"role": "user", "content": text}]})
}

#[test]
fn many_values_sharing_a_first_byte_are_replaced_completely() {
    let up = FakeUpstream::start(ok);
    let server = up.proxy(&[]);
    let (status, reply) = post(
        &server,
        "/v1/chat/completions",
        &many_values(14_000, 280_000),
    );
    assert_eq!(status, 200, "{reply}");
    let r = up.last();
    let sent = r.json();
    let content = sent["messages"][0]["content"].as_str().unwrap();
    assert!(!content.contains("@b.de"), "every address replaced");
    assert_eq!(tokens_in(content).len(), 14_000);
    assert!(content.ends_with(&"x".repeat(280_000)));
}

#[test]
fn past_the_bound_on_values_a_request_is_refused_not_forwarded() {
    let up = FakeUpstream::start(ok);
    let toml = tarnkappe::config::DEFAULT_TOML.replacen(
        "max_values_per_request = 20000",
        "max_values_per_request = 100",
        1,
    );
    let url = up.url();
    let env = [
        ("TARNKAPPE_OPENAI_UPSTREAM", url.as_str()),
        ("TARNKAPPE_ANTHROPIC_UPSTREAM", url.as_str()),
    ];
    let server = TestServer::start_with_config(&env, &toml);
    let (status, _) = post(&server, "/v1/chat/completions", &many_values(100, 10));
    assert_eq!(status, 200, "at the bound");
    let (status, reply) = post(&server, "/v1/chat/completions", &many_values(101, 10));
    assert_eq!(status, 413, "{reply}");
    assert_eq!(reply["error"]["code"], "privacy_proxy_too_many_values");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("100"), "{message}");
    assert!(!reply.to_string().contains("@b.de"));
    assert_eq!(
        up.requests().len(),
        1,
        "the refused request was not forwarded"
    );
    let body = many_values(101, 10);
    let (status, reply) = post(
        &server,
        "/v1/messages",
        &json!({"model": "c", "max_tokens": 5,
        "messages": body["messages"].clone()}),
    );
    assert_eq!(status, 413);
    assert_eq!(reply["type"], "error");
    assert_eq!(up.requests().len(), 1);
}
