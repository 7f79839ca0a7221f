//! Wire formats: one module per provider API, each behind [`WireFormat`]. A format knows its
//! endpoints, its error shape and how to rewrite its streamed replies; the request walk and the
//! whole-JSON reply walk are shared here because the policy is the same everywhere: every string
//! that can carry user or developer text is anonymized, only structural values are left alone.
//!
//! Adding a format: one file implementing [`WireFormat`] plus one line in [`for_name`].

pub mod anthropic;
pub mod ollama;
pub mod openai;

use std::sync::Arc;

use super::anon::TextVisitor;
use super::json::Node;
use crate::config::WireFormatName;
use crate::tokens::{Exchange, StreamRestorer};

/// The format of a route.
pub fn for_name(name: WireFormatName) -> &'static dyn WireFormat {
    match name {
        WireFormatName::Openai => &openai::OpenAi,
        WireFormatName::Anthropic => &anthropic::Anthropic,
        WireFormatName::Ollama => &ollama::Ollama,
    }
}

/// Endpoint name used for `unknown = "generic"` routes.
pub const GENERIC: &str = "generic";

pub trait WireFormat: Send + Sync {
    fn name(&self) -> &'static str;

    /// The endpoint a POST to `path` (without query) addresses, or `None` when the format does
    /// not know it.
    fn endpoint(&self, path: &str) -> Option<&'static str>;

    /// Fail-closed checks beyond parsing (e.g. token-id prompts that cannot be inspected).
    fn check_request(&self, _endpoint: &str, _root: &Node) -> Result<(), String> {
        Ok(())
    }

    /// Whether a `name` member of an object that sits under `parent` is user text that must
    /// keep the identifier alphabet (OpenAI `messages[].name`).
    fn name_is_identifier_text(&self, _parent: Option<&str>) -> bool {
        false
    }

    /// Whether an object of type `ty` under member `parent` is a kind the format knows. An
    /// unknown content block is walked as free text: every string in it is anonymized.
    fn known_block(&self, _parent: Option<&str>, _ty: &str) -> bool {
        true
    }

    /// A complete error body in the provider's shape (messages never contain request content).
    fn error_body(&self, status: u16, message: &str) -> Node;

    /// An error to write into a stream that has already started, in the stream's own framing
    /// (SSE event or NDJSON line), or `None`.
    fn stream_error(&self, message: &str) -> Option<Node>;

    /// Whether streamed SSE events carry `event:` lines named after their `type`.
    fn named_events(&self, _endpoint: &str) -> bool {
        false
    }

    /// A fresh per-exchange stream handler for `endpoint`.
    fn stream_handler(&self, endpoint: &str) -> Box<dyn StreamHandler>;
}

/// One reply stream's state: per-channel restorers.
pub trait StreamHandler: Send + Sync {
    /// Rewrites one event (SSE data / NDJSON line); pushes it, preceded by any synthetic events
    /// that release held-back text, into `out`.
    fn on_event(&mut self, ex: &Arc<Exchange>, ev: Node, out: &mut Vec<Node>);
    /// End of stream (or `[DONE]`, or before an error): release everything held back.
    fn on_end(&mut self, ex: &Arc<Exchange>, out: &mut Vec<Node>);

    /// An in-stream `{"error": …}` event ends every channel: held-back text is released first,
    /// then the error passes on with its text restored. Gives the event back when it is no error.
    fn pass_error(
        &mut self,
        ex: &Arc<Exchange>,
        mut ev: Node,
        out: &mut Vec<Node>,
    ) -> Option<Node> {
        if ev.get("error").is_none() {
            return Some(ev);
        }
        self.on_end(ex, out);
        restore_tree(&mut ev, ex, &[]);
        out.push(ev);
        None
    }
}

/// How a request string is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    Plain,
    /// A string whose content is JSON source (tool-call arguments).
    JsonSource,
    /// A participant name (`messages[].name`): it must keep the identifier alphabet
    /// `[A-Za-z0-9_-]`, and it is replaced whole when it holds any part of a detected name.
    Identifier,
    /// Base64 of UTF-8 text (an Anthropic `text/plain` document source).
    Base64,
    /// A `data:` URL whose payload is base64 of UTF-8 text (Responses `input_file.file_data`).
    DataUrl,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Skip,
    Structural,
    Free,
    Schema,
    Tools,
    JsonText,
    Identifier,
    Base64,
    DataUrl,
    /// The value cannot be inspected: the whole request is refused for this reason.
    Refuse(&'static str),
}

