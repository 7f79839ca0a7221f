//! Steuer-ID (docs/entities.md §8): 11 digits, contiguous or in groups of 2–4 with single spaces.

use regex::Regex;

use super::{cand, numeric_standalone};
use crate::finding::{Form, Needs};
use crate::{validate, Candidate, EntityType, Recognizer, Text};

pub struct SteuerIdRecognizer {
    pattern: Regex,
}

impl SteuerIdRecognizer {
    pub fn new() -> Self {
        let pattern = Regex::new(r"[1-9][0-9]{1,10}(?: [0-9]{2,4}){0,4}").expect("static pattern");
        SteuerIdRecognizer { pattern }
    }
}

/// True when one of the digit `runs` (single spaces between them) can open an accepted
/// Steuer-ID. An accepted match is standalone, so it starts at a run with a non-zero first
/// digit; the pattern takes that run whole (2–11 digits) and then groups of 2–4 digits, and
/// the 11th digit must end a run. Clusters without such runs hold only rejected matches.
fn may_hold_id(s: &str, runs: &[(usize, usize)]) -> bool {
    let b = s.as_bytes();
    (0..runs.len()).any(|k| {
        let (a, e) = runs[k];
        if b[a] == b'0' || !(2..=11).contains(&(e - a)) {
            return false;
        }
        let mut total = e - a;
        for &(ga, ge) in runs[k + 1..].iter().take(4) {
            if total >= 11 || !(2..=4).contains(&(ge - ga)) {
                break;
            }
            total += ge - ga;
        }
        total == 11
    })
}

impl Recognizer for SteuerIdRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::SteuerId
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        // A match is digits with single spaces between them, so it lies inside one such
        // cluster; only clusters with a run that can open a Steuer-ID are searched.
        let runs = text.digit_runs();
        let windows = super::widen(
            s,
            super::clusters(s, runs, |gap| gap == b" ")
                .filter(|c| c.digits >= 11 && may_hold_id(s, c.runs(runs)))
                .map(|c| (c.start, c.end)),
            0,
            0,
        );
        for m in super::find_in(&self.pattern, s, &windows) {
            // Try the longest prefix of whole groups that has exactly 11 digits.
            let v = m.as_str();
            let mut digits = 0usize;
            let mut end = None;
            for (i, c) in v.char_indices() {
                if c.is_ascii_digit() {
                    digits += 1;
                    if digits == 11 {
                        let next = v.as_bytes().get(i + 1);
                        if next.is_none() || next == Some(&b' ') {
                            end = Some(m.start() + i + 1);
                        }
                        break;
                    }
                }
            }
            let Some(end) = end else { continue };
            let start = m.start();
            let compact: Vec<u8> = s.as_bytes()[start..end]
                .iter()
                .copied()
                .filter(u8::is_ascii_digit)
                .collect();
            if !numeric_standalone(s, start, end) || !validate::steuer_id(&compact) {
                continue;
            }
            // The score is the context step's (`context_rules.rs`).
            out.push(
                cand(EntityType::SteuerId, start, end, 0.0, true)
                    .asking(Form::Main, Needs::Nothing),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::{kept, validated};

    #[test]
    fn the_published_example_is_validated_in_groups_too() {
        let r = SteuerIdRecognizer::new();
        for text in [
            "Steuer-ID: 86095742719",
            "Meine Steuer-ID lautet 86 095 742 719.",
        ] {
            assert!(validated(&r, text), "{text}");
        }
    }

    #[test]
    fn a_wrong_check_digit_without_a_label_is_not_kept() {
        let r = SteuerIdRecognizer::new();
        assert!(kept(&r, "Die Nummer 86095742718 steht im Katalog.").is_empty());
    }
}
