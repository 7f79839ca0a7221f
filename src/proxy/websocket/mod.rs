//! The Responses API over WebSocket (`docs/proxy.md`, "WebSocket"): the proxy ends the socket
//! on both sides. It answers the client's upgrade only once its own socket to the upstream is
//! open, then reads each message whole: a client event is anonymized by the same code as a
//! `POST /v1/responses` body (`events`), a server event is restored by the same per-channel
//! restorer as an SSE event, the restorer of the response it belongs to (`responses`). A
//! message that cannot be anonymized is answered with an `error` event and nothing goes
//! upstream; the socket stays open. The framing is tungstenite's on both sides.

mod detach;
mod events;
mod exchange;
mod link;
mod opening;
mod responses;

pub(crate) use opening::Opening;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use pingora::http::{RequestHeader, ResponseHeader};
use pingora::prelude::*;
use pingora::proxy::Session;

use super::ctx::RequestCtx;
use super::edges;
use super::format::openai::RESPONSES;
use super::refuse::{refuse, refuse_for};
use crate::app::App;

/// Sockets open now, against `server.websocket_max_connections`.
static OPEN: AtomicUsize = AtomicUsize::new(0);

/// One open socket counted in [`OPEN`] until dropped.
struct Slot;

impl Slot {
    fn take(max: usize) -> Option<Slot> {
        let taken = OPEN.fetch_add(1, Ordering::AcqRel);
        if taken >= max {
            OPEN.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Slot)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        OPEN.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Whether `req` asks to upgrade to a WebSocket.
pub(crate) fn asks_upgrade(req: &RequestHeader) -> bool {
    req.headers
        .get("upgrade")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("websocket"))
}

const NOT_HERE: &str =
    "Protocol upgrades (WebSocket) are accepted only on the Responses API of an OpenAI-format route.";
const BAD_HANDSHAKE: &str =
    "The WebSocket handshake is incomplete (version 13 and a key are required).";
const TOO_MANY: &str =
    "The privacy proxy has too many WebSocket connections open; try again later.";
const NO_UPSTREAM: &str = "The privacy proxy could not open a WebSocket to the upstream.";

/// `request_filter` for an upgrade request on a proxy route, after the gate and the policy:
/// refused (in the provider's error shape) unless it is a WebSocket to the Responses API of an
/// OpenAI route; else served until the socket closes. Always answered here (`Ok(true)`).
pub(crate) async fn serve(
    app: &Arc<App>,
    session: &mut Session,
    ctx: &mut RequestCtx,
    mut opening: Opening,
) -> Result<bool> {
    let route = opening.route.clone();
    let format = route.format;
    let req = session.req_header();
    let endpoint = format.endpoint(req.uri.path());
    let wanted = format.name() == "openai"
        && endpoint == Some(RESPONSES)
        && req.method == http::Method::GET
        && asks_upgrade(req)
        && !session.is_http2();
    if !wanted {
        refuse(session, format, 400, NOT_HERE).await?;
        return Ok(true);
    }
    let Some(key) = handshake_key(session.req_header()) else {
        refuse(session, format, 400, BAD_HANDSHAKE).await?;
        return Ok(true);
    };
    let Some(slot) = Slot::take(app.config.server.websocket_max_connections) else {
        refuse(session, format, 503, TOO_MANY).await?;
        return Ok(true);
    };
    ctx.route = Some(route.clone());
    ctx.endpoint = RESPONSES;
    // the handshake's tokens come from the connection's table, which every message's takes over
    if let Err(refusal) = edges::settle(&mut ctx.edges, &mut opening.handshake) {
        refuse_for(session, format, &refusal).await?;
        return Ok(true);
    }
    let upstream = match link::connect(app, session.req_header(), ctx).await {
        Ok(upstream) => upstream,
        Err(e) => {
            tracing::warn!(route = %route.prefix, error = %e, "WebSocket to the upstream failed");
            refuse(session, format, 502, NO_UPSTREAM).await?;
            return Ok(true);
        }
    };
    let accept = accept_header(&key)?;
    let client = detach::detach(session, accept).await?;
    exchange::run(app.clone(), opening, client, upstream).await;
    drop(slot);
    Ok(true)
}

/// The client's `Sec-WebSocket-Key`, when the handshake is one this proxy answers (version 13).
fn handshake_key(req: &RequestHeader) -> Option<String> {
    let header = |name: &str| req.headers.get(name).and_then(|v| v.to_str().ok());
    let version = header("sec-websocket-version")?;
    if version.trim() != "13" {
        return None;
    }
    let key = header("sec-websocket-key")?.trim();
    (!key.is_empty()).then(|| key.to_owned())
}

/// The 101 that accepts the client's socket (no extension, no subprotocol: none is negotiated
/// with the upstream either).
fn accept_header(key: &str) -> Result<ResponseHeader> {
    let mut resp = ResponseHeader::build(101, Some(3))?;
    resp.insert_header("upgrade", "websocket")?;
    resp.insert_header("connection", "Upgrade")?;
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
    resp.insert_header("sec-websocket-accept", accept)?;
    Ok(resp)
}
