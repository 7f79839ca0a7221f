//! Fuzz target for the matching view's readers of terminal escape sequences, control
//! characters and nested JSON escapes (crates/detect, `View`): texts dense in them give a view
//! without panicking whose every range maps to a non-empty range of char boundaries of the
//! original, monotonically, and the view holds no control character but tab and line breaks.
//! The property lives in `common/` so that `tests/it/fuzz_regressions.rs` replays it.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| common::view_controls_map_back(data));
