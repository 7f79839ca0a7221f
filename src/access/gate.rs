//! What the admission gate needs, borrowed from the process state, and why it refuses.

use super::web::WebAccess;
use crate::ratelimit::{Decision, LimitError, RateLimiter};

use super::keys::KeyRing;

/// The parts of the process state that decide who may call: the keys, the web page's cookie,
/// the rate limiter.
#[derive(Clone, Copy)]
pub(crate) struct Gate<'a> {
    pub keys: &'a KeyRing,
    pub web: &'a WebAccess,
    pub limiter: &'a dyn RateLimiter,
}

/// Why a request is not admitted (never carries the presented credential).
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refused {
    /// 401: no valid key or cookie.
    #[error("unauthorized")]
    Unauthorized,
    /// 429, with the decision that refused it (for `Retry-After`).
    #[error("rate limited")]
    RateLimited(Decision),
    /// The shared rate-limit store could not be asked.
    #[error(transparent)]
    Store(#[from] LimitError),
}

/// The one-sentence messages of a refusal, shared by every door that answers one (the REST API's
/// error table and the proxy's provider-shaped errors).
pub(crate) const UNAUTHORIZED_MESSAGE: &str =
    "A valid API key is required in the X-API-Key header.";
pub(crate) const RATE_LIMITED_MESSAGE: &str = "Too many requests for this key; retry later.";
pub(crate) const STORE_UNAVAILABLE_MESSAGE: &str = "The session store is unavailable; retry later.";

impl Refused {
    /// The HTTP status this refusal is answered with.
    pub(crate) fn status(&self) -> u16 {
        match self {
            Refused::Unauthorized => 401,
            Refused::RateLimited(_) => 429,
            Refused::Store(_) => 503,
        }
    }

    /// The message this refusal is answered with (never the credential).
    pub(crate) fn message(&self) -> &'static str {
        match self {
            Refused::Unauthorized => UNAUTHORIZED_MESSAGE,
            Refused::RateLimited(_) => RATE_LIMITED_MESSAGE,
            Refused::Store(_) => STORE_UNAVAILABLE_MESSAGE,
        }
    }

    /// Seconds for `Retry-After` (at least one), for a rate-limit refusal.
    pub(crate) fn retry_after_secs(&self) -> Option<u64> {
        match self {
            Refused::RateLimited(d) => Some(d.retry_after.as_secs().max(1)),
            _ => None,
        }
    }
}
