//! Reply side: restores this exchange's tokens in the upstream's reply — whole JSON field by
//! field, SSE and NDJSON event by event through the format's stream handler.
//!
//! Restoring is bounded: it may add at most [`GROWTH_PER_BYTE`] bytes per byte the upstream
//! sent plus [`GROWTH_ALLOWANCE`], so a restored reply is never larger than
//! `(1 + GROWTH_PER_BYTE) × upstream bytes + GROWTH_ALLOWANCE`. A reply that would grow past
//! that (a model repeating the token of a long value thousands of times) is not refused: from
//! that point on its token forms pass as the model wrote them (placeholders, no personal data),
//! and the exchange is logged and counted as `restore_limited`.

use std::sync::Arc;

use super::format::{StreamHandler, WireFormat};
use super::restore::restore_tree;
use super::thinking::Watch;
use super::{ndjson, sse};
use crate::json::{self, Node};
use crate::tokens::links::ToolPolicy;
use crate::tokens::{MappingEntry, TolerantRestorer};

/// Bytes restoring may add per byte of the upstream's reply.
pub(crate) const GROWTH_PER_BYTE: u64 = 16;
/// Bytes restoring may add to any reply regardless of its size (one long value in a short reply).
pub(crate) const GROWTH_ALLOWANCE: u64 = 1024 * 1024;

/// The exchange of one proxied request: the tokens its anonymization issued (`entries`), told
/// which of them the client's own request (`original`, the body as received, parsed) already
/// wrote in a tolerant form, with the reply growth budget and the route's policy for tool-call
/// arguments.
pub fn exchange_for(
    entries: Vec<MappingEntry>,
    original: &Node,
    tools: Arc<ToolPolicy>,
) -> TolerantRestorer {
    let mut restorer = TolerantRestorer::new(entries);
    restorer.set_tool_policy(tools);
    note_strings(&mut restorer, original);
    restorer.limit_growth(GROWTH_ALLOWANCE);
    restorer
}

fn note_strings(restorer: &mut TolerantRestorer, node: &Node) {
    match node {
        Node::Str(s) => {
            restorer.note_client_text(s);
            // JSON source inside a string (tool-call arguments): its strings too
            if s.starts_with('{') || s.starts_with('[') {
                if let Ok(inner) = json::parse(s) {
                    note_strings(restorer, &inner);
                }
            }
        }
        Node::Arr(items) => items.iter().for_each(|i| note_strings(restorer, i)),
        Node::Obj(members) => {
            for (k, v) in members {
                restorer.note_client_text(k);
                note_strings(restorer, v);
            }
        }
        Node::Null | Node::Bool(_) | Node::Num(_) => {}
    }
}

/// How the reply body is framed, decided from its `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Json,
    Sse,
    Ndjson,
    /// Anything else: restored as text once complete.
    Text,
}

impl Framing {
    pub(crate) fn from_content_type(ct: &str) -> Framing {
        let ct = ct.to_ascii_lowercase();
        if ct.starts_with("text/event-stream") {
            Framing::Sse
        } else if ct.contains("ndjson") || ct.contains("jsonl") {
            Framing::Ndjson
        } else if ct.contains("json") {
            Framing::Json
        } else {
            Framing::Text
        }
    }
}

enum State {
    Buffer(Vec<u8>),
    Sse(sse::SseParser),
    Ndjson(ndjson::NdjsonParser),
}

pub struct ReplyRewriter {
    restorer: Arc<TolerantRestorer>,
    format: &'static dyn WireFormat,
    framing: Framing,
    named: bool,
    handler: Box<dyn StreamHandler>,
    state: State,
    /// Line terminator seen in the stream (for events the proxy adds).
    term: &'static str,
    finished: bool,
    /// Look for the reply's own id ([`super::conversation::reply_id`]) until it is found.
    watch_id: bool,
    reply_id: Option<String>,
    /// Signed thinking blocks read as the provider sent them ([`super::thinking`]).
    thinking: Option<Watch>,
}

impl ReplyRewriter {
    pub fn new(
        restorer: Arc<TolerantRestorer>,
        format: &'static dyn WireFormat,
        endpoint: &str,
        framing: Framing,
    ) -> ReplyRewriter {
        let state = match framing {
            Framing::Sse => State::Sse(sse::SseParser::default()),
            Framing::Ndjson => State::Ndjson(ndjson::NdjsonParser::default()),
            Framing::Json | Framing::Text => State::Buffer(Vec::new()),
        };
        ReplyRewriter {
            restorer,
            format,
            framing,
            named: format.named_events(endpoint),
            handler: format.stream_handler(endpoint),
            state,
            term: "\n",
            finished: false,
            watch_id: false,
            reply_id: None,
            thinking: None,
        }
    }

    /// Reads the reply's own id from its body or first events ([`Self::take_reply_id`]).
    pub(crate) fn watch_reply_id(&mut self) {
        self.watch_id = true;
    }

    /// The reply's id, once, when it has been read.
    pub(crate) fn take_reply_id(&mut self) -> Option<String> {
        self.reply_id.take()
    }

