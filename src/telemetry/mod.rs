//! Telemetry: structured logs ([`init_logging`], text or JSON by `[log]`), a request id on every
//! response ([`REQUEST_ID_HEADER`]), and Prometheus metrics ([`metrics()`], served at `/metrics`).
//!
//! The rule for all three: no submitted text, no personal data and no key ever reaches a log line
//! or a metric label. Log lines name the route *template* (`/api/v1/session/{id}`), never the path
//! or query; metric labels come from fixed sets only.

mod access_line;
mod logging;
mod metrics;

use std::time::{Duration, Instant};

use pingora::http::{RequestHeader, ResponseHeader};

pub(crate) use access_line::ExchangeLine;
pub use logging::{init_logging, LogInitError};
pub(crate) use metrics::{
    metrics, AuthLabel, ConversationEvent, CookieOutcome, SessionEvent, ThinkingEvent,
    UpstreamErrorKind, METRICS_CONTENT_TYPE,
};

/// The response header (and, towards upstreams, request header) that carries the request id.
pub(crate) const REQUEST_ID_HEADER: &str = "x-request-id";
/// Our request id on proxied responses, beside the provider's own `X-Request-Id`.
pub(crate) const PROXY_REQUEST_ID_HEADER: &str = "x-tarnkappe-request-id";

/// A fresh request id: 32 lower-case hex digits (a random UUID v4 without dashes). Ids sent by
/// clients are not trusted: they could carry anything into the logs. The random bytes come
/// from the thread's userspace generator (seeded from the OS): `Uuid::new_v4` asks the kernel
/// on every call, one system call per request for nothing that needs it.
pub(crate) fn new_request_id() -> String {
    uuid::Builder::from_random_bytes(rand::random())
        .into_uuid()
        .simple()
        .to_string()
}

/// Per-request telemetry state, kept in the proxy's request context.
#[derive(Debug, Clone)]
pub(crate) struct RequestTelemetry {
    pub id: String,
    pub started: Instant,
    /// The `X-Request-Id` an upstream LLM sent with its reply (kept for the client, logged).
    pub upstream_id: Option<String>,
    /// The policy the request ran under (its name only), when it ran under one.
    pub policy: Option<String>,
}

impl Default for RequestTelemetry {
    fn default() -> Self {
        RequestTelemetry {
            id: new_request_id(),
            started: Instant::now(),
            upstream_id: None,
            policy: None,
        }
    }
}

/// Whether an upstream's request id may be logged: a short token of safe characters only.
fn plausible_upstream_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

impl RequestTelemetry {
    /// Puts the id into the request header (replacing one a client sent), so that local handlers
    /// can copy it into their responses ([`copy_request_id`]) and upstreams see it too.
    pub(crate) fn tag_request(&self, req: &mut RequestHeader) {
        let _ = req.insert_header(REQUEST_ID_HEADER, self.id.as_str());
    }

    /// Puts the id into a response header as `X-Request-Id`.
    pub(crate) fn tag_response(&self, resp: &mut ResponseHeader) {
        let _ = resp.insert_header(REQUEST_ID_HEADER, self.id.as_str());
    }

