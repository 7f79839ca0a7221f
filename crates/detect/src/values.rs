//! Finding a set of known values in a text, rebuilt per text or request: the proxy's values of
//! one request ([`crate::proxy::anon`]) and the record recognizer's later mentions of the
//! values it found in a table.

mod scan;

use aho_corasick::{packed, AhoCorasick, AhoCorasickKind, MatchKind};

use scan::{FewValues, FirstByteScan};

/// Finds every value in a text: leftmost first, the longest of those starting at the same
/// place. Built once per request (or text) over its handful of values, so building
/// must be cheap: the packed (SIMD) searcher builds in about a microsecond, a full
/// Aho-Corasick automaton in over ten even for two values, which at 2 KB was a fifth of the
/// whole rewrite. The automaton remains for what the packed searcher refuses (too many
/// values, or a CPU without the vector instructions it needs).
pub enum ValueMatcher<'v> {
    Packed(packed::Searcher),
    Automaton(AhoCorasick),
    /// A search per value ([`scan`]), for a handful of values in short texts.
    Few(FewValues),
    /// A scan by first byte ([`scan`]), for more values in short texts.
    Scan(FirstByteScan<'v>),
}

/// The most values the packed searcher takes (its own limit).
const PACKED_MAX: usize = 128;

/// [`ValueMatcher::for_text`] scans texts up to this many bytes plus [`SCAN_PER_VALUE`] per
/// value: the scan costs about 4 instructions a byte (less with three first bytes or fewer),
/// the packed searcher's build about 5 k plus 2 k per value.
const SCAN_BASE: usize = 2048;
const SCAN_PER_VALUE: usize = 512;
/// Up to this many values, one `memmem` search each ([`FewValues`]) beats one scan of every
/// byte.
const FEW_MAX: usize = 4;

impl<'v> ValueMatcher<'v> {
    pub fn new(values: impl Iterator<Item = &'v str> + Clone) -> Option<ValueMatcher<'v>> {
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

    /// A matcher for texts of about `len` bytes in all: below a length that grows with the
    /// number of values, a [`FirstByteScan`] (nothing to build, a plain scan) costs less than
    /// building a packed searcher (about 5 k + 2 k instructions per value) and then searching
    /// faster. The same matches either way.
    pub fn for_text(
        values: impl Iterator<Item = &'v str> + Clone,
        len: usize,
    ) -> Option<ValueMatcher<'v>> {
        let n = values.clone().count();
        let short = len <= SCAN_BASE + SCAN_PER_VALUE * n;
        // the two cheap searchers refuse the same values (an empty one): no point trying both
        let cheap = match (short, n <= FEW_MAX) {
            (true, true) => FewValues::new(values.clone()).map(ValueMatcher::Few),
            (true, false) => FirstByteScan::new(values.clone()).map(ValueMatcher::Scan),
            (false, _) => None,
        };
        cheap.or_else(|| ValueMatcher::new(values))
    }

    /// `(value index, start, end)` of every non-overlapping occurrence in `s`, in order.
    pub fn find_iter<'a>(
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
            ValueMatcher::Few(few) => Box::new(few.find_iter(s)),
            ValueMatcher::Scan(scan) => Box::new(scan.find_iter(s)),
        }
    }
}
