//! The text model: the original input, an offset-preserving matching view, and the conversion
//! from byte offsets (what `regex` reports) to code-point offsets (what the API promises).

use std::sync::OnceLock;

use super::lexicon::{word_hash, Lexicon};
use super::view::View;
use super::words::{tokenize, Word};
use super::{Candidate, Finding};

/// Input text prepared for matching. `Sync`: the engine runs recognizers of one text on two
/// threads (see [`Detector`](super::Detector)), and whichever needs the words first segments them
/// for both.
pub struct Text<'a> {
    original: &'a str,
    /// What a reader sees ([`View`], docs/entities.md §1.2), with offsets mapped back.
    view: View<'a>,
    /// Words of the view, segmented on first use (shared by PERSON and LOCATION).
    words: OnceLock<Vec<Word>>,
    /// Lowercase forms and lexicon classes of the words (see [`Text::lexed`]).
    lexed: OnceLock<Lexed>,
    /// Maximal runs of ASCII digits in the view.
    digit_runs: OnceLock<Vec<(usize, usize)>>,
    /// Byte ranges of the view around quoted `key: "value"` pairs (see [`Text::field_windows`]).
    field_windows: OnceLock<Vec<(usize, usize)>>,
}

impl<'a> Text<'a> {
    pub fn new(original: &'a str) -> Text<'a> {
        Text {
            original,
            view: View::new(original),
            words: OnceLock::new(),
            field_windows: OnceLock::new(),
            digit_runs: OnceLock::new(),
            lexed: OnceLock::new(),
        }
    }

    pub fn original(&self) -> &'a str {
        self.original
    }

    /// The matching view; candidates carry byte offsets into this string.
    pub fn view(&self) -> &str {
        self.view.as_str()
    }

    /// The words of the view (letters with inner hyphens/apostrophes), in order.
    pub fn words(&self) -> &[Word] {
        self.words.get_or_init(|| tokenize(self.view()))
    }

    /// The words' lowercase forms and lexicon classes, one lookup per word, shared by every
    /// recognizer that works on words.
    pub fn lexed(&self) -> &Lexed {
        self.lexed
            .get_or_init(|| Lexed::new(self.view(), self.words(), Lexicon::get()))
    }

    /// Disjoint, sorted byte ranges of the view around every `:` or `=` that is followed (after
    /// optional whitespace) by a quote: where structured data such as `"name": "Anna"` or
    /// `city='Köln'` can be. 40 bytes before (the key), 110 after (the quoted value). Prose
    /// colons (`14:30`, `https:`, `Hinweis:`) open no window.
    pub fn field_windows(&self) -> &[(usize, usize)] {
        self.field_windows.get_or_init(|| {
            let view = self.view();
            let b = view.as_bytes();
            let quoted_after = |i: usize| {
                view.get(i + 1..)
                    .is_some_and(|rest| rest.trim_start().starts_with(['"', '\'']))
            };
            let mut out: Vec<(usize, usize)> = Vec::new();
            for i in memchr::memchr2_iter(b':', b'=', b) {
                if !quoted_after(i) {
                    continue;
                }
                let start = floor_boundary(view, i.saturating_sub(40));
                let end = ceil_boundary(view, i + 1 + 110);
                match out.last_mut() {
                    Some(last) if start <= last.1 => last.1 = last.1.max(end),
                    _ => out.push((start, end)),
                }
            }
            out
        })
    }

    /// Converts accepted candidates (sorted by start, disjoint, byte offsets into the view) into
    /// findings with code-point offsets of the original, in one pass over it. A candidate
    /// covers every original byte of the units it touches; when two touch the same unit, the
    /// later one starts where the earlier ends (and one the earlier covers whole is dropped).
    pub fn to_findings(&self, sorted: Vec<Candidate>) -> Vec<Finding> {
        let mut sorted = sorted;
        let mut boundaries: Vec<usize> = Vec::with_capacity(sorted.len() * 2);
        if self.view.is_original() {
            for c in &sorted {
                boundaries.push(c.start);
                boundaries.push(c.end);
            }
        } else {
            let mut last_end = 0;
            sorted.retain(|c| {
                let start = self.view.start_in_original(c.start).max(last_end);
                let end = self.view.end_in_original(c.end);
                if start >= end {
                    return false;
                }
                boundaries.push(start);
                boundaries.push(end);
                last_end = end;
                true
            });
        }
        let chars = byte_to_char_offsets(self.original, &boundaries);
        sorted
            .iter()
            .zip(chars.chunks_exact(2).zip(boundaries.chunks_exact(2)))
            .map(|(c, (se, bytes))| Finding {
                entity_type: c.entity_type,
                start: se[0],
                end: se[1],
                bytes: (bytes[0], bytes[1]),
                score: c.score.clamp(0.0, 1.0),
                validated: c.validated,
                evidence: c.evidence,
            })
            .collect()
    }

