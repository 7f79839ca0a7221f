//! Request JSON of the REST API: the top level must be an object, within the depth bound and
//! without a member named twice ([`crate::json::checks`]).

use serde_json::{Map, Value};

use super::error::ApiError;
use crate::json::checks::{has_duplicate_key, too_deep, MAX_DEPTH};

/// Parses `body` as a JSON object (UTF-8, at most [`MAX_DEPTH`] levels).
pub fn parse_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    if too_deep(body, MAX_DEPTH) {
        return Err(ApiError::BadRequest(
            "The JSON body is nested deeper than 64 levels.",
        ));
    }
    if std::str::from_utf8(body).is_err() {
        return Err(ApiError::BadRequest("The body is not valid UTF-8."));
    }
    if has_duplicate_key(body) {
        return Err(ApiError::BadRequest(
            "The JSON body names the same member twice in one object.",
        ));
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::BadRequest("The JSON body must be an object.")),
        Err(_) => Err(ApiError::BadRequest("The body is not valid JSON.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_naming_a_member_twice_are_refused() {
        for dup in [r#"{"a":1,"a":2}"#, r#"{"a":1,"\u0061":2}"#] {
            assert!(
                matches!(parse_object(dup.as_bytes()), Err(ApiError::BadRequest(m)) if m.contains("twice"))
            );
        }
    }

    #[test]
    fn only_utf8_objects_are_accepted() {
        assert!(parse_object(br#"{"text":"x"}"#).is_ok());
        for bad in [&b"[1]"[..], b"\"x\"", b"{", b"", b"{\"text\":\"\xff\"}"] {
            assert!(matches!(parse_object(bad), Err(ApiError::BadRequest(_))));
        }
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(64), "]".repeat(64));
        assert!(
            matches!(parse_object(deep.as_bytes()), Err(ApiError::BadRequest(m)) if m.contains("64"))
        );
    }
}
