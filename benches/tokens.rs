//! Anonymize and deanonymize a 100000-code-point German text with many structured findings
//! (e-mail addresses, URLs, IPv4/IPv6, IBANs, card numbers): the largest text the API accepts.
//!
//! `cargo bench --bench tokens`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tarnkappe::detect::Detector;
use tarnkappe::tokens::{anonymize, Restorer};

/// Exactly `code_points` code points of business German with a finding every few dozen words.
fn german_text(code_points: usize) -> String {
    let ibans = [
        "DE89 3704 0044 0532 0130 00",
        "DE02120300000000202051",
        "DE02 5001 0517 5407 3249 31",
    ];
    let cards = [
        "4111 1111 1111 1111",
        "5500 0000 0000 0004",
        "3400 0000 0000 009",
    ];
    let mut text = String::new();
    let mut i = 0usize;
    while text.chars().count() < code_points {
        let n = i % 97;
        text.push_str(&format!(
            "Sehr geehrte Damen und Herren, bezüglich Vorgang {i} bitten wir um Rückmeldung an \
             kundin.{n}@beispiel-müller.de oder über https://portal.example.de/vorgang/{n}?lang=de. \
             Die Überweisung über 1.{n:03},50 € erfolgt auf {iban}; alternativ per Karte {card}. \
             Betroffen sind die Server 10.{a}.{b}.7 und 2001:db8::{n:x}. Grüße aus Köln — Ärger \
             vermeiden, Fristen beachten, Rückfragen gern telefonisch.\n",
            iban = ibans[i % ibans.len()],
            card = cards[i % cards.len()],
            a = i % 256,
            b = (i / 256) % 256,
        ));
        i += 1;
    }
    text.chars().take(code_points).collect()
}

fn bench(c: &mut Criterion) {
    let detector = Detector::new();
    let text = german_text(100_000);
    assert_eq!(text.chars().count(), 100_000);
    let result = anonymize(&detector, &text);
    let restorer = Restorer::new(
        result
            .mapping
            .iter()
            .map(|m| (m.token.as_str(), m.value.as_str())),
    );
    assert_eq!(restorer.restore(&result.anonymized_text), text);
    eprintln!(
        "text: {} code points, {} bytes, {} findings, {} distinct tokens",
        text.chars().count(),
        text.len(),
        result.entities.len(),
        result.mapping.len()
    );

    let mut group = c.benchmark_group("100k_code_points");
    group.sample_size(20);
    group.bench_function("anonymize", |b| {
        b.iter(|| anonymize(&detector, black_box(&text)))
    });
    // The detection engine alone (src/detect), to see what the token layer adds on top.
    // The duplicate-member check every REST and proxy body passes before it is parsed.
    let body = serde_json::to_vec(&serde_json::json!({
        "model": "m",
        "messages": [{"role": "user", "content": &text}, {"role": "assistant", "content": "ok"}],
    }))
    .expect("JSON");
    group.bench_function("duplicate_key_check", |b| {
        b.iter(|| tarnkappe::json::checks::has_duplicate_key(black_box(&body)))
    });
    group.bench_function("detect_only", |b| {
        b.iter(|| detector.detect(black_box(&text)))
    });
    group.bench_function("deanonymize", |b| {
        // What /deanonymize does: build the restorer from the mapping, then restore.
        b.iter(|| {
            let r = Restorer::new(
                result
                    .mapping
                    .iter()
                    .map(|m| (m.token.as_str(), m.value.as_str())),
            );
            r.restore(black_box(&result.anonymized_text))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
