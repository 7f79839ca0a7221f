//! Soak bench: the real binary (bench profile, i.e. release with line tables) against a local
//! fake upstream that streams SSE slowly, held under 500 concurrent streaming chat requests
//! plus a paced mixed load (non-streaming chat through the proxy; REST anonymize → deanonymize
//! by session → delete the session) for a fixed time, while the service's resident memory
//! (VmRSS of `/proc/<pid>/status`) is sampled. Prints every sample, first/last/max, the
//! request counts and a flatness verdict: the median of the last quarter of the samples within
//! 10 % of the median of the second quarter (the first quarter is warm-up).
//!
//! `cargo bench --bench soak` runs 10 minutes. TARNKAPPE_SOAK_SECONDS shortens it,
//! TARNKAPPE_SOAK_STREAMS sets the concurrent streams (default 500),
//! TARNKAPPE_SOAK_SAMPLE_SECONDS the sampling interval (default 5), TARNKAPPE_LOAD_BIN runs
//! another build of the proxy. Loopback only; every loop ends when the time is up, every read
//! has a timeout. `cargo test --benches` runs it for a few seconds with 20 streams.

use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "support/http1.rs"]
mod http1;
#[path = "support/service.rs"]
#[allow(dead_code)]
mod service;
use http1::{chat_reply, read_body, read_head, read_request, sse_done, sse_event, wants_stream};
use service::{proxy_bin, serve, Service};

const EMAIL: &str = "maria.keller@example.org";
const IBAN: &str = "DE89370400440532013000";
const KEY: &str = "soak-key";
/// Events per streamed reply and the pause before each: a reply lasts about 6 s.
const STREAM_EVENTS: usize = 30;
const EVENT_PAUSE: Duration = Duration::from_millis(200);
/// Threads of the mixed load and the pause between two of their requests.
const MIXED_WORKERS: usize = 4;
const MIXED_PAUSE: Duration = Duration::from_millis(20);
const IO_TIMEOUT: Duration = Duration::from_secs(30);

// ------------------------------------------------------------------------------------------
// Slow upstream

fn start_upstream() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind upstream");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            spawn_small(move || upstream_conn(stream));
        }
    });
    addr
}

/// Threads with a small stack: there are over a thousand of them.
fn spawn_small<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> std::thread::JoinHandle<T> {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn thread")
}

fn upstream_conn(stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(120)));
    let Ok(mut w) = stream.try_clone() else {
        return;
    };
    let mut r = BufReader::new(stream);
    let plain = chat_reply();
    let done = sse_done();
    while let Some(body) = read_request(&mut r).ok().flatten() {
        let ok = if wants_stream(&body) {
            let mut ok = w.write_all(http1::STREAM_HEAD).is_ok() && w.flush().is_ok();
            for i in 0..STREAM_EVENTS {
                std::thread::sleep(EVENT_PAUSE);
                let text = match i % 10 {
                    3 => "an [[EMAIL_1]] ",
                    7 => "Konto [[IBAN_1]] ",
                    _ => "etwas Text ",
                };
                ok = ok && w.write_all(&sse_event(text)).is_ok() && w.flush().is_ok();
            }
            ok && w.write_all(done.as_bytes()).is_ok()
        } else {
            w.write_all(plain.as_bytes()).is_ok()
        };
        if !ok {
            return;
        }
    }
}

// ------------------------------------------------------------------------------------------
// Client

/// One keep-alive client connection, opened again after an error.
struct Conn {
    addr: SocketAddr,
    io: Option<(TcpStream, BufReader<TcpStream>)>,
}

impl Conn {
    fn new(addr: SocketAddr) -> Conn {
        Conn { addr, io: None }
    }

    fn open(addr: SocketAddr) -> std::io::Result<(TcpStream, BufReader<TcpStream>)> {
        let s = TcpStream::connect(addr)?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(IO_TIMEOUT))?;
        Ok((s.try_clone()?, BufReader::new(s)))
    }

    /// Sends `req` and answers the status code and the body; drops the connection on error.
    fn request(&mut self, req: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
        let res = self.exchange(req);
        if res.is_err() {
            self.io = None;
        }
        res
    }

    fn exchange(&mut self, req: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
        if self.io.is_none() {
            self.io = Some(Conn::open(self.addr)?);
        }
        let Some((w, r)) = self.io.as_mut() else {
            return Err(std::io::ErrorKind::NotConnected.into());
        };
        w.write_all(req)?;
        let head = read_head(r)?.ok_or(std::io::ErrorKind::UnexpectedEof)?;
        Ok((head.status(), read_body(r, &head)?))
    }
}

