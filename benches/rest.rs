//! The REST path end to end: `POST /api/v1/anonymize` with 100 000 code points of generated
//! German prose (sparse, and dense: about 2,000 values) and of a generated CSV export against the real binary (bench profile) over
//! loopback, one keep-alive connection, a minimal HTTP/1.1 client written here so that the
//! client's own cost stays out of the figure. Reported beside the engine alone
//! (`tokens::anonymize` in this process) on the same text: the difference is what HTTP, JSON,
//! sealing, storing and answering cost.
//!
//! `cargo bench --bench rest` (TARNKAPPE_BENCH_RUNS sets the number of timed requests).

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use tarnkappe::detect::Detector;
use tarnkappe::tokens::anonymize;

#[path = "support/http1.rs"]
#[allow(dead_code)]
mod http1;
#[path = "support/prose.rs"]
mod prose;
#[path = "support/service.rs"]
#[allow(dead_code)]
mod service;
use http1::{read_body, read_head};
use prose::{csv, dense_prose, prose};
use service::{serve, Service};

const KEY: &str = "bench-key";

fn start() -> Service {
    serve(
        &service::proxy_bin(),
        &[
            ("TARNKAPPE_API_KEYS", format!("bench:{KEY}")),
            // Both cases together send more than the default 120 requests a minute from one key.
            ("TARNKAPPE_RATE_LIMIT", "100000".into()),
            ("RUST_LOG", "warn".into()),
        ],
    )
}

/// One request on a kept-alive connection; returns the status and the body.
fn exchange(conn: &mut BufReader<TcpStream>, request: &[u8]) -> (u16, Vec<u8>) {
    conn.get_mut().write_all(request).expect("write request");
    let head = read_head(conn).expect("head").expect("a reply");
    (head.status(), read_body(conn, &head).expect("body"))
}

fn request(text: &str) -> Vec<u8> {
    let body = serde_json::to_vec(&serde_json::json!({ "text": text })).expect("json");
    let mut req = format!(
        "POST /api/v1/anonymize HTTP/1.1\r\nhost: bench\r\nx-api-key: {KEY}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(&body);
    req
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn measure(label: &str, server: &Service, detector: &Detector, text: &str, runs: usize) {
    let req = request(text);
    let stream = TcpStream::connect(server.addr).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut conn = BufReader::with_capacity(1 << 20, stream);
    let (status, body) = exchange(&mut conn, &req);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let answer: serde_json::Value = serde_json::from_slice(&body).expect("answer");
    let entities = answer["entities"].as_array().map_or(0, Vec::len);
    let mut http = Vec::with_capacity(runs);
    let mut engine = Vec::with_capacity(runs);
    // Interleaved, so that load from elsewhere on the machine hits both alike.
    for _ in 0..runs {
        let started = Instant::now();
        let (status, _) = exchange(&mut conn, &req);
        http.push(started.elapsed());
        assert_eq!(status, 200);
        let started = Instant::now();
        std::hint::black_box(anonymize(detector, std::hint::black_box(text)));
        engine.push(started.elapsed());
    }
    let (http, engine) = (median(http), median(engine));
    println!(
        "rest/{label}: {entities} entities, request {} KB, answer {} KB | engine {:.2} ms | over HTTP {:.2} ms | HTTP, JSON, sealing and storing {:.2} ms (medians of {runs})",
        req.len() / 1024,
        body.len() / 1024,
        ms(engine),
        ms(http),
        ms(http.saturating_sub(engine)),
    );
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` runs this too: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs: usize = std::env::var("TARNKAPPE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 3 } else { 60 });
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_default();
    let server = start();
    let detector = Detector::new();
    if "prose_100k".contains(filter.as_str()) {
        measure("prose_100k", &server, &detector, &prose(100_000), runs);
    }
    if "dense_100k".contains(filter.as_str()) {
        measure(
            "dense_100k",
            &server,
            &detector,
            &dense_prose(100_000),
            runs,
        );
    }
    if "csv_100k".contains(filter.as_str()) {
        measure("csv_100k", &server, &detector, &csv(100_000), runs);
    }
}
