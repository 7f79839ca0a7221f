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

use grammar::{End, Tail};
use json::{Decoded, JsonLexer};
pub use tools::ToolPolicy;

/// The position of a reader in a text: in prose or inside a link target.
#[derive(Debug, Clone)]
pub struct LinkContext {
    target: Option<End>,
    /// What was read last, for the rules that look back.
    tail: Tail,
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
            tail: Tail::default(),
            json: None,
            withheld: false,
        }
    }
}

impl LinkContext {
    /// A tool argument's decoded string value: a URL it starts with runs to its end.
    pub fn tool_value() -> LinkContext {
        let mut cx = LinkContext::default();
        cx.tail.start_value();
        cx
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
            None => self.tail.entry(c),
            Some(end) => self.tail.next(end, c),
        };
        self.tail.push(c);
    }
}

impl Decoded for LinkContext {
    fn byte(&mut self, c: u8) {
        self.step(c);
    }

    /// A new whole value starts (a JSON string opens).
    fn start_value(&mut self) {
        self.target = None;
        self.tail.start_value();
    }

    /// The whole value ends (its JSON string closes): so does any target in it.
    fn end_value(&mut self) {
        self.target = None;
        self.tail.end_value();
    }
}
