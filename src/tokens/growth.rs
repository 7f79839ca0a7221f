//! How many bytes restoring may still add to an exchange's output: a budget that can be raised
//! while a reply streams and that remembers whether it ever refused.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A growth budget in bytes, shared by reference between the writers of one exchange.
#[derive(Debug)]
pub(super) struct GrowthBudget {
    allowed: AtomicU64,
    used: AtomicU64,
    exhausted: AtomicBool,
}

impl GrowthBudget {
    pub(super) fn new(initial: u64) -> GrowthBudget {
        GrowthBudget {
            allowed: AtomicU64::new(initial),
            used: AtomicU64::new(0),
            exhausted: AtomicBool::new(false),
        }
    }

    /// Allows `bytes` more.
    pub(super) fn grant(&self, bytes: u64) {
        self.allowed.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Takes `growth` bytes; false (and nothing taken) when they do not fit.
    pub(super) fn take(&self, growth: u64) -> bool {
        let allowed = self.allowed.load(Ordering::Relaxed);
        let used = self.used.load(Ordering::Relaxed);
        if used.saturating_add(growth) > allowed {
            self.exhausted.store(true, Ordering::Relaxed);
            return false;
        }
        self.used.fetch_add(growth, Ordering::Relaxed);
        true
    }

    /// Whether [`GrowthBudget::take`] ever refused.
    pub(super) fn exhausted(&self) -> bool {
        self.exhausted.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::GrowthBudget;

    #[test]
    fn takes_until_full_then_refuses_and_remembers() {
        let b = GrowthBudget::new(10);
        assert!(b.take(6));
        assert!(!b.take(5), "6 + 5 > 10");
        assert!(b.exhausted());
        assert!(b.take(4), "a refusal takes nothing");
        b.grant(3);
        assert!(b.take(3));
        assert!(!b.take(1));
    }
}
