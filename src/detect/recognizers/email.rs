use regex::Regex;

use crate::detect::{Candidate, EntityType, Recognizer, Text};

pub struct EmailRecognizer {
    pattern: Regex,
}

impl EmailRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(
            r"(?i)[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[\p{L}0-9](?:[\p{L}0-9-]{0,61}[\p{L}0-9])?\.)+\p{L}{2,24}",
        )
        .expect("static e-mail pattern");
        EmailRecognizer { pattern }
    }
}

impl Recognizer for EmailRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::EmailAddress
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        for m in self.pattern.find_iter(text.view()) {
            out.push(Candidate {
                entity_type: EntityType::EmailAddress,
                start: m.start(),
                end: m.end(),
                score: 0.95,
                validated: false,
            });
        }
    }
}