    /// Tags a proxied reply. Ours always travels as `X-Tarnkappe-Request-Id`. The provider's own
    /// `X-Request-Id` (SDKs show it, the provider's support asks for it) is kept and logged
    /// beside ours as `upstream_request_id`; without one (or with one that is not a plain
    /// token), ours is set as `X-Request-Id` too.
    pub(crate) fn tag_proxied_response(&mut self, resp: &mut ResponseHeader) {
        let _ = resp.insert_header(PROXY_REQUEST_ID_HEADER, self.id.as_str());
        let upstream = resp
            .headers
            .get(REQUEST_ID_HEADER)
            .and_then(|v| v.to_str().ok())
            .filter(|v| plausible_upstream_id(v))
            .map(str::to_owned);
        match upstream {
            Some(id) => self.upstream_id = Some(id),
            None => self.tag_response(resp),
        }
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

/// Copies the request id that [`RequestTelemetry::tag_request`] put into `req` onto `resp`.
pub(crate) fn copy_request_id(req: &RequestHeader, resp: &mut ResponseHeader) {
    if let Some(id) = req.headers.get(REQUEST_ID_HEADER) {
        let _ = resp.insert_header(REQUEST_ID_HEADER, id.clone());
    }
}

/// The route template of `path` for logs and metric labels: a fixed string for every local
/// endpoint, the configured prefix for a proxy route (operator configuration, not request data),
/// and placeholders for everything else. Never returns any part of the path that a client chose.
pub(crate) fn route_template<'a>(
    path: &str,
    proxy_prefixes: impl IntoIterator<Item = &'a str>,
) -> String {
    if let Some(local) = crate::endpoints::template(path) {
        return local.to_owned();
    }
    proxy_prefixes
        .into_iter()
        .filter(|prefix| path.starts_with(prefix))
        .max_by_key(|prefix| prefix.len())
        .map_or_else(|| "{unmatched}".to_owned(), str::to_owned)
}

/// The request method as a label: the standard ones by name, anything else as `OTHER`.
pub(crate) fn method_label(method: &http::Method) -> &'static str {
    match *method {
        http::Method::GET => "GET",
        http::Method::POST => "POST",
        http::Method::PUT => "PUT",
        http::Method::DELETE => "DELETE",
        http::Method::PATCH => "PATCH",
        http::Method::HEAD => "HEAD",
        http::Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// Records the end of one request: its one access log line and the request metrics. `error` is
/// the error pingora ended the request with, if any (upstream errors are counted by kind);
/// `exchange` adds a proxied exchange's counts to the same line.
pub(crate) fn finish_request(
    telemetry: &RequestTelemetry,
    route: &str,
    method: &http::Method,
    status: u16,
    error: Option<&pingora::Error>,
    exchange: Option<&ExchangeLine>,
) {
    let method = method_label(method);
    let elapsed = telemetry.elapsed();
    let m = metrics();
    m.record_request(route, method, status, elapsed);
    if exchange.is_some_and(|x| x.restore_limited) {
        m.restore_limited();
    }
    let line = access_line::RequestLine {
        id: &telemetry.id,
        upstream_id: telemetry.upstream_id.as_deref(),
        policy: telemetry.policy.as_deref(),
        method,
        route,
        status,
        elapsed,
        exchange,
    };
    match error {
        Some(e) => {
            if *e.esource() == pingora::ErrorSource::Upstream {
                m.upstream_error(UpstreamErrorKind::of(e));
            }
            // The error's type only: contexts may be composed by other modules.
            access_line::request_event!(
                warn,
                &line,
                "request failed",
                error_type = e.etype().as_str(),
                error_source = e.esource().as_str()
            );
        }
        None => {
            if !access_line::write_request_line(&line) {
                access_line::request_event!(info, &line, "request");
            }
        }
    }
}

/// Counts one stored session and its findings by type (REST `/anonymize`).
pub(crate) fn record_anonymized(entities: &[crate::tokens::Entity]) {
    let m = metrics();
    m.session(SessionEvent::created);
    record_entities(entities.iter().map(|e| e.entity_type));
}

/// Counts findings by type (REST API and LLM proxy alike).
pub(crate) fn record_entities(types: impl IntoIterator<Item = crate::detect::EntityType>) {
    let mut counts = [0u64; crate::detect::EntityType::ALL.len()];
    let mut custom = Vec::new();
    for t in types {
        match crate::detect::EntityType::ALL.iter().position(|&x| x == t) {
            Some(i) => counts[i] += 1,
            None => custom.push(t),
        }
    }
    let m = metrics();
    for t in custom {
        m.entities_detected(t, 1);
    }
    for (t, n) in crate::detect::EntityType::ALL.iter().zip(counts) {
        if n > 0 {
            m.entities_detected(*t, n);
        }
    }
}

/// The route template of `path` under `config`'s proxy routes.
pub(crate) fn route_of(config: &crate::config::Config, path: &str) -> String {
    route_template(path, config.routes.iter().map(|r| r.prefix.as_str()))
}

/// Status logged and counted for a client that closed its connection before any response
/// (nginx's convention; not an HTTP status anyone receives).
pub(crate) const CLIENT_CLOSED: u16 = 499;

/// Whether `e` means the client went away (closed or broke its connection), as opposed to a
/// failure of this server or the upstream.
pub(crate) fn client_gone(e: &pingora::Error) -> bool {
    use pingora::ErrorType::*;
    *e.esource() != pingora::ErrorSource::Upstream
        && matches!(e.etype(), ConnectionClosed | ReadError | WriteError)
}

/// The status of a finished request for logs and metrics: the one written, or 499 when the
/// client left before any response, or 0 when nothing was written for another reason.
pub(crate) fn final_status(
    session: &pingora::proxy::Session,
    error: Option<&pingora::Error>,
) -> u16 {
    match session.response_written() {
        Some(r) => r.status.as_u16(),
        None if error.is_some_and(client_gone) => CLIENT_CLOSED,
        None => 0,
    }
}

/// [`finish_request`] for the gateway's `logging` hook: everything read from the session.
pub(crate) fn finish_session(
    session: &pingora::proxy::Session,
    error: Option<&pingora::Error>,
    telemetry: &RequestTelemetry,
    config: &crate::config::Config,
    exchange: Option<&ExchangeLine>,
) {
    let status = final_status(session, error);
    let req = session.req_header();
    let route = route_of(config, req.uri.path());
    finish_request(telemetry, &route, &req.method, status, error, exchange);
}

/// [`request_summary`] for the gateway's `request_summary` hook.
pub(crate) fn summarize_session(
    session: &pingora::proxy::Session,
    telemetry: &RequestTelemetry,
    config: &crate::config::Config,
) -> String {
    let req = session.req_header();
    request_summary(telemetry, &route_of(config, req.uri.path()), &req.method)
}

/// A one-line summary of a request for pingora's own log lines (method, route template, id),
/// in place of its default that quotes the path and query.
pub(crate) fn request_summary(
    telemetry: &RequestTelemetry,
    route: &str,
    method: &http::Method,
) -> String {
    format!(
        "{} {} request_id={}",
        method_label(method),
        route,
        telemetry.id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_are_unique_hex() {
        let a = new_request_id();
        let b = new_request_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(a.as_bytes()[12], b'4', "a version 4 UUID");
    }

    #[test]
    fn route_templates_never_carry_client_text() {
        let proxy = ["/v1/", "/v1/messages", "/api/chat"];
        assert_eq!(
            route_template("/api/v1/anonymize", proxy),
            "/api/v1/anonymize"
        );
        assert_eq!(
            route_template("/api/v1/session/6f1c-uuid", proxy),
            "/api/v1/session/{id}"
        );
        assert_eq!(
            route_template("/api/v1/Max%20Mustermann", proxy),
            "/api/v1/{unknown}"
        );
        assert_eq!(route_template("/v1/messages?x=1", proxy), "/v1/messages");
        assert_eq!(route_template("/v1/chat/completions", proxy), "/v1/");
        assert_eq!(
            route_template("/max.mustermann@example.org", proxy),
            "{unmatched}"
        );
        assert_eq!(route_template("/metrics", proxy), "/metrics");
    }

    #[test]
    fn request_id_travels_from_request_to_response() {
        let t = RequestTelemetry::default();
        let mut req = RequestHeader::build("GET", b"/api/v1/health", None).unwrap();
        req.insert_header(REQUEST_ID_HEADER, "client-chosen")
            .unwrap();
        t.tag_request(&mut req);
        let mut resp = ResponseHeader::build(200, None).unwrap();
        copy_request_id(&req, &mut resp);
        assert_eq!(
            resp.headers
                .get(REQUEST_ID_HEADER)
                .unwrap()
                .to_str()
                .unwrap(),
            t.id
        );
    }

    #[test]
    fn proxied_replies_keep_a_plausible_upstream_id() {
        let mut t = RequestTelemetry::default();
        let mut resp = ResponseHeader::build(200, None).unwrap();
        resp.insert_header(REQUEST_ID_HEADER, "req_abc123").unwrap();
        t.tag_proxied_response(&mut resp);
        assert_eq!(resp.headers.get(REQUEST_ID_HEADER).unwrap(), "req_abc123");
        assert_eq!(t.upstream_id.as_deref(), Some("req_abc123"));
        assert_eq!(
            resp.headers.get(PROXY_REQUEST_ID_HEADER).unwrap(),
            t.id.as_str()
        );

        let mut t = RequestTelemetry::default();
        let mut resp = ResponseHeader::build(200, None).unwrap();
        resp.insert_header(REQUEST_ID_HEADER, "Max Mustermann")
            .unwrap();
        t.tag_proxied_response(&mut resp);
        assert_eq!(resp.headers.get(REQUEST_ID_HEADER).unwrap(), t.id.as_str());
        assert_eq!(t.upstream_id, None);

        let mut t = RequestTelemetry::default();
        let mut resp = ResponseHeader::build(200, None).unwrap();
        t.tag_proxied_response(&mut resp);
        assert_eq!(resp.headers.get(REQUEST_ID_HEADER).unwrap(), t.id.as_str());
    }

    #[test]
    fn methods_map_to_a_fixed_set() {
        assert_eq!(method_label(&http::Method::GET), "GET");
        let odd = http::Method::from_bytes(b"MAXMUSTERMANN").unwrap();
        assert_eq!(method_label(&odd), "OTHER");
    }
}
