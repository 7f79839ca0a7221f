//! The one Redis (or Valkey) client of the process, shared by the session store
//! ([`crate::vault::RedisStore`]) and the shared rate limit ([`crate::ratelimit::RedisLimiter`]).
//!
//! [`RedisClient`] connects lazily (the process starts while Redis is still down), bounds every
//! connect and command by the configured timeouts, drops a connection that failed and connects
//! anew on a later call, so the service recovers by itself when Redis returns. Errors
//! ([`RedisFailure`]) never carry keys, values or the URL (it may hold a password).

use std::sync::Arc;
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, FromRedisValue, RedisError, Script};
use std::sync::Mutex;

use crate::config::RedisConfig;

/// After a failed connection attempt, calls fail at once for this long instead of each waiting
/// for its own attempt (an unreachable Redis must not make every request slow).
const RETRY_PAUSE: Duration = Duration::from_millis(250);

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

impl ConnState {
    /// The answer without connecting: the open connection, or `Unreachable` during the pause
    /// after a failure; `None` when a connection attempt is due.
    fn settled(&self) -> Option<Result<Conn, RedisFailure>> {
        if let Some(conn) = &self.conn {
            return Some(Ok(conn.clone()));
        }
        self.last_failure
            .is_some_and(|t| t.elapsed() < RETRY_PAUSE)
            .then_some(Err(RedisFailure::Unreachable))
    }
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

/// Why a Redis call failed: what went wrong, never what was sent or the URL.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RedisFailure {
    /// The configuration cannot be used (the message names the setting, never its value).
    #[error("{0}")]
    Config(&'static str),
    #[error("redis is unreachable")]
    Unreachable,
    #[error("redis is unreachable (connect timeout)")]
    ConnectTimeout,
    /// The kind and category only: server messages can quote arguments.
    #[error("redis command failed ({0:?})")]
    Command(redis::ErrorKind),
    #[error("redis command timed out")]
    CommandTimeout,
}

impl RedisClient {
    /// Validates the configuration and prepares the client; connects on first use.
    pub fn new(config: &RedisConfig) -> Result<RedisClient, RedisFailure> {
        let url = config
            .url
            .as_deref()
            .ok_or(RedisFailure::Config("redis.url is not set"))?;
        let root_cert = match &config.ca_file {
            Some(path) => Some(
                std::fs::read(path)
                    .map_err(|_| RedisFailure::Config("redis.ca_file cannot be read"))?,
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
            let client = builder.build().map_err(|_| {
                RedisFailure::Config("redis.url is not a valid list of cluster URLs")
            })?;
            Target::Cluster(client)
        } else {
            let client = if root_cert.is_some() {
                redis::Client::build_with_tls(url, certs())
            } else {
                redis::Client::open(url)
            }
            .map_err(|_| {
                RedisFailure::Config(
                    "redis.url is not a valid redis:// or rediss:// URL (or redis.ca_file is not PEM)",
                )
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

    async fn connection(&self) -> Result<Conn, RedisFailure> {
        let outage = {
            let state = lock(&self.inner.state);
            if let Some(settled) = state.settled() {
                return settled;
            }
            state.last_failure.is_some()
        };
        // One task connects at a time. While Redis is known to be down, the others fail at once;
        // otherwise (first use, or a connection just lost) they wait for that attempt.
        let _connecting = if outage {
            self.inner
                .connect_lock
                .try_lock()
                .map_err(|_| RedisFailure::Unreachable)?
        } else {
            tokio::time::timeout(self.inner.connect_timeout, self.inner.connect_lock.lock())
                .await
                .map_err(|_| RedisFailure::ConnectTimeout)?
        };
        // Another task may have connected (or failed) while this one waited for the lock.
        if let Some(settled) = lock(&self.inner.state).settled() {
            return settled;
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
                Err(RedisFailure::Unreachable)
            }
            Err(_) => {
                if state.last_failure.is_none() {
                    tracing::warn!("connecting to redis timed out");
                }
                state.last_failure = Some(Instant::now());
                Err(RedisFailure::ConnectTimeout)
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
    ) -> Result<T, RedisFailure> {
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
                Err(RedisFailure::Command(e.kind()))
            }
            Err(_) => {
                self.discard();
                Err(RedisFailure::CommandTimeout)
            }
        }
    }

    /// Runs one command within the command timeout.
    pub(crate) async fn query<T: FromRedisValue + Send>(
        &self,
        cmd: &Cmd,
    ) -> Result<T, RedisFailure> {
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
    pub(crate) async fn run_script<T: FromRedisValue + Send>(
        &self,
        script: &Script,
        keys: &[&str],
        args: &[String],
    ) -> Result<T, RedisFailure> {
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
    pub(crate) async fn ping(&self) -> bool {
        self.query::<String>(&redis::cmd("PING"))
            .await
            .is_ok_and(|pong| pong == "PONG")
    }
}

/// A Redis configuration for unit tests: the given URL and a fresh key prefix, so that tests
/// sharing one Redis never see each other's keys.
#[cfg(test)]
pub(crate) fn test_config(url: &str) -> RedisConfig {
    RedisConfig {
        url: Some(url.to_owned()),
        key_prefix: format!("tarnkappe-test-{}:", uuid::Uuid::new_v4().simple()),
        ..RedisConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::test_config as config;
    use super::*;

    #[test]
    fn bad_urls_are_refused_without_echoing_them() {
        let err = RedisClient::new(&config("http://user:hunter2@example.org"))
            .err()
            .unwrap();
        let message = err.to_string();
        assert!(!message.contains("hunter2"));
        assert!(message.contains("redis.url"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_silent_redis_does_not_make_every_request_wait() {
        // Accepts connections (kernel backlog) but never answers: like a hung or black-holed host.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = silent.local_addr().unwrap().port();
        let mut cfg = config(&format!("redis://127.0.0.1:{port}"));
        cfg.connect_timeout_ms = 300;
        cfg.command_timeout_ms = 300;
        let client = RedisClient::new(&cfg).unwrap();
        for round in 0..3 {
            let started = Instant::now();
            let tasks: Vec<_> = (0..20)
                .map(|_| {
                    let client = client.clone();
                    tokio::spawn(async move {
                        client
                            .query::<Option<Vec<u8>>>(redis::cmd("GET").arg("k"))
                            .await
                    })
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
}
