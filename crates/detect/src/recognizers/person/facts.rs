//! Per-word facts of PERSON, computed once per text: the lexicon classes of each word, whether
//! it is a given name or surname as written, and where it stands (joined to the previous word,
//! at a sentence start, before a dot). Every phase reads words through [`NameContext`].

use std::cell::Cell;

use crate::lexicon::{class, Lexicon};
use crate::text::Lexed;
use crate::words::{Shape, Word};

// Keyword classes of the lexicon, short names for the phases.
pub(super) const F_SALUT: u32 = class::SALUTATION;
pub(super) const F_TITLE: u32 = class::TITLE;
pub(super) const F_GREET: u32 = class::GREETING;
pub(super) const F_LABEL: u32 = class::LABEL;
pub(super) const F_SPEECH: u32 = class::SPEECH;
pub(super) const F_ROLE: u32 = class::ROLE;
pub(super) const F_PET: u32 = class::PET;
pub(super) const F_ORG: u32 = class::ORG_BEFORE;
pub(super) const F_PARTICLE: u32 = class::PARTICLE;
pub(super) const F_PARTICLE_LINK: u32 = class::PARTICLE_LINK;
pub(super) const F_LEAD: u32 = class::NAME_LEAD;

/// `Hans-Peter` when every part is a given name, `Schulze-Wiegand` when every part is a name.
pub(super) fn hyphenated_name(
    text: &str,
    lower: &str,
    shape: Shape,
    lex: &Lexicon,
) -> (bool, bool) {
    let mut all_first = true;
    let mut all_names = true;
    for (part, part_lower) in text.split('-').zip(lower.split('-')) {
        let (lower_bits, cased_bits) = lex.classes(part, part_lower);
        let bits = if shape == Shape::Capitalised && part.starts_with(char::is_uppercase) {
            cased_bits
        } else {
            lower_bits
        };
        all_first &= bits & class::FIRST_NAME != 0;
        all_names &= bits & (class::FIRST_NAME | class::LAST_NAME) != 0;
    }
    if all_first {
        (true, false)
    } else {
        (false, all_names)
    }
}

/// The last character of `s[..end]` that is no space, tab, quote, parenthesis, asterisk or
/// hyphen (what may open a name). ASCII bytes are stepped over without decoding; at the first
/// other byte the rest is trimmed char by char (`„`, `“`).
fn char_before_openers(s: &str, end: usize) -> Option<char> {
    let b = s.as_bytes();
    let mut i = end.min(b.len());
    while let Some(&c) = i.checked_sub(1).and_then(|j| b.get(j)) {
        match c {
            b' ' | b'\t' | b'"' | b'(' | b'\'' | b'*' | b'-' => i -= 1,
            c if c.is_ascii() => return Some(char::from(c)),
            _ => {
                return s
                    .get(..i)?
                    .trim_end_matches([' ', '\t', '"', '„', '“', '(', '\'', '*', '-'])
                    .chars()
                    .next_back()
            }
        }
    }
    None
}

/// One bit per word length (lengths past 127 bytes share the last bit).
pub(super) fn length_bit(len: usize) -> u128 {
    1u128 << len.min(127)
}

/// Per-word facts, computed once per text.
pub(super) struct Info {
    /// Lexicon classes of the lowercase form (`F_*` among them).
    pub flags: u32,
    pub first: bool,
    pub last: bool,
    pub stop: bool,
    pub common: bool,
    /// Preceded by exactly one space on the same line (so it may continue a name).
    pub joined: bool,
    /// First word of a sentence or line.
    pub sentence_start: bool,
    /// Followed directly by `.` (initial or abbreviation).
    pub dot_after: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Capitalised name-shaped words only; surname-shape rules apply.
    Prose,
    /// After a strong anchor: capitalised, all-caps, or lowercase gazetteer names.
    Anchored,
}

