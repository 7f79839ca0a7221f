//! The echoing upstream shared by the format and SDK tests: it answers in the shape of the
//! requested endpoint with every token it received, a mangled form and a bare form at the end.

use serde_json::{json, Value};

use super::{Recorded, Reply};
use crate::harness::stream::{pieces, sse};
use crate::harness::tokens::tokens_in;

/// What the fake upstream says: every token it received, one mangled form, a bare form at the
/// very end (held back until the channel ends), and multi-byte characters.
pub fn echo_text(tokens: &[String]) -> String {
    let first = tokens.first().cloned().unwrap_or_default();
    let single = first.replacen("[[", "[", 1).replacen("]]", "]", 1);
    let bare = first
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    format!(
        "Antwort für {} – verstümmelt {single} – ÄÖÜ ß 😀 zuletzt {bare}",
        tokens.join(", ")
    )
}

pub fn echo_args(tokens: &[String]) -> String {
    json!({"to": tokens.first().cloned().unwrap_or_default(), "all": tokens.join(" "), "quote": "a \"b\""}).to_string()
}

pub fn echo(r: &Recorded) -> Reply {
    let body = r.body_str();
    let toks = tokens_in(&body);
    let text = echo_text(&toks);
    let args = echo_args(&toks);
    let req: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
    let path = r.path.split('?').next().unwrap_or("").to_owned();
    let ollama = path.starts_with("/api/");
    let stream = req.get("stream").and_then(Value::as_bool).unwrap_or(ollama);
    let seed = body.len() as u64 + 7;
    match (path.as_str(), stream) {
        ("/v1/chat/completions", false) => Reply::json(&json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text,
                "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "send", "arguments": args}}]},
                "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})),
        ("/v1/chat/completions", true) => {
            let head = |choices: Value| {
                json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": choices}).to_string()
            };
            let mut ev = vec![(
                None,
                head(
                    json!([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]),
                ),
            )];
            for p in pieces(&text, seed) {
                ev.push((
                    None,
                    head(json!([{"index": 0, "delta": {"content": p}, "finish_reason": null}])),
                ));
            }
            ev.push((None, head(json!([{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "send", "arguments": ""}}]}, "finish_reason": null}]))));
            for p in pieces(&args, seed + 1) {
                ev.push((None, head(json!([{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": p}}]}, "finish_reason": null}]))));
            }
            ev.push((
                None,
                head(json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])),
            ));
            ev.push((None, json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [], "usage": {"total_tokens": 3}}).to_string()));
            ev.push((None, "[DONE]".to_owned()));
            Reply::stream("text/event-stream; charset=utf-8", sse(&ev), seed)
        }
        ("/v1/completions", false) => Reply::json(
            &json!({"id": "c", "object": "text_completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "text": text, "logprobs": null, "finish_reason": "stop"}]}),
        ),
        ("/v1/completions", true) => {
            let mut ev = Vec::new();
            for p in pieces(&text, seed) {
                ev.push((None, json!({"id": "c", "object": "text_completion", "created": 1, "model": "m", "choices": [{"index": 0, "text": p, "finish_reason": null}]}).to_string()));
            }
            ev.push((None, json!({"id": "c", "object": "text_completion", "created": 1, "model": "m", "choices": [{"index": 0, "text": "", "finish_reason": "stop"}]}).to_string()));
            ev.push((None, "[DONE]".to_owned()));
            Reply::stream("text/event-stream", sse(&ev), seed)
        }
        ("/v1/embeddings", _) => Reply::json(
            &json!({"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2]}], "model": "m", "usage": {"prompt_tokens": 1, "total_tokens": 1}}),
        ),
        ("/v1/responses", false) => Reply::json(&responses_object(&text, &args, &req)),
        ("/v1/responses", true) => {
            let mut seq = 0;
            let mut ev: Vec<(Option<&str>, String)> = Vec::new();
            let mut push = |name: &'static str, mut v: Value| {
                v["type"] = json!(name);
                v["sequence_number"] = json!(seq);
                seq += 1;
                ev.push((Some(name), v.to_string()));
            };
            push(
                "response.created",
                json!({"response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}}),
            );
            push(
                "response.output_item.added",
                json!({"output_index": 0, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}}),
            );
            push(
                "response.content_part.added",
                json!({"item_id": "msg_1", "output_index": 0, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
            );
            for p in pieces(&text, seed) {
                push(
                    "response.output_text.delta",
                    json!({"item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": p, "logprobs": []}),
                );
            }
            push(
                "response.output_text.done",
                json!({"item_id": "msg_1", "output_index": 0, "content_index": 0, "text": text, "logprobs": []}),
            );
            push(
                "response.output_item.added",
                json!({"output_index": 1, "item": {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "send", "arguments": "", "status": "in_progress"}}),
            );
            for p in pieces(&args, seed + 1) {
                push(
                    "response.function_call_arguments.delta",
                    json!({"item_id": "fc_1", "output_index": 1, "delta": p}),
                );
            }
            push(
                "response.function_call_arguments.done",
                json!({"item_id": "fc_1", "output_index": 1, "arguments": args}),
            );
            push(
                "response.completed",
                json!({"response": responses_object(&text, &args, &req)}),
            );
            Reply::stream("text/event-stream", sse(&ev), seed)
        }
        ("/v1/messages", false) => Reply::json(
            &json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
            "content": [{"type": "text", "text": text}, {"type": "tool_use", "id": "toolu_1", "name": "send", "input": serde_json::from_str::<Value>(&args).unwrap()}],
            "stop_reason": "tool_use", "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}}),
        ),
        ("/v1/messages", true) => {
            let mut ev: Vec<(Option<&str>, String)> = Vec::new();
            let mut push = |name: &'static str, mut v: Value| {
                v["type"] = json!(name);
                ev.push((Some(name), v.to_string()));
            };
            // Events without fields carry their type already: rustc before 1.97 miscompiles two
            // calls of `push` with the constant `json!({})` (docs/development.md#toolchain).
            push(
                "message_start",
                json!({"message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}}}),
            );
            push(
                "content_block_start",
                json!({"index": 0, "content_block": {"type": "text", "text": ""}}),
            );
            push("ping", json!({"type": "ping"}));
            for (i, p) in pieces(&text, seed).into_iter().enumerate() {
                push(
                    "content_block_delta",
                    json!({"index": 0, "delta": {"type": "text_delta", "text": p}}),
                );
                if i == 3 {
                    push("ping", json!({"type": "ping"}));
                }
            }
            push("content_block_stop", json!({"index": 0}));
            push(
                "content_block_start",
                json!({"index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "send", "input": {}}}),
            );
            push(
                "content_block_delta",
                json!({"index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
            );
            for p in pieces(&args, seed + 1) {
                push(
                    "content_block_delta",
                    json!({"index": 1, "delta": {"type": "input_json_delta", "partial_json": p}}),
                );
            }
            push("content_block_stop", json!({"index": 1}));
            push(
                "message_delta",
                json!({"delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 5}}),
            );
            push("message_stop", json!({"type": "message_stop"}));
            Reply::stream("text/event-stream", sse(&ev), seed)
        }
        ("/api/chat", false) => Reply::json(
            &json!({"model": "llama", "created_at": "t", "message": {"role": "assistant", "content": text,
            "tool_calls": [{"function": {"name": "send", "arguments": serde_json::from_str::<Value>(&args).unwrap()}}]}, "done": true, "done_reason": "stop"}),
        ),
        ("/api/generate", false) => Reply::json(
            &json!({"model": "llama", "created_at": "t", "response": text, "done": true, "done_reason": "stop"}),
        ),
        ("/api/chat", true) | ("/api/generate", true) => {
            let chat = path == "/api/chat";
            let mut out = String::new();
            for p in pieces(&text, seed) {
                let line = if chat {
                    json!({"model": "llama", "created_at": "t", "message": {"role": "assistant", "content": p}, "done": false})
                } else {
                    json!({"model": "llama", "created_at": "t", "response": p, "done": false})
                };
                out += &format!("{line}\n");
            }
            let last = if chat {
                json!({"model": "llama", "created_at": "t", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop", "eval_count": 3})
            } else {
                json!({"model": "llama", "created_at": "t", "response": "", "done": true, "done_reason": "stop"})
            };
            out += &format!("{last}\n");
            Reply::stream("application/x-ndjson", out.into_bytes(), seed)
        }
        _ => Reply::json(&json!({"object": "list", "data": [{"id": "m"}]})),
    }
}

pub fn responses_object(text: &str, args: &str, req: &Value) -> Value {
    json!({"id": "resp_1", "object": "response", "status": "completed", "model": "m",
        "instructions": req.get("instructions").cloned().unwrap_or(Value::Null),
        "output": [
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "send", "arguments": args, "status": "completed"}],
        "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}})
}
