//! German licence plates (docs/entities.md §11): code from the official list, 1–2 letters,
//! 1–4 digits, optional `E`/`H`; uppercase only. The context step scores them
//! (`crate::context_rules`), apart after an all-caps word.

use regex::Regex;

use super::cand;
use crate::finding::{Form, Needs};
use crate::lexicon::Lexicon;
use crate::{Candidate, EntityType, Recognizer, Text};

pub struct KfzRecognizer {
    pattern: Regex,
    lexicon: &'static Lexicon,
}

impl KfzRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(r"([A-ZÄÖÜ]{1,3})[- ]([A-Z]{1,2})[ -]?([1-9][0-9]{0,3})( ?[EH])?")
            .expect("static KFZ pattern");
        KfzRecognizer {
            pattern,
            lexicon: Lexicon::get(),
        }
    }
}

/// Where the pattern can match: its number opens a digit run (a letter or one separator is
/// before it, never a digit) with a non-zero digit, and [`plate_before`] holds there. The plate
/// starts at most 10 bytes earlier (`ÄÖÜ-AB ` with two-byte umlauts) and ends at most 2 bytes
/// after the number's fourth digit (` E`).
fn windows(s: &str, runs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let spans = runs
        .iter()
        .filter(|&&(a, _)| matches!(b.get(a), Some(b'1'..=b'9')) && plate_before(b, a))
        .map(|&(a, e)| (a, e.min(a + 4)));
    super::widen(s, spans, 10, 2)
}

/// True when the bytes before a number at `a` can be the rest of a plate: an optional `[ -]`,
/// one or two ASCII capitals, `[- ]`, and a code that ends in a capital (`Ä`, `Ö`, `Ü` end in
/// their second byte 0x84, 0x96, 0x9C after 0xC3).
fn plate_before(b: &[u8], a: usize) -> bool {
    let at = |i: Option<usize>| i.and_then(|i| b.get(i).copied());
    let code_ends_at = |i: Option<usize>| match at(i) {
        Some(c) if c.is_ascii_uppercase() => true,
        Some(0x84 | 0x96 | 0x9C) => at(i.and_then(|i| i.checked_sub(1))) == Some(0xC3),
        _ => false,
    };
    let with_sep = matches!(at(a.checked_sub(1)), Some(b' ' | b'-'));
    [false, true]
        .into_iter()
        .filter(|&sep| !sep || with_sep)
        .any(|sep| {
            let letters_end = a - usize::from(sep);
            (1..=2).any(|n| {
                let Some(letters) = letters_end.checked_sub(n) else {
                    return false;
                };
                b[letters..letters_end].iter().all(u8::is_ascii_uppercase)
                    && matches!(at(letters.checked_sub(1)), Some(b' ' | b'-'))
                    && code_ends_at(letters.checked_sub(2))
            })
        })
}

/// Score of a plate whose code is also a word (`ES IL 2993`) written in mixed-case prose:
/// there the capitals are no word (`es` would be lower case), so it needs no context word.
const WORDLIKE_IN_PROSE: f32 = 0.6;

impl KfzRecognizer {
    /// A code that is also a common word or abbreviation (`AN`, `ES`, `OK`): it needs context.
    fn is_wordlike(&self, code: &str) -> bool {
        self.lexicon.lists.kfz_wordlike_codes.contains(&code)
    }

    /// True when a plate with a word-like code reads as a plate and not as words: the word
    /// before it has a lower-case letter (prose, not all-caps signage), the letters after the
    /// code are no word themselves (`AB MO 10`), and what follows the number is neither an
    /// all-caps word nor a unit (`AM MI 10 Uhr`).
    fn word_like_code_is_plate(&self, s: &str, prev_word: &str, letters: &str, end: usize) -> bool {
        let rest = s[end..].trim_start_matches(' ');
        let next_word = &rest[..rest
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(rest.len())];
        let next_lower = next_word.to_lowercase();
        prev_word.chars().any(char::is_lowercase)
            && !self.is_wordlike(letters)
            && (next_word.is_empty() || next_word.chars().any(char::is_lowercase))
            && !self
                .lexicon
                .lists
                .number_units
                .contains(&next_lower.as_str())
    }
}

