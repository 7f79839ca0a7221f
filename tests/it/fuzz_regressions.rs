//! Kept fuzz inputs run as ordinary tests: every crash a campaign found (`fuzz/regressions/<target>/`)
//! and every seed of the corpus (`fuzz/seeds/<target>/`) is replayed through the target's own
//! property, so a fixed crash stays fixed without a fuzzing toolchain.

use std::path::{Path, PathBuf};

#[path = "../../fuzz/fuzz_targets/common/mod.rs"]
mod common;

/// Every file below `fuzz/<kind>/<target>/`, sorted.
fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind)
        .join(target);
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn stream_restore_crashes_and_seeds_hold_the_property() {
    let crashes = inputs("regressions", "stream_restore");
    let seeds = inputs("seeds", "stream_restore");
    assert!(!crashes.is_empty(), "the kept crash inputs are missing");
    assert!(!seeds.is_empty(), "the seed corpus is missing");
    for path in crashes.iter().chain(&seeds) {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // A panic names the input through the test's output; the property asserts inside.
        eprintln!("replaying {}", path.display());
        common::stream_restore_matches_whole(&data);
    }
}
