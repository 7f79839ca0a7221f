//! Taking the client's connection out of pingora after the 101: pingora 0.9 has no upgrade
//! hook for a locally answered request, but its HTTP/1 session gives its stream up
//! (`into_inner`). A stand-in session takes its place, with the same request line and the
//! same 101 written, so that pingora's logging and finish see a complete exchange.

use pingora::http::ResponseHeader;
use pingora::prelude::*;
use pingora::protocols::http::ServerSession;
use pingora::protocols::Stream;
use pingora::proxy::Session;
use tokio::io::AsyncWriteExt;

/// Room for the stand-in's request line and the 101 it writes.
const STAND_IN_BUFFER: usize = 16 * 1024;

/// Answers `accept` (the 101) and returns the client's raw stream, flushed.
pub(super) async fn detach(session: &mut Session, accept: ResponseHeader) -> Result<Stream> {
    session.set_keepalive(None);
    session
        .write_response_header(Box::new(accept.clone()), false)
        .await?;
    let path = session.req_header().uri.path().to_owned();
    let (mut near, far) = tokio::io::duplex(STAND_IN_BUFFER);
    // the path only: a query string may hold a key, and the stand-in's line is logged
    let line = format!("GET {path} HTTP/1.1\r\nhost: tarnkappe\r\nconnection: close\r\n\r\n");
    near.write_all(line.as_bytes())
        .await
        .or_err(ErrorType::InternalError, "stand-in session")?;
    let mut stand_in = ServerSession::new_http1(Box::new(far));
    stand_in.read_request().await?;
    stand_in.write_response_header(Box::new(accept)).await?;
    stand_in.set_keepalive(None);
    let real = std::mem::replace(&mut *session.downstream_session, stand_in);
    let ServerSession::H1(real) = real else {
        return Error::e_explain(
            ErrorType::InternalError,
            "WebSocket over a non-HTTP/1 session",
        );
    };
    let mut stream = real.into_inner();
    stream
        .flush()
        .await
        .or_err(ErrorType::WriteError, "flushing the 101")?;
    Ok(stream)
}
