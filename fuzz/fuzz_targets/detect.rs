//! Fuzz target for the detection engine: any UTF-8 input must not panic, findings must be in
//! bounds, sorted and disjoint, and anonymize → restore must give the input back.
//! The property lives in `common/` so that `tests/it/fuzz_regressions.rs` replays it.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| common::detect_findings_hold(data));
