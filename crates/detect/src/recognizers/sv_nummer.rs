//! SV-Nummer (docs/entities.md §10): 2 + 6 digits, letter, 2 digits, check digit; optional single
//! space/hyphen separators at the group borders.

use regex::Regex;

use super::{cand, numeric_standalone};
use crate::finding::{Form, Needs};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

pub struct SvNummerRecognizer {
    pattern: Regex,
}

impl SvNummerRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(
            r"[0-9]{2}[ -]?[0-9]{2} ?[0-9]{2} ?[0-9]{2}[ -]?[A-Za-z][ -]?[0-9]{2} ?[0-9]",
        )
        .expect("static SV pattern");
        SvNummerRecognizer { pattern }
    }
}

/// Where the pattern can match: its eight leading digits (single spaces or hyphens between
/// them) end a cluster that a letter and two digits follow, each optionally after one
/// separator; the window runs
/// from the cluster to the end of the longest tail (`[ -]?X[ -]?12 3`).
fn windows(s: &str, runs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let sep = |i: usize| usize::from(matches!(b.get(i), Some(b' ' | b'-')));
    // `[ -]?[A-Za-z][ -]?[0-9]{2}` follows the eight digits.
    let tail_after = |end: usize| {
        let letter = end + sep(end);
        let digits = letter + 1 + sep(letter + 1);
        b.get(letter).is_some_and(u8::is_ascii_alphabetic)
            && b.get(digits..digits + 2)
                .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let spans = super::clusters(s, runs, |gap| matches!(gap, b" " | b"-"))
        .filter(|c| c.digits >= 8 && tail_after(c.end))
        .map(|c| (c.start, c.end));
    super::widen(s, spans, 0, 7)
}

impl Recognizer for SvNummerRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::SvNummer
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in super::find_in(&self.pattern, s, &windows(s, text.digit_runs())) {
            if !numeric_standalone(s, m.start(), m.end()) {
                continue;
            }
            let compact: Vec<u8> = m
                .as_str()
                .bytes()
                .filter(u8::is_ascii_alphanumeric)
                .collect();
            let Some(strict) = validate::sv_nummer(&compact) else {
                continue;
            };
            let base = if strict { 0.85 } else { 0.6 };
            out.push(
                cand(EntityType::SvNummer, m.start(), m.end(), base, true)
                    .asking(Form::Main, Needs::Nothing),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::{kept, validated};

    #[test]
    fn the_sample_number_is_validated_in_its_printed_forms() {
        let r = SvNummerRecognizer::new();
        for text in [
            "Rentenversicherungsnummer 65180539W001",
            "SV-Nummer: 65 180539 W 001",
        ] {
            assert!(validated(&r, text), "{text}");
        }
    }

    #[test]
    fn a_wrong_check_digit_without_a_label_is_not_kept() {
        let r = SvNummerRecognizer::new();
        assert!(kept(&r, "Teil 65180539W002 ist nachbestellt").is_empty());
    }
}