/// The allow-list: keys whose values the provider defines as structure, never anonymized (their
/// subtree neither). Every key not listed here (and not handled by a rule in
/// [`structural_rule`]) carries text, whatever its name: `customer_id`, `userId`,
/// `prompt_cache_key`, `safety_identifier`, `user` are all anonymized.
const STRUCTURAL_KEYS: &[&str] = &[
    // what the request addresses and how its parts are typed
    "model",
    "role",
    "type",
    "object",
    "status",
    // ids the provider (or the proxy) issued and expects back verbatim
    "id",
    "tool_call_id",
    "call_id",
    "tool_use_id",
    "previous_response_id",
    "file_id",
    "item_id",
    "response_id",
    "conversation",
    "container",
    // opaque provider payloads that must come back byte for byte, credentials for MCP servers
    "signature",
    "encrypted_content",
    "authorization_token",
    // media and addresses the provider fetches (README: images and audio are not inspected)
    "image_url",
    "input_audio",
    "images",
    "audio",
    "url",
    "file_url",
    // enumerated settings
    "media_type",
    "mime_type",
    "detail",
    "cache_control",
    "tool_choice",
    "logit_bias",
    "stream_options",
    "keep_alive",
    "encoding_format",
    "service_tier",
    "reasoning_effort",
    "modalities",
    "include",
    "truncation",
    "voice",
    "format",
    "think",
    "stream",
    // tool and function names (identifiers the developer defined, matched by the provider)
    "name",
    "tool_name",
];

fn is_structural_key(key: &str) -> bool {
    STRUCTURAL_KEYS.contains(&key)
}

/// Walks a request body in document order, handing every text string to `v`.
pub fn walk_request(format: &dyn WireFormat, root: &mut Node, v: &mut dyn TextVisitor) {
    walk(format, root, Mode::Structural, None, v);
}

/// Walks a subtree where every string leaf is text (tool inputs, metadata, parsed arguments).
pub fn walk_free(root: &mut Node, v: &mut dyn TextVisitor) {
    walk(&openai::OpenAi, root, Mode::Free, None, v);
}

fn walk(
    format: &dyn WireFormat,
    node: &mut Node,
    mode: Mode,
    parent: Option<&str>,
    v: &mut dyn TextVisitor,
) {
    match (mode, node) {
        (Mode::Skip, _) => {}
        (Mode::Refuse(reason), _) => v.refuse(reason),
        (_, Node::Null | Node::Bool(_) | Node::Num(_)) => {}
        (Mode::Structural | Mode::Free | Mode::Schema, Node::Str(s)) => v.text(s, TextKind::Plain),
        (Mode::JsonText, Node::Str(s)) => v.text(s, TextKind::JsonSource),
        (Mode::Identifier, Node::Str(s)) => v.text(s, TextKind::Identifier),
        (Mode::Base64, Node::Str(s)) => v.text(s, TextKind::Base64),
        (Mode::DataUrl, Node::Str(s)) => v.text(s, TextKind::DataUrl),
        (Mode::Tools, Node::Str(_)) => {}
        (Mode::JsonText | Mode::Identifier, other) => walk(format, other, Mode::Free, parent, v),
        (Mode::Base64 | Mode::DataUrl, _) => v.refuse(UNREADABLE),
        (_, Node::Arr(items)) => {
            for item in items {
                walk(format, item, mode, parent, v);
            }
        }
        (_, Node::Obj(members)) => {
            let ty = members
                .iter()
                .find(|(k, _)| k == "type")
                .and_then(|(_, val)| val.as_str())
                .map(str::to_owned);
            let media = members
                .iter()
                .find(|(k, _)| k == "media_type")
                .and_then(|(_, val)| val.as_str())
                .map(str::to_ascii_lowercase);
            let mode = match (&mode, &ty) {
                // A content block whose type the format does not know: nothing in it is known to
                // be structure, so every string is text.
                (Mode::Structural, Some(t)) if !format.known_block(parent, t) => Mode::Free,
                _ => mode,
            };
            for (key, value) in members.iter_mut() {
                let child = match mode {
                    Mode::Free => Mode::Free,
                    Mode::Schema => schema_rule(key),
                    Mode::Tools => tools_rule(key),
                    _ => {
                        let obj = ObjectFacts {
                            ty: ty.as_deref(),
                            media: media.as_deref(),
                        };
                        structural_rule(format, key, value, parent, obj)
                    }
                };
                walk(format, value, child, Some(key.as_str()), v);
            }
        }
    }
}

/// Refusal reason for embedded content that cannot be read as text.
const UNREADABLE: &str =
    "an embedded document that is not base64 text cannot be inspected by the privacy proxy; send its text";

/// What the walk knows about the object whose members it is deciding.
#[derive(Clone, Copy)]
struct ObjectFacts<'a> {
    /// The object's `type` member.
    ty: Option<&'a str>,
    /// The object's `media_type` member, lowercase.
    media: Option<&'a str>,
}

