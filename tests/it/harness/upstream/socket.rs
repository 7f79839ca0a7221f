//! A fake Responses provider over WebSocket: records the handshake headers and every message
//! it receives, and answers each `response.create` like the HTTP echo: a response whose text
//! is "Echo:" and the tokens it was sent (and those of the response named by
//! `previous_response_id`), each token split across two `response.output_text.delta` events.
//! An input holding `DROP` makes it cut the connection without a close.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::handshake::server::{
    Callback, ErrorResponse, Request, Response,
};
use tokio_tungstenite::tungstenite::Message;

use crate::harness::tokens::tokens_in;

#[derive(Default)]
pub struct Seen {
    /// Handshake headers of each socket, lower-case names.
    pub handshakes: Vec<Vec<(String, String)>>,
    /// Every text message received, in order.
    pub messages: Vec<String>,
    /// Tokens each response id was made from.
    responses: HashMap<String, Vec<String>>,
}

pub struct SocketProvider {
    pub addr: SocketAddr,
    pub seen: Arc<Mutex<Seen>>,
}

impl SocketProvider {
    pub fn start() -> SocketProvider {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        std_listener.set_nonblocking(true).unwrap();
        let addr = std_listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let shared = seen.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(std_listener).unwrap();
                while let Ok((tcp, _)) = listener.accept().await {
                    tokio::spawn(serve(tcp, shared.clone()));
                }
            });
        });
        SocketProvider { addr, seen }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn messages(&self) -> Vec<String> {
        self.seen.lock().unwrap().messages.clone()
    }
}

async fn serve(tcp: tokio::net::TcpStream, seen: Arc<Mutex<Seen>>) {
    let callback = Handshake(seen.clone());
    let Ok(mut ws) = tokio_tungstenite::accept_hdr_async(tcp, callback).await else {
        return;
    };
    let mut n = 0;
    while let Some(Ok(m)) = ws.next().await {
        let Message::Text(text) = m else { continue };
        seen.lock().unwrap().messages.push(text.to_string());
        if text.contains("DROP") {
            return; // dropped without a close frame
        }
        let Ok(event) = serde_json::from_str::<Value>(text.as_str()) else {
            continue;
        };
        n += 1;
        for out in answer(&event, n, &seen) {
            if ws.send(Message::text(out.to_string())).await.is_err() {
                return;
            }
        }
    }
}

/// Records the headers of each handshake.
struct Handshake(Arc<Mutex<Seen>>);

impl Callback for Handshake {
    fn on_request(self, req: &Request, resp: Response) -> Result<Response, ErrorResponse> {
        let headers = req
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
            .collect();
        self.0.lock().unwrap().handshakes.push(headers);
        Ok(resp)
    }
}

/// The events answering one `response.create`.
fn answer(event: &Value, n: usize, seen: &Mutex<Seen>) -> Vec<Value> {
    let id = format!("resp_{}_{}_{n}", std::process::id(), rand_part());
    let mut tokens = Vec::new();
    {
        let seen = seen.lock().unwrap();
        if let Some(prev) = event["previous_response_id"].as_str() {
            tokens.extend(seen.responses.get(prev).cloned().unwrap_or_default());
        }
    }
    tokens.extend(tokens_in(&event["input"].to_string()));
    seen.lock()
        .unwrap()
        .responses
        .insert(id.clone(), tokens.clone());
    let response = |status: &str, text: &str| {
        json!({"id": id, "object": "response", "status": status, "model": "m",
            "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}]})
    };
    let mut out = vec![
        json!({"type": "response.created", "sequence_number": 0, "response": response("in_progress", "")}),
    ];
    // each token split in its middle across two deltas
    let mut pieces = vec!["Echo: ".to_owned()];
    for t in &tokens {
        let mid = t.len() / 2;
        pieces.push(t[..mid].to_owned());
        pieces.push(format!("{} ", &t[mid..]));
    }
    for (i, p) in pieces.iter().enumerate() {
        out.push(
            json!({"type": "response.output_text.delta", "sequence_number": i + 1,
            "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": p}),
        );
    }
    let full: String = pieces.concat();
    let text = full.clone();
    out.push(
        json!({"type": "response.output_text.done", "sequence_number": pieces.len() + 1,
        "item_id": "msg_1", "output_index": 0, "content_index": 0, "text": full}),
    );
    out.push(
        json!({"type": "response.completed", "sequence_number": pieces.len() + 2,
        "response": response("completed", &text)}),
    );
    out
}

/// Ids unique across sockets and test processes.
fn rand_part() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
