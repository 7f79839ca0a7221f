//! The proxy's own socket to the route's upstream: `ws://` for an http upstream, `wss://` for
//! an https one (the same trust as pingora's upstreams: the platform's roots and
//! `upstream.ca_file`). The handshake carries the client's headers as an HTTP request would
//! have them upstream (`super::super::upstream::rewrite_header`: the edges screened, our key
//! out, the route's credential in), less the client's own handshake headers.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use pingora::http::RequestHeader;
use pingora::tls::{ClientConfig, RootCertStore};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

use super::super::ctx::RequestCtx;
use crate::app::App;

pub(super) type Upstream = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Why the upstream socket could not be opened (logged; the client gets a 502).
#[derive(Debug, thiserror::Error)]
pub(super) enum LinkError {
    #[error("the upstream request header cannot be built")]
    Header,
    #[error("connecting to the upstream timed out")]
    Timeout,
    #[error("connecting to the upstream: {0}")]
    Connect(#[from] std::io::Error),
    #[error("the upstream refused the WebSocket: {0}")]
    Handshake(#[from] tokio_tungstenite::tungstenite::Error),
    #[error("the upstream trust roots cannot be read")]
    Trust,
}

/// Headers of the client's handshake that are the client's own socket's, not the upstream's.
const OWN: [&str; 9] = [
    "host",
    "connection",
    "upgrade",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-extensions",
    "sec-websocket-accept",
    "content-length",
    "transfer-encoding",
];

/// Frames bounded like bodies: a message larger than `api.max_body_bytes` ends the socket.
pub(super) fn config(app: &App) -> WebSocketConfig {
    let cap = app.config.api.max_body_bytes;
    WebSocketConfig::default()
        .max_message_size(Some(cap))
        .max_frame_size(Some(cap))
}

/// Opens the upstream socket for the client's handshake `req`.
pub(super) async fn connect(
    app: &App,
    req: &RequestHeader,
    ctx: &mut RequestCtx,
) -> Result<Upstream, LinkError> {
    let Some(route) = ctx.route.clone() else {
        return Err(LinkError::Header);
    };
    let mut header = req.clone();
    super::super::upstream::rewrite_header(&mut header, ctx).map_err(|_| LinkError::Header)?;
    let up = &route.upstream;
    let scheme = if up.tls { "wss" } else { "ws" };
    let target = header.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("{scheme}://{}{target}", up.authority);
    let mut request = url.into_client_request()?;
    for (name, value) in header.headers.iter() {
        if !OWN.contains(&name.as_str()) {
            request.headers_mut().append(name.clone(), value.clone());
        }
    }
    let connect_ms = app.config.upstream.connect_timeout_ms.max(1);
    let wait = Duration::from_millis(connect_ms);
    let tcp = tokio::time::timeout(wait, TcpStream::connect((up.host.as_str(), up.port)))
        .await
        .map_err(|_| LinkError::Timeout)??;
    tcp.set_nodelay(true)?;
    let connector = if up.tls {
        Connector::Rustls(trust(app)?)
    } else {
        Connector::Plain
    };
    let handshake = tokio_tungstenite::client_async_tls_with_config(
        request,
        tcp,
        Some(config(app)),
        Some(connector),
    );
    let (socket, _) = tokio::time::timeout(wait * 2, handshake)
        .await
        .map_err(|_| LinkError::Timeout)??;
    Ok(socket)
}

/// The TLS client configuration of upstream sockets, built once.
fn trust(app: &App) -> Result<Arc<ClientConfig>, LinkError> {
    static CONFIG: OnceLock<Option<Arc<ClientConfig>>> = OnceLock::new();
    let built = CONFIG.get_or_init(|| {
        pingora::tls::install_default_crypto_provider();
        let mut roots = RootCertStore::empty();
        pingora::tls::load_platform_certs_incl_env_into_store(&mut roots).ok()?;
        if let Some(ca) = &app.config.upstream.ca_file {
            pingora::tls::load_ca_file_into_store(ca, &mut roots).ok()?;
        }
        let config = ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        Some(Arc::new(config))
    });
    built.clone().ok_or(LinkError::Trust)
}