    /// Reads the reply's signed thinking blocks before they are restored ([`Self::take_thinking`]).
    pub(crate) fn watch_thinking(&mut self) {
        self.thinking = Some(Watch::default());
    }

    /// The signed thinking blocks completed so far, once: (signature, text as signed).
    pub(crate) fn take_thinking(&mut self) -> Vec<(String, String)> {
        self.thinking.as_mut().map(Watch::take).unwrap_or_default()
    }

    fn note_id(&mut self, node: &Node) {
        if self.watch_id {
            if let Some(id) = super::conversation::reply_id(node) {
                self.reply_id = Some(id.to_owned());
                self.watch_id = false;
            }
        }
    }

    pub(crate) fn framing(&self) -> Framing {
        self.framing
    }

    /// Feeds a piece of the reply body; returns what can be sent to the client now.
    pub fn feed(&mut self, bytes: &[u8], end: bool) -> Vec<u8> {
        if self.finished {
            return Vec::new();
        }
        self.restorer
            .grant(GROWTH_PER_BYTE.saturating_mul(bytes.len() as u64));
        let mut out = Vec::with_capacity(bytes.len() + 64);
        match &mut self.state {
            State::Buffer(buf) => {
                buf.extend_from_slice(bytes);
                if end {
                    let buf = std::mem::take(buf);
                    out = self.whole(buf);
                }
            }
            State::Sse(p) => {
                let mut items = Vec::new();
                p.push(bytes, end, &mut items);
                for item in items {
                    self.sse_item(item, &mut out);
                }
                if end {
                    self.sse_flush(&mut out);
                }
            }
            State::Ndjson(p) => {
                let mut lines = Vec::new();
                p.push(bytes, end, &mut lines);
                for (line, term) in lines {
                    self.ndjson_line(&line, term, &mut out);
                }
                if end {
                    self.ndjson_flush(&mut out);
                }
            }
        }
        if end {
            self.finished = true;
        }
        out
    }

