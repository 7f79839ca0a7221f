//! The tolerant grammar of one token form at a position: bare `PREFIX_n`, bracketed `[[…]]`,
//! `[…]`, spaced, lower-case and markdown-escaped forms.

use super::{Step, TolerantRestorer, KNOWN_PREFIXES, MAX_DIGITS, MAX_SPACES};

impl TolerantRestorer {
    /// `PREFIX_n` at `i` (an upper-case letter on a word boundary).
    pub(super) fn bare(&self, b: &[u8], i: usize, at_end: bool) -> Step {
        let mut j = i;
        while j < b.len() && b[j].is_ascii_uppercase() && j - i <= self.longest_prefix {
            j += 1;
        }
        let letters = &b[i..j];
        if j == b.len() {
            // Could still grow into an issued prefix.
            return if !at_end && self.is_prefix_of_issued(letters) {
                Step::Partial
            } else {
                Step::No
            };
        }
        let Ok(prefix) = std::str::from_utf8(letters) else {
            return Step::No;
        };
        let Some(at) = self.prefix_index(prefix).filter(|_| b[j] == b'_') else {
            return Step::No;
        };
        j += 1;
        let ds = j;
        while j < b.len() && b[j].is_ascii_digit() && j - ds < MAX_DIGITS + 1 {
            j += 1;
        }
        if j == b.len() && !at_end {
            return Step::Partial;
        }
        if j == ds || j - ds > MAX_DIGITS {
            return Step::No;
        }
        // Word boundary after: not a letter/digit; `_` only as a markdown closer.
        match b.get(j) {
            Some(&c) if c.is_ascii_alphanumeric() || c >= 0x80 => return Step::No,
            Some(b'_') => match b.get(j + 1) {
                None if !at_end => return Step::Partial,
                Some(&c) if c.is_ascii_alphanumeric() || c >= 0x80 => return Step::No,
                _ => {}
            },
            _ => {}
        }
        let Ok(n) = std::str::from_utf8(&b[ds..j]).unwrap_or("x").parse::<u64>() else {
            return Step::No;
        };
        let key = (at, n);
        if self.values.contains_key(&key) {
            Step::Hit {
                len: j - i,
                key,
                canonical: false,
            }
        } else {
            Step::No
        }
    }

    fn is_prefix_of_issued(&self, letters: &[u8]) -> bool {
        self.prefixes
            .iter()
            .any(|p| p.len() >= letters.len() && p.as_bytes()[..letters.len()] == *letters)
    }

    fn is_prefix_of_issued_ci(&self, letters: &[u8]) -> bool {
        self.prefixes.iter().any(|p| {
            p.len() >= letters.len() && p.as_bytes()[..letters.len()].eq_ignore_ascii_case(letters)
        })
    }

    /// `[`, `[[`, `\[`, `\[\[` forms at `i`.
    pub(super) fn bracketed(&self, b: &[u8], i: usize, at_end: bool, md_escapes: bool) -> Step {
        let escaped = b[i] == b'\\';
        if escaped && !md_escapes {
            return Step::No;
        }
        let mut c = Cursor { b, at: i, at_end };
        self.read_bracketed(&mut c, escaped, md_escapes)
            .unwrap_or_else(|stop| stop)
    }

    /// Reads a bracketed form part by part; `Err` is the answer as soon as one part rules the
    /// form out (or the text ends inside it).
    fn read_bracketed(
        &self,
        c: &mut Cursor,
        escaped: bool,
        md_escapes: bool,
    ) -> Result<Step, Step> {
        let start = c.at;
        let open: &[u8] = if escaped { b"\\[" } else { b"[" };
        c.require(open)?;
        let openers = match c.take(open) {
            Some(true) => 2,
            Some(false) => 1,
            None => return Err(c.cut()),
        };
        let spaces = c.skip_spaces();
        let prefix = self.bracketed_prefix(c)?;
        let plain_separator = separator(c, md_escapes)?;
        let n = bracketed_number(c)?;
        let trailing = c.skip_spaces();
        let close: &[u8] = if escaped { b"\\]" } else { b"]" };
        c.require(close)?;
        // `[[NAME_1]` — one closer lost — still restores, as a tolerant form.
        let closers = if openers == 2 {
            match c.take(close) {
                Some(true) => 2,
                Some(false) => 1,
                None => return Err(c.cut()),
            }
        } else {
            1
        };
        let canonical = openers == 2
            && closers == 2
            && spaces == 0
            && trailing == 0
            && !escaped
            && prefix.as_written
            && plain_separator;
        let len = c.at - start;
        Ok(match prefix.issued.map(|at| (at, n)) {
            Some(key) if self.values.contains_key(&key) => Step::Hit {
                len,
                key,
                canonical,
            },
            _ if canonical => Step::Foreign { len },
            _ => Step::No,
        })
    }

