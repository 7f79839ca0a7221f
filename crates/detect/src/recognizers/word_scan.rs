//! Every occurrence of a set of words in a text, from an Aho-Corasick DFA stepped over four
//! parts of the text at once.
//!
//! Why not the library's search: a DFA step needs the state of the step before, so one scan is
//! bound by the latency of that chain, whatever the search loop, and words such as SECRET's
//! field stems (`pass`, `pin`, `key`) are common enough in prose that a prefilter cannot skip
//! much. Four independent chains keep the core busy (benches/RESULTS.md, "SECRET: a DFA scan is
//! bound by the latency of its state chain").
//!
//! The automaton has standard semantics: it is in a match state exactly where occurrences end,
//! so the scan reports every occurrence, overlapping ones too, as the library's overlapping
//! search does; callers that want leftmost-longest matches pick them from these (SECRET).

use std::ops::ControlFlow;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::{dfa, Anchored, BuildError, MatchKind, StartKind};

/// Texts shorter than this are scanned in one chain (splitting costs more than it saves).
const SPLIT_FROM: usize = 256;

/// One occurrence of a word: its byte range and pattern index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Occurrence {
    pub start: usize,
    pub end: usize,
    pub pattern: usize,
}

/// `patterns` as an unanchored standard DFA without prefilter, ASCII case ignored.
pub(crate) fn automaton<I, P>(patterns: I) -> Result<dfa::DFA, BuildError>
where
    I: IntoIterator<Item = P>,
    P: AsRef<[u8]>,
{
    dfa::DFA::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .prefilter(false)
        .start_kind(StartKind::Unanchored)
        .build(patterns)
}

/// Every occurrence of `dfa`'s patterns in `b`, in no particular order; one that starts in a
/// part's overrun (below) is listed twice. Callers sort as they need (SECRET's leftmost-longest
/// pick skips the second copy).
pub(crate) fn occurrences(dfa: &dfa::DFA, b: &[u8]) -> Vec<Occurrence> {
    let mut out = Vec::new();
    let Ok(start) = dfa.start_state(Anchored::No) else {
        return out;
    };
    if b.len() < SPLIT_FROM {
        scan_alone(dfa, b, 0, b.len(), start, &mut out);
        return out;
    }
    // Part k starts at k·q with the start state and runs on past the next part's start by the
    // longest pattern less one byte: an occurrence starting in part k ends there, so part k
    // reports it (and it reports only occurrences starting at k·q or later; one starting in
    // that overrun is reported twice).
    let q = b.len() / 4;
    let (b0, b1, b2, b3) = (&b[..q], &b[q..2 * q], &b[2 * q..3 * q], &b[3 * q..4 * q]);
    let (mut s0, mut s1, mut s2, mut s3) = (start, start, start, start);
    let bytes = b0.iter().zip(b1).zip(b2).zip(b3);
    for (i, (((&c0, &c1), &c2), &c3)) in bytes.enumerate() {
        (s0, s1, s2, s3) = (
            step(dfa, s0, c0),
            step(dfa, s1, c1),
            step(dfa, s2, c2),
            step(dfa, s3, c3),
        );
        // Special states have the smallest ids: one test says whether any of the four is.
        if dfa.is_special(s0.min(s1).min(s2.min(s3))) {
            for (k, sid) in [s0, s1, s2, s3].into_iter().enumerate() {
                note(dfa, sid, k * q + i + 1, &mut out);
            }
        }
    }
    let states = [s0, s1, s2, s3];
    let reach = dfa.max_pattern_len().saturating_sub(1);
    for (k, &sid) in states.iter().enumerate() {
        let end = if k == 3 {
            b.len()
        } else {
            (k * q + q + reach).min(b.len())
        };
        scan_alone(dfa, b, k * q + q, end, sid, &mut out);
    }
    out
}

/// Every occurrence of `dfa`'s patterns in `b` in one chain, in the order they end, each
/// handed to `visit` until it breaks: for short windows (context look-ups), where neither the
/// split of [`occurrences`] nor a list of results pays.
pub(crate) fn each_occurrence(
    dfa: &dfa::DFA,
    b: &[u8],
    visit: impl FnMut(Occurrence) -> ControlFlow<()>,
) {
    if let Ok(start) = dfa.start_state(Anchored::No) {
        walk(dfa, b, 0, b.len(), start, visit);
    }
}

