//! Test harness shared by the integration tests: runs the real `tarnkappe` binary on a free
//! loopback port and talks to it over real HTTP.

#![allow(dead_code)]

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `tarnkappe serve`, stopped (SIGTERM, then kill) when dropped. Its stderr (the
/// logs) is captured in a file so that tests can inspect it.
pub struct TestServer {
    pub addr: SocketAddr,
    child: Child,
    log_path: PathBuf,
    _dir: tempfile::TempDir,
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind an ephemeral loopback port")
}

impl TestServer {
    /// Starts the binary with the embedded defaults plus `env`; `TARNKAPPE_LISTEN` is chosen here.
    pub fn start(env: &[(&str, &str)]) -> TestServer {
        TestServer::start_with_args(env, &[])
    }

    /// Like [`TestServer::start`], with extra arguments to `tarnkappe serve` (e.g. `--config`).
    pub fn start_with_args(env: &[(&str, &str)], args: &[&str]) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let log_path = dir.path().join("server.log");
        let log = std::fs::File::create(&log_path).expect("log file");
        let port = free_port();
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tarnkappe"));
        cmd.arg("serve").args(args);
        cmd.env_clear();
        for key in ["PATH", "HOME", "RUST_BACKTRACE"] {
            if let Ok(v) = std::env::var(key) {
                cmd.env(key, v);
            }
        }
        cmd.env("TARNKAPPE_LISTEN", addr.to_string());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("spawn tarnkappe");
        let mut server = TestServer {
            addr,
            child,
            log_path,
            _dir: dir,
        };
        server.wait_until_listening();
        server
    }

    fn wait_until_listening(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("tarnkappe exited early with {status}; log:\n{}", self.log());
            }
            if TcpStream::connect_timeout(&self.addr, Duration::from_millis(100)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "tarnkappe did not listen on {} within 20 s; log:\n{}",
            self.addr,
            self.log()
        );
    }

    /// `http://127.0.0.1:PORT` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Everything the server wrote to stderr so far.
    pub fn log(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log_path) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }

    /// Sends SIGTERM and waits up to `timeout` for the process to exit; returns whether it did.
    pub fn terminate(&mut self, timeout: Duration) -> bool {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A blocking HTTP client without proxies or connection reuse surprises.
pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("http client")
}
