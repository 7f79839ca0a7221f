//! Redis (or Valkey) as the shared session store, so that replicas behind a load balancer (or
//! sidecars of several chatbot replicas) open each other's sessions.
//!
//! The store sees sealed bytes only (`SET <prefix>session:<id> <sealed> PX <ttl>`): Redis itself
//! expires records, `DEL` removes them at once. [`RedisClient`] is the connection shared by the
//! store and the Redis rate limiter: it connects lazily (the process starts while Redis is still
//! down), bounds every connect and command by the configured timeouts, drops a connection that
//! failed and connects anew on a later call, so the service recovers by itself when Redis
//! returns. Errors never carry keys, values or the URL (it may hold a password).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, FromRedisValue, RedisError, Script};
use std::sync::Mutex;

use super::{Store, StoreError};
use crate::config::RedisConfig;

/// After a failed connection attempt, calls fail at once for this long instead of each waiting
/// for its own attempt (an unreachable Redis must not make every request slow).
const RETRY_PAUSE: Duration = Duration::from_millis(250);

/// Longest session id accepted as part of a Redis key.
const MAX_ID_LEN: usize = 128;

enum Target {
    Single(redis::Client),
    Cluster(ClusterClient),
}

#[derive(Clone)]
enum Conn {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

struct ConnState {
    conn: Option<Conn>,
    last_failure: Option<Instant>,
}

/// The state lock is never held across an await; a poisoned lock still holds valid state.
fn lock(m: &Mutex<ConnState>) -> std::sync::MutexGuard<'_, ConnState> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

struct Inner {
    target: Target,
    state: Mutex<ConnState>,
    /// Held while a connection is being made.
    connect_lock: tokio::sync::Mutex<()>,
    connect_timeout: Duration,
    command_timeout: Duration,
    prefix: String,
}

/// A lazily connected, self-healing handle on Redis (single node or cluster). Cheap to clone.
#[derive(Clone)]
pub struct RedisClient {
    inner: Arc<Inner>,
}

fn command_failed(e: &RedisError) -> StoreError {
    // The kind and category only: server messages can quote arguments.
    StoreError(format!("redis command failed ({:?})", e.kind()))
}

impl RedisClient {
    /// Validates the configuration and prepares the client; connects on first use.
    pub fn new(config: &RedisConfig) -> Result<RedisClient, StoreError> {
        let url = config
            .url
            .as_deref()
            .ok_or_else(|| StoreError("redis.url is not set".into()))?;
        let root_cert = match &config.ca_file {
            Some(path) => Some(
                std::fs::read(path)
                    .map_err(|_| StoreError("redis.ca_file cannot be read".into()))?,
            ),
            None => None,
        };
        let certs = || redis::TlsCertificates {
            client_tls: None,
            root_cert: root_cert.clone(),
        };
        let connect_timeout = Duration::from_millis(config.connect_timeout_ms.max(1));
        let command_timeout = Duration::from_millis(config.command_timeout_ms.max(1));
        let target = if config.cluster {
            let nodes: Vec<&str> = url
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .collect();
            let mut builder = ClusterClient::builder(nodes)
                .connection_timeout(connect_timeout)
                .response_timeout(command_timeout);
            if root_cert.is_some() {
                builder = builder.certs(certs());
            }
            let client = builder
                .build()
                .map_err(|_| StoreError("redis.url is not a valid list of cluster URLs".into()))?;
            Target::Cluster(client)
        } else {
            let client = if root_cert.is_some() {
                redis::Client::build_with_tls(url, certs())
            } else {
                redis::Client::open(url)
            }
            .map_err(|_| {
                StoreError("redis.url is not a valid redis:// or rediss:// URL (or redis.ca_file is not PEM)".into())
            })?;
            Target::Single(client)
        };
        Ok(RedisClient {
            inner: Arc::new(Inner {
                target,
                state: Mutex::new(ConnState {
                    conn: None,
                    last_failure: None,
                }),
                connect_lock: tokio::sync::Mutex::new(()),
                connect_timeout,
                command_timeout,
                prefix: config.key_prefix.clone(),
            }),
        })
    }

    /// The key prefix (e.g. `tarnkappe:`) in front of every key this process writes.
    pub fn prefix(&self) -> &str {
        &self.inner.prefix
    }

    async fn connection(&self) -> Result<Conn, StoreError> {
        let outage = {
            let state = lock(&self.inner.state);
            if let Some(conn) = &state.conn {
                return Ok(conn.clone());
            }
            if state
                .last_failure
                .is_some_and(|t| t.elapsed() < RETRY_PAUSE)
            {
                return Err(StoreError("redis is unreachable".into()));
            }
            state.last_failure.is_some()
        };
        // One task connects at a time. While Redis is known to be down, the others fail at once;
        // otherwise (first use, or a connection just lost) they wait for that attempt.
        let _connecting = if outage {
            self.inner
                .connect_lock
                .try_lock()
                .map_err(|_| StoreError("redis is unreachable".into()))?
        } else {
            tokio::time::timeout(self.inner.connect_timeout, self.inner.connect_lock.lock())
                .await
                .map_err(|_| StoreError("redis is unreachable (connect timeout)".into()))?
        };
        {
            let state = lock(&self.inner.state);
            if let Some(conn) = &state.conn {
                return Ok(conn.clone());
            }
            if state
                .last_failure
                .is_some_and(|t| t.elapsed() < RETRY_PAUSE)
            {
                return Err(StoreError("redis is unreachable".into()));
            }
        }
        let attempt = async {
            match &self.inner.target {
                Target::Single(client) => {
                    let config = ConnectionManagerConfig::new()
                        .set_connection_timeout(self.inner.connect_timeout)
                        .set_response_timeout(self.inner.command_timeout)
                        .set_number_of_retries(1)
                        .set_max_delay(200);
                    ConnectionManager::new_with_config(client.clone(), config)
                        .await
                        .map(Conn::Single)
                }
                Target::Cluster(client) => client.get_async_connection().await.map(Conn::Cluster),
            }
        };
        let result = tokio::time::timeout(self.inner.connect_timeout, attempt).await;
        let mut state = lock(&self.inner.state);
        match result {
            Ok(Ok(conn)) => {
                if state.last_failure.take().is_some() {
                    tracing::info!("redis is reachable again");
                }
                state.conn = Some(conn.clone());
                Ok(conn)
            }
            Ok(Err(e)) => {
                if state.last_failure.is_none() {
                    tracing::warn!(kind = ?e.kind(), "cannot connect to redis");
                }
                state.last_failure = Some(Instant::now());
                Err(StoreError("redis is unreachable".into()))
            }
            Err(_) => {
                if state.last_failure.is_none() {
                    tracing::warn!("connecting to redis timed out");
                }
                state.last_failure = Some(Instant::now());
                Err(StoreError("redis is unreachable (connect timeout)".into()))
            }
        }
    }

