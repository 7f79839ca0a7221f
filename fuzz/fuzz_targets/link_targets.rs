//! Fuzz target for the link-target reader (`tokens::links`, where a restored value may go):
//! for any text, read as prose, a tool argument's value or JSON source, every split into pieces
//! gives the same in-target decisions as feeding it byte by byte, and nothing panics.
//! The property lives in `common/` so that `tests/it/fuzz_regressions.rs` replays it.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| common::link_targets_split_independent(data));
