//! The upstream side of a proxied request: the peer to connect to, and the request header it
//! receives (the path under the upstream's base, `Host`, the body's framing, Tarnkappe's own
//! credentials out, the route's credential in).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use pingora::http::RequestHeader;
use pingora::prelude::*;

use super::ctx::RequestCtx;
use super::routes::Upstream;
use crate::access::KeyRing;

/// The upstream timeouts of every peer (`[upstream]` in the configuration).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    pub connect: Duration,
    pub read: Duration,
}

/// The peer for `upstream` at its resolved `addr` (resolved off the request path: pingora's
/// own lookup blocks).
pub(crate) fn peer(addr: SocketAddr, upstream: &Upstream, t: Timeouts) -> HttpPeer {
    let mut peer = HttpPeer::new(addr, upstream.tls, upstream.host.clone());
    peer.options.connection_timeout = Some(t.connect);
    peer.options.total_connection_timeout = Some(t.connect * 2);
    // none by default in pingora: an upstream that never answers would hold the request forever
    peer.options.read_timeout = Some(t.read);
    peer
}

/// Rewrites the header of the request bound upstream (`upstream_request_filter`).
pub(crate) fn rewrite_header(
    req: &mut RequestHeader,
    ctx: &RequestCtx,
    keys: &KeyRing,
) -> Result<()> {
    let Some(route) = ctx.route.as_ref() else {
        return Ok(());
    };
    let pq = req.uri.path_and_query().map_or("/", |p| p.as_str());
    let target = format!("{}{}", route.upstream.base_path, pq);
    let uri = target
        .parse::<http::Uri>()
        .map_err(|_| Error::explain(ErrorType::InternalError, "invalid upstream path"))?;
    req.set_uri(uri);
    // pingora forwards the client's Host unchanged
    req.insert_header("host", route.upstream.authority.as_str())?;
    if ctx.body_consumed {
        req.remove_header("expect");
        frame_rewritten_body(req, ctx.body.as_ref())?;
    }
    // a compressed reply could not be restored
    req.insert_header("accept-encoding", "identity")?;
    strip_own_credentials(req, route.require_key, keys)?;
    if let Some((name, value)) = &route.credential {
        req.insert_header(name.clone(), value.as_str())?;
    }
    Ok(())
}

/// Frames the body that replaces the client's. A body rewritten before the upstream request
/// (`body`) has a known length: sent with `Content-Length`, it goes out in one write, where
/// chunked framing costs a second write for the last chunk (and an upstream parses less). A
/// deferred body is rewritten only after the header is sent, so it goes out chunked (pingora
/// chooses chunked when neither header is present).
fn frame_rewritten_body(req: &mut RequestHeader, body: Option<&Bytes>) -> Result<()> {
    req.remove_header("content-length");
    req.remove_header("transfer-encoding");
    if let Some(body) = body {
        req.insert_header("content-length", body.len().to_string())?;
    }
    Ok(())
}

/// Removes Tarnkappe's own credentials from a request bound upstream: the web page's tenant
/// cookie (other cookies stay), and `X-API-Key` when it is ours — always on a route that
/// requires a key (there the header is the proxy key by definition), elsewhere when its value is
/// one of the configured keys. Any other `X-API-Key` is the provider's credential (Anthropic)
/// and passes unchanged.
fn strip_own_credentials(req: &mut RequestHeader, keyed_route: bool, keys: &KeyRing) -> Result<()> {
    let presented: Vec<http::HeaderValue> =
        req.headers.get_all("x-api-key").iter().cloned().collect();
    let kept: Vec<http::HeaderValue> = presented
        .iter()
        .filter(|v| !keyed_route && !keys.holds(v.as_bytes()))
        .cloned()
        .collect();
    if kept.len() != presented.len() {
        req.remove_header("x-api-key");
        for v in kept {
            req.append_header("x-api-key", v)?;
        }
    }
    let ours = |pair: &str| {
        pair.split_once('=')
            .is_some_and(|(name, _)| name.trim() == crate::access::COOKIE_NAME)
    };
    let holds_ours = req
        .headers
        .get_all(http::header::COOKIE)
        .iter()
        .any(|h| h.to_str().map_or(true, |h| h.split(';').any(ours)));
    if !holds_ours {
        return Ok(());
    }
    let cookies: Vec<http::HeaderValue> = req
        .headers
        .get_all(http::header::COOKIE)
        .iter()
        .cloned()
        .collect();
    req.remove_header(http::header::COOKIE.as_str());
    for h in &cookies {
        // A header that is not visible ASCII cannot be split safely: it is dropped whole.
        let Ok(h) = h.to_str() else { continue };
        let rest: Vec<&str> = h
            .split(';')
            .map(str::trim)
            .filter(|p| !p.is_empty() && !ours(p))
            .collect();
        if !rest.is_empty() {
            req.append_header(http::header::COOKIE.as_str(), rest.join("; "))?;
        }
    }
    Ok(())
}
