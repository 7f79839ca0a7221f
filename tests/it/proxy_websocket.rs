//! The Responses API over WebSocket (issue 48): the proxy accepts the upgrade, opens its own
//! socket to the upstream, anonymizes every `response.create` and `response.steer` like a POST
//! body and restores every server event with the SSE restorer — over real sockets through the
//! real binary. Full tier ([`real`]): a `wss://` upstream, the `openai` Python SDK's
//! `responses.connect()`, and the Codex CLI's built-in provider.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error, Message};

use crate::harness::config::edited;
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

/// The proxy with the default config's `edits`.
fn proxy_with(upstream: &SocketProvider, edits: &[(&str, &str)]) -> TestServer {
    let toml = edited(edits);
    TestServer::start_with_config(
        &[("TARNKAPPE_OPENAI_UPSTREAM", upstream.url().as_str())],
        &toml,
    )
}

async fn open(server: &TestServer) -> Socket {
    open_at(server, "/v1/responses")
        .await
        .expect("the proxy accepts the WebSocket")
}

/// Opens a socket to `path` (with its query), or the HTTP status it was refused with.
async fn open_at(server: &TestServer, path: &str) -> Result<Socket, u16> {
    let url = server.url(path).replacen("http://", "ws://", 1);
    let mut req = url.into_client_request().unwrap();
    let auth = "Bearer sk-alice-credential".parse().unwrap();
    req.headers_mut().insert("authorization", auth);
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, _)) => Ok(ws),
        Err(Error::Http(resp)) => Err(resp.status().as_u16()),
        Err(e) => panic!("the upgrade failed: {e}"),
    }
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
        let inject = json!({"type": "response.inject", "response_id": "resp_1", "input": [
            {"type": "function_call_output", "call_id": "c1", "output": ANNA}]});
        let mut lane = create(&format!("Ich bin {ANNA}."), None);
        lane["stream_id"] = json!("lane-2");
        for event in [
            json!({"type": "session.update", "note": format!("{ANNA} {MAIL}")}),
            inject,
            lane,
            json!({"type": "response.steer", "input": format!("Ich bin {ANNA}.")}),
        ] {
            let refused = exchange(&mut ws, event.clone()).await;
            assert_eq!(refused.len(), 1, "{event}");
            assert_eq!(refused[0]["type"], "error");
            assert_eq!(refused[0]["status"], 400);
            assert!(refused[0]["error"]["message"].is_string());
        }
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

