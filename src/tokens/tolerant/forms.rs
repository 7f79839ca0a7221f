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
        if !self.prefixes.contains(prefix) || b[j] != b'_' {
            return Step::No;
        }
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
        let key = (prefix.to_owned(), n);
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
        // Returns Some(true) when the expected literal is there, Some(false) when not, None
        // when the text ends inside it.
        let lit = |j: usize, s: &[u8]| -> Option<bool> {
            let avail = &b[j.min(b.len())..];
            if avail.len() >= s.len() {
                Some(&avail[..s.len()] == s)
            } else if s.starts_with(avail) && !at_end {
                None
            } else {
                Some(false)
            }
        };
        let partial = |at_end: bool| if at_end { Step::No } else { Step::Partial };
        let mut j = i;
        let escaped = b[i] == b'\\';
        let open: &[u8] = if escaped { b"\\[" } else { b"[" };
        if escaped && !md_escapes {
            return Step::No;
        }
        match lit(j, open) {
            Some(true) => j += open.len(),
            Some(false) => return Step::No,
            None => return partial(at_end),
        }
        let mut openers = 1;
        match lit(j, open) {
            Some(true) => {
                j += open.len();
                openers = 2;
            }
            Some(false) => {}
            None => return partial(at_end),
        }
        let mut spaces = 0;
        while j < b.len() && b[j] == b' ' && spaces < MAX_SPACES {
            j += 1;
            spaces += 1;
        }
        let ls = j;
        while j < b.len() && b[j].is_ascii_alphabetic() && j - ls <= self.longest_prefix.max(8) {
            j += 1;
        }
        if j == b.len() {
            return if !at_end && self.is_prefix_of_issued_ci(&b[ls..j]) {
                Step::Partial
            } else {
                Step::No
            };
        }
        if j == ls {
            return Step::No;
        }
        let letters = &b[ls..j];
        let upper = letters.to_ascii_uppercase();
        let Ok(prefix) = String::from_utf8(upper) else {
            return Step::No;
        };
        let issued = self.prefixes.contains(&prefix);
        let known = KNOWN_PREFIXES.contains(prefix.as_str());
        if !issued && !known {
            return Step::No;
        }
        let mut canonical = openers == 2 && spaces == 0 && !escaped && letters == prefix.as_bytes();
        // `_` or markdown-escaped `\_`
        match lit(j, b"_") {
            Some(true) => j += 1,
            Some(false) => match lit(j, b"\\_") {
                Some(true) if md_escapes => {
                    j += 2;
                    canonical = false;
                }
                None if md_escapes => return partial(at_end),
                _ => return Step::No,
            },
            None => return partial(at_end),
        }
        let ds = j;
        while j < b.len() && b[j].is_ascii_digit() && j - ds <= MAX_DIGITS {
            j += 1;
        }
        if j == b.len() {
            return partial(at_end);
        }
        if j == ds || j - ds > MAX_DIGITS {
            return Step::No;
        }
        let Ok(n) = std::str::from_utf8(&b[ds..j]).unwrap_or("x").parse::<u64>() else {
            return Step::No;
        };
        let mut trailing = 0;
        while j < b.len() && b[j] == b' ' && trailing < MAX_SPACES {
            j += 1;
            trailing += 1;
        }
        if trailing > 0 {
            canonical = false;
        }
        let close: &[u8] = if escaped { b"\\]" } else { b"]" };
        match lit(j, close) {
            Some(true) => j += close.len(),
            Some(false) => return Step::No,
            None => return partial(at_end),
        }
        if openers == 2 {
            match lit(j, close) {
                Some(true) => j += close.len(),
                // `[[NAME_1]` — one closer lost.
                Some(false) => canonical = false,
                None => return partial(at_end),
            }
        }
        let key = (prefix, n);
        if issued && self.values.contains_key(&key) {
            Step::Hit {
                len: j - i,
                key,
                canonical,
            }
        } else if canonical {
            Step::Foreign { len: j - i }
        } else {
            Step::No
        }
    }
}
