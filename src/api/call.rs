//! One local request's state beyond its body.

use super::body::{BodyState, Declared};
use crate::ratelimit::Decision;

/// Per-request state that shapes the answer beyond its body.
pub struct Call {
    /// The request id the gateway assigned (`X-Request-Id`, see `telemetry`).
    pub id: String,
    pub declared: Declared,
    pub body: BodyState,
    /// Set once the rate limiter counted the request: its headers go on every later answer.
    pub decision: Option<Decision>,
    /// The policy an `/anonymize` ran under (its name only, for the request's log line).
    pub policy: Option<String>,
}
