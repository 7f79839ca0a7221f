//! The REST API under `/api/v1` (docs/api.md), answered inside pingora's `request_filter`.
//!
//! One request runs through: route (404/405) → for keyed endpoints the gate of [`access::admit`]
//! (401 → 429) → the body under its byte cap (413) → JSON checks (413 for `text`, then 400) →
//! the handler. Every answer is built completely before it is written, so a rejected request is
//! never partly processed: nothing is stored.
//!
//! - [`body`]: reading under the cap; [`json`]: depth-checked parsing.
//! - responses are [`crate::http::Reply`]s (shared with the web page and the proxy).
//! - [`handlers`]: the endpoints; [`docs`]: `/entities` and the OpenAPI document;
//!   [`policy`]: the caller's policy, request deny terms, `/policy`.

pub mod body;
mod call;
pub mod docs;
pub mod error;
pub mod handlers;
pub mod json;
pub mod policy;

use std::time::{Duration, Instant};

use http::Method;
use pingora::proxy::Session;

use crate::access::{self, Admitted};
use crate::app::App;
use crate::endpoints::Local;
pub use crate::http::{send, Reply};
use body::{BodyState, Declared};
use call::Call;
pub use error::ApiError;

/// Answers one local request completely under `request_id` (decided once, by the gateway's
/// telemetry). Returns the name of the policy the request ran under, if any (for the request's
/// log line).
pub async fn serve(
    session: &mut Session,
    app: &App,
    request_id: &str,
) -> pingora::Result<Option<String>> {
    let started = Instant::now();
    let req = session.req_header();
    let route = Local::of(req.uri.path());
    let method = req.method.clone();
    let mut call = Call {
        id: request_id.to_owned(),
        declared: Declared::of(req),
        body: BodyState::Untouched,
        decision: None,
        policy: None,
    };
    let reply = match dispatch(session, app, &route, &method, &mut call).await {
        Ok(reply) => reply,
        Err(ApiError::ClientClosed) => {
            // nobody to answer: the gateway's log and metrics count it as 499
            return Err(pingora::Error::explain(
                pingora::ErrorType::ConnectionClosed,
                "the client closed the connection during the request body",
            )
            .into_down());
        }
        Err(err) => {
            match &err {
                ApiError::Store(e) => {
                    crate::telemetry::metrics().store_error();
                    tracing::error!(request_id = %call.id, route = route.label(), error = %e, "session store failed")
                }
                ApiError::Internal(why) => {
                    tracing::error!(
                        request_id = %call.id,
                        route = route.label(),
                        reason = why,
                        "internal error"
                    )
                }
                _ => {}
            }
            err.reply()
        }
    };
    let reply = match (&call.decision, reply.status) {
        (Some(d), s) if s != 429 => reply.with_rate_limit(d),
        _ => reply,
    }
    .header(crate::telemetry::REQUEST_ID_HEADER, call.id.clone());
    let status = reply.status;
    finish(session, app, reply, &call, method == Method::HEAD).await?;
    tracing::debug!(
        request_id = %call.id,
        route = route.label(),
        status,
        micros = started.elapsed().as_micros() as u64,
        "api request"
    );
    Ok(call.policy)
}

/// Writes the answer and ends the request body so that the connection is either reusable or
/// closed without resetting the client before it read the answer.
async fn finish(
    session: &mut Session,
    app: &App,
    reply: Reply,
    call: &Call,
    head_only: bool,
) -> pingora::Result<()> {
    let cap = app.config.api.max_body_bytes;
    let unread = match call.body {
        BodyState::Complete => false,
        BodyState::Abandoned => true,
        BodyState::Untouched => call.declared.has_body(),
    };
    if !unread {
        return send(session, reply, head_only).await;
    }
    let small = !call.declared.chunked && call.declared.length.is_some_and(|n| n <= cap as u64);
    if call.body == BodyState::Untouched && small && !call.declared.expects_continue {
        // A small declared body (e.g. with a 401): read and drop it, keep the connection.
        if session.drain_request_body().await.is_ok() {
            return send(session, reply, head_only).await;
        }
    }
    session.set_keepalive(None);
    send(session, reply, head_only).await?;
    if !call.declared.expects_continue || call.body == BodyState::Abandoned {
        body::discard_rest(session, 4 * cap, Duration::from_secs(2)).await;
    }
    Ok(())
}

