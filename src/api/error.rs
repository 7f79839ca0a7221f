//! The API's error vocabulary (docs/api.md, "Errors"): one variant per row of the error table, each
//! with a fixed status, code and one-sentence message. Messages are static text — the one
//! exception names entity types (`policy_blocked`), never values — so they can never carry
//! submitted text or personal data.

use std::borrow::Cow;

use crate::access::{self, Refused};
use crate::detect::DetectError;
use crate::http::Reply;
use crate::ratelimit::{Decision, LimitError};
use crate::vault::StoreError;

#[derive(Debug)]
pub enum ApiError {
    /// 400 `bad_request`, with a fixed message naming what is wrong (never the value).
    BadRequest(&'static str),
    /// 400 `reserved_token`.
    ReservedToken,
    /// 401 `unauthorized`.
    Unauthorized,
    /// 404 `session_not_found`.
    SessionNotFound,
    /// 404 `not_found`.
    NotFound,
    /// 405 `method_not_allowed`; `allow` is the value of the `Allow` header.
    MethodNotAllowed { allow: &'static str },
    /// 408 `request_timeout`: the body did not arrive within `server.client_body_timeout_ms`.
    Timeout,
    /// The client closed the connection before its request was complete: nothing can be
    /// answered; logged and counted as 499.
    ClientClosed,
    /// 413 `too_large`.
    TooLarge(&'static str),
    /// 413 `too_many_values`: the detector's candidate limit per text was passed
    /// ([`crate::detect::DetectError`]); nothing was anonymized or stored.
    TooManyValues,
    /// 422 `policy_blocked`: the caller's policy blocks a type found in the text (the names of
    /// the types found, never the values).
    PolicyBlocked(Vec<&'static str>),
    /// 429 `rate_limited`, with the decision that refused it (for `Retry-After`).
    RateLimited(Decision),
    /// 503 `store_unavailable`: the session store (Redis) could not be reached or failed.
    Store(StoreError),
    /// 500 `internal`: anything unexpected. The reason is for the log only.
    Internal(&'static str),
}

impl ApiError {
    pub fn status(&self) -> u16 {
        match self {
            ApiError::BadRequest(_) | ApiError::ReservedToken => 400,
            ApiError::Unauthorized => 401,
            ApiError::SessionNotFound | ApiError::NotFound => 404,
            ApiError::MethodNotAllowed { .. } => 405,
            ApiError::Timeout => 408,
            ApiError::ClientClosed => 499,
            ApiError::TooLarge(_) | ApiError::TooManyValues => 413,
            ApiError::PolicyBlocked(_) => 422,
            ApiError::RateLimited(_) => 429,
            ApiError::Store(_) => 503,
            ApiError::Internal(_) => 500,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad_request",
            ApiError::ReservedToken => "reserved_token",
            ApiError::Unauthorized => "unauthorized",
            ApiError::SessionNotFound => "session_not_found",
            ApiError::NotFound => "not_found",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::Timeout => "request_timeout",
            ApiError::ClientClosed => "client_closed",
            ApiError::TooLarge(_) => "too_large",
            ApiError::TooManyValues => "too_many_values",
            ApiError::PolicyBlocked(_) => "policy_blocked",
            ApiError::RateLimited(_) => "rate_limited",
            ApiError::Store(_) => "store_unavailable",
            ApiError::Internal(_) => "internal",
        }
    }

    pub fn message(&self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            ApiError::BadRequest(m) | ApiError::TooLarge(m) => m,
            ApiError::PolicyBlocked(types) => {
                return Cow::Owned(format!(
                    "The text contains data of a type that this caller's policy blocks: {}.",
                    types.join(", ")
                ))
            }
            ApiError::ReservedToken => {
                "The text already contains a reserved token of the form [[PREFIX_n]]."
            }
            ApiError::Unauthorized => access::UNAUTHORIZED_MESSAGE,
            ApiError::SessionNotFound => "There is no such session for this key.",
            ApiError::NotFound => "There is no such endpoint.",
            ApiError::MethodNotAllowed { .. } => "This method is not allowed on this endpoint.",
            ApiError::Timeout => "The request body was not received in time.",
            ApiError::ClientClosed => "The client closed the connection.",
            ApiError::TooManyValues => TOO_MANY_VALUES,
            ApiError::RateLimited(_) => access::RATE_LIMITED_MESSAGE,
            ApiError::Store(_) => access::STORE_UNAVAILABLE_MESSAGE,
            ApiError::Internal(_) => "An internal error occurred; it has been logged.",
        })
    }
}

impl ApiError {
    /// The JSON error body with its status, plus `Allow` (405) or `Retry-After` (429).
    pub fn reply(&self) -> Reply {
        let reply = Reply::error(self.status(), self.code(), &self.message());
        match self {
            ApiError::MethodNotAllowed { allow } => reply.header("allow", *allow),
            ApiError::RateLimited(d) => reply.with_rate_limit(d),
            _ => reply,
        }
    }
}

impl From<Refused> for ApiError {
    fn from(r: Refused) -> ApiError {
        match r {
            Refused::Unauthorized => ApiError::Unauthorized,
            Refused::RateLimited(d) => ApiError::RateLimited(d),
            Refused::Store(e) => e.into(),
        }
    }
}

/// The rate limit's shared store answers as the session store does: 503 `store_unavailable`.
impl From<LimitError> for ApiError {
    fn from(e: LimitError) -> ApiError {
        ApiError::Store(StoreError::Redis(e.0))
    }
}

/// The message of 413 `too_many_values` (also the proxy's refusal, docs/proxy.md).
pub const TOO_MANY_VALUES: &str =
    "The text holds more candidate values than the privacy proxy checks in one text; send it in smaller parts.";

impl From<DetectError> for ApiError {
    fn from(e: DetectError) -> ApiError {
        match e {
            DetectError::TooManyCandidates { .. } => ApiError::TooManyValues,
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::Store(e)
    }
}
