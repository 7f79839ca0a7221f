//! OpenAI: chat completions, responses, legacy completions, embeddings.
//! Streams: chat/completions `data:` chunks ending in `[DONE]` (channels per choice and field,
//! tool calls per index); responses named events with `sequence_number` (channels per item and
//! content/summary index).

use std::sync::Arc;

use super::{FormatRefusal, StreamHandler, WireFormat};
use crate::json::Node;
use crate::proxy::restore::{below, Channels, EventRestore};
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
    /// Returns the positions in `delta` of the strings written.
    fn tails_into(tails: Vec<(String, String)>, delta: &mut Node) -> Vec<Vec<usize>> {
        let mut written = Vec::new();
        for (key, tail) in tails {
            let field = key.rsplit('/').next().unwrap_or("");
            let at = if let Some(k) = field.strip_prefix("tool") {
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
                tool_arguments_path(delta, k)
            } else if field == "fc" {
                let mut fc = delta
                    .get("function_call")
                    .cloned()
                    .unwrap_or(Node::Obj(Vec::new()));
                let prev = fc.str_of("arguments").unwrap_or("").to_owned();
                fc.set("arguments", Node::Str(prev + &tail));
                delta.set("function_call", fc);
                delta.member_path(&["function_call", "arguments"])
            } else if field == "transcript" {
                let mut audio = delta.get("audio").cloned().unwrap_or(Node::Obj(Vec::new()));
                let prev = audio.str_of("transcript").unwrap_or("").to_owned();
                audio.set("transcript", Node::Str(prev + &tail));
                delta.set("audio", audio);
                delta.member_path(&["audio", "transcript"])
            } else {
                let prev = delta.str_of(field).unwrap_or("").to_owned();
                delta.set(field, Node::Str(prev + &tail));
                delta.member_path(&[field])
            };
            written.extend(at);
        }
        written
    }

    /// One choice of a chunk (at position `at`): its text members through their channels and,
    /// when it finishes, the channels' held-back tails.
    fn choice(&mut self, pass: &mut EventRestore<'_>, choice: &mut Node, at: &[usize]) {
        let idx = choice.key_of("index").unwrap_or_else(|| "0".into());
        let base = format!("{idx}/");
        let chans = &mut self.chans;
        // legacy completions
        pass.push_member(chans, choice, at, "text", &format!("{base}text"), false);
        if let Some((d, delta)) = choice.member_mut("delta") {
            let at = below(at, &[d]);
            for f in CHAT_TEXT_FIELDS {
                pass.push_member(chans, delta, &at, f, &format!("{base}{f}"), false);
            }
            if let Some((a, audio)) = delta.member_mut("audio") {
                let chan = format!("{base}transcript");
                pass.push_member(chans, audio, &below(&at, &[a]), "transcript", &chan, false);
            }
            if let Some((f, fc)) = delta.member_mut("function_call") {
                let chan = format!("{base}fc");
                pass.push_member(chans, fc, &below(&at, &[f]), "arguments", &chan, true);
            }
            if let Some((t, Node::Arr(calls))) = delta.member_mut("tool_calls") {
                for (c, call) in calls.iter_mut().enumerate() {
                    let k = call.key_of("index").unwrap_or_else(|| "0".into());
                    if let Some((f, function)) = call.member_mut("function") {
                        let at = below(&at, &[t, c, f]);
                        let chan = format!("{base}tool{k}");
                        pass.push_member(chans, function, &at, "arguments", &chan, true);
                    }
                }
            }
        }
        let finished = choice.get("finish_reason").is_some_and(|f| !f.is_null());
        if finished {
            let tails = chans.finish_prefix(&base);
            if !tails.is_empty() {
                let (at, written) = match choice.member_mut("delta") {
                    Some((d, delta)) => (below(at, &[d]), Self::tails_into(tails, delta)),
                    // legacy completions: text lives in the choice itself
                    None => (at.to_vec(), Self::tails_into(tails, choice)),
                };
                for rest in written {
                    pass.mark(below(&at, &rest));
                }
            }
        }
    }
}

