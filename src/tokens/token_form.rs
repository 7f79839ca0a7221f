//! The byte grammar of the tolerant token forms (`tolerant.rs`): what a match at one position
//! is, and the parts a bracketed form (`[[NAME_1]]`, `[ name_1 ]`, `\[\[NAME\_1\]\]`) is read
//! from. Which prefixes and numbers count is the restorer's business, not this file's.

/// Spaces tolerated inside the brackets, on each side.
pub(super) const MAX_SPACES: usize = 2;
/// Longest token number.
pub(super) const MAX_DIGITS: usize = 6;

/// Result of matching at one position.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// No token form starts here.
    No,
    /// The text ends while a token form could still complete.
    Partial,
    /// A restorable form of `len` bytes; `canonical` is false for tolerant forms.
    Hit {
        len: usize,
        key: (String, u64),
        canonical: bool,
    },
    /// A canonical token of a known prefix that this exchange did not issue.
    Foreign { len: usize },
}

/// A position in the bytes of a possible token form. `at_end`: no more bytes follow, so a form
/// cut off by the end is no form rather than a partial one that the stream holds back.
pub(super) struct Cursor<'b> {
    pub(super) b: &'b [u8],
    pub(super) at: usize,
    pub(super) at_end: bool,
}

impl Cursor<'_> {
    /// `Some(true)` when `s` is at the cursor (and steps over it), `Some(false)` when not,
    /// `None` when the text ends inside it.
    pub(super) fn take(&mut self, s: &[u8]) -> Option<bool> {
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
    pub(super) fn require(&mut self, s: &[u8]) -> Result<(), Step> {
        match self.take(s) {
            Some(true) => Ok(()),
            Some(false) => Err(Step::No),
            None => Err(self.cut()),
        }
    }

    /// Steps over up to [`MAX_SPACES`] spaces; how many.
    pub(super) fn skip_spaces(&mut self) -> usize {
        let mut spaces = 0;
        while self.at < self.b.len() && self.b[self.at] == b' ' && spaces < MAX_SPACES {
            self.at += 1;
            spaces += 1;
        }
        spaces
    }

    /// The answer for a form the text ends inside.
    pub(super) fn cut(&self) -> Step {
        if self.at_end {
            Step::No
        } else {
            Step::Partial
        }
    }
}

/// The prefix of a bracketed form, upper-cased.
pub(super) struct BracketedPrefix {
    pub(super) upper: String,
    /// Issued in this exchange (else only a known prefix).
    pub(super) issued: bool,
    /// Written in upper case already.
    pub(super) as_written: bool,
}

/// The `_` between prefix and number, or its markdown escape `\_`; true for the plain one.
pub(super) fn separator(c: &mut Cursor, md_escapes: bool) -> Result<bool, Step> {
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
pub(super) fn bracketed_number(c: &mut Cursor) -> Result<u64, Step> {
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
