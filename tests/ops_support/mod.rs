//! Helpers of the `ops_*` integration tests: the shared Redis on 127.0.0.1:6379 (which `.ci/run`
//! starts; tests that need it fail when it is missing) and private `redis-server` processes that
//! a test may stop and start.

#![allow(dead_code)]

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The shared Redis of CI and development machines.
pub const SHARED_REDIS: &str = "redis://127.0.0.1:6379";

/// A key prefix unique to this test run, so that parallel tests never see each other's keys.
pub fn unique_prefix(test: &str) -> String {
    format!("tarnkappe-test:{test}:{}:", uuid::Uuid::new_v4().simple())
}

/// A blocking connection to the shared Redis; panics (the test fails) when it is not running.
pub fn shared_redis() -> redis::Connection {
    let client = redis::Client::open(SHARED_REDIS).expect("redis url");
    client
        .get_connection_with_timeout(Duration::from_secs(2))
        .expect("a Redis server must listen on 127.0.0.1:6379 (scripts/setup starts one)")
}

/// Deletes every key under `prefix` (never anything else).
pub fn delete_prefix(conn: &mut redis::Connection, prefix: &str) {
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query(conn)
        .unwrap_or_default();
    for k in keys {
        let _: Result<i64, _> = redis::cmd("DEL").arg(k).query(conn);
    }
}

/// A `redis-server` of this test alone, on its own port, without persistence.
pub struct PrivateRedis {
    pub port: u16,
    child: Option<Child>,
    _dir: tempfile::TempDir,
    dir: PathBuf,
}

fn redis_server_binary() -> String {
    for candidate in ["/usr/bin/redis-server", "/usr/local/bin/redis-server"] {
        if std::path::Path::new(candidate).exists() {
            return candidate.to_owned();
        }
    }
    "redis-server".to_owned()
}

impl PrivateRedis {
    pub fn start() -> PrivateRedis {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("free port");
        let mut redis = PrivateRedis {
            port,
            child: None,
            dir: dir.path().to_path_buf(),
            _dir: dir,
        };
        redis.resume();
        redis
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// (Re)starts the server on the same port and waits until it answers PING.
    pub fn resume(&mut self) {
        assert!(self.child.is_none(), "already running");
        let child = Command::new(redis_server_binary())
            .args([
                "--port",
                &self.port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
            ])
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server must be installed (scripts/setup installs it)");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(client) = redis::Client::open(self.url()) {
                if let Ok(mut c) = client.get_connection_with_timeout(Duration::from_millis(200)) {
                    if redis::cmd("PING").query::<String>(&mut c).is_ok() {
                        return;
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("private redis-server on port {} did not start", self.port);
    }

    /// Kills the server and waits until its port refuses connections.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if TcpStream::connect(("127.0.0.1", self.port)).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("private redis-server on port {} did not stop", self.port);
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A base64 AES-256 key shared by the replicas of one test.
pub const ENCRYPTION_KEY: &str = "VGFybmthcHBlIHRlc3Qga2V5IC0gMzIgYnl0ZXMgISE=";

/// Writes the embedded default configuration with `replacements` (exact `from` → `to` line
/// edits, each of which must apply) into `dir`, for `tarnkappe serve --config`.
pub fn config_file(dir: &std::path::Path, replacements: &[(&str, &str)]) -> PathBuf {
    let mut toml = tarnkappe::config::DEFAULT_TOML.to_owned();
    for (from, to) in replacements {
        assert!(
            toml.contains(from),
            "the default config has no line {from:?}"
        );
        toml = toml.replacen(from, to, 1);
    }
    let path = dir.join("proxy.toml");
    std::fs::write(&path, toml).expect("write config");
    path
}
