//! The fuzz targets' properties, shared with `tests/it/fuzz_regressions.rs` (which replays the
//! kept crashes and the seeds through them), and their helpers: a fixed exchange whose values
//! need JSON escaping, and a deterministic way to cut an input into pieces from a seed.
#![allow(dead_code)]

use std::sync::{Arc, OnceLock};

use tarnkappe::config::WireFormatName;
use tarnkappe::detect::{Detector, EntityType, View};
use tarnkappe::json;
use tarnkappe::proxy::anon::anonymize_body;
use tarnkappe::proxy::format::{for_name, GENERIC};
use tarnkappe::proxy::reply::{Framing, ReplyRewriter};
use tarnkappe::proxy::restore::restore_tree;
use tarnkappe::tokens::links::LinkContext;
use tarnkappe::tokens::{
    anonymize, contains_reserved_token, MappingEntry, Restorer, StreamRestorer, TolerantRestorer,
};

fn detector() -> &'static Detector {
    static D: OnceLock<Detector> = OnceLock::new();
    D.get_or_init(Detector::new)
}

pub fn exchange() -> Arc<TolerantRestorer> {
    let entry = |token: &str, entity_type, value: &str| MappingEntry {
        token: token.into(),
        entity_type,
        value: value.into(),
    };
    let mut ex = TolerantRestorer::new(vec![
        entry("[[NAME_1]]", EntityType::Person, "Zoë \"Z\" Maier"),
        entry("[[EMAIL_1]]", EntityType::EmailAddress, "z@x.de"),
        entry("[[URL_2]]", EntityType::Url, "https://a.example/\\p?q=1\n"),
    ]);
    ex.note_client_text("[name_1]");
    ex.limit_growth(4096);
    Arc::new(ex)
}

/// Splits `data` into pieces of 1..=max bytes chosen by a xorshift generator seeded by `seed`.
pub fn pieces(data: &[u8], seed: u8, max: usize) -> Vec<&[u8]> {
    let mut r = u64::from(seed) * 0x9E37_79B9 + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        let n = (1 + (r as usize) % max).min(data.len() - i);
        out.push(&data[i..i + n]);
        i += n;
    }
    out
}

