//! One socket's messages, both ways. Client events: a `response.create` is a Responses request
//! body with a `type` member, anonymized exactly like `POST /v1/responses` (its own conversation
//! turn: `previous_response_id` finds the earlier turn's tokens, over this socket or any other);
//! any other event is refused per message. Server events: restored by the reply rewriter of the
//! response they belong to (responses run one after another on a socket).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use pingora::http::RequestHeader;
use pingora::protocols::Stream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::super::conversation::Turn;
use super::super::ctx::RequestCtx;
use super::super::format::openai::RESPONSES;
use super::super::refuse::Refusal;
use super::super::reply::{Framing, ReplyRewriter};
use super::super::rewrite;
use super::super::routes::Route;
use super::link::{self, Upstream};
use crate::app::App;
use crate::json::{self, Node};
use crate::tokens::TolerantRestorer;

type Client = WebSocketStream<Stream>;

/// What a socket's messages need of the request that opened it.
pub(crate) struct Opening {
    pub route: Arc<Route>,
    pub tenant: Option<String>,
    /// The client's handshake request, as it arrived (its credential binds conversation state).
    pub req: RequestHeader,
    pub policy: Option<Arc<crate::policy::Policy>>,
    pub caller: Option<String>,
}

/// A response sent upstream and not yet finished: its restorer and its conversation turn.
struct Pending {
    reply: ReplyRewriter,
    turn: Option<Turn>,
}

/// The server events that end a response.
const LAST: [&str; 4] = [
    "response.completed",
    "response.failed",
    "response.incomplete",
    "error",
];

const UNKNOWN_EVENT: &str =
    "This WebSocket event is not accepted by the privacy proxy (only response.create is).";
const NOT_JSON: &str = "A WebSocket message must be a JSON event.";
const UPSTREAM_GONE: &str = "The upstream closed the WebSocket.";
const UNREADABLE: &str = "The upstream sent a WebSocket message the privacy proxy cannot read.";

/// Serves the socket until either side closes, fails or stays idle too long.
pub(super) async fn run(app: Arc<App>, opening: Opening, raw: Stream, mut upstream: Upstream) {
    let mut client = Client::from_raw_socket(raw, Role::Server, Some(link::config(&app))).await;
    let idle = Duration::from_millis(app.config.server.websocket_idle_timeout_ms.max(1));
    let mut pending: VecDeque<Pending> = VecDeque::new();
    let mut deadline = Instant::now() + idle;
    loop {
        tokio::select! {
            m = client.next() => {
                deadline = Instant::now() + idle;
                let Some(Ok(m)) = m else { break };
                if !from_client(&app, &opening, m, &mut client, &mut upstream, &mut pending).await {
                    break;
                }
            }
            m = upstream.next() => {
                deadline = Instant::now() + idle;
                let m = match m {
                    Some(Ok(m)) => m,
                    _ => {
                        let _ = client.send(error_event(&opening, &Refusal::new(502, UPSTREAM_GONE))).await;
                        break;
                    }
                };
                if !from_server(&app, &opening, m, &mut client, &mut pending).await {
                    break;
                }
            }
            _ = tokio::time::sleep_until(deadline) => break,
        }
    }
    for mut p in pending {
        if let Some(turn) = p.turn.as_mut() {
            turn.finish().await;
        }
    }
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
    pending: &mut VecDeque<Pending>,
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
    match anonymize(app, opening, text.as_str()).await {
        Ok((body, p)) => {
            pending.push_back(p);
            upstream.send(Message::text(body)).await.is_ok()
        }
        Err(refusal) => client.send(error_event(opening, &refusal)).await.is_ok(),
    }
}

