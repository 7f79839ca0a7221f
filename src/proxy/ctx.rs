//! The state of one request through the gateway's phases.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;

use super::conversation::Turn;
use super::refuse::Refusal;
use super::reply::ReplyRewriter;
use super::routes::Route;
use super::thinking::Thinking;
use crate::telemetry::ExchangeLine;
use crate::tokens::TolerantRestorer;

/// Per-request state.
#[derive(Default)]
pub struct RequestCtx {
    /// Request id and start time (logs, metrics, `X-Request-Id`).
    pub telemetry: crate::telemetry::RequestTelemetry,
    pub(crate) route: Option<Arc<Route>>,
    pub(crate) endpoint: &'static str,
    /// The rewritten body, forwarded by `request_body_filter`.
    pub(crate) body: Option<Bytes>,
    /// The body was consumed in `request_filter` and must be supplied by us.
    pub(crate) body_consumed: bool,
    pub(crate) exchange: Option<Arc<TolerantRestorer>>,
    pub(crate) reply: Option<ReplyRewriter>,
    /// Replace the reply with this error (the upstream's reply cannot be read).
    pub(crate) reply_error: Option<Bytes>,
    /// Hold the client's writes from the stream's last piece on (`response::Hold`).
    pub(crate) hold_last_piece: bool,
    pub(crate) entities: usize,
    /// Large body: accumulated and rewritten in `request_body_filter` (see `plan::RETRY_BUFFER`).
    pub(crate) deferred: Option<Vec<u8>>,
    /// Why a deferred body was refused: answered in `fail_to_proxy`.
    pub(crate) refusal: Option<Refusal>,
    /// The request body must be complete by then (`server.client_body_timeout_ms`).
    pub(crate) body_deadline: Option<Instant>,
    /// The policy of this exchange (chosen in `prepare`).
    pub(crate) policy: Option<Arc<crate::policy::Policy>>,
    /// A turn of a conversation kept at the provider (Responses, Conversations API).
    pub(crate) conversation: Option<Turn>,
    /// Signed thinking blocks kept and sent back byte-exact (Anthropic Messages).
    pub(crate) thinking: Option<Thinking>,
    /// Whose detection cache entries this exchange may read (`conversation::caller`; empty
    /// for a client without tenant or credential). Set in `prepare` when the cache is on.
    pub(crate) caller: Option<String>,
    /// What the request's headers and query string become upstream (`super::edges`).
    pub(crate) edges: Option<super::edges::Edges>,
    /// Keep the token table the body was anonymized with in [`Self::table`] (a WebSocket's
    /// `response.steer` leaves it for the response it steers).
    pub(crate) keep_table: bool,
    pub(crate) table: Option<crate::tokens::TokenTable>,
}

impl RequestCtx {
    /// The exchange's part of the access line: `None` for what no proxy route served.
    pub fn exchange_line(&self) -> Option<ExchangeLine> {
        let route = self.route.as_ref()?;
        let restorer = self.exchange.as_deref();
        let count = |pick: fn(&TolerantRestorer) -> usize| restorer.map_or(0, pick);
        Some(ExchangeLine {
            format: route.format.name(),
            endpoint: self.endpoint,
            entities: self.entities,
            restored: count(|r| r.counts.restored.load(Ordering::Relaxed)),
            tolerant_restores: count(|r| r.counts.tolerant.load(Ordering::Relaxed)),
            unrestored_tokens: count(|r| r.counts.unrestored.load(Ordering::Relaxed)),
            restore_limited: restorer.is_some_and(TolerantRestorer::budget_exhausted),
            conversation_state: self
                .conversation
                .as_ref()
                .and_then(|t| t.state)
                .map(|s| s.name()),
        })
    }
}