fn request(method: &str, path: &str, key: bool, body: &str) -> Vec<u8> {
    let key = if key {
        format!("x-api-key: {KEY}\r\n")
    } else {
        String::new()
    };
    format!(
        "{method} {path} HTTP/1.1\r\nhost: soak\r\n{key}content-type: application/json\r\nauthorization: Bearer sk-soak\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn chat(stream: bool, i: u64) -> Vec<u8> {
    let text = format!(
        "Anfrage {i}: bitte schreiben Sie an {EMAIL} wegen der Überweisung auf {IBAN}. Danke!"
    );
    let body = format!(
        "{{\"model\":\"gpt-4o-mini\",\"stream\":{stream},\"messages\":[{{\"role\":\"user\",\"content\":{}}}]}}",
        serde_json::to_string(&text).expect("json")
    );
    request("POST", "/v1/chat/completions", false, &body)
}

/// A reply through the proxy holds the restored values and no token.
fn restored(body: &[u8]) -> bool {
    let has = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
    has(EMAIL.as_bytes()) && has(IBAN.as_bytes()) && !has(b"[[")
}

// ------------------------------------------------------------------------------------------
// Load

#[derive(Default)]
struct Counts {
    streams: AtomicU64,
    chats: AtomicU64,
    rest_rounds: AtomicU64,
    errors: AtomicU64,
    leaks: AtomicU64,
}

impl Counts {
    fn outcome(&self, done: &AtomicU64, res: std::io::Result<(u16, Vec<u8>)>) {
        match res {
            Ok((200, body)) if restored(&body) => done.fetch_add(1, Ordering::Relaxed),
            Ok((200, _)) => self.leaks.fetch_add(1, Ordering::Relaxed),
            _ => self.errors.fetch_add(1, Ordering::Relaxed),
        };
    }
}

fn chat_worker(proxy: SocketAddr, stream: bool, stop: Arc<AtomicBool>, counts: Arc<Counts>) {
    let mut c = Conn::new(proxy);
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        let res = c.request(&chat(stream, i));
        let done = if stream {
            &counts.streams
        } else {
            &counts.chats
        };
        counts.outcome(done, res);
        if !stream {
            std::thread::sleep(MIXED_PAUSE);
        }
    }
}

/// anonymize → deanonymize by session → delete the session; an error ends the round.
fn rest_round(c: &mut Conn, i: u64) -> Result<(), ()> {
    let text = format!("Vorgang {i}: Kontakt {EMAIL}, Konto {IBAN}.");
    let body = serde_json::json!({ "text": text }).to_string();
    let (status, reply) = c
        .request(&request("POST", "/api/v1/anonymize", true, &body))
        .map_err(|_| ())?;
    let v: serde_json::Value = serde_json::from_slice(&reply).map_err(|_| ())?;
    let (Some(session), Some(anon)) = (v["session_id"].as_str(), v["anonymized_text"].as_str())
    else {
        return Err(());
    };
    if status != 200 || anon.contains(EMAIL) {
        return Err(());
    }
    let body = serde_json::json!({ "text": anon, "session_id": session }).to_string();
    let (status, reply) = c
        .request(&request("POST", "/api/v1/deanonymize", true, &body))
        .map_err(|_| ())?;
    if status != 200 || !reply.windows(EMAIL.len()).any(|w| w == EMAIL.as_bytes()) {
        return Err(());
    }
    let path = format!("/api/v1/session/{session}");
    match c.request(&request("DELETE", &path, true, "")) {
        Ok((200, _)) => Ok(()),
        _ => Err(()),
    }
}

fn rest_worker(proxy: SocketAddr, stop: Arc<AtomicBool>, counts: Arc<Counts>) {
    let mut c = Conn::new(proxy);
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        match rest_round(&mut c, i) {
            Ok(()) => counts.rest_rounds.fetch_add(1, Ordering::Relaxed),
            Err(()) => counts.errors.fetch_add(1, Ordering::Relaxed),
        };
        std::thread::sleep(MIXED_PAUSE);
    }
}

// ------------------------------------------------------------------------------------------
// Proxy process and memory

fn start_proxy(upstream: SocketAddr) -> Service {
    serve(
        &proxy_bin(),
        &[
            ("TARNKAPPE_OPENAI_UPSTREAM", format!("http://{upstream}")),
            ("TARNKAPPE_API_KEYS", format!("soak:{KEY}")),
            ("TARNKAPPE_RATE_LIMIT", "1000000".into()),
            ("RUST_LOG", "warn".into()),
        ],
    )
}

