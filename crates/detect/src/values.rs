//! Finding a set of known values in a text, rebuilt per text or request: the proxy's values of
//! one request ([`crate::proxy::anon`]) and the record recognizer's later mentions of the
//! values it found in a table.

mod scan;

use aho_corasick::{packed, AhoCorasick, AhoCorasickKind, MatchKind};

use scan::{FewValues, FirstByteScan};

/// Finds every value in a text: leftmost first, the longest of those starting at the same
/// place. Built once per request (or text) over its handful of values, so building
/// must be cheap: the packed (SIMD) searcher builds in about a microsecond, a full
/// Aho-Corasick automaton in over ten even for two values, which at 2 KB would be a fifth of
/// the whole rewrite. The automaton remains for what the packed searcher refuses (too many
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
/// value: the scan costs a few instructions a byte (fewer with three first bytes or fewer),
/// the packed searcher's build a fixed cost plus one per value, which a short text does not
/// earn back.
const SCAN_BASE: usize = 2048;
const SCAN_PER_VALUE: usize = 512;
/// Up to this many values, one `memmem` search each ([`FewValues`]) beats one scan of every
/// byte.
const FEW_MAX: usize = 4;
/// The first-byte scan and the packed searcher verify a candidate position value by value:
/// their work per text byte grows with the values that share a first byte (14 000 addresses
/// `x{i}@b.de` before 280 KB of `x` took 4 G comparisons). They are used only while the text's
/// length times that work ([`shared_first_byte_work`]) stays within this many word
/// comparisons; past it the automaton searches in time linear in the text whatever the values.
const VERIFY_BUDGET: usize = 1 << 22;
/// [`ValueMatcher::new`], not told the text's length, allows the packed searcher this much
/// work per text byte.
const VERIFY_PER_BYTE: usize = 64;

/// The most verification work one text byte can cause a searcher that tries, at a position,
/// each value beginning with that byte: the values sharing a first byte, by length in words.
fn shared_first_byte_work<'v>(values: impl Iterator<Item = &'v str>) -> usize {
    let mut work = [0usize; 256];
    for v in values {
        if let Some(&b) = v.as_bytes().first() {
            work[b as usize] += v.len() / 8 + 1;
        }
    }
    work.into_iter().max().unwrap_or(0)
}

impl<'v> ValueMatcher<'v> {
    pub fn new(values: impl Iterator<Item = &'v str> + Clone) -> Option<ValueMatcher<'v>> {
        let packable = shared_first_byte_work(values.clone()) <= VERIFY_PER_BYTE;
        ValueMatcher::build(values, packable)
    }

    /// The packed searcher when `packable` and it takes the values, else the automaton.
    fn build(
        values: impl Iterator<Item = &'v str> + Clone,
        packable: bool,
    ) -> Option<ValueMatcher<'v>> {
        // Teddy's own heuristic stops at 64 values; past it, a dense 2 KB request (80 values)
        // would pay for a refused packed build and then an automaton build, many times the
        // cost of its search. Up to its hard limit the packed searcher builds in a tenth of
        // that and still searches 2 KB faster than the automaton.
        let packed = (packable && values.clone().count() <= PACKED_MAX)
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
    /// building a packed searcher (a fixed cost plus one per value) and then searching faster. The same matches either way.
    pub fn for_text(
        values: impl Iterator<Item = &'v str> + Clone,
        len: usize,
    ) -> Option<ValueMatcher<'v>> {
        let n = values.clone().count();
        let short = len <= SCAN_BASE + SCAN_PER_VALUE * n;
        let bounded = len.saturating_mul(shared_first_byte_work(values.clone())) <= VERIFY_BUDGET;
        // the two cheap searchers refuse the same values (an empty one): no point trying both
        let cheap = match (short, n <= FEW_MAX) {
            // a `memmem` search per value is linear in the text whatever the values
            (true, true) => FewValues::new(values.clone()).map(ValueMatcher::Few),
            (true, false) if bounded => FirstByteScan::new(values.clone()).map(ValueMatcher::Scan),
            _ => None,
        };
        cheap.or_else(|| ValueMatcher::build(values, bounded))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_matchers_find_leftmost_longest() {
        let values = ["Anna", "Anna Schmidt", "na S", "a@x.de"];
        let text = "Anna Schmidt, Anna, a@x.de; Anna Schmid";
        let packed = ValueMatcher::new(values.iter().copied()).unwrap();
        assert!(
            matches!(packed, ValueMatcher::Packed(_)),
            "this CPU has SSSE3/AVX2"
        );
        let automaton = ValueMatcher::Automaton(
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(values)
                .unwrap(),
        );
        let expected = vec![(1, 0, 12), (0, 14, 18), (3, 20, 26), (0, 28, 32)];
        assert_eq!(packed.find_iter(text).collect::<Vec<_>>(), expected);
        assert_eq!(automaton.find_iter(text).collect::<Vec<_>>(), expected);
    }

    #[test]
    fn up_to_128_values_stay_packed_and_find_what_the_automaton_finds() {
        // first letters spread over the alphabet: few values share one
        let value = |i: usize| format!("{}{i}.lange@x.de", (b'a' + (i % 26) as u8) as char);
        let values: Vec<String> = (0..100).map(value).collect();
        let text: String = (0..100)
            .rev()
            .map(|i| format!("an {}, ", value(i)))
            .collect();
        let packed = ValueMatcher::new(values.iter().map(String::as_str)).unwrap();
        assert!(matches!(packed, ValueMatcher::Packed(_)));
        let automaton = ValueMatcher::Automaton(
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&values)
                .unwrap(),
        );
        let found: Vec<_> = packed.find_iter(&text).collect();
        assert_eq!(found.len(), 100);
        assert_eq!(found, automaton.find_iter(&text).collect::<Vec<_>>());
    }

    #[test]
    fn many_values_fall_back_to_the_automaton() {
        // the packed searcher takes at most 128 values
        let values: Vec<String> = (0..200).map(|i| format!("wert{i}@x.de")).collect();
        let matcher = ValueMatcher::new(values.iter().map(String::as_str)).unwrap();
        assert!(matches!(matcher, ValueMatcher::Automaton(_)));
        let found: Vec<_> = matcher.find_iter("an wert7@x.de, wert77@x.de").collect();
        assert_eq!(found, vec![(7, 3, 13), (77, 15, 26)]);
    }

    #[test]
    fn values_sharing_a_first_byte_get_the_linear_automaton_in_long_texts() {
        // every value starts with the byte a long padding is made of: verifying each at every
        // position of the padding would cost values x padding
        let values: Vec<String> = (0..2000).map(|i| format!("x{i}@b.de")).collect();
        let text = format!("{} x7@b.de", "x".repeat(10_000));
        let m = ValueMatcher::for_text(values.iter().map(String::as_str), text.len()).unwrap();
        assert!(matches!(m, ValueMatcher::Automaton(_)));
        assert_eq!(
            m.find_iter(&text).collect::<Vec<_>>(),
            vec![(7, 10_001, 10_008)]
        );
        let some: Vec<String> = (0..100).map(|i| format!("x{i}@b.de")).collect();
        let m = ValueMatcher::new(some.iter().map(String::as_str)).unwrap();
        assert!(
            matches!(m, ValueMatcher::Automaton(_)),
            "100 values share x"
        );
        // in a short text the same values keep the scan: its work is bounded by the text
        let m = ValueMatcher::for_text(some.iter().map(String::as_str), 2_000).unwrap();
        assert!(matches!(m, ValueMatcher::Scan(_)));
    }
}