    /// Sorted byte ranges of the maximal runs of ASCII digits in the view. The numeric
    /// recognizers group them into the clusters their own patterns can span and search only
    /// there, so each pays for the few bytes its matches can cover instead of a wide window.
    pub fn digit_runs(&self) -> &[(usize, usize)] {
        self.digit_runs.get_or_init(|| digit_runs(self.view()))
    }
}

/// The maximal runs of ASCII digits of `s`. Prose has few digits, so 16-byte blocks without
/// one are skipped with a single (vectorised) test.
fn digit_runs(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some(block) = b.get(i..i + 16) {
            if !block.iter().fold(false, |any, c| any | c.is_ascii_digit()) {
                i += 16;
                continue;
            }
        }
        let Some(p) = b[i..].iter().position(u8::is_ascii_digit) else {
            break;
        };
        let start = i + p;
        let len = b[start..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(b.len() - start);
        out.push((start, start + len));
        i = start + len;
    }
    out
}

/// What the lexicon says about each word of a text (index = word index).
pub struct Lexed {
    /// All lowercase forms, one after the other (one allocation per text).
    lows: String,
    facts: Vec<WordFacts>,
}

/// One word's lowercase form and classes (`lexicon::class` bits).
#[derive(Debug, Clone, Copy)]
pub struct WordFacts {
    /// Byte range of the lowercase form in [`Lexed`]'s buffer.
    low: (u32, u32),
    /// [`word_hash`] of the lowercase form (the name tagger's features reuse it).
    pub low_hash: u64,
    /// Classes of the lowercase form.
    pub bits: u32,
    /// Classes of the word exactly as written (gazetteer spellings).
    pub cased: u32,
}

impl WordFacts {
    /// Length in bytes of the lowercase form.
    pub fn low_len(&self) -> usize {
        self.low.1.saturating_sub(self.low.0) as usize
    }
}

impl Lexed {
    fn new(s: &str, words: &[Word], lexicon: &Lexicon) -> Lexed {
        let mut facts = Vec::with_capacity(words.len());
        let mut fact = |text: &str, low: &str, range: (usize, usize)| {
            let low_hash = word_hash(low);
            let (bits, cased) = lexicon.classes_of_hash(text, low, low_hash);
            facts.push(WordFacts {
                low: (range.0 as u32, range.1 as u32),
                low_hash,
                bits,
                cased,
            });
        };
        // The whole text lowercased at once, when no code point changes its length: every word's
        // lowercase form is then the same byte range of that copy (no copy per word).
        if let Some(lows) = lowercase_same_length(s) {
            for word in words {
                let low = lows.get(word.start..word.end).unwrap_or("");
                fact(word.text(s), low, (word.start, word.end));
            }
            return Lexed { lows, facts };
        }
        let mut lows = String::with_capacity(s.len());
        for word in words {
            let text = word.text(s);
            let from = lows.len();
            push_lowercase(&mut lows, text);
            fact(text, &lows[from..], (from, lows.len()));
        }
        Lexed { lows, facts }
    }

    /// Facts of word `i`.
    pub fn facts(&self) -> &[WordFacts] {
        &self.facts
    }

    /// Lowercase form of word `i` (empty past the end).
    pub fn low(&self, i: usize) -> &str {
        self.facts
            .get(i)
            .and_then(|f| self.lows.get(f.low.0 as usize..f.low.1 as usize))
            .unwrap_or("")
    }
}

