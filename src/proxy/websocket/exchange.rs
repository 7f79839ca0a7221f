//! One socket's messages, both ways: each client event anonymized (`super::events`) or refused
//! with an `error` event, each server event restored by the response it belongs to
//! (`super::responses`); closes pass through, the idle timeout closes both sides.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use pingora::protocols::Stream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::super::refuse::Refusal;
use super::events::{self, error_event, Outgoing, NOT_JSON};
use super::link::{self, Upstream};
use super::opening::Opening;
use super::responses::Responses;
use crate::app::App;
use crate::json;

type Client = WebSocketStream<Stream>;

const UPSTREAM_GONE: &str = "The upstream closed the WebSocket.";
const UNREADABLE: &str = "The upstream sent a WebSocket message the privacy proxy cannot read.";

/// Serves the socket until either side closes, fails or stays idle too long.
pub(super) async fn run(app: Arc<App>, opening: Opening, raw: Stream, mut upstream: Upstream) {
    let mut client = Client::from_raw_socket(raw, Role::Server, Some(link::config(&app))).await;
    let idle = Duration::from_millis(app.config.server.websocket_idle_timeout_ms.max(1));
    let mut responses = Responses::new(opening.route.format, &opening.handshake);
    let mut deadline = Instant::now() + idle;
    loop {
        tokio::select! {
            m = client.next() => {
                deadline = Instant::now() + idle;
                let Some(Ok(m)) = m else { break };
                let go_on =
                    from_client(&app, &opening, m, &mut client, &mut upstream, &mut responses).await;
                if !go_on {
                    break;
                }
            }
            m = upstream.next() => {
                deadline = Instant::now() + idle;
                let Some(Ok(m)) = m else {
                    let gone = error_event(&opening, &Refusal::new(502, UPSTREAM_GONE));
                    let _ = client.send(gone).await;
                    break;
                };
                if !from_server(&app, &opening, m, &mut client, &mut responses).await {
                    break;
                }
            }
            _ = tokio::time::sleep_until(deadline) => break,
        }
    }
    responses.finish().await;
    let _ = upstream.close(None).await;
    let _ = client.close(None).await;
}

/// One client message. `false`: the socket is done.
async fn from_client(
    app: &Arc<App>,
    opening: &Opening,
    m: Message,
    client: &mut Client,
    upstream: &mut Upstream,
    responses: &mut Responses,
) -> bool {
    let text = match m {
        Message::Text(t) => t,
        Message::Close(frame) => {
            let _ = upstream.send(Message::Close(frame)).await;
            return false;
        }
        Message::Binary(_) => {
            let refusal = Refusal::new(400, NOT_JSON);
            return client.send(error_event(opening, &refusal)).await.is_ok();
        }
        // pings are answered by tungstenite itself; nothing else goes upstream
        Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => return true,
    };
    match events::anonymize(app, opening, responses, text.as_str()).await {
        Ok(Outgoing {
            event,
            pending,
            steer,
        }) => {
            match steer {
                Some(target) => responses.steered(target, pending),
                None => responses.asked(pending),
            }
            upstream.send(Message::text(event)).await.is_ok()
        }
        Err(refusal) => client.send(error_event(opening, &refusal)).await.is_ok(),
    }
}

/// One server message. `false`: the socket is done.
async fn from_server(
    app: &Arc<App>,
    opening: &Opening,
    m: Message,
    client: &mut Client,
    responses: &mut Responses,
) -> bool {
    let text = match m {
        Message::Text(t) => t,
        Message::Close(frame) => {
            let _ = client.send(Message::Close(frame)).await;
            return false;
        }
        Message::Binary(_) => {
            let refusal = Refusal::new(502, UNREADABLE);
            return client.send(error_event(opening, &refusal)).await.is_ok();
        }
        Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => return true,
    };
    let Ok(node) = json::parse(text.as_str()) else {
        let refusal = Refusal::new(502, UNREADABLE);
        return client.send(error_event(opening, &refusal)).await.is_ok();
    };
    for n in responses.event(app, node, text.len()).await {
        let out = Message::text(n.to_json_string());
        if client.send(out).await.is_err() {
            return false;
        }
    }
    true
}
