//! Times each recognizer alone over generated prose (a development aid for the bench).
//! `cargo run --release --example profile_recognizers [FILE | --dense | --csv]` (`--dense`: the
//! REST bench's dense prose, a value in every sentence; `--csv`: the detect bench's CSV export)
//!
//! `… profile_recognizers -- --dump OUT` writes instead the findings on the bench's two texts
//! (100k code points of prose and of CSV), one per line, so that a speed change can be shown
//! to leave every finding as it was (`diff` the files of two commits).
//! `… profile_recognizers -- --loop N [--dense | --csv | --dense-2k]` only runs `detect` N times
//! on one thread, on the prose or the text named (`--dense-2k`: the load bench's dense 2 KB
//! message), for `perf` and `valgrind --tool=callgrind`.
//! `… profile_recognizers -- --threads N [CODEPOINTS | --csv]` times `detect` on the prose
//! (100,000 code points unless given) or the CSV export N times with one thread and N times with
//! two, whatever its size (interleaved, so load changes hit both alike), and prints both medians.

use std::time::Instant;

#[path = "../benches/support/prose.rs"]
#[allow(dead_code)]
mod prose;

use tarnkappe::detect::{registry, Detector, Text};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("--dump"), Some(out)) => return dump(out),
        (Some("--loop"), Some(n)) => {
            // One thread: instruction counts stay comparable and free of the pool's spinning.
            let d = Detector::new().with_parallel_from(usize::MAX);
            let text = bench_text(args.get(2).map(String::as_str));
            for _ in 0..n.parse::<usize>().unwrap_or(1) {
                std::hint::black_box(d.detect(&text));
            }
            return;
        }
        (Some("--threads"), Some(n)) => {
            let text = match args.get(2).map(String::as_str) {
                Some("--csv") => prose::csv(100_000),
                size => prose::prose(size.and_then(|c| c.parse().ok()).unwrap_or(100_000)),
            };
            let one = Detector::new().with_parallel_from(usize::MAX);
            let two = Detector::new().with_parallel_from(0);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..n.parse::<usize>().unwrap_or(1) {
                let t = Instant::now();
                std::hint::black_box(one.detect(&text));
                a.push(t.elapsed().as_secs_f64() * 1000.0);
                let t = Instant::now();
                std::hint::black_box(two.detect(&text));
                b.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            let median = |mut v: Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            println!(
                "detect medians, {} bytes: one thread {:.3} ms, two threads {:.3} ms",
                text.len(),
                median(a),
                median(b)
            );
            return;
        }
        _ => {}
    }
    let text = bench_text(args.first().map(String::as_str));
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
    for r in registry::all() {
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

/// The text an option names: one of the benches' generated texts (100,000 code points; the load
/// bench's 2 KB message), or a file.
fn bench_text(option: Option<&str>) -> String {
    match option {
        Some("--dense") => prose::dense_prose(100_000),
        Some("--csv") => prose::csv(100_000),
        // The load bench's dense 2 KB chat message (its e-mail address and IBAN).
        Some("--dense-2k") => prose::dense("maria.keller@example.org", "DE89370400440532013000"),
        Some(path) => std::fs::read_to_string(path).unwrap_or_default(),
        None => prose::prose(100_000),
    }
}

/// Every finding on the bench's texts, one line each: text, type, span, score, validated.
fn dump(out: &str) {
    use std::fmt::Write as _;
    let d = Detector::new();
    let mut lines = String::new();
    for (name, text) in [
        ("prose", prose::prose(100_000)),
        ("csv", prose::csv(100_000)),
    ] {
        for f in d.detect(&text) {
            let _ = writeln!(
                lines,
                "{name}\t{:?}\t{}\t{}\t{:.4}\t{}",
                f.entity_type, f.start, f.end, f.score, f.validated
            );
        }
    }
    if let Err(e) = std::fs::write(out, lines) {
        eprintln!("cannot write {out}: {e}");
    }
}
