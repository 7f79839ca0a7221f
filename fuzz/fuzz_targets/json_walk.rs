//! Fuzz target for the JSON walkers of every wire format: the request walk (anonymize a body
//! for an endpoint) must refuse or produce valid JSON, and the reply walk (restore the tokens
//! of that exchange in the rewritten document) must not panic. Byte 0 picks the format and
//! endpoint.
//! The property lives in `common/` so that `tests/it/fuzz_regressions.rs` replays it.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| common::json_walk_gives_json(data));
