//! Refusals: the client is answered in its provider's error shape and nothing is forwarded.

use std::borrow::Cow;

use bytes::Bytes;
use pingora::http::ResponseHeader;
use pingora::prelude::*;
use pingora::proxy::Session;

use super::format::WireFormat;

/// The answer to a body that did not arrive within `server.client_body_timeout_ms`.
pub(super) const BODY_TIMEOUT: &str = "The request body was not received in time.";
/// The answer to a body over `api.max_body_bytes`.
pub(super) const TOO_LARGE: &str = "The request body is too large for the privacy proxy.";
/// The answer to a text past the detector's candidate limit (docs/proxy.md).
pub(super) const TOO_MANY_VALUES: &str =
    "The request holds more candidate values in one text than the privacy proxy checks; send it in smaller parts.";

/// Why the proxy answers itself instead of forwarding: a status and the message of the
/// provider-shaped error body (never request content).
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    pub status: u16,
    pub message: Cow<'static, str>,
}

impl Refusal {
    pub fn new(status: u16, message: impl Into<Cow<'static, str>>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
        }
    }

    pub fn body_timeout() -> Refusal {
        Refusal::new(408, BODY_TIMEOUT)
    }

    pub fn too_large() -> Refusal {
        Refusal::new(413, TOO_LARGE)
    }

    pub fn too_many_values() -> Refusal {
        Refusal::new(413, TOO_MANY_VALUES)
    }
}

/// Answers the client with a provider-shaped error and forwards nothing.
pub(super) async fn refuse(
    session: &mut Session,
    format: &dyn WireFormat,
    status: u16,
    message: &str,
) -> Result<()> {
    refuse_with(session, format, status, message, None).await
}

/// [`refuse`], with `Retry-After` (seconds) for rate-limited clients.
pub(super) async fn refuse_with(
    session: &mut Session,
    format: &dyn WireFormat,
    status: u16,
    message: &str,
    retry_after: Option<u64>,
) -> Result<()> {
    let body = Bytes::from(format.error_body(status, message).to_bytes());
    let mut header = ResponseHeader::build(status, Some(4))?;
    header.insert_header("content-type", "application/json")?;
    header.insert_header("content-length", body.len().to_string())?;
    if status < 500 {
        // a policy refusal: retrying cannot help (upstream failures stay retryable)
        header.insert_header("x-should-retry", "false")?;
    }
    header.insert_header("x-tarnkappe-entities", "0")?;
    crate::telemetry::copy_request_id(session.req_header(), &mut header);
    if let Some(seconds) = retry_after {
        header.insert_header("retry-after", seconds.to_string())?;
    }
    session
        .write_response_header(Box::new(header), false)
        .await?;
    session.write_response_body(Some(body), true).await
}
