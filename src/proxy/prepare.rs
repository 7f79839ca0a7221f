//! Request preparation for a proxy route, before any upstream connection: the gate of a keyed
//! route, the policy, a WebSocket upgrade handed to `super::websocket`, the checks that refuse
//! (unknown path, compressed body), then the
//! body as its [`BodyPlan`] says: refused, read now under its deadline and rewritten, or
//! deferred to `request_body_filter`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pingora::http::RequestHeader;
use pingora::prelude::*;
use pingora::proxy::Session;

use super::conversation::{self, Turn};
use super::ctx::RequestCtx;
use super::plan::BodyPlan;
use super::refuse::{refuse, refuse_for, refuse_with, BODY_TIMEOUT, TOO_LARGE};
use super::rewrite::{rewrite, seed};
use super::routes::Route;
use super::thinking::Thinking;
use super::{edges, format, policy, reply, websocket};
use crate::app::App;
use crate::config::UnknownPolicy;
use crate::http::Declared;
use crate::json::Node;
use crate::tokens::TokenTable;

pub(crate) fn header_str<'a>(req: &'a RequestHeader, name: &str) -> Option<&'a str> {
    req.headers.get(name).and_then(|v| v.to_str().ok())
}

enum BodyRead {
    Ok(Vec<u8>),
    TooLarge,
    TimedOut,
}

/// [`read_body_within`] until `deadline`.
async fn read_body(
    session: &mut Session,
    declared: &Declared,
    length: usize,
    cap: usize,
    deadline: Instant,
) -> Result<BodyRead> {
    let left = deadline.saturating_duration_since(Instant::now());
    match tokio::time::timeout(left, read_body_within(session, declared, length, cap)).await {
        Ok(r) => r,
        Err(_) => Ok(BodyRead::TimedOut),
    }
}

