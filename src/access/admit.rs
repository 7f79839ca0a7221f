//! The admission gate of keyed endpoints: authentication, then the rate limit (docs/api.md:
//! 401 → 429 → …). The API and proxy routes with `require_key` use the same gate.
//!
//! A key is limited per tenant. The web page's cookie costs one `GET /`, so a cookie caller is
//! limited per client address instead ([`super::client`]): fresh cookies from one address
//! buy no extra calls.

use pingora::http::RequestHeader;

use super::caller::{authenticate, Caller, Credential};
use super::client::Peer;
use super::gate::{Gate, Refused};
use crate::ratelimit::Decision;
use crate::telemetry::{metrics, AuthLabel};

/// Counts one request in `window` against `limit` per minute and refuses it with 429 when over.
pub(crate) async fn check_rate(
    gate: &Gate<'_>,
    window: &str,
    limit: u32,
) -> Result<Decision, Refused> {
    let decision = gate.limiter.check(window, limit).await?;
    if decision.allowed {
        Ok(decision)
    } else {
        metrics().rate_limited();
        Err(Refused::RateLimited(decision))
    }
}

/// A request that passed the gate: who it is and the rate-limit state to report in the
/// `X-RateLimit-*` headers of its response.
#[derive(Debug, Clone)]
pub(crate) struct Admitted {
    pub caller: Caller,
    pub decision: Decision,
}

/// 401 unless authenticated, then 429 unless within the limit: the key's, or for a cookie the
/// calls window of the client address behind `peer`.
pub(crate) async fn admit(
    req: &RequestHeader,
    peer: Peer,
    gate: &Gate<'_>,
) -> Result<Admitted, Refused> {
    let caller = authenticate(req, gate)?;
    let (label, decision) = match caller.credential {
        Credential::Key => (
            AuthLabel::key,
            check_rate(gate, &caller.tenant, caller.rate_limit).await,
        ),
        Credential::Cookie => {
            let window = gate.web.client(peer, &req.headers).window("call");
            (
                AuthLabel::cookie,
                check_rate(gate, &window, caller.rate_limit).await,
            )
        }
    };
    match &decision {
        Ok(_) => metrics().authenticated(label, true),
        Err(Refused::RateLimited(_)) => metrics().authenticated(label, false),
        Err(_) => {}
    }
    Ok(Admitted {
        caller,
        decision: decision?,
    })
}