/// The `stream_restore` target's property, also replayed over the kept crashes and seeds by
/// `tests/it/fuzz_regressions.rs`: for any text and any split into pieces, pushing the pieces
/// and finishing gives exactly what restoring the whole text gives, within the growth budget.
/// Byte 0 selects JSON-escape mode (bit 0), byte 1 seeds the split.
pub fn stream_restore_matches_whole(data: &[u8]) {
    let [flags, seed, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let json = flags & 1 == 1;
    let whole = exchange().restore(text, json);
    assert!(whole.len() <= text.len() + 4096 + 64, "growth budget");
    let mut s = StreamRestorer::new(exchange(), json);
    let mut out = String::new();
    let mut i = 0;
    for p in pieces(rest, *seed, 7) {
        // pieces on character boundaries (a channel carries decoded text)
        let mut end = i + p.len();
        while end < text.len() && !text.is_char_boundary(end) {
            end += 1;
        }
        if end > i {
            out += &s.push(&text[i..end.min(text.len())]);
            i = end.min(text.len());
        }
    }
    out += &s.push(&text[i..]);
    out += &s.finish();
    assert_eq!(out, whole);
}

/// The `detect` target's property: any UTF-8 input is detected without panic, the findings are
/// in bounds (code points), sorted and disjoint, and anonymize → restore gives the input back.
pub fn detect_findings_hold(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let n = text.chars().count();
    let findings = detector().detect(text);
    let mut prev = 0;
    for f in &findings {
        assert!(f.start < f.end && f.end <= n && f.start >= prev, "{f:?}");
        prev = f.end;
    }
    if !contains_reserved_token(text) {
        let anon = anonymize(detector(), text);
        let pairs = anon
            .mapping
            .iter()
            .map(|m| (m.token.as_str(), m.value.as_str()));
        assert_eq!(Restorer::new(pairs).restore(&anon.anonymized_text), text);
    }
}

/// Feeds `body` to a fresh reply rewriter whole and in the pieces `seed` picks: the outputs
/// must be equal (and neither may panic).
fn rewrite_split_independent(
    name: WireFormatName,
    endpoint: &str,
    framing: Framing,
    body: &[u8],
    seed: u8,
) {
    let run = |pieces: Vec<&[u8]>| {
        let mut r = ReplyRewriter::new(exchange(), for_name(name), endpoint, framing);
        let mut out = Vec::new();
        for p in pieces {
            out.extend(r.feed(p, false));
        }
        out.extend(r.feed(&[], true));
        out
    };
    let whole = run(vec![body]);
    let split = run(pieces(body, seed, 9));
    assert_eq!(whole, split);
}

const SSE_CASES: [(WireFormatName, &str); 4] = [
    (WireFormatName::Openai, "chat"),
    (WireFormatName::Openai, "responses"),
    (WireFormatName::Openai, "completions"),
    (WireFormatName::Anthropic, "messages"),
];

/// The `sse_rewrite` target's property: byte 0 picks the format and endpoint, byte 1 seeds
/// the split; the output does not depend on how the bytes were split into reads.
pub fn sse_rewrite_split_independent(data: &[u8]) {
    let [pick, seed, body @ ..] = data else {
        return;
    };
    let (name, endpoint) = SSE_CASES[*pick as usize % SSE_CASES.len()];
    rewrite_split_independent(name, endpoint, Framing::Sse, body, *seed);
}

const NDJSON_ENDPOINTS: [&str; 3] = ["chat", "generate", "embed"];

/// The `ndjson_rewrite` target's property (Ollama streams): byte 0 picks the endpoint, byte 1
/// seeds the split; the output does not depend on how the bytes were split into reads.
pub fn ndjson_rewrite_split_independent(data: &[u8]) {
    let [pick, seed, body @ ..] = data else {
        return;
    };
    let endpoint = NDJSON_ENDPOINTS[*pick as usize % NDJSON_ENDPOINTS.len()];
    rewrite_split_independent(
        WireFormatName::Ollama,
        endpoint,
        Framing::Ndjson,
        body,
        *seed,
    );
}

const JSON_CASES: [(WireFormatName, &str); 10] = [
    (WireFormatName::Openai, "/v1/chat/completions"),
    (WireFormatName::Openai, "/v1/responses"),
    (WireFormatName::Openai, "/v1/completions"),
    (WireFormatName::Openai, "/v1/embeddings"),
    (WireFormatName::Openai, "/v1/other"),
    (WireFormatName::Anthropic, "/v1/messages"),
    (WireFormatName::Anthropic, "/v1/messages/count_tokens"),
    (WireFormatName::Ollama, "/api/chat"),
    (WireFormatName::Ollama, "/api/generate"),
    (WireFormatName::Ollama, "/api/embed"),
];

/// The `json_walk` target's property: byte 0 picks the format and endpoint; the request walk
/// refuses or gives valid JSON, and the reply walk restores that document into valid JSON.
pub fn json_walk_gives_json(data: &[u8]) {
    let [pick, body @ ..] = data else {
        return;
    };
    let (name, path) = JSON_CASES[*pick as usize % JSON_CASES.len()];
    let format = for_name(name);
    let endpoint = format.endpoint(path).unwrap_or(GENERIC);
    let Ok(a) = anonymize_body(detector(), format, endpoint, body) else {
        return;
    };
    let out = a.body.as_deref().unwrap_or(body);
    let text = std::str::from_utf8(out).expect("a rewritten body is UTF-8");
    let mut node = json::parse(text).expect("a rewritten body is JSON");
    let ex = TolerantRestorer::new(a.table.entries().to_vec());
    restore_tree(&mut node, &ex, &[]);
    json::parse(&node.to_json_string()).expect("a restored document is JSON");
}

/// The `matching_view` target's property: any UTF-8 input gives a view without panicking; every
/// range of the view maps to a non-empty range of char boundaries of the original, and the
/// mapping never goes backwards.
pub fn matching_view_maps_back(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let view = View::new(text);
    let v = view.as_str();
    if view.is_original() {
        assert_eq!(v, text);
    }
    let cuts: Vec<usize> = (0..=v.len()).filter(|&i| v.is_char_boundary(i)).collect();
    let (mut last_start, mut last_end) = (0, 0);
    for pair in cuts.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (start, end) = (view.start_in_original(a), view.end_in_original(b));
        assert!(text.is_char_boundary(start) && text.is_char_boundary(end));
        assert!(
            start < end && end <= text.len(),
            "{a}..{b} -> {start}..{end}"
        );
        assert!(start >= last_start && end >= last_end);
        (last_start, last_end) = (start, end);
    }
}