/// Reads a body of declared `length` (at most `cap`: a client that sends more is refused).
async fn read_body_within(
    session: &mut Session,
    declared: &Declared,
    length: usize,
    cap: usize,
) -> Result<BodyRead> {
    if declared.expects_continue {
        session.write_continue_response().await?;
    }
    // sized once: a body arriving in several reads is not copied again as the buffer grows
    let mut body = Vec::with_capacity(length);
    // errors reading the client's body are the client's (a closed connection is a 499)
    while let Some(chunk) = session
        .read_request_body()
        .await
        .map_err(|e| e.into_down())?
    {
        if body.len() + chunk.len() > cap {
            return Ok(BodyRead::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(BodyRead::Ok(body))
}

/// Whose entries of the detection cache the exchange reads (`conversation::caller`, "" for a
/// client without tenant or credential); `None` when the cache is off. A turn of a kept
/// conversation has worked its caller out already.
fn cache_caller(
    app: &App,
    turn: Option<&Turn>,
    tenant: Option<&str>,
    req: &RequestHeader,
) -> Option<String> {
    app.detection_cache.as_ref()?;
    let caller = match turn {
        Some(turn) => turn.caller().map(str::to_owned),
        None => conversation::caller(app, tenant, req),
    };
    Some(caller.unwrap_or_default())
}

/// Everything `request_filter` does for a proxy route. `Ok(true)`: answered locally.
pub(crate) async fn prepare(
    app: &Arc<App>,
    body_timeout: Duration,
    session: &mut Session,
    ctx: &mut RequestCtx,
    route: Arc<Route>,
) -> Result<bool> {
    let format = route.format;
    let mut tenant = None;
    if route.require_key {
        edges::adopt_key(session.req_header_mut(), app)?;
        let req = session.req_header();
        // The REST API's gate: same keys, same per-tenant rate limit (401, then 429).
        let peer = crate::access::client::Peer::of(session);
        match crate::access::admit(req, peer, &app.gate()).await {
            Ok(admitted) => tenant = Some(admitted.caller.tenant),
            Err(refused) => {
                let (status, message) = (refused.status(), refused.message());
                refuse_with(session, format, status, message, refused.retry_after_secs()).await?;
                return Ok(true);
            }
        }
    }
    let chosen = policy::choose(app, &route.prefix, tenant.as_deref());
    ctx.telemetry.policy = Some(chosen.name.clone());
    ctx.policy = Some(chosen);
    let req = session.req_header();
    match edges::screen(app, &route, ctx.policy.as_deref(), req) {
        Ok(screened) => ctx.edges = Some(screened),
        Err(refusal) => {
            refuse_for(session, format, &refusal).await?;
            return Ok(true);
        }
    }
    if req.headers.contains_key("upgrade") {
        let caller = cache_caller(app, None, tenant.as_deref(), req);
        let opening = websocket::Opening {
            route,
            tenant,
            req: req.clone(),
            policy: ctx.policy.clone(),
            caller,
            handshake: TokenTable::new(),
        };
        return websocket::serve(app, session, ctx, opening).await;
    }
    let req = session.req_header();
    let path = req.uri.path().to_owned();
    let method = req.method.clone();
    let has_body = req.headers.contains_key("transfer-encoding")
        || header_str(req, "content-length").is_some_and(|v| v.trim() != "0");
    let encoded = header_str(req, "content-encoding")
        .is_some_and(|v| !v.trim().eq_ignore_ascii_case("identity"));
    session.upstream_compression.adjust_decompression(true);
    ctx.route = Some(route.clone());
    if method != http::Method::POST && !has_body {
        return without_body(app, session, ctx, &route, &path, tenant.as_deref()).await;
    }
    let endpoint = match format.endpoint(&path) {
        Some(e) => e,
        None => match route.unknown {
            UnknownPolicy::Refuse => {
                refuse(
                    session,
                    format,
                    404,
                    "This path is not supported by the privacy proxy.",
                )
                .await?;
                return Ok(true);
            }
            UnknownPolicy::Generic => format::GENERIC,
            UnknownPolicy::Passthrough => {
                tracing::warn!(route = %route.prefix, "forwarding a request unchanged (unknown = \"passthrough\")");
                return Ok(false);
            }
        },
    };
    ctx.endpoint = endpoint;
    let req = session.req_header();
    ctx.conversation = Turn::of(app, format, endpoint, &path, tenant.as_deref(), req);
    ctx.thinking = Thinking::of(app, format, endpoint, tenant.as_deref(), req);
    ctx.caller = cache_caller(app, ctx.conversation.as_ref(), tenant.as_deref(), req);
    if encoded {
        refuse(
            session,
            format,
            415,
            "Compressed request bodies are not accepted by the privacy proxy.",
        )
        .await?;
        return Ok(true);
    }
    take_body(app, body_timeout, session, ctx, &route).await
}

/// A request without body (GET /v1/models and the like): nothing to anonymize but its headers
/// and query, nothing to restore but their tokens — and what the provider keeps of a
/// conversation, which comes back with the caller's earlier tokens in it.
async fn without_body(
    app: &App,
    session: &mut Session,
    ctx: &mut RequestCtx,
    route: &Route,
    path: &str,
    tenant: Option<&str>,
) -> Result<bool> {
    let format = route.format;
    let req = session.req_header();
    conversation::forget(app, format, path, tenant, req).await;
    let stored = conversation::stored(app, format, path, tenant, req).await;
    let kept = stored.is_some();
    let mut table = match stored {
        Some((endpoint, table)) => {
            ctx.endpoint = endpoint;
            table
        }
        None => TokenTable::new(),
    };
    if let Err(refusal) = edges::settle(&mut ctx.edges, &mut table) {
        refuse_for(session, format, &refusal).await?;
        return Ok(true);
    }
    if kept || !table.is_empty() {
        let restorer = reply::exchange_for(table.into_entries(), &Node::Null, route.tools.clone());
        ctx.exchange = Some(Arc::new(restorer));
    }
    Ok(false)
}

/// The body of a proxy request, as its [`BodyPlan`] says: refused when too large, deferred to
/// `request_body_filter`, or read now under its deadline and rewritten. `Ok(true)`: answered
/// locally.
async fn take_body(
    app: &App,
    body_timeout: Duration,
    session: &mut Session,
    ctx: &mut RequestCtx,
    route: &Route,
) -> Result<bool> {
    let format = route.format;
    let declared = Declared::of(session.req_header());
    let cap = app.config.api.max_body_bytes;
    let length = match BodyPlan::of(&declared, cap) {
        BodyPlan::TooLarge => {
            refuse(session, format, 413, TOO_LARGE).await?;
            return Ok(true);
        }
        BodyPlan::Deferred { capacity } => {
            if declared.expects_continue {
                session.write_continue_response().await?;
            }
            ctx.deferred = Some(Vec::with_capacity(capacity));
            ctx.body_consumed = true;
            return Ok(false);
        }
        BodyPlan::ReadNow { length } => length,
    };
    session.as_mut().enable_retry_buffering();
    let deadline = ctx
        .body_deadline
        .unwrap_or_else(|| Instant::now() + body_timeout);
    let body = match read_body(session, &declared, length, cap, deadline).await? {
        BodyRead::Ok(b) => b,
        BodyRead::TimedOut => {
            session.set_keepalive(None);
            refuse(session, format, 408, BODY_TIMEOUT).await?;
            return Ok(true);
        }
        BodyRead::TooLarge => {
            refuse(session, format, 413, TOO_LARGE).await?;
            return Ok(true);
        }
    };
    let rewritten = match seed(app, ctx, &body).await {
        Ok(seed) => rewrite(app, ctx, route, body, seed),
        Err(refusal) => Err(refusal),
    };
    match rewritten {
        Ok(body) => {
            ctx.body = Some(body);
            ctx.body_consumed = true;
            Ok(false)
        }
        Err(refusal) => {
            refuse_for(session, format, &refusal).await?;
            Ok(true)
        }
    }
}
