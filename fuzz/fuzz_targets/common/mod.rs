//! Shared by the reply-side fuzz targets: a fixed exchange whose values need JSON escaping,
//! and a deterministic way to cut an input into pieces from a seed.
#![allow(dead_code)]

use std::sync::Arc;

use tarnkappe::detect::EntityType;
use tarnkappe::tokens::{MappingEntry, StreamRestorer, TolerantRestorer};

pub fn exchange() -> Arc<TolerantRestorer> {
    let entry = |token: &str, entity_type, value: &str| MappingEntry {
        token: token.into(),
        entity_type,
        value: value.into(),
    };
    let mut ex = TolerantRestorer::new(&[
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
