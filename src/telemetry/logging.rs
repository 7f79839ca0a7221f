//! `tracing` set-up: text or JSON lines on stderr, filtered by `log.level`. The lines of the
//! libraries underneath never go below `info`, whatever the level: pingora prints the request
//! header it sends upstream (injected credential, query string, every header value) at `debug`
//! and `trace`, and no other library's debug output has been vetted for values either
//! (`docs/proxy.md`, "Logs").

use tracing::{Level, Metadata};
use tracing_subscriber::filter::{filter_fn, FilterFn};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
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
        LogFormat::Text => builder
            .finish()
            .with(own_lines_only())
            .try_init()
            .map(|()| {
                // the same text format, written without `tracing`'s field machinery
                super::access_line::use_for_text_format()
            }),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .finish()
            .with(own_lines_only())
            .try_init(),
    };
    result.map_err(|_| LogInitError::AlreadySet)
}

/// Whether a line may be written: Tarnkappe's own at any level, a library's at `info` or above.
fn allowed(level: Level, target: &str) -> bool {
    level <= Level::INFO || target.starts_with("tarnkappe")
}

fn own_lines_only() -> FilterFn<impl Fn(&Metadata<'_>) -> bool> {
    filter_fn(|meta| allowed(*meta.level(), meta.target()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_lines_stop_at_info_our_own_follow_the_level() {
        let cases = [
            ("pingora_proxy::proxy_h1", Level::DEBUG, false),
            (
                "pingora_core::protocols::http::v1::client",
                Level::TRACE,
                false,
            ),
            ("h2::codec", Level::DEBUG, false),
            ("pingora_core::server", Level::INFO, true),
            ("rustls::conn", Level::WARN, true),
            ("tarnkappe::proxy::rewrite", Level::TRACE, true),
            ("tarnkappe_detect::records", Level::DEBUG, true),
        ];
        for (target, level, want) in cases {
            assert_eq!(allowed(level, target), want, "{target}");
        }
    }
}
