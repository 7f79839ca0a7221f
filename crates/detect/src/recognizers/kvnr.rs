//! KVNR (Krankenversicherungsnummer, the unchangeable part printed on the eGK): an upper-case
//! letter and nine digits, the last a check digit (`validate::kvnr`). Found from the digit runs
//! (a run of exactly nine digits right after a capital letter), so prose costs nothing.
//!
//! The context step scores it (`context_rules.rs` holds these rows):
//!
//! | Evidence | Score |
//! |---|---|
//! | check digit valid, no context | 0.55 |
//! | + weak context (`Krankenkasse`, `versichert`) | 0.75 |
//! | + strong context (`KVNR`, `Versichertennummer`, `Krankenversicherungsnummer`) | 0.95 |
//! | check digit fails, strong label (typo rule, docs/entities.md §1.6) | 0.6, not validated |
//! | valid but negative context (`Bestellnummer`, `Artikelnummer` …) | 0.3 |

use super::{cand, standalone};
use crate::finding::{Form, Needs};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

pub struct KvnrRecognizer;

impl KvnrRecognizer {
    pub fn new() -> Self {
        KvnrRecognizer
    }
}

impl Recognizer for KvnrRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Kvnr
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let b = s.as_bytes();
        for &(a, e) in text.digit_runs() {
            if e - a != 9 || a == 0 || !b[a - 1].is_ascii_uppercase() {
                continue;
            }
            let start = a - 1;
            if !standalone(s, start, e)
                || super::number_continues_right(s, e, &['.', ',', '-', '/'])
            {
                continue;
            }
            // The score is the context step's (`context_rules.rs`); a failed check digit
            // needs a strong label.
            let valid = validate::kvnr(&b[start..e]);
            let ask = if valid {
                (Form::Main, Needs::Nothing)
            } else {
                (Form::Unchecked, Needs::Strong)
            };
            out.push(cand(EntityType::Kvnr, start, e, 0.0, valid).asking(ask.0, ask.1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::{kept, proposed};

    #[test]
    fn a_labelled_kvnr_with_its_check_digit_is_validated() {
        let r = KvnrRecognizer::new();
        let found = proposed(&r, "Versichertennummer: A123456780");
        assert!(found
            .iter()
            .any(|(v, score, validated)| v == "A123456780" && *validated && *score > 0.9));
    }

    #[test]
    fn the_context_words_found_are_recorded_as_evidence() {
        let r = KvnrRecognizer::new();
        let cues = |s: &str| {
            let mut out = Vec::new();
            let text = Text::new(s);
            r.recognize(&text, &mut out);
            crate::context_rules::apply(&text, &mut out);
            out.iter().map(|c| c.evidence.context).collect::<Vec<_>>()
        };
        let labelled = cues("Versichertennummer: A123456780");
        assert!(labelled.len() == 1 && labelled[0].strong(), "{labelled:?}");
        let bare = cues("Nummer A123456780 bitte prüfen");
        assert!(
            bare.len() == 1 && !bare[0].strong() && !bare[0].weak(),
            "{bare:?}"
        );
        let order = cues("Bestellnummer A123456780");
        assert!(order.len() == 1 && order[0].negative(), "{order:?}");
    }

    #[test]
    fn a_wrong_check_digit_without_a_label_is_not_kept() {
        let r = KvnrRecognizer::new();
        assert!(kept(&r, "Artikel A123456781 ist vorrätig").is_empty());
    }
}
