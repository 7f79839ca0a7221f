//! KVNR (Krankenversicherungsnummer, the unchangeable part printed on the eGK): an upper-case
//! letter and nine digits, the last a check digit (`validate::kvnr`). Found from the digit runs
//! (a run of exactly nine digits right after a capital letter), so prose costs nothing.
//!
//! | Evidence | Score |
//! |---|---|
//! | check digit valid, no context | 0.55 |
//! | + weak context (`Krankenkasse`, `versichert`) | 0.75 |
//! | + strong context (`KVNR`, `Versichertennummer`, `Krankenversicherungsnummer`) | 0.95 |
//! | check digit fails, strong label (typo rule, docs/entities.md §1.6) | 0.6, not validated |
//! | valid but negative context (`Bestellnummer`, `Artikelnummer` …) | 0.3 |

use super::{cand, standalone, Context, ContextIndex};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

const CONTEXT: Context = Context {
    strong: &[
        "kvnr",
        "kv-nr",
        "kv-nr.",
        "kv-nummer",
        "krankenversicherungsnummer",
        "krankenversichertennummer",
        "versichertennummer",
        "versicherten-nr.",
        "versichertennr",
        "versichertennr.",
        "versicherten-id",
        "egk",
        "gesundheitskarte",
        "health insurance number",
    ],
    weak: &[
        "krankenkasse",
        "krankenversicherung",
        "versichert",
        "versicherte",
        "versicherter",
        "kasse",
        "aok",
        "barmer",
        "dak",
        "ikk",
        "bkk",
    ],
    negative: &[
        "bestellnummer",
        "kundennummer",
        "rechnungsnummer",
        "artikelnummer",
        "seriennummer",
        "auftragsnummer",
        "sendungsnummer",
        "vorgangsnummer",
        "tracking",
        "ticket",
        "order",
        "ausweis",
        "personalausweis",
        "reisepass",
    ],
};

pub struct KvnrRecognizer {
    context: ContextIndex,
}

impl KvnrRecognizer {
    pub fn new() -> Self {
        KvnrRecognizer {
            context: ContextIndex::new(&CONTEXT),
        }
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
            let ev = self.context.evidence(s, start, e);
            let valid = validate::kvnr(&b[start..e]);
            let score = match (valid, ev.strong, ev.weak, ev.negative) {
                (false, true, _, _) => 0.6,
                (false, false, _, _) => continue,
                (true, false, _, true) => 0.3,
                (true, true, _, _) => 0.95,
                (true, false, true, false) => 0.75,
                (true, false, false, false) => 0.55,
            };
            out.push(cand(EntityType::Kvnr, start, e, score, valid));
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
    fn a_wrong_check_digit_without_a_label_is_not_kept() {
        let r = KvnrRecognizer::new();
        assert!(kept(&r, "Artikel A123456781 ist vorrätig").is_empty());
    }
}