/// Appends `text` lowercased char by char (`char::to_lowercase`, no final-sigma rule), in one
/// pass without a call per word: ASCII bytes directly, German and other Latin-1 letters, most
/// of the non-ASCII ones in practice, by their offset (`À`–`Þ` but `×` are the upper-case
/// letters of the block, each 32 below its lower case), the rest through Unicode's tables.
fn push_lowercase(out: &mut String, text: &str) {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(&byte) = b.get(i) {
        if byte.is_ascii() {
            out.push(char::from(byte.to_ascii_lowercase()));
            i += 1;
            continue;
        }
        let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        match latin1_lowercase(c) {
            Some(lower) => out.push(lower),
            None => out.extend(c.to_lowercase()),
        }
        i += c.len_utf8();
    }
}

/// The lowercase of a Latin-1 code point by its offset (`À`–`Þ` but `×` move by 32, the rest
/// of U+0080–U+00FF stays), without Unicode's tables; `None` beyond Latin-1.
fn latin1_lowercase(c: char) -> Option<char> {
    match c {
        '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{DE}' => char::from_u32(u32::from(c) + 32),
        '\u{80}'..='\u{FF}' => Some(c),
        _ => None,
    }
}

/// `s` with every code point lowercased (`char::to_lowercase`, as [`push_lowercase`]), or `None`
/// when some code point's lowercase form has another length in UTF-8 (`İ`, `Ⱥ`: rare) or is
/// several code points. ASCII bytes in one vectorised pass, then each non-ASCII code point in
/// place (German and other Latin-1 letters by their offset, the rest through Unicode's tables).
fn lowercase_same_length(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = s.to_ascii_lowercase();
    let mut i = 0;
    while let Some(at) = next_non_ascii(b, i) {
        let c = s.get(at..)?.chars().next()?;
        let len = c.len_utf8();
        let lower = match latin1_lowercase(c) {
            Some(lower) => lower,
            None => {
                let mut it = c.to_lowercase();
                match (it.next(), it.next()) {
                    (Some(l), None) if l.len_utf8() == len => l,
                    _ => return None,
                }
            }
        };
        if lower != c {
            out.replace_range(at..at + len, lower.encode_utf8(&mut [0; 4]));
        }
        i = at + len;
    }
    Some(out)
}

