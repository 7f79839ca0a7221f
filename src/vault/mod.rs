//! The session vault: mappings are sealed with AES-256-GCM ([`Sealer`]) before any [`Store`]
//! sees them, so stores hold ciphertext only. The session id and the tenant are bound in as
//! associated data: a record copied to another id, or opened for another tenant, fails to open.

mod memory;
mod redis;
mod sealer;

use std::time::Duration;

use async_trait::async_trait;

pub use memory::MemoryStore;
pub use redis::{RedisClient, RedisStore};
pub use sealer::{OpenError, Sealer, SealingKey};

/// The store could not be reached or answered with an error (never carries record contents).
#[derive(Debug, thiserror::Error)]
#[error("session store unavailable: {0}")]
pub struct StoreError(pub String);

/// Where sealed session records live. Implementations see opaque bytes only.
#[async_trait]
pub trait Store: Send + Sync {
    /// `"memory"` or `"redis"`, as `GET /health` reports it.
    fn kind(&self) -> &'static str;
    async fn put(&self, id: &str, sealed: Vec<u8>, ttl: Duration) -> Result<(), StoreError>;
    async fn get(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// Removes the record; true when it existed.
    async fn delete(&self, id: &str) -> Result<bool, StoreError>;
    /// Cheap reachability check for `/health` and `/health/ready`.
    async fn healthy(&self) -> bool;
}
