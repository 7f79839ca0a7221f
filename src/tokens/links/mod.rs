//! Where a restored value may go: nowhere a client loads or an agent fetches by itself. A reply's
//! link and image targets are markdown `[text](target)` and `![alt](target)` (CommonMark's
//! destination grammar: backslash escapes, `<…>`, whitespace and one line ending before it),
//! reference definitions `[id]: target` (the target may be on the next line), autolinks
//! `<scheme:…>`, HTML URL attribute values (quoted or not, whitespace around `=`), CSS `url(…)`,
//! and bare URLs (`scheme://…`, `www.…`, `mailto:…`, read through `'` and `\` as a URL parser
//! does). In tool-call arguments JSON strings are decoded before any rule, and a string that is
//! a URL is a target to its end: an agent hands it whole to its HTTP client. A value restored in
//! a target would leave for a host the model picked, so the restorer leaves tokens there as the
//! model wrote them (`docs/proxy.md`, "Link targets").
//!
//! [`LinkContext`] reads a text forward, byte by byte, remembering only a short tail: it can be
//! fed a stream in pieces without holding anything back, and says at any point whether the
//! next byte lies inside a target. When unsure it says "target": a token left unrestored is the
//! safe failure.

mod grammar;
mod json;
#[cfg(test)]
mod tests;
mod tools;

use grammar::End;
use json::JsonLexer;
pub use tools::ToolPolicy;

/// Bytes of text remembered for entries recognized by what precedes them (`href =`, `<mailto:`).
const TAIL: usize = 40;

/// The position of a reader in a text: in prose or inside a link target.
#[derive(Debug, Clone)]
pub struct LinkContext {
    target: Option<End>,
    tail: [u8; TAIL],
    /// Bytes seen so far (the tail holds the last `TAIL` of them).
    seen: usize,
    /// In a whole value (a tool argument's string), how far what was read since its start may
    /// still begin a URL: a URL found while it may is the value.
    lead: Lead,
    /// JSON source text (tool-call arguments): strings are decoded before the rules read them.
    json: Option<JsonLexer>,
    /// No value may go anywhere in this text (a tool call its route's policy withholds).
    withheld: bool,
}

impl Default for LinkContext {
    /// Prose: a reply's text.
    fn default() -> LinkContext {
        LinkContext {
            target: None,
            tail: [0; TAIL],
            seen: 0,
            lead: Lead::None,
            json: None,
            withheld: false,
        }
    }
}

impl LinkContext {
    /// A tool argument's decoded string value: a URL it starts with runs to its end.
    pub fn tool_value() -> LinkContext {
        LinkContext {
            lead: Lead::Space,
            ..LinkContext::default()
        }
    }

    /// JSON source text (tool-call arguments as the wire carries them): every string in it is
    /// decoded and read as a [`LinkContext::tool_value`].
    pub fn json_source() -> LinkContext {
        LinkContext {
            json: Some(JsonLexer::default()),
            ..LinkContext::default()
        }
    }

    /// Whether the next byte fed lies inside a link or image target (right after `](`, `]:` or
    /// a URL attribute's `=` it does: a token cannot start with the whitespace that may come
    /// first).
    pub fn in_target(&self) -> bool {
        if self.withheld {
            return true;
        }
        match &self.json {
            Some(lexer) => lexer.in_string() && self.target.is_some(),
            None => self.target.is_some(),
        }
    }

    /// From now on no value goes anywhere in this text: every byte counts as in a target.
    pub(crate) fn withhold(&mut self) {
        self.withheld = true;
    }

    /// Reads `bytes`, the text's next bytes.
    pub fn feed(&mut self, bytes: &[u8]) {
        match self.json.take() {
            Some(mut lexer) => {
                for &c in bytes {
                    lexer.step(c, self);
                }
                self.json = Some(lexer);
            }
            None => {
                for &c in bytes {
                    self.step(c);
                }
            }
        }
    }

    /// Reads one byte of (decoded) text.
    fn step(&mut self, c: u8) {
        self.target = match self.target {
            None => self.entry(c),
            Some(end) => self.next(end, c),
        };
        self.lead = match self.lead {
            Lead::Space if c.is_ascii_whitespace() => Lead::Space,
            Lead::Space | Lead::Scheme if may_begin_url(c) => Lead::Scheme,
            _ => Lead::None,
        };
        self.tail[self.seen % TAIL] = c;
        self.seen += 1;
    }

    /// A new whole value starts (a JSON string opens).
    fn start_value(&mut self) {
        self.target = None;
        self.lead = Lead::Space;
    }

    /// The whole value ends (its JSON string closes): so does any target in it.
    fn end_value(&mut self) {
        self.target = None;
        self.lead = Lead::None;
    }

    /// The byte `k` positions before the next one (`k` ≥ 1), if remembered.
    fn back(&self, k: usize) -> Option<u8> {
        (k <= TAIL && k <= self.seen).then(|| self.tail[(self.seen - k) % TAIL])
    }

    /// Whether the remembered text ends with `s` (ASCII case-insensitive).
    fn ends_with(&self, s: &[u8]) -> bool {
        s.iter()
            .rev()
            .enumerate()
            .all(|(k, &b)| self.back(k + 1).is_some_and(|c| c.eq_ignore_ascii_case(&b)))
    }

    /// Whether the byte before the last `n` starts a word (none, or not alphanumeric).
    fn word_start(&self, n: usize) -> bool {
        self.back(n + 1).is_none_or(|c| !c.is_ascii_alphanumeric())
    }

    /// A bare URL: the whole value when it is what the value starts with, else up to its end.
    fn bare_url(&self) -> End {
        if self.lead != Lead::None {
            End::Value
        } else {
            End::Space
        }
    }
}

/// How far the start of a whole value may still begin a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lead {
    /// Not in a whole value, or past what may begin a URL.
    None,
    /// Only leading whitespace so far.
    Space,
    /// Leading whitespace, then a scheme (`https:`), `www.` or slashes.
    Scheme,
}

/// Whether `c` may come before a URL's `//` or `www.`'s dot at the start of a value.
fn may_begin_url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-' | b':' | b'/')
}
