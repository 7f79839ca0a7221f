//! `tracing` set-up: text or JSON lines on stderr, filtered by `log.level`.

use tracing_subscriber::EnvFilter;

use crate::config::{LogConfig, LogFormat};

#[derive(Debug, thiserror::Error)]
pub enum LogInitError {
    #[error("invalid value for log.level: not a tracing filter")]
    Filter,
    #[error("a global logger is already installed")]
    AlreadySet,
}

/// Installs the global subscriber (once per process). Pingora's `log` records are routed to it.
pub fn init_logging(config: &LogConfig) -> Result<(), LogInitError> {
    let filter = EnvFilter::try_new(&config.level).map_err(|_| LogInitError::Filter)?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let result = match config.format {
        LogFormat::Text => builder.try_init().map(|()| {
            // the same text format, written without `tracing`'s field machinery
            super::access_line::use_for_text_format()
        }),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
    result.map_err(|_| LogInitError::AlreadySet)
}
