//! The request walk: which strings of a request body are text to anonymize, and how each is
//! encoded. The policy is the same for every wire format: every string that can carry user or
//! developer text is anonymized, only structural values are left alone. A format adds only what
//! is its own (known content blocks, identifier-valued names) through [`WireFormat`].

use crate::json::Node;
use crate::proxy::format::WireFormat;
use crate::proxy::runs;

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
    /// The source text of a JSON number where strings are text: replaced by its token as a
    /// string when it holds a value (`docs/proxy.md`, "What counts as text").
    Number,
    /// A member name of an object whose members are text or unknown (`docs/proxy.md`).
    MemberName,
    /// An address the provider fetches (`image_url`, `source.url`): not run through the
    /// detector, but every value found elsewhere is replaced in it, percent-encoded too.
    Url,
    /// A description in a tool or schema definition: text, except that a date the developer
    /// wrote there as an example (`e.g. "2023-10-01 00:00"`) is kept (`docs/proxy.md`).
    Instruction,
}

/// How the walk treats a value (and, for containers, its members).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Treat {
    Skip,
    Structural,
    Free,
    Schema,
    Tools,
    JsonText,
    /// A tool or schema description ([`TextKind::Instruction`]).
    Instruction,
    Identifier,
    Base64,
    DataUrl,
    /// An address (and, for an object, its members): [`TextKind::Url`].
    Url,
    /// An object whose member names the user chose (`prompt.variables`): every member is
    /// text whatever its name; a member that is itself a typed content part keeps its own
    /// structure.
    Named,
    /// A content block of a type the format does not know: every member is text, except the
    /// documents it holds (`source`, `content`), walked as documents are, and its addresses.
    Unknown,
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
    // media the provider reads (docs/proxy.md: images and audio pass as sent); addresses
    // are [`URL_KEYS`]
    "input_audio",
    "images",
    "audio",
    // a fetched document's timestamp (Anthropic `web_fetch_result`)
    "retrieved_at",
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
    "verbosity",
    // a reasoning effort wherever a format puts it (Anthropic `output_config.effort`)
    "effort",
    "parallel_tool_calls",
    "stop_reason",
    "finish_reason",
    // tool and function names (identifiers the developer defined, matched by the provider)
    "name",
    "tool_name",
];

fn is_structural_key(key: &str) -> bool {
    STRUCTURAL_KEYS.contains(&key)
}

/// Addresses the provider fetches: structure for detection (a value is not looked for in
/// them), but every value found elsewhere in the body is replaced in them ([`TextKind::Url`]).
const URL_KEYS: &[&str] = &["url", "image_url", "file_url"];

/// The `type`s of a content part that may stand for a user-named member (a prompt variable
/// given as `input_text`, `input_image` or `input_file`): walked with their own structure.
const NAMED_PARTS: &[&str] = &["input_text", "input_image", "input_file"];

/// The providers' numeric settings: where their value is a number, it is structure (a value
/// written there is not looked for). Any other number where strings are text is walked.
const NUMERIC_SETTINGS: &[&str] = &[
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "typical_p",
    "max_tokens",
    "max_completion_tokens",
    "max_output_tokens",
    "max_tool_calls",
    "budget_tokens",
    "n",
    "best_of",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "repeat_penalty",
    "repeat_last_n",
    "top_logprobs",
    "logprobs",
    "dimensions",
    "index",
    "created",
    "num_ctx",
    "num_predict",
    "num_keep",
    "num_batch",
    "num_gpu",
    "main_gpu",
    "num_thread",
    "mirostat",
    "mirostat_tau",
    "mirostat_eta",
    // Ollama's token ids of an earlier exchange
    "context",
];

/// Receives every text string of a request, in document order.
pub trait TextVisitor {
    fn text(&mut self, s: &mut String, kind: TextKind);

    /// The texts of two or more adjacent text parts of one message ([`crate::proxy::runs`]),
    /// handed over before the rest of those parts is walked.
    fn text_run(&mut self, parts: &mut [String]) {
        for p in parts {
            self.text(p, TextKind::Plain);
        }
    }