/// A client event as it goes upstream, with the response it opens; or why nothing goes.
async fn anonymize(app: &Arc<App>, o: &Opening, text: &str) -> Result<(String, Pending), Refusal> {
    let Ok(Node::Obj(mut members)) = json::parse(text) else {
        return Err(Refusal::new(400, NOT_JSON));
    };
    let kind = members.iter().position(|(k, _)| k == "type");
    let is_create =
        kind.is_some_and(|i| matches!(&members[i].1, Node::Str(s) if s == "response.create"));
    let Some(i) = kind.filter(|_| is_create) else {
        return Err(Refusal::new(400, UNKNOWN_EVENT));
    };
    members.remove(i);
    let body = Node::Obj(members).to_bytes();
    let route = o.route.clone();
    let format = route.format;
    let path = o.req.uri.path();
    let mut ctx = RequestCtx {
        route: Some(route.clone()),
        endpoint: RESPONSES,
        policy: o.policy.clone(),
        caller: o.caller.clone(),
        conversation: Turn::of(app, format, RESPONSES, path, o.tenant.as_deref(), &o.req),
        ..RequestCtx::default()
    };
    let seed = rewrite::seed(app, &mut ctx, &body).await?;
    let out = rewrite::rewrite_off_loop(app, &mut ctx, &route, body, seed).await?;
    if let Some(turn) = ctx.conversation.as_mut() {
        // the request is sent: the earlier turns' ids keep this table, as a 2xx header does
        turn.reply_header(app, 200).await;
    }
    let restorer = ctx
        .exchange
        .clone()
        .unwrap_or_else(|| Arc::new(TolerantRestorer::new(Vec::new())));
    let mut reply = ReplyRewriter::new(restorer, format, RESPONSES, Framing::Sse);
    if ctx.conversation.as_ref().is_some_and(Turn::wants_reply_id) {
        reply.watch_reply_id();
    }
    let event = with_type(&out, "response.create");
    let pending = Pending {
        reply,
        turn: ctx.conversation.take(),
    };
    Ok((event, pending))
}

/// The anonymized body `body` (a JSON object) as a client event of type `kind`.
fn with_type(body: &[u8], kind: &str) -> String {
    let rest = String::from_utf8_lossy(body);
    let inner = rest.trim().strip_prefix('{').unwrap_or("}").trim_start();
    let sep = if inner.starts_with('}') { "" } else { "," };
    format!("{{\"type\":\"{kind}\"{sep}{inner}")
}

/// One server message. `false`: the socket is done.
async fn from_server(
    app: &Arc<App>,
    opening: &Opening,
    m: Message,
    client: &mut Client,
    pending: &mut VecDeque<Pending>,
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
    let last = node.str_of("type").is_some_and(|t| LAST.contains(&t));
    if pending.is_empty() {
        // an event of no response sent through here: its tokens are foreign, counted as such
        let restorer = Arc::new(TolerantRestorer::new(Vec::new()));
        let reply = ReplyRewriter::new(restorer, opening.route.format, RESPONSES, Framing::Sse);
        pending.push_back(Pending { reply, turn: None });
    }
    let Some(p) = pending.front_mut() else {
        return false;
    };
    let mut out = p.reply.message(node, text.len());
    if last {
        let mut tail = p.reply.end();
        let end = out.pop();
        out.append(&mut tail);
        out.extend(end);
    }
    if let (Some(id), Some(turn)) = (p.reply.take_reply_id(), p.turn.as_mut()) {
        turn.reply_id(app, &id);
    }
    for n in out {
        if client
            .send(Message::text(n.to_json_string()))
            .await
            .is_err()
        {
            return false;
        }
    }
    if last {
        if let Some(mut done) = pending.pop_front() {
            if let Some(turn) = done.turn.as_mut() {
                turn.finish().await;
            }
        }
    }
    true
}

/// A refusal as the provider's WebSocket `error` event.
fn error_event(opening: &Opening, refusal: &Refusal) -> Message {
    let body = opening
        .route
        .format
        .error_body(refusal.status, &refusal.message);
    let mut members = vec![
        ("type".to_owned(), Node::Str("error".into())),
        ("status".to_owned(), Node::Num(refusal.status.to_string())),
    ];
    if let Node::Obj(rest) = body {
        members.extend(rest);
    }
    Message::text(Node::Obj(members).to_json_string())
}
