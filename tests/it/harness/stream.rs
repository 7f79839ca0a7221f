//! Streamed bodies: SSE events built and parsed, and text cut into random deltas.

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
