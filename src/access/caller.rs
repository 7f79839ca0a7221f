//! Who is calling: resolves a request to a [`Caller`] (tenant + per-minute limit).
//!
//! Two sources: the `X-API-Key` header (the SHA-256 of the presented key is compared in
//! constant time against every configured hash), and — only for requests without that header —
//! the web page's signed cookie with its same-origin check ([`super::web`]).

use pingora::http::RequestHeader;

use super::gate::{Gate, Refused};
use super::web::CookieAuth;

/// The authenticated caller of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    /// Tenant id: sessions are bound to it, rate limits of keys are counted per tenant.
    pub tenant: String,
    /// Requests per minute.
    pub rate_limit: u32,
    /// What authenticated it; a cookie caller is limited per client address, not per tenant.
    pub credential: Credential,
}

/// How a caller authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Credential {
    /// `X-API-Key`.
    Key,
    /// The web page's tenant cookie.
    Cookie,
}

/// Resolves the request to its caller, or 401 `unauthorized` (header missing, empty, not
/// visible ASCII, unknown, or sent more than once: with two keys it is ambiguous which one
/// speaks, and components that read the first or the last would disagree).
pub(crate) fn authenticate(req: &RequestHeader, gate: &Gate<'_>) -> Result<Caller, Refused> {
    if req.headers.get_all("x-api-key").iter().nth(1).is_some() {
        return Err(Refused::Unauthorized);
    }
    // The web page sends no key: its signed cookie, from its own origin, names the tenant — on
    // /api/v1 only, never on proxy routes. A cookie from another origin, a forged one, one on
    // another path, or any while the page is off falls through to the 401 below.
    if req.headers.get("x-api-key").is_none() {
        if let CookieAuth::Tenant(tenant) = gate.web.authenticate(req) {
            return Ok(Caller {
                tenant,
                rate_limit: gate.web.rate_limit(),
                credential: Credential::Cookie,
            });
        }
    }
    let presented = req
        .headers
        .get("x-api-key")
        .map(|v| v.as_bytes())
        .filter(|v| !v.is_empty())
        .ok_or(Refused::Unauthorized)?;
    let entry = gate.keys.find(presented).ok_or(Refused::Unauthorized)?;
    Ok(Caller {
        tenant: entry.tenant.clone(),
        rate_limit: entry.rate_limit,
        credential: Credential::Key,
    })
}
