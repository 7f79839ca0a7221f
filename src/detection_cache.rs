//! Findings of texts the proxy has detected before. A chat client sends the whole conversation
//! again with every turn, an agent its system prompt and tool results: without this, each turn
//! detects all of it again, and the added time grows with the conversation.
//!
//! What is kept, per text: its findings (types, spans, scores, evidence — no value and no text),
//! under a key that is an HMAC-SHA256 of the caller, the policy and the text, with a key drawn
//! at start and never stored or logged. So the cache holds no personal data; an entry is only
//! ever found for the same text, caller and policy (a 256-bit MAC under a secret key: no
//! collision can be sought); and one caller cannot learn from a faster answer what another one
//! sent. The detector and the policies are fixed for the life of the process, and detection is
//! a function of the text under them, so a kept answer is the answer detection would give.
//!
//! Bounded by bytes (`api.detection_cache_bytes`, 0 turns it off) and by idle time. Texts
//! shorter than [`SHORTEST`] bytes are not kept: they are detected in a few microseconds, and
//! each entry takes 320 bytes of the bound whatever it holds. A detection that
//! fails (too many candidates) is not kept either.

use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::detect::Finding;

/// Texts shorter than this are detected every time.
pub const SHORTEST: usize = 256;
/// An entry not read for this long is dropped (a conversation's next turn comes sooner).
const IDLE: Duration = Duration::from_secs(30 * 60);
/// What an entry costs besides its findings (key, map slot, the cache's bookkeeping), for the
/// byte bound: measured 318 bytes of resident memory per entry, 200,000 entries with no
/// findings in a `moka` 0.12 cache under jemalloc (benches/RESULTS.md).
const ENTRY_OVERHEAD: usize = 320;

/// The process's cache of findings by keyed text hash.
pub struct DetectionCache {
    entries: moka::sync::Cache<[u8; 32], Arc<Vec<Finding>>>,
    /// The HMAC keyed once; each key is computed from a clone.
    mac: Hmac<Sha256>,
}

impl DetectionCache {
    /// A cache of at most `max_bytes`, or `None` when that is 0 (off).
    pub fn new(max_bytes: u64) -> Option<DetectionCache> {
        if max_bytes == 0 {
            return None;
        }
        let secret: [u8; 32] = rand::random();
        let mac = <Hmac<Sha256> as Mac>::new_from_slice(&secret).ok()?;
        let entries = moka::sync::Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|_, findings: &Arc<Vec<Finding>>| weight(findings.capacity()))
            .time_to_idle(IDLE)
            .build();
        Some(DetectionCache { entries, mac })
    }

    /// The part of the cache one caller's texts under one policy can reach.
    pub fn scope(&self, caller: &str, policy: &str) -> Scope<'_> {
        let mut mac = self.mac.clone();
        for part in [caller.as_bytes(), policy.as_bytes()] {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        Scope { cache: self, mac }
    }

    /// Entries held (after pending maintenance), for tests.
    pub fn len(&self) -> u64 {
        self.entries.run_pending_tasks();
        self.entries.entry_count()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The weight of an entry with `findings` findings, in bytes (saturating: the bound is a `u32`).
fn weight(findings: usize) -> u32 {
    let bytes = ENTRY_OVERHEAD + findings * std::mem::size_of::<Finding>();
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

/// [`DetectionCache`] for one caller and policy.
#[derive(Clone)]
pub struct Scope<'a> {
    cache: &'a DetectionCache,
    /// The HMAC that has taken the caller and the policy.
    mac: Hmac<Sha256>,
}

/// How [`Scope::findings`] answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// Kept from before.
    Hit,
    /// Detected now, and kept.
    Miss,
    /// Detected now, not kept: shorter than [`SHORTEST`], or detection failed.
    Passed,
}

