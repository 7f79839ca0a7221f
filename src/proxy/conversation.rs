//! Conversations kept at the provider (OpenAI Responses `previous_response_id` and
//! `conversation`, the Conversations API): a turn sends only its new input, so the token table
//! of the turns before must outlive their exchanges. Each exchange's whole table is kept sealed
//! in the session store under the id the provider gave it, bound to the caller; a turn that
//! names that id goes on from it — same value, same token; new values, next numbers — and its
//! reply gets the originals of every earlier turn. What is kept, where, how long and for whom:
//! docs/proxy.md, "Conversations kept at the provider".
//!
//! Order of events: `load` before the body is anonymized (a store error refuses the request),
//! `keep` right after, `reply_header` (2xx only) stores under ids known from the request,
//! `reply_id` stores under the id the reply carries as soon as it is read (the first SSE event
//! of a stream), and `finish` waits for those writes before the access line is written.

use pingora::http::RequestHeader;
use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;

use super::format::openai::{self, CONVERSATIONS, RESPONSES};
use super::format::WireFormat;
use crate::app::App;
use crate::detect::{CustomType, EntityType};
use crate::json::{self, Node};
use crate::telemetry::{metrics, ConversationEvent};
use crate::tokens::{MappingEntry, TokenTable};
use crate::vault::StoreError;

/// Rows a kept table may hold; a longer one is not kept (its next turn finds nothing). It also
/// keeps the numbers of a chain that started at 1 below every floor.
pub const MAX_ROWS: usize = 1000;
/// Bytes a kept record may have before sealing.
pub const MAX_RECORD_BYTES: usize = 256 * 1024;
/// Floors of a turn whose earlier tokens are unknown: `FLOOR_MIN` plus a random part below
/// `FLOOR_SPAN`, so that numbers keep the six digits the restore grammar reads and lie above
/// any number a chain started at 1 issues.
const FLOOR_MIN: u64 = 10_000;
const FLOOR_SPAN: u64 = 980_000;
/// Pauses before looking again for a record not found (375 ms in all, paid only by a turn that
/// names an id the proxy holds nothing for).
const RETRY_PAUSES_MS: [u64; 4] = [25, 50, 100, 200];

/// What a kept table is found by: a response id or a conversation id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Response,
    Conversation,
}

impl Kind {
    fn tag(self) -> &'static [u8] {
        match self {
            Kind::Response => b"response",
            Kind::Conversation => b"conversation",
        }
    }
}

/// What the request continues, as the access line's `conversation_state` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Nothing: the first turn of a chain.
    New,
    /// The earlier turns' table was loaded.
    Found,
    /// A reference the proxy holds nothing for (unknown, expired, another caller's, or a caller
    /// without a credential): its tokens pass as written, new values are numbered above a floor.
    Missing,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::New => "new",
            State::Found => "found",
            State::Missing => "missing",
        }
    }
}

