//! JSON source text (tool-call arguments as the wire carries them, possibly in pieces): the
//! lexer finds its strings and decodes their escapes (`\/`, `\u0026`, …) before the target
//! rules read them, so that a URL reads as the agent that parses the arguments will read it.

/// What reads the decoded text of JSON source: each string's bytes, and where each string
/// starts and ends.
pub(super) trait Decoded {
    fn byte(&mut self, c: u8);
    fn start_value(&mut self);
    fn end_value(&mut self);
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum State {
    /// Between strings.
    #[default]
    Outside,
    /// Inside a string.
    Text,
    /// After a `\` in a string.
    Escape,
    /// In `\uXXXX`: the digits read so far and their value.
    Unicode { digits: u8, value: u32 },
}

/// Where a reader of JSON source text stands; one escape can be split across pieces.
#[derive(Debug, Clone, Default)]
pub(super) struct JsonLexer {
    state: State,
}

impl JsonLexer {
    /// Whether the next byte is read inside a string (a token outside one is not a value).
    pub(super) fn in_string(&self) -> bool {
        self.state != State::Outside
    }

    /// Reads raw byte `c`, feeding what it decodes to into `cx`.
    pub(super) fn step(&mut self, c: u8, cx: &mut impl Decoded) {
        self.state = next(self.state, c, cx);
    }
}

/// The state after raw byte `c`, feeding what it decodes to into `cx`.
fn next(state: State, c: u8, cx: &mut impl Decoded) -> State {
    match state {
        State::Outside => {
            if c == b'"' {
                cx.start_value();
                State::Text
            } else {
                State::Outside
            }
        }
        State::Text => match c {
            b'"' => {
                cx.end_value();
                State::Outside
            }
            b'\\' => State::Escape,
            _ => {
                cx.byte(c);
                State::Text
            }
        },
        State::Escape => {
            match c {
                b'u' => {
                    return State::Unicode {
                        digits: 0,
                        value: 0,
                    }
                }
                b'n' => cx.byte(b'\n'),
                b't' => cx.byte(b'\t'),
                b'r' => cx.byte(b'\r'),
                b'b' => cx.byte(0x08),
                b'f' => cx.byte(0x0c),
                _ => cx.byte(c),
            }
            State::Text
        }
        State::Unicode { digits, value } => {
            let Some(d) = (c as char).to_digit(16) else {
                // not an escape after all: read what is there
                cx.byte(c);
                return State::Text;
            };
            let value = value * 16 + d;
            if digits < 3 {
                return State::Unicode {
                    digits: digits + 1,
                    value,
                };
            }
            feed_char(value, cx);
            State::Text
        }
    }
}

/// Feeds the UTF-8 of code point `value`; half a surrogate pair stands for a non-ASCII byte
/// (any such byte reads alike to the rules).
fn feed_char(value: u32, cx: &mut impl Decoded) {
    match char::from_u32(value) {
        Some(ch) => {
            let mut buf = [0; 4];
            for &b in ch.encode_utf8(&mut buf).as_bytes() {
                cx.byte(b);
            }
        }
        None => cx.byte(0x80),
    }
}
