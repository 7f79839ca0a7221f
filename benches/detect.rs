//! Engine speed: anonymizing 100,000 code points of generated German prose with a realistic
//! density of personal data, the same prose under a large policy (50 allow entries, 50 deny
//! terms, 10 custom recognizers; issue 12, goal: at most +20 % over the plain case), the same
//! length of a generated CSV export (record shapes, issue 16), and building the engine
//! (gazetteers included).
//!
//! `cargo bench --bench detect`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use tarnkappe::detect::Detector;
use tarnkappe::policy::config::{DenyConfig, RecognizerConfig, Validator};
use tarnkappe::policy::{Policy, PolicyConfig};
use tarnkappe::tokens::{anonymize, anonymize_in};

#[path = "support/prose.rs"]
mod prose;
use prose::{csv, prose};

/// A large policy: 50 allow literals (a few occur in the prose), 50 deny terms in two custom
/// types and PERSON (a few occur), 10 custom recognizers with every validator and with and
/// without context words.
fn large_policy() -> Policy {
    let mut allow: Vec<String> = (0..46)
        .map(|i| format!("Firma {i} GmbH & Co. KG"))
        .collect();
    allow.extend(["Koch", "Kantine", "Version 2.4.1", "Lindenstraße"].map(String::from));
    let mut projects: Vec<String> = (0..40).map(|i| format!("Projekt{i:02}")).collect();
    projects.extend(["Spediteur", "Widerspruch", "Heizung"].map(String::from));
    let people: Vec<String> = (0..7).map(|i| format!("Testperson{i}")).collect();
    let recognizer = |t: &str, regex: &str, validator, context: &[&str]| RecognizerConfig {
        entity_type: t.to_owned(),
        prefix: None,
        regex: regex.to_owned(),
        validator,
        context: context.iter().map(|w| (*w).to_owned()).collect(),
        score: 0.9,
    };
    let config = PolicyConfig {
        allow,
        deny: vec![
            DenyConfig {
                entity_type: "PROJEKT".into(),
                prefix: None,
                terms: projects,
            },
            DenyConfig {
                entity_type: "PERSON".into(),
                prefix: None,
                terms: people,
            },
        ],
        recognizers: vec![
            recognizer(
                "KUNDE",
                r"\b[0-9]{4}-[0-9]{2}\b",
                Validator::None,
                &["kundennummer"],
            ),
            recognizer(
                "RECHNUNG",
                r"\bRE-[0-9]{4}-[0-9]{4}\b",
                Validator::None,
                &[],
            ),
            recognizer("VERTRAG", r"\bV[0-9]{7}\b", Validator::Luhn, &[]),
            recognizer("KONTO", r"\bKTO[0-9]{10}\b", Validator::Mod97, &["konto"]),
            recognizer("MITGLIED", r"\bM[0-9]{8}\b", Validator::Mod11, &[]),
            recognizer(
                "TICKET",
                r"\bTCK-[A-Z]{3}-[0-9]{5}\b",
                Validator::None,
                &["ticket"],
            ),
            recognizer(
                "AKTE",
                r"\bAZ [0-9]{1,4}/[0-9]{2}\b",
                Validator::None,
                &["aktenzeichen"],
            ),
            recognizer("GERAET", r"\bSN[A-F0-9]{12}\b", Validator::None, &[]),
            recognizer(
                "LIZENZ",
                r"\bLIC-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
                Validator::None,
                &[],
            ),
            recognizer(
                "PERSONAL",
                r"\bPN[0-9]{6}\b",
                Validator::Luhn,
                &["personalnummer"],
            ),
        ],
        ..PolicyConfig::default()
    };
    Policy::compile("bench", &config).expect("bench policy")
}

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
    let policy = large_policy();
    let found = anonymize_in(&detector, &policy, &text).entities.len();
    eprintln!(
        "policy case: {found} findings (plain: {})",
        anonymize(&detector, &text).entities.len()
    );
    g.bench_function("anonymize_100k_codepoints_policy", |b| {
        b.iter(|| anonymize_in(&detector, &policy, black_box(&text)))
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
