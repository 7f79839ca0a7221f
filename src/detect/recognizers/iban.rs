use regex::Regex;

use super::standalone;
use crate::detect::{validate, Candidate, EntityType, Recognizer, Text};

pub struct IbanRecognizer {
    pattern: Regex,
}

impl IbanRecognizer {
    pub fn new() -> Self {
        let pattern =
            Regex::new(r"(?i)\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
                .expect("static IBAN pattern");
        IbanRecognizer { pattern }
    }
}

impl Recognizer for IbanRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Iban
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in self.pattern.find_iter(s) {
            if standalone(s, m.start(), m.end()) && validate::iban_mod97(m.as_str()) {
                out.push(Candidate {
                    entity_type: EntityType::Iban,
                    start: m.start(),
                    end: m.end(),
                    score: 0.95,
                    validated: true,
                });
            }
        }
    }
}