/// A `response.steer` of a finished response: its text reaches the provider masked, numbered
/// after the steered response's tokens; the acceptance event and the successor the provider
/// starts on its own come back restored; the successor's table is kept under its id.
#[test]
fn steer_is_masked_and_its_successor_restored() {
    const OTTO: &str = "Otto Brenner";
    let upstream = SocketProvider::start();
    let server = proxy(&upstream);
    runtime().block_on(async {
        let mut ws = open(&server).await;
        let first = exchange(&mut ws, create(&format!("Ich bin {ANNA}."), None)).await;
        let (id, _) = completed(&first);
        let steer = json!({"type": "response.steer", "previous_response_id": id, "input": [
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": format!("Schreib auch an {OTTO}.")}]}]});
        let events = exchange(&mut ws, steer).await;
        assert_eq!(events[0]["type"], "response.steer.accepted", "{events:?}");
        assert!(events[0].to_string().contains(OTTO), "{}", events[0]);
        let (successor, text) = completed(&events);
        assert!(text.contains(ANNA) && text.contains(OTTO), "{text}");
        assert_eq!(deltas(&events), text);
        let later = exchange(&mut ws, create("Und jetzt?", Some(&successor))).await;
        let (_, text) = completed(&later);
        assert!(
            text.contains(ANNA) && text.contains(OTTO),
            "kept under the successor: {text}"
        );
    });
    let sent = upstream.messages();
    let steer = sent
        .iter()
        .find(|m| m.contains("response.steer"))
        .expect("the steer went up");
    assert!(!steer.contains("Brenner"), "in clear: {steer}");
    assert_eq!(tokens_in(steer), ["[[NAME_2]]"], "{steer}");
}

/// A value in the handshake's query string gets the same token as in the socket's messages.
#[test]
fn handshake_and_messages_share_the_connection_table() {
    let upstream = SocketProvider::start();
    let server = proxy(&upstream);
    runtime().block_on(async {
        let path = format!("/v1/responses?note={MAIL}");
        let mut ws = open_at(&server, &path).await.expect("accepted");
        let events = exchange(&mut ws, create(&format!("Schreib an {MAIL}."), None)).await;
        assert!(completed(&events).1.contains(MAIL));
    });
    let target = upstream.seen.lock().unwrap().targets[0]
        .replace("%5B", "[")
        .replace("%5D", "]");
    assert!(!target.contains("example.org"), "{target}");
    let sent = upstream.messages();
    assert_eq!(
        tokens_in(&target),
        tokens_in(&sent[0]),
        "{target} / {}",
        sent[0]
    );
}

/// A conversation's table is kept once the provider accepts the response, not when the event
/// is sent: a turn the provider refused leaves nothing, so the next turn of that conversation
/// numbers above a new floor; a turn it accepted leaves its table, the next goes on from it.
#[test]
fn a_table_is_kept_only_for_an_accepted_response() {
    let upstream = SocketProvider::start();
    let server = proxy(&upstream);
    let turn = |conversation: &str, text: &str| {
        let mut v = create(text, None);
        v["conversation"] = json!(conversation);
        v
    };
    runtime().block_on(async {
        let mut ws = open(&server).await;
        let refused = exchange(&mut ws, turn("conv_refused", &format!("REFUSE {ANNA}"))).await;
        assert_eq!(refused.last().unwrap()["type"], "error", "{refused:?}");
        let accepted = exchange(&mut ws, turn("conv_kept", &format!("Ich bin {ANNA}."))).await;
        completed(&accepted);
        for conv in ["conv_refused", "conv_kept"] {
            let next = exchange(&mut ws, turn(conv, "Ich heiße Otto Brenner.")).await;
            completed(&next);
        }
    });
    let sent = upstream.messages();
    let numbers = |m: &str| -> Vec<u64> {
        tokens_in(m)
            .iter()
            .filter_map(|t| t.trim_end_matches("]]").rsplit('_').next()?.parse().ok())
            .collect()
    };
    // a conversation id never seen numbers above a random floor; a kept table goes on from it
    let (refused, accepted) = (numbers(&sent[0]), numbers(&sent[1]));
    let (after_refused, after_accepted) = (numbers(&sent[2]), numbers(&sent[3]));
    assert_eq!(after_accepted, [accepted[0] + 1], "{}", sent[3]);
    assert_eq!(after_refused.len(), 1);
    assert!(after_refused[0] >= 10_000, "{}", sent[2]);
    assert_ne!(
        after_refused[0],
        refused[0] + 1,
        "nothing kept: {}",
        sent[2]
    );
}

/// A socket with no message either way for `websocket_idle_timeout_ms` is closed.
#[test]
fn an_idle_socket_is_closed() {
    let upstream = SocketProvider::start();
    let server = proxy_with(
        &upstream,
        &[(
            "websocket_idle_timeout_ms = 300000",
            "websocket_idle_timeout_ms = 300",
        )],
    );
    runtime().block_on(async {
        let mut ws = open(&server).await;
        let started = std::time::Instant::now();
        let end = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match ws.next().await {
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    Some(Ok(_)) => {}
                }
            }
        })
        .await;
        assert!(end.is_ok(), "the idle socket stayed open");
        assert!(started.elapsed() >= Duration::from_millis(250));
    });
}

