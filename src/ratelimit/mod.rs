//! Per-tenant rate limiting: at most `limit` requests in any 60-second window.
//!
//! [`RateLimiter`] is the seam between the API and where the counts live: [`MemoryLimiter`] in
//! this process, or a shared store so that replicas together allow the configured rate.

mod memory;
mod redis;

use std::time::Duration;

use async_trait::async_trait;

pub use memory::MemoryLimiter;
pub use redis::RedisLimiter;

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
    async fn check(&self, tenant: &str, limit: u32) -> Result<Decision, crate::vault::StoreError>;
}
