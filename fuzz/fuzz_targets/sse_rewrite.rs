//! Fuzz target for the SSE reply rewriter (framing, per-format stream handlers, restoring):
//! any bytes must not panic, and the output must not depend on how the bytes were split into
//! reads. Byte 0 picks the format and endpoint, byte 1 seeds the split.
//! The property lives in `common/` so that `tests/it/fuzz_regressions.rs` replays it.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| common::sse_rewrite_split_independent(data));
