use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use dashmap::DashMap;

use super::decision::{Decision, LimitError, RateLimiter};

const WINDOW: Duration = Duration::from_secs(60);

/// Every this many checks, windows without a request in the last minute are dropped.
const PRUNE_EVERY: u64 = 4096;

/// A sliding-window log per tenant: the times of the allowed requests of the last minute.
/// Exact (the 121st request within any 60 s is refused) and bounded by `limit` entries per tenant.
/// Windows of tenants (or client addresses) that went quiet are dropped from time to time, so
/// that many one-off callers do not accumulate.
#[derive(Default)]
pub(crate) struct MemoryLimiter {
    windows: DashMap<String, VecDeque<Instant>>,
    checks: AtomicU64,
}

impl MemoryLimiter {
    pub fn new() -> MemoryLimiter {
        MemoryLimiter::default()
    }

    fn check_at(&self, tenant: &str, limit: u32, now: Instant) -> Decision {
        if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.prune(now);
        }
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

impl MemoryLimiter {
    /// Drops every window whose newest request is a minute old or older.
    fn prune(&self, now: Instant) {
        self.windows
            .retain(|_, log| log.back().is_some_and(|&t| now.duration_since(t) < WINDOW));
    }
}

#[async_trait]
impl RateLimiter for MemoryLimiter {
    async fn check(&self, tenant: &str, limit: u32) -> Result<Decision, LimitError> {
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

    #[test]
    fn quiet_windows_are_dropped() {
        let l = MemoryLimiter::new();
        let t0 = Instant::now();
        for i in 0..100 {
            l.check_at(&format!("once-{i}"), 3, t0);
        }
        assert_eq!(l.windows.len(), 100);
        let later = t0 + WINDOW + Duration::from_secs(1);
        for _ in 0..PRUNE_EVERY {
            assert!(l.check_at("busy", u32::MAX, later).allowed);
        }
        assert_eq!(l.windows.len(), 1, "only the busy window is left");
    }
}
