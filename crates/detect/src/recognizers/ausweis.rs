//! AUSWEIS (German ID card and passport numbers since 2010): nine characters of a reduced
//! alphabet (digits and `C F G H J K L M N P R T V W X Y Z`), the first a letter, optionally
//! followed by the ICAO 9303 check digit (weights 7-3-1) as printed in the machine-readable
//! zone. Found from the digit runs (every number holds at least three digits): each run is
//! widened to the token of that alphabet around it.
//!
//! Such tokens also occur as product codes, so without the check digit only a context word
//! lets the number through; with a valid check digit (1 random string in 10 passes) it is
//! emitted on its own at a modest score.
//!
//! The context step scores it (`context_rules.rs` holds these rows):
//!
//! | Evidence | Score |
//! |---|---|
//! | 9 characters + valid check digit, no context | 0.55 (validated) |
//! | + weak context (`ausgestellt`, `Bürgeramt`) | 0.75 |
//! | + strong context (`Personalausweis`, `Ausweisnummer`, `Reisepass`, `passport`) | 0.95 |
//! | 9 characters without check digit, strong context | 0.8 |
//! | 9 characters without check digit, no strong context | 0.3 (dropped) |
//! | negative context (`Bestellnummer`, `Artikelnummer`, `Seriennummer` …) | −0.3 |

use super::{cand, standalone};
use crate::finding::{Form, Needs};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

pub struct AusweisRecognizer;

impl AusweisRecognizer {
    pub fn new() -> Self {
        AusweisRecognizer
    }
}

impl Recognizer for AusweisRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Ausweis
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let b = s.as_bytes();
        let mut last_end = 0;
        for &(a, e) in text.digit_runs() {
            if a < last_end {
                continue;
            }
            // The token of the document alphabet around the run (at most 10 characters).
            let mut start = a;
            while start > 0 && a - start < 10 && validate::ausweis_char(b[start - 1]) {
                start -= 1;
            }
            let mut end = e;
            while end < b.len() && end - start < 11 && validate::ausweis_char(b[end]) {
                end += 1;
            }
            last_end = end;
            let len = end - start;
            if !(9..=10).contains(&len) || !standalone(s, start, end) {
                continue;
            }
            let number = &b[start..start + 9];
            if !validate::ausweis_number(number) {
                continue;
            }
            let check = (len == 10).then(|| b[start + 9]);
            let valid = match check {
                Some(c) => validate::icao_check_digit(number) == Some(c.wrapping_sub(b'0')),
                None => false,
            };
            if check.is_some() && !valid {
                continue;
            }
            // The score is the context step's (`context_rules.rs`).
            let form = if valid { Form::Main } else { Form::Unchecked };
            out.push(
                cand(EntityType::Ausweis, start, end, 0.0, valid).asking(form, Needs::Nothing),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::{kept, proposed};

    #[test]
    fn the_specimen_id_card_number_with_its_check_digit() {
        let r = AusweisRecognizer::new();
        let found = proposed(&r, "Personalausweis T220001293");
        assert!(found
            .iter()
            .any(|(_, score, validated)| *validated && *score > 0.9));
    }

    #[test]
    fn without_check_digit_or_strong_context_nothing_is_kept() {
        let r = AusweisRecognizer::new();
        assert!(kept(&r, "Artikel T22000129 ist vorrätig").is_empty());
    }
}
