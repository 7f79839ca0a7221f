//! The session vault: mappings are sealed with AES-256-GCM ([`Sealer`]) before any [`Store`]
//! sees them, so stores hold ciphertext only. The session id and the tenant are bound in as
//! associated data: a record copied to another id, or opened for another tenant, fails to open.

mod memory;
mod redis;
mod sealer;
mod store;

pub(crate) use memory::MemoryStore;
pub use redis::RedisStore;
pub use sealer::{OpenError, Sealer, SealingKey};
pub use store::{Store, StoreError};
