//! Reply side: restoring tokens in a whole reply document, and the per-channel restorers that
//! stream handlers share.

use std::sync::Arc;

use crate::json::Node;
use crate::tokens::links::LinkContext;
use crate::tokens::{StreamRestorer, TolerantRestorer};

/// Keys whose values are structural in replies: never restored.
const REPLY_SKIP: &[&str] = &[
    "id",
    "model",
    "type",
    "object",
    "role",
    "signature",
    "encrypted_content",
    "data",
    "b64_json",
    "embedding",
    "embeddings",
    "obfuscation",
    "logprobs",
    "system_fingerprint",
    "created_at",
    "finish_reason",
    "stop_reason",
    "done_reason",
];

/// What the strings below a member of a reply are, for restoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The reply's own document: structural members are skipped.
    Reply,
    /// Tool-call arguments as JSON source text (`arguments`, `partial_json` strings).
    ArgumentsSource,
    /// A tool call's decoded input (`input`, an `arguments` object): the model named its
    /// members, so every one is a value, and a string that is a URL stays as written.
    ToolInput,
}

/// Restores every token of `restorer` in a whole reply document (or event), except in structural
/// values and in the strings at the positions in `handled` (already restored by a stream
/// channel: see [`EventRestore`]).
pub fn restore_tree(node: &mut Node, restorer: &TolerantRestorer, handled: &[Vec<usize>]) {
    let mut handled = handled.to_vec();
    restore_walk(node, restorer, Kind::Reply, &mut handled, &mut Vec::new());
}

/// `at` is the position of `node`, kept up to date as the walk descends.
fn restore_walk(
    node: &mut Node,
    restorer: &TolerantRestorer,
    kind: Kind,
    handled: &mut Vec<Vec<usize>>,
    at: &mut Vec<usize>,
) {
    match node {
        Node::Str(s) => {
            if !handled.contains(at) {
                let restored = match kind {
                    Kind::Reply => restorer.restored(s, false),
                    Kind::ArgumentsSource if restorer.tool_policy().allows_source(s) => {
                        restorer.restored(s, true)
                    }
                    // the route's policy withholds values from this call
                    Kind::ArgumentsSource => None,
                    Kind::ToolInput => memchr::memchr(b'_', s.as_bytes()).and_then(|_| {
                        restorer.restored_in(s, false, &mut LinkContext::tool_value())
                    }),
                };
                if let Some(r) = restored {
                    *s = r;
                }
            }
        }
        Node::Arr(items) => {
            if kind == Kind::Reply {
                restore_blocks(items, restorer, handled, at);
            }
            for (i, item) in items.iter_mut().enumerate() {
                at.push(i);
                restore_walk(item, restorer, kind, handled, at);
                at.pop();
            }
        }
        Node::Obj(members) => {
            for (i, (key, value)) in members.iter_mut().enumerate() {
                let Some(child) = member_kind(kind, key, value) else {
                    continue;
                };
                let entering = child == Kind::ToolInput && kind != Kind::ToolInput;
                if entering && !restorer.tool_policy().allows_input(value) {
                    // the route's policy withholds values from this call
                    continue;
                }
                // a token used as a key (`{"[[EMAIL_1]]": "top"}` in tool input, JSON content)
                if let Some(restored_key) = restorer.restored(key, false) {
                    *key = restored_key;
                }
                at.push(i);
                restore_walk(value, restorer, child, handled, at);
                at.pop();
            }
        }
        Node::Null | Node::Bool(_) | Node::Num(_) => {}
    }
}

/// What the member `key` of an object of kind `kind` holds, or `None` when it is structural.
fn member_kind(kind: Kind, key: &str, value: &Node) -> Option<Kind> {
    if kind == Kind::ToolInput {
        return Some(kind);
    }
    // `data` is opaque as a string (media, redacted thinking), a list's items as an array
    let items = key == "data" && matches!(value, Node::Arr(_));
    if (REPLY_SKIP.contains(&key) && !items) || key.ends_with("_id") {
        return None;
    }
    Some(match value {
        Node::Str(_) if key == "arguments" || key == "partial_json" => Kind::ArgumentsSource,
        Node::Obj(_) | Node::Arr(_) if key == "input" || key == "arguments" => Kind::ToolInput,
        // a custom tool's free-form input (Responses `custom_tool_call`)
        Node::Str(_) if key == "input" => Kind::ToolInput,
        _ => Kind::Reply,
    })
}

