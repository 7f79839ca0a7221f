//! UST_ID (German Umsatzsteuer-Identifikationsnummer): `DE` and nine digits, written
//! `DE123456789`, `DE 123456789` or `DE 123 456 789`; the ninth digit is the ISO/IEC 7064
//! MOD 11,10 check digit of the first eight (`validate::ust_id_de`). Found from the digit runs
//! (`DE` right before), so prose costs nothing.
//!
//! The context step scores it (`context_rules.rs` holds these rows):
//!
//! | Evidence | Score |
//! |---|---|
//! | check digit valid, no context (`DE` + checksum is already distinctive) | 0.75 |
//! | + weak context (`Umsatzsteuer`, `Rechnung`) | 0.85 |
//! | + strong context (`USt-IdNr.`, `VAT ID`) | 0.95 |
//! | check digit fails, strong label (typo rule) | 0.6, not validated |
//! | valid but negative context (`Bestellnummer` …) | 0.45 |

use super::{cand, number_continues_right, standalone};
use crate::finding::{Form, Needs};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

pub struct UstIdRecognizer;

impl UstIdRecognizer {
    pub fn new() -> Self {
        UstIdRecognizer
    }
}

/// The nine digits starting at run `k` (one run of nine, or three runs of three with single
/// spaces): their end byte and the digits.
fn nine_digits(s: &str, runs: &[(usize, usize)], k: usize) -> Option<(usize, [u8; 9])> {
    let b = s.as_bytes();
    let (a, e) = runs[k];
    let mut digits = [0u8; 9];
    if e - a == 9 {
        digits.copy_from_slice(&b[a..e]);
        return Some((e, digits));
    }
    let groups = runs.get(k..k + 3)?;
    let mut prev_end = None;
    for (g, &(ga, ge)) in groups.iter().enumerate() {
        if ge - ga != 3 || prev_end.is_some_and(|p| ga != p + 1 || b[p] != b' ') {
            return None;
        }
        digits[g * 3..g * 3 + 3].copy_from_slice(&b[ga..ge]);
        prev_end = Some(ge);
    }
    prev_end.map(|end| (end, digits))
}

impl Recognizer for UstIdRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::UstId
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let b = s.as_bytes();
        let runs = text.digit_runs();
        for k in 0..runs.len() {
            let a = runs[k].0;
            let start = if a >= 2 && &b[a - 2..a] == b"DE" {
                a - 2
            } else if a >= 3 && &b[a - 3..a] == b"DE " {
                a - 3
            } else {
                continue;
            };
            let Some((end, digits)) = nine_digits(s, runs, k) else {
                continue;
            };
            if !standalone(s, start, end) || number_continues_right(s, end, &['.', ',', '-', '/']) {
                continue;
            }
            // The score is the context step's (`context_rules.rs`); a failed check digit
            // needs a strong label.
            let valid = validate::ust_id_de(&digits);
            let (form, needs) = if valid {
                (Form::Main, Needs::Nothing)
            } else {
                (Form::Unchecked, Needs::Strong)
            };
            out.push(cand(EntityType::UstId, start, end, 0.0, valid).asking(form, needs));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::{kept, validated};

    #[test]
    fn the_published_sample_is_validated_in_every_spelling() {
        let r = UstIdRecognizer::new();
        for text in [
            "USt-IdNr.: DE136695976",
            "USt-IdNr. DE 136695976",
            "USt-IdNr. DE 136 695 976",
        ] {
            assert!(validated(&r, text), "{text}");
        }
    }

    #[test]
    fn a_wrong_check_digit_without_a_label_is_not_kept() {
        let r = UstIdRecognizer::new();
        assert!(kept(&r, "Lieferschein DE136695975 liegt bei").is_empty());
    }
}
