//! Signed Anthropic thinking: the provider signs each thinking block, and a block sent back must
//! be byte-identical to what it signed. The client reads the block restored, so the proxy keeps
//! the text as the provider sent it (with its tokens) and the exchange's token table, sealed in
//! the session store per caller under a keyed hash of the signature. A block sent back whose
//! signature is known goes upstream as signed, and the exchange's tokens are seeded from the
//! kept tables (the same value gets the token the thinking uses). A signature not known here
//! (another replica without the shared store, expired) falls back to anonymizing the block like
//! any text. What is kept, where and for whom: docs/proxy.md, "Signed thinking".
//!
//! Order of events: `load` before the body is anonymized, `keep` right after, `block` for every
//! signed block of the reply as it ends, `finish` waits for those writes before the access line.

use std::collections::HashMap;
use std::sync::Arc;

use pingora::http::RequestHeader;
use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;

use super::conversation::{self, hex, Record, MAX_ROWS};
use super::format::anthropic::MESSAGES;
use super::format::WireFormat;
use crate::app::App;
use crate::detect::EntityType;
use crate::json::{self, Node};
use crate::telemetry::{metrics, ThinkingEvent};
use crate::tokens::{MappingEntry, TokenTable};
use crate::vault::StoreError;

pub(crate) use watch::Watch;
use watch::MAX_TEXT_BYTES;

mod watch;

/// Signed blocks of one request looked up in the store; the ones after are anonymized again.
const MAX_BLOCKS: usize = 64;

/// The exact texts the provider signed, by signature, of the blocks a request sends back.
#[derive(Default)]
pub(crate) struct SignedTexts {
    by_signature: HashMap<String, String>,
}

/// Blocks taken out of a request body while it is anonymized: where each was, and the block
/// with its signed text in place.
pub(crate) struct Held(Vec<(usize, usize, Node)>);

impl SignedTexts {
    /// Takes every thinking block whose signature is known out of `messages[].content[]` (a
    /// `null` stands in its place, which the walk passes over), its text already replaced by
    /// the signed one. Whether any text changed is told by [`Held::put_back`].
    pub(crate) fn take_out(&self, root: &mut Node) -> Held {
        let mut held = Vec::new();
        let Some(Node::Arr(messages)) = root.get_mut("messages") else {
            return Held(held);
        };
        for (i, message) in messages.iter_mut().enumerate() {
            let Some(Node::Arr(blocks)) = message.get_mut("content") else {
                continue;
            };
            for (j, block) in blocks.iter_mut().enumerate() {
                let Some(text) = self.text_of(block) else {
                    continue;
                };
                let text = text.to_owned();
                let mut taken = std::mem::replace(block, Node::Null);
                let changed = taken.str_of("thinking") != Some(text.as_str());
                taken.set("thinking", Node::Str(text));
                held.push((i, j, mark(taken, changed)));
            }
        }
        Held(held)
    }

    fn text_of(&self, block: &Node) -> Option<&str> {
        if block.str_of("type") != Some("thinking") {
            return None;
        }
        let signature = block.str_of("signature")?;
        self.by_signature.get(signature).map(String::as_str)
    }
}

/// A held block and whether its text changed, told apart by a marker member removed on
/// putting it back (a block never has a member of that name).
const CHANGED: &str = "\u{0}changed";

fn mark(mut block: Node, changed: bool) -> Node {
    if changed {
        block.set(CHANGED, Node::Bool(true));
    }
    block
}

impl Held {
    /// Puts the blocks back where they were; true when any text now differs from the
    /// client's (the body must be written out even if nothing else was replaced).
    pub(crate) fn put_back(self, root: &mut Node) -> bool {
        let mut changed = false;
        let Some(Node::Arr(messages)) = root.get_mut("messages") else {
            return false;
        };
        for (i, j, mut block) in self.0 {
            if let Node::Obj(members) = &mut block {
                let before = members.len();
                members.retain(|(k, _)| k != CHANGED);
                changed |= members.len() != before;
            }
            let slot = messages
                .get_mut(i)
                .and_then(|m| m.get_mut("content"))
                .and_then(|c| match c {
                    Node::Arr(blocks) => blocks.get_mut(j),
                    _ => None,
                });
            if let Some(slot) = slot {
                *slot = block;
            }
        }
        changed
    }
}

