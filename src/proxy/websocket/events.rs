//! Client events, as they go upstream. The client events of the Responses WebSocket that carry
//! user text are `response.create` (the fields of a `POST /v1/responses` body) and
//! `response.steer` (`previous_response_id` and `input`, a subset of the same body): both are
//! anonymized as a Responses body by the HTTP path's code, their `type` set aside. Each is a
//! turn of its conversation (`previous_response_id` finds the earlier turn's tokens, over this
//! socket or any other), and its table takes over the handshake's tokens (and those of a steer
//! of the response it continues). Any other event type is refused: the proxy cannot tell which
//! of its fields carry text.

use std::sync::Arc;

use tokio_tungstenite::tungstenite::Message;

use super::super::conversation::Turn;
use super::super::ctx::RequestCtx;
use super::super::edges;
use super::super::format::openai::RESPONSES;
use super::super::refuse::Refusal;
use super::super::reply::{Framing, ReplyRewriter};
use super::super::rewrite;
use super::super::thinking::Seed;
use super::opening::Opening;
use super::responses::{Pending, Responses};
use crate::app::App;
use crate::json::{self, Node};
use crate::tokens::TolerantRestorer;

/// What the client asked for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Create,
    Steer,
}

/// The client event types the proxy reads, and what each is.
const KNOWN: [(&str, Kind); 2] = [
    ("response.create", Kind::Create),
    ("response.steer", Kind::Steer),
];

const UNKNOWN_EVENT: &str = "This WebSocket event is not accepted by the privacy proxy (only response.create and response.steer are).";
pub(super) const NOT_JSON: &str = "A WebSocket message must be a JSON event.";
const LANES: &str =
    "WebSocket lanes (stream_id) are not supported by the privacy proxy; open one socket per lane.";
const NO_TARGET: &str = "A response.steer names the response it steers (previous_response_id).";
const TOO_MANY_STEERED: &str =
    "Too many steered responses are waiting on this WebSocket; wait for them to start.";

/// A client event anonymized: the text that goes upstream and the response it leads to (with
/// its table); for a steer, the response it steers.
pub(super) struct Outgoing {
    pub event: String,
    pub pending: Pending,
    pub steer: Option<String>,
}

/// The client event `text` as it goes upstream, or why nothing goes.
pub(super) async fn anonymize(
    app: &Arc<App>,
    o: &Opening,
    responses: &Responses,
    text: &str,
) -> Result<Outgoing, Refusal> {
    let Ok(Node::Obj(mut members)) = json::parse(text) else {
        return Err(Refusal::new(400, NOT_JSON));
    };
    let at = members.iter().position(|(k, _)| k == "type");
    let known = at.and_then(|i| match &members[i].1 {
        Node::Str(s) => KNOWN.iter().find(|(name, _)| name == s).copied(),
        _ => None,
    });
    let (Some(at), Some((name, kind))) = (at, known) else {
        return Err(Refusal::new(400, UNKNOWN_EVENT));
    };
    if members.iter().any(|(k, _)| k == "stream_id") {
        return Err(Refusal::new(400, LANES));
    }
    members.remove(at);
    let previous = members.iter().find_map(|(k, v)| match v {
        Node::Str(id) if k == "previous_response_id" => Some(id.clone()),
        _ => None,
    });
    if kind == Kind::Steer {
        match &previous {
            None => return Err(Refusal::new(400, NO_TARGET)),
            Some(t) if !responses.has_room_for(t) => {
                return Err(Refusal::new(429, TOO_MANY_STEERED))
            }
            Some(_) => {}
        }
    }
    let body = Node::Obj(members).to_bytes();
    let mut ctx = context(app, o);
    // a response this socket served goes on from the table it holds (the provider keeps a
    // `store: false` response for the socket too); any other from the store
    let held = previous.as_deref().and_then(|p| responses.table_of(p));
    let mut seed = match (held, ctx.conversation.as_mut()) {
        (Some(table), Some(turn)) => Seed {
            table: turn.resume(&body, table.clone()),
            signed: None,
        },
        _ => rewrite::seed(app, &mut ctx, &body).await?,
    };
    edges::take_over(&o.handshake, &mut seed.table)?;
    let route = o.route.clone();
    let out = rewrite::rewrite_off_loop(app, &mut ctx, &route, body, seed).await?;
    let event = with_type(&out, name);
    let mut pending = pending(o, &mut ctx, previous.clone());
    pending.table = ctx.table.take();
    let steer = previous.filter(|_| kind == Kind::Steer);
    Ok(Outgoing {
        event,
        pending,
        steer,
    })
}

/// The exchange of one client event: a turn of the Responses API, under the socket's policy.
fn context(app: &App, o: &Opening) -> RequestCtx {
    let format = o.route.format;
    RequestCtx {
        route: Some(o.route.clone()),
        endpoint: RESPONSES,
        policy: o.policy.clone(),
        caller: o.caller.clone(),
        conversation: Turn::of(
            app,
            format,
            RESPONSES,
            o.req.uri.path(),
            o.tenant.as_deref(),
            &o.req,
        ),
        keep_table: true,
        ..RequestCtx::default()
    }
}

/// The response an anonymized event leads to: restored with its table, its id watched when
/// its turn keeps the table.
fn pending(o: &Opening, ctx: &mut RequestCtx, previous: Option<String>) -> Pending {
    let restorer = ctx
        .exchange
        .clone()
        .unwrap_or_else(|| Arc::new(TolerantRestorer::new(Vec::new())));
    let mut reply = ReplyRewriter::new(restorer, o.route.format, RESPONSES, Framing::Sse);
    if ctx.conversation.as_ref().is_some_and(Turn::wants_reply_id) {
        reply.watch_reply_id();
    }
    Pending::new(reply, ctx.conversation.take(), previous)
}

/// The anonymized body `body` (a JSON object) as a client event of type `kind`.
fn with_type(body: &[u8], kind: &str) -> String {
    let rest = String::from_utf8_lossy(body);
    let inner = rest.trim().strip_prefix('{').unwrap_or("}").trim_start();
    let sep = if inner.starts_with('}') { "" } else { "," };
    let kind = Node::Str(kind.to_owned()).to_json_string();
    format!("{{\"type\":{kind}{sep}{inner}")
}

/// A refusal as the provider's WebSocket `error` event.
pub(super) fn error_event(o: &Opening, refusal: &Refusal) -> Message {
    let body = o.route.format.error_body(refusal.status, &refusal.message);
    let mut members = vec![
        ("type".to_owned(), Node::Str("error".into())),
        ("status".to_owned(), Node::Num(refusal.status.to_string())),
    ];
    if let Node::Obj(rest) = body {
        members.extend(rest);
    }
    Message::text(Node::Obj(members).to_json_string())
}
