//! The matching view (docs/entities.md §1.2): the text as a reader sees it, which the
//! recognizers search instead of the original bytes, with every view offset mapped back to the
//! original so that a finding covers the bytes that were actually written.
//!
//! What folds, each stretch of the original into one *unit* of the view:
//! - default-ignorable code points (zero-width space and joiners, word joiner, soft hyphen,
//!   BOM, variation selectors, bidi controls) read as nothing;
//! - every Unicode space (NBSP, U+2003, U+3000, …) reads as an ASCII space, line and paragraph
//!   separators as a line break, the Unicode hyphens, dashes and minus as `-`, division and
//!   fraction slashes as `/`, the typographic apostrophe as `'`;
//! - compatibility forms read as their NFKC form (fullwidth `８` as `8`), and a letter followed
//!   by combining marks as its NFKC composition (a decomposed `u` + U+0308 as `ü`);
//! - JSON escapes `\uXXXX` (surrogate pairs included), HTML character references (`&#64;`,
//!   `&#x40;`, named ones from `data/view/html_entities.tsv`) read as their character, which
//!   then folds like any other; a JSON escape behind any number of backslashes (JSON inside a
//!   JSON string, to any depth: `J\\u00fcrgen`) reads the same, and so do `\/`, `\"` and the
//!   line breaks and tab `\n`, `\r`, `\t` unless a lowercase letter follows (`C:\\nadine` is
//!   a path more often than a line break);
//! - terminal escape sequences (colours, `grep --color`, titles' openers) and control
//!   characters (C0 but tab, line feed and carriage return; DEL; C1 but NEL) read as nothing
//!   ([`controls`]); vertical tab and form feed as a line break; the braille blank U+2800,
//!   which shows as a space, as a space;
//! - in e-mail addresses: `%40` and a spelled-out `(at)` / `[at]` / `{at}` read as `@`, and
//!   `(dot)` / `[dot]` / `{dot}` between letters or digits as `.` (spaces around them fold
//!   into the unit). A bare ` at ` is prose too often (`look at example.de`) and stays.
//!
//! A line break inside a grouped number is a separator for the recognizers that read groups
//! (IBAN, cards), not a fold of the view: folding every line break between digits would join
//! table rows.
//!
//! The view is built in one pass; the original is borrowed (no copy, no map) when nothing
//! folds, which a scan for the few bytes that can start a unit decides. Every function is total:
//! any `&str` gives a view, and every view offset maps to a char boundary of the original.

use std::borrow::Cow;
use std::sync::OnceLock;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

#[path = "view_controls.rs"]
mod controls;

static ENTITIES: &str = include_str!("../data/view/html_entities.tsv");

/// One stretch of the original (`orig..orig_end`) that reads as `view..view_end` of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unit {
    view: usize,
    view_end: usize,
    orig: usize,
    orig_end: usize,
}

/// The view of one text: the folded string and the units where it differs from the original
/// (none when the view is the original).
#[derive(Debug)]
pub struct View<'a> {
    text: Cow<'a, str>,
    /// In view order; between two units (and around them) view and original are the same bytes.
    units: Vec<Unit>,
}

