use std::net::{Ipv4Addr, Ipv6Addr};

use regex::Regex;

use super::standalone;
use crate::detect::{Candidate, EntityType, Recognizer, Text};

pub struct IpRecognizer {
    pattern: Regex,
}

impl IpRecognizer {
    pub fn new() -> Self {
        let pattern =
            Regex::new(r"(?i)\b\d{1,3}(?:\.\d{1,3}){3}\b|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}")
                .expect("static IP pattern");
        IpRecognizer { pattern }
    }
}

impl Recognizer for IpRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::IpAddress
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in self.pattern.find_iter(s) {
            let v = m.as_str();
            let valid = v.parse::<Ipv4Addr>().is_ok()
                || (v.contains("::") || v.matches(':').count() == 7)
                    && v.parse::<Ipv6Addr>().is_ok();
            // `1.2.3.4.5` (a version) must not yield `1.2.3.4`.
            let extends = s[m.end()..].starts_with('.')
                && s[m.end() + 1..].starts_with(|c: char| c.is_ascii_digit());
            if valid
                && !extends
                && standalone(s, m.start(), m.end())
                && !s[..m.start()].ends_with('.')
            {
                out.push(Candidate {
                    entity_type: EntityType::IpAddress,
                    start: m.start(),
                    end: m.end(),
                    score: 0.85,
                    validated: false,
                });
            }
        }
    }
}
