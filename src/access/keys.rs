//! The configured API keys: SHA-256 hashes decoded once at start-up, compared in constant time.

use ahash::RandomState;
use dashmap::DashMap;
use sha2::{Digest, Sha256};
use subtle::{Choice, ConstantTimeEq};

use crate::config::Config;

/// A configured key cannot be used (names the entry, never the value).
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("invalid value for api.keys[{index}].sha256: expected 64 hex digits")]
    BadHash { index: usize },
}

pub(super) struct KeyEntry {
    hash: [u8; 32],
    pub(super) tenant: String,
    pub(super) rate_limit: u32,
}

/// Values [`KeyRing::holds`] remembers, at most: past this the memory is cleared and rebuilt.
const REMEMBERED: usize = 4096;

/// The configured keys, decoded once at start-up.
pub(crate) struct KeyRing {
    entries: Vec<KeyEntry>,
    /// What [`KeyRing::holds`] answered, by a keyed 64-bit hash of the value (never the value):
    /// a provider's credential comes with every proxied request, and a SHA-256 of it each time
    /// would cost more than the rest of a small request's header screening.
    remembered: DashMap<u64, bool>,
    hasher: RandomState,
}

/// Tenant name of the key generated when none is configured.
pub(crate) const GENERATED_TENANT: &str = "default";

impl KeyRing {
    /// Decodes the configured hashes. With no key configured at all, generates one random key and
    /// returns it (the caller prints it once).
    pub(crate) fn from_config(config: &Config) -> Result<(KeyRing, Option<String>), KeyError> {
        let default_limit = config.api.rate_limit_per_minute;
        let mut entries = Vec::with_capacity(config.api.keys.len().max(1));
        for (i, k) in config.api.keys.iter().enumerate() {
            let hash = decode_hex32(&k.sha256).ok_or(KeyError::BadHash { index: i })?;
            entries.push(KeyEntry {
                hash,
                tenant: k.name.clone(),
                rate_limit: k.rate_limit_per_minute.unwrap_or(default_limit).max(1),
            });
        }
        let mut generated = None;
        if entries.is_empty() {
            let key = generate_key();
            entries.push(KeyEntry {
                hash: Sha256::digest(key.as_bytes()).into(),
                tenant: GENERATED_TENANT.to_owned(),
                rate_limit: default_limit.max(1),
            });
            generated = Some(key);
        }
        let ring = KeyRing {
            entries,
            remembered: DashMap::new(),
            hasher: RandomState::new(),
        };
        Ok((ring, generated))
    }

    /// The entry whose hash equals SHA-256(`presented`). Every entry is compared, each in
    /// constant time, so timing reveals neither which key matched nor how much of it.
    pub(super) fn find(&self, presented: &[u8]) -> Option<&KeyEntry> {
        let digest: [u8; 32] = Sha256::digest(presented).into();
        let mut found: Option<&KeyEntry> = None;
        for entry in &self.entries {
            let eq: Choice = entry.hash.ct_eq(&digest);
            if bool::from(eq) && found.is_none() {
                found = Some(entry);
            }
        }
        found
    }

    /// Whether `presented` is one of Tarnkappe's own keys (so it must never leave the process).
    /// Answers are remembered by a keyed hash of the value; a collision of two 64-bit hashes
    /// under a per-process key is the only way to a wrong answer.
    pub(crate) fn holds(&self, presented: &[u8]) -> bool {
        let id = self.hasher.hash_one(presented);
        if let Some(known) = self.remembered.get(&id) {
            return *known;
        }
        let held = self.find(presented).is_some();
        if self.remembered.len() >= REMEMBERED {
            self.remembered.clear();
        }
        self.remembered.insert(id, held);
        held
    }
}

fn decode_hex32(hex: &str) -> Option<[u8; 32]> {
    let bytes = hex.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        let hi = (pair[0] as char).to_digit(16)?;
        let lo = (pair[1] as char).to_digit(16)?;
        out[i] = (hi * 16 + lo) as u8;
    }
    Some(out)
}

/// 32 random bytes as URL-safe base64, prefixed so that it is recognisable in a secret scanner.
fn generate_key() -> String {
    use base64::Engine;
    use rand::RngCore;
    let mut raw = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    format!(
        "tk_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{hash_key, ApiKey, DEFAULT_TOML};

    fn config(keys: &[(&str, &str, Option<u32>)]) -> Config {
        let mut c = Config::from_toml_and_env(DEFAULT_TOML, &Default::default()).unwrap();
        c.api.keys = keys
            .iter()
            .map(|(name, key, limit)| ApiKey {
                name: (*name).into(),
                sha256: hash_key(key),
                rate_limit_per_minute: *limit,
                policy: None,
            })
            .collect();
        c
    }

    #[test]
    fn finds_the_matching_key_only() {
        let (ring, generated) =
            KeyRing::from_config(&config(&[("a", "ka", None), ("b", "kb", Some(5))])).unwrap();
        assert!(generated.is_none());
        assert_eq!(ring.find(b"ka").map(|e| e.tenant.as_str()), Some("a"));
        let b = ring.find(b"kb").unwrap();
        assert_eq!((b.tenant.as_str(), b.rate_limit), ("b", 5));
        assert!(ring.find(b"kc").is_none());
        assert!(ring.find(b"").is_none());
    }

    #[test]
    fn remembered_answers_stay_right() {
        let (ring, _) = KeyRing::from_config(&config(&[("a", "ka", None)])).unwrap();
        for _ in 0..2 {
            assert!(ring.holds(b"ka"));
            assert!(!ring.holds(b"sk-provider"));
        }
        for i in 0..REMEMBERED + 10 {
            assert!(!ring.holds(format!("other-{i}").as_bytes()));
        }
        assert!(ring.remembered.len() <= REMEMBERED);
        assert!(
            ring.holds(b"ka"),
            "right again after the memory was cleared"
        );
    }

    #[test]
    fn generates_one_key_when_none_is_configured() {
        let (ring, generated) = KeyRing::from_config(&config(&[])).unwrap();
        let key = generated.unwrap();
        assert!(key.len() > 40);
        assert_eq!(ring.entries.len(), 1);
        assert_eq!(ring.find(key.as_bytes()).unwrap().tenant, GENERATED_TENANT);
        let (_, other) = KeyRing::from_config(&config(&[])).unwrap();
        assert_ne!(other.unwrap(), key);
    }

    #[test]
    fn hex_decoding_is_strict() {
        assert!(decode_hex32(&hash_key("x")).is_some());
        assert!(decode_hex32(&hash_key("x").to_uppercase()).is_some());
        assert!(decode_hex32("zz").is_none());
        assert!(decode_hex32(&"g".repeat(64)).is_none());
    }
}
