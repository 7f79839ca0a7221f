//! The load bench's outside parts: `nginx` as the upstream that answers a fixed chat completion,
//! and `wrk` as the load generator. Both are C programs running as their own processes, so the
//! client and the upstream spend little of the two cores that the proxy and the bare
//! pass-through compete for — the ratio they show is closer to a deployment's than that of a
//! client written in the bench itself. `scripts/setup` installs both (`TARNKAPPE_SETUP_TESTS=1`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::service::{self, free_addr, Service};

/// A scratch directory for the configuration, Lua and body files; removed on drop.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new() -> Scratch {
        let dir = std::env::temp_dir().join(format!("tarnkappe-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        Scratch(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// nginx answering every request on a free port with `reply` (JSON), one worker process, no
/// logs; once it accepts connections.
pub fn nginx(scratch: &Scratch, reply: &str) -> Service {
    let prefix = scratch.path("nginx");
    std::fs::create_dir_all(prefix.join("logs")).expect("nginx prefix");
    let addr = free_addr();
    // nginx's `return` takes the body as a quoted string: escape what the quotes need
    let body = reply.replace('\\', "\\\\").replace('\'', "\\'");
    let conf = format!(
        "worker_processes 1;\ndaemon off;\nmaster_process off;\nerror_log stderr error;\n\
         pid {pid};\nevents {{ worker_connections 4096; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {tmp}/body;\n\
           keepalive_requests 1000000;\n  client_max_body_size 64m;\n\
           server {{\n    listen {addr} backlog=4096;\n\
             location / {{ default_type application/json; return 200 '{body}'; }}\n  }}\n}}\n",
        pid = prefix.join("nginx.pid").display(),
        tmp = prefix.display(),
    );
    let conf_path = prefix.join("nginx.conf");
    std::fs::write(&conf_path, conf).expect("write nginx.conf");
    let mut command = Command::new(program("nginx", "/usr/sbin/nginx"));
    command.arg("-p").arg(&prefix).arg("-c").arg(&conf_path);
    // scripts/setup installs nginx with TARNKAPPE_SETUP_TESTS=1
    service::start(command, addr, "nginx")
}

/// What one `wrk` run measured.
#[derive(Debug, Clone, Copy)]
pub struct WrkRun {
    pub requests_per_second: f64,
    pub p50: Duration,
    pub p99: Duration,
    pub requests: u64,
}

/// Sends `POST /v1/chat/completions` with `body` (JSON) to `target` for `secs` (at least one
/// second) over `connections` keep-alive
/// connections from `threads` wrk threads. Panics when wrk fails or any answer is not 2xx: a
/// bench that measured errors would report nonsense.
pub fn wrk(
    scratch: &Scratch,
    target: SocketAddr,
    body: &str,
    connections: usize,
    threads: usize,
    secs: f64,
) -> WrkRun {
    let body_path = scratch.path("body.json");
    std::fs::write(&body_path, body).expect("write the body");
    let script = scratch.path("post.lua");
    std::fs::write(&script, lua_script(&body_path)).expect("write the wrk script");
    let out = Command::new(program("wrk", "/usr/bin/wrk"))
        .arg(format!("-t{threads}"))
        .arg(format!("-c{connections}"))
        // wrk takes whole seconds
        .arg(format!("-d{}s", secs.ceil().max(1.0) as u64))
        .arg("--latency")
        .arg("-s")
        .arg(&script)
        .arg(format!("http://{target}/v1/chat/completions"))
        .output()
        .expect("run wrk (scripts/setup installs it with TARNKAPPE_SETUP_TESTS=1)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "wrk failed: {text}");
    assert!(
        !text.contains("Non-2xx or 3xx responses"),
        "wrk saw error answers from {target}: {text}"
    );
    assert!(
        !text.contains("Socket errors"),
        "wrk saw socket errors on {target}: {text}"
    );
    parse_wrk(&text).unwrap_or_else(|| panic!("unreadable wrk output: {text}"))
}

fn lua_script(body_path: &Path) -> String {
    format!(
        "local f = assert(io.open(\"{}\", \"rb\"))\nwrk.method = \"POST\"\nwrk.body = f:read(\"*a\")\n\
         f:close()\nwrk.headers[\"Content-Type\"] = \"application/json\"\n\
         wrk.headers[\"Authorization\"] = \"Bearer sk-load-bench\"\n",
        body_path.display()
    )
}

/// Reads `Requests/sec:`, the `50%` and `99%` rows of `--latency` and the request count.
fn parse_wrk(text: &str) -> Option<WrkRun> {
    let mut rps = None;
    let mut p50 = None;
    let mut p99 = None;
    let mut requests = None;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("Requests/sec:"), Some(v)) => rps = v.parse().ok(),
            (Some("50%"), Some(v)) => p50 = parse_duration(v),
            (Some("99%"), Some(v)) => p99 = parse_duration(v),
            (Some(n), Some("requests")) => requests = n.parse().ok(),
            _ => {}
        }
    }
    Some(WrkRun {
        requests_per_second: rps?,
        p50: p50?,
        p99: p99?,
        requests: requests?,
    })
}

/// wrk prints durations as `123.45us`, `1.23ms`, `2.00s`.
fn parse_duration(v: &str) -> Option<Duration> {
    let split = v.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = v.split_at(split);
    let number: f64 = number.parse().ok()?;
    let seconds = match unit {
        "us" => number / 1e6,
        "ms" => number / 1e3,
        "s" => number,
        "m" => number * 60.0,
        _ => return None,
    };
    Some(Duration::from_secs_f64(seconds))
}

/// The program on PATH, else where Debian installs it.
fn program(name: &str, debian_path: &str) -> String {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        .unwrap_or(false);
    if on_path {
        name.to_owned()
    } else {
        debian_path.to_owned()
    }
}
