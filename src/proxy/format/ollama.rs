//! Ollama native chat and generate (and embed). Streams are NDJSON lines; channels are the
//! text fields (`message.content`, `message.thinking`, `response`, `thinking`). Held-back text
//! is merged into the `done: true` line.

use std::sync::Arc;

use super::{StreamHandler, WireFormat};
use crate::json::Node;
use crate::proxy::restore::{below, Channels, EventRestore};
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
    fn on_event(&mut self, restorer: &Arc<TolerantRestorer>, ev: Node, out: &mut Vec<Node>) {
        let Some(mut ev) = self.pass_error(restorer, ev, out) else {
            return;
        };
        if let Some(m) = ev.get("model") {
            self.model = Some(m.clone());
        }
        let mut pass = EventRestore::new(restorer);
        let finished = matches!(ev.get("done"), Some(Node::Bool(true)));
        if let Some((m, msg)) = ev.member_mut("message") {
            for f in ["content", "thinking"] {
                let chan = format!("message.{f}");
                pass.push_member(&mut self.chans, msg, &[m], f, &chan, false);
                if finished {
                    let tail = self.chans.finish(&chan);
                    if !tail.is_empty() {
                        append_tail(msg, f, &tail, &mut pass, &[m]);
                    }
                }
            }
        }
        for f in ["response", "thinking"] {
            pass.push_member(&mut self.chans, &mut ev, &[], f, f, false);
            if finished {
                let tail = self.chans.finish(f);
                if !tail.is_empty() {
                    append_tail(&mut ev, f, &tail, &mut pass, &[]);
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
                    if let Some((m, msg)) = ev.member_mut("message") {
                        append_tail(msg, f, &tail, &mut pass, &[m]);
                    }
                } else {
                    append_tail(&mut ev, &chan, &tail, &mut pass, &[]);
                }
            }
        }
        pass.finish(&mut ev);
        out.push(ev);
    }

    fn on_end(&mut self, _restorer: &Arc<TolerantRestorer>, out: &mut Vec<Node>) {
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

/// Appends a channel's held-back `tail` to the string member `field` of `obj` (at position
/// `at`), and marks it as channel-written.
fn append_tail(obj: &mut Node, field: &str, tail: &str, pass: &mut EventRestore<'_>, at: &[usize]) {
    let prev = obj.str_of(field).unwrap_or("").to_owned();
    obj.set(field, Node::Str(prev + tail));
    if let Some(rest) = obj.member_path(&[field]) {
        pass.mark(below(at, &rest));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;
    use crate::proxy::restore::tests::restorer_of;

    /// A tail released into a `message` the final line lacks was restored once, in its link
    /// context; the whole-line pass must not restore it again without that context.
    #[test]
    fn a_tail_in_a_new_message_is_not_restored_again() {
        let restorer = restorer_of("[[EMAIL_1]]", "z@x.de");
        let mut stream = NdjsonStream::default();
        let mut out = Vec::new();
        for line in [
            r#"{"model":"m","message":{"role":"assistant","content":"![x](https://e.example/p.png?d=EMAIL_1"},"done":false}"#,
            r#"{"model":"m","done":true}"#,
        ] {
            let line = json::parse(line).expect("test line parses");
            stream.on_event(&restorer, line, &mut out);
        }
        let out: Vec<String> = out.iter().map(Node::to_json_string).collect();
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(
            out[0].contains(r#""content":"![x](https://e.example/p.png?d=""#),
            "{out:?}"
        );
        assert!(out[1].contains(r#""content":"EMAIL_1""#), "{out:?}");
        assert!(!out.concat().contains("z@x.de"), "{out:?}");
    }
}
