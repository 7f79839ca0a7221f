//! Reply side: restoring tokens in a whole reply document, and the per-channel restorers that
//! stream handlers share.

use std::sync::Arc;

use crate::json::Node;
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

/// Restores every token of `ex` in a whole reply document (or event), except in structural
/// values and in the string nodes listed in `done` (already handled by a stream channel).
pub fn restore_tree(node: &mut Node, ex: &TolerantRestorer, done: &[*const String]) {
    restore_walk(node, ex, false, done);
}

fn restore_walk(node: &mut Node, ex: &TolerantRestorer, json_source: bool, done: &[*const String]) {
    match node {
        Node::Str(s) => {
            if !done.contains(&(s as *const String)) {
                if let Some(r) = ex.restored(s, json_source) {
                    *s = r;
                }
            }
        }
        Node::Arr(items) => {
            for item in items {
                restore_walk(item, ex, json_source, done);
            }
        }
        Node::Obj(members) => {
            for (key, value) in members.iter_mut() {
                let k = key.as_str();
                // `data` is opaque as a string (media, redacted thinking), a list's items as an array
                let items = k == "data" && matches!(value, Node::Arr(_));
                if (REPLY_SKIP.contains(&k) && !items) || k.ends_with("_id") {
                    continue;
                }
                let js = matches!(value, Node::Str(_)) && (k == "arguments" || k == "partial_json");
                // a token used as a key (`{"[[EMAIL_1]]": "top"}` in tool input, JSON content)
                if let Some(restored_key) = ex.restored(k, false) {
                    *key = restored_key;
                }
                restore_walk(value, ex, js, done);
            }
        }
        Node::Null | Node::Bool(_) | Node::Num(_) => {}
    }
}

/// Per-channel restorers keyed by a channel id, in creation order.
#[derive(Default)]
pub struct Channels {
    list: Vec<(String, StreamRestorer)>,
}

impl Channels {
    /// Restores `text` through channel `key` (created on first use).
    pub fn push(
        &mut self,
        ex: &Arc<TolerantRestorer>,
        key: &str,
        json_source: bool,
        text: &str,
    ) -> String {
        if let Some((_, r)) = self.list.iter_mut().find(|(k, _)| k == key) {
            return r.push(text);
        }
        let mut r = StreamRestorer::new(ex.clone(), json_source);
        let out = r.push(text);
        self.list.push((key.to_owned(), r));
        out
    }

    /// Ends channel `key`; returns its held-back tail (possibly empty).
    pub fn finish(&mut self, key: &str) -> String {
        match self.list.iter().position(|(k, _)| k == key) {
            Some(i) => self.list.remove(i).1.finish(),
            None => String::new(),
        }
    }

    /// Ends every channel whose key starts with `prefix`, returning `(key, tail)` for non-empty
    /// tails in creation order.
    pub fn finish_prefix(&mut self, prefix: &str) -> Vec<(String, String)> {
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

/// Restores the string member `key` of `obj` through channel `chan`; records the node as done.
pub fn push_member(
    obj: &mut Node,
    key: &str,
    chans: &mut Channels,
    ex: &Arc<TolerantRestorer>,
    chan: &str,
    json_source: bool,
    done: &mut Vec<*const String>,
) {
    if let Some(Node::Str(s)) = obj.get_mut(key) {
        let out = chans.push(ex, chan, json_source, s);
        *s = out;
        done.push(s as *const String);
    }
}
