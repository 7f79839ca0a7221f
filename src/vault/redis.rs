//! Redis (or Valkey) as the shared session store, so that replicas behind a load balancer (or
//! sidecars of several chatbot replicas) open each other's sessions.
//!
//! The store sees sealed bytes only (`SET <prefix>session:<id> <sealed> PX <ttl>`): Redis itself
//! expires records, `DEL` removes them at once. The connection is the process' one
//! [`RedisClient`], shared with the rate limiter.

use std::time::Duration;

use async_trait::async_trait;

use super::store::{Store, StoreError};
use crate::redis_client::RedisClient;

/// Longest session id accepted as part of a Redis key.
const MAX_ID_LEN: usize = 128;

/// Session records in Redis: `<prefix>session:<id>` → sealed bytes, expiring by Redis' own TTL.
pub struct RedisStore {
    client: RedisClient,
}

impl RedisStore {
    pub fn new(client: RedisClient) -> RedisStore {
        RedisStore { client }
    }

    /// The Redis key of session `id`; `None` for ids that no session can have (they are never
    /// sent to Redis).
    pub(crate) fn key(&self, id: &str) -> Option<String> {
        let plausible = !id.is_empty()
            && id.len() <= MAX_ID_LEN
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        plausible.then(|| format!("{}session:{id}", self.client.prefix()))
    }
}

#[async_trait]
impl Store for RedisStore {
    fn kind(&self) -> &'static str {
        "redis"
    }

    async fn put(&self, id: &str, sealed: Vec<u8>, ttl: Duration) -> Result<(), StoreError> {
        let key = self.key(id).ok_or(StoreError::UnstorableId)?;
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        let mut cmd = redis::cmd("SET");
        cmd.arg(key).arg(sealed).arg("PX").arg(ttl_ms);
        Ok(self.client.query::<()>(&cmd).await?)
    }

    async fn get(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(key) = self.key(id) else {
            return Ok(None);
        };
        let mut cmd = redis::cmd("GET");
        cmd.arg(key);
        Ok(self.client.query::<Option<Vec<u8>>>(&cmd).await?)
    }

    async fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let Some(key) = self.key(id) else {
            return Ok(false);
        };
        let mut cmd = redis::cmd("DEL");
        cmd.arg(key);
        Ok(self.client.query::<i64>(&cmd).await? > 0)
    }

    async fn healthy(&self) -> bool {
        self.client.ping().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redis_client::test_config as config;
    use std::time::{Duration, Instant};

    #[test]
    fn keys_are_prefixed_and_odd_ids_never_reach_redis() {
        let client = RedisClient::new(&config("redis://127.0.0.1:6379")).unwrap();
        let prefix = client.prefix().to_owned();
        let store = RedisStore::new(client);
        assert_eq!(
            store.key("abc-1").unwrap(),
            format!("{prefix}session:abc-1")
        );
        assert!(store.key("").is_none());
        assert!(store.key("a b").is_none());
        assert!(store.key("x:y").is_none());
        assert!(store.key(&"a".repeat(MAX_ID_LEN + 1)).is_none());
    }

    #[tokio::test]
    async fn unreachable_redis_fails_fast_with_store_error() {
        // A port nothing listens on: connection refused at once.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let client = RedisClient::new(&config(&format!("redis://127.0.0.1:{port}"))).unwrap();
        let store = RedisStore::new(client);
        let started = Instant::now();
        assert!(store.get("abc").await.is_err());
        assert!(store
            .put("abc", vec![1], Duration::from_secs(1))
            .await
            .is_err());
        assert!(store.delete("abc").await.is_err());
        assert!(!store.healthy().await);
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
