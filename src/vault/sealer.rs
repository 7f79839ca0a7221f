use aes_gcm::aead::{Aead, KeyInit, OsRng, Payload};
use aes_gcm::{AeadCore, Aes256Gcm, Nonce};
use hmac::{Hmac, Mac};
use sha2::Sha256;

pub use crate::config::SealingKey;

/// Record layout: `version (1) | key id (1) | nonce (12) | ciphertext + tag (16)`.
const VERSION: u8 = 1;
const HEADER: usize = 2 + 12;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OpenError {
    #[error("record is malformed")]
    Malformed,
    #[error("record was sealed with an unknown key id")]
    UnknownKey,
    #[error("record failed authentication")]
    Forged,
}

/// Seals and opens session records. The newest key (highest id) seals; every key opens.
pub struct Sealer {
    keys: Vec<(u8, Aes256Gcm)>,
    sealing: usize,
    /// The key of [`Sealer::keyed_hash`], derived from the sealing key: replicas that seal
    /// with the same key compute the same hashes, and no hash reveals the key.
    hash_key: [u8; 32],
}

impl Sealer {
    /// `keys` must not be empty; the key with the highest id seals.
    pub fn new(keys: &[SealingKey]) -> Option<Sealer> {
        let sealing_id = keys.iter().map(|k| k.id).max()?;
        Sealer::with_sealing_key(keys, sealing_id)
    }

    /// Like [`Sealer::new`], but key `sealing_id` seals (the first step of a rotation without a
    /// window: every replica learns the new key before any of them seals with it). `None` when
    /// no key has that id.
    pub(crate) fn with_sealing_key(keys: &[SealingKey], sealing_id: u8) -> Option<Sealer> {
        let hash_key = derive_hash_key(&keys.iter().find(|k| k.id == sealing_id)?.key);
        let keys: Vec<(u8, Aes256Gcm)> = keys
            .iter()
            .map(|k| (k.id, Aes256Gcm::new((&k.key).into())))
            .collect();
        let sealing = keys.iter().position(|(id, _)| *id == sealing_id)?;
        Some(Sealer {
            keys,
            sealing,
            hash_key,
        })
    }

    /// HMAC-SHA256 of `parts` (each length-prefixed, so no two lists share an input) under a
    /// key derived from the sealing key: names for records that must not be guessable from
    /// what they are named after (a client credential, a provider id).
    pub(crate) fn keyed_hash(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.hash_key)
            .expect("HMAC takes a key of any length");
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }

    /// A sealer with one random key, for processes without a configured key.
    pub(crate) fn random() -> Sealer {
        let key: [u8; 32] = Aes256Gcm::generate_key(&mut OsRng).into();
        Sealer::new(&[SealingKey { id: 1, key }]).expect("one key")
    }

    pub fn seal(&self, session_id: &str, tenant: &str, plaintext: &[u8]) -> Vec<u8> {
        let (key_id, cipher) = &self.keys[self.sealing];
        let nonce = Aes256Gcm::generate_nonce(&mut OsRng);
        let aad = associated_data(*key_id, session_id, tenant);
        let ciphertext = cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plaintext,
                    aad: &aad,
                },
            )
            .expect("AES-GCM encryption of an in-memory buffer cannot fail");
        let mut out = Vec::with_capacity(HEADER + ciphertext.len());
        out.push(VERSION);
        out.push(*key_id);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&ciphertext);
        out
    }

    pub fn open(
        &self,
        session_id: &str,
        tenant: &str,
        record: &[u8],
    ) -> Result<Vec<u8>, OpenError> {
        if record.len() < HEADER + 16 || record[0] != VERSION {
            return Err(OpenError::Malformed);
        }
        let key_id = record[1];
        let (_, cipher) = self
            .keys
            .iter()
            .find(|(id, _)| *id == key_id)
            .ok_or(OpenError::UnknownKey)?;
        let nonce = Nonce::from_slice(&record[2..HEADER]);
        let aad = associated_data(key_id, session_id, tenant);
        cipher
            .decrypt(
                nonce,
                Payload {
                    msg: &record[HEADER..],
                    aad: &aad,
                },
            )
            .map_err(|_| OpenError::Forged)
    }
}

fn derive_hash_key(key: &[u8; 32]) -> [u8; 32] {
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(b"tarnkappe keyed hash v1");
    mac.finalize().into_bytes().into()
}

