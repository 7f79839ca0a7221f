//! NDJSON framing only: one JSON document per `\n`-terminated line; lines are decoded once
//! complete (UTF-8 split across reads is safe).

#[derive(Default)]
pub struct NdjsonParser {
    buf: Vec<u8>,
}

impl NdjsonParser {
    /// Feeds bytes; complete lines (without `\n`, with a trailing `\r` removed) are appended
    /// to `out` with their terminator (`""` for a final unterminated line). With `end`, a final
    /// unterminated line is emitted too.
    pub fn push(&mut self, bytes: &[u8], end: bool, out: &mut Vec<(String, &'static str)>) {
        self.buf.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(pos) = memchr_nl(&self.buf[start..]) {
            let line = &self.buf[start..start + pos];
            let (line, crlf) = match line.strip_suffix(b"\r") {
                Some(l) => (l, "\r\n"),
                None => (line, "\n"),
            };
            out.push((String::from_utf8_lossy(line).into_owned(), crlf));
            start += pos + 1;
        }
        self.buf.drain(..start);
        if end && !self.buf.is_empty() {
            out.push((String::from_utf8_lossy(&self.buf).into_owned(), ""));
            self.buf.clear();
        }
    }
}

fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_across_reads() {
        let input = "{\"a\":\"ö\"}\n{\"b\":1}\r\n{\"c\":2}".as_bytes();
        for n in 1..6 {
            let mut p = NdjsonParser::default();
            let mut out = Vec::new();
            for c in input.chunks(n) {
                p.push(c, false, &mut out);
            }
            p.push(&[], true, &mut out);
            assert_eq!(
                out,
                vec![
                    ("{\"a\":\"ö\"}".to_owned(), "\n"),
                    ("{\"b\":1}".to_owned(), "\r\n"),
                    ("{\"c\":2}".to_owned(), "")
                ]
            );
        }
    }
}
