//! Assembles the pingora `Server`: one HTTP service on the configured listener whose
//! `ProxyHttp` is [`Gateway`].

use std::sync::Arc;
use std::time::Duration;

use pingora::server::configuration::ServerConf;
use pingora::server::{RunArgs, Server, ShutdownSignalWatch};
use pingora::services::listening::Service;

use crate::app::{App, StartError};
use crate::proxy::Gateway;
use crate::slow_clients::Guarded;

/// Builds a ready-to-run server for `app`.
pub fn build(app: Arc<App>) -> Result<Server, StartError> {
    let config = &app.config;
    let addr = config.listen_addr()?;
    // Before pingora starts anything: a bad route is a start-up error, not a panic.
    let gateway = Gateway::try_new(app.clone())?;
    let conf = ServerConf {
        threads: config.server.threads.max(1),
        work_stealing: config.server.work_stealing,
        grace_period_seconds: Some(config.server.grace_period_seconds),
        graceful_shutdown_timeout_seconds: Some(config.server.grace_period_seconds.max(1)),
        ca_file: config.upstream.ca_file.clone(),
        ..ServerConf::default()
    };
    let mut server = Server::new_with_opt_and_conf(None, conf);
    server.bootstrap();
    // every connection is wrapped for the client header deadline (`slow_clients`)
    let proxy = pingora::proxy::http_proxy(&server.configuration, gateway);
    let header_timeout = Duration::from_millis(config.server.client_header_timeout_ms.max(1));
    let mut service = Service::new("tarnkappe".to_owned(), Guarded::new(proxy, header_timeout));
    service.add_tcp(&addr.to_string());
    server.add_service(service);
    Ok(server)
}

/// Runs until SIGTERM (graceful) or SIGINT (immediate).
pub fn run(app: Arc<App>) -> Result<(), StartError> {
    build(app)?.run(RunArgs::default());
    Ok(())
}

/// Runs until `shutdown` fires; for embedding in tests and benches.
pub fn run_with_signal(
    app: Arc<App>,
    shutdown: Box<dyn ShutdownSignalWatch>,
) -> Result<(), StartError> {
    build(app)?.run(RunArgs {
        shutdown_signal: shutdown,
    });
    Ok(())
}
