//! Load bench of the LLM proxy: the same requests, in one run, directly to a fast local
//! upstream (a tiny HTTP/1.1 responder written here), through a bare pingora pass-through (an
//! empty `ProxyHttp` that only names the upstream, same pingora crate and features, same number
//! of threads, run as its own process — this bench binary started again — so that its CPU time
//! is measured like the proxy's: the yardstick) and through the proxy (the real binary, bench
//! profile). Every Tarnkappe figure is reported against the bare pass-through: added time and
//! ratio.
//!
//! - 1 connection: median latency of a sparse 2 KB chat request (a few values), a dense one
//!   (~80 values) and a 100000-code-point request; the in-process anonymize time of the same
//!   body beside it.
//! - 32 connections, sparse and dense 2 KB: requests/s and CPU time per request of the bare
//!   pass-through and of the proxy.
//! - Streaming (SSE, 40 events, each its own write): time to first body byte and time per chunk.
//!
//! `cargo bench --bench load` (TARNKAPPE_BENCH_SECONDS scales the 32-connection phases;
//! TARNKAPPE_LOAD_STREAM_ONLY=1 runs the streaming phase alone;
//! TARNKAPPE_LOAD_BIN runs another build of the proxy binary; TARNKAPPE_LOAD_ANON=dense,N only
//! anonymizes one of the bodies N times in process, for callgrind). The bare pass-through is
//! pingora's plain set-up, one service over both threads; TARNKAPPE_LOAD_BARE_PER_THREAD=1
//! gives it the proxy's topology instead (one service per thread, `src/server.rs`), to see
//! what the topology alone is worth.
//!
//! Pieces for `scripts/callgrind_proxy` (instructions per proxied request, bare against proxy,
//! repeatable on a loaded machine): TARNKAPPE_LOAD_UPSTREAM=1 only runs the upstream (its
//! address on stdout), TARNKAPPE_LOAD_BARE=upstream,listen only the bare pass-through,
//! TARNKAPPE_LOAD_CLIENT=target,sparse|dense|stream,N[,proxied] only sends N requests over one
//! keep-alive connection.

use std::io::{BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "support/bare.rs"]
mod bare;
#[path = "support/http1.rs"]
#[allow(dead_code)]
mod http1;
#[path = "support/prose.rs"]
#[allow(dead_code)]
mod prose;
#[path = "support/service.rs"]
mod service;
use bare::{run_bare, start_bare, BARE_ENV};
use http1::{read_chunked, read_head, read_request, sse_event, wants_stream};
use service::{proxy_bin, serve, Service};

#[path = "support/external.rs"]
mod external;

const EMAIL: &str = "maria.keller@example.org";
const IBAN: &str = "DE89370400440532013000";
const STREAM_EVENTS: usize = 40;

// ------------------------------------------------------------------------------------------
// Fast upstream

fn start_upstream() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind upstream");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || upstream_conn(stream));
        }
    });
    addr
}