fn structural_rule(
    format: &dyn WireFormat,
    key: &str,
    value: &Node,
    parent: Option<&str>,
    obj: ObjectFacts<'_>,
) -> Mode {
    match key {
        "tools" | "functions" => Mode::Tools,
        "response_format" | "json_schema" => Mode::Tools,
        // An Ollama `format` is a JSON schema; a Responses `text.format` wraps one (its `schema`
        // member is walked as schema all the same).
        "format" if !matches!(value, Node::Str(_)) => Mode::Schema,
        "metadata" => Mode::Free,
        "arguments" => match value {
            Node::Str(_) => Mode::JsonText,
            _ => Mode::Free,
        },
        "input" if matches!(value, Node::Obj(_)) => Mode::Free,
        "data" => data_rule(obj),
        "file_data" => match value {
            Node::Str(s) => file_data_rule(s),
            _ => Mode::Refuse(UNREADABLE),
        },
        "name" if format.name_is_identifier_text(parent) => Mode::Identifier,
        k if is_structural_key(k) => Mode::Skip,
        _ => Mode::Structural,
    }
}

/// `data` members: Anthropic text documents carry their text in `source.data` (type `text`), or
/// base64 of it (type `base64`, a `text/*` media type): both are anonymized. Base64 images pass
/// (images are not inspected); base64 of anything else (PDF, office files) cannot be read and
/// is refused. Redacted thinking is the provider's own ciphertext. Any other `data` is text.
fn data_rule(obj: ObjectFacts<'_>) -> Mode {
    match obj.ty {
        Some("base64") => match obj.media {
            Some(m) if is_text_media(m) => Mode::Base64,
            Some(m) if m.starts_with("image/") => Mode::Skip,
            _ => Mode::Refuse(UNREADABLE),
        },
        Some("redacted_thinking") => Mode::Skip,
        _ => Mode::Structural,
    }
}

/// A Responses / chat `file_data` `data:` URL: text is decoded and anonymized, images pass,
/// anything else is refused.
fn file_data_rule(s: &str) -> Mode {
    let media = s
        .get(..5)
        .filter(|p| p.eq_ignore_ascii_case("data:"))
        .and_then(|_| s[5..].split([';', ',']).next())
        .map(|m| m.trim().to_ascii_lowercase());
    match media {
        Some(m) if is_text_media(&m) => Mode::DataUrl,
        Some(m) if m.starts_with("image/") => Mode::Skip,
        _ => Mode::Refuse(UNREADABLE),
    }
}

fn is_text_media(media: &str) -> bool {
    let m = media.split(';').next().unwrap_or("").trim();
    m.starts_with("text/") || m == "application/json"
}

/// Tool and function definitions, response formats: descriptions are text, names and schema
/// structure are not. Hosted tools' addresses, credentials and the names and ids the provider
/// resolves (server URL and label, domains, headers, vector store ids, allowed tools) are
/// configuration and stay; any other member is text, like everywhere else.
fn tools_rule(key: &str) -> Mode {
    match key {
        "description" | "title" => Mode::Free,
        "parameters" | "input_schema" | "schema" | "json_schema" | "format" => Mode::Schema,
        "input_examples" | "examples" | "metadata" | "user_location" => Mode::Free,
        "function" | "custom" => Mode::Tools,
        "server_url"
        | "server_label"
        | "connector_id"
        | "allowed_domains"
        | "blocked_domains"
        | "headers"
        | "authorization"
        | "authorization_token"
        | "vector_store_ids"
        | "allowed_tools"
        | "strict" => Mode::Skip,
        k if is_structural_key(k) => Mode::Skip,
        _ => Mode::Structural,
    }
}

/// JSON schema: the keywords that are structure (types, enums, patterns, references, required
/// property names) stay; everything else that is a string — descriptions, titles, defaults,
/// examples, comments, unknown annotations — is text. Property names are member names and are
/// never touched.
fn schema_rule(key: &str) -> Mode {
    match key {
        "description" | "title" | "$comment" => Mode::Free,
        "default" | "examples" | "example" => Mode::Free,
        "enum" | "const" | "pattern" | "format" | "type" | "$ref" | "required" | "$schema"
        | "$id" | "$anchor" | "$dynamicRef" | "$dynamicAnchor" | "contentMediaType"
        | "contentEncoding" | "dependentRequired" => Mode::Skip,
        _ => Mode::Schema,
    }
}

// ---------------------------------------------------------------------------------------------
// Reply side

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
pub fn restore_tree(node: &mut Node, ex: &Exchange, done: &[*const String]) {
    restore_walk(node, ex, false, done);
}

fn restore_walk(node: &mut Node, ex: &Exchange, json_source: bool, done: &[*const String]) {
    match node {
        Node::Str(s) => {
            if !done.contains(&(s as *const String)) {
                let r = ex.restore(s, json_source);
                if r != *s {
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
                if REPLY_SKIP.contains(&k) || k.ends_with("_id") {
                    continue;
                }
                let js = matches!(value, Node::Str(_)) && (k == "arguments" || k == "partial_json");
                // a token used as a key (`{"[[EMAIL_1]]": "top"}` in tool input, JSON content)
                let restored_key = ex.restore(k, false);
                if restored_key != *key {
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
    pub fn push(&mut self, ex: &Arc<Exchange>, key: &str, json_source: bool, text: &str) -> String {
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
    ex: &Arc<Exchange>,
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
