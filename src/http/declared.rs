//! What a request's header says about its body, read once and shared by every door: how long it
//! is, whether it is chunked, whether the client waits for `100 Continue`.

use pingora::http::RequestHeader;

/// What the request says about its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// `Content-Length`, when present.
    pub length: Option<u64>,
    /// `Transfer-Encoding` present (chunked): the length is known only by reading.
    pub chunked: bool,
    /// `Expect: 100-continue`: the client waits before sending the body.
    pub expects_continue: bool,
}

impl Declared {
    pub fn of(req: &RequestHeader) -> Declared {
        let length = req
            .headers
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        Declared {
            length,
            chunked: req.headers.contains_key(http::header::TRANSFER_ENCODING),
            expects_continue: req
                .headers
                .get(http::header::EXPECT)
                .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue")),
        }
    }

    /// True when a body may follow the header.
    pub fn has_body(&self) -> bool {
        self.chunked || self.length.is_some_and(|n| n > 0)
    }
}
