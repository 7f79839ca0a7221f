//! Ollama native chat and generate (and embed). Streams are NDJSON lines; channels are the
//! text fields (`message.content`, `message.thinking`, `response`, `thinking`). Held-back text
//! is merged into the `done: true` line.

use std::sync::Arc;

use super::{StreamHandler, WireFormat};
use crate::json::Node;
use crate::proxy::restore::{push_member, restore_tree, Channels};
use crate::tokens::TolerantRestorer;

pub struct Ollama;

impl WireFormat for Ollama {
    fn name(&self) -> &'static str {
        "ollama"
    }

    fn endpoint(&self, path: &str) -> Option<&'static str> {
        match path.trim_end_matches('/') {
            p if p.ends_with("/api/chat") => Some("chat"),
            p if p.ends_with("/api/generate") => Some("generate"),
            p if p.ends_with("/api/embed") || p.ends_with("/api/embeddings") => Some("embed"),
            _ => None,
        }
    }

    fn error_body(&self, _status: u16, message: &str) -> Node {
        Node::Obj(vec![("error".into(), Node::Str(message.into()))])
    }

    fn stream_error(&self, message: &str) -> Option<Node> {
        Some(self.error_body(502, message))
    }

    fn stream_handler(&self, _endpoint: &str) -> Box<dyn StreamHandler> {
        Box::new(NdjsonStream::default())
    }
}

#[derive(Default)]
struct NdjsonStream {
    chans: Channels,
    model: Option<Node>,
}

impl StreamHandler for NdjsonStream {
    fn on_event(&mut self, ex: &Arc<TolerantRestorer>, ev: Node, out: &mut Vec<Node>) {
        let Some(mut ev) = self.pass_error(ex, ev, out) else {
            return;
        };
        if let Some(m) = ev.get("model") {
            self.model = Some(m.clone());
        }
        let mut done: Vec<*const String> = Vec::new();
        let finished = matches!(ev.get("done"), Some(Node::Bool(true)));
        if let Some(msg) = ev.get_mut("message") {
            for f in ["content", "thinking"] {
                let chan = format!("message.{f}");
                push_member(msg, f, &mut self.chans, ex, &chan, false, &mut done);
                if finished {
                    let tail = self.chans.finish(&chan);
                    if !tail.is_empty() {
                        let prev = msg.str_of(f).unwrap_or("").to_owned();
                        msg.set(f, Node::Str(prev + &tail));
                    }
                }
            }
        }
        for f in ["response", "thinking"] {
            push_member(&mut ev, f, &mut self.chans, ex, f, false, &mut done);
            if finished {
                let tail = self.chans.finish(f);
                if !tail.is_empty() {
                    let prev = ev.str_of(f).unwrap_or("").to_owned();
                    ev.set(f, Node::Str(prev + &tail));
                }
            }
        }
        if finished {
            // anything still open (e.g. a field absent from the final line)
            for (chan, tail) in self.chans.finish_prefix("") {
                if let Some(f) = chan.strip_prefix("message.") {
                    if ev.get("message").is_none() {
                        ev.set(
                            "message",
                            Node::Obj(vec![("role".into(), Node::Str("assistant".into()))]),
                        );
                    }
                    if let Some(msg) = ev.get_mut("message") {
                        let prev = msg.str_of(f).unwrap_or("").to_owned();
                        msg.set(f, Node::Str(prev + &tail));
                    }
                } else {
                    let prev = ev.str_of(&chan).unwrap_or("").to_owned();
                    ev.set(&chan, Node::Str(prev + &tail));
                }
            }
        }
        restore_tree(&mut ev, ex, &done);
        out.push(ev);
    }

    fn on_end(&mut self, _ex: &Arc<TolerantRestorer>, out: &mut Vec<Node>) {
        for (chan, tail) in self.chans.finish_prefix("") {
            let mut line = Node::Obj(Vec::new());
            if let Some(m) = &self.model {
                line.set("model", m.clone());
            }
            if let Some(f) = chan.strip_prefix("message.") {
                line.set(
                    "message",
                    Node::Obj(vec![
                        ("role".into(), Node::Str("assistant".into())),
                        (f.into(), Node::Str(tail)),
                    ]),
                );
            } else {
                line.set(&chan, Node::Str(tail));
            }
            line.set("done", Node::Bool(false));
            out.push(line);
        }
    }
}
