use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use moka::future::Cache;

use super::store::{Store, StoreError};

/// The embedded store: a moka cache with one TTL for all records and a capacity bound in bytes
/// (when full, moka evicts by its TinyLFU policy).
pub(crate) struct MemoryStore {
    cache: Cache<String, Arc<Vec<u8>>>,
}

impl MemoryStore {
    pub fn new(ttl: Duration, capacity_bytes: u64) -> MemoryStore {
        let cache = Cache::builder()
            .weigher(|id: &String, v: &Arc<Vec<u8>>| {
                u32::try_from(id.len() + v.len()).unwrap_or(u32::MAX)
            })
            .max_capacity(capacity_bytes)
            .time_to_live(ttl)
            .build();
        MemoryStore { cache }
    }
}

#[async_trait]
impl Store for MemoryStore {
    fn kind(&self) -> &'static str {
        "memory"
    }

    async fn put(&self, id: &str, sealed: Vec<u8>, _ttl: Duration) -> Result<(), StoreError> {
        self.cache.insert(id.to_owned(), Arc::new(sealed)).await;
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.cache.get(id).await.map(|v| v.as_ref().clone()))
    }

    async fn delete(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.cache.remove(id).await.is_some())
    }

    async fn healthy(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn put_get_delete_and_expiry() {
        let store = MemoryStore::new(Duration::from_millis(200), 1 << 20);
        store.put("a", vec![1, 2, 3], Duration::ZERO).await.unwrap();
        assert_eq!(store.get("a").await.unwrap(), Some(vec![1, 2, 3]));
        assert!(store.delete("a").await.unwrap());
        assert!(!store.delete("a").await.unwrap());
        store.put("b", vec![4], Duration::ZERO).await.unwrap();
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(store.get("b").await.unwrap(), None);
    }
}
