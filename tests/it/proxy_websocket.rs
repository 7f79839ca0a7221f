//! The Responses API over WebSocket (issue 48): the proxy accepts the upgrade, opens its own
//! socket to the upstream, anonymizes every `response.create` like a POST body and restores
//! every server event with the SSE restorer — over real sockets through the real binary.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

use crate::harness::server::TestServer;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::socket::SocketProvider;

const ANNA: &str = "Anna Schmidt";
const MAIL: &str = "anna.schmidt@example.org";

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn proxy(upstream: &SocketProvider) -> TestServer {
    TestServer::start(&[("TARNKAPPE_OPENAI_UPSTREAM", upstream.url().as_str())])
}

async fn open(server: &TestServer) -> Socket {
    let url = server.url("/v1/responses").replacen("http://", "ws://", 1);
    let mut req = url.into_client_request().unwrap();
    let auth = "Bearer sk-alice-credential".parse().unwrap();
    req.headers_mut().insert("authorization", auth);
    let (ws, _) = tokio_tungstenite::connect_async(req)
        .await
        .expect("the proxy accepts the WebSocket");
    ws
}

/// Sends `event`, returns the events up to the one that ends the response (or an error).
async fn exchange(ws: &mut Socket, event: Value) -> Vec<Value> {
    ws.send(Message::text(event.to_string())).await.unwrap();
    let mut out = Vec::new();
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("an event in time");
        let Some(Ok(Message::Text(t))) = m else {
            out.push(json!({"type": "closed"}));
            return out;
        };
        let v: Value = serde_json::from_str(t.as_str()).unwrap();
        let kind = v["type"].as_str().unwrap_or("").to_owned();
        out.push(v);
        if matches!(kind.as_str(), "response.completed" | "error") {
            return out;
        }
    }
}

fn create(input: &str, previous: Option<&str>) -> Value {
    let mut v = json!({"type": "response.create", "model": "gpt-5", "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": input}]}]});
    if let Some(p) = previous {
        v["previous_response_id"] = json!(p);
    }
    v
}

fn deltas(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "response.output_text.delta")
        .filter_map(|e| e["delta"].as_str())
        .collect()
}

fn completed(events: &[Value]) -> (String, String) {
    let last = events.last().expect("events");
    assert_eq!(last["type"], "response.completed", "{events:?}");
    let r = &last["response"];
    let text = r["output"][0]["content"][0]["text"].as_str().unwrap_or("");
    (r["id"].as_str().unwrap_or("").to_owned(), text.to_owned())
}

/// Two `response.create` on one socket, the second naming the first by
/// `previous_response_id` and holding no value: the provider sees tokens only, the client reads
/// its values back in the deltas (each token split across two of them) and the completed text.
#[test]
fn multi_turn_socket_masks_and_restores() {
    let upstream = SocketProvider::start();
    let server = proxy(&upstream);
    runtime().block_on(async {
        let mut ws = open(&server).await;
        let first = exchange(&mut ws, create(&format!("Ich bin {ANNA}, {MAIL}."), None)).await;
        let (id, text) = completed(&first);
        assert!(text.contains(ANNA) && text.contains(MAIL), "{text}");
        assert_eq!(deltas(&first), text, "the deltas restore the split tokens");
        let second = exchange(&mut ws, create("Wie heiße ich?", Some(&id))).await;
        let (_, text) = completed(&second);
        assert!(text.contains(ANNA) && text.contains(MAIL), "{text}");
        assert_eq!(deltas(&second), text);
    });
    let sent = upstream.messages();
    assert_eq!(sent.len(), 2);
    for m in &sent {
        assert!(!m.contains("Schmidt") && !m.contains(MAIL), "in clear: {m}");
        assert!(m.contains("\"type\":\"response.create\""), "{m}");
    }
    assert!(!tokens_in(&sent[0]).is_empty());
    let shake = &upstream.seen.lock().unwrap().handshakes[0];
    let auth = shake.iter().find(|(k, _)| k == "authorization");
    assert_eq!(
        auth.map(|(_, v)| v.as_str()),
        Some("Bearer sk-alice-credential")
    );
}

/// `previous_response_id` across two sockets: the second socket's turn reads the first's
/// tokens back.
#[test]
fn previous_response_id_across_sockets() {
    let upstream = SocketProvider::start();
    let server = proxy(&upstream);
    runtime().block_on(async {
        let mut ws = open(&server).await;
        let first = exchange(&mut ws, create(&format!("Ich bin {ANNA}."), None)).await;
        let (id, _) = completed(&first);
        ws.close(None).await.unwrap();
        let mut other = open(&server).await;
        let second = exchange(&mut other, create("Und wer bin ich?", Some(&id))).await;
        let (_, text) = completed(&second);
        assert!(text.contains(ANNA), "{text}");
    });
}

/// A message that cannot be anonymized (an event type the proxy does not know, a message that
/// is not JSON) gets an `error` event, nothing reaches the provider, and the socket still works.
#[test]
fn refusal_per_message_keeps_the_socket() {
    let upstream = SocketProvider::start();
    let server = proxy(&upstream);
    runtime().block_on(async {
        let mut ws = open(&server).await;
        let unknown = json!({"type": "session.update", "note": format!("{ANNA} {MAIL}")});
        let refused = exchange(&mut ws, unknown).await;
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0]["type"], "error");
        assert_eq!(refused[0]["status"], 400);
        ws.send(Message::text(format!("not json {MAIL}")))
            .await
            .unwrap();
        let m = ws.next().await.unwrap().unwrap();
        let v: Value = serde_json::from_str(m.to_text().unwrap()).unwrap();
        assert_eq!(v["type"], "error");
        let ok = exchange(&mut ws, create(&format!("Ich bin {ANNA}."), None)).await;
        assert!(completed(&ok).1.contains(ANNA));
    });
    let sent = upstream.messages();
    assert_eq!(sent.len(), 1, "only the good message went up: {sent:?}");
    assert!(!sent[0].contains("Schmidt"));
}

/// The upstream drops its connection mid-exchange: the client gets an error event or a close,
/// never a hang.
#[test]
fn dropped_upstream_ends_the_socket() {
    let upstream = SocketProvider::start();
    let server = proxy(&upstream);
    runtime().block_on(async {
        let mut ws = open(&server).await;
        let events = exchange(&mut ws, create("DROP", None)).await;
        let last = events.last().unwrap();
        assert!(
            last["type"] == "error" || last["type"] == "closed",
            "{events:?}"
        );
    });
}
