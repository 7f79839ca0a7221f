//! Fuzz target for the detector's matching view (crates/detect, `View`): any UTF-8 input gives
//! a view without panicking; every range of the view maps to a non-empty range of char
//! boundaries of the original, and the mapping never goes backwards.
//! The property lives in `common/` so that `tests/it/fuzz_regressions.rs` replays it.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| common::matching_view_maps_back(data));
