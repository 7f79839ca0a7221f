use regex::Regex;

use super::standalone;
use crate::detect::{validate, Candidate, EntityType, Recognizer, Text};

pub struct CreditCardRecognizer {
    pattern: Regex,
}

impl CreditCardRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(r"\b(?:\d{4}[ -]?){3}\d{4}\b|\b\d{4}[ -]?\d{6}[ -]?\d{5}\b")
            .expect("static card pattern");
        CreditCardRecognizer { pattern }
    }
}

impl Recognizer for CreditCardRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::CreditCard
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in self.pattern.find_iter(s) {
            let v = m.as_str();
            let iin_ok = matches!(v.as_bytes()[0], b'2'..=b'6');
            if iin_ok && standalone(s, m.start(), m.end()) && validate::luhn(v) {
                out.push(Candidate {
                    entity_type: EntityType::CreditCard,
                    start: m.start(),
                    end: m.end(),
                    score: 0.9,
                    validated: true,
                });
            }
        }
    }
}
