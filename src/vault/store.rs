//! The seam between sessions and where their sealed records live.

use std::time::Duration;

use async_trait::async_trait;

use crate::redis_client::RedisFailure;

/// The store could not be reached or answered with an error (never carries record contents).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("session store unavailable: {0}")]
    Redis(#[from] RedisFailure),
    #[error("session store unavailable: session id is not storable")]
    UnstorableId,
}

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
