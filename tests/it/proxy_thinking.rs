//! Anthropic extended thinking through the proxy: a thinking block the client sends back goes
//! upstream byte for byte as the provider signed it (docs/proxy.md, "Signed thinking"), plain
//! and streamed, against a fake provider that checks every signature like the real API.

use serde_json::{json, Value};

use crate::harness::http::client;
use crate::harness::metrics::{metrics_when, sample};
use crate::harness::server::TestServer;
use crate::harness::stream::parse_sse;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::{signed, FakeUpstream};

const ANNA: &str = "Anna Schmidt";
const PATH: &str = "/v1/messages";
const CALLER: &str = "sk-ant-test-caller";

/// One answer as the client reads it: the status, the content blocks (thinking with its
/// signature, text) and the raw body.
struct Answer {
    status: u16,
    content: Vec<Value>,
    raw: String,
}

fn send(server: &TestServer, body: &Request) -> Answer {
    send_as(server, CALLER, body)
}

fn send_as(server: &TestServer, caller: &str, body: &Request) -> Answer {
    let resp = client()
        .post(server.url(PATH))
        .header("content-type", "application/json")
        .header("x-api-key", caller)
        .body(body.text.clone())
        .send()
        .expect("request");
    let status = resp.status().as_u16();
    let raw = resp.text().unwrap_or_default();
    let streamed = body.stream;
    let content = match (status, streamed) {
        (200, false) => serde_json::from_str::<Value>(&raw).expect("JSON reply")["content"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
        (200, true) => assemble(&raw),
        _ => Vec::new(),
    };
    Answer {
        status,
        content,
        raw,
    }
}

/// The content blocks of a stream, as an SDK puts them together.
fn assemble(raw: &str) -> Vec<Value> {
    let mut blocks: Vec<Value> = Vec::new();
    for (_, data) in parse_sse(raw) {
        let ev: Value = serde_json::from_str(&data).expect("JSON event");
        match ev["type"].as_str() {
            Some("content_block_start") => blocks.push(ev["content_block"].clone()),
            Some("content_block_delta") => {
                let i = ev["index"].as_u64().expect("index") as usize;
                let block = &mut blocks[i];
                let d = &ev["delta"];
                let (field, piece) = match d["type"].as_str() {
                    Some("thinking_delta") => ("thinking", &d["thinking"]),
                    Some("signature_delta") => ("signature", &d["signature"]),
                    Some("text_delta") => ("text", &d["text"]),
                    _ => continue,
                };
                let whole = block[field].as_str().unwrap_or("").to_owned();
                block[field] = json!(whole + piece.as_str().unwrap_or(""));
            }
            _ => {}
        }
    }
    blocks
}

/// A request body, written in the order a client writes it (`system` before `messages`).
struct Request {
    text: String,
    stream: bool,
}

fn request(system: &str, messages: Vec<Value>, stream: bool) -> Request {
    let text = format!(
        r#"{{"model":"claude-test","max_tokens":1024,"stream":{stream},"system":{},"thinking":{{"type":"enabled","budget_tokens":1024}},"messages":{}}}"#,
        json!(system),
        json!(messages)
    );
    Request { text, stream }
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

/// Two turns: the first asks about Anna, the second sends the answer's blocks back (under
/// `system_2`) and must be accepted by the provider.
fn two_turns(
    think: fn(&[String]) -> String,
    system_2: &str,
    stream: bool,
) -> (FakeUpstream, Answer) {
    let up = FakeUpstream::start(signed::handler(think));
    let server = up.proxy(&[]);
    let question = format!("Bitte hilf {ANNA} bei ihrem Antrag.");
    let first = send(
        &server,
        &request("Du hilfst.", vec![user(&question)], stream),
    );
    assert_eq!(first.status, 200, "{}", first.raw);
    let thinking = first.content[0]["thinking"].as_str().unwrap_or("");
    assert!(
        thinking.contains(ANNA),
        "the client reads the value: {thinking}"
    );
    let history = vec![
        user(&question),
        json!({"role": "assistant", "content": first.content}),
        user(&format!("Und was braucht {ANNA} noch?")),
    ];
    let second = send(&server, &request(system_2, history, stream));
    let upstream = up.last().body_str();
    assert!(
        !upstream.contains(ANNA),
        "a value reached the upstream: {upstream}"
    );
    (up, second)
}

/// The first token of the request, as the model writes it.
fn first(tokens: &[String]) -> String {
    tokens.first().cloned().unwrap_or_default()
}

/// The model names someone the prompt never did.
fn names_a_stranger(tokens: &[String]) -> String {
    format!("{} kennt Berta Krüger aus Hamburg.", first(tokens))
}

/// The model writes the token bare.
fn writes_bare(tokens: &[String]) -> String {
    let bare = first(tokens).replace(['[', ']'], "");
    format!("Die Kundin {bare} braucht das Formular.")
}

fn plain_reference(tokens: &[String]) -> String {
    format!("{} braucht das Formular.", first(tokens))
}

fn accepted(second: &Answer) {
    assert_eq!(
        second.status, 200,
        "the provider rejected the block: {}",
        second.raw
    );
}

fn stranger(stream: bool) {
    let (_, second) = two_turns(names_a_stranger, "Du hilfst.", stream);
    accepted(&second);
}

fn bare(stream: bool) {
    let (_, second) = two_turns(writes_bare, "Du hilfst.", stream);
    accepted(&second);
}

fn renumbered(stream: bool) {
    let (up, second) = two_turns(plain_reference, "Berater ist Bernd Meier.", stream);
    accepted(&second);
    let sent = up.last().json();
    let thinking = sent["messages"][1]["content"][0]["thinking"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let anna = tokens_in(&thinking);
    let question = sent["messages"][2]["content"].as_str().unwrap_or("");
    assert_eq!(anna.len(), 1, "{thinking}");
    assert!(
        question.contains(&anna[0]),
        "Anna keeps the thinking's token elsewhere: {question} / {thinking}"
    );
    let system = sent["system"].as_str().unwrap_or("");
    assert!(
        !system.contains("Bernd") && !system.contains(&anna[0]),
        "{system}"
    );
}

#[test]
fn a_name_only_the_model_wrote_keeps_the_signature() {
    stranger(false);
}

#[test]
fn a_name_only_the_model_wrote_keeps_the_signature_streamed() {
    stranger(true);
}

#[test]
fn a_bare_token_keeps_the_signature() {
    bare(false);
}

#[test]
fn a_bare_token_keeps_the_signature_streamed() {
    bare(true);
}

#[test]
fn a_new_name_before_the_thinking_keeps_the_signature_and_its_numbers() {
    renumbered(false);
}

#[test]
fn a_new_name_before_the_thinking_keeps_the_signature_and_its_numbers_streamed() {
    renumbered(true);
}

#[test]
fn an_unknown_signature_falls_back_and_is_counted() {
    let up = FakeUpstream::start(signed::handler(plain_reference));
    let one = up.proxy(&[]);
    let question = format!("Bitte hilf {ANNA} bei ihrem Antrag.");
    let first = send(&one, &request("Du hilfst.", vec![user(&question)], false));
    assert_eq!(first.status, 200, "{}", first.raw);
    let history = vec![
        user(&question),
        json!({"role": "assistant", "content": first.content}),
        user("Danke."),
    ];
    let same = send(&one, &request("Du hilfst.", history.clone(), false));
    accepted(&same);
    let kept = "tarnkappe_thinking_blocks_total{event=\"kept\"}";
    let m = metrics_when(&one, |m| sample(m, kept) >= 1.0);
    assert_eq!(
        sample(&m, kept),
        1.0,
        "the replica that kept it sends it as signed"
    );
    // another replica, without a shared store, has never seen the signature
    let other = up.proxy(&[]);
    let second = send(&other, &request("Du hilfst.", history, false));
    accepted(&second);
    let upstream = up.last().body_str();
    assert!(!upstream.contains(ANNA), "{upstream}");
    let series = "tarnkappe_thinking_blocks_total{event=\"unknown\"}";
    let m = metrics_when(&other, |m| sample(m, series) >= 1.0);
    assert_eq!(sample(&m, series), 1.0, "counted once");
}

#[test]
fn another_callers_signature_is_unknown() {
    let up = FakeUpstream::start(signed::handler(names_a_stranger));
    let server = up.proxy(&[]);
    let question = format!("Bitte hilf {ANNA} bei ihrem Antrag.");
    let first = send(&server, &request("Du hilfst.", vec![user(&question)], true));
    assert_eq!(first.status, 200, "{}", first.raw);
    let history = vec![
        user(&question),
        json!({"role": "assistant", "content": first.content}),
        user("Danke."),
    ];
    let other = send_as(
        &server,
        "sk-ant-another-caller",
        &request("", history, false),
    );
    // anonymized again: the stranger the model named is masked, so the signature breaks
    assert_eq!(other.status, 400, "{}", other.raw);
    let upstream = up.last().body_str();
    assert!(
        !upstream.contains(ANNA) && !upstream.contains("Krüger"),
        "{upstream}"
    );
    let series = "tarnkappe_thinking_blocks_total{event=\"unknown\"}";
    let m = metrics_when(&server, |m| sample(m, series) >= 1.0);
    assert_eq!(sample(&m, series), 1.0, "{m}");
}

/// Two replicas on one Redis: a block kept by one goes upstream as signed from the other, and
/// Redis holds neither the values nor the signature in readable form.
#[cfg(feature = "full-tier")]
mod shared_store {
    use super::*;
    use crate::harness::fixtures::ENCRYPTION_KEY;
    use crate::harness::redis::{delete_prefix, shared_redis, unique_prefix, SHARED_REDIS};

    #[test]
    fn a_block_kept_by_one_replica_goes_back_signed_from_another() {
        let prefix = unique_prefix("thinking");
        let env = [
            ("TARNKAPPE_REDIS_URL", SHARED_REDIS),
            ("TARNKAPPE_REDIS_KEY_PREFIX", prefix.as_str()),
            ("TARNKAPPE_ENCRYPTION_KEY", ENCRYPTION_KEY),
        ];
        let up = FakeUpstream::start(signed::handler(names_a_stranger));
        let (a, b) = (up.proxy(&env), up.proxy(&env));
        let question = format!("Bitte hilf {ANNA} bei ihrem Antrag.");
        let first = send(&a, &request("Du hilfst.", vec![user(&question)], true));
        assert_eq!(first.status, 200, "{}", first.raw);
        let signature = first.content[0]["signature"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        let history = vec![
            user(&question),
            json!({"role": "assistant", "content": first.content}),
            user("Danke."),
        ];
        let second = send(&b, &request("Du hilfst.", history, false));
        accepted(&second);
        let mut redis = shared_redis();
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{prefix}session:think-*"))
            .query(&mut redis)
            .expect("keys");
        assert_eq!(keys.len(), 1, "{keys:?}");
        let bytes: Vec<u8> = redis::cmd("GET")
            .arg(&keys[0])
            .query(&mut redis)
            .expect("record");
        let readable = String::from_utf8_lossy(&bytes);
        for v in ["Anna", "Krüger", "NAME_", signature.as_str()] {
            assert!(!readable.contains(v), "{v:?} is readable in Redis");
        }
        assert!(
            !keys[0].contains(&signature),
            "the signature names the record"
        );
        delete_prefix(&mut redis, &prefix);
    }
}
