//! Fuzz target for the SSE reply rewriter (framing, per-format stream handlers, restoring):
//! any bytes must not panic, and the output must not depend on how the bytes were split into
//! reads. Byte 0 picks the format and endpoint, byte 1 seeds the split.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use tarnkappe::config::WireFormatName;
use tarnkappe::proxy::format::for_name;
use tarnkappe::proxy::reply::{Framing, ReplyRewriter};

const CASES: [(WireFormatName, &str); 4] = [
    (WireFormatName::Openai, "chat"),
    (WireFormatName::Openai, "responses"),
    (WireFormatName::Openai, "completions"),
    (WireFormatName::Anthropic, "messages"),
];

fuzz_target!(|data: &[u8]| {
    let [pick, seed, body @ ..] = data else {
        return;
    };
    let (name, endpoint) = CASES[*pick as usize % CASES.len()];
    let run = |pieces: Vec<&[u8]>| {
        let mut r = ReplyRewriter::new(common::exchange(), for_name(name), endpoint, Framing::Sse);
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
