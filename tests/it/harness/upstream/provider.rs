//! A stateful fake of OpenAI's Responses and Conversations APIs: like the provider it keeps every
//! reply by its id (and every conversation's items), answers a turn that names
//! `previous_response_id` or `conversation` from the history it holds, and answers 404 for an
//! id it never issued. Its "model" says every token of the whole history in order of first
//! appearance (`Bekannt: …`); offered tools and a turn that is no tool result, it first calls
//! the first tool with those tokens as its `query`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::{Recorded, Reply};
use crate::harness::stream::{pieces, sse};
use crate::harness::tokens::tokens_in;

#[derive(Default)]
struct Memory {
    /// Every stored response: the whole history up to and including its output.
    responses: HashMap<String, Vec<Value>>,
    /// Every stored response object, for `GET /v1/responses/{id}`.
    objects: HashMap<String, Value>,
    conversations: HashMap<String, Vec<Value>>,
    issued: u64,
}

/// The provider's memory, shared by the handler and the test.
#[derive(Clone, Default)]
pub struct Provider {
    memory: Arc<Mutex<Memory>>,
}

impl Provider {
    pub fn new() -> Provider {
        Provider::default()
    }

    /// The handler for [`super::FakeUpstream::start`].
    pub fn handler(&self) -> impl Fn(&Recorded) -> Reply + Send + Sync + 'static {
        let provider = self.clone();
        move |r| provider.answer(r)
    }

    fn answer(&self, r: &Recorded) -> Reply {
        let path = r.path.split('?').next().unwrap_or("").to_owned();
        let req: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        // below a route's own prefix (`/team/v1/…`) the API is the same
        let from = segments.iter().position(|s| *s == "v1").unwrap_or(0);
        let segments = &segments[from..];
        let mut memory = self.memory.lock().unwrap();
        match (r.method.as_str(), segments) {
            ("POST", ["v1", "responses"]) => memory.respond(&req),
            ("POST", ["v1", "conversations"]) => {
                memory.issued += 1;
                let id = format!("conv_{}", memory.issued);
                let items = items_of(req.get("items"));
                memory.conversations.insert(id.clone(), items);
                Reply::json(
                    &json!({"id": id, "object": "conversation", "created_at": 1, "metadata": {}}),
                )
            }
            ("POST", ["v1", "conversations", id, "items"]) => {
                let items = items_of(req.get("items"));
                match memory.conversations.get_mut(*id) {
                    Some(held) => {
                        held.extend(items.iter().cloned());
                        Reply::json(&json!({"object": "list", "data": items}))
                    }
                    None => not_found("conversation", id),
                }
            }
            ("GET", ["v1", "responses", id]) => match memory.objects.get(*id) {
                Some(response) => Reply::json(response),
                None => not_found("response", id),
            },
            // what is deleted stays in this memory: the test sees what the proxy still restores
            ("DELETE", ["v1", "responses" | "conversations", id]) => {
                Reply::json(&json!({"id": id, "deleted": true}))
            }
            ("GET", ["v1", "conversations", id, "items"]) => match memory.conversations.get(*id) {
                Some(held) => Reply::json(&json!({"object": "list", "data": held})),
                None => not_found("conversation", id),
            },
            _ => not_found("path", &path),
        }
    }
}

