//! Guards speed work on the engine: dumps every finding on the bench texts (prose, CSV and the load bench's dense body) and on
//! an eval corpus, so a change can be shown to leave detection results identical (diff two dumps),
//! and times both bench texts in one run so their ratio is not skewed by load drifting between runs.
//!
//! ```bash
//! cargo run --release --example findings_check -- dump [CORPUS] > before.txt   # then diff
//! cargo run --release --example findings_check -- time [RUNS]    # medians of prose and CSV
//! cargo run --release --example findings_check -- once csv|prose [N] # N anonymize calls (callgrind;
//! # the instructions of N=2 minus N=1 are one warm call, without regex compilation and DFA warm-up)
//! ```

use std::io::{BufRead, BufReader, Write};
use std::time::Instant;

#[path = "../benches/support/prose.rs"]
#[allow(dead_code)]
mod prose;

use tarnkappe::detect::Detector;
use tarnkappe::tokens::anonymize;

fn dump(detector: &Detector, set: &str, id: &str, text: &str, out: &mut impl Write) {
    for f in detector.detect(text) {
        let _ = writeln!(
            out,
            "{set}\t{id}\t{:?}\t{}\t{}\t{}\t{}",
            f.entity_type, f.start, f.end, f.score, f.validated
        );
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "dump".to_owned());
    let detector = Detector::new();
    let prose_text = prose::prose(100_000);
    let csv_text = prose::csv(100_000);
    match mode.as_str() {
        "dump" => {
            let corpus = args
                .next()
                .unwrap_or_else(|| "../shared/eval/dev.jsonl".to_owned());
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            dump(&detector, "prose", "-", &prose_text, &mut out);
            dump(&detector, "csv", "-", &csv_text, &mut out);
            let dense = prose::dense("maria.keller@example.org", "DE89370400440532013000");
            dump(&detector, "dense", "-", &dense, &mut out);
            for line in BufReader::new(std::fs::File::open(&corpus)?).lines() {
                let line = line?;
                if line.trim().is_empty() {
                    continue;
                }
                let doc: serde_json::Value = serde_json::from_str(&line)?;
                let id = doc["id"].to_string();
                dump(
                    &detector,
                    "eval",
                    &id,
                    doc["text"].as_str().unwrap_or_default(),
                    &mut out,
                );
            }
        }
        "time" => {
            let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(30);
            let (mut p, mut c) = (Vec::new(), Vec::new());
            // Interleaved, so load changes hit both texts alike.
            for _ in 0..runs {
                let t = Instant::now();
                std::hint::black_box(anonymize(&detector, &prose_text));
                p.push(t.elapsed().as_secs_f64() * 1000.0);
                let t = Instant::now();
                std::hint::black_box(anonymize(&detector, &csv_text));
                c.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            let (mp, mc) = (median(p), median(c));
            println!(
                "median of {runs}: prose {mp:.2} ms, csv {mc:.2} ms, csv/prose {:.2}",
                mc / mp
            );
        }
        "once" => {
            let which = args.next().unwrap_or_default();
            let text = if which == "prose" {
                &prose_text
            } else {
                &csv_text
            };
            let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
            for _ in 0..n {
                std::hint::black_box(anonymize(&detector, text));
            }
        }
        other => return Err(format!("unknown mode {other}").into()),
    }
    Ok(())
}
