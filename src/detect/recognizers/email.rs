//! E-mail addresses (entities.md §3): dot-atom local part, ≥ 2 domain labels, alphabetic TLD.

use regex::Regex;

use super::{cand, Context};
use crate::detect::{Candidate, EntityType, Recognizer, Text};

const CONTEXT: Context = Context {
    strong: &[
        "e-mail",
        "email",
        "e-mail-adresse",
        "mail",
        "mailadresse",
        "emailadresse",
    ],
    weak: &[
        "kontakt",
        "erreichbar",
        "schreiben sie an",
        "absender",
        "empfänger",
        "cc",
        "an:",
        "von:",
    ],
    negative: &[],
};

const ROLE: &[&str] = &[
    "info",
    "kontakt",
    "service",
    "support",
    "noreply",
    "no-reply",
    "postmaster",
    "webmaster",
    "datenschutz",
    "git",
    "abuse",
    "office",
    "hello",
    "hallo",
    "team",
    "mail",
    "admin",
    "sales",
    "vertrieb",
    "buchhaltung",
    "rechnung",
    "jobs",
    "karriere",
    "presse",
];

/// File extensions that are also TLDs: `logo@2x.png` is an asset, not an address.
const NOT_TLD: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "svg", "webp", "js", "css", "py", "rs", "md",
];

pub struct EmailRecognizer {
    pattern: Regex,
}

impl EmailRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(
            r"[\p{L}\p{M}0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{M}0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[\p{L}0-9](?:[\p{L}\p{M}0-9-]{0,61}[\p{L}0-9])?\.)+\p{L}{2,24}",
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
        let s = text.view();
        for m in super::find_in(
            &self.pattern,
            s,
            &super::super::text::windows_around(s, |b| b == b'@', 80, 260),
        ) {
            let v = m.as_str();
            let mut start = m.start();
            // `mailto:` belongs outside; a leading apostrophe/quote is punctuation.
            let local_all = v.split('@').next().unwrap_or("");
            let trimmed = local_all.trim_start_matches(['\'', '`', '{', '|', '}', '~', '/', '=']);
            start += local_all.len() - trimmed.len();
            let local = trimmed;
            if local.is_empty() || local.len() > 64 || s[..m.start()].ends_with('.') {
                continue;
            }
            let tld = v.rsplit('.').next().unwrap_or("").to_lowercase();
            if NOT_TLD.contains(&tld.as_str()) {
                continue;
            }
            if s[m.end()..].starts_with(|c: char| c.is_alphanumeric() || c == '@') {
                continue;
            }
            let lower_local = local.to_lowercase();
            let base = if ROLE.iter().any(|r| lower_local == *r) {
                0.7
            } else {
                0.9
            };
            let ev = CONTEXT.evidence(s, start, m.end());
            let score = ev.score(base, 0.1, 0.1, 0.0);
            out.push(cand(EntityType::EmailAddress, start, m.end(), score, false));
        }
    }
}
