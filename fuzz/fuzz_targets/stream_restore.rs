//! Fuzz target for the streaming restorer: for any text and any split into pieces, pushing the
//! pieces and finishing gives exactly what restoring the whole text gives, and never more than
//! the growth budget allows. Byte 0 selects JSON-escape mode (bit 0), byte 1 seeds the split.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use tarnkappe::tokens::StreamRestorer;

fuzz_target!(|data: &[u8]| {
    let [flags, seed, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let json = flags & 1 == 1;
    let whole = common::exchange().restore(text, json);
    assert!(whole.len() <= text.len() + 4096 + 64, "growth budget");
    let mut s = StreamRestorer::new(common::exchange(), json);
    let mut out = String::new();
    let mut i = 0;
    for p in common::pieces(rest, *seed, 7) {
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
});