    /// The letters of a bracketed form, any case, when they name an issued or a known prefix.
    fn bracketed_prefix(&self, c: &mut Cursor) -> Result<BracketedPrefix, Step> {
        let (b, ls) = (c.b, c.at);
        let mut j = ls;
        while j < b.len() && b[j].is_ascii_alphabetic() && j - ls <= self.longest_prefix.max(8) {
            j += 1;
        }
        if j == b.len() {
            return Err(if !c.at_end && self.is_prefix_of_issued_ci(&b[ls..j]) {
                Step::Partial
            } else {
                Step::No
            });
        }
        if j == ls {
            return Err(Step::No);
        }
        let letters = &b[ls..j];
        let upper = letters.to_ascii_uppercase();
        let Ok(upper) = std::str::from_utf8(&upper) else {
            return Err(Step::No);
        };
        let issued = self.prefix_index(upper);
        if issued.is_none() && !KNOWN_PREFIXES.contains(upper) {
            return Err(Step::No);
        }
        c.at = j;
        Ok(BracketedPrefix {
            as_written: letters == upper.as_bytes(),
            issued,
        })
    }
}

/// A position in the bytes of a possible token form. `at_end`: no more bytes follow, so a form
/// cut off by the end is no form rather than a partial one that the stream holds back.
struct Cursor<'b> {
    b: &'b [u8],
    at: usize,
    at_end: bool,
}

impl Cursor<'_> {
    /// `Some(true)` when `s` is at the cursor (and steps over it), `Some(false)` when not,
    /// `None` when the text ends inside it.
    fn take(&mut self, s: &[u8]) -> Option<bool> {
        let avail = &self.b[self.at.min(self.b.len())..];
        if avail.len() >= s.len() {
            let there = &avail[..s.len()] == s;
            if there {
                self.at += s.len();
            }
            Some(there)
        } else if s.starts_with(avail) && !self.at_end {
            None
        } else {
            Some(false)
        }
    }

    /// Steps over `s`, which the form needs here.
    fn require(&mut self, s: &[u8]) -> Result<(), Step> {
        match self.take(s) {
            Some(true) => Ok(()),
            Some(false) => Err(Step::No),
            None => Err(self.cut()),
        }
    }

    /// Steps over up to [`MAX_SPACES`] spaces; how many.
    fn skip_spaces(&mut self) -> usize {
        let mut spaces = 0;
        while self.at < self.b.len() && self.b[self.at] == b' ' && spaces < MAX_SPACES {
            self.at += 1;
            spaces += 1;
        }
        spaces
    }

    /// The answer for a form the text ends inside.
    fn cut(&self) -> Step {
        if self.at_end {
            Step::No
        } else {
            Step::Partial
        }
    }
}

/// What the letters of a bracketed form name: an issued prefix or only a known one.
struct BracketedPrefix {
    /// Its index among the prefixes issued in this exchange (`None`: only a known prefix).
    issued: Option<usize>,
    /// Written in upper case already.
    as_written: bool,
}

/// The `_` between prefix and number, or its markdown escape `\_`; true for the plain one.
fn separator(c: &mut Cursor, md_escapes: bool) -> Result<bool, Step> {
    match c.take(b"_") {
        Some(true) => Ok(true),
        Some(false) => match c.take(b"\\_") {
            Some(true) if md_escapes => Ok(false),
            None if md_escapes => Err(c.cut()),
            _ => Err(Step::No),
        },
        None => Err(c.cut()),
    }
}

/// The number of a bracketed form: 1 to [`MAX_DIGITS`] digits, and more text after them.
fn bracketed_number(c: &mut Cursor) -> Result<u64, Step> {
    let (b, ds) = (c.b, c.at);
    let mut j = ds;
    while j < b.len() && b[j].is_ascii_digit() && j - ds <= MAX_DIGITS {
        j += 1;
    }
    if j == b.len() {
        return Err(c.cut());
    }
    if j == ds || j - ds > MAX_DIGITS {
        return Err(Step::No);
    }
    let Ok(n) = std::str::from_utf8(&b[ds..j]).unwrap_or("x").parse::<u64>() else {
        return Err(Step::No);
    };
    c.at = j;
    Ok(n)
}
