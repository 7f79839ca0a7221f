//! Shared by the reply-side fuzz targets: a fixed exchange whose values need JSON escaping,
//! and a deterministic way to cut an input into pieces from a seed.
#![allow(dead_code)]

use std::sync::Arc;

use tarnkappe::detect::EntityType;
use tarnkappe::tokens::{TolerantRestorer, MappingEntry};

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
