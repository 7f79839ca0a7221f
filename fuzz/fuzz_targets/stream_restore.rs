//! Fuzz target for the streaming restorer: for any text and any split into pieces, pushing the
//! pieces and finishing gives exactly what restoring the whole text gives, and never more than
//! the growth budget allows. Byte 0 selects JSON-escape mode (bit 0), byte 1 seeds the split.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| common::stream_restore_matches_whole(data));
