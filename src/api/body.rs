//! Reading a request body under the byte cap: refused from `Content-Length` before a byte of the
//! body is read, and while reading when the length is not declared (chunked).

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use pingora::proxy::Session;

use super::error::ApiError;
pub use crate::http::Declared;

/// How far the body of a request was consumed; decides how the connection ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyState {
    /// Nothing read (an early answer, e.g. 401 or 413 from `Content-Length`).
    Untouched,
    /// Read to the end: the connection can be reused.
    Complete,
    /// Reading stopped in the middle (over the cap, broken framing): close after answering.
    Abandoned,
}

const TOO_LARGE: &str = "The request body is larger than the configured limit.";

/// 413 when the declared length exceeds `cap` (decided before reading).
pub fn precheck(declared: &Declared, cap: usize) -> Result<(), ApiError> {
    match declared.length {
        Some(n) if n > cap as u64 => Err(ApiError::TooLarge(TOO_LARGE)),
        _ => Ok(()),
    }
}

/// Reads the whole body (at most `cap` bytes, within `timeout`), answering `100 Continue`
/// first when asked. A body still incomplete after `timeout` is 408: a client that dribbles
/// its body must not hold the connection.
pub async fn read(
    session: &mut Session,
    declared: &Declared,
    cap: usize,
    timeout: Duration,
    state: &mut BodyState,
) -> Result<Bytes, ApiError> {
    match tokio::time::timeout(timeout, read_all(session, declared, cap, state)).await {
        Ok(result) => result,
        Err(_) => {
            *state = BodyState::Abandoned;
            Err(ApiError::Timeout)
        }
    }
}

async fn read_all(
    session: &mut Session,
    declared: &Declared,
    cap: usize,
    state: &mut BodyState,
) -> Result<Bytes, ApiError> {
    precheck(declared, cap)?;
    if !declared.has_body() {
        *state = BodyState::Complete;
        return Ok(Bytes::new());
    }
    *state = BodyState::Abandoned;
    if declared.expects_continue && session.write_continue_response().await.is_err() {
        return Err(ApiError::BadRequest("The request body could not be read."));
    }
    let initial = declared.length.map_or(16 * 1024, |n| n as usize).min(cap);
    let mut buf = BytesMut::with_capacity(initial);
    loop {
        match session.read_request_body().await {
            Ok(Some(chunk)) => {
                if buf.len() + chunk.len() > cap {
                    return Err(ApiError::TooLarge(TOO_LARGE));
                }
                buf.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) if crate::telemetry::client_gone(&e) => return Err(ApiError::ClientClosed),
            Err(_) => return Err(ApiError::BadRequest("The request body could not be read.")),
        }
    }
    *state = BodyState::Complete;
    Ok(buf.freeze())
}

/// After an answer on a connection that will close: reads and discards what the client is still
/// sending (bounded in bytes and time), so that closing does not reset the connection before the
/// client has read the answer.
pub async fn discard_rest(session: &mut Session, max_bytes: usize, max_time: Duration) {
    let drain = async {
        let mut seen = 0usize;
        while let Ok(Some(chunk)) = session.read_request_body().await {
            seen += chunk.len();
            if seen > max_bytes {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(max_time, drain).await;
}
