//! Finding a set of known values in a text, rebuilt per text or request: the proxy's values of
//! one request ([`crate::proxy::anon`]) and the record recognizer's later mentions of the
//! values it found in a table.

use aho_corasick::{packed, AhoCorasick, AhoCorasickKind, MatchKind};

/// Finds every value in a text: leftmost first, the longest of those starting at the same
/// place. Built once per request (or text) over its handful of values, so building
/// must be cheap: the packed (SIMD) searcher builds in about a microsecond, a full
/// Aho-Corasick automaton in over ten even for two values, which at 2 KB was a fifth of the
/// whole rewrite. The automaton remains for what the packed searcher refuses (too many
/// values, or a CPU without the vector instructions it needs).
pub(crate) enum ValueMatcher {
    Packed(packed::Searcher),
    Automaton(AhoCorasick),
}

/// The most values the packed searcher takes (its own limit).
const PACKED_MAX: usize = 128;

impl ValueMatcher {
    pub(crate) fn new<'v>(values: impl Iterator<Item = &'v str> + Clone) -> Option<ValueMatcher> {
        // Teddy's own heuristic stops at 64 values; past it, a dense 2 KB request (80 values)
        // paid a refused packed build and then an automaton build (1.2 M instructions) for a
        // search of a few microseconds. Up to its hard limit the packed searcher builds in a
        // tenth of that and still searches 2 KB faster than the automaton.
        let packed = (values.clone().count() <= PACKED_MAX)
            .then(|| {
                packed::Config::new()
                    .match_kind(packed::MatchKind::LeftmostLongest)
                    .heuristic_pattern_limits(false)
                    .builder()
                    .extend(values.clone())
                    .build()
            })
            .flatten();
        if let Some(searcher) = packed {
            return Some(ValueMatcher::Packed(searcher));
        }
        // An NFA builds far faster than a DFA and searches fast enough for one pass.
        AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .match_kind(MatchKind::LeftmostLongest)
            .build(values)
            .ok()
            .map(ValueMatcher::Automaton)
    }

    /// `(value index, start, end)` of every non-overlapping occurrence in `s`, in order.
    pub(crate) fn find_iter<'a>(
        &'a self,
        s: &'a str,
    ) -> Box<dyn Iterator<Item = (usize, usize, usize)> + 'a> {
        match self {
            ValueMatcher::Packed(p) => Box::new(
                p.find_iter(s)
                    .map(|m| (m.pattern().as_usize(), m.start(), m.end())),
            ),
            ValueMatcher::Automaton(a) => Box::new(
                a.find_iter(s)
                    .map(|m| (m.pattern().as_usize(), m.start(), m.end())),
            ),
        }
    }
}