/// One socket more than `websocket_max_connections` is refused with 503; once one closes,
/// the next is accepted.
#[test]
fn sockets_over_the_limit_are_refused() {
    let upstream = SocketProvider::start();
    let server = proxy_with(
        &upstream,
        &[(
            "websocket_max_connections = 256",
            "websocket_max_connections = 2",
        )],
    );
    runtime().block_on(async {
        let mut first = open(&server).await;
        let _second = open(&server).await;
        assert_eq!(open_at(&server, "/v1/responses").await.err(), Some(503));
        first.close(None).await.unwrap();
        while first.next().await.is_some() {}
        let mut again = None;
        for _ in 0..50 {
            if let Ok(ws) = open_at(&server, "/v1/responses").await {
                again = Some(ws);
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let mut again = again.expect("a freed slot is taken again");
        let events = exchange(&mut again, create(&format!("Ich bin {ANNA}."), None)).await;
        assert!(completed(&events).1.contains(ANNA));
    });
}

/// Tools from outside the Rust toolchain: `openssl` for a `wss://` upstream's certificate, the
/// `openai` Python SDK, the Codex CLI.
#[cfg(feature = "full-tier")]
mod real {
    use std::process::Command;

    use super::*;
    use crate::harness::python::INSTALL;
    use crate::harness::tls::make_certificates;

    /// An https upstream gets a `wss://` socket, verified: refused (502) while its CA is
    /// unknown, working with `upstream.ca_file`.
    #[test]
    fn a_tls_upstream_gets_a_verified_wss_socket() {
        let dir = tempfile::tempdir().unwrap();
        make_certificates(dir.path());
        let upstream = SocketProvider::start_tls(dir.path());
        assert!(upstream.url().starts_with("https://"));
        let server = proxy(&upstream);
        runtime().block_on(async {
            assert_eq!(open_at(&server, "/v1/responses").await.err(), Some(502));
        });
        drop(server);
        let ca = dir.path().join("ca.pem");
        let ca_file = format!("[upstream]\nca_file = \"{}\"\n", ca.display());
        let server = proxy_with(&upstream, &[("[upstream]\n", &ca_file)]);
        runtime().block_on(async {
            let mut ws = open(&server).await;
            let events = exchange(&mut ws, create(&format!("Ich bin {ANNA}."), None)).await;
            assert!(completed(&events).1.contains(ANNA), "{events:?}");
        });
        let sent = upstream.messages();
        assert_eq!(sent.len(), 1);
        assert!(!sent[0].contains("Schmidt") && tokens_in(&sent[0]).len() == 1);
    }

    /// The `openai` SDK's `responses.connect()`: `response.create` and `response.steer`, values
    /// masked upstream and restored in the SDK's parsed events (tests/sdk/openai_ws.py).
    #[test]
    fn openai_python_sdk_over_the_socket() {
        const OTTO: &str = "Otto Brenner";
        let upstream = SocketProvider::start();
        let server = proxy(&upstream);
        let script = format!("{}/tests/sdk/openai_ws.py", env!("CARGO_MANIFEST_DIR"));
        let out = Command::new("python3")
            .arg(&script)
            .env("TARNKAPPE_PROXY", server.url(""))
            .env("TARNKAPPE_NAME", ANNA)
            .env("TARNKAPPE_OTHER", OTTO)
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_WEBSOCKET_BASE_URL")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .output()
            .unwrap_or_else(|e| panic!("python3 is needed ({INSTALL}): {e}"));
        assert!(
            out.status.success(),
            "openai_ws.py failed ({INSTALL}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let sent = upstream.messages();
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert!(
            sent[1].contains("\"type\":\"response.steer\""),
            "{}",
            sent[1]
        );
        for m in &sent {
            assert!(
                !m.contains("Schmidt") && !m.contains("Brenner"),
                "in clear: {m}"
            );
            assert_eq!(tokens_in(m).len(), 1, "{m}");
        }
    }
}

/// The real Codex CLI with its built-in provider pointed at the proxy (`openai_base_url`, its key
/// stored by `codex login`): it opens the socket, and a WebSocket provider runs a full tool
/// loop with it.
#[cfg(feature = "full-tier")]
mod codex {
    use serde_json::{json, Value};

    use crate::harness::tokens::tokens_in;
    use crate::harness::upstream::socket::{item_response, response_id, Seen, SocketProvider};
    use crate::proxy_agents_codex::real::{
        codex_login, first_difference, instructions, run_codex, NAME,
    };

    /// The provider's side of the loop: Codex's warm-up (`generate: false`) gets "ok"; a turn
    /// with the user's message gets a call of Codex's `exec` tool whose script prints the first
    /// token of that message; a turn with the tool's output gets "Fertig:" and the tokens in it.
    fn tool_loop(event: &Value, n: usize, seen: &std::sync::Mutex<Seen>) -> Vec<Value> {
        let id = response_id(n);
        let previous = event["previous_response_id"].as_str();
        let input = event["input"].as_array().cloned().unwrap_or_default();
        let outputs: Vec<&Value> = input
            .iter()
            .filter(|i| i["type"] == "custom_tool_call_output")
            .collect();
        let user = input.iter().rev().find(|i| i["role"] == "user");
        let text = |t: String| {
            json!({"type": "message", "id": format!("msg_{n}"), "status": "completed",
                "role": "assistant", "content": [{"type": "output_text", "text": t, "annotations": []}]})
        };
        let item = if !outputs.is_empty() {
            let tokens = tokens_in(&json!(outputs).to_string());
            text(format!("Fertig: {}", tokens.join(" ")))
        } else if let (Some(user), false) = (user, event["generate"] == json!(false)) {
            let token = tokens_in(&user.to_string())
                .into_iter()
                .next()
                .unwrap_or_default();
            json!({"type": "custom_tool_call", "id": format!("ctc_{n}"), "call_id": "call_1",
                "namespace": "functions", "name": "exec", "status": "completed",
                "input": format!("text(\"Kunde: {token}\")")})
        } else {
            text("ok".to_owned())
        };
        seen.lock()
            .unwrap()
            .responses
            .insert(id.clone(), Vec::new());
        item_response(&id, previous, item)
    }

    /// Codex's turn with the user's message, as the provider received it.
    fn user_turn(messages: &[String]) -> Value {
        messages
            .iter()
            .filter_map(|m| serde_json::from_str::<Value>(m).ok())
            .find(|m| m.to_string().contains("Antworte nur mit ok"))
            .expect("Codex sent the user's turn")
    }

    #[test]
    fn codex_built_in_provider_runs_a_tool_loop_over_the_socket() {
        let home = tempfile::tempdir().expect("temp home");
        let work = tempfile::tempdir().expect("temp work dir");
        let config = |base: &str| format!("openai_base_url = \"{base}/v1\"\n");
        codex_login(home.path(), "sk-codex-login-key");
        // once straight to the provider: what Codex sends
        let direct = SocketProvider::answering(tool_loop);
        run_codex(home.path(), work.path(), &config(&direct.url()), &[]);
        let upstream = SocketProvider::answering(tool_loop);
        let server = super::proxy(&upstream);
        let stdout = run_codex(home.path(), work.path(), &config(&server.url("")), &[]);
        assert!(
            stdout.contains(&format!("Fertig: {NAME}")),
            "{stdout}\n{}",
            server.log()
        );
        let sent = upstream.messages();
        assert!(sent.len() >= 3, "warm-up, turn, tool output: {sent:?}");
        for m in &sent {
            assert!(
                !m.contains("Quernheim"),
                "the user's name reached the upstream"
            );
        }
        let output = sent
            .iter()
            .filter_map(|m| serde_json::from_str::<Value>(m).ok())
            .flat_map(|m| m["input"].as_array().cloned().unwrap_or_default())
            .find(|i| i["type"] == "custom_tool_call_output")
            .expect("Codex sent the tool's output");
        let turn = user_turn(&sent);
        let user = turn["input"]
            .as_array()
            .and_then(|i| i.last())
            .expect("input");
        assert_eq!(
            tokens_in(&output.to_string()),
            tokens_in(&user.to_string()),
            "{output}"
        );
        let (want, have) = (user_turn(&direct.messages()), user_turn(&sent));
        let (a, b) = (instructions(&want), instructions(&have));
        assert!(a.iter().map(|v| v.to_string().len()).sum::<usize>() > 10_000);
        let changed: Vec<String> = a
            .iter()
            .zip(&b)
            .filter(|(x, y)| x != y)
            .map(|(x, y)| first_difference(&x.to_string(), &y.to_string()))
            .collect();
        assert!(
            changed.is_empty(),
            "Codex's instructions changed:\n{}",
            changed.join("\n")
        );
        for key in [
            "model",
            "reasoning",
            "text",
            "include",
            "tool_choice",
            "store",
        ] {
            assert_eq!(have[key], want[key], "{key} changed");
        }
        let shake = &upstream.seen.lock().unwrap().handshakes[0];
        let header = |name: &str| {
            shake
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        assert!(header("openai-beta").is_some_and(|v| v.starts_with("responses_websockets")));
        assert_eq!(header("authorization"), Some("Bearer sk-codex-login-key"));
    }
}
