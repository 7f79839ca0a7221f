//! The process-wide state shared by every request: configuration, the detection engine, the
//! session vault. Built once at start-up.

use std::sync::Arc;
use std::time::Duration;

use crate::config::{Config, StoreKind};
use crate::detect::Detector;
use crate::vault::{MemoryStore, Sealer, Store};
use crate::web::Web;

pub struct App {
    pub config: Config,
    pub detector: Detector,
    pub sealer: Sealer,
    pub store: Arc<dyn Store>,
    /// The web page: on/off and the tenant cookie key.
    pub web: Web,
}

/// Why the process cannot start (printed, then exit 1).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StartError(pub String);

impl App {
    pub fn new(config: Config) -> Result<App, StartError> {
        let keys = config
            .sealing_keys()
            .map_err(|e| StartError(e.to_string()))?;
        let sealer = match Sealer::new(&keys) {
            Some(sealer) => sealer,
            None => {
                tracing::warn!(
                    "no encryption key configured: sessions are sealed with a random per-process key and do not survive a restart"
                );
                Sealer::random()
            }
        };
        let ttl = Duration::from_secs(config.session.ttl_seconds);
        let store: Arc<dyn Store> = match config.session.store {
            StoreKind::Memory => {
                Arc::new(MemoryStore::new(ttl, config.session.memory_capacity_bytes))
            }
            StoreKind::Redis => {
                return Err(StartError(
                    "the Redis store is not available in this build yet".into(),
                ))
            }
        };
        let web = Web::new(&config.web, config.session.ttl_seconds)
            .map_err(|e| StartError(e.to_string()))?;
        Ok(App {
            web,
            detector: Detector::new(),
            sealer,
            store,
            config,
        })
    }

    pub fn session_ttl(&self) -> Duration {
        Duration::from_secs(self.config.session.ttl_seconds)
    }
}
