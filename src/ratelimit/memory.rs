use std::collections::VecDeque;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use dashmap::DashMap;

use super::{Decision, RateLimiter};
use crate::vault::StoreError;

const WINDOW: Duration = Duration::from_secs(60);

/// A sliding-window log per tenant: the times of the allowed requests of the last minute.
/// Exact (the 121st request within any 60 s is refused) and bounded by `limit` entries per tenant.
#[derive(Default)]
pub struct MemoryLimiter {
    windows: DashMap<String, VecDeque<Instant>>,
}

impl MemoryLimiter {
    pub fn new() -> MemoryLimiter {
        MemoryLimiter::default()
    }

    fn check_at(&self, tenant: &str, limit: u32, now: Instant) -> Decision {
        let mut log = self.windows.entry(tenant.to_owned()).or_default();
        while log
            .front()
            .is_some_and(|&t| now.duration_since(t) >= WINDOW)
        {
            log.pop_front();
        }
        let used = log.len() as u32;
        if used < limit {
            log.push_back(now);
            Decision {
                allowed: true,
                limit,
                remaining: limit - used - 1,
                retry_after: Duration::ZERO,
            }
        } else {
            let oldest = log.front().copied().unwrap_or(now);
            let wait = WINDOW.saturating_sub(now.duration_since(oldest));
            Decision {
                allowed: false,
                limit,
                remaining: 0,
                retry_after: wait.max(Duration::from_secs(1)),
            }
        }
    }
}

#[async_trait]
impl RateLimiter for MemoryLimiter {
    async fn check(&self, tenant: &str, limit: u32) -> Result<Decision, StoreError> {
        Ok(self.check_at(tenant, limit, Instant::now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_limit_then_refuses_then_recovers() {
        let l = MemoryLimiter::new();
        let t0 = Instant::now();
        for i in 0..3 {
            let d = l.check_at("a", 3, t0);
            assert!(d.allowed);
            assert_eq!(d.remaining, 2 - i);
        }
        let refused = l.check_at("a", 3, t0 + Duration::from_secs(10));
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after, Duration::from_secs(50));
        assert!(l.check_at("b", 3, t0).allowed, "tenants are independent");
        assert!(l.check_at("a", 3, t0 + WINDOW).allowed);
    }
}