impl<'a> View<'a> {
    /// The view of `original`.
    pub fn new(original: &'a str) -> View<'a> {
        let mut b = Builder {
            src: original,
            out: String::new(),
            units: Vec::new(),
            copied: 0,
        };
        let bytes = original.as_bytes();
        let mut i = 0;
        while let Some(p) = next_special(bytes, i) {
            i = match bytes[p] {
                b'\\' => b.json_escape(p),
                b'&' => b.entity(p),
                b'%' => b.percent(p),
                b'(' | b'[' | b'{' => b.spelled(p),
                0x1B => b.hide(p, controls::escape_end(bytes, p)),
                c if c < 0x80 => b.control(p, c),
                _ => b.non_ascii(p),
            };
        }
        if b.units.is_empty() {
            return View {
                text: Cow::Borrowed(original),
                units: Vec::new(),
            };
        }
        b.out.push_str(original.get(b.copied..).unwrap_or(""));
        View {
            text: Cow::Owned(b.out),
            units: b.units,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the view is the original itself (offsets need no mapping).
    pub fn is_original(&self) -> bool {
        self.units.is_empty()
    }

    /// The original offset where a value starting at view offset `v` starts: the start of the
    /// unit `v` falls in, past any ignorable code points right before it.
    pub fn start_in_original(&self, v: usize) -> usize {
        let k = self.units.partition_point(|u| u.view <= v);
        match k.checked_sub(1).and_then(|k| self.units.get(k)) {
            None => v,
            Some(u) if v < u.view_end => u.orig,
            Some(u) => u.orig_end + (v - u.view_end),
        }
    }

    /// The original offset where a value ending at view offset `e` (exclusive) ends: the end
    /// of the unit holding its last byte.
    pub fn end_in_original(&self, e: usize) -> usize {
        let Some(last) = e.checked_sub(1) else {
            return 0;
        };
        let k = self.units.partition_point(|u| u.view <= last);
        match k.checked_sub(1).and_then(|k| self.units.get(k)) {
            None => e,
            Some(u) if last < u.view_end => u.orig_end,
            Some(u) => u.orig_end + (e - u.view_end),
        }
    }
}

/// Marks the bytes that can start a unit: `\`, `&`, `%`, the brackets of `(at)`, the controls
/// but tab, line feed and carriage return, and every non-ASCII byte.
const fn special_bytes() -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i >= 0x80 || i < 0x20 || i == 0x7F;
        i += 1;
    }
    t[b'\t' as usize] = false;
    t[b'\n' as usize] = false;
    t[b'\r' as usize] = false;
    t[b'\\' as usize] = true;
    t[b'&' as usize] = true;
    t[b'%' as usize] = true;
    t[b'(' as usize] = true;
    t[b'[' as usize] = true;
    t[b'{' as usize] = true;
    t
}

static SPECIAL: [bool; 256] = special_bytes();

/// The first special byte from `from` on. Whole blocks of eight plain bytes are skipped with
/// one branch (no early exit inside a block), which keeps the scan of plain text cheap.
fn next_special(b: &[u8], from: usize) -> Option<usize> {
    let special = |c: &u8| SPECIAL[usize::from(*c)];
    let mut at = from;
    for block in b.get(from..)?.chunks_exact(8) {
        if block.iter().fold(false, |hit, c| hit | special(c)) {
            break;
        }
        at += 8;
    }
    b.get(at..)?.iter().position(special).map(|p| at + p)
}

struct Builder<'a> {
    src: &'a str,
    /// The view so far; empty until the first unit.
    out: String,
    units: Vec<Unit>,
    /// `src[..copied]` is in `out` (through units or copied as is).
    copied: usize,
}

