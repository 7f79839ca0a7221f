//! The rate limit shared by all replicas: one sliding-window log per tenant in a Redis sorted set,
//! checked and updated by one Lua script, so that the check-and-count is atomic across replicas
//! and N replicas together allow `limit` requests in any 60 s. Time comes from Redis (`TIME`),
//! so clocks of the replicas do not matter.
//!
//! When Redis cannot be asked, the limiter falls back to this process' own [`MemoryLimiter`]
//! (logged once per outage): the LLM proxy and the stateless endpoints keep working and are still
//! limited, per replica, until Redis returns.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use redis::Script;
use sha2::{Digest, Sha256};

use super::decision::{Decision, LimitError, RateLimiter};
use super::memory::MemoryLimiter;
use crate::redis_client::RedisClient;

const WINDOW_MS: u64 = 60_000;

/// KEYS[1] the tenant's window; ARGV: limit, window in ms, a unique member for this request.
/// Returns {allowed (0/1), remaining, retry after in ms}.
const SLIDING_WINDOW: &str = r"
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local used = redis.call('ZCARD', key)
if used < limit then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, window)
  return {1, limit - used - 1, 0}
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local wait = window
if oldest[2] then
  wait = window - (now - tonumber(oldest[2]))
end
return {0, 0, wait}
";

pub struct RedisLimiter {
    client: RedisClient,
    script: Script,
    fallback: MemoryLimiter,
    degraded: AtomicBool,
}

impl RedisLimiter {
    pub fn new(client: RedisClient) -> RedisLimiter {
        RedisLimiter {
            client,
            script: Script::new(SLIDING_WINDOW),
            fallback: MemoryLimiter::new(),
            degraded: AtomicBool::new(false),
        }
    }

    /// The tenant's window key. Tenants are hashed: cookie tenants of the web page are opaque ids
    /// that need not appear in Redis, and the key stays short whatever the name.
    pub(crate) fn key(&self, tenant: &str) -> String {
        let digest = Sha256::digest(tenant.as_bytes());
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!("{}ratelimit:{hex}", self.client.prefix())
    }

    /// Asks Redis only (no fallback); for tests and for callers that want to know.
    pub async fn check_shared(&self, tenant: &str, limit: u32) -> Result<Decision, LimitError> {
        let key = self.key(tenant);
        let member = uuid::Uuid::new_v4().simple().to_string();
        let args = [limit.to_string(), WINDOW_MS.to_string(), member];
        let (allowed, remaining, retry_ms): (i64, i64, i64) =
            self.client.run_script(&self.script, &[&key], &args).await?;
        let allowed = allowed == 1;
        let retry_after = if allowed {
            Duration::ZERO
        } else {
            // Whole seconds, rounded up, at least one (as Retry-After is sent).
            let ms = u64::try_from(retry_ms).unwrap_or(0);
            Duration::from_secs(ms.div_ceil(1000).max(1))
        };
        Ok(Decision {
            allowed,
            limit,
            remaining: u32::try_from(remaining.max(0)).unwrap_or(0),
            retry_after,
        })
    }
}

#[async_trait]
impl RateLimiter for RedisLimiter {
    async fn check(&self, tenant: &str, limit: u32) -> Result<Decision, LimitError> {
        match self.check_shared(tenant, limit).await {
            Ok(decision) => {
                if self.degraded.swap(false, Ordering::Relaxed) {
                    tracing::info!("rate limits are shared through redis again");
                }
                Ok(decision)
            }
            Err(e) => {
                if !self.degraded.swap(true, Ordering::Relaxed) {
                    tracing::warn!(error = %e, "redis unavailable: rate limits are enforced per process until it returns");
                }
                self.fallback.check(tenant, limit).await
            }
        }
    }
}
