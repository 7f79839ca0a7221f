//! Context scoring (docs/entities.md §1.5/§1.6): the words that raise or lower a candidate's score
//! when they occur near it. The context step (`crate::context_rules`), which scores them, and the
//! checks that still read context themselves (LOCATION's postcodes and towns, DATE's amount
//! words) describe their words as a [`Context`] and compile it once into a [`ContextIndex`], the one path by which context
//! is looked for.

use std::ops::ControlFlow;

use super::window::{after, before};
use super::word_scan;
use crate::finding::Cues;

/// Lowercased copy of a (short, bounded) window.
pub(crate) fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// Calls `f` with exactly `s.to_lowercase()`: through [`with_lower`] (no allocation) for ASCII
/// text (most words and cells), through [`lower`] otherwise (the final-sigma rule included), so
/// that lexicon look-ups see the same key either way.
pub(crate) fn with_exact_lower<R>(s: &str, f: impl FnOnce(&str) -> R) -> R {
    // Short ASCII words (most look-up keys) in a small buffer: no char loop, no large buffer
    // to clear.
    if s.len() <= 64 && s.is_ascii() {
        let mut buf = [0u8; 64];
        let slot = &mut buf[..s.len()];
        slot.copy_from_slice(s.as_bytes());
        slot.make_ascii_lowercase();
        return match std::str::from_utf8(slot) {
            Ok(t) => f(t),
            Err(_) => f(&lower(s)),
        };
    }
    if s.is_ascii() {
        with_lower(s, f)
    } else {
        f(&lower(s))
    }
}

/// Calls `f` with the lowercase of a short window without allocating: char by char into a
/// stack buffer (the same as [`lower`] except for the final-sigma rule, which no context word
/// involves), falling back to [`lower`] for windows that do not fit.
pub(crate) fn with_lower<R>(s: &str, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = [0u8; 512];
    let mut len = 0;
    let mut rest = s;
    loop {
        // ASCII stretches are copied and lowercased as slices; other chars go through Unicode.
        let ascii = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        let Some(slot) = buf.get_mut(len..len + ascii) else {
            return f(&lower(s));
        };
        slot.copy_from_slice(&rest.as_bytes()[..ascii]);
        slot.make_ascii_lowercase();
        len += ascii;
        rest = &rest[ascii..];
        let Some(c) = rest.chars().next() else {
            break;
        };
        rest = &rest[c.len_utf8()..];
        for l in c.to_lowercase() {
            let Some(slot) = buf.get_mut(len..len + l.len_utf8()) else {
                return f(&lower(s));
            };
            l.encode_utf8(slot);
            len += l.len_utf8();
        }
    }
    match std::str::from_utf8(&buf[..len]) {
        Ok(t) => f(t),
        Err(_) => f(&lower(s)),
    }
}

/// Context words of one type (lowercase), usually lists of the lexicon.
pub(crate) struct Context {
    pub strong: &'static [&'static str],
    pub weak: &'static [&'static str],
    pub negative: &'static [&'static str],
}

/// The context words found around a candidate (recorded in its evidence as [`Cues`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Nearby {
    pub strong: bool,
    pub weak: bool,
    pub negative: bool,
}

impl Nearby {
    /// The cues as a candidate's evidence records them.
    pub fn cues(self) -> Cues {
        Cues::new(self.strong, self.weak, self.negative)
    }
}

/// Which list of a [`Context`] a word comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    Strong,
    Weak,
    Negative,
}

/// A [`Context`] compiled once per recognizer: finds the words of all three lists in one
/// automaton pass over the window (no allocation; the DFA is stepped directly, as in
/// [`word_scan`], since a window is too short for a search's set-up to pay), ignoring the case
/// of ASCII letters, so that a window whose lowercase differs only in ASCII letters
/// ([`lowercase_keeps`]) is scanned as it is, without a lowercased copy; token boundaries are
/// checked only where a word occurs. (Its answers equal a plain token-by-token search over the lowercased window, kept in
/// the tests as the reference.)
pub(crate) struct ContextIndex {
    words: aho_corasick::dfa::DFA,
    /// The strong words alone (pattern ids as in `words`, whose strong words come first): a
    /// caller that reads only [`Nearby::strong`] need not step over the matches of the others.
    strong_words: aho_corasick::dfa::DFA,
    /// Per pattern id: its list, and whether it ends in a letter or digit (then no letter or
    /// digit may follow).
    cues: Vec<(Cue, bool)>,
}