/// The position, in `delta`, of the arguments of the tool call with index `k`.
fn tool_arguments_path(delta: &Node, k: &str) -> Option<Vec<usize>> {
    let Node::Obj(members) = delta else {
        return None;
    };
    let t = members.iter().position(|(key, _)| key == "tool_calls")?;
    let Node::Arr(calls) = &members[t].1 else {
        return None;
    };
    let c = calls
        .iter()
        .position(|c| c.key_of("index").as_deref() == Some(k))?;
    let rest = calls[c].member_path(&["function", "arguments"])?;
    Some(below(&[t, c], &rest))
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
    fn on_event(&mut self, restorer: &Arc<TolerantRestorer>, ev: Node, out: &mut Vec<Node>) {
        let Some(mut ev) = self.pass_error(restorer, ev, out) else {
            return;
        };
        self.template = ["id", "object", "created", "model", "system_fingerprint"]
            .iter()
            .filter_map(|k| ev.get(k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        let mut pass = EventRestore::new(restorer);
        if let Some((c, Node::Arr(choices))) = ev.member_mut("choices") {
            for (i, choice) in choices.iter_mut().enumerate() {
                self.choice(&mut pass, choice, &[c, i]);
            }
        }
        pass.finish(&mut ev);
        out.push(ev);
    }

    fn on_end(&mut self, _restorer: &Arc<TolerantRestorer>, out: &mut Vec<Node>) {
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
    fn on_event(&mut self, restorer: &Arc<TolerantRestorer>, mut ev: Node, out: &mut Vec<Node>) {
        let kind = ev.str_of("type").unwrap_or("").to_owned();
        let seq = ev.get("sequence_number").and_then(|n| match n {
            Node::Num(s) => s.parse::<i64>().ok(),
            _ => None,
        });
        if kind == "error" || kind == "response.failed" {
            self.on_end(restorer, out);
        }
        let mut pass = EventRestore::new(restorer);
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
                if family.ends_with("custom_tool_call_input") {
                    self.chans.open_tool_text(restorer, &key);
                }
                pass.push_member(&mut self.chans, &mut ev, &[], "delta", &key, json_source);
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
        pass.finish(&mut ev);
        out.push(ev);
    }

    fn on_end(&mut self, _restorer: &Arc<TolerantRestorer>, out: &mut Vec<Node>) {
        for (key, tail) in self.chans.finish_prefix("") {
            if let Some(extra) = self.synthetic(&key, tail, None) {
                out.push(extra);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;
    use crate::proxy::restore::tests::restorer_of;

    fn run(handler: &mut dyn StreamHandler, events: &[&str]) -> Vec<String> {
        let restorer = restorer_of("[[EMAIL_1]]", "z@x.de");
        let mut out = Vec::new();
        for ev in events {
            let node = json::parse(ev).expect("test event parses");
            handler.on_event(&restorer, node, &mut out);
        }
        out.iter().map(Node::to_json_string).collect()
    }

    /// A channel's held-back tail released into a member the final chunk lacks is appended to
    /// the delta after the channel pass: it was restored once, in its link context, and the
    /// whole-event pass must not restore it again without that context.
    #[test]
    fn a_tail_in_a_new_member_is_not_restored_again() {
        let mut chat = ChatStream::default();
        let out = run(
            &mut chat,
            &[
                r#"{"choices":[{"index":0,"delta":{"refusal":"![x](https://e.example/p.png?d=EMAIL_1"},"finish_reason":null}]}"#,
                r#"{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}"#,
            ],
        );
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(
            out[0].contains(r#""refusal":"![x](https://e.example/p.png?d="}"#),
            "{out:?}"
        );
        assert!(out[1].contains(r#""refusal":"EMAIL_1""#), "{out:?}");
        assert!(!out.concat().contains("z@x.de"), "{out:?}");
    }
}
