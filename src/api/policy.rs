//! The policy side of the API: which policy a caller gets, the request's own `deny_terms`
//! (`POST /anonymize`), and `GET /api/v1/policy`, the caller's effective policy.
//!
//! What `GET /policy` shows: the policy's name, every type it detects with its token prefix,
//! minimum score, action and origin (built-in or the policy's own), and how many allow entries,
//! allow patterns, deny terms and custom recognizers it has — counts, never the terms or
//! patterns themselves: those are the operator's words (project code names, customer number
//! formats) and a caller needs to know only that they apply.

use std::sync::Arc;

use serde_json::Value;

use super::error::ApiError;
use crate::access::{Caller, Credential};
use crate::app::App;
use crate::http::Reply;
use crate::policy::{Policy, RequestTerms};

/// Most `deny_terms` one request may bring.
pub const MAX_REQUEST_TERMS: usize = 50;
/// Longest request deny term, in code points.
pub const MAX_TERM_CODE_POINTS: usize = 200;

/// The policy that applies to `caller`.
pub fn of(app: &App, caller: &Caller) -> Arc<Policy> {
    app.policies
        .for_caller(&caller.tenant, caller.credential == Credential::Cookie)
        .clone()
}

/// The optional `deny_terms` of an `/anonymize` body: an array of at most 50 strings of 1 to 200
/// code points (400 otherwise). A term of white space only is refused too — white space as the
/// contract's pattern `\S` reads it ([`is_schema_space`]).
pub fn request_terms(
    obj: &serde_json::Map<String, Value>,
) -> Result<Option<RequestTerms>, ApiError> {
    let Some(v) = obj.get("deny_terms") else {
        return Ok(None);
    };
    let Value::Array(items) = v else {
        return Err(ApiError::BadRequest(
            "The field deny_terms must be an array of strings.",
        ));
    };
    if items.len() > MAX_REQUEST_TERMS {
        return Err(ApiError::BadRequest(
            "The field deny_terms has more than 50 entries.",
        ));
    }
    let mut terms = Vec::with_capacity(items.len());
    for item in items {
        let Value::String(t) = item else {
            return Err(ApiError::BadRequest(
                "The field deny_terms must be an array of strings.",
            ));
        };
        if t.chars().all(is_schema_space) {
            return Err(ApiError::BadRequest("A deny term must not be empty."));
        }
        if t.chars().count() > MAX_TERM_CODE_POINTS {
            return Err(ApiError::BadRequest(
                "A deny term is longer than 200 code points.",
            ));
        }
        terms.push(t.clone());
    }
    if terms.is_empty() {
        return Ok(None);
    }
    RequestTerms::new(&terms)
        .map(Some)
        .ok_or(ApiError::Internal("request deny terms cannot be compiled"))
}

/// Whether `c` is white space to the JSON Schema regex dialect (ECMA-262 `\s`: its WhiteSpace
/// and LineTerminator), which the OpenAPI document's `"pattern": "\\S"` for deny terms uses.
/// Rust's `char::is_whitespace` differs in two code points (it counts U+0085 and not U+FEFF);
/// a client validating with the document must get the answer the document promises.
fn is_schema_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// `GET /api/v1/policy`.
pub fn effective(app: &App, caller: &Caller) -> Reply {
    Reply::json(200, of(app, caller).summary())
}

#[cfg(test)]
mod tests {
    use super::is_schema_space;

    #[test]
    fn white_space_is_the_schema_dialects() {
        let blank = |t: &str| t.chars().all(is_schema_space);
        assert!(blank(" \t\n\u{a0}\u{3000}"));
        // ECMA-262 counts the byte order mark and not NEL; Rust's trim does the opposite.
        assert!(blank("\u{feff}"));
        assert!(!blank("\u{85}"));
        assert!(!blank(" a "));
    }
}
