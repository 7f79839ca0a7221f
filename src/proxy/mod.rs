//! The one `ProxyHttp` implementation: local routes (REST API, web page) are answered in
//! `request_filter`; everything else is an LLM exchange, anonymized on the way up and restored
//! on the way down.

use std::sync::Arc;

use async_trait::async_trait;
use pingora::prelude::*;
use pingora::proxy::{ProxyHttp, Session};

use crate::api;
use crate::app::App;

pub struct Gateway {
    app: Arc<App>,
}

impl Gateway {
    pub fn new(app: Arc<App>) -> Gateway {
        Gateway { app }
    }

    /// The route template of `path` for logs and metrics (never the path itself).
    fn route_template(&self, path: &str) -> String {
        let prefixes = self.app.config.routes.iter().map(|r| r.prefix.as_str());
        crate::telemetry::route_template(path, prefixes)
    }
}

/// Per-request state.
#[derive(Default)]
pub struct RequestCtx {
    /// Request id and start time (logs, metrics, `X-Request-Id`).
    pub telemetry: crate::telemetry::RequestTelemetry,
}

/// Paths served by this process itself, never proxied.
pub fn is_local_path(path: &str) -> bool {
    path == "/"
        || path == "/openapi.json"
        || path == "/metrics"
        || path == "/api/v1"
        || path.starts_with("/api/v1/")
}

#[async_trait]
impl ProxyHttp for Gateway {
    type CTX = RequestCtx;

    fn new_ctx(&self) -> RequestCtx {
        RequestCtx::default()
    }

    async fn request_filter(&self, session: &mut Session, ctx: &mut RequestCtx) -> Result<bool> {
        ctx.telemetry.tag_request(session.req_header_mut());
        let path = session.req_header().uri.path().to_owned();
        if is_local_path(&path) {
            api::serve(session, &self.app).await?;
            return Ok(true);
        }
        let body = serde_json::json!({"error": {"message": "No proxy route matches this path.", "type": "invalid_request_error", "code": "no_route"}});
        api::respond_json(session, 404, &body).await?;
        Ok(true)
    }

    async fn response_filter(
        &self,
        _session: &mut Session,
        upstream_response: &mut pingora::http::ResponseHeader,
        ctx: &mut RequestCtx,
    ) -> Result<()> {
        ctx.telemetry.tag_response(upstream_response);
        Ok(())
    }

    async fn logging(&self, session: &mut Session, e: Option<&Error>, ctx: &mut RequestCtx) {
        let status = session.response_written().map_or(0, |r| r.status.as_u16());
        let req = session.req_header();
        let route = self.route_template(req.uri.path());
        crate::telemetry::finish_request(&ctx.telemetry, &route, &req.method, status, e);
    }

    fn request_summary(&self, session: &Session, ctx: &RequestCtx) -> String {
        let req = session.req_header();
        let route = self.route_template(req.uri.path());
        crate::telemetry::request_summary(&ctx.telemetry, &route, &req.method)
    }

    async fn upstream_peer(
        &self,
        _session: &mut Session,
        _ctx: &mut RequestCtx,
    ) -> Result<Box<HttpPeer>> {
        Err(Error::explain(
            ErrorType::InternalError,
            "no upstream selected",
        ))
    }
}