impl Builder<'_> {
    /// Replaces `src[from..to]` (at or after `copied`) by `with` in the view.
    fn emit(&mut self, from: usize, to: usize, with: &str) {
        if self.out.capacity() == 0 {
            self.out.reserve(self.src.len() + 16);
        }
        self.out
            .push_str(self.src.get(self.copied..from).unwrap_or(""));
        let view = self.out.len();
        self.out.push_str(with);
        self.units.push(Unit {
            view,
            view_end: self.out.len(),
            orig: from,
            orig_end: to,
        });
        self.copied = to;
    }

    /// Emits the fold of `c` (written as `src[from..to]`, an escape or reference) in its place.
    fn emit_char(&mut self, from: usize, to: usize, c: char) -> usize {
        let mut folded = String::new();
        push_folded(&mut folded, c);
        self.emit(from, to, &folded);
        to
    }

    fn char_at(&self, p: usize) -> Option<char> {
        self.src.get(p..).and_then(|r| r.chars().next())
    }

    /// `src[p..to]` reads as nothing; returns `to`.
    fn hide(&mut self, p: usize, to: usize) -> usize {
        self.emit(p, to, "");
        to
    }

    /// The C0 control or DEL `c` at `p`.
    fn control(&mut self, p: usize, c: u8) -> usize {
        self.emit(p, p + 1, controls::c0_fold(c));
        p + 1
    }

    /// A non-ASCII code point at `p`; returns where the scan goes on.
    fn non_ascii(&mut self, p: usize) -> usize {
        let Some(c) = self.char_at(p) else {
            return p + 1;
        };
        let end = p + c.len_utf8();
        if matches!(c, '\u{80}'..='\u{9F}') && c != '\u{85}' {
            return self.hide(p, controls::c1_end(self.src.as_bytes(), p, c));
        }
        // Latin-1 letters (German umlauts, ß): never fold, the common case in German text.
        if matches!(c, '\u{C0}'..='\u{FF}') {
            return end;
        }
        if let Some(f) = simple_fold(c) {
            self.emit(p, end, f);
            return end;
        }
        if is_combining_mark(c) {
            // Composes with the code point before it, unless that one is already in a unit.
            let start = self.src[..p]
                .char_indices()
                .next_back()
                .map(|(i, _)| i)
                .filter(|&i| i >= self.copied)
                .unwrap_or(p);
            let to = self.marks_end(end);
            self.normalize(start, to);
            return to;
        }
        if is_nfkc_quick(std::iter::once(c)) != IsNormalized::Yes {
            let to = self.marks_end(end);
            self.normalize(p, to);
            return to;
        }
        end
    }

    /// The end of the combining marks from `from` on.
    fn marks_end(&self, from: usize) -> usize {
        let rest = self.src.get(from..).unwrap_or("");
        from + rest
            .char_indices()
            .find(|&(_, c)| !is_combining_mark(c))
            .map_or(rest.len(), |(i, _)| i)
    }

    /// `src[from..to]` in NFKC, every code point of it folded again; a unit when it differs.
    fn normalize(&mut self, from: usize, to: usize) {
        let Some(piece) = self.src.get(from..to) else {
            return;
        };
        let mut folded = String::with_capacity(piece.len());
        for c in piece.nfkc() {
            push_folded(&mut folded, c);
        }
        if folded != piece {
            self.emit(from, to, &folded);
        }
    }

    /// A JSON escape behind a run of backslashes at `p` (one for JSON text, more for JSON
    /// inside JSON strings); a run before anything else stays as written.
    fn json_escape(&mut self, p: usize) -> usize {
        let b = self.src.as_bytes();
        let at = p + b
            .get(p..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c == b'\\')
            .count();
        let with = match b.get(at) {
            Some(b'u') => return self.unicode_escape(p, at),
            Some(b'n' | b'r' | b't') if b.get(at + 1).is_some_and(u8::is_ascii_lowercase) => {
                return at
            }
            Some(b'n') => "\n",
            Some(b'r') => "\r",
            Some(b't') => "\t",
            Some(b'/') => "/",
            Some(b'"') => "\"",
            _ => return at,
        };
        self.emit(p, at + 1, with);
        at + 1
    }

    /// `\uXXXX` at `at` (the backslashes from `p`), or a surrogate pair of two; a lone
    /// surrogate stays as written.
    fn unicode_escape(&mut self, p: usize, at: usize) -> usize {
        let b = self.src.as_bytes();
        // The hex code of `\uXXXX` behind the backslashes from `from`, and its end.
        let unit = |from: usize| -> Option<(u32, usize)> {
            let u = from + b.get(from..)?.iter().take_while(|&&c| c == b'\\').count();
            let hex = self.src.get(u + 1..u + 5)?;
            let ok =
                u > from && b.get(u) == Some(&b'u') && hex.bytes().all(|c| c.is_ascii_hexdigit());
            ok.then(|| u32::from_str_radix(hex, 16).ok())
                .flatten()
                .map(|code| (code, u + 5))
        };
        let Some((first, end)) = unit(p) else {
            return at;
        };
        let (code, to) = match first {
            0xD800..=0xDBFF => match unit(end) {
                Some((low @ 0xDC00..=0xDFFF, to)) => {
                    (0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00), to)
                }
                _ => return at,
            },
            _ => (first, end),
        };
        match char::from_u32(code) {
            Some(c) => self.emit_char(p, to, c),
            None => at,
        }
    }

    /// `&#64;`, `&#x40;` or a named reference of the table, `;` required.
    fn entity(&mut self, p: usize) -> usize {
        let rest = self.src.get(p + 1..).unwrap_or("");
        let Some(semi) = rest.bytes().take(33).position(|b| b == b';') else {
            return p + 1;
        };
        let body = &rest[..semi];
        let code = if let Some(num) = body.strip_prefix('#') {
            let (digits, radix) = match num.strip_prefix(['x', 'X']) {
                Some(hex) => (hex, 16),
                None => (num, 10),
            };
            let ok = !digits.is_empty()
                && digits.len() <= 7
                && digits.bytes().all(|b| (b as char).is_digit(radix));
            ok.then(|| u32::from_str_radix(digits, radix).ok())
                .flatten()
                .filter(|&c| c != 0)
        } else {
            named_entity(body)
        };
        match code.and_then(char::from_u32) {
            Some(c) => self.emit_char(p, p + 1 + semi + 1, c),
            None => p + 1,
        }
    }

    /// `%40` between the local part and the domain of an address.
    fn percent(&mut self, p: usize) -> usize {
        let b = self.src.as_bytes();
        let local_before = p
            .checked_sub(1)
            .and_then(|i| b.get(i))
            .is_some_and(|&c| c.is_ascii_alphanumeric() || b"._+-".contains(&c));
        let domain_after = b.get(p + 3).is_some_and(u8::is_ascii_alphanumeric);
        if self.src.get(p..p + 3) == Some("%40") && local_before && domain_after {
            self.emit(p, p + 3, "@");
            return p + 3;
        }
        p + 1
    }

    /// `(at)`, `[at]`, `{at}` before a domain, and `(dot)` & co. between letters or digits,
    /// with the spaces around them.
    fn spelled(&mut self, p: usize) -> usize {
        let b = self.src.as_bytes();
        let close = match b[p] {
            b'(' => b')',
            b'[' => b']',
            _ => b'}',
        };
        let word = |w: &str| {
            let n = w.len();
            b.get(p + 1..p + 1 + n)
                .is_some_and(|x| x.eq_ignore_ascii_case(w.as_bytes()))
                && b.get(p + 1 + n) == Some(&close)
        };
        let (with, after) = if word("at") {
            ("@", p + 4)
        } else if word("dot") {
            (".", p + 5)
        } else {
            return p + 1;
        };
        let mut from = p;
        while from > self.copied && b.get(from - 1) == Some(&b' ') {
            from -= 1;
        }
        let mut to = after;
        while b.get(to) == Some(&b' ') {
            to += 1;
        }
        let left = from
            .checked_sub(1)
            .and_then(|i| b.get(i))
            .is_some_and(|&c| c.is_ascii_alphanumeric() || (with == "@" && b"._+-".contains(&c)));
        let right = if with == "@" {
            domain_follows(b, to)
        } else {
            b.get(to).is_some_and(u8::is_ascii_alphanumeric)
        };
        if !(left && right) || from < self.copied {
            return p + 1;
        }
        self.emit(from, to, with);
        to
    }
}

