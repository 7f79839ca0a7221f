//! OpenAI: chat completions, responses, legacy completions, embeddings.
//! Streams: chat/completions `data:` chunks ending in `[DONE]` (channels per choice and field,
//! tool calls per index); responses named events with `sequence_number` (channels per item and
//! content/summary index).

use std::sync::Arc;

use super::{FormatRefusal, StreamHandler, WireFormat};
use crate::json::Node;
use crate::proxy::restore::{push_member, restore_tree, Channels};
use crate::tokens::TolerantRestorer;

pub struct OpenAi;

pub const CHAT: &str = "chat";
pub const RESPONSES: &str = "responses";
pub const COMPLETIONS: &str = "completions";
pub const EMBEDDINGS: &str = "embeddings";
/// `/v1/conversations`, `/v1/conversations/{id}` and `/v1/conversations/{id}/items`.
pub const CONVERSATIONS: &str = "conversations";

/// The Conversations API paths: `Some(None)` for `…/conversations` (create), `Some(Some(id))`
/// for `…/conversations/{id}` and every path below it.
pub fn conversations_path(path: &str) -> Option<Option<&str>> {
    let mut segments = path.split('/').filter(|s| !s.is_empty());
    segments.find(|s| *s == "conversations")?;
    Some(segments.next())
}

/// `…/responses/{id}` and `…/responses/{id}/input_items` (stored replies, read back by GET):
/// the response id.
pub fn stored_response_path(path: &str) -> Option<&str> {
    let mut segments = path.split('/').filter(|s| !s.is_empty());
    segments.find(|s| *s == "responses")?;
    let id = segments.next()?;
    match (segments.next(), segments.next()) {
        (None, _) | (Some("input_items"), None) => Some(id),
        _ => None,
    }
}

impl WireFormat for OpenAi {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn endpoint(&self, path: &str) -> Option<&'static str> {
        let p = path.trim_end_matches('/');
        if p.ends_with("/chat/completions") {
            Some(CHAT)
        } else if p.ends_with("/responses") {
            Some(RESPONSES)
        } else if p.ends_with("/completions") {
            Some(COMPLETIONS)
        } else if p.ends_with("/embeddings") {
            Some(EMBEDDINGS)
        } else if conversations_path(p).is_some() {
            Some(CONVERSATIONS)
        } else {
            None
        }
    }

    fn check_request(&self, endpoint: &str, root: &Node) -> Result<(), FormatRefusal> {
        let field = match endpoint {
            COMPLETIONS => "prompt",
            EMBEDDINGS => "input",
            _ => return Ok(()),
        };
        let token_ids = match root.get(field) {
            Some(Node::Arr(items)) => items.iter().any(|i| !matches!(i, Node::Str(_))),
            Some(Node::Str(_)) | None => false,
            Some(_) => true,
        };
        if token_ids {
            return Err(FormatRefusal::TokenIds { field });
        }
        Ok(())
    }

    fn name_is_identifier_text(&self, parent: Option<&str>) -> bool {
        parent == Some("messages")
    }

    fn error_body(&self, status: u16, message: &str) -> Node {
        Node::Obj(vec![("error".into(), error_object(status, message))])
    }

    fn stream_error(&self, message: &str) -> Option<Node> {
        Some(self.error_body(502, message))
    }

    fn named_events(&self, endpoint: &str) -> bool {
        endpoint == RESPONSES
    }

    fn stream_handler(&self, endpoint: &str) -> Box<dyn StreamHandler> {
        if endpoint == RESPONSES {
            Box::new(ResponsesStream::default())
        } else {
            Box::new(ChatStream::default())
        }
    }
}

fn error_object(status: u16, message: &str) -> Node {
    let (kind, code) = match status {
        400 => ("invalid_request_error", "privacy_proxy_bad_request"),
        401 => ("authentication_error", "privacy_proxy_unauthorized"),
        404 => ("invalid_request_error", "privacy_proxy_unsupported_path"),
        413 => ("invalid_request_error", "privacy_proxy_body_too_large"),
        422 => ("invalid_request_error", "privacy_proxy_policy_blocked"),
        415 => (
            "invalid_request_error",
            "privacy_proxy_unsupported_encoding",
        ),
        429 => ("rate_limit_error", "privacy_proxy_rate_limited"),
        503 => ("api_error", "privacy_proxy_state_unavailable"),
        _ => ("api_error", "privacy_proxy_upstream_error"),
    };
    Node::Obj(vec![
        ("message".into(), Node::Str(message.into())),
        ("type".into(), Node::Str(kind.into())),
        ("param".into(), Node::Null),
        ("code".into(), Node::Str(code.into())),
    ])
}

/// Chat completions and legacy completions chunks.
#[derive(Default)]
struct ChatStream {
    chans: Channels,
    /// `id`, `object`, `created`, `model` of the last chunk, for synthetic chunks.
    template: Vec<(String, Node)>,
}

const CHAT_TEXT_FIELDS: &[&str] = &["content", "refusal", "reasoning_content", "reasoning"];