impl Scope<'_> {
    /// The findings of `text`: kept ones, or those of `detect`, kept when it succeeds.
    pub fn findings<E>(
        &self,
        text: &str,
        detect: impl FnOnce() -> Result<Vec<Finding>, E>,
    ) -> (Result<Arc<Vec<Finding>>, E>, Lookup) {
        if text.len() < SHORTEST {
            return (detect().map(Arc::new), Lookup::Passed);
        }
        let key = self.key(text);
        if let Some(found) = self.cache.entries.get(&key) {
            return (Ok(found), Lookup::Hit);
        }
        match detect() {
            Ok(found) => {
                let found = Arc::new(found);
                self.cache.entries.insert(key, found.clone());
                (Ok(found), Lookup::Miss)
            }
            Err(e) => (Err(e), Lookup::Passed),
        }
    }

    fn key(&self, text: &str) -> [u8; 32] {
        let mut mac = self.mac.clone();
        mac.update(&(text.len() as u64).to_be_bytes());
        mac.update(text.as_bytes());
        mac.finalize().into_bytes().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::Detector;

    fn long(text: &str) -> String {
        let mut s = text.to_owned();
        while s.len() < SHORTEST {
            s.push_str(" Mit freundlichen Grüßen und bis bald.");
        }
        s
    }

    /// Runs `scope.findings` on `text`, counting the detector's runs in `runs`.
    fn findings(scope: &Scope<'_>, text: &str, runs: &mut usize) -> Vec<Finding> {
        let (found, _) = scope.findings(text, || {
            *runs += 1;
            Ok::<_, ()>(Detector::new().detect(text))
        });
        found.map(|f| f.to_vec()).unwrap_or_default()
    }

    #[test]
    fn a_text_seen_before_is_answered_as_detection_would() {
        let cache = DetectionCache::new(1 << 20).expect("on");
        let scope = cache.scope("tenant:a", "default");
        let text = long("Bitte rufen Sie Herrn Jonas Weber unter 0171 2345678 an.");
        let mut runs = 0;
        let first = findings(&scope, &text, &mut runs);
        let (_, lookup) = scope.findings(&text, || Err(()));
        assert_eq!(lookup, Lookup::Hit);
        let again = findings(&scope, &text, &mut runs);
        assert_eq!(runs, 1);
        assert!(first.len() >= 2, "{first:?}");
        assert_eq!(again, first);
        assert_eq!(again, Detector::new().detect(&text));
    }

    #[test]
    fn another_caller_policy_or_text_is_detected_anew() {
        let cache = DetectionCache::new(1 << 20).expect("on");
        let text = long("IBAN DE89 3704 0044 0532 0130 00, Kontoinhaberin Petra Schulz.");
        let mut runs = 0;
        findings(&cache.scope("tenant:a", "default"), &text, &mut runs);
        findings(&cache.scope("tenant:b", "default"), &text, &mut runs);
        findings(&cache.scope("tenant:a", "strict"), &text, &mut runs);
        // the parts are length-prefixed: `ab` + `c` is not `a` + `bc`
        findings(&cache.scope("tenant:ad", "efault"), &text, &mut runs);
        let other = text.replacen("Petra", "Petro", 1);
        findings(&cache.scope("tenant:a", "default"), &other, &mut runs);
        assert_eq!(runs, 5);
        assert_eq!(cache.len(), 5);
    }

    #[test]
    fn short_texts_and_failed_detections_are_not_kept() {
        let cache = DetectionCache::new(1 << 20).expect("on");
        let scope = cache.scope("", "default");
        let mut runs = 0;
        findings(&scope, "Jonas Weber", &mut runs);
        findings(&scope, "Jonas Weber", &mut runs);
        assert_eq!(runs, 2);
        let text = long("Jonas Weber");
        for _ in 0..2 {
            let (failed, lookup) = scope.findings(&text, || Err::<Vec<Finding>, _>("too many"));
            assert!(failed.is_err());
            assert_eq!(lookup, Lookup::Passed);
        }
        assert!(cache.is_empty());
    }

    #[test]
    fn zero_bytes_is_off_and_the_bound_holds() {
        assert!(DetectionCache::new(0).is_none());
        let cache = DetectionCache::new(u64::from(weight(0)) * 4).expect("on");
        let scope = cache.scope("", "default");
        for i in 0..50 {
            let text = long(&format!("Vorgang {i}"));
            let (kept, lookup) = scope.findings(&text, || Ok::<_, ()>(Vec::new()));
            assert!(kept.is_ok());
            assert_eq!(lookup, Lookup::Miss);
        }
        assert!(cache.len() <= 4, "{}", cache.len());
    }
}
