//! Bench of the Responses WebSocket: the same turns, in one run, straight to a fast local
//! WebSocket upstream (written here), through the bare pingora pass-through (which passes the
//! upgraded connection through as bytes: the yardstick, `support/bare.rs`) and through the proxy
//! (the real binary, bench profile), each a process of its own; this bench is their client.
//!
//! A turn: one `response.create` of about 2 KB holding an e-mail address, answered by
//! `response.created`, 40 `response.output_text.delta` events (each its own message, one of
//! them holding the address's token, split across two events) and `response.completed`.
//! Reported per target: median time from sending the turn to its first event, and median time
//! per event after the first; the proxy's figures as added over the bare pass-through.
//!
//! `cargo bench --bench websocket` (TARNKAPPE_BENCH_TURNS sets the turns measured per target;
//! TARNKAPPE_LOAD_BIN runs another build of the proxy binary).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

#[path = "support/bare.rs"]
mod bare;
#[path = "support/service.rs"]
mod service;
use bare::{run_bare, start_bare, BARE_ENV};
use service::{proxy_bin, serve, Service};

const EMAIL: &str = "maria.keller@example.org";
const DELTAS: usize = 40;
/// Turns sent before measuring (connection pools, caches, the allocator).
const WARM_UP: usize = 20;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

// ------------------------------------------------------------------------------------------
// Fast WebSocket upstream

/// The events answering one turn: deltas of filler text, the 6th and 7th the halves of a token.
fn reply_events() -> Vec<String> {
    let mut out = vec![
        r#"{"type":"response.created","sequence_number":0,"response":{"id":"resp_b","object":"response","status":"in_progress","output":[]}}"#.to_owned(),
    ];
    for i in 0..DELTAS {
        let delta = match i {
            5 => "an [[EMA",
            6 => "IL_1]] ",
            _ => "etwas Text ",
        };
        out.push(format!(
            r#"{{"type":"response.output_text.delta","sequence_number":{},"item_id":"msg_b","output_index":0,"content_index":0,"delta":"{delta}"}}"#,
            i + 1
        ));
    }
    out.push(
        r#"{"type":"response.completed","sequence_number":99,"response":{"id":"resp_b","object":"response","status":"completed","output":[]}}"#.to_owned(),
    );
    out
}

fn start_upstream() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind upstream");
    listener.set_nonblocking(true).expect("nonblocking");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        runtime().block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            while let Ok((tcp, _)) = listener.accept().await {
                tcp.set_nodelay(true).ok();
                tokio::spawn(upstream_socket(tcp));
            }
        });
    });
    addr
}

async fn upstream_socket(tcp: tokio::net::TcpStream) {
    let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
        return;
    };
    let events = reply_events();
    while let Some(Ok(m)) = ws.next().await {
        if !m.is_text() {
            continue;
        }
        for e in &events {
            if ws.send(Message::text(e.clone())).await.is_err() {
                return;
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// Client

/// A `response.create` of about 2 KB with one e-mail address in it.
fn turn() -> String {
    let filler = "Bitte fasse den Vorgang kurz zusammen und nenne die nächsten Schritte. ";
    let text = format!("Schreib an {EMAIL}. {}", filler.repeat(28));
    serde_json::json!({"type": "response.create", "model": "gpt-5", "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]})
    .to_string()
}

async fn open(target: SocketAddr) -> Socket {
    let url = format!("ws://{target}/v1/responses");
    let (ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("the WebSocket opens");
    ws
}

/// One turn: time to the first event, time from the first to the last; with the text the
/// deltas make (the proxy's restored).
async fn one_turn(ws: &mut Socket, req: &str) -> (Duration, Duration, String) {
    let t0 = Instant::now();
    ws.send(Message::text(req.to_owned())).await.expect("send");
    let mut first = None;
    let mut text = String::new();
    loop {
        let m = ws.next().await.expect("an event").expect("a message");
        let now = t0.elapsed();
        first.get_or_insert(now);
        let Message::Text(t) = m else { continue };
        let v: serde_json::Value = serde_json::from_str(t.as_str()).expect("JSON");
        if let Some(d) = v["delta"].as_str() {
            text.push_str(d);
        }
        if v["type"] == "response.completed" {
            let first = first.unwrap_or(now);
            return (first, now - first, text);
        }
    }
}

/// Medians over `n` turns on one socket: first event, and per event after it.
fn measure(label: &str, target: SocketAddr, n: usize) -> (Duration, Duration) {
    let req = turn();
    runtime().block_on(async {
        let mut ws = open(target).await;
        for _ in 0..WARM_UP {
            one_turn(&mut ws, &req).await;
        }
        let (mut firsts, mut per_event) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let (first, rest, text) = one_turn(&mut ws, &req).await;
            if label == "proxied" {
                assert!(text.contains(EMAIL), "restored: {text}");
                assert!(!text.contains("[["), "no token reaches the client: {text}");
            }
            firsts.push(first);
            per_event.push(rest / (DELTAS as u32 + 1));
        }
        (median(firsts), median(per_event))
    })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn start_proxy(upstream: SocketAddr) -> Service {
    serve(
        &proxy_bin(),
        &[
            ("TARNKAPPE_OPENAI_UPSTREAM", format!("http://{upstream}")),
            ("TARNKAPPE_DETECTION_CACHE_BYTES", "0".to_owned()),
        ],
    )
}

fn main() {
    if let Ok(spec) = std::env::var(BARE_ENV) {
        run_bare(&spec);
        return;
    }
    // `cargo bench` passes --bench; `cargo test --benches` runs this too: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let n = std::env::var("TARNKAPPE_BENCH_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 5 } else { 1000 });
    let up = start_upstream();
    let bare = start_bare(up);
    let proxy = start_proxy(up);
    let (df, de) = measure("direct", up, n);
    let (bf, be) = measure("bare", bare.addr, n);
    let (pf, pe) = measure("proxied", proxy.addr, n);
    println!("websocket: {n} turns per target, {DELTAS} deltas per turn, each its own message");
    println!(
        "  first event medians: direct {:.3} ms, bare {:.3} ms, proxied {:.3} ms; per event: direct {:.1} µs, bare {:.1} µs, proxied {:.1} µs",
        ms(df),
        ms(bf),
        ms(pf),
        us(de),
        us(be),
        us(pe)
    );
    println!(
        "  added over bare: first event {:.3} ms, per event {:.1} µs",
        ms(pf.saturating_sub(bf)),
        us(pe) - us(be)
    );
}
