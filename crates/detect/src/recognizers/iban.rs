//! IBAN (docs/entities.md §5): two letters + two digits anchor (`DE89`, or `DE 89` as some
//! forms print it), then alphanumerics with group separators until the registry length is
//! reached; mod 97 decides. A separator is a hyphen, one or two spaces, or a single line break
//! with spaces around it (an IBAN wrapped in an e-mail or a form).

use super::window::{number_continues_right, standalone};
use super::{cand, numeric_standalone};
use crate::finding::{Form, Needs};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

pub struct IbanRecognizer {}

impl IbanRecognizer {
    pub fn new() -> Self {
        IbanRecognizer {}
    }
}

/// Starts of the anchors `[A-Za-z]{2} ?[0-9]{2}` (country code + check digits). The two
/// digits open a digit run: an anchor is a run of at least two digits with two ASCII letters
/// right before it, or before one space, and anchors never overlap. No regex needed.
fn anchors<'r>(s: &'r str, runs: &'r [(usize, usize)]) -> impl Iterator<Item = usize> + 'r {
    let b = s.as_bytes();
    let letters = |from: usize, to: usize| b[from..to].iter().all(u8::is_ascii_alphabetic);
    runs.iter().filter_map(move |&(a, e)| {
        if e - a < 2 {
            return None;
        }
        let start = a.checked_sub(2)?;
        if letters(start, a) {
            return Some(start);
        }
        let spaced = a.checked_sub(3)?;
        (b[a - 1] == b' ' && letters(spaced, a - 1)).then_some(spaced)
    })
}

/// The length of a group separator at `i` followed by an alphanumeric: `-`, one or two
/// spaces, or one line break (`\n`, `\r\n`) with at most two spaces on either side.
fn separator(b: &[u8], i: usize) -> Option<usize> {
    let next_ok = |j: usize| {
        b.get(j)
            .is_some_and(u8::is_ascii_alphanumeric)
            .then_some(j - i)
    };
    if b.get(i) == Some(&b'-') {
        return next_ok(i + 1);
    }
    let spaces = |from: usize| {
        b.get(from..)
            .unwrap_or(&[])
            .iter()
            .take(3)
            .take_while(|&&c| c == b' ')
            .count()
    };
    let mut j = i + spaces(i);
    if j - i > 2 {
        return None;
    }
    if b.get(j) == Some(&b'\r') && b.get(j + 1) == Some(&b'\n') {
        j += 2;
    } else if b.get(j) == Some(&b'\n') {
        j += 1;
    } else {
        return (j > i).then(|| next_ok(j)).flatten();
    }
    let after = spaces(j);
    (after <= 2).then(|| next_ok(j + after)).flatten()
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
        } else if let Some(n) = separator(b, i).filter(|_| compact.len() >= 2) {
            i += n;
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
            // An IBAN opens with letters and its length is fixed: a number cell before or after
            // it in a CSV row (`5,DE89…00,1958-07-12`) is its own value; only a decimal point
            // after it would continue a number.
            if !standalone(s, start, end)
                || number_continues_right(s, end, &['.'])
                || !validate::iban(&compact)
            {
                continue;
            }
            let lower_cc = s.as_bytes()[start].is_ascii_lowercase();
            let base = if lower_cc { 0.9 } else { 0.95 };
            out.push(
                cand(EntityType::Iban, start, end, base, true).asking(Form::Main, Needs::Nothing),
            );
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
            "IBAN: DE 89 3704 0044 0532 0130 00 bei der Bank",
            "IBAN: DE89  3704  0044  0532  0130  00 bei der Bank",
            "IBAN: DE89 3704 0044\n0532 0130 00\nDanke",
            "IBAN: DE89 3704 0044 \r\n 0532 0130 00",
        ] {
            let found = proposed(&r, text);
            assert!(found.iter().any(|(_, _, validated)| *validated), "{text}");
        }
    }

    #[test]
    fn separators_stay_within_a_group_gap() {
        let b = b"a-b a  b a   b a\nb a \r\n  b a\n\nb a -b";
        let at = |k: usize| separator(b, k);
        assert_eq!(at(1), Some(1));
        assert_eq!(at(3), Some(1));
        assert_eq!(at(5), Some(2));
        assert_eq!(at(10), None);
        assert_eq!(at(16), Some(1));
        assert_eq!(at(20), Some(5));
        assert_eq!(at(28), None);
        assert_eq!(at(33), None);
        assert_eq!(separator(b"1 ", 1), None);
    }

    #[test]
    fn a_wrong_check_digit_is_dropped_without_a_label() {
        let r = IbanRecognizer::new();
        assert!(kept(&r, "Der Code DE89 3704 0044 0532 0130 01 gilt nicht.").is_empty());
    }
}