/// What a request's anonymization starts from: the tokens of the kept blocks it sends back,
/// and their signed texts.
pub(crate) struct Seed {
    pub table: TokenTable,
    pub signed: Option<Arc<SignedTexts>>,
}

/// The thinking side of one exchange on Anthropic's Messages API.
pub(crate) struct Thinking {
    /// Who records are bound to ([`conversation::caller`]).
    caller: String,
    /// The request asks for thinking (or sends some back): only then is the reply watched.
    wanted: bool,
    /// The exchange's table, kept with every signed block of the reply.
    record: Option<Record>,
    writes: Vec<JoinHandle<Result<(), StoreError>>>,
}

/// A kept block, as sealed: the text the provider signed and the table its tokens are from.
#[derive(Serialize, Deserialize)]
struct Kept<S, T> {
    text: S,
    table: T,
}

impl Thinking {
    /// The thinking side of a request to `endpoint`, when it is Anthropic's Messages API and
    /// the caller is known (a client without a credential keeps nothing).
    pub(crate) fn of(
        app: &App,
        format: &dyn WireFormat,
        endpoint: &'static str,
        tenant: Option<&str>,
        req: &RequestHeader,
    ) -> Option<Thinking> {
        if format.name() != "anthropic" || endpoint != MESSAGES {
            return None;
        }
        Some(Thinking {
            caller: conversation::caller(app, tenant, req)?,
            wanted: false,
            record: None,
            writes: Vec::new(),
        })
    }

    /// The table and signed texts of the kept blocks `body` sends back. Most requests hold no
    /// signature: their body is not parsed a second time. A block whose record is missing,
    /// unreadable or contradicts another's is anonymized again (counted, logged).
    pub(crate) async fn load(&mut self, app: &App, body: &[u8]) -> Seed {
        let mut seed = Seed {
            table: TokenTable::new(),
            signed: None,
        };
        // a request without thinking is neither parsed again nor its reply watched
        self.wanted = memchr::memmem::find(body, b"thinking").is_some();
        if !self.wanted || memchr::memmem::find(body, b"signature").is_none() {
            return seed;
        }
        let signatures = signatures(body);
        if signatures.is_empty() {
            return seed;
        }
        let reads = signatures
            .iter()
            .map(|s| read(app, &self.caller, s.as_str()));
        let kept = futures_util::future::join_all(reads).await;
        let mut texts = SignedTexts::default();
        let mut merged = Merged::default();
        for (signature, kept) in signatures.into_iter().zip(kept) {
            let kept = match kept {
                Ok(Some(kept)) => kept,
                Ok(None) => {
                    unknown("a thinking block's signature is not known here");
                    continue;
                }
                Err(e) => {
                    metrics().store_error();
                    tracing::warn!(error = %e, "a thinking block's record cannot be read");
                    unknown("a thinking block's record cannot be read");
                    continue;
                }
            };
            let (rows, taken, floor) = kept.table.into_rows();
            if !merged.add(rows, taken, floor) {
                unknown("a thinking block's tokens contradict another block's");
                continue;
            }
            metrics().thinking(ThinkingEvent::kept);
            merged.reserve_literals(&kept.text);
            texts.by_signature.insert(signature, kept.text);
        }
        seed.table = merged.into_table();
        if !texts.by_signature.is_empty() {
            seed.signed = Some(Arc::new(texts));
        }
        seed
    }

    /// Whether the reply's signed blocks are to be read ([`Watch`]).
    pub(crate) fn watches(&self) -> bool {
        self.wanted
    }

    /// Takes this exchange's table for keeping with the reply's signed blocks.
    pub(crate) fn keep(&mut self, table: &TokenTable) {
        self.record = (self.wanted && table.entries().len() <= MAX_ROWS).then(|| Record::of(table));
    }

