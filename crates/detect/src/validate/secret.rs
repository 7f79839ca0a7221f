//! Shape checks of secrets (SECRET, see `recognizers/secret.rs`): which bytes a key may hold,
//! whether a random-looking body is random enough, what a JWT header looks like, and which
//! field values are placeholders rather than secrets. Pure functions, no allocation except the
//! decoded JWT header (bounded).

use base64::Engine;

/// Bytes of the base64 alphabet (standard and URL-safe) plus padding: what a key, a token or a
/// base64 blob is made of. A key must not be glued to more of them.
pub fn base64_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_')
}

/// True when `body` holds an upper-case letter, a lower-case letter and a digit: what a
/// generated key of 16+ characters has (all but a tiny fraction), and what prose, hyphenated
/// words and placeholders (`sk-xxxxxxxx…`) lack.
pub fn mixed(body: &[u8]) -> bool {
    let (mut upper, mut lower, mut digit) = (false, false, false);
    for &b in body {
        upper |= b.is_ascii_uppercase();
        lower |= b.is_ascii_lowercase();
        digit |= b.is_ascii_digit();
    }
    upper && lower && digit
}

/// A JSON Web Token in compact form: three base64url parts separated by dots (the signature may
/// be empty for `alg: none`), and the first part decodes to a JSON object with an `alg` field.
pub fn jwt(v: &str) -> bool {
    let mut parts = v.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let url_safe = |p: &str| {
        p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if header.len() < 10
        || header.len() > 2048
        || payload.is_empty()
        || !url_safe(header)
        || !url_safe(payload)
        || !url_safe(signature)
    {
        return false;
    }
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let Ok(bytes) = engine.decode(header) else {
        return false;
    };
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&bytes)
        .is_ok_and(|m| m.contains_key("alg"))
}

/// True for field values that stand for a secret without being one: masks (`****`, `xxx`,
/// `•••`), empty and literal values (`null`, `true`, `none`), and references to one kept
/// elsewhere (`${DB_PASSWORD}`, `{{ token }}`, `<your-key>`, `$TOKEN`, `%(pw)s`, `[[SECRET_1]]`).
pub fn placeholder(v: &str) -> bool {
    let t = v.trim();
    if t.is_empty()
        || t.chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '•' | '●' | '.' | '-' | '_' | '#' | '?'))
    {
        return true;
    }
    if t.starts_with(['$', '{', '<', '%']) || t.starts_with("[[") {
        return true;
    }
    crate::lexicon::Lexicon::get()
        .lists
        .secret_placeholders
        .iter()
        .any(|l| t.eq_ignore_ascii_case(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// base64url without padding, for building test tokens.
    fn b64(s: &str) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s)
    }

    #[test]
    fn jwt_needs_a_json_header_with_alg() {
        let good = format!(
            "{}.{}.c2lnbmF0dXJl",
            b64(r#"{"alg":"HS256","typ":"JWT"}"#),
            b64(r#"{"sub":"42"}"#)
        );
        assert!(jwt(&good));
        let none = format!("{}.{}.", b64(r#"{"alg":"none"}"#), b64("{}"));
        assert!(jwt(&none));
        for bad in [
            format!("{}.{}.sig", b64(r#"{"typ":"JWT"}"#), b64("{}")),
            format!("{}.{}.sig", b64("not json at all"), b64("{}")),
            format!("{}.{}", b64(r#"{"alg":"HS256"}"#), b64("{}")),
            format!("{}.{}.a.b", b64(r#"{"alg":"HS256"}"#), b64("{}")),
            format!("{}.{}.s+g", b64(r#"{"alg":"HS256"}"#), b64("{}")),
        ] {
            assert!(!jwt(&bad), "{bad}");
        }
    }

    #[test]
    fn mixed_and_placeholders() {
        assert!(mixed(b"Ab3xYz"));
        assert!(!mixed(b"abcdef123"));
        assert!(!mixed(b"learn-compatible"));
        for p in [
            "****",
            "xxxxxxxx",
            "${DB_PASSWORD}",
            "{{ token }}",
            "<your key>",
            "null",
            "[[SECRET_1]]",
            "",
        ] {
            assert!(placeholder(p), "{p}");
        }
        for v in ["hunter2", "Sommer2024!", "s3cr3t"] {
            assert!(!placeholder(v), "{v}");
        }
    }
}
