//! The proxy's value replacement on hostile bodies (issue 29, item 13): 14 000 e-mail
//! addresses `x{i}@b.de` before 280 KB of `x` (every value starts with the padding's byte),
//! the same with a padding of `y` (no value starts with it), and a tenth of both. Replacement
//! is linear in the body whatever the values: the four cases differ by the detector's work
//! and the body's length, not by values × text.
//!
//! `cargo bench --bench values`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use tarnkappe::detect::Detector;
use tarnkappe::proxy::{anon::anonymize_body, format};

/// A chat request with `n` addresses `x{i}@b.de` and `pad` bytes of `fill`.
fn body(n: usize, pad: usize, fill: char) -> String {
    let mut text = String::with_capacity(n * 12 + pad);
    for i in 0..n {
        text += &format!("x{i}@b.de ");
    }
    text.extend(std::iter::repeat_n(fill, pad));
    serde_json::json!({"model": "m", "messages": [{"role": "user", "content": text}]}).to_string()
}

fn bench(c: &mut Criterion) {
    let detector = Detector::new();
    let openai = format::for_name(tarnkappe::config::WireFormatName::Openai);
    let mut g = c.benchmark_group("values");
    g.sample_size(10);
    for (name, n, pad, fill) in [
        ("14000_values_280k_x", 14_000, 280_000, 'x'),
        ("14000_values_280k_y", 14_000, 280_000, 'y'),
        ("1400_values_28k_x", 1_400, 28_000, 'x'),
        ("1400_values_28k_y", 1_400, 28_000, 'y'),
    ] {
        let body = body(n, pad, fill);
        let replaced = anonymize_body(&detector, openai, "chat", body.as_bytes())
            .map(|a| a.count)
            .unwrap_or(0);
        assert_eq!(replaced, n, "{name}: every address replaced");
        g.throughput(Throughput::Bytes(body.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| anonymize_body(&detector, openai, "chat", black_box(body.as_bytes())))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
