//! A fake LLM upstream on loopback for the proxy tests: records every request it receives and
//! answers with whatever the test's handler builds. By default the body goes out in tiny random
//! pieces (split tokens, split UTF-8, several events in one read, one event over several reads);
//! the slow mode paces whole pieces, the fault mode cuts the connection mid-stream.

pub mod echo;
pub mod provider;
pub mod says;
pub mod signed;
pub mod socket;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::harness::server::TestServer;

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The proxy's end of the connection the request came over (which connection it reused).
    pub peer: Option<SocketAddr>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        crate::harness::http::header(&self.headers, name)
    }
    pub fn body_str(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("upstream received JSON")
    }
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    pub framing: Framing,
    /// Fault mode: close the connection after this many body bytes (a reset mid-stream).
    pub cut_after: Option<usize>,
}

/// How the fake upstream puts a reply's body on the wire.
#[derive(Debug, Clone)]
pub enum Framing {
    /// One write with Content-Length.
    Length,
    /// Chunked, in random pieces of 1..=`max_piece` bytes (now and then a large one), drawn
    /// from `seed` so that a failure repeats.
    Chunked { max_piece: usize, seed: u64 },
    /// Slow mode: `pieces` one after another with `pause` before each, delimited by closing the
    /// connection (no length, no chunks) and without `X-Request-Id`, so the proxy's own id shows.
    Paced {
        pieces: Vec<String>,
        pause: Duration,
    },
}

impl Reply {
    pub fn json(body: &serde_json::Value) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json".into(),
            body: serde_json::to_vec(body).unwrap(),
            framing: Framing::Length,
            cut_after: None,
        }
    }
    /// A [`chat_completion`] whose message is `content`.
    pub fn chat(content: &str) -> Reply {
        Reply::json(&chat_completion(content))
    }
    pub fn stream(content_type: &str, body: Vec<u8>, seed: u64) -> Reply {
        Reply {
            status: 200,
            content_type: content_type.into(),
            body,
            framing: Framing::Chunked { max_piece: 9, seed },
            cut_after: None,
        }
    }
    /// A slow reply: `pieces` written with `pause` before each (see [`Framing::Paced`]).
    pub fn paced(content_type: &str, pieces: Vec<String>, pause: Duration) -> Reply {
        Reply {
            status: 200,
            content_type: content_type.into(),
            body: Vec::new(),
            framing: Framing::Paced { pieces, pause },
            cut_after: None,
        }
    }
    /// Whether the connection ends with this reply.
    fn closes(&self) -> bool {
        self.cut_after.is_some() || matches!(self.framing, Framing::Paced { .. })
    }
}

/// A whole chat completion (OpenAI shape) with one message, `content`.
pub fn chat_completion(content: &str) -> serde_json::Value {
    serde_json::json!({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})
}

type Handler = dyn Fn(&Recorded) -> Reply + Send + Sync;

pub struct FakeUpstream {
    pub addr: SocketAddr,
    pub received: Arc<Mutex<Vec<Recorded>>>,
}

impl FakeUpstream {
    pub fn start(handler: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> FakeUpstream {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind fake upstream");
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let rec = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let rec = rec.clone();
                let handler = handler.clone();
                std::thread::spawn(move || serve(stream, rec, handler));
            }
        });
        FakeUpstream { addr, received }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A `tarnkappe serve` whose OpenAI, Anthropic and Ollama upstreams are all this one, with
    /// `extra` environment on top.
    pub fn proxy(&self, extra: &[(&str, &str)]) -> TestServer {
        let url = self.url();
        let mut env = vec![
            ("TARNKAPPE_OPENAI_UPSTREAM", url.as_str()),
            ("TARNKAPPE_ANTHROPIC_UPSTREAM", url.as_str()),
            ("TARNKAPPE_OLLAMA_UPSTREAM", url.as_str()),
        ];
        env.extend_from_slice(extra);
        TestServer::start(&env)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.received.lock().unwrap().clone()
    }

    pub fn last(&self) -> Recorded {
        self.requests()
            .pop()
            .expect("the upstream received a request")
    }
}

fn serve(stream: TcpStream, rec: Arc<Mutex<Vec<Recorded>>>, handler: Arc<Handler>) {
    let _ = stream.set_nodelay(true);
    let peer = stream.peer_addr().ok();
    let mut writer = match stream.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_owned();
        let path = parts.next().unwrap_or("").to_owned();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
            }
        }
        let get = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        let mut body = Vec::new();
        if get("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            loop {
                let mut size = String::new();
                if reader.read_line(&mut size).unwrap_or(0) == 0 {
                    return;
                }
                let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                    .unwrap_or(0);
                let mut chunk = vec![0; n + 2];
                if reader.read_exact(&mut chunk).is_err() {
                    return;
                }
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        } else if let Some(n) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
            body = vec![0; n];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
        }
        let r = Recorded {
            method,
            path,
            headers,
            peer,
            body,
        };
        rec.lock().unwrap().push(r.clone());
        let reply = handler(&r);
        if write_reply(&mut writer, &reply).is_err() || reply.closes() {
            let _ = writer.shutdown(std::net::Shutdown::Both);
            return;
        }
    }
}

fn write_reply(w: &mut TcpStream, reply: &Reply) -> std::io::Result<()> {
    let (max_piece, seed) = match &reply.framing {
        Framing::Length => {
            let head = format!(
                "HTTP/1.1 {} X\r\ncontent-type: {}\r\nx-request-id: req_fake\r\ncontent-length: {}\r\n\r\n",
                reply.status,
                reply.content_type,
                reply.body.len()
            );
            w.write_all(head.as_bytes())?;
            w.write_all(&reply.body)?;
            return w.flush();
        }
        Framing::Paced { pieces, pause } => return write_paced(w, reply, pieces, *pause),
        Framing::Chunked { max_piece, seed } => (*max_piece, *seed),
    };
    let mut head = format!(
        "HTTP/1.1 {} X\r\ncontent-type: {}\r\nx-request-id: req_fake\r\n",
        reply.status, reply.content_type
    );
    head += "transfer-encoding: chunked\r\n\r\n";
    w.write_all(head.as_bytes())?;
    w.flush()?;
    let mut rng = seed.max(1);
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut i = 0;
    let limit = reply.cut_after.unwrap_or(usize::MAX).min(reply.body.len());
    while i < limit {
        // mostly tiny pieces, sometimes a large one (several events in one read)
        let r = next();
        let n = if r % 7 == 0 {
            64 + (r as usize % 200)
        } else {
            1 + (r as usize % max_piece)
        };
        let n = n.min(limit - i);
        let piece = &reply.body[i..i + n];
        w.write_all(format!("{:x}\r\n", n).as_bytes())?;
        w.write_all(piece)?;
        w.write_all(b"\r\n")?;
        w.flush()?;
        if r % 3 == 0 {
            std::thread::sleep(Duration::from_micros(300));
        }
        i += n;
    }
    if reply.cut_after.is_some() {
        return Ok(());
    }
    w.write_all(b"0\r\n\r\n")?;
    w.flush()
}

fn write_paced(
    w: &mut TcpStream,
    reply: &Reply,
    pieces: &[String],
    pause: Duration,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {} OK\r\ncontent-type: {}\r\nconnection: close\r\n\r\n",
        reply.status, reply.content_type
    );
    w.write_all(head.as_bytes())?;
    for piece in pieces {
        std::thread::sleep(pause);
        w.write_all(piece.as_bytes())?;
        w.flush()?;
    }
    Ok(())
}
