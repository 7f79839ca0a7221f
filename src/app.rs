//! The process-wide state shared by every request: configuration, the detection engine, the
//! session vault, the API keys, the rate limiter, the static documents. Built once at start-up,
//! so that no request repeats work that could be done here.

use std::sync::Arc;
use std::time::Duration;

use crate::access::{Gate, KeyError, KeyRing, WebAccess, WebConfigError};
use crate::config::{Config, ConfigError, StoreKind};
use crate::detect::Detector;
use crate::detection_cache::DetectionCache;
use crate::policy::{Policies, PolicyError};
use crate::ratelimit::{MemoryLimiter, RateLimiter, RedisLimiter};
use crate::redis_client::{RedisClient, RedisFailure};
use crate::vault::{MemoryStore, RedisStore, Sealer, Store};

pub struct App {
    pub(crate) config: Config,
    pub(crate) detector: Detector,
    /// Findings of texts the proxy detected before (`None`: off).
    pub(crate) detection_cache: Option<DetectionCache>,
    /// The compiled policies and who gets which.
    pub(crate) policies: Policies,
    pub(crate) sealer: Sealer,
    pub(crate) store: Arc<dyn Store>,
    /// The API keys (hashes decoded), including a generated one when none is configured.
    pub(crate) keys: KeyRing,
    pub(crate) limiter: Arc<dyn RateLimiter>,
    /// `/entities` and the OpenAPI document, serialized once.
    /// The web page: on/off and the tenant cookie key.
    pub(crate) web: WebAccess,
}

/// Why the shared state cannot be built from the configuration, so the process cannot start
/// (printed, then exit 1). Every message names the setting at fault, never a secret.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error(transparent)]
    Redis(#[from] RedisFailure),
    #[error(transparent)]
    Web(#[from] WebConfigError),
    #[error(transparent)]
    Keys(#[from] KeyError),
}

impl App {
    /// What the admission gate needs of this state.
    pub(crate) fn gate(&self) -> Gate<'_> {
        Gate {
            keys: &self.keys,
            web: &self.web,
            limiter: self.limiter.as_ref(),
        }
    }

    pub fn new(config: Config) -> Result<App, AppError> {
        // Policies first: a configuration mistake there is the likeliest, and costs nothing to find.
        let policies = Policies::compile(&config)?;
        let keys = config.sealing_keys()?;
        let sealer = match config.session.sealing_key_id {
            Some(id) => Sealer::with_sealing_key(&keys, id),
            None => Sealer::new(&keys),
        };
        let sealer = match sealer {
            Some(sealer) => sealer,
            None => {
                tracing::warn!(
                    "no encryption key configured: sessions are sealed with a random per-process key and do not survive a restart"
                );
                Sealer::random()
            }
        };
        // One Redis client for the session store and the rate limiter.
        let redis = match config.session.store {
            StoreKind::Memory => None,
            StoreKind::Redis => Some(RedisClient::new(&config.redis)?),
        };
        let ttl = Duration::from_secs(config.session.ttl_seconds);
        let store: Arc<dyn Store> = match &redis {
            None => Arc::new(MemoryStore::new(ttl, config.session.memory_capacity_bytes)),
            Some(client) => Arc::new(RedisStore::new(client.clone())),
        };
        let listen = config.listen_addr()?;
        let web = WebAccess::new(
            &config.web,
            config.session.ttl_seconds,
            listen.ip(),
            config.api.rate_limit_per_minute,
        )?;
        announce_web(&web, config.web.enabled, listen);
        let (api_keys, generated) = KeyRing::from_config(&config)?;
        if let Some(key) = generated {
            // Printed once, here, and never logged.
            eprintln!(
                "WARNING: no API key configured (api.keys or TARNKAPPE_API_KEYS). Generated a key for this process only; it is shown once and accepted until the process ends:\n  X-API-Key: {key}"
            );
        }
        Ok(App {
            web,
            detector: Detector::new().with_candidate_limit(config.api.max_candidates_per_text),
            detection_cache: DetectionCache::new(config.api.detection_cache_bytes),
            policies,
            sealer,
            store,
            keys: api_keys,
            limiter: match redis {
                None => Arc::new(MemoryLimiter::new()),
                Some(client) => Arc::new(RedisLimiter::new(client)),
            },
            config,
        })
    }

    pub fn session_ttl(&self) -> Duration {
        Duration::from_secs(self.config.session.ttl_seconds)
    }
}

/// One start-up line when the page's state is not the obvious one: served on a listener that
/// faces a network, or left off by default because of one (`configured`: `[web] enabled`).
fn announce_web(web: &WebAccess, configured: Option<bool>, listen: std::net::SocketAddr) {
    if listen.ip().is_loopback() {
        return;
    }
    if web.enabled() {
        tracing::warn!(
            listen = %listen,
            per_address_limit = web.rate_limit(),
            "the web page at / is open to the network of this listener: anyone who can reach it gets a tenant cookie that calls the API without a key (limited per client address)"
        );
    } else if configured.is_none() {
        tracing::info!(
            listen = %listen,
            "the web page at / is off because the listener is not on a loopback address ([web] enabled = true or TARNKAPPE_WEB_ENABLED=true serves it)"
        );
    }
}