    /// A value the walk cannot inspect: the request must be refused for `reason`.
    fn refuse(&mut self, _reason: &'static str) {}
}

/// Walks a request body in document order, handing every text string to `v`.
pub fn walk_request(format: &dyn WireFormat, root: &mut Node, v: &mut dyn TextVisitor) {
    walk(Some(format), root, Treat::Structural, None, v);
}

/// Walks a subtree where every string leaf is text (tool inputs, metadata, parsed arguments).
pub fn walk_free(root: &mut Node, v: &mut dyn TextVisitor) {
    walk(None, root, Treat::Free, None, v);
}

/// `format` is `None` in free text, where no format rule applies.
fn walk(
    format: Option<&dyn WireFormat>,
    node: &mut Node,
    mode: Treat,
    parent: Option<&str>,
    v: &mut dyn TextVisitor,
) {
    if matches!(node, Node::Num(_)) && text_mode(mode) {
        visit_number(node, v);
        return;
    }
    match (mode, node) {
        (Treat::Skip, _) => {}
        (Treat::Refuse(reason), _) => v.refuse(reason),
        (_, Node::Null | Node::Bool(_) | Node::Num(_)) => {}
        (
            Treat::Structural | Treat::Free | Treat::Schema | Treat::Named | Treat::Unknown,
            Node::Str(s),
        ) => v.text(s, TextKind::Plain),
        (Treat::JsonText, Node::Str(s)) => v.text(s, TextKind::JsonSource),
        (Treat::Instruction, Node::Str(s)) => v.text(s, TextKind::Instruction),
        (Treat::Identifier, Node::Str(s)) => v.text(s, TextKind::Identifier),
        (Treat::Base64, Node::Str(s)) => v.text(s, TextKind::Base64),
        (Treat::DataUrl, Node::Str(s)) => v.text(s, TextKind::DataUrl),
        (Treat::Url, Node::Str(s)) => v.text(s, TextKind::Url),
        (Treat::Tools, Node::Str(_)) => {}
        (Treat::JsonText | Treat::Identifier | Treat::Instruction, other) => {
            walk(format, other, Treat::Free, parent, v)
        }
        (Treat::Base64 | Treat::DataUrl, _) => v.refuse(UNREADABLE),
        (_, Node::Arr(items)) => walk_items(format, items, mode, parent, v),
        (_, Node::Obj(members)) => walk_members(format, members, mode, parent, v),
    }
}

/// Modes whose strings (and numbers, and member names) are text.
fn text_mode(mode: Treat) -> bool {
    matches!(
        mode,
        Treat::Structural | Treat::Free | Treat::Named | Treat::Unknown
    )
}

/// The members of an object, each by the rule of `mode`.
fn walk_members(
    format: Option<&dyn WireFormat>,
    members: &mut [(String, Node)],
    mode: Treat,
    parent: Option<&str>,
    v: &mut dyn TextVisitor,
) {
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
        // A content block whose type the format does not know: nothing in it is known to be
        // structure but the documents and addresses it holds.
        (Treat::Structural, Some(t)) if format.is_some_and(|f| !f.known_block(parent, t)) => {
            Treat::Unknown
        }
        _ => mode,
    };
    for (key, value) in members.iter_mut() {
        let child = match mode {
            Treat::Free => Treat::Free,
            Treat::Url => Treat::Url,
            Treat::Schema => schema_rule(key),
            Treat::Tools => tools_rule(key),
            Treat::Named => named_rule(value),
            Treat::Unknown => unknown_rule(key, value),
            _ => {
                let obj = ObjectFacts {
                    ty: ty.as_deref(),
                    media: media.as_deref(),
                };
                structural_rule(format, key, value, parent, obj)
            }
        };
        if text_mode(mode) {
            v.text(key, TextKind::MemberName);
        }
        walk(format, value, child, Some(key.as_str()), v);
    }
}

/// A member of a user-named object: text, unless it is a typed content part
/// ([`NAMED_PARTS`]), which keeps its own structure (an image's address, a file's data).
fn named_rule(value: &Node) -> Treat {
    match value.str_of("type") {
        Some(t) if NAMED_PARTS.contains(&t) => Treat::Structural,
        _ => Treat::Free,
    }
}

/// A typed block (`{"type": …}`), or an array of such blocks and strings.
fn holds_blocks(value: &Node) -> bool {
    let typed = |n: &Node| n.str_of("type").is_some();
    match value {
        Node::Obj(_) => typed(value),
        Node::Arr(items) => items.iter().all(|i| matches!(i, Node::Str(_)) || typed(i)),
        _ => false,
    }
}

/// A member of an unknown content block: the documents it holds are walked as documents are
/// (text decoded, what cannot be read refused), its addresses as addresses; every other
/// member is text.
fn unknown_rule(key: &str, value: &Node) -> Treat {
    match key {
        "source" | "content" if holds_blocks(value) => Treat::Structural,
        k if URL_KEYS.contains(&k) => Treat::Url,
        _ => Treat::Free,
    }
}

/// A number, or an array of numbers only.
fn numeric(value: &Node) -> bool {
    match value {
        Node::Num(_) => true,
        Node::Arr(items) => items.iter().all(|i| matches!(i, Node::Num(_))),
        _ => false,
    }
}

/// A number where strings are text: its source text is visited, and when the visitor put a
/// token into it, it goes on as a string.
fn visit_number(node: &mut Node, v: &mut dyn TextVisitor) {
    let Node::Num(n) = node else {
        return;
    };
    let original = n.clone();
    v.text(n, TextKind::Number);
    if *n != original {
        *node = Node::Str(std::mem::take(n));
    }
}