impl ContextIndex {
    pub fn new(context: &Context) -> ContextIndex {
        let mut patterns: Vec<&'static str> = Vec::new();
        let mut cues = Vec::new();
        for (words, cue) in [
            (context.strong, Cue::Strong),
            (context.weak, Cue::Weak),
            (context.negative, Cue::Negative),
        ] {
            // A word that is not lowercase never occurs in a lowercased window: it is left out,
            // so that the case-insensitive search cannot find it either.
            for &w in words
                .iter()
                .filter(|w| !w.is_empty() && w.to_lowercase() == **w)
            {
                patterns.push(w);
                cues.push((cue, w.ends_with(|c: char| c.is_alphanumeric())));
            }
        }
        let build =
            |patterns: &[&str]| word_scan::automaton(patterns).expect("static context words");
        let strong = cues.iter().take_while(|(c, _)| *c == Cue::Strong).count();
        ContextIndex {
            words: build(&patterns),
            strong_words: build(&patterns[..strong]),
            cues,
        }
    }

    /// [`ContextIndex::evidence_within`]`(s, start, end, 50).strong` alone, without looking for
    /// the other words.
    pub fn strong(&self, s: &str, start: usize, end: usize) -> bool {
        self.scan_window(before(s, start, 50), true).strong || {
            let a = after(s, end, 25);
            memchr::memchr(b'(', a.as_bytes()).is_some() && self.scan_window(a, true).strong
        }
    }

    /// [`ContextIndex::evidence_within`] 50 bytes back, the look-back of most rules.
    #[cfg(test)]
    pub fn evidence(&self, s: &str, start: usize, end: usize) -> Nearby {
        self.evidence_within(s, start, end, 50)
    }

    /// Looks `back` bytes back (same line, or a preceding `label:` line) and 25 bytes ahead (for
    /// a strong word in parentheses: `0171 1234567 (Tel)`).
    pub fn evidence_within(&self, s: &str, start: usize, end: usize, back: usize) -> Nearby {
        let mut ev = self.scan_window(before(s, start, back), false);
        let a = after(s, end, 25);
        if !ev.strong && memchr::memchr(b'(', a.as_bytes()).is_some() {
            ev.strong = self.scan_window(a, true).strong;
        }
        ev
    }

    /// The cues whose words occur in the window before byte `start` only (at most `back` bytes,
    /// same line or a preceding `label:` line), with no look-ahead.
    pub fn before(&self, s: &str, start: usize, back: usize) -> Nearby {
        self.scan_window(before(s, start, back), false)
    }

    /// [`ContextIndex::scan`] of the lowercase of `window`: the window itself when lowercasing
    /// changes only ASCII letters (the comparison ignores their case), a lowercased copy
    /// otherwise.
    fn scan_window(&self, window: &str, strong_only: bool) -> Nearby {
        if lowercase_keeps(window) {
            self.scan(window, strong_only)
        } else {
            with_lower(window, |w| self.scan(w, strong_only))
        }
    }