impl ChatStream {
    fn synthetic(&self, choice: &str, delta: Node) -> Node {
        let mut members = self.template.clone();
        let index = Node::Num(choice.to_owned());
        let mut c = vec![("index".to_owned(), index)];
        if delta.get("text").is_some() && delta.get("content").is_none() {
            // legacy completions carry `text` directly in the choice
            if let Some(t) = delta.get("text") {
                c.push(("text".into(), t.clone()));
            }
        } else {
            c.push(("delta".into(), delta));
        }
        c.push(("finish_reason".into(), Node::Null));
        members.push(("choices".into(), Node::Arr(vec![Node::Obj(c)])));
        Node::Obj(members)
    }

    /// Puts the tails of `tails` (channel key, text) for one choice into `delta`-shaped node.
    fn tails_into(tails: Vec<(String, String)>, delta: &mut Node) {
        for (key, tail) in tails {
            let field = key.rsplit('/').next().unwrap_or("");
            if let Some(k) = field.strip_prefix("tool") {
                let call = Node::Obj(vec![
                    ("index".into(), Node::Num(k.to_owned())),
                    (
                        "function".into(),
                        Node::Obj(vec![("arguments".into(), Node::Str(tail))]),
                    ),
                ]);
                match delta.get_mut("tool_calls") {
                    Some(Node::Arr(calls)) => {
                        let existing = calls
                            .iter_mut()
                            .find(|c| c.key_of("index").as_deref() == Some(k));
                        match existing {
                            Some(c) => append_arguments(c, &call),
                            None => calls.push(call),
                        }
                    }
                    _ => delta.set("tool_calls", Node::Arr(vec![call])),
                }
            } else if field == "fc" {
                let mut fc = delta
                    .get("function_call")
                    .cloned()
                    .unwrap_or(Node::Obj(Vec::new()));
                let prev = fc.str_of("arguments").unwrap_or("").to_owned();
                fc.set("arguments", Node::Str(prev + &tail));
                delta.set("function_call", fc);
            } else if field == "transcript" {
                let mut audio = delta.get("audio").cloned().unwrap_or(Node::Obj(Vec::new()));
                let prev = audio.str_of("transcript").unwrap_or("").to_owned();
                audio.set("transcript", Node::Str(prev + &tail));
                delta.set("audio", audio);
            } else {
                let prev = delta.str_of(field).unwrap_or("").to_owned();
                delta.set(field, Node::Str(prev + &tail));
            }
        }
    }
}

fn append_arguments(call: &mut Node, extra: &Node) {
    let tail = extra
        .get("function")
        .and_then(|f| f.str_of("arguments"))
        .unwrap_or("")
        .to_owned();
    match call.get_mut("function") {
        Some(f) => {
            let prev = f.str_of("arguments").unwrap_or("").to_owned();
            f.set("arguments", Node::Str(prev + &tail));
        }
        None => call.set(
            "function",
            Node::Obj(vec![("arguments".into(), Node::Str(tail))]),
        ),
    }
}

