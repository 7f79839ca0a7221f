//! IBAN (docs/entities.md §5): two letters + two digits anchor, then alphanumerics with single
//! space/hyphen separators until the registry length is reached; mod 97 decides.

use super::{cand, numeric_standalone, Context, ContextIndex};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

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
    context: ContextIndex,
}

impl IbanRecognizer {
    pub fn new() -> Self {
        IbanRecognizer {
            context: ContextIndex::new(&CONTEXT),
        }
    }
}

/// Starts of the anchors `[A-Za-z]{2}[0-9]{2}` (country code + check digits). The two digits
/// follow letters, so they open a digit run: an anchor is a run of at least two digits with two
/// ASCII letters right before it, and anchors never overlap. No regex needed.
fn anchors<'r>(s: &'r str, runs: &'r [(usize, usize)]) -> impl Iterator<Item = usize> + 'r {
    let b = s.as_bytes();
    runs.iter().filter_map(move |&(a, e)| {
        let start = a.checked_sub(2)?;
        (e - a >= 2 && b[start..a].iter().all(u8::is_ascii_alphabetic)).then_some(start)
    })
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
        for start in anchors(s, text.digit_runs()) {
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
            let ev = self.context.evidence(s, start, end);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::{kept, proposed};

    #[test]
    fn grouped_and_compact_ibans_pass_mod_97() {
        let r = IbanRecognizer::new();
        for text in [
            "IBAN: DE89 3704 0044 0532 0130 00 bei der Bank",
            "Bitte auf DE89370400440532013000 überweisen.",
        ] {
            let found = proposed(&r, text);
            assert!(found.iter().any(|(_, _, validated)| *validated), "{text}");
        }
    }

    #[test]
    fn a_wrong_check_digit_is_dropped_without_a_label() {
        let r = IbanRecognizer::new();
        assert!(kept(&r, "Der Code DE89 3704 0044 0532 0130 01 gilt nicht.").is_empty());
    }
}