/// The text blocks of one message (`content: [{"type": "text", …}, …]`) are one text: a link
/// target opened in one block and closed in the next stays a target. Restores their `text`
/// in order through one reader and marks them as done.
fn restore_blocks(
    items: &mut [Node],
    restorer: &TolerantRestorer,
    handled: &mut Vec<Vec<usize>>,
    at: &[usize],
) {
    let is_block = |item: &Node| item.get("type").is_some() && item.str_of("text").is_some();
    if items.iter().filter(|item| is_block(item)).count() < 2 {
        return;
    }
    let mut links = LinkContext::default();
    for (i, item) in items.iter_mut().enumerate() {
        if !is_block(item) {
            continue;
        }
        let Some((t, Node::Str(text))) = item.member_mut("text") else {
            continue;
        };
        let pos = below(at, &[i, t]);
        if handled.contains(&pos) {
            continue;
        }
        if let Some(r) = restorer.restored_in(text, false, &mut links) {
            *text = r;
        }
        handled.push(pos);
    }
}

/// Restoring one stream event: its text members go through their channels
/// ([`EventRestore::push_member`]), then [`EventRestore::finish`] restores the rest of the
/// event and leaves what the channels wrote as they wrote it.
///
/// What the channels wrote is known by position: the member and element indices that lead to
/// it from the event's root. Between marking and finishing, handlers only replace values and
/// append members, so a position stays true where an address would not (an appended member
/// may move the whole list).
pub(crate) struct EventRestore<'r> {
    restorer: &'r Arc<TolerantRestorer>,
    handled: Vec<Vec<usize>>,
}

impl<'r> EventRestore<'r> {
    pub(crate) fn new(restorer: &'r Arc<TolerantRestorer>) -> EventRestore<'r> {
        EventRestore {
            restorer,
            handled: Vec::new(),
        }
    }

    /// Restores the string member `key` of `obj`, which sits at position `at`, through
    /// channel `chan`.
    pub(crate) fn push_member(
        &mut self,
        chans: &mut Channels,
        obj: &mut Node,
        at: &[usize],
        key: &str,
        chan: &str,
        json_source: bool,
    ) {
        if let Some((i, Node::Str(s))) = obj.member_mut(key) {
            *s = chans.push(self.restorer, chan, json_source, s);
            self.mark(below(at, &[i]));
        }
    }

    /// Marks the string at position `at` as written by a channel.
    pub(crate) fn mark(&mut self, at: Vec<usize>) {
        self.handled.push(at);
    }

    /// Restores everything in `ev` the channels did not write.
    pub(crate) fn finish(self, ev: &mut Node) {
        restore_tree(ev, self.restorer, &self.handled);
    }
}

/// The position `rest` below the node at position `at`.
pub(crate) fn below(at: &[usize], rest: &[usize]) -> Vec<usize> {
    [at, rest].concat()
}

/// Per-channel restorers keyed by a channel id, in creation order.
#[derive(Default)]
pub(crate) struct Channels {
    list: Vec<(String, StreamRestorer)>,
}

impl Channels {
    /// Restores `text` through channel `key` (created on first use).
    /// Opens channel `key` (unless open) for a tool call's free-form input
    /// ([`StreamRestorer::tool_text`]).
    pub(crate) fn open_tool_text(&mut self, restorer: &Arc<TolerantRestorer>, key: &str) {
        if !self.list.iter().any(|(k, _)| k == key) {
            let r = StreamRestorer::tool_text(restorer.clone());
            self.list.push((key.to_owned(), r));
        }
    }

    pub(crate) fn push(
        &mut self,
        restorer: &Arc<TolerantRestorer>,
        key: &str,
        json_source: bool,
        text: &str,
    ) -> String {
        if let Some((_, r)) = self.list.iter_mut().find(|(k, _)| k == key) {
            return r.push(text);
        }
        let mut r = StreamRestorer::new(restorer.clone(), json_source);
        let out = r.push(text);
        self.list.push((key.to_owned(), r));
        out
    }

    /// Releases what channel `key` holds back, keeping the channel and where its text stands
    /// (a block of a message ends, the message goes on); returns the tail (possibly empty).
    pub(crate) fn release(&mut self, key: &str) -> String {
        match self.list.iter_mut().find(|(k, _)| k == key) {
            Some((_, r)) => r.finish(),
            None => String::new(),
        }
    }

    /// Ends channel `key`; returns its held-back tail (possibly empty).
    pub(crate) fn finish(&mut self, key: &str) -> String {
        match self.list.iter().position(|(k, _)| k == key) {
            Some(i) => self.list.remove(i).1.finish(),
            None => String::new(),
        }
    }

