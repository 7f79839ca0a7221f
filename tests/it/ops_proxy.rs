//! The LLM proxy with the operations features: its responses carry `X-Request-Id`, it is counted
//! in the metrics, and SIGTERM lets a stream in flight finish (that it works while Redis is down:
//! `ops_redis`).

use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness;
use crate::harness::config::edited;
use crate::harness::http::client;
use crate::harness::metrics::metrics_when;
use crate::harness::server::TestServer;
use crate::harness::upstream::{chat_completion, FakeUpstream, Reply};

fn sse_pieces(words: &[&str]) -> Vec<String> {
    let mut pieces: Vec<String> = words
        .iter()
        .map(|w| {
            let event = json!({
                "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": null}]
            });
            format!("data: {event}\n\n")
        })
        .collect();
    pieces.push("data: [DONE]\n\n".to_owned());
    pieces
}

#[test]
fn upstream_failures_are_counted() {
    // A port nothing listens on.
    let dead = harness::server::free_port();
    let server = TestServer::start(&[
        ("TARNKAPPE_API_KEYS", "x:kx"),
        (
            "TARNKAPPE_OPENAI_UPSTREAM",
            &format!("http://127.0.0.1:{dead}"),
        ),
    ]);
    let http = client();
    let resp = http
        .post(server.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "messages": [{"role": "user", "content": "hallo"}]}))
        .send()
        .expect("request");
    assert!(resp.status().is_server_error(), "{}", resp.status());
    // A new connection: the proxy closes the one of a failed exchange.
    let connect_error = r#"tarnkappe_upstream_errors_total{kind="connect"} 1"#;
    let metrics = metrics_when(&server, |m| m.contains(connect_error));
    assert!(metrics.contains(connect_error), "{metrics}");
}

#[test]
fn sigterm_lets_a_stream_in_flight_finish() {
    let words = ["Das ", "ist ", "ein ", "langsamer ", "Strom."];
    let pieces = sse_pieces(&words);
    let upstream = FakeUpstream::start(move |_| {
        Reply::paced(
            "text/event-stream",
            pieces.clone(),
            Duration::from_millis(400),
        )
    });
    let toml = edited(&[("grace_period_seconds = 10", "grace_period_seconds = 5")]);
    let mut server = TestServer::start_with_config(
        &[
            ("TARNKAPPE_API_KEYS", "x:kx"),
            ("TARNKAPPE_OPENAI_UPSTREAM", &upstream.url()),
        ],
        &toml,
    );
    let mut resp = client()
        .post(server.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "hallo"}]}))
        .send()
        .expect("request");
    assert_eq!(resp.status(), 200);
    // The stream has begun; now SIGTERM.
    let mut first = [0u8; 16];
    resp.read_exact(&mut first).expect("first bytes");
    let started = Instant::now();
    assert!(server.sigterm(), "SIGTERM sent");
    let mut rest = String::new();
    resp.read_to_string(&mut rest)
        .expect("the rest of the stream");
    let stream = format!("{}{rest}", String::from_utf8_lossy(&first));
    assert!(
        stream.contains("data: [DONE]"),
        "the stream was cut: {stream}"
    );
    for w in words {
        assert!(stream.contains(w), "{w:?} missing: {stream}");
    }
    assert!(
        started.elapsed() >= Duration::from_millis(1200),
        "the stream ran on after SIGTERM"
    );
    assert!(
        server.terminate(Duration::from_secs(15)),
        "no exit after the grace period"
    );
}

/// Every worker thread listens on the port itself (`SO_REUSEPORT`) and keeps its own upstream
/// connections: requests one after another, each on a new client connection (spread over the
/// threads by the kernel), reuse one upstream connection per thread instead of opening new
/// ones. The port stays this process's own: a second `tarnkappe serve` on it is refused at
/// start with one sentence, and the first goes on serving.
#[test]
fn worker_threads_share_the_port_but_no_other_process_does() {
    let up = FakeUpstream::start(|_| Reply::json(&chat_completion("Gern, [[EMAIL_1]].")));
    let server = up.proxy(&[("TARNKAPPE_API_KEYS", "t:k")]);
    let ask = |i: usize| {
        // a client of its own: a new connection, placed by the kernel
        let resp = reqwest::blocking::Client::new()
            .post(server.url("/v1/chat/completions"))
            .json(&json!({"model": "m", "messages": [
                {"role": "user", "content": format!("Bitte an kunde{i}@example.org schreiben")}
            ]}))
            .send()
            .expect("request");
        assert_eq!(resp.status(), 200);
        let reply: Value = resp.json().expect("json reply");
        assert_eq!(
            reply["choices"][0]["message"]["content"],
            format!("Gern, kunde{i}@example.org.")
        );
    };
    for i in 0..24 {
        ask(i);
    }
    let requests = up.requests();
    assert_eq!(requests.len(), 24);
    let connections: std::collections::HashSet<_> = requests.iter().map(|r| r.peer).collect();
    assert!(
        connections.len() <= 2,
        "{} upstream connections for 24 requests one after another (2 worker threads)",
        connections.len()
    );

    let listen = server.addr.to_string();
    let (status, stderr) = harness::server::refused_start(
        &[("TARNKAPPE_LISTEN", &listen), ("TARNKAPPE_API_KEYS", "t:k")],
        &[],
    );
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("server.listen: cannot listen on {listen}")),
        "{stderr}"
    );
    ask(24);
}
