//! The Prometheus registry (`prometheus-client`), one per process. Every label value comes from a
//! fixed set: route templates, methods, status codes, entity types, session events, error kinds.

use std::sync::LazyLock;
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::{Family, MetricConstructor};
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use crate::detect::EntityType;
use crate::detection_cache::Lookup;

/// What `GET /metrics` answers with (the OpenMetrics text format, which Prometheus scrapes).
pub(crate) const METRICS_CONTENT_TYPE: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
    method: &'static str,
}

/// What a policy did with a request, in `tarnkappe_policy_requests_total{policy, outcome}`.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub(crate) enum PolicyOutcome {
    applied,
    blocked,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PolicyLabels {
    /// A policy name of the configuration (a fixed set).
    policy: String,
    outcome: PolicyOutcome,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EntityLabels {
    entity_type: &'static str,
}

/// A session lifecycle event, counted in `tarnkappe_sessions_total{event}`.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub(crate) enum SessionEvent {
    created,
    restored,
    deleted,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SessionLabels {
    event: SessionEvent,
}

/// What became of a conversation's token table on the Responses or Conversations API, in
/// `tarnkappe_conversations_total{event}`: the state a turn continued from (`new`, `found`,
/// `missing`, or `unavailable`: the store could not be read and the request was refused), and
/// the keeping of its table (`saved`, `save_failed`, `too_large`).
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub(crate) enum ConversationEvent {
    new,
    found,
    missing,
    unavailable,
    saved,
    save_failed,
    too_large,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ConversationLabels {
    event: ConversationEvent,
}

/// What became of a signed Anthropic thinking block, in `tarnkappe_thinking_blocks_total{event}`:
/// one sent back went upstream as signed (`kept`) or was anonymized again because its signature
/// is not known here (`unknown`); one in a reply was kept (`saved`), could not be (`save_failed`)
/// or was over the bound (`too_large`).
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub(crate) enum ThinkingEvent {
    kept,
    unknown,
    saved,
    save_failed,
    too_large,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ThinkingLabels {
    event: ThinkingEvent,
}

/// What authenticated a keyed request, in `tarnkappe_authenticated_requests_total{auth}`.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub(crate) enum AuthLabel {
    /// `X-API-Key`.
    key,
    /// The web page's tenant cookie.
    cookie,
}

/// Whether an authenticated request passed its rate limit.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
enum Outcome {
    admitted,
    rate_limited,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AuthLabels {
    auth: AuthLabel,
    outcome: Outcome,
}

/// What became of a request for a fresh web-page cookie, in `tarnkappe_web_cookies_total`.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub(crate) enum CookieOutcome {
    issued,
    rate_limited,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CookieLabels {
    outcome: CookieOutcome,
}

/// Why an exchange with an upstream LLM failed, counted in `tarnkappe_upstream_errors_total{kind}`.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub(crate) enum UpstreamErrorKind {
    connect,
    timeout,
    tls,
    protocol,
    other,
}

impl UpstreamErrorKind {
    /// Classifies a pingora error by its type.
    pub(crate) fn of(e: &pingora::Error) -> UpstreamErrorKind {
        use pingora::ErrorType::*;
        match e.etype() {
            ConnectTimedout | ReadTimedout | WriteTimedout | TLSHandshakeTimedout => {
                UpstreamErrorKind::timeout
            }
            ConnectRefused | ConnectNoRoute | ConnectError | BindError | SocketError
            | ConnectProxyFailure | ConnectionClosed => UpstreamErrorKind::connect,
            TLSHandshakeFailure | TLSWantX509Lookup | InvalidCert | HandshakeError => {
                UpstreamErrorKind::tls
            }
            InvalidHTTPHeader | H1Error | H2Error | InvalidH2 | H2Downgrade => {
                UpstreamErrorKind::protocol
            }
            _ => UpstreamErrorKind::other,
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct UpstreamLabels {
    kind: UpstreamErrorKind,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
enum CacheOutcome {
    hit,
    miss,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheLabels {
    outcome: CacheOutcome,
}

#[derive(Clone)]
struct LatencyBuckets;

impl MetricConstructor<Histogram> for LatencyBuckets {
    fn new_metric(&self) -> Histogram {
        // 0.5 ms … ~16 s, doubling.
        Histogram::new(exponential_buckets(0.0005, 2.0, 16))
    }
}

pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram, LatencyBuckets>,
    entities: Family<EntityLabels, Counter>,
    sessions: Family<SessionLabels, Counter>,
    conversations: Family<ConversationLabels, Counter>,
    thinking: Family<ThinkingLabels, Counter>,
    rate_limited: Counter,
    authenticated: Family<AuthLabels, Counter>,
    cookies: Family<CookieLabels, Counter>,
    upstream_errors: Family<UpstreamLabels, Counter>,
    store_errors: Counter,
    restore_limited: Counter,
    policies: Family<PolicyLabels, Counter>,
    detection_cache: Family<CacheLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// The families of what the proxy keeps between exchanges: conversations kept at the provider
/// and signed thinking blocks.
fn kept_state(
    registry: &mut Registry,
) -> (
    Family<ConversationLabels, Counter>,
    Family<ThinkingLabels, Counter>,
) {
    let conversations = Family::<ConversationLabels, Counter>::default();
    registry.register(
        "conversations",
        "Token tables of conversations kept at the provider (Responses, Conversations API): the state a turn continued from (new, found, missing, unavailable) and the keeping of its table (saved, save_failed, too_large)",
        conversations.clone(),
    );
    let thinking = Family::<ThinkingLabels, Counter>::default();
    registry.register(
        "thinking_blocks",
        "Signed Anthropic thinking blocks: sent back as signed (kept) or anonymized again with an unknown signature (unknown), and the keeping of a reply's block (saved, save_failed, too_large)",
        thinking.clone(),
    );
    (conversations, thinking)
}

impl Metrics {
    /// A fresh registry (the process uses [`metrics()`]; tests may build their own).
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("tarnkappe");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by route template, method and status",
            requests.clone(),
        );
        let latency = Family::<RouteLabels, Histogram, _>::new_with_constructor(LatencyBuckets);
        registry.register(
            "http_request_duration_seconds",
            "Time from request to the end of the response (streams included), by route template and method",
            latency.clone(),
        );
        let entities = Family::<EntityLabels, Counter>::default();
        registry.register(
            "entities_detected",
            "Personal-data findings replaced by tokens, by entity type (REST API and LLM proxy)",
            entities.clone(),
        );
        let sessions = Family::<SessionLabels, Counter>::default();
        registry.register(
            "sessions",
            "Session events: created (anonymize), restored (deanonymize by session), deleted",
            sessions.clone(),
        );
        let (conversations, thinking) = kept_state(&mut registry);
        let rate_limited = Counter::default();
        registry.register(
            "rate_limited_requests",
            "Requests refused with 429 by the rate limit (REST API and keyed proxy routes)",
            rate_limited.clone(),
        );
        let authenticated = Family::<AuthLabels, Counter>::default();
        registry.register(
            "authenticated_requests",
            "Requests that passed authentication (REST API and keyed proxy routes), by credential (key or web-page cookie) and whether the rate limit admitted them",
            authenticated.clone(),
        );
        let cookies = Family::<CookieLabels, Counter>::default();
        registry.register(
            "web_cookies",
            "Requests of the web page that would issue a fresh tenant cookie: issued, or refused by the per-address limit",
            cookies.clone(),
        );
        let upstream_errors = Family::<UpstreamLabels, Counter>::default();
        registry.register(
            "upstream_errors",
            "Failed exchanges with an upstream LLM, by kind",
            upstream_errors.clone(),
        );
        let store_errors = Counter::default();
        registry.register(
            "store_errors",
            "Session-store operations that failed (store unreachable or erroring)",
            store_errors.clone(),
        );
        let restore_limited = Counter::default();
        registry.register(
            "restore_limited",
            "Proxied replies whose restoring stopped at the growth bound (tokens passed as written)",
            restore_limited.clone(),
        );
        let policies = Family::<PolicyLabels, Counter>::default();
        registry.register(
            "policy_requests",
            "Texts checked under a policy (REST anonymize and proxied exchanges), by policy name and outcome (applied, or blocked by an action)",
            policies.clone(),
        );
        let detection_cache = Family::<CacheLabels, Counter>::default();
        registry.register(
            "detection_cache_lookups",
            "Texts of proxied requests looked up in the detection cache, by outcome (hit: detected before, miss: detected now and kept)",
            detection_cache.clone(),
        );
        Metrics {
            policies,
            detection_cache,
            registry,
            requests,
            latency,
            entities,
            sessions,
            conversations,
            thinking,
            rate_limited,
            authenticated,
            cookies,
            upstream_errors,
            store_errors,
            restore_limited,
        }
    }

    /// One text (REST) or exchange (proxy) checked under `policy`; `blocked` when refused.
    pub(crate) fn policy_applied(&self, policy: &str, blocked: bool) {
        let outcome = if blocked {
            PolicyOutcome::blocked
        } else {
            PolicyOutcome::applied
        };
        self.policies
            .get_or_create(&PolicyLabels {
                policy: policy.to_owned(),
                outcome,
            })
            .inc();
    }

    /// A text looked up in the detection cache: found (`hit`) or detected and kept (`miss`); a
    /// text the cache passed by (too short to keep, or its detection failed) is not counted.
    pub(crate) fn detection_cache(&self, lookup: Lookup) {
        let outcome = match lookup {
            Lookup::Hit => CacheOutcome::hit,
            Lookup::Miss => CacheOutcome::miss,
            Lookup::Passed => return,
        };
        self.detection_cache
            .get_or_create(&CacheLabels { outcome })
            .inc();
    }

    /// A proxied reply reached the restore growth bound.
    pub(crate) fn restore_limited(&self) {
        self.restore_limited.inc();
    }

    /// One answered request. `route` must come from [`super::route_template`], `method` from
    /// [`super::method_label`].
    pub(crate) fn record_request(
        &self,
        route: &str,
        method: &'static str,
        status: u16,
        took: Duration,
    ) {
        self.requests
            .get_or_create(&RequestLabels {
                route: route.to_owned(),
                method,
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabels {
                route: route.to_owned(),
                method,
            })
            .observe(took.as_secs_f64());
    }

    /// `count` findings of `entity_type` were replaced.
    pub(crate) fn entities_detected(&self, entity_type: EntityType, count: u64) {
        self.entities
            .get_or_create(&EntityLabels {
                entity_type: entity_type.name(),
            })
            .inc_by(count);
    }

    pub(crate) fn session(&self, event: SessionEvent) {
        self.sessions.get_or_create(&SessionLabels { event }).inc();
    }

    pub(crate) fn conversation(&self, event: ConversationEvent) {
        self.conversations
            .get_or_create(&ConversationLabels { event })
            .inc();
    }

    pub(crate) fn thinking(&self, event: ThinkingEvent) {
        self.thinking.get_or_create(&ThinkingLabels { event }).inc();
    }

    pub(crate) fn rate_limited(&self) {
        self.rate_limited.inc();
    }

    /// One request authenticated by `auth`; `admitted` unless its rate limit refused it.
    pub(crate) fn authenticated(&self, auth: AuthLabel, admitted: bool) {
        let outcome = if admitted {
            Outcome::admitted
        } else {
            Outcome::rate_limited
        };
        self.authenticated
            .get_or_create(&AuthLabels { auth, outcome })
            .inc();
    }

    pub(crate) fn web_cookie(&self, outcome: CookieOutcome) {
        self.cookies.get_or_create(&CookieLabels { outcome }).inc();
    }

    pub(crate) fn upstream_error(&self, kind: UpstreamErrorKind) {
        self.upstream_errors
            .get_or_create(&UpstreamLabels { kind })
            .inc();
    }

    pub(crate) fn store_error(&self) {
        self.store_errors.inc();
    }

    /// The registry in the OpenMetrics text format.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

/// The process-wide metrics.
pub(crate) fn metrics() -> &'static Metrics {
    &METRICS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_known_traffic() {
        let m = Metrics::new();
        m.record_request("/api/v1/anonymize", "POST", 200, Duration::from_millis(3));
        m.record_request("/api/v1/anonymize", "POST", 200, Duration::from_millis(4));
        m.record_request("/api/v1/anonymize", "POST", 429, Duration::from_millis(1));
        m.rate_limited();
        m.entities_detected(EntityType::ALL[0], 3);
        m.session(SessionEvent::created);
        m.session(SessionEvent::deleted);
        m.upstream_error(UpstreamErrorKind::timeout);
        m.store_error();
        m.authenticated(AuthLabel::key, true);
        m.authenticated(AuthLabel::cookie, true);
        m.authenticated(AuthLabel::cookie, false);
        m.web_cookie(CookieOutcome::issued);
        m.web_cookie(CookieOutcome::issued);
        let text = m.render();
        assert!(text.contains(
            r#"tarnkappe_http_requests_total{route="/api/v1/anonymize",method="POST",status="200"} 2"#
        ), "{text}");
        assert!(text.contains(
            r#"tarnkappe_http_request_duration_seconds_count{route="/api/v1/anonymize",method="POST"} 3"#
        ));
        assert!(text.contains(&format!(
            r#"tarnkappe_entities_detected_total{{entity_type="{}"}} 3"#,
            EntityType::ALL[0].name()
        )));
        assert!(text.contains(r#"tarnkappe_sessions_total{event="created"} 1"#));
        assert!(text.contains(r#"tarnkappe_sessions_total{event="deleted"} 1"#));
        assert!(text.contains("tarnkappe_rate_limited_requests_total 1"));
        assert!(text.contains(r#"tarnkappe_upstream_errors_total{kind="timeout"} 1"#));
        assert!(text.contains("tarnkappe_store_errors_total 1"));
        for line in [
            r#"tarnkappe_authenticated_requests_total{auth="key",outcome="admitted"} 1"#,
            r#"tarnkappe_authenticated_requests_total{auth="cookie",outcome="admitted"} 1"#,
            r#"tarnkappe_authenticated_requests_total{auth="cookie",outcome="rate_limited"} 1"#,
            r#"tarnkappe_web_cookies_total{outcome="issued"} 2"#,
        ] {
            assert!(text.contains(line), "{line} missing in {text}");
        }
        assert!(text.ends_with("# EOF\n"));
    }

    #[test]
    fn upstream_errors_are_classified() {
        let e = pingora::Error::new(pingora::ErrorType::ConnectRefused);
        assert_eq!(UpstreamErrorKind::of(&e), UpstreamErrorKind::connect);
        let e = pingora::Error::new(pingora::ErrorType::ReadTimedout);
        assert_eq!(UpstreamErrorKind::of(&e), UpstreamErrorKind::timeout);
    }
}