    /// Ends every channel whose key starts with `prefix`, returning `(key, tail)` for non-empty
    /// tails in creation order.
    pub(crate) fn finish_prefix(&mut self, prefix: &str) -> Vec<(String, String)> {
        let mut tails = Vec::new();
        let mut i = 0;
        while i < self.list.len() {
            if self.list[i].0.starts_with(prefix) {
                let (k, mut r) = self.list.remove(i);
                let tail = r.finish();
                if !tail.is_empty() {
                    tails.push((k, tail));
                }
            } else {
                i += 1;
            }
        }
        tails
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::detect::EntityType;
    use crate::tokens::MappingEntry;

    /// A restorer that knows the one token `token` (its type plays no part in restoring).
    pub(crate) fn restorer_of(token: &str, value: &str) -> Arc<TolerantRestorer> {
        Arc::new(TolerantRestorer::new(vec![MappingEntry {
            token: token.into(),
            entity_type: EntityType::Person,
            value: value.into(),
        }]))
    }

    fn text(s: &str) -> Node {
        Node::Str(s.into())
    }

    /// A string a channel wrote stays its own when its member list grows afterwards (a
    /// reallocation moves every member, as `Node::set` appending a tail may do).
    #[test]
    fn a_channel_written_string_stays_so_when_its_list_grows() {
        let restorer = restorer_of("[[NAME_1]]", "Anna");
        let mut chans = Channels::default();
        let mut first = Node::Obj(vec![("content".into(), text("![x](https://e.example/?d="))]);
        EventRestore::new(&restorer).push_member(
            &mut chans,
            &mut first,
            &[],
            "content",
            "c",
            false,
        );
        // the channel knows this token lies in a link target; the event alone does not
        let mut delta = Node::Obj(vec![("content".into(), text("[[NAME_1]]"))]);
        let mut pass = EventRestore::new(&restorer);
        pass.push_member(&mut chans, &mut delta, &[], "content", "c", false);
        assert_eq!(delta.str_of("content"), Some("[[NAME_1]]"));
        if let Node::Obj(members) = &mut delta {
            let mut grown = Vec::with_capacity(members.len() + 8);
            grown.append(members);
            *members = grown;
        }
        delta.set("refusal", text("[[NAME_1]]"));
        pass.finish(&mut delta);
        assert_eq!(delta.str_of("content"), Some("[[NAME_1]]"));
        assert_eq!(delta.str_of("refusal"), Some("Anna"));
    }

    /// Every member of a tool input is a value, whatever its name; a string that is a URL keeps
    /// its token, and so does a URL in JSON source arguments written with escapes.
    #[test]
    fn tool_inputs_are_values_and_their_urls_stay_as_written() {
        let restorer = restorer_of("[[NAME_1]]", "Anna");
        let mut reply = crate::json::parse(
            r#"{"type":"message","content":[{"type":"tool_use","id":"t","input":{"type":"[[NAME_1]]","data":"[[NAME_1]]","customer_id":"[[NAME_1]]","url":" //h.example/p?d=[[NAME_1]]"}}],"arguments":"{\"u\":\"https:\\/\\/h\\/[[NAME_1]]\",\"q\":\"[[NAME_1]]\"}"}"#,
        )
        .expect("test reply parses");
        restore_tree(&mut reply, &restorer, &[]);
        let input = reply.get("content").and_then(|c| match c {
            Node::Arr(items) => items.first().and_then(|b| b.get("input")),
            _ => None,
        });
        let input = input.expect("the input is kept");
        for k in ["type", "data", "customer_id"] {
            assert_eq!(input.str_of(k), Some("Anna"), "{k}");
        }
        assert_eq!(input.str_of("url"), Some(" //h.example/p?d=[[NAME_1]]"));
        assert_eq!(
            reply.str_of("arguments"),
            Some(r#"{"u":"https:\/\/h\/[[NAME_1]]","q":"Anna"}"#)
        );
    }

    /// The text blocks of one message are read as one text.
    #[test]
    fn a_target_runs_on_into_the_next_text_block() {
        let restorer = restorer_of("[[NAME_1]]", "Anna");
        let mut reply = crate::json::parse(
            r#"{"content":[{"type":"text","text":"![x](https://e.example/?d="},{"type":"text","text":"[[NAME_1]]) [[NAME_1]]"}]}"#,
        )
        .expect("test reply parses");
        restore_tree(&mut reply, &restorer, &[]);
        let out = reply.to_json_string();
        assert!(out.contains(r#""text":"[[NAME_1]]) Anna""#), "{out}");
    }
}
