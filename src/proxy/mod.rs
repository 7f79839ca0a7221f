//! The one `ProxyHttp` implementation: local routes (REST API, web page) are answered in
//! `request_filter`; everything else is an LLM exchange, anonymized on the way up and restored
//! on the way down.
//!
//! Request side (fail closed): the whole body is read and rewritten in `request_filter`, where
//! the client can still be answered in the provider's error shape; only a fully rewritten body
//! is handed to `request_body_filter`. Reply side: the framing is chosen from the upstream's
//! `Content-Type` in `upstream_response_filter`, and `response_body_filter` restores tokens
//! event by event. The promises kept here are in `docs/proxy.md`.
//!
//! The phases, in the order pingora calls them, each a short function below; the work they
//! hand off lives beside them: `prepare` (request checks and the body read),
//! `rewrite` (anonymize-and-store, once), `refuse` (every refusal), `reply` (the reply rewrite).

pub mod anon;
mod ctx;
pub mod embedded;
pub mod format;
pub mod ndjson;
mod plan;
pub mod policy;
mod prepare;
mod refuse;
pub mod reply;
pub mod restore;
mod rewrite;
pub mod routes;
pub mod sse;
pub mod walk;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use pingora::http::{RequestHeader, ResponseHeader};
use pingora::prelude::*;
use pingora::proxy::{FailToProxy, ProxyHttp, Session};

use crate::api;
use crate::app::App;
use reply::{Framing, ReplyRewriter};
use routes::Routes;

pub use ctx::RequestCtx;
use refuse::{refuse, Refusal};

pub struct Gateway {
    app: Arc<App>,
    routes: Routes,
    connect_timeout: Duration,
    read_timeout: Duration,
    body_timeout: Duration,
}

impl Gateway {
    /// Builds the gateway. Fails (naming the route and the problem) on a route that cannot be
    /// served: an upstream that is no http(s) origin, an unset `credential_env`.
    pub fn try_new(app: Arc<App>) -> Result<Gateway, routes::RouteError> {
        let routes = Routes::from_config(&app.config)?;
        routes.warm_up();
        Ok(Gateway {
            connect_timeout: Duration::from_millis(app.config.upstream.connect_timeout_ms.max(1)),
            read_timeout: Duration::from_millis(app.config.upstream.read_timeout_ms.max(1)),
            body_timeout: Duration::from_millis(app.config.server.client_body_timeout_ms.max(1)),
            routes,
            app,
        })
    }
}

/// Frames the body that replaces the client's. A body rewritten before the upstream request
/// (`body`) has a known length: sent with `Content-Length`, it goes out in one write, where
/// chunked framing costs a second write for the last chunk (and an upstream parses less). A
/// deferred body is rewritten only after the header is sent, so it goes out chunked (pingora
/// chooses chunked when neither header is present).
fn frame_rewritten_body(req: &mut RequestHeader, body: Option<&Bytes>) -> Result<()> {
    req.remove_header("content-length");
    req.remove_header("transfer-encoding");
    if let Some(body) = body {
        req.insert_header("content-length", body.len().to_string())?;
    }
    Ok(())
}

