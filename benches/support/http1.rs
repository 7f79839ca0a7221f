//! Minimal HTTP/1.1 for the benches' own clients and fake upstreams (written here so that a
//! client library's cost stays out of the figures), and the fake chat upstream's replies.

use std::io::BufRead;

/// The head of a message: the status or request line, the content length and chunking.
pub struct Head {
    pub first: String,
    pub len: Option<usize>,
    pub chunked: bool,
}

impl Head {
    /// The status code of a response head (0 when it has none).
    pub fn status(&self) -> u16 {
        self.first
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }
}

/// The next head, or `None` at the end of the connection.
pub fn read_head(r: &mut impl BufRead) -> std::io::Result<Option<Head>> {
    let mut first = String::new();
    if r.read_line(&mut first)? == 0 {
        return Ok(None);
    }
    let (mut len, mut chunked) = (None, false);
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let t = h.trim_end().to_ascii_lowercase();
        if t.is_empty() {
            break;
        }
        if let Some(v) = t.strip_prefix("content-length:") {
            len = v.trim().parse().ok();
        } else if t.starts_with("transfer-encoding:") && t.contains("chunked") {
            chunked = true;
        }
    }
    Ok(Some(Head {
        first,
        len,
        chunked,
    }))
}

/// Appends a chunked body to `body`, calling `on_data` with the size of every data chunk as
/// it arrives.
pub fn read_chunked(
    r: &mut impl BufRead,
    body: &mut Vec<u8>,
    mut on_data: impl FnMut(usize),
) -> std::io::Result<()> {
    loop {
        let mut size = String::new();
        if r.read_line(&mut size)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidData))?;
        let start = body.len();
        body.resize(start + n + 2, 0);
        r.read_exact(&mut body[start..])?;
        body.truncate(start + n);
        if n == 0 {
            return Ok(());
        }
        on_data(n);
    }
}

/// The body that follows `head` (empty without a length).
pub fn read_body(r: &mut impl BufRead, head: &Head) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    if head.chunked {
        read_chunked(r, &mut body, |_| {})?;
        return Ok(body);
    }
    body.resize(head.len.unwrap_or(0), 0);
    r.read_exact(&mut body)?;
    Ok(body)
}

/// The body of the next request, or `None` at the end of the connection.
pub fn read_request(r: &mut impl BufRead) -> std::io::Result<Option<Vec<u8>>> {
    match read_head(r)? {
        Some(head) => read_body(r, &head).map(Some),
        None => Ok(None),
    }
}

/// Whether a request body asks for a streamed reply.
pub fn wants_stream(body: &[u8]) -> bool {
    body.windows(13).any(|w| w == b"\"stream\":true")
}

/// The fake upstream's whole chat reply, tokens of the first e-mail address and IBAN in it.
pub fn chat_reply() -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{CHAT_REPLY}",
        CHAT_REPLY.len()
    )
}

/// The fake upstream's chat completion: both tokens are the first values of every bench body.
pub const CHAT_REPLY: &str = r#"{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Ich schreibe an [[EMAIL_1]] wegen [[IBAN_1]]."},"finish_reason":"stop"}]}"#;

pub const STREAM_HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

/// One chat chunk event with `text` as its content, as one HTTP chunk.
pub fn sse_event(text: &str) -> Vec<u8> {
    let ev = format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}},\"finish_reason\":null}}]}}\n\n");
    format!("{:x}\r\n{}\r\n", ev.len(), ev).into_bytes()
}

/// The stream's end: `[DONE]` and the last chunk.
pub fn sse_done() -> String {
    let done = "data: [DONE]\n\n";
    format!("{:x}\r\n{}\r\n0\r\n\r\n", done.len(), done)
}
