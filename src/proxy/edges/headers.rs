//! Which request headers pass as sent: the allow-list of header classes (`docs/proxy.md`,
//! "Headers"). Every header not listed is the client's own (`X-OpenWebUI-User-Email`, a
//! `Referer`, a `Cookie`): its value is anonymized, or it is dropped when the route says so.
//! Tarnkappe's own key is taken out of every header but the transport ones, whatever its class.

use http::{HeaderName, HeaderValue};
use pingora::http::RequestHeader;

use super::text::Text;
use crate::access::KeyRing;
use crate::config::UnlistedHeaders;

/// How a request header is treated on its way upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// Framing, transport and content negotiation: passes as sent, never holds a key.
    Transport,
    /// The provider's credentials and documented request headers, the SDK's telemetry: passes
    /// as sent unless its value is one of Tarnkappe's keys.
    Provider,
    /// Everything else: anonymized or dropped (the route's `unlisted_headers`).
    Unlisted,
}

/// Framing, transport and content negotiation (pingora and the upstream read these).
const TRANSPORT: &[&str] = &[
    "host",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
    "content-type",
    "content-encoding",
    "expect",
    "accept",
    "accept-encoding",
    "accept-language",
    "accept-charset",
    "cache-control",
    "pragma",
];

/// The providers' credentials and documented request headers, the client's software and the
/// request's trace ids: what an upstream may need to serve the request, none of it text a user
/// wrote.
const PROVIDER: &[&str] = &[
    // credentials (the provider's; a value that is Tarnkappe's key is removed)
    "authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    // Anthropic
    "anthropic-version",
    "anthropic-beta",
    "anthropic-dangerous-direct-browser-access",
    // OpenAI and Azure OpenAI
    "openai-organization",
    "openai-project",
    "openai-beta",
    "x-ms-client-request-id",
    // Google
    "x-goog-api-client",
    "x-goog-user-project",
    // the client's software, retries and traces
    "user-agent",
    "idempotency-key",
    "x-request-id",
    "traceparent",
    "tracestate",
];

/// Name prefixes of the same class: the OpenAI and Anthropic SDKs' telemetry
/// (`x-stainless-lang`, `x-stainless-retry-count`, …).
const PROVIDER_PREFIXES: &[&str] = &["x-stainless-"];

/// Headers that carry a credential as `<scheme> <credential>` (`Bearer <key>`).
const SCHEMED: &[&str] = &["authorization", "proxy-authorization"];

pub(super) fn class_of(name: &HeaderName) -> Class {
    let name = name.as_str();
    if TRANSPORT.contains(&name) {
        Class::Transport
    } else if PROVIDER.contains(&name) || PROVIDER_PREFIXES.iter().any(|p| name.starts_with(p)) {
        Class::Provider
    } else {
        Class::Unlisted
    }
}

/// Whether `value` of header `name` is one of Tarnkappe's keys (compared in constant time by
/// [`KeyRing::holds`]), bare or after an authorization scheme.
pub(super) fn is_our_key(name: &HeaderName, value: &HeaderValue, keys: &KeyRing) -> bool {
    let bytes = value.as_bytes();
    let credential = match SCHEMED.contains(&name.as_str()) {
        true => bytes
            .iter()
            .position(|&b| b == b' ')
            .map_or(bytes, |at| bytes[at + 1..].trim_ascii()),
        false => bytes,
    };
    !credential.is_empty() && keys.holds(credential)
}

/// One value of a header that changes on its way upstream.
pub(crate) enum Value {
    /// Passes as sent.
    Keep(HeaderValue),
    /// Passes with its findings replaced by tokens.
    Anonymize(Text),
}

/// A header whose values change: what replaces them (none: it is not forwarded).
pub(crate) struct Plan {
    pub name: HeaderName,
    pub values: Vec<Value>,
}

/// The headers of `req` that do not pass as sent, each with what replaces it. `keyed_route`:
/// the route requires a key, so its `X-API-Key` is ours by definition. `detect` reads one
/// value; `None` when it cannot be anonymized (the value is dropped).
pub(super) fn screen(
    req: &RequestHeader,
    keyed_route: bool,
    unlisted: UnlistedHeaders,
    keys: &KeyRing,
    mut detect: impl FnMut(&str) -> Option<Text>,
) -> Vec<Plan> {
    let mut plans = Vec::new();
    for name in req.headers.keys() {
        let class = class_of(name);
        if class == Class::Transport {
            continue;
        }
        let drop_all = (class == Class::Unlisted && unlisted == UnlistedHeaders::Drop)
            || (keyed_route && name.as_str() == "x-api-key");
        let mut changed = drop_all;
        let mut values = Vec::new();
        for value in req.headers.get_all(name).iter().filter(|_| !drop_all) {
            if is_our_key(name, value, keys) {
                changed = true;
                continue;
            }
            if class == Class::Provider {
                values.push(Value::Keep(value.clone()));
                continue;
            }
            // a value that is not UTF-8 cannot be read, so it cannot be anonymized either
            match std::str::from_utf8(value.as_bytes()).ok().map(&mut detect) {
                Some(Some(text)) if text.findings.is_empty() => {
                    values.push(Value::Keep(value.clone()))
                }
                Some(Some(text)) => {
                    changed = true;
                    values.push(Value::Anonymize(text));
                }
                _ => changed = true,
            }
        }
        if changed {
            plans.push(Plan {
                name: name.clone(),
                values,
            });
        }
    }
    plans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        let class = |n: &str| class_of(&HeaderName::from_bytes(n.as_bytes()).unwrap());
        assert_eq!(class("content-type"), Class::Transport);
        assert_eq!(class("anthropic-version"), Class::Provider);
        assert_eq!(class("x-stainless-retry-count"), Class::Provider);
        assert_eq!(class("x-openwebui-user-email"), Class::Unlisted);
        assert_eq!(class("cookie"), Class::Unlisted);
    }
}
