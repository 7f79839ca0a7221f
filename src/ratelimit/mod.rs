//! Per-tenant rate limiting: at most `limit` requests in any 60-second window.
//!
//! [`RateLimiter`] is the seam between the API and where the counts live: [`MemoryLimiter`] in
//! this process, or a shared store so that replicas together allow the configured rate.

mod decision;
mod memory;
mod redis;

pub use decision::{Decision, LimitError, RateLimiter};
pub(crate) use memory::MemoryLimiter;
pub use redis::RedisLimiter;