/// The store could not be read: the request is refused (retrying is safe), never forwarded
/// with numbers that could collide with the turns before.
#[derive(Debug, thiserror::Error)]
#[error("the conversation's state cannot be read: {0}")]
pub struct Unavailable(#[from] StoreError);

/// The message of the refusal for [`Unavailable`] (names no id, no value).
pub const UNAVAILABLE: &str =
    "The privacy proxy cannot read this conversation's state right now; try again.";

/// The conversation side of one exchange on the Responses or Conversations API.
pub struct Turn {
    /// Who records are bound to: the key's tenant, or a keyed hash of the client's provider
    /// credential. `None`: nothing is loaded or kept.
    caller: Option<String>,
    endpoint: &'static str,
    /// The conversation a Conversations API path names (`None` for the create call).
    path_conversation: Option<String>,
    pub state: Option<State>,
    /// Ids the table is kept under, known from the request.
    known: Vec<(Kind, String)>,
    /// Keep the table under the id of the reply too (a response, or a created conversation).
    reply_kind: Option<Kind>,
    /// The table to keep, serialized (sealed per id when written).
    record: Option<Vec<u8>>,
    writes: Vec<JoinHandle<Result<(), StoreError>>>,
}

impl Turn {
    /// Who this turn's records are bound to ([`caller`]).
    pub(crate) fn caller(&self) -> Option<&str> {
        self.caller.as_deref()
    }

    /// The turn of a request to `path`, when it is one of the Responses or Conversations API.
    pub fn of(
        app: &App,
        format: &dyn WireFormat,
        endpoint: &'static str,
        path: &str,
        tenant: Option<&str>,
        req: &RequestHeader,
    ) -> Option<Turn> {
        if format.name() != "openai" || !matches!(endpoint, RESPONSES | CONVERSATIONS) {
            return None;
        }
        let path_conversation = match endpoint {
            CONVERSATIONS => openai::conversations_path(path)?.map(str::to_owned),
            _ => None,
        };
        Some(Turn {
            caller: caller(app, tenant, req),
            endpoint,
            path_conversation,
            state: None,
            known: Vec::new(),
            reply_kind: None,
            record: None,
            writes: Vec::new(),
        })
    }

    /// The table to anonymize this request's body with: the earlier turns' (found), a fresh one
    /// (nothing referenced), or one numbering above a random floor (missing).
    pub async fn load(&mut self, app: &App, body: &[u8]) -> Result<TokenTable, Unavailable> {
        let reference = self.references(body);
        let found = match (&reference, &self.caller) {
            (Some((kind, id)), Some(caller)) => {
                read_soon(app, *kind, caller, id).await.map_err(|e| {
                    metrics().store_error();
                    metrics().conversation(ConversationEvent::unavailable);
                    Unavailable(e)
                })?
            }
            _ => None,
        };
        let (state, table) = match (reference, found) {
            (None, _) => (State::New, TokenTable::new()),
            (Some(_), Some(table)) => (State::Found, table),
            (Some(_), None) => (State::Missing, TokenTable::starting_above(random_floor())),
        };
        self.state = Some(state);
        metrics().conversation(match state {
            State::New => ConversationEvent::new,
            State::Found => ConversationEvent::found,
            State::Missing => ConversationEvent::missing,
        });
        Ok(table)
    }

    /// [`Turn::load`] for a turn whose earlier table is held already (a WebSocket holds the
    /// tables of the responses it served, `store: false` ones too): no store read.
    pub fn resume(&mut self, body: &[u8], table: TokenTable) -> TokenTable {
        self.references(body);
        self.state = Some(State::Found);
        metrics().conversation(ConversationEvent::found);
        table
    }

    /// What the request refers to, and where its table is to be kept (`known`, `reply_kind`).
    fn references(&mut self, body: &[u8]) -> Option<(Kind, String)> {
        if self.endpoint == CONVERSATIONS {
            match &self.path_conversation {
                Some(id) => self.known.push((Kind::Conversation, id.clone())),
                None => self.reply_kind = Some(Kind::Conversation),
            }
            return self
                .path_conversation
                .clone()
                .map(|id| (Kind::Conversation, id));
        }
        // most turns name nothing: their body is not parsed a second time (a member name
        // written with `\u` escapes is found by the parse)
        let names = |word: &[u8]| memchr::memmem::find(body, word).is_some();
        let words: [&[u8]; 4] = [b"previous_response_id", b"conversation", b"store", b"\\u"];
        if !words.iter().any(|w| names(w)) {
            self.reply_kind = Some(Kind::Response);
            return None;
        }
        let root = std::str::from_utf8(body)
            .ok()
            .and_then(|t| json::parse(t).ok());
        let root = root.as_ref();
        let previous = root.and_then(|r| r.str_of("previous_response_id"));
        let conversation = root.and_then(|r| match r.get("conversation") {
            Some(Node::Str(id)) => Some(id.as_str()),
            Some(obj) => obj.str_of("id"),
            None => None,
        });
        // `store: false`: the provider keeps nothing this turn could be continued from
        let stored = !matches!(root.and_then(|r| r.get("store")), Some(Node::Bool(false)));
        if stored {
            self.reply_kind = Some(Kind::Response);
        }
        if let Some(id) = conversation {
            self.known.push((Kind::Conversation, id.to_owned()));
        }
        match (previous, conversation) {
            (Some(id), _) => Some((Kind::Response, id.to_owned())),
            (None, Some(id)) => Some((Kind::Conversation, id.to_owned())),
            (None, None) => None,
        }
    }

    /// Takes this exchange's table (earlier turns and this one) for keeping. A table over the
    /// bounds is not kept.
    pub fn keep(&mut self, table: &TokenTable) {
        if self.caller.is_none() || (self.known.is_empty() && self.reply_kind.is_none()) {
            return;
        }
        let record = Record::of(table);
        let bytes = (table.entries().len() <= MAX_ROWS)
            .then(|| serde_json::to_vec(&record).ok())
            .flatten()
            .filter(|b| b.len() <= MAX_RECORD_BYTES);
        if bytes.is_none() {
            metrics().conversation(ConversationEvent::too_large);
            tracing::warn!(
                rows = table.entries().len(),
                "a conversation's token table is over its bound and is not kept: its next turn numbers anew"
            );
        }
        self.record = bytes;
    }

    /// Whether the reply's id is wanted ([`reply_id`]).
    pub fn wants_reply_id(&self) -> bool {
        self.reply_kind.is_some() && self.record.is_some()
    }

    /// The upstream's reply header: a success keeps the table under the ids the request named
    /// (written before the client sees the reply); anything else keeps nothing.
    pub async fn reply_header(&mut self, app: &App, status: u16) {
        if !(200..300).contains(&status) {
            self.record = None;
            return;
        }
        for (kind, id) in std::mem::take(&mut self.known) {
            if let Some(write) = self.write(app, kind, &id) {
                let outcome = write.await.unwrap_or(Ok(()));
                count_write(&outcome);
            }
        }
    }

    /// The reply's own id, read from its first event or its body: the table is written under
    /// it at once (awaited in [`Turn::finish`]).
    pub fn reply_id(&mut self, app: &App, id: &str) {
        if let Some(kind) = self.reply_kind.take() {
            if let Some(write) = self.write(app, kind, id) {
                self.writes.push(write);
            }
        }
    }

    /// Waits for the writes still running (the store's own timeouts bound them).
    pub async fn finish(&mut self) {
        for write in std::mem::take(&mut self.writes) {
            let outcome = write.await.unwrap_or(Ok(()));
            count_write(&outcome);
        }
    }

    fn write(&self, app: &App, kind: Kind, id: &str) -> Option<JoinHandle<Result<(), StoreError>>> {
        let (caller, record) = (self.caller.as_deref()?, self.record.as_deref()?);
        let name = record_name(app, kind, caller, id);
        let sealed = app.sealer.seal(&name, caller, record);
        let (store, ttl) = (app.store.clone(), app.session_ttl());
        Some(tokio::spawn(
            async move { store.put(&name, sealed, ttl).await },
        ))
    }
}

/// A read of what the provider keeps for the caller (`GET …/responses/{id}`, its
/// `input_items`, `GET …/conversations/{id}/items`): the endpoint its reply is framed as and
/// the table to restore it with. Without a table (none kept, or the store unreadable) the reply
/// passes as written: placeholders, never a value.
pub async fn stored(
    app: &App,
    format: &dyn WireFormat,
    path: &str,
    tenant: Option<&str>,
    req: &RequestHeader,
) -> Option<(&'static str, TokenTable)> {
    if format.name() != "openai" || req.method != http::Method::GET {
        return None;
    }
    let (kind, id, endpoint) = match (
        openai::stored_response_path(path),
        openai::conversations_path(path),
    ) {
        (Some(id), _) => (Kind::Response, id, RESPONSES),
        (None, Some(Some(id))) => (Kind::Conversation, id, CONVERSATIONS),
        _ => return None,
    };
    let caller = caller(app, tenant, req)?;
    match read(app, kind, &caller, id).await {
        Ok(table) => table.map(|t| (endpoint, t)),
        Err(e) => {
            metrics().store_error();
            tracing::warn!(error = %e, "a stored reply passes unrestored: conversation state unavailable");
            None
        }
    }
}

/// `DELETE …/responses/{id}` or `DELETE …/conversations/{id}`: the caller's table kept under
/// that id goes too (what the provider is asked to forget, the proxy forgets). A store error
/// is logged; the record then expires with its TTL.
pub async fn forget(
    app: &App,
    format: &dyn WireFormat,
    path: &str,
    tenant: Option<&str>,
    req: &RequestHeader,
) {
    if format.name() != "openai" || req.method != http::Method::DELETE {
        return;
    }
    let mut last_two = path.rsplit('/').filter(|s| !s.is_empty());
    let (id, kind) = match (last_two.next(), last_two.next()) {
        (Some(id), Some("responses")) => (id, Kind::Response),
        (Some(id), Some("conversations")) => (id, Kind::Conversation),
        _ => return,
    };
    let Some(caller) = caller(app, tenant, req) else {
        return;
    };
    if let Err(e) = app.store.delete(&record_name(app, kind, &caller, id)).await {
        metrics().store_error();
        tracing::warn!(error = %e, "a conversation's token table could not be deleted: it expires with its TTL");
    }
}

fn count_write(outcome: &Result<(), StoreError>) {
    match outcome {
        Ok(()) => metrics().conversation(ConversationEvent::saved),
        Err(e) => {
            metrics().store_error();
            metrics().conversation(ConversationEvent::save_failed);
            tracing::warn!(error = %e, "a conversation's token table could not be kept: its next turn numbers anew");
        }
    }
}

/// The id a reply of the Responses or Conversations API carries: a response or conversation
/// object's own `id`, or in a stream the `response.id` of its events.
pub fn reply_id(node: &Node) -> Option<&str> {
    match node.str_of("object") {
        Some("response" | "conversation") => node.str_of("id"),
        _ => node.get("response")?.str_of("id"),
    }
}

/// Who records are bound to. On a keyed route the tenant; otherwise the client's provider
/// credential, of which only a keyed hash is kept (the same on every replica sealing with the
/// same key). A client without either keeps nothing.
pub(crate) fn caller(app: &App, tenant: Option<&str>, req: &RequestHeader) -> Option<String> {
    if let Some(tenant) = tenant {
        return Some(format!("tenant:{tenant}"));
    }
    let credential = ["authorization", "api-key", "x-api-key"]
        .iter()
        .find_map(|h| req.headers.get(*h))
        .map(|v| v.as_bytes())
        .filter(|v| !v.is_empty())?;
    let hash = app.sealer.keyed_hash(&[b"conversation caller", credential]);
    Some(format!("credential:{}", hex(&hash)))
}

/// The store's name of a record: a keyed hash of what it is kept under and for whom, so that
/// neither the provider's id nor the caller can be read from it, and two callers naming the
/// same id never share a record.
fn record_name(app: &App, kind: Kind, caller: &str, id: &str) -> String {
    let hash = app.sealer.keyed_hash(&[
        b"conversation record",
        kind.tag(),
        caller.as_bytes(),
        id.as_bytes(),
    ]);
    format!("conv-{}", hex(&hash))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

fn random_floor() -> u64 {
    FLOOR_MIN + rand::random::<u64>() % FLOOR_SPAN
}

/// [`read`], looking again a few times while nothing is found: the turn before writes its
/// record as its reply goes out, and a client that goes on at once (on another replica, or
/// another connection) can ask before that write has landed.
async fn read_soon(
    app: &App,
    kind: Kind,
    caller: &str,
    id: &str,
) -> Result<Option<TokenTable>, StoreError> {
    for pause in RETRY_PAUSES_MS {
        if let Some(table) = read(app, kind, caller, id).await? {
            return Ok(Some(table));
        }
        tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
    }
    read(app, kind, caller, id).await
}

/// The caller's table kept under `id`, if any: a record that does not open for this caller
/// (or cannot be read) is as good as none.
async fn read(
    app: &App,
    kind: Kind,
    caller: &str,
    id: &str,
) -> Result<Option<TokenTable>, StoreError> {
    let name = record_name(app, kind, caller, id);
    let Some(sealed) = app.store.get(&name).await? else {
        return Ok(None);
    };
    let table = app
        .sealer
        .open(&name, caller, &sealed)
        .ok()
        .and_then(|plain| serde_json::from_slice::<Record>(&plain).ok())
        .map(Record::into_table);
    Ok(table)
}

/// A kept table, as sealed: its rows, the literal tokens whose numbers were skipped, its floor.
#[derive(Serialize, Deserialize)]
pub(crate) struct Record {
    floor: u64,
    rows: Vec<Row>,
    taken: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct Row {
    token: String,
    /// The type's name and prefix (a policy's own types are known by both).
    entity_type: String,
    prefix: String,
    value: String,
}

impl Record {
    pub(crate) fn of(table: &TokenTable) -> Record {
        Record {
            floor: table.floor(),
            rows: table
                .entries()
                .iter()
                .map(|m| Row {
                    token: m.token.clone(),
                    entity_type: m.entity_type.name().to_owned(),
                    prefix: m.entity_type.token_prefix().to_owned(),
                    value: m.value.clone(),
                })
                .collect(),
            taken: table.taken().map(str::to_owned).collect(),
        }
    }

    /// The rows, each with its type, in order of issue.
    pub(crate) fn into_rows(self) -> (Vec<MappingEntry>, Vec<String>, u64) {
        let rows = self
            .rows
            .into_iter()
            .map(|r| MappingEntry {
                entity_type: EntityType::from_name(&r.entity_type).unwrap_or_else(|| {
                    // sealed by this deployment: the type came from its own policies
                    EntityType::Custom(CustomType::intern(&r.entity_type, &r.prefix))
                }),
                token: r.token,
                value: r.value,
            })
            .collect();
        (rows, self.taken, self.floor)
    }

    fn into_table(self) -> TokenTable {
        let (rows, taken, floor) = self.into_rows();
        TokenTable::resume(rows, taken, floor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_its_table() {
        let custom = EntityType::Custom(CustomType::intern("PROJEKT", "PROJ"));
        let mut t = TokenTable::starting_above(12_000);
        t.reserve_literal_tokens("[[NAME_12002]]");
        t.token_for(EntityType::Person, "Anna Schmidt");
        t.token_for(custom, "Apollo");
        let bytes = serde_json::to_vec(&Record::of(&t)).unwrap();
        let record: Record = serde_json::from_slice(&bytes).unwrap();
        let mut back = record.into_table();
        assert_eq!(back.entries(), t.entries());
        assert_eq!(back.token_for(custom, "Apollo"), "[[PROJ_12001]]");
        assert_eq!(
            back.token_for(EntityType::Person, "Jonas"),
            "[[NAME_12003]]"
        );
    }

    fn turn(endpoint: &'static str) -> Turn {
        Turn {
            caller: None,
            endpoint,
            path_conversation: None,
            state: None,
            known: Vec::new(),
            reply_kind: None,
            record: None,
            writes: Vec::new(),
        }
    }

    #[test]
    fn references_are_read_however_the_body_writes_them() {
        let mut t = turn(RESPONSES);
        assert_eq!(t.references(br#"{"input":"Hallo"}"#), None);
        assert_eq!(t.reply_kind, Some(Kind::Response));
        let mut t = turn(RESPONSES);
        let escaped = br#"{"previous\u005fresponse_id":"resp_9","store":false}"#;
        assert_eq!(
            t.references(escaped),
            Some((Kind::Response, "resp_9".to_owned()))
        );
        assert_eq!(t.reply_kind, None, "store: false keeps nothing");
        let mut t = turn(RESPONSES);
        let conv = br#"{"conversation":{"id":"conv_2"},"input":"x"}"#;
        assert_eq!(
            t.references(conv),
            Some((Kind::Conversation, "conv_2".to_owned()))
        );
        assert_eq!(t.known, [(Kind::Conversation, "conv_2".to_owned())]);
        let mut t = turn(CONVERSATIONS);
        assert_eq!(t.references(b"{}"), None);
        assert_eq!(t.reply_kind, Some(Kind::Conversation), "a created one");
    }

    #[test]
    fn reply_ids_come_from_objects_and_stream_events() {
        let parse = |s: &str| json::parse(s).unwrap();
        let object = parse(r#"{"id":"resp_1","object":"response","output":[]}"#);
        assert_eq!(reply_id(&object), Some("resp_1"));
        let created = parse(r#"{"type":"response.created","response":{"id":"resp_2"}}"#);
        assert_eq!(reply_id(&created), Some("resp_2"));
        let conv = parse(r#"{"id":"conv_1","object":"conversation"}"#);
        assert_eq!(reply_id(&conv), Some("conv_1"));
        let delta = parse(r#"{"type":"response.output_text.delta","item_id":"msg_1"}"#);
        assert_eq!(reply_id(&delta), None);
        let list = parse(r#"{"object":"list","data":[{"id":"msg_1"}]}"#);
        assert_eq!(reply_id(&list), None);
    }

    #[test]
    fn floors_keep_six_digits_and_clear_every_started_chain() {
        for _ in 0..1000 {
            let f = random_floor();
            assert!(f >= FLOOR_MIN && f + MAX_ROWS as u64 * 2 < 1_000_000, "{f}");
        }
        assert!((MAX_ROWS as u64) < FLOOR_MIN);
    }
}
