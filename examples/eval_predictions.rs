//! Runs the engine over an eval corpus and writes API-shaped responses for `score.py`.
//!
//! ```bash
//! cargo run --release --example eval_predictions [CORPUS] [OUT]
//! python3 ../shared/eval/score.py --predictions target/eval/responses.jsonl
//! ```

use std::io::{BufRead, BufReader, Write};

use tarnkappe::detect::Detector;
use tarnkappe::tokens::anonymize;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let corpus = args
        .next()
        .unwrap_or_else(|| "../shared/eval/dev.jsonl".to_owned());
    let out_path = args
        .next()
        .unwrap_or_else(|| "target/eval/responses.jsonl".to_owned());
    if let Some(dir) = std::path::Path::new(&out_path).parent() {
        std::fs::create_dir_all(dir)?;
    }
    let detector = Detector::new();
    let mut out = std::io::BufWriter::new(std::fs::File::create(&out_path)?);
    let mut n = 0usize;
    for line in BufReader::new(std::fs::File::open(&corpus)?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let doc: serde_json::Value = serde_json::from_str(&line)?;
        let text = doc["text"].as_str().unwrap_or_default();
        let started = std::time::Instant::now();
        let result = anonymize(&detector, text);
        let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut response = serde_json::to_value(&result)?;
        response["session_id"] = serde_json::Value::String(format!("eval-{n}"));
        let rec =
            serde_json::json!({"id": doc["id"], "latency_ms": latency_ms, "response": response});
        writeln!(out, "{rec}")?;
        n += 1;
    }
    eprintln!("wrote {n} responses to {out_path}");
    Ok(())
}
