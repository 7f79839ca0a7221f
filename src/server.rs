//! Assembles the pingora `Server`: the HTTP service on the configured listener whose
//! `ProxyHttp` is [`Gateway`].
//!
//! # One service per worker thread
//!
//! Without work stealing (the default) pingora gives every worker thread a runtime of its own,
//! but places work on them at random: each accepted connection is spawned on a random thread,
//! and so is the idle watcher of every upstream connection put back into the keep-alive pool,
//! which all threads share. A request would then usually cross threads: the watcher on the
//! other thread wakes to hand the pooled connection back, a socket registered with the other
//! thread's reactor needs that thread to report it ready, and now and then the hand-back loses
//! the race and a fresh upstream connection is opened. So every worker thread runs a service
//! of its own: one thread, its own listening socket on the same address (`SO_REUSEPORT`: the
//! kernel spreads the connections over them), its own upstream pool. A connection, its
//! upstream connections and their watchers stay on one thread (figures: docs/performance.md,
//! "Worker threads"). With work stealing on, or one thread, there is nothing to keep together:
//! one service runs them all.
//!
//! `SO_REUSEPORT` would also let a second process of the same user share the port without a
//! word, so the address is claimed first ([`Claim`]): a port in use is a start error.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use pingora::listeners::TcpSocketOptions;
use pingora::server::configuration::ServerConf;
use pingora::server::{RunArgs, Server};
use pingora::services::listening::Service;
use socket2::{Domain, Socket, Type};

use crate::app::App;
use crate::gateway::Gateway;
use crate::proxy::routes::RouteError;
use crate::slow_clients::Guarded;

/// Why the server cannot start (each names the configuration key at fault).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("invalid proxy {0}")]
    Route(#[from] RouteError),
    /// The listen address is taken (or not ours to bind): refused at once rather than shared.
    #[error("server.listen: cannot listen on {addr}: {source}")]
    Listen {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
}

/// A server ready to run, and the claim on its port, held until it stops.
pub(crate) struct Ready {
    pub server: Server,
    _claim: Claim,
}

/// Builds a ready-to-run server for `app`.
pub(crate) fn build(app: Arc<App>) -> Result<Ready, StartError> {
    let config = &app.config;
    let threads = config.server.threads.max(1);
    let per_thread = !config.server.work_stealing && threads > 1;
    let claim = Claim::new(config.listen_addr()?, per_thread)?;
    // Before pingora starts anything: a bad route is a start-up error, not a panic.
    let gateway = Gateway::try_new(app.clone())?;
    let conf = ServerConf {
        threads,
        work_stealing: config.server.work_stealing,
        grace_period_seconds: Some(config.server.grace_period_seconds),
        graceful_shutdown_timeout_seconds: Some(config.server.grace_period_seconds.max(1)),
        ca_file: config.upstream.ca_file.clone(),
        ..ServerConf::default()
    };
    let mut server = Server::new_with_opt_and_conf(None, conf);
    server.bootstrap();
    // every connection is wrapped for the client header deadline (`slow_clients`)
    let header_timeout = Duration::from_millis(config.server.client_header_timeout_ms.max(1));
    let addr = claim.addr.to_string();
    if per_thread {
        for i in 0..threads {
            let proxy = pingora::proxy::http_proxy(&server.configuration, gateway.clone());
            let mut service = Service::new(
                format!("tarnkappe-{i}"),
                Guarded::new(proxy, header_timeout),
            );
            service.threads = Some(1);
            let mut socket = TcpSocketOptions::default();
            socket.so_reuseport = Some(true);
            service.add_tcp_with_settings(&spelled(claim.addr, i), socket);
            server.add_service(service);
        }
    } else {
        let proxy = pingora::proxy::http_proxy(&server.configuration, gateway);
        let mut service = Service::new("tarnkappe".to_owned(), Guarded::new(proxy, header_timeout));
        service.add_tcp(&addr);
        server.add_service(service);
    }
    Ok(Ready {
        server,
        _claim: claim,
    })
}

/// `addr` written with `i` zeros before the port: the same address, a different string.
///
/// Pingora keeps its listening sockets in one table keyed by the address as written (for
/// handing them to a new process on upgrade) and gives a service the socket already in the
/// table under its string, owned twice: the services would share one socket, and the first to
/// stop would close it under the others. A spelling of its own per service gives each its own
/// socket.
fn spelled(addr: SocketAddr, i: usize) -> String {
    let written = addr.to_string();
    let (host, port) = written.rsplit_once(':').unwrap_or((written.as_str(), ""));
    format!("{host}:{}{port}", "0".repeat(i))
}

/// The listen address, checked before pingora binds it.
///
/// A fixed port is bound once without `SO_REUSEPORT` and released: that fails when any socket
/// holds the port, which pingora's shared binds alone would not notice. Port 0 (any free
/// port) for several services is made concrete by a socket that joins their `SO_REUSEPORT`
/// group and stays bound while the server runs, so the port cannot go to another process in
/// between; it never listens, so it takes no connections.
struct Claim {
    addr: SocketAddr,
    _held: Option<Socket>,
}

impl Claim {
    fn new(addr: SocketAddr, shared: bool) -> Result<Claim, StartError> {
        let refused = |source| StartError::Listen { addr, source };
        if addr.port() != 0 {
            TcpListener::bind(addr).map_err(refused)?;
            return Ok(Claim { addr, _held: None });
        }
        if !shared {
            return Ok(Claim { addr, _held: None });
        }
        let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None).map_err(refused)?;
        socket.set_reuse_port(true).map_err(refused)?;
        socket.bind(&addr.into()).map_err(refused)?;
        let bound = socket.local_addr().map_err(refused)?.as_socket();
        let addr = bound.ok_or_else(|| refused(std::io::ErrorKind::AddrNotAvailable.into()))?;
        Ok(Claim {
            addr,
            _held: Some(socket),
        })
    }
}

