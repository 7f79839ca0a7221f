//! Why the configured policies cannot be used.

/// Why the configured policies cannot be used: one sentence, no secrets (policies hold none
/// but the operator's own terms, which are never repeated here).
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("invalid policy \"{policy}\": {reason}")]
    Invalid { policy: String, reason: String },
    #[error("{owner} names the policy \"{name}\", which is not configured")]
    Unknown { owner: String, name: String },
    #[error("invalid policy name \"{0}\": use letters, digits, '_', '-' and '.' (at most 64)")]
    BadName(String),
    #[error(
        "the API keys named \"{0}\" name different policies; keys of one tenant share one policy"
    )]
    KeyConflict(String),
}
