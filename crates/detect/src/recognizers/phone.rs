//! Telephone numbers (docs/entities.md §4): international `+CC`/`00CC`, national `0…`, the old
//! `(0 30)` style and US `(555) 123-4567`; digits with single separators, 6–15 digits; a
//! national or international number may set its area code apart with a spaced hyphen or slash
//! (`0171 - 234 56 78`, `+49 (0) 171 / 2345678`), once.

use regex::Regex;

use super::cand;
use crate::finding::{Form, Needs};
use crate::{Candidate, EntityType, Recognizer, Text};

pub struct PhoneRecognizer {
    pattern: Regex,
}

impl PhoneRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(
            r"(?x)
            (?:\+|00)[1-9][0-9]{0,3}(?:\ ?\(0\))?[\ \-./]?[0-9]+
              (?:\ [-/]\ [0-9]+(?:[\ \-./]?[0-9]+){0,5}|(?:[\ \-./]?[0-9]+){0,6})
            | \(0[0-9\ ]{1,6}\)\ ?[0-9]+(?:[\ \-./]?[0-9]+){0,5}
            | \([2-9][0-9]{2}\)\ ?[0-9]{3}[-.\ ][0-9]{4}
            | 0[1-9][0-9]{1,4}(?:\ [-/]\ [0-9]+(?:[\ \-./]?[0-9]+){0,5}|(?:[\ \-./]?[0-9]+){1,6})
            ",
        )
        .expect("static phone pattern");
        PhoneRecognizer { pattern }
    }
}

/// Drops trailing groups while the digit count is above 15.
fn digits(v: &str) -> usize {
    v.bytes().filter(u8::is_ascii_digit).count()
}

fn looks_like_date_or_amount(v: &str) -> bool {
    // Dot-separated digit groups only, counted in one pass without collecting them.
    if memchr::memchr(b'.', v.as_bytes()).is_none() {
        return false;
    }
    let mut groups = 0;
    let mut lens = [0usize; 3];
    let mut thousands = true;
    for (k, g) in v.split('.').enumerate() {
        if !g.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        if let Some(len) = lens.get_mut(k) {
            *len = g.len();
        }
        thousands &= k == 0 || g.len() == 3;
        groups = k + 1;
    }
    // dd.mm.yy(yy), or thousands grouping 1.234.567
    let dateish = groups == 3 && lens[0] <= 2 && lens[1] <= 2 && matches!(lens[2], 2 | 4);
    dateish || thousands || groups == 4
}

/// Where the pattern can match. Between two digits of a number it allows at most a few
/// separators (`-`, `/`, `.`, spaces, the brackets of `(0)` and `(0 30)`, at most 8 bytes for
/// `(0      ) 1`), and before the first digit only `+` or `(`; so a match lies in one cluster
/// of such gaps plus one byte to its left. Only clusters that can hold an accepted number are
/// searched: at least 6 digits, and a digit run that may start one (see [`may_start`]).
fn windows(s: &str, runs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let joins = |gap: &[u8]| {
        gap.len() <= 8
            && gap
                .iter()
                .all(|b| matches!(b, b' ' | b'-' | b'.' | b'/' | b'(' | b')'))
    };
    let b = s.as_bytes();
    let spans = super::clusters(s, runs, joins)
        .filter(|c| {
            c.digits >= 6
                && (c.start..c.end).any(|i| {
                    let run_start = b[i].is_ascii_digit()
                        && !i.checked_sub(1).is_some_and(|p| b[p].is_ascii_digit());
                    run_start && may_start(s, i)
                })
        })
        .map(|c| (c.start, c.end));
    super::widen(s, spans, 1, 0)
}

/// True when an accepted number may begin at the digit run starting at `i`: after `+` or
/// `(`, or with a `0` that does not continue a number on its left. Every other match starts
/// inside a run, after a digit, and is rejected; so a cluster without such a run holds no
/// phone number.
fn may_start(s: &str, i: usize) -> bool {
    let b = s.as_bytes();
    let after_lead = i
        .checked_sub(1)
        .is_some_and(|p| matches!(b[p], b'+' | b'('));
    after_lead || b.get(i) == Some(&b'0') && !super::number_continues_left(s, i)
}

