//! Anthropic messages (and `count_tokens`). Streams are named SSE events; one channel per
//! content block `index` (text, tool-use JSON and thinking are different blocks).

use std::sync::Arc;

use super::{StreamHandler, WireFormat};
use crate::json::Node;
use crate::proxy::restore::{Channels, EventRestore};
use crate::tokens::TolerantRestorer;

pub struct Anthropic;

pub const MESSAGES: &str = "messages";
pub const COUNT_TOKENS: &str = "count_tokens";

/// Content block types (in `messages[].content`, `system`, tool results and documents) whose
/// fields the request walk knows. A block of any other type has every string anonymized.
const KNOWN_BLOCKS: &[&str] = &[
    "text",
    "image",
    "document",
    "search_result",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
    "web_search_result",
    "web_fetch_tool_result",
    "web_fetch_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
];

impl WireFormat for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn endpoint(&self, path: &str) -> Option<&'static str> {
        let p = path.trim_end_matches('/');
        if p.ends_with("/messages") {
            Some(MESSAGES)
        } else if p.ends_with("/messages/count_tokens") {
            Some(COUNT_TOKENS)
        } else {
            None
        }
    }

    fn known_block(&self, parent: Option<&str>, ty: &str) -> bool {
        !matches!(parent, Some("content" | "system")) || KNOWN_BLOCKS.contains(&ty)
    }

    fn error_body(&self, status: u16, message: &str) -> Node {
        Node::Obj(vec![
            ("type".into(), Node::Str("error".into())),
            ("error".into(), error_object(status, message)),
        ])
    }

    fn stream_error(&self, message: &str) -> Option<Node> {
        Some(self.error_body(502, message))
    }

    fn named_events(&self, _endpoint: &str) -> bool {
        true
    }

    fn stream_handler(&self, _endpoint: &str) -> Box<dyn StreamHandler> {
        Box::new(MessagesStream::default())
    }
}

fn error_object(status: u16, message: &str) -> Node {
    let kind = match status {
        400 | 404 | 415 | 422 => "invalid_request_error",
        401 => "authentication_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        _ => "api_error",
    };
    Node::Obj(vec![
        ("type".into(), Node::Str(kind.into())),
        ("message".into(), Node::Str(message.into())),
    ])
}

#[derive(Default)]
struct MessagesStream {
    chans: Channels,
    /// Delta type per open block index (`text_delta`, `input_json_delta`, `thinking_delta`).
    kinds: Vec<(String, &'static str)>,
}

fn delta_field(kind: &str) -> Option<(&'static str, &'static str, bool)> {
    match kind {
        "text_delta" => Some(("text_delta", "text", false)),
        "input_json_delta" => Some(("input_json_delta", "partial_json", true)),
        "thinking_delta" => Some(("thinking_delta", "thinking", false)),
        _ => None,
    }
}

/// The channel of a block: the text blocks of a message are one text (a link target opened in
/// one and closed in the next stays a target); every other block is its own.
fn channel(index: &str, kind: &str) -> String {
    if kind == "text_delta" {
        TEXT_CHANNEL.to_owned()
    } else {
        index.to_owned()
    }
}

const TEXT_CHANNEL: &str = "text";

impl MessagesStream {
    fn flush(&mut self, index: &str, out: &mut Vec<Node>) {
        let Some(kind) = self
            .kinds
            .iter()
            .position(|(k, _)| k == index)
            .map(|i| self.kinds.remove(i).1)
        else {
            return;
        };
        let tail = if kind == "text_delta" {
            self.chans.release(TEXT_CHANNEL)
        } else {
            self.chans.finish(index)
        };
        if tail.is_empty() {
            return;
        }
        let Some((kind, field, _)) = delta_field(kind) else {
            return;
        };
        out.push(Node::Obj(vec![
            ("type".into(), Node::Str("content_block_delta".into())),
            ("index".into(), Node::Num(index.to_owned())),
            (
                "delta".into(),
                Node::Obj(vec![
                    ("type".into(), Node::Str(kind.into())),
                    (field.into(), Node::Str(tail)),
                ]),
            ),
        ]));
    }
}

impl StreamHandler for MessagesStream {
    fn on_event(&mut self, restorer: &Arc<TolerantRestorer>, mut ev: Node, out: &mut Vec<Node>) {
        let kind = ev.str_of("type").unwrap_or("").to_owned();
        let index = ev.key_of("index").unwrap_or_else(|| "0".into());
        let mut pass = EventRestore::new(restorer);
        match kind.as_str() {
            "content_block_delta" => {
                let dk = ev
                    .get("delta")
                    .and_then(|d| d.str_of("type"))
                    .and_then(delta_field);
                if let Some((dkind, field, json_source)) = dk {
                    if !self.kinds.iter().any(|(k, _)| *k == index) {
                        self.kinds.push((index.clone(), dkind));
                    }
                    if let Some((d, delta)) = ev.member_mut("delta") {
                        let chan = channel(&index, dkind);
                        pass.push_member(&mut self.chans, delta, &[d], field, &chan, json_source);
                    }
                }
            }
            "content_block_stop" => self.flush(&index, out),
            "message_stop" | "error" | "message_delta" => self.on_end(restorer, out),
            _ => {}
        }
        pass.finish(&mut ev);
        out.push(ev);
    }

    fn on_end(&mut self, _restorer: &Arc<TolerantRestorer>, out: &mut Vec<Node>) {
        let open: Vec<String> = self.kinds.iter().map(|(k, _)| k.clone()).collect();
        for index in open {
            self.flush(&index, out);
        }
        self.chans.finish_prefix("");
    }
}
