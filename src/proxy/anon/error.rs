//! Why a request body cannot be rewritten.

use crate::detect::DetectError;
use crate::json;
use crate::proxy::embedded::EmbeddedError;
use crate::proxy::format::FormatRefusal;

/// Why a body cannot be rewritten, so it is not forwarded (messages carry no content).
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    #[error("the request body is not valid UTF-8")]
    NotUtf8,
    /// The upstream may read the other copy than the one checked and anonymized here.
    #[error("the request body names the same member twice in one object")]
    DuplicateMember,
    #[error("the request body is not valid JSON ({0})")]
    NotJson(json::ParseError),
    #[error("the request body must be a JSON object")]
    NotObject,
    #[error(transparent)]
    Format(#[from] FormatRefusal),
    /// A value the walk cannot inspect (see [`crate::proxy::walk`]).
    #[error("{0}")]
    Uninspectable(&'static str),
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
    /// More values than the request may hold (`docs/proxy.md`, "Limits").
    #[error("the request holds more than {limit} values to anonymize")]
    TooManyValues { limit: usize },
    #[error("internal error while preparing the rewrite")]
    Internal,
    /// A text past the detector's candidate limit: refused whole, never forwarded in part.
    #[error(transparent)]
    Detect(#[from] DetectError),
}