impl Recognizer for PhoneRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::PhoneNumber
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in super::find_in(&self.pattern, s, &windows(s, text.digit_runs())) {
            let (start, mut end) = (m.start(), m.end());
            // Shrink by whole trailing groups until at most 15 digits remain.
            while digits(&s[start..end]) > 15 {
                match s[start..end].rfind([' ', '-', '/', '.']) {
                    Some(i) if i > 0 => end = start + i,
                    _ => break,
                }
            }
            let v = &s[start..end];
            let n = digits(v);
            if !(6..=15).contains(&n) {
                continue;
            }
            // A leading `+` or `(` needs no boundary on its left side.
            let prev_blocks = s[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '+');
            let left_ok = !prev_blocks && !super::number_continues_left(s, start);
            let after = s[end..].chars().next();
            let right_ok = !after.is_some_and(char::is_alphanumeric)
                && !super::number_continues_right(s, end, &['.', ',', '-', '/', ':']);
            if !left_ok || !right_ok {
                continue;
            }
            // Slashes, a doubled hyphen and separators, in one pass over the bytes.
            let (mut slashes, mut double_hyphen, mut separated) = (0, false, false);
            let mut prev = 0u8;
            for &b in v.as_bytes() {
                slashes += usize::from(b == b'/');
                double_hyphen |= b == b'-' && prev == b'-';
                separated |= matches!(b, b' ' | b'/' | b'-' | b'(' | b'.');
                prev = b;
            }
            if slashes > 1 || looks_like_date_or_amount(v) || double_hyphen {
                continue;
            }
            // The digits alone, on the stack (at most 15, checked above).
            let mut digit_buf = [0u8; 15];
            let mut len = 0;
            for d in v.bytes().filter(u8::is_ascii_digit) {
                if let Some(slot) = digit_buf.get_mut(len) {
                    *slot = d;
                    len += 1;
                }
            }
            let compact = std::str::from_utf8(&digit_buf[..len]).unwrap_or("");
            let intl = v.starts_with('+') || v.starts_with("00");
            let base = if intl {
                let nsn = compact
                    .strip_prefix("0049")
                    .or_else(|| compact.strip_prefix("49").filter(|_| v.starts_with('+')));
                match nsn {
                    Some(rest) => {
                        let rest = rest.strip_prefix('0').unwrap_or(rest);
                        if (6..=12).contains(&rest.len()) {
                            0.85
                        } else {
                            0.4
                        }
                    }
                    None => 0.8,
                }
            } else if v.starts_with("(0") || v.starts_with('0') {
                let mobile = compact.starts_with("015")
                    || compact.starts_with("016")
                    || compact.starts_with("017");
                let service = ["0800", "0180", "0900", "0137", "0138"]
                    .iter()
                    .any(|p| compact.starts_with(p));
                if service {
                    0.6
                } else if mobile && (10..=12).contains(&compact.len()) {
                    0.8
                } else if separated && (8..=12).contains(&compact.len()) {
                    0.7
                } else if (8..=12).contains(&compact.len()) {
                    0.55
                } else {
                    0.4
                }
            } else {
                // US style (555) 123-4567
                0.6
            };
            out.push(
                cand(EntityType::PhoneNumber, start, end, base, false)
                    .asking(Form::Main, Needs::Nothing),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::kept;

    #[test]
    fn international_and_national_forms() {
        let r = PhoneRecognizer::new();
        assert!(!kept(&r, "Telefon: +49 30 12345678").is_empty());
        assert!(!kept(&r, "Rufen Sie mich unter 030 1234567 an.").is_empty());
    }

    #[test]
    fn dates_and_amounts() {
        for (v, yes) in [
            ("030", false),
            ("12.03.2024", true),
            ("1.03.24", true),
            ("1.234.567", true),
            ("1.2.3.4", true),
            ("030.12345", false),
            ("12.34", false),
            ("12.345", true),
            ("12.3a", false),
            ("0.", false),
            ("12.03.202", false),
        ] {
            assert_eq!(looks_like_date_or_amount(v), yes, "{v}");
        }
    }

    #[test]
    fn a_spaced_hyphen_after_the_area_code() {
        let r = PhoneRecognizer::new();
        assert_eq!(
            kept(&r, "Rufen Sie mich an: 0171 - 234 56 78."),
            vec!["0171 - 234 56 78"]
        );
        assert_eq!(kept(&r, "Tel. 030 / 1234567"), vec!["030 / 1234567"]);
        for v in [
            "+49 (0) 171 / 2345678",
            "+49 30 / 123 456 78",
            "0049 (0) 89 - 1234567",
            "+49 30 12345-67",
        ] {
            assert_eq!(kept(&r, &format!("Tel. {v}, danke.")), vec![v]);
        }
    }

    #[test]
    fn too_few_digits_are_no_number() {
        let r = PhoneRecognizer::new();
        assert!(kept(&r, "Telefon: 123").is_empty());
    }
}
