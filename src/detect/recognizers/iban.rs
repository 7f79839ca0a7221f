//! IBAN (entities.md §5): two letters + two digits anchor, then alphanumerics with single
//! space/hyphen separators until the registry length is reached; mod 97 decides.

use regex::Regex;

use super::{cand, numeric_standalone, Context};
use crate::detect::{validate, Candidate, EntityType, Recognizer, Text};

const CONTEXT: Context = Context {
    strong: &[
        "iban",
        "kontonummer",
        "konto",
        "kto.",
        "bankverbindung",
        "account",
    ],
    weak: &[
        "bank",
        "bic",
        "swift",
        "kontoinhaber",
        "überweisung",
        "überweisen",
        "sepa",
        "lastschrift",
        "zahlungsempfänger",
        "empfänger",
    ],
    negative: &[
        "gläubiger-id",
        "gläubiger-identifikationsnummer",
        "mandatsreferenz",
        "ust-idnr",
    ],
};

pub struct IbanRecognizer {
    anchor: Regex,
}

impl IbanRecognizer {
    pub fn new() -> Self {
        IbanRecognizer {
            anchor: Regex::new(r"[A-Za-z]{2}[0-9]{2}").expect("static IBAN anchor"),
        }
    }
}

/// Walks from `start` collecting `len` alphanumerics; returns the end byte and the compact form.
fn collect(s: &str, start: usize, len: usize) -> Option<(usize, String)> {
    let b = s.as_bytes();
    let mut compact = String::with_capacity(len);
    let mut i = start;
    while compact.len() < len {
        let c = *b.get(i)?;
        if c.is_ascii_alphanumeric() {
            compact.push(c.to_ascii_uppercase() as char);
            i += 1;
        } else if (c == b' ' || c == b'-')
            && compact.len() >= 2
            && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)
        {
            i += 1;
        } else {
            return None;
        }
    }
    Some((i, compact))
}

impl Recognizer for IbanRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Iban
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in super::find_in(&self.anchor, s, text.digit_windows()) {
            let start = m.start();
            if !numeric_standalone(s, start, start) && start > 0 {
                // A letter or digit directly before: part of a longer token.
                let prev = s[..start].chars().next_back();
                if prev.is_some_and(char::is_alphanumeric) {
                    continue;
                }
            }
            let Some(len) = validate::iban_length(&s.as_bytes()[start..start + 2]) else {
                continue;
            };
            let Some((end, compact)) = collect(s, start, len) else {
                continue;
            };
            if !numeric_standalone(s, start, end) || !validate::iban(&compact) {
                continue;
            }
            let lower_cc = s.as_bytes()[start].is_ascii_lowercase();
            let base = if lower_cc { 0.9 } else { 0.95 };
            let ev = CONTEXT.evidence(s, start, end);
            out.push(cand(
                EntityType::Iban,
                start,
                end,
                ev.score(base, 0.05, 0.05, 0.15),
                true,
            ));
        }
    }
}
