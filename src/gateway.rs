//! The one `ProxyHttp` implementation, the process's front door: local routes (REST API, web
//! page, metrics) go to [`crate::api`], every other path that a route matches is an LLM exchange
//! of [`crate::proxy`], anonymized on the way up and restored on the way down. Each phase is a
//! short function that hands its work to the module that does it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use pingora::http::{RequestHeader, ResponseHeader};
use pingora::prelude::*;
use pingora::proxy::{FailToProxy, ProxyHttp, Session};

use crate::app::App;
use crate::proxy::response::{self, Hold};
use crate::proxy::routes::{self, Routes};
use crate::proxy::{fail, prepare, rewrite, upstream, RequestCtx};

/// Cheap to clone: each per-thread service of [`crate::server`] gets a copy sharing the same
/// application state and DNS cache.
#[derive(Clone)]
pub struct Gateway {
    app: Arc<App>,
    routes: Routes,
    timeouts: upstream::Timeouts,
    body_timeout: Duration,
}

impl Gateway {
    /// Builds the gateway. Fails (naming the route and the problem) on a route that cannot be
    /// served: an upstream that is no http(s) origin, an unset `credential_env`.
    pub fn try_new(app: Arc<App>) -> Result<Gateway, routes::RouteError> {
        let routes = Routes::from_config(&app.config)?;
        routes.warm_up();
        let ms = |v: u64| Duration::from_millis(v.max(1));
        Ok(Gateway {
            timeouts: upstream::Timeouts {
                connect: ms(app.config.upstream.connect_timeout_ms),
                read: ms(app.config.upstream.read_timeout_ms),
            },
            body_timeout: ms(app.config.server.client_body_timeout_ms),
            routes,
            app,
        })
    }
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
        let path = session.req_header().uri.path();
        if crate::endpoints::is_local(path) {
            ctx.telemetry.policy = crate::api::serve(session, &self.app, &ctx.telemetry.id).await?;
            return Ok(true);
        }
        if let Some(route) = self.routes.find(path) {
            return prepare::prepare(&self.app, self.body_timeout, session, ctx, route).await;
        }
        let body = serde_json::json!({"error": {"message": "No proxy route matches this path.", "type": "invalid_request_error", "code": "no_route"}});
        crate::http::respond_json(session, 404, &body).await?;
        Ok(true)
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
        Ok(Box::new(upstream::peer(
            addr,
            &route.upstream,
            self.timeouts,
        )))
    }

    async fn upstream_request_filter(
        &self,
        _session: &mut Session,
        req: &mut RequestHeader,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        upstream::rewrite_header(req, ctx)
    }

    async fn request_body_filter(
        &self,
        _session: &mut Session,
        body: &mut Option<Bytes>,
        end_of_stream: bool,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        rewrite::supply_body(&self.app, body, end_of_stream, ctx).await
    }

    async fn upstream_response_filter(
        &self,
        _session: &mut Session,
        resp: &mut ResponseHeader,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        if let Some(turn) = ctx.conversation.as_mut() {
            turn.reply_header(&self.app, resp.status.as_u16()).await;
        }
        response::begin(resp, ctx)
    }

    async fn response_filter(
        &self,
        session: &mut Session,
        resp: &mut ResponseHeader,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        ctx.telemetry.tag_proxied_response(resp);
        ctx.hold_last_piece = match response::hold(resp, ctx) {
            Hold::FromHeader => {
                crate::slow_clients::hold_writes(session);
                false
            }
            Hold::FromLastPiece => true,
            Hold::Never => false,
        };
        Ok(())
    }

    fn response_body_filter(
        &self,
        session: &mut Session,
        body: &mut Option<Bytes>,
        end_of_stream: bool,
        ctx: &mut RequestCtx,
    ) -> Result<Option<Duration>> {
        if end_of_stream && ctx.hold_last_piece {
            crate::slow_clients::hold_writes(session);
        }
        response::restore(&self.app, body, end_of_stream, ctx);
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
        fail::fail_to_proxy(session, e, ctx).await
    }

    fn request_summary(&self, session: &Session, ctx: &RequestCtx) -> String {
        crate::telemetry::summarize_session(session, &ctx.telemetry, &self.app.config)
    }

    async fn logging(&self, session: &mut Session, e: Option<&Error>, ctx: &mut RequestCtx) {
        crate::slow_clients::request_finished(session);
        if let Some(turn) = ctx.conversation.as_mut() {
            turn.finish().await;
        }
        if let Some(thinking) = ctx.thinking.as_mut() {
            thinking.finish().await;
        }
        let exchange = ctx.exchange_line();
        let config = &self.app.config;
        crate::telemetry::finish_session(session, e, &ctx.telemetry, config, exchange.as_ref());
    }
}