fn upstream_conn(stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let Ok(mut w) = stream.try_clone() else {
        return;
    };
    let mut r = BufReader::with_capacity(256 * 1024, stream);
    let plain = http1::chat_reply();
    let events: Vec<Vec<u8>> = (0..STREAM_EVENTS)
        .map(|i| {
            sse_event(if i % 10 == 5 {
                "an [[EMAIL_1]] "
            } else {
                "etwas Text "
            })
        })
        .collect();
    let done = http1::sse_done();
    while let Some(body) = read_request(&mut r).ok().flatten() {
        let ok = if wants_stream(&body) {
            let mut ok = w.write_all(http1::STREAM_HEAD).is_ok();
            for ev in &events {
                ok = ok && w.write_all(ev).is_ok() && w.flush().is_ok();
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

/// The environment variable that makes this binary anonymize one of the bench bodies in
/// process and exit: `sparse|dense|large[,N]` (N calls, default 1), for callgrind — the
/// instructions of N=2 minus N=1 are one warm call.
const ANON_ENV: &str = "TARNKAPPE_LOAD_ANON";

fn anonymize_only(spec: &str) {
    use tarnkappe::proxy::{anon::anonymize_body, format};
    let (which, n) = spec.split_once(',').unwrap_or((spec, "1"));
    let n: usize = n.parse().expect("N");
    let body = match which {
        "sparse" => chat_body(2000, false),
        "dense" => dense_body(),
        "large" => chat_body(100_000, false),
        other => panic!("unknown body {other}"),
    };
    let detector = tarnkappe::detect::Detector::new();
    let openai = format::for_name(tarnkappe::config::WireFormatName::Openai);
    let mut count = 0;
    for _ in 0..n {
        count = anonymize_body(&detector, openai, "chat", body.as_bytes())
            .map(|a| a.count)
            .unwrap_or(0);
    }
    println!(
        "{which}: {} B, {count} values replaced, {n} calls",
        body.len()
    );
}

// ------------------------------------------------------------------------------------------
// Minimal keep-alive client

struct Conn {
    w: TcpStream,
    r: BufReader<TcpStream>,
    /// Through the proxy: no token may reach the client.
    proxied: bool,
}

struct Timing {
    total: Duration,
    first_body_byte: Duration,
    last_body_byte: Duration,
}

impl Conn {
    fn new(addr: SocketAddr, proxied: bool) -> Conn {
        let s = TcpStream::connect(addr).expect("connect");
        s.set_nodelay(true).ok();
        Conn {
            w: s.try_clone().expect("clone"),
            r: BufReader::with_capacity(256 * 1024, s),
            proxied,
        }
    }

    fn request(&mut self, req: &[u8]) -> Timing {
        let t0 = Instant::now();
        self.w.write_all(req).expect("write");
        let head = read_head(&mut self.r).expect("head").expect("a reply");
        assert!(
            head.first.starts_with("HTTP/1.1 200"),
            "unexpected status: {}",
            head.first
        );
        let mut first = None;
        let mut last = Duration::ZERO;
        let mut body = Vec::new();
        if head.chunked {
            read_chunked(&mut self.r, &mut body, |_| {
                let now = t0.elapsed();
                first.get_or_insert(now);
                last = now;
            })
            .expect("chunked body");
        } else {
            let n = head.len.expect("a length");
            body.resize(n, 0);
            self.r.read_exact(&mut body).expect("body");
            last = t0.elapsed();
            first = Some(last);
        }
        if self.proxied {
            assert!(
                !body.windows(3).any(|w| w == b"[[E" || w == b"[[I"),
                "a token reached the client"
            );
            assert!(
                body.windows(EMAIL.len()).any(|w| w == EMAIL.as_bytes()),
                "the value was restored"
            );
        }
        Timing {
            total: t0.elapsed(),
            first_body_byte: first.unwrap_or(last),
            last_body_byte: last,
        }
    }
}

fn request_bytes(host: SocketAddr, body: &str) -> Vec<u8> {
    format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\nauthorization: Bearer sk-bench\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn chat_body(code_points: usize, stream: bool) -> String {
    let filler = "Sehr geehrte Damen und Herren, bitte prüfen Sie den Vorgang zügig. ";
    let values = format!(" Kontakt {EMAIL}, Konto {IBAN}. ");
    let mut text = String::new();
    while text.chars().count() + values.chars().count() < code_points {
        text.push_str(filler);
    }
    let mut text: String = text
        .chars()
        .take(code_points - values.chars().count())
        .collect();
    text.push_str(&values);
    chat_json(&text, stream)
}

/// About 2000 code points that are mostly values (`prose::dense`): the reply's `[[EMAIL_1]]`
/// and `[[IBAN_1]]` are the first e-mail address and IBAN here too.
fn dense_body() -> String {
    chat_json(&prose::dense(EMAIL, IBAN), false)
}

fn chat_json(text: &str, stream: bool) -> String {
    format!(
        "{{\"model\":\"gpt-4o-mini\",\"stream\":{stream},\"messages\":[{{\"role\":\"system\",\"content\":\"Du bist hilfreich.\"}},{{\"role\":\"user\",\"content\":{}}}]}}",
        serde_json::to_string(text).expect("json")
    )
}

// ------------------------------------------------------------------------------------------
// Proxy process

/// The proxy without its detection cache: every request of a phase sends the same body, which
/// the cache would answer after the first, and the goals are about detecting it.
fn start_proxy(upstream: SocketAddr) -> Service {
    start_proxy_caching(upstream, 0)
}

/// The proxy with a detection cache of `bytes` (0: off).
fn start_proxy_caching(upstream: SocketAddr, bytes: u64) -> Service {
    serve(
        &proxy_bin(),
        &[
            ("TARNKAPPE_OPENAI_UPSTREAM", format!("http://{upstream}")),
            ("TARNKAPPE_DETECTION_CACHE_BYTES", bytes.to_string()),
        ],
    )
}

/// utime + stime of a process, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, a)| a);
    let f: Vec<&str> = after.split_whitespace().collect();
    let get = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    get(11) + get(12)
}

fn clock_ticks_per_second() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

// ------------------------------------------------------------------------------------------

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn one_connection(label: &str, target: SocketAddr, req: &[u8], n: usize) -> Duration {
    let mut c = Conn::new(target, label == "proxied");
    for _ in 0..n / 10 + 5 {
        c.request(req);
    }
    let times: Vec<Duration> = (0..n).map(|_| c.request(req).total).collect();
    median(times)
}

/// The in-process anonymize time of `body` (parse, detect, replace, serialize) and the number
/// of values replaced.
fn in_process(body: &str, n: usize) -> (Duration, usize) {
    use tarnkappe::proxy::{anon::anonymize_body, format};
    let detector = tarnkappe::detect::Detector::new();
    let openai = format::for_name(tarnkappe::config::WireFormatName::Openai);
    let count = anonymize_body(&detector, openai, "chat", body.as_bytes())
        .map(|a| a.count)
        .unwrap_or(0);
    let mut all = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        std::hint::black_box(anonymize_body(&detector, openai, "chat", body.as_bytes()).ok());
        all.push(t.elapsed());
    }
    (median(all), count)
}

struct Targets {
    up: SocketAddr,
    bare: Service,
    proxy: Service,
}

fn latency(title: &str, t: &Targets, body: &str, n: usize) {
    let (anon, count) = in_process(body, (n / 10).max(2));
    let d = one_connection("direct", t.up, &request_bytes(t.up, body), n);
    let b = one_connection("bare", t.bare.addr, &request_bytes(t.bare.addr, body), n);
    let p = one_connection(
        "proxied",
        t.proxy.addr,
        &request_bytes(t.proxy.addr, body),
        n,
    );
    let added = p.saturating_sub(b);
    println!("{title} ({} B, {count} values replaced)", body.len());
    println!(
        "  medians: direct {:.3} ms, bare {:.3} ms, proxied {:.3} ms",
        ms(d),
        ms(b),
        ms(p)
    );
    println!(
        "  proxied / bare {:.2}x, added over bare {:.0} µs; in-process anonymize {:.0} µs, added / anonymize {:.2}",
        p.as_secs_f64() / b.as_secs_f64(),
        added.as_secs_f64() * 1e6,
        anon.as_secs_f64() * 1e6,
        added.as_secs_f64() / anon.as_secs_f64()
    );
}

/// Requests/s over `conns` keep-alive connections for `secs`, and CPU time per request of
/// `process` (when given).
fn throughput(
    target: SocketAddr,
    proxied: bool,
    process: Option<u32>,
    req: Arc<Vec<u8>>,
    conns: usize,
    secs: f64,
) -> (f64, f64) {
    let stop = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = (0..conns)
        .map(|_| {
            let (stop, count, req) = (stop.clone(), count.clone(), req.clone());
            std::thread::spawn(move || {
                let mut c = Conn::new(target, proxied);
                while !stop.load(Ordering::Relaxed) {
                    c.request(&req);
                    count.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let cpu0 = process.map_or(0, cpu_ticks);
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(secs));
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        let _ = h.join();
    }
    let cpu = process.map_or(0, cpu_ticks) - cpu0;
    let n = count.load(Ordering::Relaxed);
    let cpu_us = cpu as f64 / clock_ticks_per_second() * 1e6 / n.max(1) as f64;
    (n as f64 / t0.elapsed().as_secs_f64(), cpu_us)
}

fn load(title: &str, t: &Targets, body: &str, secs: f64) {
    let conns = 32;
    let (direct, _) = throughput(
        t.up,
        false,
        None,
        Arc::new(request_bytes(t.up, body)),
        conns,
        secs,
    );
    let (bare, bare_cpu) = throughput(
        t.bare.addr,
        false,
        Some(t.bare.child.id()),
        Arc::new(request_bytes(t.bare.addr, body)),
        conns,
        secs,
    );
    let (proxied, proxy_cpu) = throughput(
        t.proxy.addr,
        true,
        Some(t.proxy.child.id()),
        Arc::new(request_bytes(t.proxy.addr, body)),
        conns,
        secs,
    );
    println!("{title}, {conns} connections, {secs:.1} s each");
    println!("  req/s: direct {direct:.0}, bare {bare:.0}, proxied {proxied:.0}");
    println!(
        "  proxied / bare {:.2} (bare / direct {:.2}); CPU per request: bare {bare_cpu:.0} µs, proxy {proxy_cpu:.0} µs ({:.2}x)",
        proxied / bare,
        bare / direct,
        proxy_cpu / bare_cpu
    );
}

fn streaming(label: &str, target: SocketAddr, req: &[u8], n: usize) -> (Duration, Duration) {
    let mut c = Conn::new(target, label == "proxied");
    for _ in 0..10 {
        c.request(req);
    }
    let mut ttfb = Vec::new();
    let mut per_chunk = Vec::new();
    for _ in 0..n {
        let t = c.request(req);
        ttfb.push(t.first_body_byte);
        per_chunk.push((t.last_body_byte - t.first_body_byte) / STREAM_EVENTS as u32);
    }
    (median(ttfb), median(per_chunk))
}

/// The environment variable that makes this binary only run the upstream (its address on
/// stdout) until killed.
const UPSTREAM_ENV: &str = "TARNKAPPE_LOAD_UPSTREAM";

/// The environment variable that makes this binary only send requests over one keep-alive
/// connection: `target,sparse|dense|stream,N[,proxied]` (`proxied`: check that every reply was
/// restored). Prints the median latency.
const CLIENT_ENV: &str = "TARNKAPPE_LOAD_CLIENT";

fn client_only(spec: &str) {
    let parts: Vec<&str> = spec.split(',').collect();
    let [target, which, n, rest @ ..] = parts.as_slice() else {
        panic!("{CLIENT_ENV}: target,sparse|dense|stream,N[,proxied]");
    };
    let target: SocketAddr = target.parse().expect("target address");
    let n: usize = n.parse().expect("N");
    let body = match *which {
        "sparse" => chat_body(2000, false),
        "dense" => dense_body(),
        "stream" => chat_body(2000, true),
        other => panic!("unknown body {other}"),
    };
    let req = request_bytes(target, &body);
    let mut c = Conn::new(target, rest.first() == Some(&"proxied"));
    let times: Vec<Duration> = (0..n.max(1)).map(|_| c.request(&req).total).collect();
    println!("{which}: {n} requests, median {:.3} ms", ms(median(times)));
}

fn main() {
    if std::env::var_os(UPSTREAM_ENV).is_some() {
        println!("{}", start_upstream());
        loop {
            std::thread::park();
        }
    }
    if let Ok(spec) = std::env::var(CLIENT_ENV) {
        client_only(&spec);
        return;
    }
    if let Ok(spec) = std::env::var(BARE_ENV) {
        run_bare(&spec);
        return;
    }
    if let Ok(spec) = std::env::var(ANON_ENV) {
        anonymize_only(&spec);
        return;
    }
    // `cargo bench` passes --bench; `cargo test --benches` runs this too: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let scale = if quick { 0.05 } else { 1.0 };
    let secs: f64 = std::env::var("TARNKAPPE_BENCH_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5.0)
        * scale;
    let n = |k: usize| ((k as f64 * scale) as usize).max(3);

    let bodies = Bodies {
        sparse: chat_body(2000, false),
        dense: dense_body(),
        large: chat_body(100_000, false),
    };
    if std::env::var(STREAM_ONLY_ENV).is_ok_and(|v| v == "1") {
        streaming_phase(&n);
        return;
    }
    if std::env::var(IN_PROCESS_ENV).is_ok_and(|v| v == "1") {
        in_process_phases(&bodies, secs, &n);
    } else {
        external_phases(&bodies, secs);
    }
    streaming_phase(&n);
}

/// The request bodies of the latency and throughput phases.
struct Bodies {
    /// A 2 KB chat request with a few values.
    sparse: String,
    /// A 2 KB chat request with about 80 values.
    dense: String,
    /// A 100 000-code-point chat request.
    large: String,
}

/// The environment variable that runs the streaming phase alone (its SSE time to first byte
/// is one of the figures `benches/websocket.rs` is read beside).
const STREAM_ONLY_ENV: &str = "TARNKAPPE_LOAD_STREAM_ONLY";

/// The environment variable that drives the latency and throughput phases with this bench's
/// own client and upstream instead of wrk and nginx: a profile aid (the client's CPU on the same
/// two cores pulls the throughput ratio towards 1).
const IN_PROCESS_ENV: &str = "TARNKAPPE_LOAD_INPROCESS";

/// The figures the goals are stated in: wrk as the client, nginx as the upstream.
fn external_phases(bodies: &Bodies, secs: f64) {
    let secs = secs.ceil().max(1.0); // wrk runs whole seconds
    let scratch = external::Scratch::new();
    let nginx = external::nginx(&scratch, http1::CHAT_REPLY);
    let up = nginx.addr;
    let t = Targets {
        up,
        bare: start_bare(up),
        proxy: start_proxy(up),
    };
    println!(
        "Tarnkappe proxy load bench (client: wrk; upstream: nginx answering a fixed chat completion; bare: empty pingora ProxyHttp, 2 threads; proxy: the tarnkappe binary of this build profile)"
    );
    for body in [&bodies.sparse, &bodies.dense] {
        // every reply through the proxy is restored (Conn checks): wrk cannot look at bodies
        Conn::new(t.proxy.addr, true).request(&request_bytes(t.proxy.addr, body));
    }
    for (label, body) in [
        ("sparse 2 KB", &bodies.sparse),
        ("dense 2 KB", &bodies.dense),
    ] {
        wrk_latency(&scratch, label, &t, body, secs);
        let many = |target, pid| many_connections(&scratch, target, pid, body, secs);
        let (direct, _) = many(t.up, None);
        let (bare, bare_cpu) = many(t.bare.addr, Some(t.bare.child.id()));
        let (proxied, proxy_cpu) = many(t.proxy.addr, Some(t.proxy.child.id()));
        println!("{label}, {CONNECTIONS} connections (2 wrk threads), {secs:.1} s each");
        println!(
            "  req/s: direct {direct:.0}, bare {bare:.0}, proxied {proxied:.0}; proxied / bare {:.2}; CPU per request: bare {bare_cpu:.0} µs, proxy {proxy_cpu:.0} µs",
            proxied / bare
        );
        if label.starts_with("dense") {
            history_sent_again(&scratch, &t, body, bare, secs);
        }
    }
    drop(t);
    // nginx answers once it has the header, before the body: a large body, which the proxy
    // rewrites only after the header is sent (docs/proxy.md), would be answered before it was
    // anonymized. This bench's own upstream reads every body first, as an LLM does.
    let up = start_upstream();
    let t = Targets {
        up,
        bare: start_bare(up),
        proxy: start_proxy(up),
    };
    Conn::new(t.proxy.addr, true).request(&request_bytes(t.proxy.addr, &bodies.large));
    wrk_latency(&scratch, "100000 code points", &t, &bodies.large, secs);
    // an agent sends its whole context again with every turn
    let caching = start_proxy_caching(up, 16 * 1024 * 1024);
    Conn::new(caching.addr, true).request(&request_bytes(caching.addr, &bodies.large));
    let again = external::wrk(&scratch, caching.addr, &bodies.large, 1, 1, secs);
    println!(
        "  the same body again, detection cache on: p50 {:.0} µs (p99 {:.0} µs)",
        us(again.p50),
        us(again.p99)
    );
}

/// The dense body through a proxy with its detection cache on (the default): what a
/// conversation's history, sent again every turn, costs once it has been detected. `bare`: the
/// bare pass-through's requests/s at 32 connections, measured just before.
fn history_sent_again(scratch: &external::Scratch, t: &Targets, body: &str, bare: f64, secs: f64) {
    let caching = start_proxy_caching(t.up, 16 * 1024 * 1024);
    Conn::new(caching.addr, true).request(&request_bytes(caching.addr, body));
    let one = external::wrk(scratch, caching.addr, body, 1, 1, secs);
    let (rps, cpu) = many_connections(scratch, caching.addr, Some(caching.child.id()), body, secs);
    println!("  the same body again, detection cache on (history sent again):");
    println!(
        "  p50 {:.0} µs at 1 connection; req/s {rps:.0}, proxied / bare {:.2}; CPU per request {cpu:.0} µs",
        us(one.p50),
        rps / bare,
    );
}

/// Connections of the throughput phases.
const CONNECTIONS: usize = 32;

/// Requests a second over [`CONNECTIONS`] connections (2 wrk threads) and, when the process
/// `pid` is named, its CPU time per request in µs.
fn many_connections(
    scratch: &external::Scratch,
    target: SocketAddr,
    pid: Option<u32>,
    body: &str,
    secs: f64,
) -> (f64, f64) {
    let cpu0 = pid.map_or(0, cpu_ticks);
    let run = external::wrk(scratch, target, body, CONNECTIONS, 2, secs);
    let cpu = pid.map_or(0, cpu_ticks) - cpu0;
    let cpu_us = cpu as f64 / clock_ticks_per_second() * 1e6 / run.requests.max(1) as f64;
    (run.requests_per_second, cpu_us)
}

/// p50 and p99 at one connection: direct, bare and proxied.
fn wrk_latency(scratch: &external::Scratch, label: &str, t: &Targets, body: &str, secs: f64) {
    let one = |target| external::wrk(scratch, target, body, 1, 1, secs);
    let (direct, bare, proxied) = (one(t.up), one(t.bare.addr), one(t.proxy.addr));
    println!("{label} ({} B), 1 connection, {secs:.1} s each", body.len());
    println!(
        "  p50: direct {:.0} µs, bare {:.0} µs, proxied {:.0} µs; added over bare {:+.0} µs (p99 bare {:.0} µs, proxied {:.0} µs)",
        us(direct.p50),
        us(bare.p50),
        us(proxied.p50),
        us(proxied.p50) - us(bare.p50),
        us(bare.p99),
        us(proxied.p99),
    );
}

/// The bench's own client against its own upstream (`TARNKAPPE_LOAD_INPROCESS=1`).
fn in_process_phases(bodies: &Bodies, secs: f64, n: &dyn Fn(usize) -> usize) {
    let up = start_upstream();
    let t = Targets {
        up,
        bare: start_bare(up),
        proxy: start_proxy(up),
    };
    println!(
        "Tarnkappe proxy load bench, in-process client (upstream: local Rust responder; bare: empty pingora ProxyHttp; proxy: the tarnkappe binary of this build profile)"
    );
    latency(
        "1 connection, sparse 2 KB chat request",
        &t,
        &bodies.sparse,
        n(3000),
    );
    latency(
        "1 connection, dense 2 KB chat request",
        &t,
        &bodies.dense,
        n(3000),
    );
    latency(
        "1 connection, 100000-code-point request",
        &t,
        &bodies.large,
        n(200),
    );
    load("sparse 2 KB", &t, &bodies.sparse, secs);
    load("dense 2 KB", &t, &bodies.dense, secs);
}

/// Time to first byte and per chunk of an SSE reply (wrk cannot see either): this bench's
/// client against its own upstream, which writes every event on its own.
fn streaming_phase(n: &dyn Fn(usize) -> usize) {
    let up = start_upstream();
    let t = Targets {
        up,
        bare: start_bare(up),
        proxy: start_proxy(up),
    };
    let sbody = chat_body(2000, true);
    let (dt, dc) = streaming("direct", up, &request_bytes(up, &sbody), n(500));
    let (bt, bc) = streaming(
        "bare",
        t.bare.addr,
        &request_bytes(t.bare.addr, &sbody),
        n(500),
    );
    let (pt, pc) = streaming(
        "proxied",
        t.proxy.addr,
        &request_bytes(t.proxy.addr, &sbody),
        n(500),
    );
    println!("streaming: SSE, {STREAM_EVENTS} events per reply, each its own write");
    println!(
        "  TTFB medians: direct {:.3} ms, bare {:.3} ms, proxied {:.3} ms; per chunk: direct {:.1} µs, bare {:.1} µs, proxied {:.1} µs",
        ms(dt),
        ms(bt),
        ms(pt),
        us(dc),
        us(bc),
        us(pc)
    );
    println!(
        "  added over bare: TTFB {:.3} ms (ratio {:.2}x), per chunk {:.1} µs",
        ms(pt.saturating_sub(bt)),
        pt.as_secs_f64() / bt.as_secs_f64(),
        us(pc) - us(bc)
    );
}
