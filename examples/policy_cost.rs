//! The cost of a large policy (50 allow entries, 50 deny terms, 10 custom recognizers; issue 12)
//! on 100,000 code points of the bench prose, robust on a shared machine: the plain and the
//! policy case alternate, and the fastest of 40 runs of each is compared (other processes only
//! ever add time). Also prints what the policy's own passes cost, and the same comparison on
//! the bench's CSV export.
//!
//! ```bash
//! cargo run --release --example policy_cost                  # interleaved wall clock
//! cargo run --release --example policy_cost -- once plain|policy N   # N anonymize calls of the
//! # prose, for callgrind: the instructions of N=2 minus N=1 are one warm call
//! ```

use std::time::Instant;

use tarnkappe::detect::{Detector, Scope, Text};
use tarnkappe::tokens::{anonymize, anonymize_in};

#[path = "../benches/support/policy.rs"]
mod policy;
#[path = "../benches/support/prose.rs"]
mod prose;

/// The fastest of `runs` calls of `f`, in milliseconds.
fn fastest(best: &mut f64, f: impl FnOnce()) {
    let started = Instant::now();
    f();
    *best = best.min(started.elapsed().as_secs_f64() * 1000.0);
}

fn main() {
    let text = prose::prose(100_000);
    let detector = Detector::new();
    let policy = policy::large_policy();
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() == Some("once") {
        let with_policy = args.next().as_deref() == Some("policy");
        let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
        for _ in 0..n {
            if with_policy {
                std::hint::black_box(anonymize_in(&detector, &policy, &text));
            } else {
                std::hint::black_box(anonymize(&detector, &text));
            }
        }
        return;
    }
    let table = prose::csv(100_000);
    let [mut detect, mut detect_p, mut anon, mut anon_p, mut csv, mut csv_p] = [f64::MAX; 6];
    let (mut propose, mut allowed) = (f64::MAX, f64::MAX);
    let view = Text::new(&text);
    for _ in 0..40 {
        fastest(&mut detect, || {
            std::hint::black_box(detector.detect(&text));
        });
        fastest(&mut detect_p, || {
            std::hint::black_box(detector.detect_in(&text, &policy));
        });
        fastest(&mut anon, || {
            std::hint::black_box(anonymize(&detector, &text));
        });
        fastest(&mut anon_p, || {
            std::hint::black_box(anonymize_in(&detector, &policy, &text));
        });
        fastest(&mut csv, || {
            std::hint::black_box(anonymize(&detector, &table));
        });
        fastest(&mut csv_p, || {
            std::hint::black_box(anonymize_in(&detector, &policy, &table));
        });
        let mut out = Vec::new();
        fastest(&mut propose, || policy.propose(&view, &mut out));
        let mut ranges = Vec::new();
        fastest(&mut allowed, || policy.allowed(&view, &mut ranges));
    }
    let ratio = |a: f64, b: f64| (b / a - 1.0) * 100.0;
    println!(
        "detect:    plain {detect:.3} ms, policy {detect_p:.3} ms (+{:.1} %)",
        ratio(detect, detect_p)
    );
    println!(
        "anonymize: plain {anon:.3} ms, policy {anon_p:.3} ms (+{:.1} %)",
        ratio(anon, anon_p)
    );
    println!(
        "CSV:       plain {csv:.3} ms, policy {csv_p:.3} ms (+{:.1} %)",
        ratio(csv, csv_p)
    );
    println!("policy passes: deny terms + recognizers {propose:.3} ms, allow list {allowed:.3} ms");
    println!(
        "findings: plain {}, policy {}",
        detector.detect(&text).len(),
        detector.detect_in(&text, &policy).len()
    );
}