/// Removes Tarnkappe's own credentials from a request bound upstream: the web page's tenant
/// cookie (other cookies stay), and `X-API-Key` when it is ours — always on a route that
/// requires a key (there the header is the proxy key by definition), elsewhere when its value is
/// one of the configured keys. Any other `X-API-Key` is the provider's credential (Anthropic)
/// and passes unchanged.
fn strip_own_credentials(
    req: &mut RequestHeader,
    keyed_route: bool,
    keys: &crate::access::KeyRing,
) -> Result<()> {
    let presented: Vec<http::HeaderValue> =
        req.headers.get_all("x-api-key").iter().cloned().collect();
    let kept: Vec<http::HeaderValue> = presented
        .iter()
        .filter(|v| !keyed_route && !keys.holds(v.as_bytes()))
        .cloned()
        .collect();
    if kept.len() != presented.len() {
        req.remove_header("x-api-key");
        for v in kept {
            req.append_header("x-api-key", v)?;
        }
    }
    let cookies: Vec<http::HeaderValue> = req
        .headers
        .get_all(http::header::COOKIE)
        .iter()
        .cloned()
        .collect();
    let ours = |pair: &str| {
        pair.split_once('=')
            .is_some_and(|(name, _)| name.trim() == crate::web::COOKIE_NAME)
    };
    let holds_ours = cookies
        .iter()
        .any(|h| h.to_str().map_or(true, |h| h.split(';').any(ours)));
    if holds_ours {
        req.remove_header(http::header::COOKIE.as_str());
        for h in &cookies {
            // A header that is not visible ASCII cannot be split safely: it is dropped whole.
            let Ok(h) = h.to_str() else { continue };
            let rest: Vec<&str> = h
                .split(';')
                .map(str::trim)
                .filter(|p| !p.is_empty() && !ours(p))
                .collect();
            if !rest.is_empty() {
                req.append_header(http::header::COOKIE.as_str(), rest.join("; "))?;
            }
        }
    }
    Ok(())
}

#[async_trait]
impl ProxyHttp for Gateway {
    type CTX = RequestCtx;

    fn new_ctx(&self) -> RequestCtx {
        RequestCtx::default()
    }

    async fn early_request_filter(
        &self,
        session: &mut Session,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        // the header is complete: its deadline is off, the body's starts
        crate::slow_clients::header_received(session);
        ctx.body_deadline = Some(Instant::now() + self.body_timeout);
        // a single stalled read of the body never waits past the body's whole time
        session.set_read_timeout(Some(self.body_timeout));
        Ok(())
    }

    async fn request_filter(&self, session: &mut Session, ctx: &mut RequestCtx) -> Result<bool> {
        ctx.telemetry.tag_request(session.req_header_mut());
        let path = session.req_header().uri.path().to_owned();
        if crate::http::is_local(&path) {
            ctx.telemetry.policy = api::serve(session, &self.app, &ctx.telemetry.id).await?;
            return Ok(true);
        }
        if let Some(route) = self.routes.find(&path) {
            return prepare::prepare(&self.app, self.body_timeout, session, ctx, route).await;
        }
        let body = serde_json::json!({"error": {"message": "No proxy route matches this path.", "type": "invalid_request_error", "code": "no_route"}});
        crate::http::respond_json(session, 404, &body).await?;
        Ok(true)
    }

    async fn response_filter(
        &self,
        _session: &mut Session,
        upstream_response: &mut pingora::http::ResponseHeader,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        ctx.telemetry.tag_proxied_response(upstream_response);
        Ok(())
    }

    fn request_summary(&self, session: &Session, ctx: &RequestCtx) -> String {
        crate::telemetry::summarize_session(session, &ctx.telemetry, &self.app.config)
    }

    async fn upstream_peer(
        &self,
        _session: &mut Session,
        ctx: &mut RequestCtx,
    ) -> Result<Box<HttpPeer>> {
        let route = ctx
            .route
            .as_ref()
            .ok_or_else(|| Error::explain(ErrorType::InternalError, "no upstream selected"))?;
        let addr = self.routes.resolve(&route.upstream).await.ok_or_else(|| {
            Error::explain(
                ErrorType::ConnectNoRoute,
                "the upstream host name does not resolve",
            )
        })?;
        let mut peer = HttpPeer::new(addr, route.upstream.tls, route.upstream.host.clone());
        peer.options.connection_timeout = Some(self.connect_timeout);
        peer.options.total_connection_timeout = Some(self.connect_timeout * 2);
        peer.options.read_timeout = Some(self.read_timeout);
        Ok(Box::new(peer))
    }