impl StreamHandler for ChatStream {
    fn on_event(&mut self, ex: &Arc<TolerantRestorer>, ev: Node, out: &mut Vec<Node>) {
        let Some(mut ev) = self.pass_error(ex, ev, out) else {
            return;
        };
        self.template = ["id", "object", "created", "model", "system_fingerprint"]
            .iter()
            .filter_map(|k| ev.get(k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        let mut done: Vec<*const String> = Vec::new();
        if let Some(Node::Arr(choices)) = ev.get_mut("choices") {
            for choice in choices.iter_mut() {
                let idx = choice.key_of("index").unwrap_or_else(|| "0".into());
                let base = format!("{idx}/");
                // legacy completions
                push_member(
                    choice,
                    "text",
                    &mut self.chans,
                    ex,
                    &format!("{base}text"),
                    false,
                    &mut done,
                );
                if let Some(delta) = choice.get_mut("delta") {
                    for f in CHAT_TEXT_FIELDS {
                        push_member(
                            delta,
                            f,
                            &mut self.chans,
                            ex,
                            &format!("{base}{f}"),
                            false,
                            &mut done,
                        );
                    }
                    if let Some(audio) = delta.get_mut("audio") {
                        push_member(
                            audio,
                            "transcript",
                            &mut self.chans,
                            ex,
                            &format!("{base}transcript"),
                            false,
                            &mut done,
                        );
                    }
                    if let Some(fc) = delta.get_mut("function_call") {
                        push_member(
                            fc,
                            "arguments",
                            &mut self.chans,
                            ex,
                            &format!("{base}fc"),
                            true,
                            &mut done,
                        );
                    }
                    if let Some(Node::Arr(calls)) = delta.get_mut("tool_calls") {
                        for call in calls.iter_mut() {
                            let k = call.key_of("index").unwrap_or_else(|| "0".into());
                            if let Some(f) = call.get_mut("function") {
                                push_member(
                                    f,
                                    "arguments",
                                    &mut self.chans,
                                    ex,
                                    &format!("{base}tool{k}"),
                                    true,
                                    &mut done,
                                );
                            }
                        }
                    }
                }
                let finished = choice.get("finish_reason").is_some_and(|f| !f.is_null());
                if finished {
                    let tails = self.chans.finish_prefix(&base);
                    if !tails.is_empty() {
                        if choice.get("delta").is_some() {
                            if let Some(delta) = choice.get_mut("delta") {
                                Self::tails_into(tails, delta);
                            }
                        } else {
                            // legacy completions: text lives in the choice itself
                            Self::tails_into(tails, choice);
                        }
                    }
                }
            }
        }
        restore_tree(&mut ev, ex, &done);
        out.push(ev);
    }

    fn on_end(&mut self, _ex: &Arc<TolerantRestorer>, out: &mut Vec<Node>) {
        let tails = self.chans.finish_prefix("");
        let mut by_choice: Vec<(String, Vec<(String, String)>)> = Vec::new();
        for (key, tail) in tails {
            let choice = key.split('/').next().unwrap_or("0").to_owned();
            match by_choice.iter_mut().find(|(c, _)| *c == choice) {
                Some((_, v)) => v.push((key, tail)),
                None => by_choice.push((choice, vec![(key, tail)])),
            }
        }
        for (choice, tails) in by_choice {
            let mut delta = Node::Obj(Vec::new());
            Self::tails_into(tails, &mut delta);
            out.push(self.synthetic(&choice, delta));
        }
    }
}

/// Responses API events.
#[derive(Default)]
struct ResponsesStream {
    chans: Channels,
    /// Added to every `sequence_number` after synthetic events were inserted.
    seq_offset: i64,
    /// For each open channel: the identifying members of its last delta event.
    shapes: Vec<(String, Node)>,
}

fn responses_channel(ev: &Node, family: &str) -> String {
    let item = ev.str_of("item_id").unwrap_or("");
    let part = ev
        .key_of("content_index")
        .or_else(|| ev.key_of("summary_index"))
        .unwrap_or_default();
    let output = ev.key_of("output_index").unwrap_or_default();
    format!("{family}|{item}|{output}|{part}")
}

impl ResponsesStream {
    fn bump(&mut self, ev: &mut Node) {
        if self.seq_offset == 0 {
            return;
        }
        if let Some(Node::Num(n)) = ev.get_mut("sequence_number") {
            if let Ok(v) = n.parse::<i64>() {
                *n = (v + self.seq_offset).to_string();
            }
        }
    }

    fn synthetic(&mut self, key: &str, tail: String, seq: Option<i64>) -> Option<Node> {
        let pos = self.shapes.iter().position(|(k, _)| k == key)?;
        let (_, mut shape) = self.shapes.remove(pos);
        shape.set("delta", Node::Str(tail));
        if let Some(s) = seq {
            shape.set("sequence_number", Node::Num(s.to_string()));
        }
        Some(shape)
    }
}

impl StreamHandler for ResponsesStream {
    fn on_event(&mut self, ex: &Arc<TolerantRestorer>, mut ev: Node, out: &mut Vec<Node>) {
        let kind = ev.str_of("type").unwrap_or("").to_owned();
        let seq = ev.get("sequence_number").and_then(|n| match n {
            Node::Num(s) => s.parse::<i64>().ok(),
            _ => None,
        });
        if kind == "error" || kind == "response.failed" {
            self.on_end(ex, out);
        }
        let mut done: Vec<*const String> = Vec::new();
        if let Some(family) = kind.strip_suffix(".delta") {
            if matches!(ev.get("delta"), Some(Node::Str(_))) {
                let key = responses_channel(&ev, family);
                let json_source = family.contains("arguments");
                let mut shape = Node::Obj(Vec::new());
                for k in [
                    "type",
                    "item_id",
                    "output_index",
                    "content_index",
                    "summary_index",
                ] {
                    if let Some(v) = ev.get(k) {
                        shape.set(k, v.clone());
                    }
                }
                shape.set("sequence_number", Node::Num("0".into()));
                if ev.get("logprobs").is_some() {
                    shape.set("logprobs", Node::Arr(Vec::new()));
                }
                if !self.shapes.iter().any(|(k, _)| *k == key) {
                    self.shapes.push((key.clone(), shape));
                }
                push_member(
                    &mut ev,
                    "delta",
                    &mut self.chans,
                    ex,
                    &key,
                    json_source,
                    &mut done,
                );
            }
        } else if let Some(family) = kind.strip_suffix(".done") {
            let key = responses_channel(&ev, family);
            let tail = self.chans.finish(&key);
            if !tail.is_empty() {
                let s = seq.map(|s| s + self.seq_offset);
                if let Some(extra) = self.synthetic(&key, tail, s) {
                    out.push(extra);
                    self.seq_offset += 1;
                }
            } else {
                self.shapes.retain(|(k, _)| *k != key);
            }
        }
        self.bump(&mut ev);
        restore_tree(&mut ev, ex, &done);
        out.push(ev);
    }

    fn on_end(&mut self, _ex: &Arc<TolerantRestorer>, out: &mut Vec<Node>) {
        for (key, tail) in self.chans.finish_prefix("") {
            if let Some(extra) = self.synthetic(&key, tail, None) {
                out.push(extra);
            }
        }
    }
}
