//! Steuernummer (docs/entities.md §9): the state groupings as printed, or the 13-digit ELSTER form.

use regex::Regex;

use super::{cand, numeric_standalone};
use crate::finding::{Form, Needs};
use crate::{Candidate, EntityType, Recognizer, Text};

pub struct SteuernummerRecognizer {
    pattern: Regex,
}

impl SteuernummerRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(r"[0-9]{2,5}(?:[/ ][0-9]{1,5}){1,3}|[0-9]{10,13}")
            .expect("static Steuernummer pattern");
        SteuernummerRecognizer { pattern }
    }
}

fn grouping_ok(v: &str) -> Option<bool> {
    let slash = v.contains('/');
    let space = v.contains(' ');
    if slash && space {
        return None;
    }
    let lens: Vec<usize> = v.split(['/', ' ']).map(str::len).collect();
    match lens.as_slice() {
        [2, 3, 5] | [3, 3, 5] | [3, 4, 4] => Some(true),
        [5, 5] | [2, 3, 4, 1] if slash => Some(true),
        [13] => {
            let b = v.as_bytes();
            let prefix2 = &v[..2];
            let land = [
                "10", "11", "21", "22", "23", "24", "26", "27", "28", "30", "31", "32", "40", "41",
            ]
            .contains(&prefix2)
                || b[0] == b'5'
                || b[0] == b'9';
            (b[4] == b'0' && land).then_some(false)
        }
        _ => None,
    }
}

/// Digit group lengths of the accepted forms: [`grouping_ok`] and 10–11 plain digits.
const SHAPES: &[&[usize]] = &[
    &[2, 3, 5],
    &[3, 3, 5],
    &[3, 4, 4],
    &[5, 5],
    &[2, 3, 4, 1],
    &[13],
    &[10],
    &[11],
];

/// True when consecutive digit `runs` have the group lengths of an accepted form. An accepted
/// match is standalone, so it starts and ends on run boundaries and its groups are whole runs;
/// clusters without such runs hold only rejected matches.
fn may_hold(runs: &[(usize, usize)]) -> bool {
    (0..runs.len()).any(|k| {
        SHAPES.iter().any(|shape| {
            runs.get(k..k + shape.len()).is_some_and(|r| {
                r.iter()
                    .zip(shape.iter())
                    .all(|(&(a, e), &len)| e - a == len)
            })
        })
    })
}

impl Recognizer for SteuernummerRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Steuernummer
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        // A match is digits with single slashes or spaces between them, so it lies inside one
        // such cluster; only clusters with runs of an accepted shape are searched.
        let runs = text.digit_runs();
        let windows = super::widen(
            s,
            super::clusters(s, runs, |gap| matches!(gap, b"/" | b" "))
                .filter(|c| c.digits >= 10 && may_hold(c.runs(runs)))
                .map(|c| (c.start, c.end)),
            0,
            0,
        );
        for m in super::find_in(&self.pattern, s, &windows) {
            let v = m.as_str();
            if !numeric_standalone(s, m.start(), m.end()) {
                continue;
            }
            let grouping = grouping_ok(v);
            let plain_digits =
                v.bytes().all(|b| b.is_ascii_digit()) && (10..=11).contains(&v.len());
            if grouping.is_none() && !plain_digits {
                continue;
            }
            // The context step scores it (`context_rules.rs`); plain digits without the
            // grouping of a Steuernummer need a strong label and no negative word.
            let (base, form, needs) = match grouping {
                Some(true) if v.contains('/') => (0.5, Form::Main, Needs::Nothing),
                Some(true) => (0.45, Form::Main, Needs::Nothing),
                Some(false) => (0.55, Form::Main, Needs::Nothing),
                None => (0.0, Form::Unchecked, Needs::Strong),
            };
            out.push(
                cand(EntityType::Steuernummer, m.start(), m.end(), base, false).asking(form, needs),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::kept;

    #[test]
    fn a_labelled_state_grouping_is_kept() {
        let r = SteuernummerRecognizer::new();
        assert_eq!(
            kept(&r, "Steuernummer: 21/815/08150"),
            vec!["21/815/08150".to_owned()]
        );
    }

    #[test]
    fn a_date_like_slash_number_is_not_a_tax_number() {
        let r = SteuernummerRecognizer::new();
        assert!(kept(&r, "am 12/05/2024 geliefert").is_empty());
    }
}
