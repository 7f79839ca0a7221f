//! Why the configuration cannot be used: the offending key, never a secret value.

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("invalid configuration: {0}")]
    Parse(String),
    #[error("invalid value for {key}: {reason}")]
    Invalid { key: String, reason: String },
}

pub(super) fn invalid(key: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_owned(),
        reason: reason.into(),
    }
}