impl Memory {
    fn respond(&mut self, req: &Value) -> Reply {
        let previous = req.get("previous_response_id").and_then(Value::as_str);
        let conversation = match req.get("conversation") {
            Some(Value::String(id)) => Some(id.clone()),
            Some(obj) => obj.get("id").and_then(Value::as_str).map(str::to_owned),
            None => None,
        };
        let mut history = match (previous, &conversation) {
            (Some(id), _) => match self.responses.get(id) {
                Some(h) => h.clone(),
                None => return not_found("previous_response_id", id),
            },
            (None, Some(id)) => match self.conversations.get(id) {
                Some(h) => h.clone(),
                None => return not_found("conversation", id),
            },
            (None, None) => Vec::new(),
        };
        let input = match req.get("input") {
            Some(Value::String(s)) => vec![json!({"role": "user", "content": s})],
            other => items_of(other),
        };
        history.extend(input.iter().cloned());
        let seen = format!(
            "{} {}",
            req.get("instructions")
                .and_then(Value::as_str)
                .unwrap_or(""),
            Value::Array(history.clone())
        );
        let tokens = tokens_in(&seen);
        self.issued += 1;
        let n = self.issued;
        let tool = req
            .get("tools")
            .and_then(|t| t.get(0))
            .and_then(|t| t.get("name"))
            .and_then(Value::as_str);
        let answered_tool = input
            .last()
            .is_some_and(|i| i.get("type").and_then(Value::as_str) == Some("function_call_output"));
        let output = match tool {
            Some(name) if !answered_tool => {
                json!({"type": "function_call", "id": format!("fc_{n}"),
                "call_id": format!("call_{n}"), "name": name, "status": "completed",
                "arguments": json!({"query": tokens.join(" ")}).to_string()})
            }
            _ => json!({"type": "message", "id": format!("msg_{n}"), "role": "assistant",
                "status": "completed", "content": [{"type": "output_text", "annotations": [],
                "text": format!("Bekannt: {}", tokens.join(", "))}]}),
        };
        history.push(output.clone());
        let id = format!("resp_{n}");
        if req.get("store") != Some(&Value::Bool(false)) {
            self.responses.insert(id.clone(), history);
        }
        if let Some(c) = &conversation {
            let held = self.conversations.entry(c.clone()).or_default();
            held.extend(input);
            held.push(output.clone());
        }
        let response = json!({"id": id, "object": "response", "created_at": 1, "status": "completed",
            "model": req.get("model").cloned().unwrap_or(Value::Null),
            "previous_response_id": previous, "output": [output],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}});
        if req.get("store") != Some(&Value::Bool(false)) {
            self.objects.insert(id.clone(), response.clone());
        }
        if req.get("stream").and_then(Value::as_bool) == Some(true) {
            stream(&response, n)
        } else {
            Reply::json(&response)
        }
    }
}

/// `items` of a request as a list (a missing one is empty).
fn items_of(items: Option<&Value>) -> Vec<Value> {
    items.and_then(Value::as_array).cloned().unwrap_or_default()
}

fn not_found(param: &str, id: &str) -> Reply {
    let mut reply = Reply::json(
        &json!({"error": {"message": format!("No such {param}: '{id}'."),
        "type": "invalid_request_error", "param": param, "code": "not_found"}}),
    );
    reply.status = 404;
    reply
}

/// The reply as the provider streams it: the id in the first event, text and arguments in
/// small deltas, the whole response at the end.
fn stream(response: &Value, seed: u64) -> Reply {
    let mut seq = 0;
    let mut ev: Vec<(Option<&str>, String)> = Vec::new();
    let mut push = |name: &'static str, mut v: Value| {
        v["type"] = json!(name);
        v["sequence_number"] = json!(seq);
        seq += 1;
        ev.push((Some(name), v.to_string()));
    };
    let mut created = response.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    push("response.created", json!({ "response": created }));
    let item = &response["output"][0];
    let id = item["id"].clone();
    let mut added = item.clone();
    added["status"] = json!("in_progress");
    if item["type"] == "message" {
        let text = item["content"][0]["text"].as_str().unwrap_or("").to_owned();
        added["content"] = json!([]);
        push(
            "response.output_item.added",
            json!({"output_index": 0, "item": added}),
        );
        for p in pieces(&text, seed) {
            push(
                "response.output_text.delta",
                json!({"item_id": id, "output_index": 0, "content_index": 0, "delta": p, "logprobs": []}),
            );
        }
        push(
            "response.output_text.done",
            json!({"item_id": id, "output_index": 0, "content_index": 0, "text": text, "logprobs": []}),
        );
    } else {
        let args = item["arguments"].as_str().unwrap_or("").to_owned();
        added["arguments"] = json!("");
        push(
            "response.output_item.added",
            json!({"output_index": 0, "item": added}),
        );
        for p in pieces(&args, seed) {
            push(
                "response.function_call_arguments.delta",
                json!({"item_id": id, "output_index": 0, "delta": p}),
            );
        }
        push(
            "response.function_call_arguments.done",
            json!({"item_id": id, "output_index": 0, "arguments": args}),
        );
    }
    push(
        "response.output_item.done",
        json!({"output_index": 0, "item": item}),
    );
    push("response.completed", json!({ "response": response }));
    Reply::stream("text/event-stream; charset=utf-8", sse(&ev), seed + 3)
}