/// VmRSS of a process in KiB (0 when it cannot be read).
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn median(v: &[u64]) -> u64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// First, last, max and the verdict: last-quarter median against second-quarter median.
fn summary(samples: &[u64]) {
    let n = samples.len();
    let (first, last) = (samples[0], samples[n - 1]);
    let max = samples.iter().copied().max().unwrap_or(0);
    let q2 = median(&samples[n / 4..(n / 2).max(n / 4 + 1)]);
    let q4 = median(&samples[(3 * n / 4).min(n - 1)..]);
    let change = (q4 as f64 - q2 as f64) / q2.max(1) as f64 * 100.0;
    let flat = change.abs() <= 10.0;
    println!(
        "RSS: first {:.1} MiB, last {:.1} MiB, max {:.1} MiB; median of the second quarter {:.1} MiB, of the last quarter {:.1} MiB ({change:+.1} %)",
        mib(first),
        mib(last),
        mib(max),
        mib(q2),
        mib(q4)
    );
    println!(
        "verdict: {}",
        if flat {
            "flat (within 10 %)"
        } else {
            "NOT flat (beyond 10 %)"
        }
    );
}

fn sample_loop(pid: u32, secs: u64, every: u64, counts: &Counts, stop: &AtomicBool) -> Vec<u64> {
    let t0 = Instant::now();
    let mut samples = Vec::new();
    println!("   t s   RSS MiB   streams   chats   rest rounds   errors   leaks");
    while t0.elapsed().as_secs() < secs {
        std::thread::sleep(Duration::from_secs(every).min(Duration::from_secs(secs)));
        let kib = rss_kib(pid);
        let t = t0.elapsed().as_secs();
        println!(
            "{t:>6} {:>9.1} {:>9} {:>7} {:>13} {:>8} {:>7}",
            mib(kib),
            counts.streams.load(Ordering::Relaxed),
            counts.chats.load(Ordering::Relaxed),
            counts.rest_rounds.load(Ordering::Relaxed),
            counts.errors.load(Ordering::Relaxed),
            counts.leaks.load(Ordering::Relaxed)
        );
        samples.push(kib);
    }
    stop.store(true, Ordering::Relaxed);
    samples
}

fn main() {
    // `cargo test --benches` runs this too: keep that short.
    let quick = !std::env::args().any(|a| a == "--bench");
    let secs = env_u64("TARNKAPPE_SOAK_SECONDS", if quick { 6 } else { 600 }).max(1);
    let streams = env_u64("TARNKAPPE_SOAK_STREAMS", if quick { 20 } else { 500 });
    let every = env_u64("TARNKAPPE_SOAK_SAMPLE_SECONDS", if quick { 1 } else { 5 }).max(1);

    let up = start_upstream();
    let proxy = start_proxy(up);
    let pid = proxy.child.id();
    println!(
        "Tarnkappe soak: {streams} concurrent SSE streams ({STREAM_EVENTS} events, one every {} ms) + {MIXED_WORKERS} chat and {MIXED_WORKERS} REST workers (pause {} ms), {secs} s, RSS every {every} s",
        EVENT_PAUSE.as_millis(),
        MIXED_PAUSE.as_millis()
    );
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Counts::default());
    let mut workers = Vec::new();
    for i in 0..streams as usize + 2 * MIXED_WORKERS {
        let (stop, counts, addr) = (stop.clone(), counts.clone(), proxy.addr);
        workers.push(spawn_small(move || match i {
            i if i < MIXED_WORKERS => chat_worker(addr, false, stop, counts),
            i if i < 2 * MIXED_WORKERS => rest_worker(addr, stop, counts),
            _ => chat_worker(addr, true, stop, counts),
        }));
    }
    let samples = sample_loop(pid, secs, every, &counts, &stop);
    for w in workers {
        let _ = w.join();
    }
    summary(&samples);
    let c = &counts;
    println!(
        "completed: {} streams, {} chats, {} REST rounds; {} errors, {} replies with a token or without the values",
        c.streams.load(Ordering::Relaxed),
        c.chats.load(Ordering::Relaxed),
        c.rest_rounds.load(Ordering::Relaxed),
        c.errors.load(Ordering::Relaxed),
        c.leaks.load(Ordering::Relaxed)
    );
    assert_eq!(
        c.leaks.load(Ordering::Relaxed),
        0,
        "a token reached the client"
    );
}
