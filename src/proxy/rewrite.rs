//! Anonymize-and-store, once for both ways a body arrives (read whole in `request_filter`, or
//! accumulated in `request_body_filter`): the body is rewritten under the exchange's policy,
//! checked against the policy's block list, and the token table kept for the reply. A large
//! body is anonymized on the blocking pool, a bounded number at a time, so that the event loop
//! keeps serving other requests meanwhile (`docs/proxy.md`, "Limits").

use std::sync::{Arc, LazyLock};
use std::time::Instant;

use bytes::Bytes;
use pingora::prelude::{Error, ErrorType};
use tokio::sync::Semaphore;

use super::anon::{Job, Limits, RewriteError, RewrittenBody};
use super::conversation;
use super::ctx::RequestCtx;
use super::refuse::Refusal;
use super::routes::Route;
use super::thinking::Seed;
use super::{anon, edges, policy, reply};
use crate::app::App;
use crate::json::{self, Node};
use crate::policy::Policy;
use crate::tokens::TokenTable;

/// Large bodies anonymized at the same time: one per CPU, the rest wait without blocking.
static HEAVY: LazyLock<Semaphore> =
    LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())));

type Anonymized = Result<(RewrittenBody, Option<Node>), RewriteError>;

const INTERNAL: &str = "The privacy proxy failed while rewriting the request.";

/// The job of anonymizing one exchange's body: the configured bounds, tokens issued from
/// `seed` on, and the detection cache's part for this caller and policy (when it is on).
fn job<'a>(app: &'a App, caller: Option<&str>, policy: Option<&Policy>, seed: Seed) -> Job<'a> {
    let policy = policy.map_or("", |p| p.name.as_str());
    Job {
        limits: Limits {
            values: app.config.api.max_values_per_request,
        },
        seed: seed.table,
        signed: seed.signed,
        cache: app
            .detection_cache
            .as_ref()
            .zip(caller)
            .map(|(cache, caller)| cache.scope(caller, policy)),
    }
}

/// The table to issue this exchange's tokens from: a conversation turn's earlier tokens (or a
/// floor above them when they are unknown), the tokens of the signed thinking blocks sent
/// back, else a fresh one; with the tokens of the request's headers and query string in it
/// (`edges::settle`). A conversation store that cannot be read refuses the request.
pub(super) async fn seed(app: &App, ctx: &mut RequestCtx, body: &[u8]) -> Result<Seed, Refusal> {
    let mut seed = match (ctx.thinking.as_mut(), ctx.conversation.as_mut()) {
        (Some(thinking), _) => thinking.load(app, body).await,
        (None, None) => Seed {
            table: TokenTable::new(),
            signed: None,
        },
        (None, Some(turn)) => {
            let table = turn.load(app, body).await.map_err(|e| {
                tracing::warn!(error = %e, "request refused: conversation state unavailable");
                Refusal::new(503, conversation::UNAVAILABLE)
            })?;
            Seed {
                table,
                signed: None,
            }
        }
    };
    edges::settle(&mut ctx.edges, &mut seed.table)?;
    Ok(seed)
}

/// The body to forward in place of `body`, or why nothing is forwarded. Records the
/// exchange's token table (issued from `seed` on) and entity count in `ctx`.
pub(crate) fn rewrite(
    app: &App,
    ctx: &mut RequestCtx,
    route: &Route,
    body: Vec<u8>,
    seed: Seed,
) -> Result<Bytes, Refusal> {
    let earlier = seed.table.entries().len();
    let (policy, endpoint) = (ctx.policy.as_deref(), ctx.endpoint);
    let job = job(app, ctx.caller.as_deref(), policy, seed);
    let result =
        anon::anonymize_keeping_original(&app.detector, policy, route.format, endpoint, &body, job);
    finish(ctx, route, result, body, earlier)
}

/// [`rewrite`] on the blocking pool.
pub(super) async fn rewrite_off_loop(
    app: &Arc<App>,
    ctx: &mut RequestCtx,
    route: &Arc<Route>,
    body: Vec<u8>,
    seed: Seed,
) -> Result<Bytes, Refusal> {
    let Ok(_permit) = HEAVY.acquire().await else {
        return Err(Refusal::new(500, INTERNAL));
    };
    let earlier = seed.table.entries().len();
    let (app, route2) = (app.clone(), route.clone());
    let (policy, endpoint, caller) = (ctx.policy.clone(), ctx.endpoint, ctx.caller.clone());
    let work = tokio::task::spawn_blocking(move || {
        let policy = policy.as_deref();
        let job = job(&app, caller.as_deref(), policy, seed);
        let result = anon::anonymize_keeping_original(
            &app.detector,
            policy,
            route2.format,
            endpoint,
            &body,
            job,
        );
        (result, body)
    });
    match work.await {
        Ok((result, body)) => finish(ctx, route, result, body, earlier),
        Err(_) => Err(Refusal::new(500, INTERNAL)),
    }
}

