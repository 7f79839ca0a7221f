//! Values and keys shared by the tests: personal data the proxy must hide, and secrets of
//! the right shape.

use base64::Engine;
use serde_json::{json, Value};

pub const EMAIL: &str = "maria.keller@example.org";
pub const IBAN: &str = "DE89370400440532013000";
pub const IP: &str = "192.168.17.42";
pub const URL: &str = "https://kunde.example.com/akte/4711";
pub const CARD: &str = "4111111111111111";
pub const VALUES: [&str; 5] = [EMAIL, IBAN, IP, URL, CARD];

pub fn prompt() -> String {
    format!("Bitte schreibe an {EMAIL} wegen IBAN {IBAN}; Zugriff von {IP}, Akte {URL}, Karte {CARD}. Grüße 😀")
}

/// A base64 AES-256 key shared by the replicas of one test.
#[cfg(feature = "full-tier")]
pub const ENCRYPTION_KEY: &str = "VGFybmthcHBlIHRlc3Qga2V5IC0gMzIgYnl0ZXMgISE=";

/// A valid `web.cookie_secret` (base64 of 41 bytes).
pub const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldC0xMjM0NQ==";

/// `bytes` in standard base64 (documents and `data:` URLs of requests).
pub fn base64_of(bytes: impl AsRef<[u8]>) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The UTF-8 text a standard base64 string holds (what the upstream received).
pub fn from_base64(s: &str) -> String {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s)
        .expect("the upstream received base64");
    String::from_utf8(bytes).expect("UTF-8 text")
}

/// Request bodies of one user message of two adjacent text parts, `a` then `b`, in each
/// format's shape (chat completions, Responses, Anthropic), with their paths.
pub fn two_text_parts(stream: bool, a: &str, b: &str) -> Vec<(&'static str, Value)> {
    vec![
        (
            "/v1/chat/completions",
            json!({"model": "m", "stream": stream, "messages": [{"role": "user", "content": [
                {"type": "text", "text": a}, {"type": "text", "text": b}]}]}),
        ),
        (
            "/v1/responses",
            json!({"model": "m", "stream": stream, "input": [{"role": "user", "content": [
                {"type": "input_text", "text": a}, {"type": "input_text", "text": b}]}]}),
        ),
        (
            "/v1/messages",
            json!({"model": "c", "max_tokens": 50, "stream": stream, "messages": [{"role": "user",
                "content": [{"type": "text", "text": a}, {"type": "text", "text": b}]}]}),
        ),
    ]
}
