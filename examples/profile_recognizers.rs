//! Times each recognizer alone over generated prose (a development aid for the bench).
//! `cargo run --release --example profile_recognizers [FILE]`

use std::time::Instant;

#[path = "../benches/support/prose.rs"]
#[allow(dead_code)]
mod prose;

use tarnkappe::detect::{recognizers, Detector, Text};

fn main() {
    let text = match std::env::args().nth(1) {
        Some(path) => std::fs::read_to_string(path).unwrap_or_default(),
        None => prose::prose(100_000),
    };
    let t = Instant::now();
    let d = Detector::new();
    println!("Detector::new: {:?}", t.elapsed());
    let n = 20;
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(d.detect(&text));
    }
    println!(
        "detect total: {:?}/run ({} chars)",
        t.elapsed() / n,
        text.chars().count()
    );
    // The shared preparation every recognizer below also pays for (view, words and their lexicon classes, digit runs).
    let t = Instant::now();
    for _ in 0..n {
        let tx = Text::new(&text);
        std::hint::black_box(tx.lexed().facts().len() + tx.digit_runs().len());
    }
    println!("{:>16}: {:?}/run", "Text (shared)", t.elapsed() / n);
    for r in recognizers::all() {
        let name = r.entity_type();
        let mut out = Vec::new();
        let t = Instant::now();
        for _ in 0..n {
            out.clear();
            let tx = Text::new(&text);
            std::hint::black_box(tx.lexed().facts().len() + tx.digit_runs().len());
            r.recognize(&tx, &mut out);
        }
        println!(
            "{name:>16}: {:?}/run, {} candidates",
            t.elapsed() / n,
            out.len()
        );
    }
}
