//! A fake LLM upstream on loopback for the proxy tests: records every request it receives and
//! answers with whatever the test's handler builds, written in tiny random pieces (split
//! tokens, split UTF-8, several events in one read, one event over several reads).

#![allow(dead_code)]

pub mod echo;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
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
    /// Write the body in random pieces of 1..=max bytes (0: in one write with Content-Length).
    pub max_piece: usize,
    pub seed: u64,
    /// Close the connection after this many body bytes (simulated reset mid-stream).
    pub cut_after: Option<usize>,
}

impl Reply {
    pub fn json(body: &serde_json::Value) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json".into(),
            body: serde_json::to_vec(body).unwrap(),
            max_piece: 0,
            seed: 1,
            cut_after: None,
        }
    }
    pub fn stream(content_type: &str, body: Vec<u8>, seed: u64) -> Reply {
        Reply {
            status: 200,
            content_type: content_type.into(),
            body,
            max_piece: 9,
            seed,
            cut_after: None,
        }
    }
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
            body,
        };
        rec.lock().unwrap().push(r.clone());
        let reply = handler(&r);
        if write_reply(&mut writer, &reply).is_err() || reply.cut_after.is_some() {
            let _ = writer.shutdown(std::net::Shutdown::Both);
            return;
        }
    }
}

fn write_reply(w: &mut TcpStream, reply: &Reply) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} X\r\ncontent-type: {}\r\nx-request-id: req_fake\r\n",
        reply.status, reply.content_type
    );
    if reply.max_piece == 0 {
        head += &format!("content-length: {}\r\n\r\n", reply.body.len());
        w.write_all(head.as_bytes())?;
        w.write_all(&reply.body)?;
        return w.flush();
    }
    head += "transfer-encoding: chunked\r\n\r\n";
    w.write_all(head.as_bytes())?;
    w.flush()?;
    let mut rng = reply.seed.max(1);
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
            1 + (r as usize % reply.max_piece)
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

/// Canonical tokens in `text`, in order of first appearance.
pub fn tokens_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(p) = text[i..].find("[[") {
        let s = i + p;
        let mut j = s + 2;
        while j < b.len() && (b[j].is_ascii_uppercase() || b[j] == b'_' || b[j].is_ascii_digit()) {
            j += 1;
        }
        if text[j..].starts_with("]]") && j > s + 2 {
            let t = &text[s..j + 2];
            if t.contains('_') && !out.iter().any(|o| o == t) {
                out.push(t.to_owned());
            }
            i = j + 2;
        } else {
            i = s + 2;
        }
    }
    out
}

/// Whether `text` contains anything that looks like a canonical token.
pub fn has_token(text: &str) -> bool {
    !tokens_in(text).is_empty()
}

/// SSE bytes from `(event name, data)` pairs.
pub fn sse(events: &[(Option<&str>, String)]) -> Vec<u8> {
    let mut out = String::new();
    for (name, data) in events {
        if let Some(n) = name {
            out += &format!("event: {n}\n");
        }
        out += &format!("data: {data}\n\n");
    }
    out.into_bytes()
}

/// Splits `text` into pieces of 1..=4 characters (deltas that cut tokens anywhere).
pub fn pieces(text: &str, seed: u64) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut r = seed.max(1);
    while i < chars.len() {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        let n = (1 + r as usize % 4).min(chars.len() - i);
        out.push(chars[i..i + n].iter().collect());
        i += n;
    }
    out
}

/// Data of every SSE event of `body` with its event name.
pub fn parse_sse(body: &str) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    for block in body.replace("\r\n", "\n").split("\n\n") {
        let mut name = None;
        let mut data: Option<String> = None;
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("event:") {
                name = Some(v.trim().to_owned());
            } else if let Some(v) = line.strip_prefix("data:") {
                let v = v.strip_prefix(' ').unwrap_or(v);
                data = Some(match data {
                    Some(d) => d + "\n" + v,
                    None => v.to_owned(),
                });
            }
        }
        if let Some(d) = data {
            out.push((name, d));
        }
    }
    out
}
