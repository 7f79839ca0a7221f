//! The REST path end to end: `POST /api/v1/anonymize` with 100 000 code points of generated
//! German prose (sparse, and dense: about 2,000 values) and of a generated CSV export against the real binary (bench profile) over
//! loopback, one keep-alive connection, a minimal HTTP/1.1 client written here so that the
//! client's own cost stays out of the figure. Reported beside the engine alone
//! (`tokens::anonymize` in this process) on the same text: the difference is what HTTP, JSON,
//! sealing, storing and answering cost.
//!
//! `cargo bench --bench rest` (TARNKAPPE_BENCH_RUNS sets the number of timed requests).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tarnkappe::detect::Detector;
use tarnkappe::tokens::anonymize;

#[path = "support/prose.rs"]
mod prose;
use prose::{csv, dense_prose, prose};

const KEY: &str = "bench-key";

struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Server {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
    let child = Command::new(env!("CARGO_BIN_EXE_tarnkappe"))
        .arg("serve")
        .env("TARNKAPPE_LISTEN", addr.to_string())
        .env("TARNKAPPE_API_KEYS", format!("bench:{KEY}"))
        // Both cases together send more than the default 120 requests a minute from one key.
        .env("TARNKAPPE_RATE_LIMIT", "100000")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tarnkappe");
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Server { child, addr }
}

/// One request on a kept-alive connection; returns the status and the body.
fn exchange(conn: &mut BufReader<TcpStream>, request: &[u8]) -> (u16, Vec<u8>) {
    conn.get_mut().write_all(request).expect("write request");
    let mut line = String::new();
    conn.read_line(&mut line).expect("status line");
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status code");
    let mut length = 0usize;
    loop {
        line.clear();
        conn.read_line(&mut line).expect("header line");
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().expect("content-length");
            }
        }
    }
    let mut body = vec![0u8; length];
    conn.read_exact(&mut body).expect("body");
    (status, body)
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

fn measure(label: &str, server: &Server, detector: &Detector, text: &str, runs: usize) {
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
