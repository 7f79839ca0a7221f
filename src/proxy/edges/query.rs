//! The query string of a proxied request: every parameter value is decoded (percent-encoding,
//! `+` for a space), read by the detector and written back with its findings replaced by
//! tokens, percent-encoded; names, order and the provider's own parameters stay as sent
//! (`docs/proxy.md`, "Query strings"). A value that cannot be decoded refuses the request.

use percent_encoding::{percent_decode, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use super::text::Text;
use crate::access::KeyRing;

/// Parameters the providers define whose values are settings, not text: they pass as sent
/// (`api-version=2024-10-21` is no date of birth). Gemini's `key` is the provider's
/// credential; Tarnkappe's own key is removed from it like from any parameter.
const PROVIDER_PARAMS: &[&str] = &[
    "api-version",
    "alt",
    "beta",
    "key",
    "stream",
    "limit",
    "order",
    "after",
    "before",
    "include",
    "include[]",
    "starting_after",
    "ending_before",
    "pageSize",
    "pageToken",
];

/// RFC 3986's unreserved characters stay, everything else of a token's value is encoded.
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A query parameter value that cannot be read (not UTF-8 once decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a query parameter is not UTF-8 once decoded")]
pub(crate) struct Undecodable;

/// One `name=value` of the query, in order.
enum Param {
    /// Passes as written.
    Keep(String),
    /// Its value (after `name=`, or the whole parameter when it has no `=`) with findings.
    Anonymize { name: Option<String>, value: Text },
}

/// What replaces a query string that changes.
pub(crate) struct Plan {
    params: Vec<Param>,
}

impl Plan {
    /// The query string with every finding replaced by the token `render` gives its value.
    pub fn render(&self, mut render: impl FnMut(&Text) -> String) -> String {
        let mut out = String::new();
        for param in &self.params {
            if !out.is_empty() {
                out.push('&');
            }
            match param {
                Param::Keep(raw) => out.push_str(raw),
                Param::Anonymize { name, value } => {
                    if let Some(name) = name {
                        out.push_str(name);
                        out.push('=');
                    }
                    out.extend(utf8_percent_encode(&render(value), VALUE));
                }
            }
        }
        out
    }

    /// The findings of every parameter.
    pub fn texts(&self) -> impl Iterator<Item = &Text> {
        self.params.iter().filter_map(|p| match p {
            Param::Keep(_) => None,
            Param::Anonymize { value, .. } => Some(value),
        })
    }
}

/// The decoded form of one parameter value.
fn decode(raw: &str) -> Result<String, Undecodable> {
    if !raw.bytes().any(|b| b == b'%' || b == b'+') {
        return Ok(raw.to_owned());
    }
    let spaced = raw.replace('+', " ");
    let bytes: Vec<u8> = percent_decode(spaced.as_bytes()).collect();
    String::from_utf8(bytes).map_err(|_| Undecodable)
}

/// The plan for `query` (`None`: it passes as sent). `detect` reads one decoded value and
/// fails when it cannot (the request is refused then: a query is no header to drop).
pub(super) fn screen<E>(
    query: &str,
    keys: &KeyRing,
    mut detect: impl FnMut(&str) -> Result<Text, E>,
) -> Result<Option<Plan>, E>
where
    E: From<Undecodable>,
{
    let mut params = Vec::new();
    let mut changed = false;
    for raw in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = match raw.split_once('=') {
            Some((n, v)) => (Some(n), v),
            None => (None, raw),
        };
        let decoded = decode(value)?;
        if !decoded.is_empty() && keys.holds(decoded.as_bytes()) {
            changed = true;
            continue;
        }
        if name.is_some_and(|n| PROVIDER_PARAMS.contains(&n)) {
            params.push(Param::Keep(raw.to_owned()));
            continue;
        }
        let text = detect(&decoded)?;
        if text.findings.is_empty() {
            params.push(Param::Keep(raw.to_owned()));
        } else {
            changed = true;
            let name = name.map(str::to_owned);
            params.push(Param::Anonymize { name, value: text });
        }
    }
    Ok(changed.then_some(Plan { params }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_plus_and_percent_and_refuses_what_is_no_utf8() {
        assert_eq!(decode("Max+M%C3%BCller").unwrap(), "Max Müller");
        assert_eq!(decode("plain").unwrap(), "plain");
        assert_eq!(decode("%FF"), Err(Undecodable));
    }

    #[test]
    fn tokens_are_percent_encoded() {
        let text = Text {
            text: "a@x.de".into(),
            findings: Vec::new(),
        };
        let plan = Plan {
            params: vec![
                Param::Keep("api-version=1".into()),
                Param::Anonymize {
                    name: Some("user".into()),
                    value: text,
                },
            ],
        };
        assert_eq!(
            plan.render(|_| "[[EMAIL_1]]".into()),
            "api-version=1&user=%5B%5BEMAIL_1%5D%5D"
        );
    }
}
