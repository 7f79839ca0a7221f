//! The proxy-key check for routes with `require_key`: `X-API-Key` against the configured keys
//! (SHA-256, compared in constant time). One call site; it switches to the REST API's
//! `authenticate` (same keys and rate limit) once that lands.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::app::App;

/// The tenant name of a valid key.
pub fn check_key(app: &App, presented: Option<&[u8]>) -> Option<String> {
    let presented = presented?;
    let digest = Sha256::digest(presented);
    let mut found = None;
    for k in &app.config.api.keys {
        let Some(want) = hex32(&k.sha256) else {
            continue;
        };
        if bool::from(digest.as_slice().ct_eq(&want)) {
            found = Some(k.name.clone());
        }
    }
    found
}

fn hex32(s: &str) -> Option<[u8; 32]> {
    let b = s.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in b.chunks(2).enumerate() {
        let hi = (pair[0] as char).to_digit(16)?;
        let lo = (pair[1] as char).to_digit(16)?;
        out[i] = (hi * 16 + lo) as u8;
    }
    Some(out)
}