/// A domain from `at`: a label, then `.` or a spelled-out dot, then a letter or digit.
fn domain_follows(b: &[u8], at: usize) -> bool {
    let label = b
        .get(at..)
        .unwrap_or(&[])
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
        .count();
    if label == 0 {
        return false;
    }
    let mut i = at + label;
    if b.get(i) == Some(&b'.') {
        return b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric);
    }
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    let spelled = b.get(i..i + 5).is_some_and(|x| {
        matches!((x[0], x[4]), (b'(', b')') | (b'[', b']') | (b'{', b'}'))
            && x[1..4].eq_ignore_ascii_case(b"dot")
    });
    spelled
}

/// Appends what `c` reads as: its simple fold, else its NFKC form (folded once more).
fn push_folded(out: &mut String, c: char) {
    if let Some(f) = simple_fold(c).or_else(|| controls::control_fold(c)) {
        out.push_str(f);
        return;
    }
    if c.is_ascii() || is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes {
        out.push(c);
        return;
    }
    for n in std::iter::once(c).nfkc() {
        match simple_fold(n) {
            Some(f) => out.push_str(f),
            None => out.push(n),
        }
    }
}

/// The folds that do not need normalization: ignorables vanish, spaces and separators become
/// ASCII, the typographic dashes and slashes their ASCII sign. `None` for every ASCII `c`.
fn simple_fold(c: char) -> Option<&'static str> {
    if c.is_ascii() {
        return None;
    }
    Some(match c {
        '\u{85}' | '\u{2028}' | '\u{2029}' => "\n",
        c if c.is_whitespace() || c == '\u{2800}' => " ",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2212}' | '\u{FE63}'
        | '\u{FF0D}' => "-",
        '\u{FF0B}' => "+",
        '\u{2215}' | '\u{2044}' => "/",
        // the typographic apostrophe (`I’ve`, `O’Brien`): the word lists spell it `'`
        '\u{2019}' | '\u{02BC}' => "'",
        c if is_default_ignorable(c) => "",
        _ => return None,
    })
}

/// Unicode's Default_Ignorable_Code_Point, from the regex crate's own property tables.
fn is_default_ignorable(c: char) -> bool {
    static RANGES: OnceLock<Vec<(char, char)>> = OnceLock::new();
    let ranges = RANGES.get_or_init(|| {
        use regex_syntax::hir::{Class, HirKind};
        let hir = regex_syntax::Parser::new().parse(r"\p{Default_Ignorable_Code_Point}");
        match hir.as_ref().map(|h| h.kind()) {
            Ok(HirKind::Class(Class::Unicode(set))) => {
                set.ranges().iter().map(|r| (r.start(), r.end())).collect()
            }
            _ => Vec::new(),
        }
    });
    let k = ranges.partition_point(|&(start, _)| start <= c);
    k.checked_sub(1)
        .and_then(|k| ranges.get(k))
        .is_some_and(|&(_, end)| c <= end)
}

/// The code point of a named HTML reference of the table (names are case-sensitive).
fn named_entity(name: &str) -> Option<u32> {
    static TABLE: OnceLock<Vec<(&'static str, u32)>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t: Vec<(&str, u32)> = ENTITIES
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let (n, hex) = l.split_once('\t')?;
                Some((n, u32::from_str_radix(hex.trim(), 16).ok()?))
            })
            .collect();
        t.sort_unstable();
        t
    });
    table
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .and_then(|k| table.get(k))
        .map(|&(_, c)| c)
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