    /// A signed block of the reply, as the provider sent it: kept at once (awaited in
    /// [`Thinking::finish`]).
    pub(crate) fn block(&mut self, app: &App, signature: &str, text: &str) {
        let Some(record) = &self.record else {
            return;
        };
        let kept = Kept {
            text,
            table: record,
        };
        let bytes = serde_json::to_vec(&kept)
            .ok()
            .filter(|_| text.len() <= MAX_TEXT_BYTES);
        let Some(bytes) = bytes else {
            metrics().thinking(ThinkingEvent::too_large);
            tracing::warn!(
                bytes = text.len(),
                "a thinking block is over its bound and is not kept: sent back, it is anonymized again"
            );
            return;
        };
        let name = record_name(app, &self.caller, signature);
        let sealed = app.sealer.seal(&name, &self.caller, &bytes);
        let (store, ttl) = (app.store.clone(), app.session_ttl());
        self.writes.push(tokio::spawn(
            async move { store.put(&name, sealed, ttl).await },
        ));
    }

    /// Waits for the writes still running (the store's own timeouts bound them).
    pub(crate) async fn finish(&mut self) {
        for write in std::mem::take(&mut self.writes) {
            match write.await.unwrap_or(Ok(())) {
                Ok(()) => metrics().thinking(ThinkingEvent::saved),
                Err(e) => {
                    metrics().store_error();
                    metrics().thinking(ThinkingEvent::save_failed);
                    tracing::warn!(error = %e, "a thinking block could not be kept: sent back, it is anonymized again");
                }
            }
        }
    }
}

fn unknown(why: &'static str) {
    metrics().thinking(ThinkingEvent::unknown);
    tracing::info!(
        reason = why,
        "a signed thinking block is anonymized again: the provider may reject its signature"
    );
}

/// The signatures of the thinking blocks in `messages[].content[]`, first seen first, at most
/// [`MAX_BLOCKS`].
fn signatures(body: &[u8]) -> Vec<String> {
    let root = std::str::from_utf8(body)
        .ok()
        .and_then(|t| json::parse(t).ok());
    let Some(Node::Arr(messages)) = root.as_ref().and_then(|r| r.get("messages")) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for message in messages {
        let Some(Node::Arr(blocks)) = message.get("content") else {
            continue;
        };
        for block in blocks {
            if block.str_of("type") != Some("thinking") {
                continue;
            }
            match block.str_of("signature") {
                Some(s) if !s.is_empty() && !out.iter().any(|o| o == s) => out.push(s.to_owned()),
                _ => {}
            }
        }
    }
    out.truncate(MAX_BLOCKS);
    out
}

/// The rows of several kept tables as one: a block whose rows give a token another value, or
/// a value another token, than the blocks before is left out.
#[derive(Default)]
struct Merged {
    rows: Vec<MappingEntry>,
    by_token: HashMap<String, usize>,
    by_value: HashMap<(EntityType, String), usize>,
    taken: Vec<String>,
    floor: u64,
    literals: Vec<String>,
}

impl Merged {
    fn add(&mut self, rows: Vec<MappingEntry>, taken: Vec<String>, floor: u64) -> bool {
        let clash = rows.iter().any(|r| {
            let by_token = self.by_token.get(&r.token).map(|&i| &self.rows[i]);
            let by_value = self
                .by_value
                .get(&(r.entity_type, r.value.clone()))
                .map(|&i| &self.rows[i]);
            by_token.is_some_and(|o| o.value != r.value || o.entity_type != r.entity_type)
                || by_value.is_some_and(|o| o.token != r.token)
        });
        if clash {
            return false;
        }
        for row in rows {
            if !self.by_token.contains_key(&row.token) {
                let at = self.rows.len();
                self.by_token.insert(row.token.clone(), at);
                self.by_value
                    .insert((row.entity_type, row.value.clone()), at);
                self.rows.push(row);
            }
        }
        self.taken.extend(taken);
        self.floor = self.floor.max(floor);
        true
    }

