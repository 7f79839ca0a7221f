//! US_SSN (US Social Security number): `AAA-GG-SSSS`, `AAA GG SSSS` or nine bare digits, with
//! the SSA's rules on the three groups (`validate::us_ssn`: area not 000, 666 or 900–999, group
//! not 00, serial not 0000). There is no check digit, so the form and context decide. Found from
//! the digit runs, so prose costs nothing.
//!
//! Area 900–999 is never issued as an SSN, but it is the area of ITINs (the IRS's taxpayer
//! numbers for people without an SSN), and a number in SSN form that its text labels as an SSN
//! or ITIN is a person's identifier whatever the SSA's table says (a mistyped SSN, an ITIN, a
//! test record that stands for one). So a 9xx number counts only with a strong context word
//! (`SSN`, `Social Security`, `ITIN`), never on its form alone.
//!
//! The context step scores it (`context_rules.rs` holds these rows):
//!
//! | Evidence | Score |
//! |---|---|
//! | `123-45-6789` (hyphens), no context | 0.6 |
//! | `123 45 6789` (spaces), no context | 0.45 (dropped) |
//! | `123456789` (bare), no context | 0.3 (dropped) |
//! | + strong context (`SSN`, `Social Security`) | +0.35 |
//! | + weak context (`taxpayer`, `IRS`, `payroll`) | +0.15 |
//! | negative context (`phone`, `Tel`, `order`, `Bestellnummer` …) | −0.3 |

use super::{cand, numeric_standalone};
use crate::finding::{Form, Needs};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

pub struct UsSsnRecognizer {}

impl UsSsnRecognizer {
    pub fn new() -> Self {
        UsSsnRecognizer {}
    }
}

fn number(b: &[u8]) -> u16 {
    b.iter().fold(0u16, |n, d| {
        n.saturating_mul(10).saturating_add(u16::from(d - b'0'))
    })
}

impl Recognizer for UsSsnRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::UsSsn
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let b = s.as_bytes();
        let runs = text.digit_runs();
        for cluster in super::clusters(s, runs, |g| g == b"-" || g == b" ") {
            let parts = cluster.runs(runs);
            let (area, group, serial, base) = match parts {
                [(a, e)] if e - a == 9 => (&b[*a..a + 3], &b[a + 3..a + 5], &b[a + 5..*e], 0.3),
                [(a1, e1), (a2, e2), (a3, e3)] if e1 - a1 == 3 && e2 - a2 == 2 && e3 - a3 == 4 => {
                    let (g1, g2) = (b[*e1], b[*e2]);
                    if g1 != g2 {
                        continue;
                    }
                    let base = if g1 == b'-' { 0.6 } else { 0.45 };
                    (&b[*a1..*e1], &b[*a2..*e2], &b[*a3..*e3], base)
                }
                _ => continue,
            };
            let (start, end) = (cluster.start, cluster.end);
            let (area, group, serial) = (number(area), number(group) as u8, number(serial));
            // 9xx: the rules of the other groups still hold (area 1 stands in for it)
            let itin_area = (900..1000).contains(&area) && validate::us_ssn(1, group, serial);
            if !numeric_standalone(s, start, end)
                || !(itin_area || validate::us_ssn(area, group, serial))
            {
                continue;
            }
            // The context step scores it (`context_rules.rs`); a 9xx area needs a strong word.
            let needs = if itin_area {
                Needs::Strong
            } else {
                Needs::Nothing
            };
            out.push(cand(EntityType::UsSsn, start, end, base, false).asking(Form::Main, needs));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::kept;

    #[test]
    fn a_labelled_ssn_is_kept() {
        let r = UsSsnRecognizer::new();
        assert_eq!(kept(&r, "SSN: 123-45-6789"), vec!["123-45-6789".to_owned()]);
    }

    #[test]
    fn never_issued_groups_are_refused_and_9xx_needs_a_strong_label() {
        let r = UsSsnRecognizer::new();
        assert!(kept(&r, "SSN: 000-12-3456").is_empty());
        assert!(kept(&r, "Bestellnummer 978-28-1044").is_empty());
        assert!(!kept(&r, "SSN 978-28-1044").is_empty());
    }
}