/// Runs until SIGTERM (graceful) or SIGINT (immediate).
pub fn run(app: Arc<App>) -> Result<(), StartError> {
    let ready = build(app)?;
    ready.server.run(RunArgs::default());
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::net::ToSocketAddrs;

    use super::*;

    #[test]
    fn a_taken_port_is_refused_and_a_free_one_passes() {
        let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = taken.local_addr().expect("addr");
        for shared in [false, true] {
            let err = Claim::new(addr, shared).err().expect("in use");
            let message = err.to_string();
            assert!(message.starts_with(&format!("server.listen: cannot listen on {addr}")));
        }
        drop(taken);
        assert_eq!(Claim::new(addr, true).expect("free again").addr, addr);
    }

    #[test]
    fn every_spelling_is_the_same_address() {
        for addr in ["127.0.0.1:8080", "[::1]:443", "[fe80::1%2]:9"] {
            let addr: SocketAddr = addr.parse().expect("addr");
            let spellings: Vec<String> = (0..16).map(|i| spelled(addr, i)).collect();
            assert_eq!(spellings[0], addr.to_string());
            for s in &spellings {
                let again = s.to_socket_addrs().expect("parses").next().expect("one");
                assert_eq!(again, addr, "{s}");
            }
            let distinct: std::collections::HashSet<_> = spellings.iter().collect();
            assert_eq!(distinct.len(), spellings.len());
        }
    }

    #[test]
    fn port_zero_for_several_services_is_made_concrete_and_can_be_shared() {
        let any: SocketAddr = "127.0.0.1:0".parse().expect("addr");
        assert_eq!(Claim::new(any, false).expect("one service").addr, any);
        let claim = Claim::new(any, true).expect("claimed");
        assert_ne!(claim.addr.port(), 0);
        // pingora's sockets join the group (SO_REUSEPORT) ...
        let joined = Socket::new(Domain::IPV4, Type::STREAM, None).expect("socket");
        joined.set_reuse_port(true).expect("reuseport");
        joined
            .bind(&claim.addr.into())
            .expect("joins the claimed port");
        // ... a socket without it cannot take the port
        assert!(TcpListener::bind(claim.addr).is_err());
    }
}