/// Checks the anonymized body against the policy and records the exchange in `ctx` (`earlier`:
/// the rows the table held before this request).
fn finish(
    ctx: &mut RequestCtx,
    route: &Route,
    result: Anonymized,
    body: Vec<u8>,
    earlier: usize,
) -> Result<Bytes, Refusal> {
    let format = route.format;
    let policy = ctx.policy.as_deref();
    let (a, original) = result.map_err(|e| {
        tracing::info!(route = %route.prefix, format = format.name(), reason = %e, "request refused");
        match e {
            RewriteError::TooManyValues { limit } => Refusal::too_many_values(limit),
            RewriteError::Detect(_) => Refusal::too_many_candidates(),
            e => Refusal::new(
                400,
                format!("The privacy proxy could not rewrite the request: {e}"),
            ),
        }
    })?;
    if let Some(message) = policy.and_then(|p| policy::verdict(p, &a.table)) {
        tracing::info!(route = %route.prefix, format = format.name(), "request blocked by policy");
        return Err(Refusal::new(policy::BLOCKED_STATUS, message));
    }
    ctx.entities = a.count;
    let new_rows = a.table.entries().get(earlier..).unwrap_or_default();
    crate::telemetry::record_entities(new_rows.iter().map(|m| m.entity_type));
    if let Some(turn) = ctx.conversation.as_mut() {
        turn.keep(&a.table);
    }
    if let Some(thinking) = ctx.thinking.as_mut() {
        thinking.keep(&a.table);
    }
    if ctx.keep_table {
        ctx.table = Some(a.table.clone());
    }
    if !a.table.is_empty() {
        // earlier turns' tokens with nothing replaced now: the body is read here once
        let original = original.or_else(|| {
            let text = std::str::from_utf8(&body).ok()?;
            json::parse(text).ok()
        });
        if let Some(original) = original {
            let tools = ctx
                .route
                .as_ref()
                .map(|r| r.tools.clone())
                .unwrap_or_default();
            ctx.exchange = Some(Arc::new(reply::exchange_for(
                a.table.into_entries(),
                &original,
                tools,
            )));
        }
    }
    Ok(match a.body {
        Some(b) => Bytes::from(b),
        None => Bytes::from(body),
    })
}

/// `request_body_filter`: supplies the body that replaces the client's. A body rewritten in
/// `request_filter` is handed over at the end of the client's (pingora's own reading of it
/// yields nothing then); a deferred one is accumulated here, under its deadline and byte cap,
/// and rewritten at its end. Until the end, `Some(empty)`: `None` would mean "end of body".
pub(crate) async fn supply_body(
    app: &Arc<App>,
    body: &mut Option<Bytes>,
    end_of_stream: bool,
    ctx: &mut RequestCtx,
) -> pingora::Result<()> {
    if !end_of_stream && ctx.body_deadline.is_some_and(|d| Instant::now() > d) {
        return Err(refused(ctx, Refusal::body_timeout()));
    }
    if ctx.deferred.is_some() {
        return rewrite_deferred(app, body, end_of_stream, ctx).await;
    }
    if ctx.body_consumed {
        *body = if end_of_stream {
            // cloned, not taken: pingora may retry on a fresh connection
            ctx.body.clone()
        } else {
            Some(Bytes::new())
        };
    }
    Ok(())
}

async fn rewrite_deferred(
    app: &Arc<App>,
    body: &mut Option<Bytes>,
    end_of_stream: bool,
    ctx: &mut RequestCtx,
) -> pingora::Result<()> {
    let Some(acc) = ctx.deferred.as_mut() else {
        return Ok(());
    };
    if let Some(chunk) = body.as_ref() {
        if acc.len() + chunk.len() > app.config.api.max_body_bytes {
            return Err(refused(ctx, Refusal::too_large()));
        }
        acc.extend_from_slice(chunk);
    }
    if !end_of_stream {
        *body = Some(Bytes::new());
        return Ok(());
    }
    let acc = ctx.deferred.take().unwrap_or_default();
    let Some(route) = ctx.route.clone() else {
        return Err(Error::explain(ErrorType::InternalError, "no route"));
    };
    let rewritten = match seed(app, ctx, &acc).await {
        Ok(seed) => rewrite_off_loop(app, ctx, &route, acc, seed).await,
        Err(refusal) => Err(refusal),
    };
    match rewritten {
        Ok(rewritten) => {
            *body = Some(rewritten);
            Ok(())
        }
        Err(refusal) => Err(refused(ctx, refusal)),
    }
}

/// Keeps `refusal` for `fail_to_proxy` (which answers the client) and ends the request.
fn refused(ctx: &mut RequestCtx, refusal: Refusal) -> Box<Error> {
    let status = refusal.status;
    ctx.refusal = Some(refusal);
    Error::explain(ErrorType::HTTPStatus(status), "request refused")
}
