use regex::Regex;

use crate::detect::{Candidate, EntityType, Recognizer, Text};

pub struct UrlRecognizer {
    pattern: Regex,
}

impl UrlRecognizer {
    pub fn new() -> Self {
        let pattern =
            Regex::new(r#"(?i)\b(?:https?://|www\.)[^\s<>"'`]+"#).expect("static URL pattern");
        UrlRecognizer { pattern }
    }
}

impl Recognizer for UrlRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Url
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        for m in self.pattern.find_iter(text.view()) {
            // Trailing sentence punctuation and closing brackets are not part of the URL.
            let trimmed = m
                .as_str()
                .trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}']);
            if trimmed.len() > 7 {
                out.push(Candidate {
                    entity_type: EntityType::Url,
                    start: m.start(),
                    end: m.start() + trimmed.len(),
                    score: 0.9,
                    validated: false,
                });
            }
        }
    }
}