/// The `link_targets` target's property (the URL-destination reader, `tokens::links`): for any
/// bytes, read as prose, as a tool argument's value or as JSON source (byte 0), feeding them in
/// any split (byte 1 seeds it) gives the same in-target decision before every byte as feeding
/// them one by one, and nothing panics.
pub fn link_targets_split_independent(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let (mode, seed, text) = (data[0], data[1], &data[2..]);
    let new = || match mode % 3 {
        0 => LinkContext::default(),
        1 => LinkContext::tool_value(),
        _ => LinkContext::json_source(),
    };
    let mut one = new();
    let mut marks = Vec::with_capacity(text.len() + 1);
    for &b in text {
        marks.push(one.in_target());
        one.feed(&[b]);
    }
    marks.push(one.in_target());
    let mut split = new();
    let mut at = 0;
    for piece in pieces(text, seed, 17) {
        assert_eq!(split.in_target(), marks[at], "before byte {at}");
        split.feed(piece);
        at += piece.len();
    }
    assert_eq!(split.in_target(), marks[at], "at the end");
}

/// Pieces the `view_controls` target writes its texts from: terminal sequences and their parts,
/// control characters, backslash runs and JSON escapes, the braille blank, and value-like text.
const VIEW_PIECES: &[&str] = &[
    "\x1b",
    "[",
    "]",
    "1;31",
    "01",
    "38;2;255",
    "m",
    "K",
    "\x07",
    "\x1b\\",
    "(",
    "B",
    "7",
    "\u{9b}",
    "\u{9d}",
    "\u{9c}",
    "\u{85}",
    "\u{80}",
    "\\",
    "\\\\",
    "u",
    "00fc",
    "d83d",
    "de00",
    "u0040",
    "n",
    "t",
    "\"",
    "/",
    "\0",
    "\x7f",
    "\x0b",
    "\x0c",
    "\t",
    "\n",
    "\r",
    "\u{2800}",
    "\u{200b}",
    "4111",
    "123456",
    " ",
    ";",
    "?",
    "max",
    "@",
    ".de",
    "ü",
    "😀",
    "&#27;",
    "\\u001b",
    "&amp;",
    "%40",
    "(at)",
    "Ju\u{308}",
    "８",
];

/// The `view_controls` target's property: a text written mostly from [`VIEW_PIECES`] (a byte
/// below 0x40 picks a piece, any other byte is the code point of its value) holds the matching
/// view's mapping property, and its view holds no control character but tab, line feed and
/// carriage return.
pub fn view_controls_map_back(data: &[u8]) {
    let mut text = String::new();
    for &b in data {
        match VIEW_PIECES.get(usize::from(b)) {
            Some(piece) if b < 0x40 => text.push_str(piece),
            _ => text.push(char::from(b)),
        }
    }
    matching_view_maps_back(text.as_bytes());
    let view = View::new(&text);
    let stray = view
        .as_str()
        .chars()
        .find(|&c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'));
    assert_eq!(stray, None, "a control in the view of {text:?}");
}
