//! Checks on raw JSON bytes before any parser sees them: nesting depth bounded, no object naming a
//! member twice.
//!
//! Duplicate member names are refused because parsers disagree on them: one keeps the first,
//! another the last. A body whose checks see one value while the upstream (or a later reader)
//! sees the other could smuggle text past them, so the REST API and the proxy both refuse such
//! bodies with the one check here, [`has_duplicate_key`].

use std::borrow::Cow;
use std::collections::HashSet;

/// Deepest nesting of arrays and objects accepted (the top-level object counts as 1).
pub(crate) const MAX_DEPTH: usize = 64;

/// True when `body` nests arrays/objects deeper than `max`. A linear scan that skips strings, so
/// the parser never sees a deep document. Malformed input is left for the parser to refuse.
pub(crate) fn too_deep(body: &[u8], max: usize) -> bool {
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

/// True when some object in `body` names a member twice (names compared after decoding escapes,
/// so `"a"` and `"\u0061"` are the same name). A linear scan in the manner of [`too_deep`]:
/// string contents are skipped with `memchr`, one set holds the names of every object (keyed by
/// the object's ordinal), so a huge object costs no quadratic time. Malformed input answers
/// `false` and is left for the parser to refuse.
pub fn has_duplicate_key(body: &[u8]) -> bool {
    // Per open container: `Some(ordinal)` for an object, `None` for an array.
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut names: HashSet<(usize, Cow<'_, [u8]>)> = HashSet::new();
    let mut objects = 0usize;
    let mut expect_name = false;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'"' => {
                let Some(end) = string_end(body, i + 1) else {
                    return false;
                };
                if let (true, Some(Some(obj))) = (expect_name, stack.last()) {
                    let raw = &body[i + 1..end];
                    let name: Cow<'_, [u8]> = if raw.contains(&b'\\') {
                        match serde_json::from_slice::<String>(&body[i..=end]) {
                            Ok(decoded) => Cow::Owned(decoded.into_bytes()),
                            Err(_) => return false,
                        }
                    } else {
                        Cow::Borrowed(raw)
                    };
                    if !names.insert((*obj, name)) {
                        return true;
                    }
                    expect_name = false;
                }
                i = end + 1;
                continue;
            }
            b'{' => {
                stack.push(Some(objects));
                objects += 1;
                expect_name = true;
            }
            b'[' => {
                stack.push(None);
                expect_name = false;
            }
            b']' | b'}' => {
                stack.pop();
                expect_name = false;
            }
            b',' => expect_name = matches!(stack.last(), Some(Some(_))),
            b':' => expect_name = false,
            _ => {}
        }
        i += 1;
    }
    false
}

/// The index of the quote that closes the string whose content starts at `from`.
fn string_end(body: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let at = from + memchr::memchr2(b'"', b'\\', body.get(from..)?)?;
        if body[at] == b'"' {
            return Some(at);
        }
        from = at + 2; // skip the escaped character
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
    fn duplicate_names_are_found_in_any_object_after_decoding() {
        for dup in [
            r#"{"a":1,"a":2}"#,
            r#"{"model":"m","prompt":"hallo","prompt":[1,2,3,4]}"#,
            r#"{"a":1,"\u0061":2}"#,
            r#"{"x":[{"k":"v"},{"n":{"b":1, "c":{}, "b":2}}]}"#,
            r#"{"a\"b":1,"a\u0022b":2}"#,
        ] {
            assert!(has_duplicate_key(dup.as_bytes()), "{dup}");
        }
        for ok in [
            r#"{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}"#,
            r#"{"a":"a","b":"a","s":"{\"a\":1,\"a\":2}"}"#,
            r#"["a","a"]"#,
            r#"{"a":["b","b"],"b":1}"#,
            r#"{"a\\":1,"a":2}"#,
        ] {
            assert!(!has_duplicate_key(ok.as_bytes()), "{ok}");
        }
        // many names: one set for the document, no quadratic scan
        let big: String = (0..20_000).map(|i| format!("\"k{i}\":1,")).collect();
        assert!(!has_duplicate_key(format!("{{{big}\"z\":0}}").as_bytes()));
        assert!(has_duplicate_key(format!("{{{big}\"k7\":0}}").as_bytes()));
        // malformed input is the parser's to refuse
        assert!(!has_duplicate_key(br#"{"a":1,"a"#));
    }
}
