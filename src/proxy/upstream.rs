//! The upstream side of a proxied request: the peer to connect to, and the request header it
//! receives (the path under the upstream's base, `Host`, the body's framing, the headers and
//! query string as [`super::edges`] decided, the web page's cookie out, the route's credential
//! in).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use pingora::http::RequestHeader;
use pingora::prelude::*;

use super::ctx::RequestCtx;
use super::routes::Upstream;

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
pub(crate) fn rewrite_header(req: &mut RequestHeader, ctx: &mut RequestCtx) -> Result<()> {
    let Some(route) = ctx.route.clone() else {
        return Ok(());
    };
    if ctx.edges.is_none() {
        // fail closed: headers and query that were never screened do not go out
        return Err(Error::explain(
            ErrorType::InternalError,
            "request edges not screened",
        ));
    }
    let query = super::edges::apply(req, &mut ctx.edges)?;
    let path = req.uri.path();
    let target = match (query, req.uri.query()) {
        (Some(q), _) if q.is_empty() => format!("{}{path}", route.upstream.base_path),
        (Some(q), _) => format!("{}{path}?{q}", route.upstream.base_path),
        (None, _) => {
            let pq = req.uri.path_and_query().map_or("/", |p| p.as_str());
            format!("{}{pq}", route.upstream.base_path)
        }
    };
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
    strip_tenant_cookie(req)?;
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

/// Removes the web page's tenant cookie from a request bound upstream (other cookies stay).
/// Tarnkappe's keys are taken out with the other edges ([`super::edges`]).
fn strip_tenant_cookie(req: &mut RequestHeader) -> Result<()> {
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
