//! Building and writing local responses: status, body, `Content-Length` (always — a local
//! response without it hangs), the rate-limit headers. Shared by the API, the web page and the
//! proxy's own answers.

use bytes::Bytes;
use pingora::http::ResponseHeader;
use pingora::proxy::Session;
use serde::Serialize;

use crate::ratelimit::Decision;

/// A complete response, built before anything is written.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Bytes,
    pub headers: Vec<(&'static str, String)>,
}

/// The body of every error: `{"error": code, "message": sentence}`.
#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'static str,
    message: &'a str,
}

/// The answer when serializing one of our own response types fails (it cannot; if it ever did,
/// a 500 rather than a partial body).
const SERIALIZATION_FAILED: &str =
    r#"{"error":"internal","message":"An internal error occurred; it has been logged."}"#;

impl Reply {
    /// `body` serialized as JSON. Serialization of our own response types cannot fail; if it
    /// ever did, the answer is a 500 rather than a partial body.
    pub fn json<T: Serialize + ?Sized>(status: u16, body: &T) -> Reply {
        Reply::json_sized(status, body, 128)
    }

    /// [`Reply::json`] into a buffer of `capacity` bytes to begin with: a large answer is
    /// written once instead of being copied each time the buffer doubles.
    pub fn json_sized<T: Serialize + ?Sized>(status: u16, body: &T, capacity: usize) -> Reply {
        let mut out = Vec::with_capacity(capacity);
        match serde_json::to_writer(&mut out, body) {
            Ok(()) => Reply::raw(status, "application/json", Bytes::from(out)),
            Err(_) => {
                tracing::error!("response serialization failed");
                Reply::raw(
                    500,
                    "application/json",
                    Bytes::from_static(SERIALIZATION_FAILED.as_bytes()),
                )
            }
        }
    }

    /// Pre-serialized bytes (e.g. documents built at start-up).
    pub fn raw(status: u16, content_type: &'static str, body: Bytes) -> Reply {
        Reply {
            status,
            content_type,
            body,
            headers: Vec::new(),
        }
    }

    /// The JSON error body `{"error": code, "message": message}` with its status.
    pub fn error(status: u16, code: &'static str, message: &str) -> Reply {
        Reply::json(
            status,
            &ErrorBody {
                error: code,
                message,
            },
        )
    }

    /// Adds `X-RateLimit-Limit`, `X-RateLimit-Remaining` and, when refused, `Retry-After`
    /// (whole seconds, rounded up).
    pub fn with_rate_limit(mut self, d: &Decision) -> Reply {
        self.headers
            .push(("x-ratelimit-limit", d.limit.to_string()));
        self.headers
            .push(("x-ratelimit-remaining", d.remaining.to_string()));
        if !d.allowed {
            let secs = d.retry_after.as_secs() + u64::from(d.retry_after.subsec_nanos() > 0);
            self.headers.push(("retry-after", secs.max(1).to_string()));
        }
        self
    }

    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }
}

/// Writes `reply` completely. With `head_only` the headers (including the `Content-Length` of the
/// body a GET would get) are written without the body.
pub async fn send(session: &mut Session, reply: Reply, head_only: bool) -> pingora::Result<()> {
    let mut header = ResponseHeader::build(reply.status, Some(6 + reply.headers.len()))?;
    header.insert_header("content-type", reply.content_type)?;
    header.insert_header("content-length", reply.body.len().to_string())?;
    header.insert_header("cache-control", "no-store")?;
    header.insert_header("x-content-type-options", "nosniff")?;
    for (name, value) in reply.headers {
        header.append_header(name, value)?;
    }
    if !header
        .headers
        .contains_key(crate::telemetry::REQUEST_ID_HEADER)
    {
        crate::telemetry::copy_request_id(session.req_header(), &mut header);
    }
    session
        .write_response_header(Box::new(header), false)
        .await?;
    let body = if head_only { Bytes::new() } else { reply.body };
    session.write_response_body(Some(body), true).await
}

/// Writes a complete JSON response with `Content-Length` (kept for callers outside the API).
pub async fn respond_json(
    session: &mut Session,
    status: u16,
    body: &serde_json::Value,
) -> pingora::Result<()> {
    send(session, Reply::json(status, body), false).await
}
