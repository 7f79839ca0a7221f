//! The bare pingora pass-through, the yardstick of the load benches: an empty `ProxyHttp` that
//! only names the upstream (same pingora crate and features, same number of threads), run as
//! its own process — the bench binary started again with [`BARE_ENV`] — so that its CPU time is
//! measured like the proxy's. It passes upgraded connections (WebSocket) through as bytes.

use std::net::SocketAddr;
use std::process::Command;

use super::service::{self, free_addr, Service};

struct Bare {
    upstream: SocketAddr,
}

#[async_trait::async_trait]
impl pingora::proxy::ProxyHttp for Bare {
    type CTX = ();

    fn new_ctx(&self) {}

    async fn upstream_peer(
        &self,
        _session: &mut pingora::proxy::Session,
        _ctx: &mut (),
    ) -> pingora::Result<Box<pingora::upstreams::peer::HttpPeer>> {
        Ok(Box::new(pingora::upstreams::peer::HttpPeer::new(
            self.upstream,
            false,
            String::new(),
        )))
    }
}

struct Never;

#[async_trait::async_trait]
impl pingora::server::ShutdownSignalWatch for Never {
    async fn recv(&self) -> pingora::server::ShutdownSignal {
        std::future::pending().await
    }
}

/// The environment variable that makes a bench binary the bare pass-through: `upstream,listen`.
pub const BARE_ENV: &str = "TARNKAPPE_LOAD_BARE";

/// Runs the bare pass-through until killed: threads and work stealing as the proxy's defaults
/// (`server.threads = 2`, `server.work_stealing = false`; TARNKAPPE_LOAD_BARE_STEALING=1 turns
/// stealing on, pingora's own default), pingora's defaults otherwise.
pub fn run_bare(spec: &str) {
    let (upstream, listen) = spec.split_once(',').expect("upstream,listen");
    let upstream: SocketAddr = upstream.parse().expect("upstream address");
    let conf = pingora::server::configuration::ServerConf {
        threads: 2,
        work_stealing: std::env::var("TARNKAPPE_LOAD_BARE_STEALING").is_ok_and(|v| v == "1"),
        ..Default::default()
    };
    let mut server = pingora::server::Server::new_with_opt_and_conf(None, conf);
    server.bootstrap();
    if std::env::var("TARNKAPPE_LOAD_BARE_PER_THREAD").is_ok_and(|v| v == "1") {
        // the proxy's own topology (src/server.rs): a one-thread service per worker thread on
        // one SO_REUSEPORT port, each with its own upstream pool
        for _ in 0..2 {
            let mut service =
                pingora::proxy::http_proxy_service(&server.configuration, Bare { upstream });
            service.threads = Some(1);
            let mut socket = pingora::listeners::TcpSocketOptions::default();
            socket.so_reuseport = Some(true);
            service.add_tcp_with_settings(listen, socket);
            server.add_service(service);
        }
    } else {
        let mut service =
            pingora::proxy::http_proxy_service(&server.configuration, Bare { upstream });
        service.add_tcp(listen);
        server.add_service(service);
    }
    server.run(pingora::server::RunArgs {
        shutdown_signal: Box::new(Never),
    });
}

/// Starts the bare pass-through as a child process (this binary again) on a free port.
pub fn start_bare(upstream: SocketAddr) -> Service {
    let addr = free_addr();
    let mut command = Command::new(std::env::current_exe().expect("own path"));
    command.env(BARE_ENV, format!("{upstream},{addr}"));
    service::start(command, addr, "bare pass-through")
}