    async fn upstream_request_filter(
        &self,
        _session: &mut Session,
        req: &mut RequestHeader,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        let Some(route) = ctx.route.as_ref() else {
            return Ok(());
        };
        let pq = req
            .uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_owned();
        let target = format!("{}{}", route.upstream.base_path, pq);
        let uri = target
            .parse::<http::Uri>()
            .map_err(|_| Error::explain(ErrorType::InternalError, "invalid upstream path"))?;
        req.set_uri(uri);
        req.insert_header("host", route.upstream.authority.as_str())?;
        if ctx.body_consumed {
            req.remove_header("expect");
            frame_rewritten_body(req, ctx.body.as_ref())?;
        }
        req.insert_header("accept-encoding", "identity")?;
        strip_own_credentials(req, route.require_key, &self.app.keys)?;
        if let Some((name, value)) = &route.credential {
            req.insert_header(name.clone(), value.as_str())?;
        }
        Ok(())
    }

    async fn request_body_filter(
        &self,
        _session: &mut Session,
        body: &mut Option<Bytes>,
        end_of_stream: bool,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        if !end_of_stream && ctx.body_deadline.is_some_and(|d| Instant::now() > d) {
            ctx.refusal = Some(Refusal::body_timeout());
            return Err(Error::explain(
                ErrorType::HTTPStatus(408),
                "request body too slow",
            ));
        }
        if let Some(acc) = ctx.deferred.as_mut() {
            if let Some(chunk) = body.as_ref() {
                if acc.len() + chunk.len() > self.app.config.api.max_body_bytes {
                    ctx.refusal = Some(Refusal::too_large());
                    return Err(Error::explain(
                        ErrorType::HTTPStatus(413),
                        "request body too large",
                    ));
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
            match rewrite::rewrite(&self.app, ctx, &route, acc) {
                Ok(rewritten) => {
                    *body = Some(rewritten);
                    return Ok(());
                }
                Err(refusal) => {
                    let status = refusal.status;
                    ctx.refusal = Some(refusal);
                    return Err(Error::explain(
                        ErrorType::HTTPStatus(status),
                        "request refused",
                    ));
                }
            }
        }
        if ctx.body_consumed {
            if end_of_stream {
                // cloned, not taken: pingora may retry on a fresh connection
                *body = ctx.body.clone();
            } else {
                *body = Some(Bytes::new());
            }
        }
        Ok(())
    }

    async fn upstream_response_filter(
        &self,
        _session: &mut Session,
        resp: &mut ResponseHeader,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        if ctx.route.is_none() {
            return Ok(());
        }
        resp.insert_header("x-tarnkappe-entities", ctx.entities.to_string())?;
        let (Some(ex), Some(route)) = (ctx.exchange.clone(), ctx.route.clone()) else {
            return Ok(());
        };
        let still_encoded = resp
            .headers
            .get("content-encoding")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| !v.trim().eq_ignore_ascii_case("identity"));
        resp.remove_header("content-length");
        resp.remove_header("etag");
        resp.remove_header("content-md5");
        if still_encoded {
            let body = route.format.error_body(
                502,
                "The upstream reply uses a content encoding the privacy proxy cannot read.",
            );
            resp.set_status(502)?;
            resp.remove_header("content-encoding");
            resp.insert_header("content-type", "application/json")?;
            ctx.reply_error = Some(Bytes::from(body.to_bytes()));
            return Ok(());
        }
        let ct = resp
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let framing = Framing::from_content_type(ct);
        ctx.reply = Some(ReplyRewriter::new(ex, route.format, ctx.endpoint, framing));
        Ok(())
    }

    fn response_body_filter(
        &self,
        _session: &mut Session,
        body: &mut Option<Bytes>,
        end_of_stream: bool,
        ctx: &mut RequestCtx,
    ) -> Result<Option<Duration>> {
        if let Some(err) = &ctx.reply_error {
            *body = if end_of_stream {
                Some(err.clone())
            } else {
                None
            };
            return Ok(None);
        }
        if let Some(reply) = ctx.reply.as_mut() {
            let input = body.take().unwrap_or_default();
            let out = reply.feed(&input, end_of_stream);
            *body = if out.is_empty() {
                None
            } else {
                Some(Bytes::from(out))
            };
        }
        Ok(None)
    }

    async fn fail_to_proxy(
        &self,
        session: &mut Session,
        e: &Error,
        ctx: &mut RequestCtx,
    ) -> FailToProxy
    where
        Self::CTX: Send + Sync,
    {
        let code = match e.etype() {
            ErrorType::HTTPStatus(c) => *c,
            ErrorType::ConnectTimedout | ErrorType::ReadTimedout | ErrorType::WriteTimedout
                if e.esource() == &ErrorSource::Upstream =>
            {
                504
            }
            _ => match e.esource() {
                ErrorSource::Upstream => 502,
                ErrorSource::Downstream => match e.etype() {
                    ErrorType::WriteError | ErrorType::ReadError | ErrorType::ConnectionClosed => 0,
                    ErrorType::ReadTimedout => 408,
                    _ => 400,
                },
                ErrorSource::Internal | ErrorSource::Unset => 500,
            },
        };
        let Some(route) = ctx.route.clone() else {
            if code > 0 {
                let _ = session.respond_error(code).await;
            }
            return FailToProxy {
                error_code: code,
                can_reuse_downstream: false,
            };
        };
        if code == 408 && ctx.refusal.is_none() {
            ctx.refusal = Some(Refusal::body_timeout());
        }
        if let Some(refusal) = ctx.refusal.take() {
            if session.response_written().is_none() {
                let _ = refuse(session, route.format, refusal.status, &refusal.message).await;
            }
            return FailToProxy {
                error_code: refusal.status,
                can_reuse_downstream: false,
            };
        }
        if code == 0 {
            // the client is gone: nothing to write
            return FailToProxy {
                error_code: 0,
                can_reuse_downstream: false,
            };
        }
        if session.response_written().is_none() {
            let _ = refuse(
                session,
                route.format,
                code,
                "The upstream could not be reached or failed.",
            )
            .await;
            return FailToProxy {
                error_code: code,
                can_reuse_downstream: false,
            };
        }
        // The reply had started: release held-back text, end the stream with an error frame.
        if let Some(reply) = ctx.reply.as_mut() {
            let tail = reply.abort("The upstream connection failed during the reply.");
            let _ = session
                .write_response_body(Some(Bytes::from(tail)), true)
                .await;
        } else {
            let _ = session.write_response_body(None, true).await;
        }
        FailToProxy {
            error_code: 0,
            can_reuse_downstream: false,
        }
    }

    async fn logging(&self, session: &mut Session, e: Option<&Error>, ctx: &mut RequestCtx) {
        crate::slow_clients::request_finished(session);
        crate::telemetry::finish_session(session, e, &ctx.telemetry, &self.app.config);
        let status = crate::telemetry::final_status(session, e);
        let Some(route) = ctx.route.as_ref() else {
            return;
        };
        let (tolerant, unrestored, restored) = ctx.exchange.as_ref().map_or((0, 0, 0), |ex| {
            (
                ex.counts.tolerant.load(Ordering::Relaxed),
                ex.counts.unrestored.load(Ordering::Relaxed),
                ex.counts.restored.load(Ordering::Relaxed),
            )
        });
        let restore_limited = ctx
            .exchange
            .as_ref()
            .is_some_and(|ex| ex.budget_exhausted());
        if restore_limited {
            crate::telemetry::metrics().restore_limited();
        }
        tracing::info!(
            route = %route.prefix,
            format = route.format.name(),
            endpoint = ctx.endpoint,
            policy = ctx.policy.as_ref().map(|p| p.name.as_str()),
            status,
            entities = ctx.entities,
            restored,
            tolerant_restores = tolerant,
            unrestored_tokens = unrestored,
            restore_limited,
            "proxied exchange"
        );
    }
}
