//! What a policy may change in one detection run, seen from the engine: which candidates count
//! (types switched off, minimum scores), which it adds (deny terms, custom recognizers) and which
//! stretches of text are never masked (allow list).
//!
//! The engine knows only this trait; the policy model (configuration, validation, compiled
//! automata) lives in `crate::policy` and implements it, so detection stays a pure library that
//! takes the compiled policy as input. [`Everything`] is the engine's own behaviour: every type,
//! the default threshold, nothing added, nothing allowed.

use super::{Candidate, EntityType, Text};

pub trait Scope: Sync {
    /// Whether a candidate of type `t` with `score` counts; `default` is the engine's threshold.
    fn admits(&self, t: EntityType, score: f32, default: f32) -> bool;

    /// Appends the candidates the policy adds (byte offsets into [`Text::view`]).
    fn propose(&self, _text: &Text<'_>, _out: &mut Vec<Candidate>) {}

    /// Appends byte ranges of [`Text::view`] that are never masked: a candidate that lies
    /// within one is dropped before overlaps are resolved.
    fn allowed(&self, _text: &Text<'_>, _out: &mut Vec<(usize, usize)>) {}
}

/// No policy: every type at the default threshold.
pub struct Everything;

impl Scope for Everything {
    fn admits(&self, _t: EntityType, score: f32, default: f32) -> bool {
        score >= default
    }
}

/// Drops the candidates that lie within an allowed range (`allowed` is sorted here).
pub(crate) fn drop_allowed(candidates: &mut Vec<Candidate>, allowed: &mut [(usize, usize)]) {
    if allowed.is_empty() {
        return;
    }
    allowed.sort_unstable();
    // Running maximum of ends: a candidate is inside a range when some range starting at or
    // before it ends at or after its end.
    let mut reach = Vec::with_capacity(allowed.len());
    let mut max_end = 0;
    for &(_, e) in allowed.iter() {
        max_end = max_end.max(e);
        reach.push(max_end);
    }
    candidates.retain(|c| {
        let n = allowed.partition_point(|&(s, _)| s <= c.start);
        n == 0 || reach[n - 1] < c.end
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(start: usize, end: usize) -> Candidate {
        Candidate {
            entity_type: EntityType::Person,
            start,
            end,
            score: 0.9,
            validated: false,
            evidence: crate::Evidence::default(),
        }
    }

    #[test]
    fn only_candidates_inside_an_allowed_range_are_dropped() {
        let mut c = vec![cand(0, 4), cand(10, 14), cand(12, 20), cand(30, 31)];
        drop_allowed(&mut c, &mut [(9, 15), (29, 40), (0, 2)]);
        let left: Vec<(usize, usize)> = c.iter().map(|c| (c.start, c.end)).collect();
        assert_eq!(left, [(0, 4), (12, 20)]);
    }
}