    /// The signed text's literal tokens are never issued to a new value.
    fn reserve_literals(&mut self, text: &str) {
        self.literals.push(text.to_owned());
    }

    fn into_table(self) -> TokenTable {
        let mut table = TokenTable::resume(self.rows, self.taken, self.floor);
        for text in &self.literals {
            table.reserve_literal_tokens(text);
        }
        table
    }
}

/// The store's name of a kept block: a keyed hash of the caller and the signature, so that
/// neither can be read from it and two callers never share a record.
fn record_name(app: &App, caller: &str, signature: &str) -> String {
    let hash =
        app.sealer
            .keyed_hash(&[b"thinking record", caller.as_bytes(), signature.as_bytes()]);
    format!("think-{}", hex(&hash))
}

/// The caller's kept block under `signature`, if any: a record that does not open for this
/// caller (or cannot be read) is as good as none.
async fn read(
    app: &App,
    caller: &str,
    signature: &str,
) -> Result<Option<Kept<String, Record>>, StoreError> {
    let name = record_name(app, caller, signature);
    let Some(sealed) = app.store.get(&name).await? else {
        return Ok(None);
    };
    Ok(app
        .sealer
        .open(&name, caller, &sealed)
        .ok()
        .and_then(|plain| serde_json::from_slice(&plain).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(token: &str, value: &str) -> MappingEntry {
        MappingEntry {
            token: token.to_owned(),
            entity_type: EntityType::Person,
            value: value.to_owned(),
        }
    }

    #[test]
    fn signed_blocks_are_held_out_of_the_walk_and_put_back_signed() {
        let body = r#"{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"Anna denkt","signature":"s1"},{"type":"thinking","thinking":"x","signature":"s2"},{"type":"text","text":"t"}]}]}"#;
        let mut root = json::parse(body).unwrap();
        let mut texts = SignedTexts::default();
        texts
            .by_signature
            .insert("s1".into(), "[[NAME_1]] denkt".into());
        let held = texts.take_out(&mut root);
        let out = root.to_json_string();
        assert!(!out.contains("denkt") && out.contains(r#""x""#), "{out}");
        assert!(held.put_back(&mut root), "a text changed");
        let v: serde_json::Value = serde_json::from_str(&root.to_json_string()).unwrap();
        let block = &v["messages"][0]["content"][0];
        assert_eq!(block["thinking"], "[[NAME_1]] denkt");
        assert_eq!(
            block.as_object().unwrap().len(),
            3,
            "no marker left: {block}"
        );
        let same = texts.take_out(&mut root);
        assert!(!same.put_back(&mut root), "already as signed");
    }

    #[test]
    fn blocks_whose_tokens_contradict_are_left_out() {
        let mut m = Merged::default();
        assert!(m.add(vec![row("[[NAME_1]]", "Anna")], Vec::new(), 0));
        assert!(m.add(
            vec![row("[[NAME_1]]", "Anna"), row("[[NAME_2]]", "Jonas")],
            Vec::new(),
            0
        ));
        assert!(
            !m.add(vec![row("[[NAME_1]]", "Berta")], Vec::new(), 0),
            "token taken"
        );
        assert!(
            !m.add(vec![row("[[NAME_3]]", "Anna")], Vec::new(), 0),
            "value tokened"
        );
        m.reserve_literals("NAME_9 und [[NAME_3]]");
        let mut table = m.into_table();
        assert_eq!(table.token_for(EntityType::Person, "Anna"), "[[NAME_1]]");
        assert_eq!(table.token_for(EntityType::Person, "Carla"), "[[NAME_4]]");
    }

    #[test]
    fn signatures_are_read_from_thinking_blocks_only() {
        let body = br#"{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"s1"},{"type":"redacted_thinking","data":"d"},{"type":"text","text":"signature"},{"type":"thinking","thinking":"b","signature":"s1"},{"type":"thinking","thinking":"c","signature":""}]}]}"#;
        assert_eq!(signatures(body), ["s1"]);
        assert!(signatures(b"not json").is_empty());
    }
}
