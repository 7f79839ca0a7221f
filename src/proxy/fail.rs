//! `fail_to_proxy`: what the client receives when an exchange ends in an error — a refusal
//! kept by an earlier phase, a provider-shaped error while nothing was written yet, or, with
//! the reply under way, its held-back text and an error frame in the stream's own framing.

use bytes::Bytes;
use pingora::prelude::*;
use pingora::proxy::{FailToProxy, Session};

use super::ctx::RequestCtx;
use super::refuse::{refuse, refuse_for, Refusal};

const UPSTREAM_FAILED: &str = "The upstream could not be reached or failed.";
const FAILED_MID_REPLY: &str = "The upstream connection failed during the reply.";

/// The status answered for `e`; 0 when the client is gone and nothing can be written.
fn status_of(e: &Error) -> u16 {
    match e.etype() {
        ErrorType::HTTPStatus(c) => *c,
        ErrorType::ConnectTimedout | ErrorType::ReadTimedout | ErrorType::WriteTimedout
            if e.esource() == &ErrorSource::Upstream =>
        {
            504
        }
        _ => match e.esource() {
            ErrorSource::Upstream => 502,
            ErrorSource::Downstream => match e.etype() {
                ErrorType::WriteError | ErrorType::ReadError | ErrorType::ConnectionClosed => 0,
                ErrorType::ReadTimedout => 408,
                _ => 400,
            },
            ErrorSource::Internal | ErrorSource::Unset => 500,
        },
    }
}

fn closing(error_code: u16) -> FailToProxy {
    FailToProxy {
        error_code,
        can_reuse_downstream: false,
    }
}

pub(crate) async fn fail_to_proxy(
    session: &mut Session,
    e: &Error,
    ctx: &mut RequestCtx,
) -> FailToProxy {
    let code = status_of(e);
    let Some(route) = ctx.route.clone() else {
        if code > 0 {
            let _ = session.respond_error(code).await;
        }
        return closing(code);
    };
    if code == 408 && ctx.refusal.is_none() {
        ctx.refusal = Some(Refusal::body_timeout());
    }
    if let Some(refusal) = ctx.refusal.take() {
        if session.response_written().is_none() {
            let _ = refuse_for(session, route.format, &refusal).await;
        }
        return closing(refusal.status);
    }
    if code == 0 {
        return closing(0);
    }
    if session.response_written().is_none() {
        let _ = refuse(session, route.format, code, UPSTREAM_FAILED).await;
        return closing(code);
    }
    // The reply had started: release held-back text, end the stream with an error frame.
    let tail = ctx
        .reply
        .as_mut()
        .map(|reply| Bytes::from(reply.abort(FAILED_MID_REPLY)));
    let _ = session.write_response_body(tail, true).await;
    closing(0)
}
