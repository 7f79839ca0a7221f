//! Payment cards (docs/entities.md §6): 13–19 digits, consistent separators, brand prefix and
//! length, Luhn. Dots separate the groups only in the printed layouts (`4111.1111.1111.1111`,
//! Amex 4-6-5): dotted digit groups are far more often amounts, versions or addresses.

use regex::Regex;

use super::{cand, numeric_standalone};
use crate::finding::{Form, Needs};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

pub struct CreditCardRecognizer {
    pattern: Regex,
}

impl CreditCardRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(r"[0-9]{4}(?:[ -]?[0-9]{2,6}){1,4}").expect("static card pattern");
        CreditCardRecognizer { pattern }
    }
}

/// Known brand for the digits, with its allowed lengths.
fn brand_ok(d: &[u8]) -> bool {
    let n = d.len();
    let p = |k: usize| -> u32 {
        d.iter()
            .take(k)
            .fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0'))
    };
    match d.first() {
        Some(b'4') => matches!(n, 13 | 16 | 19),
        Some(b'5') => {
            (51..=55).contains(&p(2)) && n == 16 || [5018, 5020, 5038, 5893].contains(&p(4))
        }
        Some(b'2') => (2221..=2720).contains(&p(4)) && n == 16 || (2200..=2204).contains(&p(4)),
        Some(b'3') => {
            matches!(p(2), 34 | 37) && n == 15
                || (matches!(p(2), 36 | 38 | 39) || (300..=305).contains(&p(3)) || p(4) == 3095)
                    && (14..=19).contains(&n)
                || (3528..=3589).contains(&p(4)) && (16..=19).contains(&n)
        }
        Some(b'6') => {
            (p(4) == 6011 || (644..=649).contains(&p(3)) || p(2) == 65 || p(2) == 62)
                && (16..=19).contains(&n)
                || [6304, 6759, 6761, 6762, 6763].contains(&p(4))
        }
        _ => false,
    }
}

impl Recognizer for CreditCardRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::CreditCard
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        self.spaced(text, out);
        self.dotted(text, out);
    }
}

impl CreditCardRecognizer {
    /// Dotted cards: a cluster of digit runs joined by single dots in the printed layout.
    fn dotted(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let runs = text.digit_runs();
        for c in super::clusters(s, runs, |gap| gap == b".").filter(|c| c.runs > 2) {
            let layout = c.runs(runs).iter().map(|(a, e)| e - a);
            let printed = matches!(c.runs, 3 | 4)
                && (layout.clone().eq([4, 4, 4, 4]) || layout.eq([4, 6, 5]));
            if printed {
                self.check(s, c.start, c.end, out);
            }
        }
    }

    fn spaced(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        // A match is digits with single spaces or hyphens between them, so it lies inside one
        // such cluster; clusters with fewer than 13 digits hold no valid card.
        let windows = super::widen(
            s,
            super::clusters(s, text.digit_runs(), |gap| matches!(gap, b" " | b"-"))
                .filter(|c| c.digits >= 13)
                .map(|c| (c.start, c.end)),
            0,
            0,
        );
        for m in super::find_in(&self.pattern, s, &windows) {
            let v = m.as_str();
            let mut seps = v.bytes().filter(|b| !b.is_ascii_digit());
            let first_sep = seps.next();
            if seps.any(|b| Some(b) != first_sep) {
                continue;
            }
            self.check(s, m.start(), m.end(), out);
        }
    }

    /// Luhn, brand and boundaries of the candidate `s[start..end]`, scored by its context.
    fn check(&self, s: &str, start: usize, end: usize, out: &mut Vec<Candidate>) {
        let v = &s[start..end];
        {
            if !(13..=19).contains(&v.bytes().filter(u8::is_ascii_digit).count()) {
                return;
            }
            // 13–19 digits, kept on the stack.
            let mut buf = [0u8; 19];
            let mut len = 0;
            for (slot, d) in buf.iter_mut().zip(v.bytes().filter(u8::is_ascii_digit)) {
                *slot = d;
                len += 1;
            }
            let digits = &buf[..len];
            if !numeric_standalone(s, start, end)
                || !validate::luhn(v)
                || digits.iter().all(|&d| d == digits[0])
            {
                return;
            }
            let base = if !brand_ok(digits) {
                0.4
            } else if digits.len() == 13 && digits[0] == b'4' {
                0.35
            } else {
                0.85
            };
            out.push(
                cand(EntityType::CreditCard, start, end, base, true)
                    .asking(Form::Main, Needs::Nothing),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::{kept, proposed};

    #[test]
    fn luhn_valid_cards_are_validated_and_a_wrong_digit_is_not_kept() {
        let r = CreditCardRecognizer::new();
        let found = proposed(&r, "Kartennummer: 4111 1111 1111 1111, gültig bis 12/27.");
        assert!(found
            .iter()
            .any(|(v, _, validated)| v == "4111 1111 1111 1111" && *validated));
        assert!(kept(&r, "Bestellung 4111 1111 1111 1112 ist unterwegs.").is_empty());
    }

    #[test]
    fn dotted_cards_in_the_printed_layout() {
        let r = CreditCardRecognizer::new();
        assert_eq!(
            kept(&r, "Kreditkarte 4111.1111.1111.1111 gültig bis 12/27."),
            vec!["4111.1111.1111.1111"]
        );
        assert_eq!(
            kept(&r, "Amex 3782.822463.10005."),
            vec!["3782.822463.10005"]
        );
        // Other dotted layouts, and a longer dotted number, are no card.
        assert!(kept(&r, "Karte 41.1111.1111.111.111 bitte").is_empty());
        assert!(kept(&r, "Karte 1.4111.1111.1111.1111 bitte").is_empty());
    }

    #[test]
    fn separators_must_be_consistent() {
        let r = CreditCardRecognizer::new();
        assert!(kept(&r, "Nummer 4111-1111 1111-1111 bitte prüfen").is_empty());
    }
}
