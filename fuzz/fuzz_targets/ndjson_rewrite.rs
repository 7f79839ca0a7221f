//! Fuzz target for the NDJSON reply rewriter (Ollama streams): any bytes must not panic, and
//! the output must not depend on how the bytes were split into reads. Byte 0 picks the
//! endpoint, byte 1 seeds the split.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use tarnkappe::config::WireFormatName;
use tarnkappe::proxy::format::for_name;
use tarnkappe::proxy::reply::{Framing, ReplyRewriter};

const ENDPOINTS: [&str; 3] = ["chat", "generate", "embed"];

fuzz_target!(|data: &[u8]| {
    let [pick, seed, body @ ..] = data else {
        return;
    };
    let endpoint = ENDPOINTS[*pick as usize % ENDPOINTS.len()];
    let run = |pieces: Vec<&[u8]>| {
        let format = for_name(WireFormatName::Ollama);
        let mut r = ReplyRewriter::new(common::exchange(), format, endpoint, Framing::Ndjson);
        let mut out = Vec::new();
        for p in pieces {
            out.extend(r.feed(p, false));
        }
        out.extend(r.feed(&[], true));
        out
    };
    let whole = run(vec![body]);
    let split = run(common::pieces(body, *seed, 9));
    assert_eq!(whole, split);
});
