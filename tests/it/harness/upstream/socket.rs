//! A fake Responses provider over WebSocket: records the handshake headers and every message
//! it receives, and answers each `response.create` like the HTTP echo: a response whose text
//! is "Echo:" and the tokens it was sent (and those of the response named by
//! `previous_response_id`), each token split across two `response.output_text.delta` events.
//! A `response.steer` is accepted (its input echoed in `response.steer.accepted`) and answered
//! by the successor the provider starts on its own: a response continuing the steered one,
//! echoing its tokens and the steer's. An input holding `REFUSE` is answered with an `error`
//! event only; one holding `DROP` makes it cut the connection without a close. Plain (`ws://`) or TLS (`wss://`, a certificate from `harness::tls`).

use std::collections::HashMap;
use std::net::SocketAddr;
#[cfg(feature = "full-tier")]
use std::path::Path;
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use pingora::tls;
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
    /// The path and query of each handshake.
    pub targets: Vec<String>,
    /// Every text message received, in order.
    pub messages: Vec<String>,
    /// Tokens each response id was made from.
    pub responses: HashMap<String, Vec<String>>,
}

/// The events answering one client event (the `n`th of its socket).
pub type Answer = fn(&Value, usize, &Mutex<Seen>) -> Vec<Value>;

pub struct SocketProvider {
    pub addr: SocketAddr,
    pub seen: Arc<Mutex<Seen>>,
    tls: bool,
}

impl SocketProvider {
    pub fn start() -> SocketProvider {
        SocketProvider::start_with(None, answer)
    }

    /// A `wss://` provider with the certificate `cert.pem` and key `key.pem` of `dir`.
    #[cfg(feature = "full-tier")]
    pub fn start_tls(dir: &Path) -> SocketProvider {
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        let (certs, key) =
            tls::load_certs_and_key_files(cert.to_str().unwrap(), key.to_str().unwrap())
                .expect("certificate files")
                .expect("a certificate and a key");
        tls::install_default_crypto_provider();
        let config = tls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .expect("server TLS config");
        SocketProvider::start_with(Some(tls::TlsAcceptor::from(Arc::new(config))), answer)
    }

    /// A plain provider answering each client event with `answer`.
    #[cfg(feature = "full-tier")]
    pub fn answering(answer: Answer) -> SocketProvider {
        SocketProvider::start_with(None, answer)
    }

    fn start_with(acceptor: Option<tls::TlsAcceptor>, answer: Answer) -> SocketProvider {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        std_listener.set_nonblocking(true).unwrap();
        let addr = std_listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let shared = seen.clone();
        let tls = acceptor.is_some();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(std_listener).unwrap();
                while let Ok((tcp, _)) = listener.accept().await {
                    let (seen, acceptor) = (shared.clone(), acceptor.clone());
                    tokio::spawn(async move {
                        match acceptor {
                            Some(a) => {
                                if let Ok(stream) = a.accept(tcp).await {
                                    serve(stream, seen, answer).await;
                                }
                            }
                            None => serve(tcp, seen, answer).await,
                        }
                    });
                }
            });
        });
        SocketProvider { addr, seen, tls }
    }

    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    pub fn messages(&self) -> Vec<String> {
        self.seen.lock().unwrap().messages.clone()
    }
}

async fn serve<S>(tcp: S, seen: Arc<Mutex<Seen>>, answer: Answer)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
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
        let mut seen = self.0.lock().unwrap();
        seen.handshakes.push(headers);
        seen.targets.push(req.uri().to_string());
        Ok(resp)
    }
}

/// The events answering one client event: a `response.create`, or a `response.steer` (its
/// acceptance, then the successor response).
pub fn answer(event: &Value, n: usize, seen: &Mutex<Seen>) -> Vec<Value> {
    if event["input"].to_string().contains("REFUSE") {
        return vec![
            json!({"type": "error", "status": 400, "error": {"type": "invalid_request_error",
            "code": "refused", "message": "refused by the fake provider"}}),
        ];
    }
    let previous = event["previous_response_id"].as_str();
    let mut tokens = Vec::new();
    if let Some(prev) = previous {
        let seen = seen.lock().unwrap();
        tokens.extend(seen.responses.get(prev).cloned().unwrap_or_default());
    }
    tokens.extend(tokens_in(&event["input"].to_string()));
    let mut out = Vec::new();
    if event["type"] == "response.steer" {
        out.push(
            json!({"type": "response.steer.accepted", "sequence_number": 0,
            "steer": {"id": format!("steer_{n}"), "previous_response_id": previous,
                "input": event["input"]}}),
        );
    }
    let id = response_id(n);
    seen.lock()
        .unwrap()
        .responses
        .insert(id.clone(), tokens.clone());
    out.extend(echo_response(&id, previous, &tokens));
    out
}

/// A response `id` (continuing `previous`) whose text is "Echo:" and `tokens`, each token split
/// in its middle across two deltas.
pub fn echo_response(id: &str, previous: Option<&str>, tokens: &[String]) -> Vec<Value> {
    let response = |status: &str, text: &str| {
        json!({"id": id, "object": "response", "status": status, "model": "m",
            "previous_response_id": previous,
            "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}]})
    };
    let mut out = vec![
        json!({"type": "response.created", "sequence_number": 0, "response": response("in_progress", "")}),
    ];
    let mut pieces = vec!["Echo: ".to_owned()];
    for t in tokens {
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
    out.push(
        json!({"type": "response.output_text.done", "sequence_number": pieces.len() + 1,
        "item_id": "msg_1", "output_index": 0, "content_index": 0, "text": full}),
    );
    out.push(
        json!({"type": "response.completed", "sequence_number": pieces.len() + 2,
        "response": response("completed", &full)}),
    );
    out
}

/// A response `id` (continuing `previous`) whose one output is `item`, as the events a client
/// that reads whole items expects (`output_item.added`, `.done`, and the usage at the end).
#[cfg(feature = "full-tier")]
pub fn item_response(id: &str, previous: Option<&str>, item: Value) -> Vec<Value> {
    let mut response = json!({"id": id, "object": "response", "created_at": 1,
        "status": "in_progress", "model": "m", "output": [], "previous_response_id": previous});
    let created = json!({"type": "response.created", "sequence_number": 0, "response": response});
    response["status"] = json!("completed");
    response["output"] = json!([item]);
    response["usage"] = json!({"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0}});
    vec![
        created,
        json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
            "item": item}),
        json!({"type": "response.output_item.done", "sequence_number": 2, "output_index": 0,
            "item": item}),
        json!({"type": "response.completed", "sequence_number": 3, "response": response}),
    ]
}

/// A fresh response id.
pub fn response_id(n: usize) -> String {
    format!("resp_{}_{}_{n}", std::process::id(), rand_part())
}

/// Ids unique across sockets and test processes.
fn rand_part() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
