//! The edges of a proxied request, what may pass in its headers and query string
//! (`docs/proxy.md`, "Headers" and "Query strings"): one decision, made in `request_filter`
//! before anything is forwarded. Values in headers off the allow-list and in query parameters
//! are anonymized with the exchange's token table, so the body, the edges and the reply agree
//! on tokens; block mode sees them; Tarnkappe's own key leaves in no header and no parameter.
//!
//! Tokens are issued from the body's table when the body is rewritten before the header goes
//! out (`settle`, from the rewrite's seed), else from a fresh table when the upstream header is
//! written (`apply`), whose rows the body's table then takes over (`take_over`). A WebSocket's
//! handshake issues them from its connection's table, which every message's table takes over.

mod headers;
mod query;
mod text;

use http::{HeaderName, HeaderValue};
use pingora::http::RequestHeader;
use pingora::prelude::*;

use super::policy;
use super::refuse::Refusal;
use super::routes::Route;
use crate::app::App;
use crate::detect::{DetectError, EntityType, Everything};
use crate::policy::Policy;
use crate::tokens::TokenTable;
use text::Text;

/// Why the edges of a request refuse it.
#[derive(Debug, thiserror::Error)]
enum EdgeError {
    #[error(transparent)]
    Undecodable(#[from] query::Undecodable),
    #[error(transparent)]
    Detect(#[from] DetectError),
}

/// What the edges of one request become upstream.
pub(crate) enum Edges {
    /// Read, tokens not yet issued.
    Screened {
        headers: Vec<headers::Plan>,
        query: Option<query::Plan>,
    },
    /// Tokens issued: the header values and query string that go upstream, and the table they
    /// were issued from when the body's was not there yet.
    Issued {
        headers: Vec<(HeaderName, Vec<HeaderValue>)>,
        query: Option<String>,
        table: Option<TokenTable>,
    },
}

/// The answer to a query string that cannot be decoded.
const UNDECODABLE: &str = "The query string cannot be read by the privacy proxy (not UTF-8).";
/// The answer to a value of the edges that has another token in the conversation's table.
const CONFLICT: &str = "A header or query value of this request cannot get its token of the conversation; send it in the body instead.";

/// Reads the headers and query string of `req` under `policy`: what passes, what is
/// anonymized, what is dropped; refused when a value is blocked by the policy or the query
/// cannot be read. Header and query values never reach a log line.
pub(crate) fn screen(
    app: &App,
    route: &Route,
    policy: Option<&Policy>,
    req: &RequestHeader,
) -> Result<Edges, Refusal> {
    let detect = |s: &str| -> Result<Text, DetectError> {
        let findings = match policy {
            Some(p) => app.detector.try_detect_in(s, p)?,
            None => app.detector.try_detect_in(s, &Everything)?,
        };
        Ok(Text {
            text: s.to_owned(),
            findings,
        })
    };
    let headers = headers::screen(
        req,
        route.require_key,
        route.unlisted_headers,
        &app.keys,
        |s| detect(s).ok(),
    );
    let query = match req.uri.query() {
        None => None,
        Some(q) => {
            query::screen(q, &app.keys, |s| detect(s).map_err(EdgeError::from)).map_err(|e| {
                tracing::info!(route = %route.prefix, reason = %e, "request refused: query string");
                match e {
                    EdgeError::Undecodable(_) => Refusal::new(400, UNDECODABLE),
                    EdgeError::Detect(_) => Refusal::too_many_candidates(),
                }
            })?
        }
    };
    let found = headers
        .iter()
        .flat_map(|h| h.values.iter())
        .filter_map(|v| match v {
            headers::Value::Anonymize(t) => Some(t),
            headers::Value::Keep(_) => None,
        })
        .chain(query.iter().flat_map(query::Plan::texts))
        .flat_map(|t| t.findings.iter().map(|f| f.entity_type));
    if let Some(message) = policy.and_then(|p| blocked(p, found)) {
        tracing::info!(route = %route.prefix, "request blocked by policy (headers or query)");
        return Err(Refusal::new(policy::BLOCKED_STATUS, message));
    }
    Ok(Edges::Screened { headers, query })
}

fn blocked(policy: &Policy, found: impl Iterator<Item = EntityType>) -> Option<String> {
    let message = policy::blocked_message(policy, found)?;
    crate::telemetry::metrics().policy_applied(&policy.name, true);
    Some(message)
}

/// Issues the tokens of screened edges from `table`, the exchange's (a body rewritten before
/// the header goes out, or a request without body). Edges issued earlier from a table of their
/// own hand its rows over: `table` takes them, or refuses when a conversation's earlier turns
/// gave one of their values another token (the header has gone out with it).
pub(crate) fn settle(edges: &mut Option<Edges>, table: &mut TokenTable) -> Result<(), Refusal> {
    let (headers, query) = match edges.take() {
        Some(Edges::Screened { headers, query }) => issue(&headers, query.as_ref(), table),
        Some(Edges::Issued {
            headers,
            query,
            table: Some(own),
        }) => {
            take_over(&own, table)?;
            (headers, query)
        }
        other => {
            *edges = other;
            return Ok(());
        }
    };
    *edges = Some(Edges::Issued {
        headers,
        query,
        table: None,
    });
    Ok(())
}

/// Takes the rows of `issued`, tokens that have gone out already (in a header, a query string,
/// a WebSocket's handshake), into `table`, the exchange's: refused when one of their values has
/// another token there, or one of their tokens another value.
pub(crate) fn take_over(issued: &TokenTable, table: &mut TokenTable) -> Result<(), Refusal> {
    if issued.entries().iter().all(|row| table.adopt(row)) {
        Ok(())
    } else {
        Err(Refusal::new(400, CONFLICT))
    }
}

/// Header values and query string of the edges, with tokens from `table`.
type Rendered = (Vec<(HeaderName, Vec<HeaderValue>)>, Option<String>);

fn issue(
    headers: &[headers::Plan],
    query: Option<&query::Plan>,
    table: &mut TokenTable,
) -> Rendered {
    let mut render = |t: &Text| t.render(table);
    let headers = headers
        .iter()
        .map(|plan| {
            let values = plan
                .values
                .iter()
                .filter_map(|v| match v {
                    headers::Value::Keep(v) => Some(v.clone()),
                    // tokens are visible ASCII, the rest was part of a header value already
                    headers::Value::Anonymize(t) => {
                        HeaderValue::from_bytes(render(t).as_bytes()).ok()
                    }
                })
                .collect();
            (plan.name.clone(), values)
        })
        .collect();
    (headers, query.map(|q| q.render(&mut render)))
}

/// `upstream_request_filter`: the edges' header values and query string go into `req`. Edges
/// still without tokens (the body is rewritten after the header goes out) get them from a
/// table of their own, which `settle` hands to the body's.
pub(crate) fn apply(req: &mut RequestHeader, edges: &mut Option<Edges>) -> Result<Option<String>> {
    if let Some(Edges::Screened { headers, query }) = edges {
        let mut own = TokenTable::new();
        let (headers, query) = issue(headers, query.as_ref(), &mut own);
        *edges = Some(Edges::Issued {
            headers,
            query,
            table: Some(own),
        });
    }
    let Some(Edges::Issued { headers, query, .. }) = edges else {
        return Ok(None);
    };
    for (name, values) in headers {
        req.remove_header(name);
        for v in values {
            req.append_header(name.clone(), v.clone())?;
        }
    }
    Ok(query.clone())
}

/// On a route that requires a key: a client whose SDK sends Tarnkappe's key as its own
/// credential (`Authorization: Bearer`, `api-key`, `x-goog-api-key`), natural when the route
/// injects the provider's, is admitted by it as if it had sent `X-API-Key`. Only a value that
/// is one of the keys counts; the header is removed upstream like any that holds our key.
pub(crate) fn adopt_key(req: &mut RequestHeader, app: &App) -> Result<()> {
    if req.headers.contains_key("x-api-key") {
        return Ok(());
    }
    let mut found: Option<HeaderValue> = None;
    for name in ["authorization", "api-key", "x-goog-api-key"] {
        let name = HeaderName::from_static(name);
        for value in req.headers.get_all(&name) {
            if !headers::is_our_key(&name, value, &app.keys) {
                continue;
            }
            let bytes = value.as_bytes();
            let key = match bytes.iter().position(|&b| b == b' ') {
                Some(at) if name == "authorization" => bytes[at + 1..].trim_ascii(),
                _ => bytes,
            };
            let key = HeaderValue::from_bytes(key)
                .map_err(|_| Error::explain(ErrorType::InternalError, "invalid key header"))?;
            match &found {
                // two different keys of ours: who speaks is ambiguous, the gate refuses
                Some(other) if *other != key => return Ok(()),
                _ => found = Some(key),
            }
        }
    }
    if let Some(key) = found {
        req.insert_header("x-api-key", key)?;
    }
    Ok(())
}
