//! The triggers of a text, found by stepping the trigger automaton as a bare DFA over four parts
//! of the text at once.
//!
//! Why not the library's search: a DFA step needs the state of the step before, so one scan is
//! bound by the latency of that chain (about 1.45 ns a byte here, whatever the search loop),
//! and prose holds a trigger stem every kilobyte or so (`pass`, `pin`, `key`), so a prefilter
//! cannot skip much. Four independent chains keep the core busy: 100 000 code points of prose
//! in 40 µs instead of 148 µs (benches/RESULTS.md, "SECRET: four scans at once").
//!
//! The scan uses standard semantics (every pattern occurrence, overlapping ones too): a standard
//! DFA is in a match state exactly where occurrences end, and from all occurrences the
//! leftmost-longest ones follow by a sort, as the library's leftmost-longest search would report
//! them (proptest below).

use aho_corasick::automaton::Automaton;
use aho_corasick::{dfa, Anchored, BuildError, MatchKind, PatternID, StartKind};

/// Texts shorter than this are scanned in one chain (splitting costs more than it saves).
const SPLIT_FROM: usize = 256;

/// One trigger occurrence: its byte range and pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Trigger {
    pub start: usize,
    pub end: usize,
    pub pattern: usize,
}

/// The trigger patterns as an unanchored standard DFA without prefilter, ASCII case ignored.
pub(super) struct TriggerScan {
    dfa: dfa::DFA,
}

impl TriggerScan {
    pub(super) fn new<I, P>(patterns: I) -> Result<TriggerScan, BuildError>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<[u8]>,
    {
        let dfa = dfa::DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .prefilter(false)
            .start_kind(StartKind::Unanchored)
            .build(patterns)?;
        Ok(TriggerScan { dfa })
    }

    /// The non-overlapping leftmost-longest triggers of `b`, in order: at each step the
    /// occurrence that starts first, the longest of those (the lowest pattern among equally
    /// long ones), then on from its end.
    pub(super) fn leftmost_longest(&self, b: &[u8]) -> Vec<Trigger> {
        let mut all = self.occurrences(b);
        all.sort_unstable_by_key(|t| (t.start, usize::MAX - t.end, t.pattern));
        let mut out: Vec<Trigger> = Vec::new();
        for t in all {
            if out.last().is_none_or(|last| t.start >= last.end) {
                out.push(t);
            }
        }
        out
    }

    /// Every occurrence of every pattern in `b` (some may be listed twice).
    fn occurrences(&self, b: &[u8]) -> Vec<Trigger> {
        let mut out = Vec::new();
        let Ok(start) = self.dfa.start_state(Anchored::No) else {
            return out;
        };
        if b.len() < SPLIT_FROM {
            self.scan_alone(b, 0, b.len(), start, &mut out);
            return out;
        }
        // Part k starts at k·q with the start state and runs on past the next part's start by
        // the longest pattern less one byte: an occurrence starting in part k ends there, so
        // part k reports it (and it reports only occurrences starting at k·q or later).
        let q = b.len() / 4;
        let (b0, b1, b2, b3) = (&b[..q], &b[q..2 * q], &b[2 * q..3 * q], &b[3 * q..4 * q]);
        let mut states = [start; 4];
        for i in 0..q {
            let [s0, s1, s2, s3] = states;
            states = [
                self.step(s0, b0[i]),
                self.step(s1, b1[i]),
                self.step(s2, b2[i]),
                self.step(s3, b3[i]),
            ];
            // Special states have the smallest ids: one test says whether any of the four is.
            if self
                .dfa
                .is_special(states.iter().copied().min().unwrap_or(start))
            {
                for (k, &sid) in states.iter().enumerate() {
                    self.note(sid, k * q + i + 1, &mut out);
                }
            }
        }
        let reach = self.dfa.max_pattern_len().saturating_sub(1);
        for (k, &sid) in states.iter().enumerate() {
            let end = if k == 3 {
                b.len()
            } else {
                (k * q + q + reach).min(b.len())
            };
            self.scan_alone(b, k * q + q, end, sid, &mut out);
        }
        out
    }

