//! Server-sent events framing only: bytes → events → bytes. Lines end in `\n`, `\r\n` or `\r`
//! (a `\r\n` split across reads is handled); lines are decoded as UTF-8 only once complete, so
//! characters split across reads stay intact. Events are re-emitted with their own `event:`,
//! `id:` and other lines and their own line endings; the data becomes one `data: ` line.

/// One line without its terminator, and the terminator it had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub term: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A comment line (`:` …), forwarded at once.
    Comment(Line),
    /// A complete event (its lines up to, not including, the blank line).
    Event(Event),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub lines: Vec<Line>,
    /// The blank line's terminator ("" when the stream ended without one).
    pub end: &'static str,
}

impl Event {
    /// The joined `data` field, or `None` without data lines.
    pub fn data(&self) -> Option<String> {
        let mut data: Option<String> = None;
        for l in &self.lines {
            if let Some(v) = field(&l.text, "data") {
                match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(v);
                    }
                    None => data = Some(v.to_owned()),
                }
            }
        }
        data
    }

    /// The line terminator this event uses.
    pub fn term(&self) -> &'static str {
        self.lines.first().map_or("\n", |l| l.term)
    }

    /// Writes the event with `data` replacing its data lines (one `data: ` line).
    pub fn write_with_data(&self, data: &str, out: &mut Vec<u8>) {
        let mut wrote = false;
        for l in &self.lines {
            if field(&l.text, "data").is_some() {
                if !wrote {
                    out.extend_from_slice(b"data: ");
                    out.extend_from_slice(data.as_bytes());
                    out.extend_from_slice(l.term.as_bytes());
                    wrote = true;
                }
            } else {
                out.extend_from_slice(l.text.as_bytes());
                out.extend_from_slice(l.term.as_bytes());
            }
        }
        out.extend_from_slice(self.end.as_bytes());
    }

    /// Writes the event unchanged.
    pub fn write(&self, out: &mut Vec<u8>) {
        for l in &self.lines {
            out.extend_from_slice(l.text.as_bytes());
            out.extend_from_slice(l.term.as_bytes());
        }
        out.extend_from_slice(self.end.as_bytes());
    }
}

/// Writes a new event: `event: <name>` (when given), one `data: ` line, a blank line.
pub fn write_event(name: Option<&str>, data: &str, term: &str, out: &mut Vec<u8>) {
    if let Some(n) = name {
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(n.as_bytes());
        out.extend_from_slice(term.as_bytes());
    }
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(data.as_bytes());
    out.extend_from_slice(term.as_bytes());
    out.extend_from_slice(term.as_bytes());
}

/// The value of `name:` on `line` (one optional space after the colon stripped).
pub fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(name)?;
    if rest.is_empty() {
        return Some("");
    }
    let v = rest.strip_prefix(':')?;
    Some(v.strip_prefix(' ').unwrap_or(v))
}

#[derive(Default)]
pub struct SseParser {
    buf: Vec<u8>,
    lines: Vec<Line>,
}

impl SseParser {
    /// Feeds bytes; complete items are appended to `out`. With `end`, whatever remains is
    /// emitted as a final line / event.
    pub fn push(&mut self, bytes: &[u8], end: bool, out: &mut Vec<Item>) {
        self.buf.extend_from_slice(bytes);
        let mut start = 0;
        let b = &self.buf;
        let mut i = 0;
        let mut lines: Vec<(usize, usize, &'static str)> = Vec::new();
        while i < b.len() {
            match b[i] {
                b'\n' => {
                    lines.push((start, i, "\n"));
                    i += 1;
                    start = i;
                }
                b'\r' => {
                    if i + 1 < b.len() {
                        if b[i + 1] == b'\n' {
                            lines.push((start, i, "\r\n"));
                            i += 2;
                        } else {
                            lines.push((start, i, "\r"));
                            i += 1;
                        }
                        start = i;
                    } else if end {
                        lines.push((start, i, "\r"));
                        i += 1;
                        start = i;
                    } else {
                        break; // maybe the first half of \r\n
                    }
                }
                _ => i += 1,
            }
        }
        let decoded: Vec<Line> = lines
            .iter()
            .map(|&(s, e, term)| Line {
                text: String::from_utf8_lossy(&b[s..e]).into_owned(),
                term,
            })
            .collect();
        let mut rest = self.buf.split_off(start);
        std::mem::swap(&mut rest, &mut self.buf);
        for line in decoded {
            self.line(line, out);
        }
        if end {
            if !self.buf.is_empty() {
                let text = String::from_utf8_lossy(&self.buf).into_owned();
                self.buf.clear();
                self.line(Line { text, term: "" }, out);
            }
            if !self.lines.is_empty() {
                out.push(Item::Event(Event {
                    lines: std::mem::take(&mut self.lines),
                    end: "",
                }));
            }
        }
    }

    fn line(&mut self, line: Line, out: &mut Vec<Item>) {
        if line.text.is_empty() {
            if self.lines.is_empty() {
                // stray blank line: keep it as an empty event so framing is mirrored
                out.push(Item::Event(Event {
                    lines: Vec::new(),
                    end: line.term,
                }));
            } else {
                out.push(Item::Event(Event {
                    lines: std::mem::take(&mut self.lines),
                    end: line.term,
                }));
            }
        } else if line.text.starts_with(':') {
            out.push(Item::Comment(line));
        } else {
            self.lines.push(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_pieces(input: &[u8], piece: usize) -> Vec<Item> {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for c in input.chunks(piece) {
            p.push(c, false, &mut out);
        }
        p.push(&[], true, &mut out);
        out
    }

    #[test]
    fn splits_events_across_any_reads() {
        let input =
            "event: a\r\ndata: {\"t\":\"ü\"}\r\n\r\n: ping\n\ndata: x\ndata: y\n\ndata: [DONE]\n\n"
                .as_bytes();
        let whole = parse_in_pieces(input, input.len());
        for n in 1..8 {
            assert_eq!(parse_in_pieces(input, n), whole, "pieces of {n}");
        }
        let Item::Event(e) = &whole[0] else { panic!() };
        assert_eq!(e.data().as_deref(), Some("{\"t\":\"ü\"}"));
        assert_eq!(e.end, "\r\n");
        assert!(matches!(&whole[1], Item::Comment(l) if l.text == ": ping"));
        let Item::Event(e) = &whole[3] else { panic!() };
        assert_eq!(e.data().as_deref(), Some("x\ny"));
        let mut out = Vec::new();
        for item in &whole {
            match item {
                Item::Event(e) => e.write(&mut out),
                Item::Comment(l) => {
                    out.extend_from_slice(l.text.as_bytes());
                    out.extend_from_slice(l.term.as_bytes());
                }
            }
        }
        assert_eq!(out, input);
    }
}
