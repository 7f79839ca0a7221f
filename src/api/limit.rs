//! The admission gate of keyed endpoints: authentication, then the per-tenant rate limit
//! (api.md: 401 → 429 → …). Public so that proxy routes with `require_key` use the same gate.

use pingora::http::RequestHeader;

use super::auth::{authenticate, Caller};
use super::error::ApiError;
use crate::app::App;
use crate::ratelimit::Decision;

/// Counts one request of `caller` and refuses it with 429 when over the limit. A failing shared
/// store surfaces as [`ApiError::Store`].
pub async fn check_rate(app: &App, caller: &Caller) -> Result<Decision, ApiError> {
    let decision = app.limiter.check(&caller.tenant, caller.rate_limit).await?;
    if decision.allowed {
        Ok(decision)
    } else {
        crate::telemetry::metrics().rate_limited();
        Err(ApiError::RateLimited(decision))
    }
}

/// A request that passed the gate: who it is and the rate-limit state to report in the
/// `X-RateLimit-*` headers of its response.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub caller: Caller,
    pub decision: Decision,
}

/// 401 unless authenticated, then 429 unless within the limit.
pub async fn admit(req: &RequestHeader, app: &App) -> Result<Admitted, ApiError> {
    let caller = authenticate(req, app)?;
    let decision = check_rate(app, &caller).await?;
    Ok(Admitted { caller, decision })
}
