//! A fake of Anthropic's Messages API with extended thinking: every thinking block it answers
//! is signed (the signature is an HMAC of the exact thinking text under a key only it holds),
//! and like the real API it answers 400 when a thinking block sent back does not match its
//! signature byte for byte. What its "model" thinks is the test's script, given the tokens of
//! the request in order of first appearance.

use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use super::{Recorded, Reply};
use crate::harness::stream::{pieces, sse};
use crate::harness::tokens::tokens_in;

const KEY: &[u8] = b"fake anthropic thinking key";

/// The fake's signature of `text`.
pub fn sign(text: &str) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(KEY).expect("any key length");
    mac.update(text.as_bytes());
    let bytes = mac.finalize().into_bytes();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The handler for [`super::FakeUpstream::start`]: `think` writes the thinking text from the
/// request's tokens.
pub fn handler(
    think: impl Fn(&[String]) -> String + Send + Sync + 'static,
) -> impl Fn(&Recorded) -> Reply + Send + Sync + 'static {
    move |r| {
        let req: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        if let Some(refusal) = refusal(&req) {
            return refusal;
        }
        let thinking = think(&tokens_in(&r.body_str()));
        let text = "Erledigt.";
        if req["stream"] == json!(true) {
            Reply::stream("text/event-stream", stream(&thinking, text), 7)
        } else {
            Reply::json(
                &json!({"id": "msg_1", "type": "message", "role": "assistant",
                "model": "m", "stop_reason": "end_turn",
                "content": [
                    {"type": "thinking", "thinking": thinking, "signature": sign(&thinking)},
                    {"type": "text", "text": text}
                ]}),
            )
        }
    }
}

/// The real API's 400 when a thinking block of `req` does not match its signature.
pub fn refusal(req: &Value) -> Option<Reply> {
    let bad = first_bad_signature(req)?;
    let message = format!("messages.{bad}: Invalid `signature` in `thinking` block");
    let mut reply = Reply::json(&json!({"type": "error",
        "error": {"type": "invalid_request_error", "message": message}}));
    reply.status = 400;
    Some(reply)
}

/// The index (`i.content.j`) of the first thinking block whose text does not match its
/// signature.
fn first_bad_signature(req: &Value) -> Option<String> {
    let messages = req["messages"].as_array()?;
    for (i, m) in messages.iter().enumerate() {
        for (j, block) in m["content"].as_array().into_iter().flatten().enumerate() {
            if block["type"] != "thinking" {
                continue;
            }
            let text = block["thinking"].as_str().unwrap_or("");
            if block["signature"].as_str() != Some(sign(text).as_str()) {
                return Some(format!("{i}.content.{j}"));
            }
        }
    }
    None
}

fn stream(thinking: &str, text: &str) -> Vec<u8> {
    let mut events: Vec<(Option<&str>, String)> = vec![(
        Some("message_start"),
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                "role": "assistant", "model": "m", "content": []}})
        .to_string(),
    )];
    events.extend(thinking_events(0, thinking));
    events.push((
        Some("content_block_start"),
        json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "text", "text": ""}})
        .to_string(),
    ));
    let delta = json!({"type": "text_delta", "text": text});
    events.push((Some("content_block_delta"), block_delta(1, delta)));
    events.push((Some("content_block_stop"), stop(1)));
    events.push((
        Some("message_delta"),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}).to_string(),
    ));
    events.push((
        Some("message_stop"),
        json!({"type": "message_stop"}).to_string(),
    ));
    sse(&events)
}

/// The events of a signed thinking block at `index`: its start, its text in small deltas, its
/// `signature_delta`, its stop.
pub fn thinking_events(index: u32, thinking: &str) -> Vec<(Option<&'static str>, String)> {
    let mut events = vec![(
        Some("content_block_start"),
        json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
        .to_string(),
    )];
    for p in pieces(thinking, 11) {
        let delta = json!({"type": "thinking_delta", "thinking": p});
        events.push((Some("content_block_delta"), block_delta(index, delta)));
    }
    let signature = json!({"type": "signature_delta", "signature": sign(thinking)});
    events.push((Some("content_block_delta"), block_delta(index, signature)));
    events.push((Some("content_block_stop"), stop(index)));
    events
}

pub fn block_delta(index: u32, delta: Value) -> String {
    json!({"type": "content_block_delta", "index": index, "delta": delta}).to_string()
}

pub fn stop(index: u32) -> String {
    json!({"type": "content_block_stop", "index": index}).to_string()
}
