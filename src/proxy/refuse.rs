//! Refusals: the client is answered in its provider's error shape and nothing is forwarded.

use std::borrow::Cow;

use bytes::Bytes;
use pingora::http::ResponseHeader;
use pingora::prelude::*;
use pingora::proxy::Session;

use super::format::WireFormat;
use crate::json::Node;

/// The answer to a body that did not arrive within `server.client_body_timeout_ms`.
pub(super) const BODY_TIMEOUT: &str = "The request body was not received in time.";
/// The answer to a body over `api.max_body_bytes`.
pub(super) const TOO_LARGE: &str = "The request body is too large for the privacy proxy.";
/// The answer to a text past the detector's candidate limit (docs/proxy.md, "Limits").
pub(super) const TOO_MANY_CANDIDATES: &str =
    "The request holds more candidate values in one text than the privacy proxy checks; send it in smaller parts.";

/// The `code` of a refusal for too many values.
pub(super) const TOO_MANY_VALUES_CODE: &str = "privacy_proxy_too_many_values";

/// Why the proxy answers itself instead of forwarding: a status and the message of the
/// provider-shaped error body (never request content).
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    pub status: u16,
    pub message: Cow<'static, str>,
    /// The OpenAI-shaped body's `code`, where the status alone does not name the reason.
    pub code: Option<&'static str>,
}

impl Refusal {
    pub fn new(status: u16, message: impl Into<Cow<'static, str>>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
            code: None,
        }
    }

    /// A request with more values than `api.max_values_per_request` (`docs/proxy.md`, "Limits").
    pub fn too_many_values(limit: usize) -> Refusal {
        Refusal {
            code: Some(TOO_MANY_VALUES_CODE),
            ..Refusal::new(
                413,
                format!("The request holds more than {limit} values to anonymize; the privacy proxy does not forward it."),
            )
        }
    }

    pub fn body_timeout() -> Refusal {
        Refusal::new(408, BODY_TIMEOUT)
    }

    pub fn too_large() -> Refusal {
        Refusal::new(413, TOO_LARGE)
    }

    /// A text with more candidates than `api.max_candidates_per_text` (`docs/proxy.md`,
    /// "Limits"): the same status and code as too many values.
    pub fn too_many_candidates() -> Refusal {
        Refusal {
            code: Some(TOO_MANY_VALUES_CODE),
            ..Refusal::new(413, TOO_MANY_CANDIDATES)
        }
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

/// Answers the client with `refusal` in the provider's shape and forwards nothing.
pub(super) async fn refuse_for(
    session: &mut Session,
    format: &dyn WireFormat,
    refusal: &Refusal,
) -> Result<()> {
    let mut body = format.error_body(refusal.status, &refusal.message);
    if let Some(code) = refusal.code {
        // only a shape that has a `code` (OpenAI's) gets it
        if let Some(error) = body.get_mut("error") {
            if error.get("code").is_some() {
                error.set("code", Node::Str(code.into()));
            }
        }
    }
    write_refusal(session, refusal.status, body, None).await
}

/// [`refuse`], with `Retry-After` (seconds) for rate-limited clients.
pub(super) async fn refuse_with(
    session: &mut Session,
    format: &dyn WireFormat,
    status: u16,
    message: &str,
    retry_after: Option<u64>,
) -> Result<()> {
    let body = format.error_body(status, message);
    write_refusal(session, status, body, retry_after).await
}

async fn write_refusal(
    session: &mut Session,
    status: u16,
    body: Node,
    retry_after: Option<u64>,
) -> Result<()> {
    let body = Bytes::from(body.to_bytes());
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