    /// The cues whose words occur as whole tokens in `hay` (lowercase but for ASCII letters),
    /// as [`has_word`] decides: not after a letter, digit or hyphen, and not followed by a
    /// letter or digit when the word ends in one. Only strong ones when `strong_only`.
    fn scan(&self, hay: &str, strong_only: bool) -> Nearby {
        let mut ev = Nearby::default();
        // Where the last strong and the last negative word end: the nearer one decides.
        let (mut strong_end, mut negative_end) = (0, 0);
        let words = if strong_only {
            &self.strong_words
        } else {
            &self.words
        };
        word_scan::each_occurrence(words, hay.as_bytes(), |m| {
            let Some(&(cue, closed_end)) = self.cues.get(m.pattern) else {
                return ControlFlow::Continue(());
            };
            let seen = match cue {
                Cue::Strong => strong_only && ev.strong,
                Cue::Weak => ev.weak || strong_only,
                Cue::Negative => strong_only,
            };
            // Words and window are UTF-8, so a match starts and ends on char boundaries.
            let (before, after) = (
                hay.get(..m.start).unwrap_or(""),
                hay.get(m.end..).unwrap_or(""),
            );
            if seen
                || in_token(hay, m.start)
                || before
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '-')
                || closed_end && after.chars().next().is_some_and(char::is_alphanumeric)
            {
                return ControlFlow::Continue(());
            }
            match cue {
                Cue::Strong => (ev.strong, strong_end) = (true, strong_end.max(m.end)),
                Cue::Weak => ev.weak = true,
                Cue::Negative => (ev.negative, negative_end) = (true, negative_end.max(m.end)),
            }
            if ev.strong && strong_only {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        // A negative word farther from the value than a strong one is another value's label
        // (`Steuer-ID 247…, Steuernummer 62 152 95232`): the nearest context word decides.
        if ev.strong && ev.negative && strong_end > negative_end {
            ev.negative = false;
        }
        ev
    }
}

/// True when lowercasing `s` char by char (as [`with_lower`]) changes only ASCII letters: every
/// other code point is its own lowercase (`ü`, `ß`, `☎`; not `Ü`, `İ`).
fn lowercase_keeps(s: &str) -> bool {
    if s.is_ascii() {
        return true;
    }
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(p) = b
        .get(i..)
        .and_then(|r| r.iter().position(|x| !x.is_ascii()))
    {
        let Some(c) = s.get(i + p..).and_then(|r| r.chars().next()) else {
            return false;
        };
        let mut l = c.to_lowercase();
        if l.next() != Some(c) || l.next().is_some() {
            return false;
        }
        i += p + c.len_utf8();
    }
    true
}

/// True when a word at byte `i` of `hay` is the prefix of a replacement token (`[[tel_1]]`):
/// a token is a placeholder for a value, never a context word.
fn in_token(hay: &str, i: usize) -> bool {
    hay.as_bytes()[..i].ends_with(b"[[")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::window::after;

    #[test]
    fn exact_lower_is_to_lowercase() {
        let long = "A".repeat(200);
        for w in ["Kunde", "ÖLMANN", "ΟΔΟΣ", "Straße", "", long.as_str()] {
            assert_eq!(with_exact_lower(w, str::to_owned), w.to_lowercase(), "{w}");
        }
    }

    /// True when `w` (lowercase) occurs in `hay` at byte `i` and ends a token there: when `w` ends
    /// in a letter or digit, no letter or digit follows it.
    fn word_at(hay: &str, i: usize, w: &str) -> bool {
        let end = i + w.len();
        // Words are short: a byte loop beats a call to memcmp.
        let same = hay
            .as_bytes()
            .get(i..end)
            .is_some_and(|r| r.iter().zip(w.as_bytes()).all(|(a, b)| a == b));
        if w.is_empty() || !same || !hay.is_char_boundary(end) || in_token(hay, i) {
            return false;
        }
        let open_end = !w.ends_with(|c: char| c.is_alphanumeric());
        open_end
            || !hay
                .get(end..)
                .and_then(|r| r.chars().next())
                .is_some_and(char::is_alphanumeric)
    }

    /// Calls `f` with the byte offset of every position of `hay` where a token may begin: not
    /// after a letter/digit or hyphen (`IdNr` must not fire inside `USt-IdNr`). `f` returns false
    /// to stop.
    fn token_starts(hay: &str, mut f: impl FnMut(usize) -> bool) {
        let b = hay.as_bytes();
        let mut may_start = true;
        let mut i = 0;
        while let Some(&x) = b.get(i) {
            if may_start && !f(i) {
                return;
            }
            if x.is_ascii() {
                may_start = !(x.is_ascii_alphanumeric() || x == b'-');
                i += 1;
            } else {
                let c = hay.get(i..).and_then(|r| r.chars().next()).unwrap_or(' ');
                may_start = !c.is_alphanumeric();
                i += c.len_utf8();
            }
        }
    }

    /// True when one of `words` (lowercase) occurs in `hay` (lowercase) as a whole token: not
    /// preceded by a letter/digit or hyphen (`IdNr` must not fire inside `USt-IdNr`), and, when the word ends in a letter, not followed by one.
    fn has_word(hay: &str, words: &[&str]) -> bool {
        // Windows are short (≤ ~100 bytes): one pass over the token starts of `hay`, trying the
        // words only where a token begins with the first byte of one of them.
        let mut firsts = [false; 256];
        for w in words {
            if let Some(&b) = w.as_bytes().first() {
                firsts[usize::from(b)] = true;
            }
        }
        let h = hay.as_bytes();
        let mut found = false;
        token_starts(hay, |i| {
            found = firsts[usize::from(h[i])] && words.iter().any(|w| word_at(hay, i, w));
            !found
        });
        found
    }

    /// Where the last whole-token occurrence of one of `words` in `hay` ends (0: none).
    fn last_end(hay: &str, words: &[&str]) -> usize {
        let mut last = 0;
        token_starts(hay, |i| {
            for w in words {
                if word_at(hay, i, w) {
                    last = last.max(i + w.len());
                }
            }
            true
        });
        last
    }

    /// The reference search: every token start of the window, one word list at a time; a
    /// negative word before the last strong one does not count.
    fn reference(c: &Context, s: &str, start: usize, end: usize) -> Nearby {
        let a = after(s, end, 25);
        with_lower(before(s, start, 50), |b| Nearby {
            strong: has_word(b, c.strong)
                || (a.contains('(') && with_lower(a, |a| has_word(a, c.strong))),
            weak: has_word(b, c.weak),
            negative: has_word(b, c.negative) && last_end(b, c.negative) >= last_end(b, c.strong),
        })
    }

    #[test]
    fn the_nearest_of_a_strong_and_a_negative_word_decides() {
        const C: Context = Context {
            strong: &["steuernummer"],
            weak: &[],
            negative: &["steuer-id"],
        };
        let index = ContextIndex::new(&C);
        let s = "Steuer-ID 24768915326, Steuernummer 123";
        let ev = index.evidence(s, s.len() - 3, s.len());
        assert!(ev.strong && !ev.negative);
        let s = "Steuernummer 2181508150, Steuer-ID 123";
        let ev = index.evidence(s, s.len() - 3, s.len());
        assert!(ev.strong && ev.negative);
    }

    #[test]
    fn whole_tokens_only() {
        assert!(has_word("die steuer-id: ", &["steuer-id"]));
        assert!(!has_word("ust-idnr 123", &["idnr"]));
        assert!(has_word("tel. 030", &["tel."]));
    }

    #[test]
    fn a_token_holds_no_context_word() {
        // a replacement token holds no cue, the word itself still is one
        assert!(!has_word("an [[tel_1]] schicken", &["tel"]));
        assert!(has_word("tel [[name_1]]", &["tel"]));
        let index = ContextIndex::new(&Context {
            strong: &[],
            weak: &[],
            negative: &["tel"],
        });
        assert!(!index.evidence("[[TEL_1]] 86095742719", 10, 21).negative);
        assert!(index.evidence("Tel 86095742719", 4, 15).negative);
    }

    #[test]
    fn lowercase_keeps_only_ascii_changes() {
        for (s, keeps) in [
            ("", true),
            ("Tel. 030", true),
            ("straße über ☎", true),
            ("Über", false),
            ("STRASSE ẞ", false),
            ("\u{212A}", false),
            ("İ", false),
        ] {
            assert_eq!(lowercase_keeps(s), keeps, "{s}");
            if keeps {
                assert_eq!(with_lower(s, str::to_owned), s.to_ascii_lowercase(), "{s}");
            }
        }
    }

    #[test]
    fn a_word_that_is_not_lowercase_never_matches() {
        // A lowercased window cannot hold it; the case-insensitive comparison must not find it.
        let index = ContextIndex::new(&Context {
            strong: &["Tel", "fax"],
            weak: &[],
            negative: &[],
        });
        assert!(!index.evidence("Tel 030 123456", 4, 14).strong);
        assert!(index.evidence("FAX 030 123456", 4, 14).strong);
    }

    #[test]
    fn before_looks_back_only() {
        const C: Context = Context {
            strong: &["tel"],
            weak: &["fax"],
            negative: &[],
        };
        let index = ContextIndex::new(&C);
        let s = "Fax 123 (Tel)";
        assert!(index.evidence(s, 4, 7).strong);
        let ev = index.before(s, 4, 40);
        assert!(!ev.strong && ev.weak);
    }
    #[test]
    fn lowercase_on_the_stack_matches_lower() {
        for s in [
            "",
            "Steuer-ID:",
            "ÜBERWEISUNG an Müller",
            "İstanbul ΣΑΣ ẞ",
            &"ab".repeat(400),
        ] {
            assert_eq!(
                with_lower(s, str::to_owned).replace('ς', "σ"),
                lower(s).replace('ς', "σ")
            );
        }
    }

    #[test]
    fn context_index_agrees_with_context() {
        const C: Context = Context {
            strong: &["steuer-id", "tel.", "tel", "☎"],
            weak: &["überweisung", "fa"],
            negative: &["ust-idnr", "v"],
        };
        let index = ContextIndex::new(&C);
        for s in [
            "Meine Steuer-ID: 123",
            "USt-IdNr 123",
            "Tel.: 123",
            "Telefon 123",
            "per Überweisung, FA Köln 123",
            "Fahrzeug v 123",
            "☎ 123",
            "Kunde\nSteuer-ID:\n123",
            "123 (Tel)",
            "TEL.: 123",
            "PER ÜBERWEISUNG 123",
            "per Überweisung 123",
            "Fa\u{212A} 123",
            "ÜBERWEISUNG-FA 123",
            "an [[TEL_1]] 123",
            "Steuer-IDs 123",
            "☎123",
            "123 (TEL.)",
            "123 (Überweisung, Tel)",
            "USt-IdNr 9, Steuer-ID: 123",
            "Steuer-ID 9, USt-IdNr 123",
            "Tel. 9 v 123",
        ] {
            let start = s.find("123").unwrap_or(0);
            let (a, b) = (
                reference(&C, s, start, start + 3),
                index.evidence(s, start, start + 3),
            );
            assert_eq!(index.strong(s, start, start + 3), a.strong, "{s}");
            assert_eq!(
                (a.strong, a.weak, a.negative),
                (b.strong, b.weak, b.negative),
                "{s}"
            );
        }
    }
}