/// Binds a record to its format version, key id, session id and tenant. Lengths are prefixed so
/// that no two (id, tenant) pairs share an encoding.
fn associated_data(key_id: u8, session_id: &str, tenant: &str) -> Vec<u8> {
    let mut aad = Vec::with_capacity(16 + session_id.len() + tenant.len());
    aad.extend_from_slice(b"tarnkappe-session");
    aad.push(VERSION);
    aad.push(key_id);
    for part in [session_id, tenant] {
        aad.extend_from_slice(&(part.len() as u32).to_be_bytes());
        aad.extend_from_slice(part.as_bytes());
    }
    aad
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer() -> Sealer {
        Sealer::new(&[SealingKey {
            id: 7,
            key: [42; 32],
        }])
        .unwrap()
    }

    /// Keys with the given ids, each key all bytes of its id.
    fn keys(ids: &[u8]) -> Vec<SealingKey> {
        ids.iter()
            .map(|&id| SealingKey { id, key: [id; 32] })
            .collect()
    }

    #[test]
    fn round_trip() {
        let s = sealer();
        let rec = s.seal("id-1", "tenant-a", b"secret mapping");
        assert_eq!(s.open("id-1", "tenant-a", &rec).unwrap(), b"secret mapping");
        assert!(!rec.windows(6).any(|w| w == b"secret"));
    }

    #[test]
    fn tampered_ciphertext_fails() {
        let s = sealer();
        let mut rec = s.seal("id-1", "tenant-a", b"secret mapping");
        let last = rec.len() - 1;
        rec[last] ^= 1;
        assert_eq!(s.open("id-1", "tenant-a", &rec), Err(OpenError::Forged));
        rec[last] ^= 1;
        rec[HEADER] ^= 0x80;
        assert_eq!(s.open("id-1", "tenant-a", &rec), Err(OpenError::Forged));
    }

    #[test]
    fn wrong_session_id_fails() {
        let s = sealer();
        let rec = s.seal("id-1", "tenant-a", b"m");
        assert_eq!(s.open("id-2", "tenant-a", &rec), Err(OpenError::Forged));
    }

    #[test]
    fn wrong_tenant_fails() {
        let s = sealer();
        let rec = s.seal("id-1", "tenant-a", b"m");
        assert_eq!(s.open("id-1", "tenant-b", &rec), Err(OpenError::Forged));
    }

    #[test]
    fn fresh_nonce_per_record() {
        let s = sealer();
        assert_ne!(s.seal("i", "t", b"m"), s.seal("i", "t", b"m"));
    }

    #[test]
    fn older_keys_still_open_after_rotation() {
        let old = Sealer::new(&keys(&[1])).unwrap();
        let rec = old.seal("i", "t", b"m");
        let rotated = Sealer::new(&keys(&[1, 2])).unwrap();
        assert_eq!(rotated.open("i", "t", &rec).unwrap(), b"m");
        assert_eq!(rotated.seal("i", "t", b"m")[1], 2);
        assert_eq!(
            s_unknown(&old, &rotated.seal("i", "t", b"m")),
            Err(OpenError::UnknownKey)
        );
    }

    #[test]
    fn an_older_key_can_be_chosen_to_seal() {
        let keys = keys(&[1, 2]);
        let s = Sealer::with_sealing_key(&keys, 1).unwrap();
        let rec = s.seal("i", "t", b"m");
        assert_eq!(rec[1], 1);
        assert_eq!(
            Sealer::new(&keys).unwrap().open("i", "t", &rec).unwrap(),
            b"m"
        );
        assert!(Sealer::with_sealing_key(&keys, 3).is_none());
    }

    #[test]
    fn keyed_hashes_follow_the_sealing_key_and_separate_parts() {
        let keys = keys(&[1, 2]);
        let a = Sealer::with_sealing_key(&keys, 1).unwrap();
        let same = Sealer::new(&keys[..1]).unwrap();
        let other = Sealer::new(&keys).unwrap();
        let h = a.keyed_hash(&[b"ab", b"c"]);
        assert_eq!(h, same.keyed_hash(&[b"ab", b"c"]), "replicas agree");
        assert_ne!(h, other.keyed_hash(&[b"ab", b"c"]));
        assert_ne!(h, a.keyed_hash(&[b"a", b"bc"]));
    }

    fn s_unknown(s: &Sealer, rec: &[u8]) -> Result<Vec<u8>, OpenError> {
        s.open("i", "t", rec)
    }
}
