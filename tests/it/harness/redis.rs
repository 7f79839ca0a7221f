//! Redis for the tests: the shared server on 127.0.0.1:6379 (which `scripts/setup` starts; tests
//! that need it fail when it is missing), and private `redis-server` processes (plain, TLS, a
//! three-node cluster) that a test may stop and start.

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::server::free_port;

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
    /// Serve TLS only (a self-signed certificate made with `openssl`).
    tls: bool,
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
        PrivateRedis::start_with(false)
    }

    /// A private server that speaks TLS only (`rediss://`).
    pub fn start_tls() -> PrivateRedis {
        PrivateRedis::start_with(true)
    }

    fn start_with(tls: bool) -> PrivateRedis {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let mut redis = PrivateRedis {
            port,
            child: None,
            dir: dir.path().to_path_buf(),
            _dir: dir,
            tls,
        };
        if tls {
            crate::harness::tls::make_certificates(&redis.dir);
        }
        redis.resume();
        redis
    }

    /// `redis://127.0.0.1:<port>`, or `rediss://…` for a TLS server.
    pub fn url(&self) -> String {
        if self.tls {
            format!("rediss://127.0.0.1:{}", self.port)
        } else {
            format!("redis://127.0.0.1:{}", self.port)
        }
    }

    /// (Re)starts the server on the same port and waits until it answers PING.
    pub fn resume(&mut self) {
        assert!(self.child.is_none(), "already running");
        let mut cmd = Command::new(redis_server_binary());
        cmd.args([
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
        ])
        .arg(&self.dir);
        if self.tls {
            cmd.args(["--port", "0", "--tls-port", &self.port.to_string()])
                .arg("--tls-cert-file")
                .arg(self.dir.join("cert.pem"))
                .arg("--tls-key-file")
                .arg(self.dir.join("key.pem"))
                .args(["--tls-auth-clients", "no"]);
        } else {
            cmd.args(["--port", &self.port.to_string()]);
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server must be installed (scripts/setup installs it)");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let up = if self.tls {
                // The test's own client has no TLS: a listening port is enough here.
                TcpStream::connect(("127.0.0.1", self.port)).is_ok()
            } else {
                redis::Client::open(self.url())
                    .and_then(|c| c.get_connection_with_timeout(Duration::from_millis(200)))
                    .is_ok_and(|mut c| redis::cmd("PING").query::<String>(&mut c).is_ok())
            };
            if up {
                return;
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

    /// The PEM of the private CA that signed a TLS server's certificate.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.join("ca.pem")
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

/// A Redis Cluster of three private masters (no replicas), for the `cluster = true` option.
pub struct PrivateCluster {
    pub ports: Vec<u16>,
    children: Vec<Child>,
    _dir: tempfile::TempDir,
}

impl PrivateCluster {
    /// Three cluster nodes on free ports. Ports are picked, released and then bound by the
    /// nodes (and port + 10000 by their cluster bus), so a parallel test may take one in
    /// between: a failed start is retried on new ports.
    pub fn start() -> PrivateCluster {
        let mut last_error = String::new();
        for _ in 0..3 {
            match PrivateCluster::try_start() {
                Ok(cluster) => return cluster,
                Err(e) => last_error = e,
            }
        }
        panic!("redis cluster did not start: {last_error}");
    }

    fn try_start() -> Result<PrivateCluster, String> {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut ports = Vec::new();
        let mut children = Vec::new();
        for i in 0..3 {
            // Cluster nodes also listen on port + 10000: pick ports where both are free.
            let port = loop {
                let p = free_port();
                if p < 55_000 && std::net::TcpListener::bind(("127.0.0.1", p + 10_000)).is_ok() {
                    break p;
                }
            };
            let node_dir = dir.path().join(format!("node{i}"));
            std::fs::create_dir_all(&node_dir).expect("node dir");
            let child = Command::new(redis_server_binary())
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args([
                    "--cluster-enabled",
                    "yes",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ])
                .arg("--dir")
                .arg(&node_dir)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server");
            ports.push(port);
            children.push(child);
        }
        let cluster = PrivateCluster {
            ports,
            children,
            _dir: dir,
        };
        for &p in &cluster.ports {
            let deadline = Instant::now() + Duration::from_secs(10);
            while TcpStream::connect(("127.0.0.1", p)).is_err() {
                if Instant::now() > deadline {
                    return Err(format!("cluster node on port {p} did not start"));
                }
                std::thread::sleep(Duration::from_millis(25));
            }
        }
        let nodes: Vec<String> = cluster
            .ports
            .iter()
            .map(|p| format!("127.0.0.1:{p}"))
            .collect();
        let created = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&nodes)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .output()
            .expect("redis-cli");
        if !created.status.success() {
            return Err(format!(
                "redis-cli --cluster create failed: {}{}",
                String::from_utf8_lossy(&created.stdout),
                String::from_utf8_lossy(&created.stderr)
            ));
        }
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let ok = cluster.ports.iter().all(|p| {
                redis::Client::open(format!("redis://127.0.0.1:{p}"))
                    .and_then(|c| c.get_connection_with_timeout(Duration::from_millis(200)))
                    .and_then(|mut c| redis::cmd("CLUSTER").arg("INFO").query::<String>(&mut c))
                    .is_ok_and(|info| info.contains("cluster_state:ok"))
            });
            if ok {
                break;
            }
            if Instant::now() > deadline {
                return Err("the cluster did not become ok".to_owned());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(cluster)
    }

    /// Seed nodes, comma-separated, as `[redis] url` takes them with `cluster = true`.
    pub fn url(&self) -> String {
        self.ports
            .iter()
            .map(|p| format!("redis://127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
