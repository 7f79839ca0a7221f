//! An upstream that says one given text, plain or streamed in small deltas, in the shape of the
//! requested endpoint (chat completions or Anthropic messages), and the text read back from
//! what the client received.

use serde_json::{json, Value};

use super::{Recorded, Reply};
use crate::harness::stream::{parse_sse, pieces, sse};

/// A reply to `r` that says `text`: streamed when the request asked for a stream.
pub fn says(r: &Recorded, text: &str) -> Reply {
    let streamed = r.body_str().contains("\"stream\":true");
    let anthropic = r.path.starts_with("/v1/messages");
    match (anthropic, streamed) {
        (false, false) => Reply::chat(text),
        (true, false) => Reply::json(&json!({"id": "msg_1", "type": "message",
            "role": "assistant", "model": "claude", "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}})),
        (false, true) => {
            let mut ev: Vec<(Option<&str>, String)> = pieces(text, 7)
                .into_iter()
                .map(|p| {
                    let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 1,
                        "model": "m", "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]});
                    (None, chunk.to_string())
                })
                .collect();
            ev.push((None, "[DONE]".into()));
            Reply::stream("text/event-stream", sse(&ev), 11)
        }
        (true, true) => {
            let start = json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}});
            let mut ev = vec![(Some("content_block_start"), start.to_string())];
            for p in pieces(text, 7) {
                let delta = json!({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "text_delta", "text": p}});
                ev.push((Some("content_block_delta"), delta.to_string()));
            }
            let stop = json!({"type": "content_block_stop", "index": 0});
            ev.push((Some("content_block_stop"), stop.to_string()));
            Reply::stream("text/event-stream", sse(&ev), 11)
        }
    }
}

/// The text a client received, plain or streamed, from chat completions, Responses or
/// Anthropic.
pub fn said(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        let text = [
            &v["choices"][0]["message"]["content"],
            &v["output"][0]["content"][0]["text"],
            &v["content"][0]["text"],
        ]
        .into_iter()
        .find_map(Value::as_str);
        return text.unwrap_or_default().to_owned();
    }
    let mut text = String::new();
    for (_, data) in parse_sse(body) {
        let Ok(v) = serde_json::from_str::<Value>(&data) else {
            continue;
        };
        if v["type"] == "response.output_text.delta" {
            text += v["delta"].as_str().unwrap_or_default();
        }
        for t in [&v["choices"][0]["delta"]["content"], &v["delta"]["text"]] {
            text += t.as_str().unwrap_or_default();
        }
    }
    text
}
