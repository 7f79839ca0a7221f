//! What the admission gate needs, borrowed from the process state, and why it refuses.

use crate::ratelimit::{Decision, LimitError, RateLimiter};
use crate::web::Web;

use super::keys::KeyRing;

/// The parts of the process state that decide who may call: the keys, the web page's cookie,
/// the rate limiter.
#[derive(Clone, Copy)]
pub struct Gate<'a> {
    pub keys: &'a KeyRing,
    pub web: &'a Web,
    pub limiter: &'a dyn RateLimiter,
}

/// Why a request is not admitted (never carries the presented credential).
#[derive(Debug, thiserror::Error)]
pub enum Refused {
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