    /// Forgets a connection that failed, so that the next call connects anew.
    fn discard(&self) {
        let mut state = lock(&self.inner.state);
        if state.conn.take().is_some() {
            tracing::warn!("lost the connection to redis; reconnecting on the next request");
        }
        state.last_failure = Some(Instant::now());
    }

    fn finish<T>(
        &self,
        result: Result<Result<T, RedisError>, tokio::time::error::Elapsed>,
    ) -> Result<T, StoreError> {
        match result {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                let broken = e.is_io_error()
                    || e.is_connection_dropped()
                    || e.is_connection_refusal()
                    || e.is_timeout()
                    || e.is_unrecoverable_error();
                if broken {
                    self.discard();
                }
                Err(command_failed(&e))
            }
            Err(_) => {
                self.discard();
                Err(StoreError("redis command timed out".into()))
            }
        }
    }

    /// Runs one command within the command timeout.
    pub async fn query<T: FromRedisValue + Send>(&self, cmd: &Cmd) -> Result<T, StoreError> {
        let conn = self.connection().await?;
        let timeout = self.inner.command_timeout;
        let result = tokio::time::timeout(timeout, async move {
            match conn {
                Conn::Single(mut c) => cmd.query_async::<T>(&mut c).await,
                Conn::Cluster(mut c) => cmd.query_async::<T>(&mut c).await,
            }
        })
        .await;
        self.finish(result)
    }

    /// Runs a Lua script (EVALSHA, loading it when Redis does not know it) within the timeout.
    pub async fn run_script<T: FromRedisValue + Send>(
        &self,
        script: &Script,
        keys: &[&str],
        args: &[String],
    ) -> Result<T, StoreError> {
        let conn = self.connection().await?;
        let mut invocation = script.prepare_invoke();
        for k in keys {
            invocation.key(*k);
        }
        for a in args {
            invocation.arg(a.as_str());
        }
        let result = tokio::time::timeout(self.inner.command_timeout, async move {
            match conn {
                Conn::Single(mut c) => invocation.invoke_async::<T>(&mut c).await,
                Conn::Cluster(mut c) => invocation.invoke_async::<T>(&mut c).await,
            }
        })
        .await;
        self.finish(result)
    }

    /// `PING` within the timeouts.
    pub async fn ping(&self) -> bool {
        self.query::<String>(&redis::cmd("PING"))
            .await
            .is_ok_and(|pong| pong == "PONG")
    }
}

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
    pub fn key(&self, id: &str) -> Option<String> {
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
        let key = self
            .key(id)
            .ok_or_else(|| StoreError("session id is not storable".into()))?;
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        let mut cmd = redis::cmd("SET");
        cmd.arg(key).arg(sealed).arg("PX").arg(ttl_ms);
        self.client.query::<()>(&cmd).await
    }

    async fn get(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(key) = self.key(id) else {
            return Ok(None);
        };
        let mut cmd = redis::cmd("GET");
        cmd.arg(key);
        self.client.query::<Option<Vec<u8>>>(&cmd).await
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

    fn config(url: &str) -> RedisConfig {
        RedisConfig {
            url: Some(url.to_owned()),
            key_prefix: format!("tarnkappe-test-{}:", uuid::Uuid::new_v4().simple()),
            ..RedisConfig::default()
        }
    }

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

    #[test]
    fn bad_urls_are_refused_without_echoing_them() {
        let err = RedisClient::new(&config("http://user:hunter2@example.org"))
            .err()
            .unwrap();
        assert!(!err.0.contains("hunter2"));
        assert!(err.0.contains("redis.url"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_silent_redis_does_not_make_every_request_wait() {
        // Accepts connections (kernel backlog) but never answers: like a hung or black-holed host.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = silent.local_addr().unwrap().port();
        let mut cfg = config(&format!("redis://127.0.0.1:{port}"));
        cfg.connect_timeout_ms = 300;
        cfg.command_timeout_ms = 300;
        let store = Arc::new(RedisStore::new(RedisClient::new(&cfg).unwrap()));
        for round in 0..3 {
            let started = Instant::now();
            let tasks: Vec<_> = (0..20)
                .map(|_| {
                    let store = store.clone();
                    tokio::spawn(async move { store.get("abc").await })
                })
                .collect();
            for t in tasks {
                assert!(t.await.unwrap().is_err());
            }
            // At most one connect attempt's wait, not twenty in a row.
            assert!(
                started.elapsed() < Duration::from_millis(1500),
                "round {round} took {:?}",
                started.elapsed()
            );
            tokio::time::sleep(RETRY_PAUSE).await;
        }
        drop(silent);
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