    /// The upstream failed mid-reply: release held-back text and end with an error frame in
    /// the stream's own framing.
    pub(crate) fn abort(&mut self, message: &str) -> Vec<u8> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let mut out = Vec::new();
        match self.framing {
            Framing::Sse => {
                self.sse_flush(&mut out);
                if let Some(err) = self.format.stream_error(message) {
                    let name = self.named.then_some("error");
                    sse::write_event(name, &err.to_json_string(), self.term, &mut out);
                }
            }
            Framing::Ndjson => {
                self.ndjson_flush(&mut out);
                if let Some(err) = self.format.stream_error(message) {
                    out.extend_from_slice(err.to_json_string().as_bytes());
                    out.push(b'\n');
                }
            }
            Framing::Json | Framing::Text => {}
        }
        out
    }

    fn whole(&mut self, buf: Vec<u8>) -> Vec<u8> {
        let Ok(text) = std::str::from_utf8(&buf) else {
            return buf;
        };
        if self.framing == Framing::Json {
            if let Ok(mut node) = json::parse(text) {
                self.note_id(&node);
                if let Some(watch) = self.thinking.as_mut() {
                    watch.message(&node);
                }
                restore_tree(&mut node, &self.restorer, &[]);
                return node.to_bytes();
            }
        }
        self.restorer.restore(text, false).into_bytes()
    }

    fn sse_item(&mut self, item: sse::Item, out: &mut Vec<u8>) {
        let ev = match item {
            sse::Item::Comment(l) => {
                out.extend_from_slice(l.text.as_bytes());
                out.extend_from_slice(l.term.as_bytes());
                return;
            }
            sse::Item::Event(ev) => ev,
        };
        if !ev.lines.is_empty() {
            self.term = ev.term();
        }
        let Some(data) = ev.data() else {
            ev.write(out);
            return;
        };
        if data.trim_start().starts_with("[DONE]") {
            self.sse_flush(out);
            ev.write(out);
            return;
        }
        match json::parse(&data) {
            Ok(node) => {
                let nodes = self.event(node);
                let last = nodes.len().saturating_sub(1);
                for (i, n) in nodes.into_iter().enumerate() {
                    let text = n.to_json_string();
                    if i == last {
                        ev.write_with_data(&text, out);
                    } else {
                        let name = if self.named { n.str_of("type") } else { None };
                        sse::write_event(name, &text, self.term, out);
                    }
                }
            }
            Err(_) => {
                let restored = self.restorer.restore(&data, false);
                ev.write_with_data(&restored, out);
            }
        }
    }

    /// One event of the stream, parsed: its restored form, preceded by any events that release
    /// text held back on its channels. The SSE path and each WebSocket message
    /// ([`super::websocket`]) go through here.
    pub(crate) fn event(&mut self, node: Node) -> Vec<Node> {
        self.note_id(&node);
        if let Some(watch) = self.thinking.as_mut() {
            watch.event(&node);
        }
        let mut nodes = Vec::with_capacity(1);
        self.handler.on_event(&self.restorer, node, &mut nodes);
        nodes
    }

    /// [`Self::event`] for one whole message of `len` bytes (a WebSocket event), with the
    /// restorer's growth allowance for it.
    pub(crate) fn message(&mut self, node: Node, len: usize) -> Vec<Node> {
        self.restorer
            .grant(GROWTH_PER_BYTE.saturating_mul(len as u64));
        self.event(node)
    }

    /// The stream ended: events releasing whatever is still held back.
    pub(crate) fn end(&mut self) -> Vec<Node> {
        let mut nodes = Vec::new();
        self.handler.on_end(&self.restorer, &mut nodes);
        nodes
    }

    fn sse_flush(&mut self, out: &mut Vec<u8>) {
        for n in self.end() {
            let name = if self.named { n.str_of("type") } else { None };
            sse::write_event(name, &n.to_json_string(), self.term, out);
        }
    }

    fn ndjson_line(&mut self, line: &str, term: &str, out: &mut Vec<u8>) {
        if line.trim().is_empty() {
            out.extend_from_slice(line.as_bytes());
            out.extend_from_slice(term.as_bytes());
            return;
        }
        match json::parse(line) {
            Ok(node) => {
                let mut nodes = Vec::with_capacity(1);
                self.handler.on_event(&self.restorer, node, &mut nodes);
                let last = nodes.len().saturating_sub(1);
                for (i, n) in nodes.into_iter().enumerate() {
                    out.extend_from_slice(n.to_json_string().as_bytes());
                    out.extend_from_slice(if i == last { term } else { "\n" }.as_bytes());
                }
            }
            Err(_) => {
                out.extend_from_slice(self.restorer.restore(line, false).as_bytes());
                out.extend_from_slice(term.as_bytes());
            }
        }
    }

    fn ndjson_flush(&mut self, out: &mut Vec<u8>) {
        let mut nodes: Vec<Node> = Vec::new();
        self.handler.on_end(&self.restorer, &mut nodes);
        for n in nodes {
            out.extend_from_slice(n.to_json_string().as_bytes());
            out.push(b'\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::format::openai::OpenAi;
    use crate::tokens::tolerant::sample_exchange as exchange;

    /// Two choices and two parallel tool calls interleaved, every piece split inside tokens:
    /// the channels never mix, and every split of the byte stream gives the same result.
    #[test]
    fn interleaved_choices_and_tool_calls_stay_apart() {
        let chunk = |choice: u32, delta: &str| {
            format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":{choice},\"delta\":{delta},\"finish_reason\":null}}]}}\n\n")
        };
        let mut stream = String::new();
        stream += &chunk(0, r#"{"content":"A [[NA"}"#);
        stream += &chunk(1, r#"{"content":"B [[EMA"}"#);
        stream += &chunk(
            0,
            r#"{"tool_calls":[{"index":0,"id":"t0","function":{"name":"f","arguments":"{\"a\":\"[[NAME"}},{"index":1,"id":"t1","function":{"name":"g","arguments":"{\"b\":\"[[EMAIL_"}}]}"#,
        );
        stream += &chunk(0, r#"{"content":"ME_1]] x"}"#);
        stream += &chunk(1, r#"{"content":"IL_1]] y NAME_1"}"#);
        stream += &chunk(
            0,
            r#"{"tool_calls":[{"index":1,"function":{"arguments":"1]]\"}"}},{"index":0,"function":{"arguments":"_1]]\"}"}}]}"#,
        );
        stream += "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n";
        stream += "data: [DONE]\n\n";
        let bytes = stream.as_bytes();
        let mut results = Vec::new();
        for piece in [bytes.len(), 1, 2, 3, 7, 13] {
            let mut r = ReplyRewriter::new(exchange(), &OpenAi, "chat", Framing::Sse);
            let mut out = Vec::new();
            for c in bytes.chunks(piece) {
                out.extend(r.feed(c, false));
            }
            out.extend(r.feed(&[], true));
            results.push(String::from_utf8(out).unwrap());
        }
        assert!(
            results.windows(2).all(|w| w[0] == w[1]),
            "same output for every split"
        );
        let mut content = [String::new(), String::new()];
        let mut args = [String::new(), String::new()];
        for block in results[0].split("\n\n") {
            let Some(data) = block.strip_prefix("data: ") else {
                continue;
            };
            if data == "[DONE]" {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(data).unwrap();
            for c in v["choices"].as_array().unwrap() {
                let i = c["index"].as_u64().unwrap() as usize;
                content[i] += c["delta"]["content"].as_str().unwrap_or("");
                for t in c["delta"]["tool_calls"].as_array().into_iter().flatten() {
                    let k = t["index"].as_u64().unwrap() as usize;
                    args[k] += t["function"]["arguments"].as_str().unwrap_or("");
                }
            }
        }
        assert_eq!(content[0], "A Zoë \"Z\" x");
        assert_eq!(content[1], "B z@x.de y Zoë \"Z\"");
        let a: serde_json::Value = serde_json::from_str(&args[0]).unwrap();
        let b: serde_json::Value = serde_json::from_str(&args[1]).unwrap();
        assert_eq!(a["a"], "Zoë \"Z\"");
        assert_eq!(b["b"], "z@x.de");
        assert!(results[0].ends_with("data: [DONE]\n\n"));
    }
}
