//! Engine speed: anonymizing 100,000 code points of generated German prose with a realistic
//! density of personal data, the same prose under a large policy (50 allow entries, 50 deny
//! terms, 10 custom recognizers; issue 12, goal: at most +20 % over the plain case), the same
//! length of a generated CSV export (record shapes, issue 16), the same length of generated
//! source code read by an agent's tool (issue 50: code costs no more per byte than prose), and
//! building the engine (gazetteers included).
//!
//! `cargo bench --bench detect`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use tarnkappe::detect::Detector;
use tarnkappe::tokens::{anonymize, anonymize_in};

#[path = "support/prose.rs"]
mod prose;
use prose::{csv, prose};
#[path = "support/code.rs"]
mod code;
#[path = "support/policy.rs"]
mod policy;
use policy::large_policy;

fn bench(c: &mut Criterion) {
    // Cold start-up, once per process: gazetteers parsed and hashed, patterns compiled.
    let started = std::time::Instant::now();
    let detector = Detector::new();
    eprintln!(
        "startup/detector_new_cold (gazetteers included): {:.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    let text = prose(100_000);
    let mut g = c.benchmark_group("detect");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(50);
    g.bench_function("anonymize_100k_codepoints", |b| {
        b.iter(|| anonymize(&detector, black_box(&text)))
    });
    g.bench_function("detect_100k_codepoints", |b| {
        b.iter(|| detector.detect(black_box(&text)))
    });
    // The same on the calling thread alone (large texts otherwise use two, src/detect/detector.rs).
    let one_thread = Detector::new().with_parallel_from(usize::MAX);
    g.bench_function("anonymize_100k_codepoints_one_thread", |b| {
        b.iter(|| anonymize(&one_thread, black_box(&text)))
    });
    let policy = large_policy();
    let found = anonymize_in(&detector, &policy, &text).entities.len();
    eprintln!(
        "policy case: {found} findings (plain: {})",
        anonymize(&detector, &text).entities.len()
    );
    g.bench_function("anonymize_100k_codepoints_policy", |b| {
        b.iter(|| anonymize_in(&detector, &policy, black_box(&text)))
    });
    g.bench_function("detect_100k_codepoints_policy", |b| {
        b.iter(|| detector.detect_in(black_box(&text), &policy))
    });
    g.finish();
    let table = csv(100_000);
    let mut r = c.benchmark_group("records");
    r.throughput(Throughput::Bytes(table.len() as u64));
    r.sample_size(30);
    r.bench_function("anonymize_100k_codepoints_csv", |b| {
        b.iter(|| anonymize(&detector, black_box(&table)))
    });
    r.finish();
    let source = code::code(100_000);
    let mut k = c.benchmark_group("code");
    k.throughput(Throughput::Bytes(source.len() as u64));
    k.sample_size(30);
    k.bench_function("anonymize_100k_codepoints_code", |b| {
        b.iter(|| anonymize(&detector, black_box(&source)))
    });
    k.finish();
    let mut s = c.benchmark_group("startup");
    s.sample_size(10);
    // Warm: gazetteers are built once per process and shared, so this measures the patterns.
    s.bench_function("detector_new_warm", |b| {
        b.iter(|| black_box(Detector::new()))
    });
    s.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
