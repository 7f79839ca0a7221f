//! Kept fuzz inputs run as ordinary tests: every crash a campaign found (`fuzz/regressions/<target>/`)
//! and every seed of the corpus (`fuzz/seeds/<target>/`) is replayed through the target's own
//! property, so a fixed crash stays fixed without a fuzzing toolchain.

use std::path::{Path, PathBuf};

#[path = "../../fuzz/fuzz_targets/common/mod.rs"]
mod common;

/// Every file below `fuzz/<kind>/<target>/`, sorted; none when the directory does not exist
/// (a target without kept crashes).
fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind)
        .join(target);
    let mut out = Vec::new();
    if !dir.exists() {
        return out;
    }
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

/// Replays the kept crashes and the seeds of `target` through `property`; answers how many
/// crashes were replayed.
fn replay(target: &str, property: fn(&[u8])) -> usize {
    let crashes = inputs("regressions", target);
    let seeds = inputs("seeds", target);
    assert!(!seeds.is_empty(), "the seed corpus of {target} is missing");
    for path in crashes.iter().chain(&seeds) {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // A panic names the input through the test's output; the property asserts inside.
        eprintln!("replaying {}", path.display());
        property(&data);
    }
    crashes.len()
}

#[test]
fn stream_restore_crashes_and_seeds_hold_the_property() {
    let crashes = replay("stream_restore", common::stream_restore_matches_whole);
    assert!(crashes > 0, "the kept crash inputs are missing");
}

#[test]
fn detect_crashes_and_seeds_hold_the_property() {
    replay("detect", common::detect_findings_hold);
}

#[test]
fn sse_rewrite_crashes_and_seeds_hold_the_property() {
    replay("sse_rewrite", common::sse_rewrite_split_independent);
}

#[test]
fn ndjson_rewrite_crashes_and_seeds_hold_the_property() {
    replay("ndjson_rewrite", common::ndjson_rewrite_split_independent);
}

#[test]
fn json_walk_crashes_and_seeds_hold_the_property() {
    replay("json_walk", common::json_walk_gives_json);
}

#[test]
fn matching_view_crashes_and_seeds_hold_the_property() {
    replay("matching_view", common::matching_view_maps_back);
}

#[test]
fn link_targets_crashes_and_seeds_hold_the_property() {
    replay("link_targets", common::link_targets_split_independent);
}

#[test]
fn view_controls_crashes_and_seeds_hold_the_property() {
    replay("view_controls", common::view_controls_map_back);
}