impl Recognizer for KfzRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::KfzKennzeichen
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for (base, c) in super::captures_in(&self.pattern, s, &windows(s, text.digit_runs())) {
            let (Some(m), Some(code), Some(letters), Some(num)) =
                (c.get(0), c.get(1), c.get(2), c.get(3))
            else {
                continue;
            };
            let (mstart, mut end) = (base + m.start(), base + m.end());
            let suffix = c.get(4);
            let before_ok = !s[..mstart]
                .chars()
                .next_back()
                .is_some_and(|x| x.is_alphanumeric() || x == '-');
            let mut after = s[end..].chars().next();
            if suffix.is_none() && after.is_some_and(char::is_alphanumeric) {
                continue;
            }
            if suffix.is_some() && after.is_some_and(char::is_alphanumeric) {
                // `M-AB 123 Hauptstraße`: the suffix was the start of a word.
                end = base + num.end();
                after = s[end..].chars().next();
                if after.is_some_and(char::is_alphanumeric) {
                    continue;
                }
            }
            if !before_ok || !self.lexicon.kfz.contains(code.as_str()) {
                continue;
            }
            let core = code.as_str().chars().count() + letters.len() + num.len();
            if core > 8 || code.as_str() == "DIN" {
                continue;
            }
            // Numbers continuing with a separator + digit (`B AB 12.5`) are something else.
            if s[end..].starts_with(['.', ',', ':', '/'])
                && s[end + 1..].starts_with(|x: char| x.is_ascii_digit())
            {
                continue;
            }
            let prev_word = s[..mstart]
                .trim_end()
                .rsplit(|x: char| !x.is_alphabetic())
                .next()
                .unwrap_or("");
            let score = if !self.is_wordlike(code.as_str()) {
                0.75
            } else if self.word_like_code_is_plate(s, prev_word, letters.as_str(), end) {
                WORDLIKE_IN_PROSE
            } else {
                0.45
            };
            // All-caps running text (`AB MO 10 UHR`): its own table, with a penalty.
            let caps = prev_word.chars().count() >= 2 && prev_word.chars().all(char::is_uppercase);
            let form = if caps {
                Form::AfterCapsWord
            } else {
                Form::Main
            };
            out.push(
                cand(EntityType::KfzKennzeichen, mstart, end, score, false)
                    .asking(form, Needs::Nothing),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::kept;

    #[test]
    fn a_word_like_code_in_mixed_case_prose_is_a_plate() {
        let r = KfzRecognizer::new();
        for s in [
            "der wagen hatte ES XK 481 und fuhr weiter",
            "Notiert habe ich AN QZ 77, mehr nicht.",
        ] {
            assert_eq!(kept(&r, s).len(), 1, "{s}");
        }
        for s in [
            "ÖFFNUNGSZEITEN AB MO 10 UHR",
            "Termin AM MI 10 Uhr im Haus",
            "wir sehen uns AB MO 10",
            "GESCHLOSSEN ES IL 20 TAGE",
        ] {
            assert!(kept(&r, s).is_empty(), "{s}");
        }
    }

    #[test]
    fn after_an_all_caps_word_a_plate_needs_a_context_word() {
        let r = KfzRecognizer::new();
        assert!(kept(&r, "PARKVERBOT B-XY 123").is_empty());
        assert_eq!(
            kept(&r, "KENNZEICHEN B-XY 123"),
            vec!["B-XY 123".to_owned()]
        );
        assert_eq!(kept(&r, "Parkverbot B-XY 123"), vec!["B-XY 123".to_owned()]);
    }

    #[test]
    fn plates_need_letters_and_a_code_before_the_number() {
        for (s, ok) in [
            ("B-AB 123", true),
            ("M X1", true),
            ("ÖHR-Q 7", true),
            ("auf DE89", false),
            ("RE-2024", false),
            ("AB12", false),
            ("12", false),
        ] {
            let a = s.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
            assert_eq!(plate_before(s.as_bytes(), a), ok, "{s}");
        }
    }
}