/// The items of an array; in provider structure, runs of adjacent text parts are handed to
/// the visitor as one ([`TextVisitor::text_run`]) before their other members are walked.
fn walk_items(
    format: Option<&dyn WireFormat>,
    items: &mut [Node],
    mode: Treat,
    parent: Option<&str>,
    v: &mut dyn TextVisitor,
) {
    let run_list = if mode == Treat::Structural {
        runs::text_runs(items)
    } else {
        Vec::new()
    };
    let mut next = 0;
    for run in run_list {
        for item in &mut items[next..run.start] {
            walk(format, item, mode, parent, v);
        }
        let mut texts = runs::take_texts(&mut items[run.clone()]);
        v.text_run(&mut texts);
        for item in &mut items[run.clone()] {
            walk(format, item, mode, parent, v);
        }
        runs::put_texts(&mut items[run.clone()], texts);
        next = run.end;
    }
    for item in &mut items[next..] {
        walk(format, item, mode, parent, v);
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
    format: Option<&dyn WireFormat>,
    key: &str,
    value: &Node,
    parent: Option<&str>,
    obj: ObjectFacts<'_>,
) -> Treat {
    match key {
        "tools" | "functions" => Treat::Tools,
        "response_format" | "json_schema" => Treat::Tools,
        // An Ollama `format` is a JSON schema; a Responses `text.format` wraps one (its `schema`
        // member is walked as schema all the same).
        "format" if !matches!(value, Node::Str(_)) => Treat::Schema,
        // objects whose member names the user chose: text whatever those names are
        "metadata" => Treat::Free,
        "variables" => Treat::Named,
        "arguments" => match value {
            Node::Str(_) => Treat::JsonText,
            _ => Treat::Free,
        },
        "input" if matches!(value, Node::Obj(_)) => Treat::Free,
        // Responses `reasoning` holds only enumerated settings (`effort`, `summary`,
        // `context`), which the provider validates: a token there is a refused request.
        "reasoning" if matches!(value, Node::Obj(_)) => Treat::Skip,
        k if numeric(value) && NUMERIC_SETTINGS.contains(&k) => Treat::Skip,
        "data" => data_rule(obj),
        "file_data" => match value {
            Node::Str(s) => file_data_rule(s),
            _ => Treat::Refuse(UNREADABLE),
        },
        "name" if format.is_some_and(|f| f.name_is_identifier_text(parent)) => Treat::Identifier,
        k if URL_KEYS.contains(&k) => Treat::Url,
        k if is_structural_key(k) => Treat::Skip,
        _ => Treat::Structural,
    }
}

/// `data` members: Anthropic text documents carry their text in `source.data` (type `text`), or
/// base64 of it (type `base64`, a `text/*` media type): both are anonymized. Base64 images pass
/// (images are not inspected); base64 of anything else (PDF, office files) cannot be read and
/// is refused. Redacted thinking is the provider's own ciphertext. Any other `data` is text.
fn data_rule(obj: ObjectFacts<'_>) -> Treat {
    match obj.ty {
        Some("base64") => match obj.media {
            Some(m) if is_text_media(m) => Treat::Base64,
            Some(m) if m.starts_with("image/") => Treat::Skip,
            _ => Treat::Refuse(UNREADABLE),
        },
        Some("redacted_thinking") => Treat::Skip,
        _ => Treat::Structural,
    }
}

/// A Responses / chat `file_data` `data:` URL: text is decoded and anonymized, images pass,
/// anything else is refused.
fn file_data_rule(s: &str) -> Treat {
    let media = s
        .get(..5)
        .filter(|p| p.eq_ignore_ascii_case("data:"))
        .and_then(|_| s[5..].split([';', ',']).next())
        .map(|m| m.trim().to_ascii_lowercase());
    match media {
        Some(m) if is_text_media(&m) => Treat::DataUrl,
        Some(m) if m.starts_with("image/") => Treat::Skip,
        _ => Treat::Refuse(UNREADABLE),
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
fn tools_rule(key: &str) -> Treat {
    match key {
        "description" | "title" => Treat::Instruction,
        "parameters" | "input_schema" | "schema" | "json_schema" | "format" => Treat::Schema,
        "input_examples" | "examples" | "metadata" | "user_location" => Treat::Free,
        // a namespace's own tools (Codex's `additional_tools` input item) are tools too
        "function" | "custom" | "tools" => Treat::Tools,
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
        | "strict" => Treat::Skip,
        k if is_structural_key(k) || URL_KEYS.contains(&k) => Treat::Skip,
        _ => Treat::Structural,
    }
}

/// JSON schema: the keywords that are structure (types, enums, patterns, references, required
/// property names) stay; everything else that is a string — descriptions, titles, defaults,
/// examples, comments, unknown annotations — is text. Property names are member names and are
/// never touched.
fn schema_rule(key: &str) -> Treat {
    match key {
        "description" | "title" | "$comment" => Treat::Instruction,
        "default" | "examples" | "example" => Treat::Free,
        "enum" | "const" | "pattern" | "format" | "type" | "$ref" | "required" | "$schema"
        | "$id" | "$anchor" | "$dynamicRef" | "$dynamicAnchor" | "contentMediaType"
        | "contentEncoding" | "dependentRequired" => Treat::Skip,
        _ => Treat::Schema,
    }
}