/// Continues one chain in state `sid` over `b[from..to]`.
fn scan_alone(
    dfa: &dfa::DFA,
    b: &[u8],
    from: usize,
    to: usize,
    sid: StateID,
    out: &mut Vec<Occurrence>,
) {
    walk(dfa, b, from, to, sid, |o| {
        out.push(o);
        ControlFlow::Continue(())
    });
}

/// One chain in state `sid` over `b[from..to]`, each occurrence handed to `visit`.
fn walk(
    dfa: &dfa::DFA,
    b: &[u8],
    from: usize,
    to: usize,
    sid: StateID,
    mut visit: impl FnMut(Occurrence) -> ControlFlow<()>,
) {
    let mut sid = sid;
    for (i, &byte) in b.get(from..to).unwrap_or(&[]).iter().enumerate() {
        sid = step(dfa, sid, byte);
        if dfa.is_special(sid) && each_ending(dfa, sid, from + i + 1, &mut visit).is_break() {
            return;
        }
    }
}

fn step(dfa: &dfa::DFA, sid: StateID, byte: u8) -> StateID {
    dfa.next_state(Anchored::No, sid, byte)
}

/// Records the occurrences that end at `end` when `sid` is a match state.
fn note(dfa: &dfa::DFA, sid: StateID, end: usize, out: &mut Vec<Occurrence>) {
    let _ = each_ending(dfa, sid, end, |o| {
        out.push(o);
        ControlFlow::Continue(())
    });
}

/// Hands `visit` the occurrences that end at `end` when `sid` is a match state.
fn each_ending(
    dfa: &dfa::DFA,
    sid: StateID,
    end: usize,
    mut visit: impl FnMut(Occurrence) -> ControlFlow<()>,
) -> ControlFlow<()> {
    if !dfa.is_match(sid) {
        return ControlFlow::Continue(());
    }
    for i in 0..dfa.match_len(sid) {
        let pattern = dfa.match_pattern(sid, i);
        visit(Occurrence {
            start: end - dfa.pattern_len(pattern),
            end,
            pattern: pattern.as_usize(),
        })?;
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use aho_corasick::AhoCorasick;
    use proptest::prelude::*;

    use super::{automaton, occurrences, Occurrence, SPLIT_FROM};

    const WORDS: [&str; 9] = [
        "pass", "passwort", "pw", "key", "tel", "telefon", "://", "ü-", "a",
    ];

    /// `all` sorted, each occurrence once.
    fn sorted(mut all: Vec<Occurrence>) -> Vec<Occurrence> {
        all.sort_unstable();
        all.dedup();
        all
    }

    /// The library's overlapping search over the same words: the reference.
    fn reference(s: &str) -> Vec<Occurrence> {
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(WORDS)
            .expect("static words");
        let mut all: Vec<Occurrence> = ac
            .find_overlapping_iter(s)
            .map(|m| Occurrence {
                start: m.start(),
                end: m.end(),
                pattern: m.pattern().as_usize(),
            })
            .collect();
        all.sort_unstable();
        all
    }

    #[test]
    fn finds_what_the_library_finds_across_part_borders() {
        let dfa = automaton(WORDS).expect("static words");
        let tail = "Passwort: x, Telefon tel pw KEY ü-a https://x";
        for lead in 0..SPLIT_FROM {
            let s = format!(
                "{}{tail}{tail}",
                "Sehr geehrte Damen. "
                    .repeat(20)
                    .get(..lead + 200)
                    .unwrap_or("")
            );
            assert_eq!(
                sorted(occurrences(&dfa, s.as_bytes())),
                reference(&s),
                "{s}"
            );
        }
    }

    proptest! {
        #[test]
        fn finds_what_the_library_finds(
            parts in proptest::collection::vec(
                prop_oneof![
                    proptest::sample::select(WORDS.to_vec()).prop_map(str::to_owned),
                    "[a-zA-Z :/=ü-]{0,6}",
                ],
                0..200,
            )
        ) {
            let s: String = parts.concat();
            let dfa = automaton(WORDS).expect("static words");
            prop_assert_eq!(sorted(occurrences(&dfa, s.as_bytes())), reference(&s));
        }
    }
}
