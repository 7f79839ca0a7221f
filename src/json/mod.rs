//! A small order-preserving JSON tree for rewriting request and reply bodies.
//!
//! Object members keep their document order (token numbering follows it), numbers keep their
//! exact source text (no float or big-integer drift), and strings are decoded so that detection
//! and restoring see the real characters behind `\uXXXX` escapes. Output is compact JSON.

pub mod checks;
pub mod splice;

use std::fmt;

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 256;

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    /// The number exactly as written in the source.
    Num(String),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the problem (never any content).
    pub offset: usize,
    pub reason: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.reason)
    }
}

impl Node {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match self {
            Node::Obj(members) => members.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The member `key` of an object with its index among the members (the member `get`
    /// finds).
    pub(crate) fn member_mut(&mut self, key: &str) -> Option<(usize, &mut Node)> {
        match self {
            Node::Obj(members) => members
                .iter_mut()
                .enumerate()
                .find(|(_, (k, _))| k == key)
                .map(|(i, (_, v))| (i, v)),
            _ => None,
        }
    }

    /// The member indices that lead from this object along `keys` (each the member `get`
    /// finds).
    pub(crate) fn member_path(&self, keys: &[&str]) -> Option<Vec<usize>> {
        let mut node = self;
        let mut path = Vec::with_capacity(keys.len());
        for key in keys {
            let Node::Obj(members) = node else {
                return None;
            };
            let i = members.iter().position(|(k, _)| k == key)?;
            path.push(i);
            node = &members[i].1;
        }
        Some(path)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A member's string value.
    pub fn str_of(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Node::as_str)
    }

    /// A member's value as written (numbers as source text, strings decoded), for keys.
    pub(crate) fn key_of(&self, key: &str) -> Option<String> {
        match self.get(key)? {
            Node::Num(n) => Some(n.clone()),
            Node::Str(s) => Some(s.clone()),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Node::Null)
    }

    /// Sets (or appends) member `key` of an object; no-op on other nodes.
    pub(crate) fn set(&mut self, key: &str, value: Node) {
        if let Node::Obj(members) = self {
            match members.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value,
                None => members.push((key.to_owned(), value)),
            }
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::with_capacity(64);
        self.write(&mut out);
        out.into_bytes()
    }

    pub fn to_json_string(&self) -> String {
        let mut out = String::with_capacity(64);
        self.write(&mut out);
        out
    }

    pub(crate) fn write(&self, out: &mut String) {
        match self {
            Node::Null => out.push_str("null"),
            Node::Bool(true) => out.push_str("true"),
            Node::Bool(false) => out.push_str("false"),
            Node::Num(n) => out.push_str(n),
            Node::Str(s) => write_str(s, out),
            Node::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Node::Obj(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// Writes `s` as a JSON string literal.
pub(crate) fn write_str(s: &str, out: &mut String) {
    out.push('"');
    escape_into(s, out);
    out.push('"');
}

/// Appends `s` escaped for the inside of a JSON string (without quotes).
pub(crate) fn escape_into(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    loop {
        i += plain_run(&bytes[i..]);
        let Some(&b) = bytes.get(i) else { break };
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            _ => None,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                out.push_str("\\u00");
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
        i += 1;
        start = i;
    }
    out.push_str(&s[start..]);
}

/// The length of `s` escaped for the inside of a JSON string (what [`escape_into`] appends),
/// computed without building it.
pub(crate) fn escaped_len(s: &str) -> usize {
    s.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

/// The length of the leading run of `s` that a JSON string holds as is: no `"`, no `\`, no
/// control character. Strings are mostly such runs, and prompts are long: eight bytes are
/// tested at a time (bit tricks on a `u64`), which makes parsing and writing a 100 KB prompt
/// several times faster than a byte-by-byte loop.
fn plain_run(s: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // High bit set in every byte of `x` that is below `n` (n <= 0x80), exact up to the first
    // such byte, which is all that is needed here.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * n as u64) & !x & HIGH;
    let mut i = 0;
    while let Some(chunk) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let hits = below(w ^ (ONES * b'"' as u64), 1)
            | below(w ^ (ONES * b'\\' as u64), 1)
            | below(w, 0x20);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + s[i..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(s.len() - i)
}

/// Parses one JSON document (surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Node, ParseError> {
    Parser::new(text, false).document()
}

/// [`parse`], answering `Ok(None)` as soon as an object names a member twice (names compared
/// after decoding escapes). Checked while the tree is built, so the body is read once.
pub(crate) fn parse_unique(text: &str) -> Result<Option<Node>, ParseError> {
    let mut p = Parser::new(text, true);
    match p.document() {
        Ok(node) => Ok(Some(node)),
        Err(_) if p.duplicate => Ok(None),
        Err(e) => Err(e),
    }
}

/// Members an object may have before [`Parser::unique_name`] keeps their hashes rather than
/// comparing a new name with every earlier one.
const LINEAR_NAMES: usize = 16;

struct Parser<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
    /// Refuse a member name seen before in the same object.
    unique: bool,
    /// That refusal happened (the error unwinds the parse).
    duplicate: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, unique: bool) -> Parser<'a> {
        Parser {
            s: text.as_bytes(),
            src: text,
            i: 0,
            unique,
            duplicate: false,
        }
    }

    fn document(&mut self) -> Result<Node, ParseError> {
        self.ws();
        let node = self.value(0)?;
        self.ws();
        if self.i != self.s.len() {
            return Err(self.err("trailing characters"));
        }
        Ok(node)
    }

    /// Whether `name` is new among `members` (`hashes`: theirs, once there are many, under a
    /// randomly seeded hasher, so that a client cannot choose names whose hashes collide and
    /// make every check a linear one).
    fn unique_name(
        members: &[(String, Node)],
        hashes: &mut Option<(ahash::RandomState, ahash::AHashSet<u64>)>,
        name: &str,
    ) -> bool {
        if members.len() < LINEAR_NAMES {
            return !members.iter().any(|(k, _)| k == name);
        }
        let (state, set) = hashes.get_or_insert_with(|| {
            let state = ahash::RandomState::new();
            let set = members
                .iter()
                .map(|(k, _)| state.hash_one(k.as_str()))
                .collect();
            (state, set)
        });
        // a hash seen before is only a candidate: compare the names themselves then
        set.insert(state.hash_one(name)) || !members.iter().any(|(k, _)| k == name)
    }

    fn err(&self, reason: &'static str) -> ParseError {
        ParseError {
            offset: self.i,
            reason,
        }
    }

    fn ws(&mut self) {
        while let Some(&b) = self.s.get(self.i) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Node::Str),
            Some(b't') => self.literal("true", Node::Bool(true)),
            Some(b'f') => self.literal("false", Node::Bool(false)),
            Some(b'n') => self.literal("null", Node::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("unexpected character")),
        }
    }

    fn literal(&mut self, word: &str, node: Node) -> Result<Node, ParseError> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(node)
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Node, ParseError> {
        let start = self.i;
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err("invalid number")),
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.err("invalid number"));
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.err("invalid number"));
            }
        }
        Ok(Node::Num(self.src[start..self.i].to_owned()))
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err("short \\u escape"))?;
        let mut v = 0u32;
        for &b in h {
            let d = (b as char)
                .to_digit(16)
                .ok_or_else(|| self.err("invalid \\u escape"))?;
            v = v * 16 + d;
        }
        self.i += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1; // opening quote
        let mut out = String::new();
        let mut run = self.i;
        loop {
            self.i += plain_run(&self.s[self.i..]);
            let Some(&b) = self.s.get(self.i) else {
                return Err(self.err("unterminated string"));
            };
            match b {
                b'"' => {
                    out.push_str(&self.src[run..self.i]);
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(&self.src[run..self.i]);
                    self.i += 1;
                    let Some(&e) = self.s.get(self.i) else {
                        return Err(self.err("unterminated escape"));
                    };
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi) {
                                if self.s.get(self.i..self.i + 2) != Some(b"\\u") {
                                    return Err(self.err("lone surrogate"));
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err("lone surrogate"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.err("lone surrogate"));
                            } else {
                                hi
                            };
                            out.push(
                                char::from_u32(c).ok_or_else(|| self.err("invalid code point"))?,
                            );
                        }
                        _ => return Err(self.err("invalid escape")),
                    }
                    run = self.i;
                }
                // `plain_run` stops only at a quote, a backslash or a control character
                _ => return Err(self.err("control character in string")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Node, ParseError> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Node::Arr(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Node::Arr(items));
                }
                _ => return Err(self.err("expected , or ]")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Node, ParseError> {
        self.i += 1;
        let mut members = Vec::new();
        let mut hashes = None;
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Node::Obj(members));
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err("expected member name"));
            }
            let key = self.string()?;
            if self.unique && !Self::unique_name(&members, &mut hashes, &key) {
                self.duplicate = true;
                return Err(self.err("duplicate member name"));
            }
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return Err(self.err("expected :"));
            }
            self.i += 1;
            self.ws();
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Node::Obj(members));
                }
                _ => return Err(self.err("expected , or }")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_len_is_what_escape_into_appends() {
        for s in [
            "",
            "plain",
            "a\"b\\c",
            "\n\r\t\u{8}\u{c}",
            "\u{1}\u{1f}x",
            "Zoë 😀",
        ] {
            let mut out = String::new();
            escape_into(s, &mut out);
            assert_eq!(escaped_len(s), out.len(), "{s:?}");
        }
    }

    #[test]
    fn round_trips_order_numbers_and_escapes() {
        let src = r#"{"z":1,"a":[1.50,-0,12345678901234567890123,true,null],"s":"M\u00fcller \"x\"\n\ud83d\ude00","e":{}}"#;
        let node = parse(src).unwrap();
        assert_eq!(node.str_of("s"), Some("Müller \"x\"\n😀"));
        assert_eq!(
            node.to_json_string(),
            r#"{"z":1,"a":[1.50,-0,12345678901234567890123,true,null],"s":"Müller \"x\"\n😀","e":{}}"#
        );
    }

    #[test]
    fn rejects_malformed() {
        for bad in [
            "",
            "{",
            "{\"a\":}",
            "[1,]",
            "\"\\ud800\"",
            "01",
            "1.",
            "{\"a\" 1}",
            "[] x",
            "\"a\tb\"",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(300) + &"]".repeat(300);
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn plain_runs_stop_at_the_first_special_byte() {
        let naive = |s: &[u8]| {
            s.iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(s.len())
        };
        let mut cases: Vec<Vec<u8>> = vec![Vec::new(), b"abc".to_vec()];
        for len in [1usize, 7, 8, 9, 16, 23, 40] {
            for at in 0..len {
                for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    // UTF-8 bytes (>= 0x80) and their neighbours must never count as special
                    let mut s: Vec<u8> = "äöü ß😀x!~".bytes().cycle().take(len).collect();
                    s[at] = special;
                    cases.push(s.clone());
                    s[at] = b' ';
                    cases.push(s);
                }
            }
        }
        for s in cases {
            assert_eq!(plain_run(&s), naive(&s), "{s:?}");
        }
    }

    #[test]
    fn duplicate_names_are_found_as_the_scan_finds_them() {
        let big: String = (0..40).map(|i| format!("\"k{i}\":{i},")).collect();
        for (doc, duplicate) in [
            (
                r#"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#.to_owned(),
                false,
            ),
            (r#"{"a":1,"\u0061":2}"#.to_owned(), true),
            (r#"{"x":{"a":1,"b":2,"a":3}}"#.to_owned(), true),
            (format!("{{{big}\"z\":0}}"), false),
            (format!("{{{big}\"k7\":0}}"), true),
            (format!("{{{big}\"k39\":0}}"), true),
        ] {
            assert_eq!(
                checks::has_duplicate_key(doc.as_bytes()),
                duplicate,
                "{doc}"
            );
            let parsed = parse_unique(&doc).unwrap();
            assert_eq!(parsed.is_none(), duplicate, "{doc}");
            if let Some(node) = parsed {
                assert_eq!(node, parse(&doc).unwrap());
            }
        }
        assert!(parse(r#"{"a":1,"a":2}"#).is_ok(), "plain parse keeps both");
        assert!(parse_unique(r#"{"a":01}"#).is_err());
    }

    #[test]
    fn escapes_control_characters() {
        let mut out = String::new();
        escape_into("a\u{1}b\"\\", &mut out);
        assert_eq!(out, "a\\u0001b\\\"\\\\");
    }
}