/// `GET /`: the page. A fresh cookie is counted against the client address's cookie window (429
/// beyond); a browser that shows its valid cookie, or is sent the reload document, is not.
async fn page(session: &Session, app: &App, call: &mut Call) -> Result<Reply, ApiError> {
    use crate::telemetry::CookieOutcome;
    use crate::web::{page_answer, page_reply, PageAnswer};
    let req = session.req_header();
    let client = app
        .web
        .client(crate::access::client::Peer::of(session), &req.headers);
    let answer = page_answer(req, &app.web);
    if answer == PageAnswer::Issue {
        let window = client.window("cookie");
        match access::check_rate(&app.gate(), &window, app.web.rate_limit())
            .await
            .map_err(ApiError::from)
        {
            Ok(decision) => {
                crate::telemetry::metrics().web_cookie(CookieOutcome::issued);
                call.decision = Some(decision);
            }
            Err(e) => {
                if matches!(e, ApiError::RateLimited(_)) {
                    crate::telemetry::metrics().web_cookie(CookieOutcome::rate_limited);
                }
                return Err(e);
            }
        }
    }
    Ok(page_reply(answer, &app.web, client.https))
}

async fn dispatch(
    session: &mut Session,
    app: &App,
    route: &Local,
    method: &Method,
    call: &mut Call,
) -> Result<Reply, ApiError> {
    match route {
        Local::NotFound => return Err(ApiError::NotFound),
        Local::Page if !app.web.enabled() => return Err(ApiError::NotFound),
        _ => {}
    }
    let allowed = match route {
        Local::Anonymize | Local::Deanonymize => method == Method::POST,
        Local::Session(_) => method == Method::DELETE,
        _ => method == Method::GET || method == Method::HEAD,
    };
    if !allowed {
        return Err(ApiError::MethodNotAllowed {
            allow: route.allow(),
        });
    }
    match route {
        Local::Entities => {
            return Ok(Reply::raw(
                200,
                "application/json",
                docs::Documents::get().entities.clone(),
            ))
        }
        Local::OpenApi => {
            return Ok(Reply::raw(
                200,
                "application/json",
                docs::Documents::get().openapi.clone(),
            ))
        }
        Local::Metrics => {
            return Ok(Reply::raw(
                200,
                crate::telemetry::METRICS_CONTENT_TYPE,
                bytes::Bytes::from(crate::telemetry::metrics().render()),
            ))
        }
        Local::Page => return page(session, app, call).await,
        Local::Health => return Ok(handlers::health(app, false).await),
        Local::Ready => return Ok(handlers::health(app, true).await),
        _ => {}
    }
    let peer = crate::access::client::Peer::of(session);
    let Admitted { caller, decision } =
        access::admit(session.req_header(), peer, &app.gate()).await?;
    call.decision = Some(decision);
    match route {
        Local::Policy => Ok(policy::effective(app, &caller)),
        Local::Anonymize => {
            call.policy = Some(policy::of(app, &caller).name.clone());
            let obj = handlers::read_json(session, app, call).await?;
            handlers::anonymize(app, &caller, obj).await
        }
        Local::Deanonymize => {
            let obj = handlers::read_json(session, app, call).await?;
            handlers::deanonymize(app, &caller, obj).await
        }
        Local::Session(id) => {
            // No body is expected; one that is sent is held to the same cap and ignored.
            body::read(
                session,
                &call.declared,
                app.config.api.max_body_bytes,
                std::time::Duration::from_millis(app.config.server.client_body_timeout_ms),
                &mut call.body,
            )
            .await?;
            handlers::delete_session(app, &caller, id).await
        }
        _ => Err(ApiError::NotFound),
    }
}
