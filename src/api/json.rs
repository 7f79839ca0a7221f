//! Request JSON: nesting depth bounded before parsing, the top level must be an object.

use serde_json::{Map, Value};

use super::error::ApiError;

/// Deepest nesting of arrays and objects accepted (the top-level object counts as 1).
pub const MAX_DEPTH: usize = 64;

/// True when `body` nests arrays/objects deeper than `max`. A linear scan that skips strings, so
/// the parser never sees a deep document. Malformed input is left for the parser to refuse.
pub fn too_deep(body: &[u8], max: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in body {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

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
    fn depth_is_counted_outside_strings_only() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(!too_deep(nested(64).as_bytes(), 64));
        assert!(too_deep(nested(65).as_bytes(), 64));
        let in_string = format!(r#"{{"text":"{}\"{}"}}"#, "[".repeat(100), "{".repeat(100));
        assert!(!too_deep(in_string.as_bytes(), 64));
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
