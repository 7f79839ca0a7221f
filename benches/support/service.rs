//! The service binary (or a bench binary in another role) as a child process of a bench,
//! listening on a free loopback port.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a started process may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A child process listening on `addr`, killed when dropped.
pub struct Service {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback address whose port was free a moment ago.
pub fn free_addr() -> SocketAddr {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    format!("127.0.0.1:{port}").parse().expect("addr")
}

/// The service binary of this build, or TARNKAPPE_LOAD_BIN (another build, to compare builds in
/// one sitting, or a wrapper that runs it under a profiler).
pub fn proxy_bin() -> String {
    std::env::var("TARNKAPPE_LOAD_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_tarnkappe").to_owned())
}

/// `bin serve` on a free port with the extra environment `env`, once it accepts connections.
pub fn serve(bin: &str, env: &[(&str, String)]) -> Service {
    let addr = free_addr();
    let mut command = Command::new(bin);
    command
        .arg("serve")
        .env("TARNKAPPE_LISTEN", addr.to_string());
    for (name, value) in env {
        command.env(name, value);
    }
    start(command, addr, "tarnkappe")
}

/// Runs `command` (its output discarded), which is to listen on `addr`, and waits until it
/// does; `what` names it when it does not.
pub fn start(mut command: Command, addr: SocketAddr, what: &str) -> Service {
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    let service = Service { child, addr };
    let deadline = Instant::now() + START_TIMEOUT;
    while TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "{what} did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    service
}
