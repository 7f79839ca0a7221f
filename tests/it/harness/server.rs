//! The real `tarnkappe` binary, started on a free loopback port for a test and stopped after it.
//!
//! The server binds port 0 itself and the harness reads the port it got from `/proc`: a port
//! picked here and released before the server binds could be taken in between (by a fake
//! upstream of a test running in parallel), and the test would then talk to that instead.

use std::collections::HashSet;
use std::io::Read;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running `tarnkappe serve`, stopped (SIGTERM, then kill) when dropped. Its stderr (the
/// logs) is captured in a file so that tests can inspect it.
pub struct TestServer {
    pub addr: SocketAddr,
    child: Child,
    log_path: PathBuf,
    _dir: tempfile::TempDir,
    /// The folder of the `--config` file of [`TestServer::start_with_config`].
    _config: Option<tempfile::TempDir>,
}

/// Runs `tarnkappe serve` with `args` and only `env` (plus a loopback listen address), for a
/// start that must be refused: its exit status and stderr. Panics when it still runs after 20 s.
pub fn refused_start(env: &[(&str, &str)], args: &[&str]) -> (ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tarnkappe"))
        .arg("serve")
        .args(args)
        .env_clear()
        .env("TARNKAPPE_LISTEN", "127.0.0.1:0")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tarnkappe");
    // Read stderr beside the wait, so that a long message cannot fill the pipe and stall it.
    let mut pipe = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut err = String::new();
        let _ = pipe.read_to_string(&mut err);
        err
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tarnkappe serve {args:?} kept running; the start should have been refused");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, reader.join().expect("stderr reader"))
}

/// A loopback port that was free a moment ago (for addresses nothing should listen on).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind an ephemeral loopback port")
}

impl TestServer {
    /// Starts the binary with the embedded defaults plus `env`; it listens on a port of its own
    /// choosing (`TARNKAPPE_LISTEN` port 0), found in `/proc` once it listens.
    pub fn start(env: &[(&str, &str)]) -> TestServer {
        TestServer::start_with_args(env, &[])
    }

    /// Like [`TestServer::start`], with extra arguments to `tarnkappe serve` (e.g. `--config`).
    pub fn start_with_args(env: &[(&str, &str)], args: &[&str]) -> TestServer {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tarnkappe"));
        cmd.arg("serve").args(args);
        cmd.env_clear();
        for key in ["PATH", "HOME", "RUST_BACKTRACE"] {
            if let Ok(v) = std::env::var(key) {
                cmd.env(key, v);
            }
        }
        cmd.env("TARNKAPPE_LISTEN", "127.0.0.1:0");
        for (k, v) in env {
            cmd.env(k, v);
        }
        TestServer::try_start_command(cmd).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like [`TestServer::start`], with `toml` as the configuration file (`--config`), kept
    /// until the server is dropped.
    pub fn start_with_config(env: &[(&str, &str)], toml: &str) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("proxy.toml");
        std::fs::write(&path, toml).expect("write config");
        let config = path.to_str().expect("utf-8 path");
        let mut server = TestServer::start_with_args(env, &["--config", config]);
        server._config = Some(dir);
        server
    }

    /// Starts `cmd` (program, arguments, environment and folder already set) with its stderr
    /// captured, and waits until it listens; `Err` (with the log) when it exits or does not
    /// listen within 20 s.
    pub fn try_start_command(mut cmd: Command) -> Result<TestServer, String> {
        let dir = tempfile::tempdir().expect("temp dir");
        let log_path = dir.path().join("server.log");
        let log = std::fs::File::create(&log_path).expect("log file");
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .spawn()
            .map_err(|e| format!("cannot spawn {:?}: {e}", cmd.get_program()))?;
        let mut server = TestServer {
            // replaced by the bound address in `wait_until_listening`
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            child,
            log_path,
            _dir: dir,
            _config: None,
        };
        server.wait_until_listening()?;
        Ok(server)
    }

    fn wait_until_listening(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "tarnkappe exited early with {status}; log:\n{}",
                    self.log()
                ));
            }
            if let Some(addr) = listening_addr(self.child.id()) {
                if TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_ok() {
                    self.addr = addr;
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(format!(
            "tarnkappe did not listen within 20 s; log:\n{}",
            self.log()
        ))
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

    /// The log once `cond` holds for it, or as it is after 10 s: an exchange's access line is
    /// written after the client has the whole reply, so a test that reads it right after a call
    /// waits here.
    pub fn log_when(&self, cond: impl Fn(&str) -> bool) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let log = self.log();
            if cond(&log) || std::time::Instant::now() > deadline {
                return log;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Sends SIGTERM (the orchestrator's stop signal) without waiting; returns whether `kill`
    /// delivered it.
    pub fn sigterm(&self) -> bool {
        Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Sends SIGTERM and waits up to `timeout` for the process to exit; returns whether it did.
    pub fn terminate(&mut self, timeout: Duration) -> bool {
        self.sigterm();
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[cfg(feature = "full-tier")]
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

/// The address of a TCP socket that process `pid` itself listens on; a wildcard address is
/// reached over loopback.
fn listening_addr(pid: u32) -> Option<SocketAddr> {
    let addr = listening_socket(pid)?;
    Some(match addr {
        SocketAddr::V4(a) if a.ip().is_unspecified() => (Ipv4Addr::LOCALHOST, a.port()).into(),
        SocketAddr::V6(a) if a.ip().is_unspecified() => (Ipv6Addr::LOCALHOST, a.port()).into(),
        a => a,
    })
}

/// The address a TCP socket of process `pid` listens on, as bound (a wildcard stays one):
/// its socket inodes (Linux `/proc`), matched against the listening rows of the TCP tables.
pub fn listening_socket(pid: u32) -> Option<SocketAddr> {
    let inodes: HashSet<u64> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|target| {
            let t = target.to_string_lossy().into_owned();
            t.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
        })
        .collect();
    for table in ["tcp", "tcp6"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        for row in text.lines().skip(1) {
            // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode
            let f: Vec<&str> = row.split_whitespace().collect();
            let (Some(local), Some(&"0A"), Some(inode)) = (f.get(1), f.get(3), f.get(9)) else {
                continue; // 0A: LISTEN
            };
            if !inode.parse().is_ok_and(|i: u64| inodes.contains(&i)) {
                continue;
            }
            let (ip, port) = local.split_once(':')?;
            let port = u16::from_str_radix(port, 16).ok()?;
            let ip = match (table, u32::from_str_radix(ip, 16)) {
                // IPv4 is printed as the host-order u32 of the network-order bytes
                ("tcp", Ok(v)) => Ipv4Addr::from(v.to_le_bytes()).into(),
                ("tcp", _) => return None,
                // IPv6: only whether it is the wildcard matters to the tests
                _ if ip.bytes().all(|b| b == b'0') => Ipv6Addr::UNSPECIFIED.into(),
                _ => Ipv6Addr::LOCALHOST.into(),
            };
            return Some(SocketAddr::new(ip, port));
        }
    }
    None
}