/// What the PERSON phases read of one text: the text, its words and their facts.
pub(super) struct NameContext<'a> {
    pub text: &'a str,
    pub words: &'a [Word],
    /// The facts of each word, by word index.
    pub word_info: Vec<Info>,
    /// Lowercase forms and lexicon classes, shared with the other word recognizers.
    pub lexed: &'a Lexed,
    pub lex: &'static Lexicon,
    /// The last chain of salutations and titles [`NameContext::skip_titles`] walked: its first word
    /// and the word after it.
    pub last_title_chain: Cell<(usize, usize)>,
}

impl<'a> NameContext<'a> {
    pub(super) fn new(
        text: &'a str,
        words: &'a [Word],
        lexed: &'a Lexed,
        lex: &'static Lexicon,
    ) -> NameContext<'a> {
        let mut word_info = Vec::with_capacity(words.len());
        // Bytes, not `str` slices: every offset here is a word boundary, and the per-word
        // checks below are byte tests (no char-boundary checks on the hot path).
        let b = text.as_bytes();
        let mut prev_end = 0;
        for (i, (word, facts)) in words.iter().zip(lexed.facts()).enumerate() {
            let names = match word.shape {
                Shape::Capitalised => facts.cased,
                Shape::Lower | Shape::Upper if facts.low_len() >= 3 => facts.bits,
                _ => 0,
            };
            let (mut first, mut last) = (
                names & class::FIRST_NAME != 0,
                names & class::LAST_NAME != 0,
            );
            // Segmentation noted the hyphens: no scan of the word's bytes.
            if !first && !last && word.hyphen {
                (first, last) = hyphenated_name(word.text(text), lexed.low(i), word.shape, lex);
            }
            let gap = b.get(prev_end..word.start).unwrap_or(&[]);
            prev_end = word.end;
            // One space or one no-break space (U+00A0).
            let joined = i > 0 && matches!(gap, [b' '] | [0xC2, 0xA0]);
            // Most words follow their neighbour after one space: the character before that
            // space ends a word (a letter), so no sentence starts here. Only other gaps are
            // looked at closely.
            let sentence_start = !joined && {
                let prev_char = char_before_openers(text, word.start);
                prev_char.is_none()
                    || matches!(prev_char, Some('.' | '!' | '?' | '\n' | ':' | '>' | '•'))
                    || gap.contains(&b'\n')
            };
            let dot_after = b.get(word.end) == Some(&b'.');
            word_info.push(Info {
                flags: facts.bits,
                stop: facts.bits & class::STOP != 0,
                common: facts.bits & class::COMMON != 0,
                first,
                last,
                joined,
                sentence_start,
                dot_after,
            });
        }
        NameContext {
            text,
            words,
            word_info,
            lexed,
            lex,
            last_title_chain: Cell::new((usize::MAX, 0)),
        }
    }

    pub(super) fn has(&self, i: usize, flag: u32) -> bool {
        self.word_info.get(i).is_some_and(|f| f.flags & flag != 0)
    }

    /// Lowercase form of word `i`.
    pub(super) fn low(&self, i: usize) -> &str {
        self.lexed.low(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Text;

    #[test]
    fn char_before_openers_trims_as_trim_end_matches() {
        for s in [
            "",
            " ",
            "a",
            "Ende. \"(Anna",
            "x „Anna",
            "Köln“ - *Anna",
            "ä",
            "—'Anna",
            "\t-„",
        ] {
            for end in (0..=s.len()).filter(|&i| s.is_char_boundary(i)) {
                let expect = s[..end]
                    .trim_end_matches([' ', '\t', '"', '„', '“', '(', '\'', '*', '-'])
                    .chars()
                    .next_back();
                assert_eq!(char_before_openers(s, end), expect, "{s:?} {end}");
            }
        }
    }

    #[test]
    fn facts_mark_names_joins_and_sentence_starts() {
        let text = Text::new("Anna  Schmidt. Koch");
        let cx = NameContext::new(text.view(), text.words(), text.lexed(), Lexicon::get());
        assert!(cx.word_info[0].first && cx.word_info[0].sentence_start);
        assert!(cx.word_info[1].last && !cx.word_info[1].joined);
        assert!(cx.word_info[2].sentence_start && cx.word_info[2].common);
        assert!(cx.word_info[1].dot_after);
    }
}