/// Offset of the first non-ASCII byte of `b` at or after `from`, eight bytes a step.
fn next_non_ascii(b: &[u8], from: usize) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while let Some(chunk) = b.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        if word & HIGH != 0 {
            return Some(i + (word & HIGH).trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    let rest = b.get(i..)?;
    rest.iter().position(|c| !c.is_ascii()).map(|p| i + p)
}

/// Maps each byte offset of the non-decreasing list `byte_offsets` to its code-point offset,
/// counting the bytes that start a code point (all but UTF-8 continuation bytes).
pub fn byte_to_char_offsets(s: &str, byte_offsets: &[usize]) -> Vec<usize> {
    let bytes = s.as_bytes();
    let (mut at_byte, mut at_char) = (0usize, 0usize);
    byte_offsets
        .iter()
        .map(|&b| {
            let b = b.min(bytes.len());
            if b < at_byte {
                (at_byte, at_char) = (0, 0);
            }
            // code points start at every byte but UTF-8 continuation bytes (bytecount: a word at a time)
            at_char += bytecount::num_chars(&bytes[at_byte..b]);
            at_byte = b;
            at_char
        })
        .collect()
}

/// Largest char boundary `<= i`.
pub(crate) fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Smallest char boundary `>= i`.
pub(crate) fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_findings_bytes_hold_what_its_code_points_hold() {
        let d = crate::Detector::new();
        for text in [
            "Grüße an Jörg Müller, Tel. 030 1234567, E-Mail jörg@example.de",
            // A view that differs from the original: escapes, a soft hyphen, fullwidth digits.
            concat!(
                "Frau Kowal\\u00adska, IBAN DE89 3704 0044 0532 0130 00, ",
                "ruf an: ０３０ １２３４５６７, mail anna&#64;example.org 😀"
            ),
        ] {
            let found = d.detect(text);
            assert!(found.len() >= 3, "{text}: {found:?}");
            for f in found {
                let by_chars: String = text.chars().skip(f.start).take(f.end - f.start).collect();
                assert_eq!(
                    text.get(f.bytes.0..f.bytes.1),
                    Some(by_chars.as_str()),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn byte_offsets_become_code_points() {
        let s = "Grüße an ä";
        // "Grüße" is 5 code points, 7 bytes.
        assert_eq!(
            byte_to_char_offsets(s, &[0, 7, 8, s.len()]),
            vec![0, 5, 6, 10]
        );
    }

    #[test]
    fn byte_offsets_map_to_char_offsets() {
        let long = "Grüße, Łódź ∑ 東京 😀 ".repeat(5);
        for s in ["", "a", "ä", "abcdefgh", "äbcdefgh€", long.as_str()] {
            let cuts: Vec<usize> = (0..=s.len()).filter(|&i| s.is_char_boundary(i)).collect();
            let chars: Vec<usize> = cuts.iter().map(|&cut| s[..cut].chars().count()).collect();
            assert_eq!(byte_to_char_offsets(s, &cuts), chars);
        }
    }

    #[test]
    fn lowercase_matches_char_to_lowercase() {
        let mut all: String = ('\0'..='\u{24F}').collect();
        all.push_str("ẞ İ Σ Ω Ǆ ǅ Ⅻ Ⓐ 𐐀");
        let mut fast = String::new();
        push_lowercase(&mut fast, &all);
        let slow: String = all.chars().flat_map(char::to_lowercase).collect();
        assert_eq!(fast, slow);
    }

    #[test]
    fn next_non_ascii_finds_the_first_high_byte() {
        let long = format!("{}ä{}é", "a".repeat(21), "b".repeat(9));
        for s in [
            "",
            "abc",
            "ä",
            "abcdefgh",
            "abcdefghä",
            "abcdefgh12345678ü",
            &long,
        ] {
            let b = s.as_bytes();
            for from in 0..=b.len() {
                let expect = b[from..]
                    .iter()
                    .position(|c| !c.is_ascii())
                    .map(|p| from + p);
                assert_eq!(next_non_ascii(b, from), expect, "{s} {from}");
            }
        }
    }

    #[test]
    fn whole_text_lowercase_matches_per_char() {
        let same = |c: &char| {
            let mut it = c.to_lowercase();
            matches!((it.next(), it.next()), (Some(l), None) if l.len_utf8() == c.len_utf8())
        };
        let mut all: String = ('\0'..='\u{24F}').filter(same).collect();
        all.push_str("Σ Ω Ǆ ǅ Ⅻ Ⓐ 𐐀 Straße ÄÖÜ");
        let slow: String = all.chars().flat_map(char::to_lowercase).collect();
        assert_eq!(lowercase_same_length(&all).as_deref(), Some(slow.as_str()));
        // A code point whose lowercase form is longer leaves it to the per-word path.
        assert_eq!(lowercase_same_length("Istanbul İzmir"), None);
        assert_eq!(lowercase_same_length("ȺB"), None);
        assert_eq!(lowercase_same_length("STRAẞE"), None);
        // Both paths give every word the same lowercase form and classes.
        for s in ["Grüße aus Köln, Herr MÜLLER-Łódź", "İzmir und Köln", "GROẞ"] {
            let t = Text::new(s);
            let lexed = t.lexed();
            for (i, w) in t.words().iter().enumerate() {
                let mut low = String::new();
                push_lowercase(&mut low, w.text(s));
                assert_eq!(lexed.low(i), low, "{s}");
            }
        }
    }

    #[test]
    fn digit_runs_are_maximal() {
        let long = format!("{}7{}", "x".repeat(40), "ä".repeat(9));
        for s in [
            "",
            "abc",
            "1",
            "a12b3",
            "12.345,6 €",
            "0123456789012345678x",
            &long,
        ] {
            let expect: Vec<(usize, usize)> = {
                let b = s.as_bytes();
                let mut v: Vec<(usize, usize)> = Vec::new();
                for (i, c) in b.iter().enumerate() {
                    if c.is_ascii_digit() {
                        match v.last_mut() {
                            Some(last) if last.1 == i => last.1 = i + 1,
                            _ => v.push((i, i + 1)),
                        }
                    }
                }
                v
            };
            assert_eq!(digit_runs(s), expect, "{s:?}");
        }
    }

    #[test]
    fn view_keeps_code_point_count() {
        let t = Text::new("DE89\u{00A0}3704\u{2013}x");
        assert_eq!(t.view(), "DE89 3704-x");
        assert_eq!(t.view().chars().count(), t.original().chars().count());
    }
}
