//! The seam between callers and where the counts live.

use std::time::Duration;

use async_trait::async_trait;

use crate::redis_client::RedisFailure;

/// The verdict for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    /// Requests left in the current window after this one.
    pub remaining: u32,
    /// When refused: how long until a request would be allowed again.
    pub retry_after: Duration,
}

#[async_trait]
pub trait RateLimiter: Send + Sync {
    /// Counts one request of `tenant` against `limit` per minute and decides. An error means the
    /// shared store could not be asked; callers decide whether to fail open or closed.
    async fn check(&self, tenant: &str, limit: u32) -> Result<Decision, LimitError>;
}

/// The shared store of the counts could not be asked (never carries tenants or keys).
#[derive(Debug, thiserror::Error)]
#[error("rate limit store unavailable: {0}")]
pub struct LimitError(#[from] pub RedisFailure);