    /// Continues one chain in state `sid` over `b[from..to]`.
    fn scan_alone(&self, b: &[u8], from: usize, to: usize, sid: StateId, out: &mut Vec<Trigger>) {
        let mut sid = sid;
        for (i, &byte) in b.get(from..to).unwrap_or(&[]).iter().enumerate() {
            sid = self.step(sid, byte);
            if self.dfa.is_special(sid) {
                self.note(sid, from + i + 1, out);
            }
        }
    }

    fn step(&self, sid: StateId, byte: u8) -> StateId {
        self.dfa.next_state(Anchored::No, sid, byte)
    }

    /// Records the occurrences that end at `end` when `sid` is a match state.
    fn note(&self, sid: StateId, end: usize, out: &mut Vec<Trigger>) {
        if !self.dfa.is_match(sid) {
            return;
        }
        for i in 0..self.dfa.match_len(sid) {
            let pattern: PatternID = self.dfa.match_pattern(sid, i);
            let len = self.dfa.pattern_len(pattern);
            out.push(Trigger {
                start: end - len,
                end,
                pattern: pattern.as_usize(),
            });
        }
    }
}

type StateId = aho_corasick::automaton::StateID;

#[cfg(test)]
mod tests {
    use aho_corasick::{AhoCorasick, MatchKind};
    use proptest::prelude::*;

    use super::super::TRIGGERS;
    use super::{Trigger, TriggerScan, SPLIT_FROM};

    fn patterns() -> impl Iterator<Item = &'static str> {
        TRIGGERS.iter().map(|(p, _)| *p)
    }

    /// The library's leftmost-longest search over the same patterns: the reference.
    fn reference(s: &str) -> Vec<Trigger> {
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(patterns())
            .expect("static triggers");
        ac.find_iter(s)
            .map(|m| Trigger {
                start: m.start(),
                end: m.end(),
                pattern: m.pattern().as_usize(),
            })
            .collect()
    }

    fn scan() -> TriggerScan {
        TriggerScan::new(patterns()).expect("static triggers")
    }

    #[test]
    fn finds_what_the_library_finds_in_prose_and_across_part_borders() {
        let filler = "Sehr geehrte Damen und Herren, bitte prüfen Sie den Vorgang. ";
        let scan = scan();
        for tail in [
            "",
            "PASSWORT: Sommer2024!",
            "api_key=sk-abcDEF1234567890abcdef1234 und pin 1234",
            "postgres://user:geheim@db/x -----BEGIN RSA PRIVATE KEY-----",
            "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x AKIAIOSFODNN7EXAMPLE",
            "kennworttoken pwpw ghp_ xoxb- github_pat_ sk_live_",
        ] {
            // Leads of every length around a part border put the triggers across it.
            for lead in 0..SPLIT_FROM / 2 {
                let s = format!(
                    "{}{tail}{tail}",
                    filler.repeat(8).get(..lead + 300).unwrap_or("")
                );
                assert_eq!(scan.leftmost_longest(s.as_bytes()), reference(&s), "{s}");
            }
        }
    }

    proptest! {
        #[test]
        fn finds_what_the_library_finds(
            parts in proptest::collection::vec(
                prop_oneof![
                    proptest::sample::select(super::super::TRIGGERS.iter().map(|(p, _)| *p).collect::<Vec<_>>())
                        .prop_map(str::to_owned),
                    "[a-zA-Z_ :/=-]{0,6}",
                    proptest::sample::select(vec!["PASS", "Pw", "wort", "ken", "s", "k", "x", "ox", "ü"])
                        .prop_map(str::to_owned),
                ],
                0..200,
            )
        ) {
            let s: String = parts.concat();
            prop_assert_eq!(scan().leftmost_longest(s.as_bytes()), reference(&s));
        }
    }
}
