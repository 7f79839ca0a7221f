//! Findings in files, one JSON line per finding: the tool behind scripts/eval/code_eval.py, which
//! measures false findings per 1,000 lines of code and recall on values planted in code.
//!
//! ```bash
//! find src -name '*.rs' | cargo run --release -p tarnkappe-detect --example code_scan > findings.jsonl
//! ```
//!
//! Each input line is a path; each output line is `{"path", "lines", "type", "start", "end",
//! "value"}` with byte offsets, or `{"path", "lines"}` for a file without findings.

use std::io::{BufRead, Write};

use tarnkappe_detect::Detector;

fn main() {
    let detector = Detector::new();
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for path in stdin.lock().lines().map_while(Result::ok) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let lines = text.lines().count();
        let findings = detector.detect(&text);
        if findings.is_empty() {
            let row = serde_json::json!({ "path": path, "lines": lines });
            let _ = writeln!(out, "{row}");
        }
        for f in findings {
            let row = serde_json::json!({
                "path": path,
                "lines": lines,
                "type": f.entity_type.name(),
                "start": f.bytes.0,
                "end": f.bytes.1,
                "value": &text[f.bytes.0..f.bytes.1],
            });
            let _ = writeln!(out, "{row}");
        }
    }
}
