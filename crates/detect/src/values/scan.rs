//! Searchers for values in a short text that cost next to nothing to build: for a handful of
//! values one substring search each ([`FewValues`]), for more the values grouped by their
//! first byte and the text scanned once for bytes that start one ([`FirstByteScan`]). Building
//! a packed (Teddy) searcher costs a fixed amount plus some per value, more than scanning a
//! whole short request this way; for long texts Teddy's vector search wins, so
//! [`super::ValueMatcher::for_text`] picks by the text's length.

/// A handful of values, each found by its own `memmem` searcher (which skips ahead to the
/// value's rarest bytes): a search each per text, then one more per match of that value.
pub struct FewValues {
    finders: Vec<memchr::memmem::Finder<'static>>,
}

impl FewValues {
    /// `None` when a value is empty (it would match everywhere).
    pub(crate) fn new<'v>(values: impl Iterator<Item = &'v str>) -> Option<FewValues> {
        let finders: Vec<_> = values
            .map(|v| memchr::memmem::Finder::new(v.as_bytes()).into_owned())
            .collect();
        if finders.iter().any(|f| f.needle().is_empty()) {
            return None;
        }
        Some(FewValues { finders })
    }

    /// As [`FirstByteScan::find_iter`]: each value's next occurrence is kept, the leftmost
    /// (then longest, then first) is taken, and those it overlaps are searched again after it.
    pub(crate) fn find_iter<'a>(
        &'a self,
        s: &'a str,
    ) -> impl Iterator<Item = (usize, usize, usize)> + 'a {
        let hay = s.as_bytes();
        let mut next: Vec<Option<usize>> = self.finders.iter().map(|f| f.find(hay)).collect();
        std::iter::from_fn(move || {
            let mut best: Option<(usize, usize, usize)> = None;
            for (v, at) in next.iter().enumerate() {
                let Some(at) = *at else { continue };
                let len = self.finders[v].needle().len();
                if best.is_none_or(|(b_at, b_len, _)| at < b_at || (at == b_at && len > b_len)) {
                    best = Some((at, len, v));
                }
            }
            let (at, len, v) = best?;
            let end = at + len;
            for (w, n) in next.iter_mut().enumerate() {
                if n.is_some_and(|x| x < end) {
                    *n = self.finders[w].find(&hay[end..]).map(|i| i + end);
                }
            }
            Some((v, at, end))
        })
    }
}

/// The values, grouped by first byte, each group longest first.
pub struct FirstByteScan<'v> {
    values: Vec<&'v [u8]>,
    /// Value indices ordered by (first byte, length descending, index).
    order: Vec<u32>,
    /// `order[start[b] as usize..start[b + 1] as usize]`: the values that begin with byte `b`.
    start: Box<[u32; 257]>,
    /// Up to three distinct first bytes: found by `memchr3` rather than byte by byte.
    firsts: Option<[u8; 3]>,
}

impl<'v> FirstByteScan<'v> {
    /// `None` when a value is empty (it would match everywhere).
    pub(crate) fn new(values: impl Iterator<Item = &'v str>) -> Option<FirstByteScan<'v>> {
        let values: Vec<&[u8]> = values.map(str::as_bytes).collect();
        if values.iter().any(|v| v.is_empty()) || values.len() > u32::MAX as usize {
            return None;
        }
        let mut start = Box::new([0u32; 257]);
        for v in &values {
            start[v[0] as usize + 1] += 1;
        }
        for b in 0..256 {
            start[b + 1] += start[b];
        }
        // a counting sort by first byte (indices ascending within each), then each group by
        // length: cheaper than one comparison sort over all values
        let mut order = vec![0u32; values.len()];
        let mut fill = start.clone();
        for (i, v) in values.iter().enumerate() {
            let slot = &mut fill[v[0] as usize];
            order[*slot as usize] = i as u32;
            *slot += 1;
        }
        let mut firsts = Vec::with_capacity(3);
        for b in 0..256 {
            let group = &mut order[start[b] as usize..start[b + 1] as usize];
            if !group.is_empty() {
                firsts.push(b as u8);
                if group.len() > 1 {
                    group.sort_by_key(|&i| std::cmp::Reverse(values[i as usize].len()));
                }
            }
        }
        let firsts = match firsts[..] {
            [a] => Some([a, a, a]),
            [a, b] => Some([a, b, b]),
            [a, b, c] => Some([a, b, c]),
            _ => None,
        };
        Some(FirstByteScan {
            values,
            order,
            start,
            firsts,
        })
    }

    /// `(value index, start, end)` of every non-overlapping occurrence in `s`, leftmost
    /// first, the longest of those starting at the same place (the lowest index among equal
    /// values), like the packed searcher's leftmost-longest matches.
    pub(crate) fn find_iter<'a>(
        &'a self,
        s: &'a str,
    ) -> impl Iterator<Item = (usize, usize, usize)> + 'a {
        let hay = s.as_bytes();
        let mut at = 0;
        std::iter::from_fn(move || {
            while at < hay.len() {
                let i = match self.firsts {
                    Some([a, b, c]) => at + memchr::memchr3(a, b, c, &hay[at..])?,
                    None => {
                        at + hay[at..]
                            .iter()
                            .position(|&b| self.start[b as usize] != self.start[b as usize + 1])?
                    }
                };
                if let Some(found) = self.longest_at(hay, i) {
                    at = i + self.values[found].len();
                    return Some((found, i, at));
                }
                at = i + 1;
            }
            None
        })
    }

    /// The longest value that occurs at `hay[i..]`.
    fn longest_at(&self, hay: &[u8], i: usize) -> Option<usize> {
        let b = hay[i] as usize;
        let rest = &hay[i..];
        self.order[self.start[b] as usize..self.start[b + 1] as usize]
            .iter()
            .map(|&v| v as usize)
            .find(|&v| starts_with(rest, self.values[v]))
    }
}

/// `hay.starts_with(v)`, eight bytes at a time without a `memcmp` call: the values of one first
/// byte often share their first bytes (`030 5550007`, `030 5550012`, …), so most comparisons
/// read a word or two, and the call would cost more than the comparison.
fn starts_with(hay: &[u8], v: &[u8]) -> bool {
    let Some(h) = hay.get(..v.len()) else {
        return false;
    };
    let n = v.len();
    if n < 8 {
        return h == v;
    }
    let word = |s: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_ne_bytes(w)
    };
    let mut at = 0;
    while at + 8 < n {
        if word(h, at) != word(v, at) {
            return false;
        }
        at += 8;
    }
    // the last word ends at `n` (overlapping the one before when `n` is not a multiple of 8)
    word(h, n - 8) == word(v, n - 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::{AhoCorasick, MatchKind};

    fn automaton(values: &[&str], text: &str) -> Vec<(usize, usize, usize)> {
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(values)
            .unwrap()
            .find_iter(text)
            .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
            .collect()
    }

    #[test]
    fn finds_what_the_automaton_finds() {
        let many: Vec<String> = (0..40)
            .map(|i| format!("{}{i}", ["k", "030 ", "Ahorn", "DE8", "Zoë"][i % 5]))
            .collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let text: String = (0..45)
            .rev()
            .map(|i| format!("an {} und k{i}, 030 {i}0 Zoë{i}; ", many[i % 40]))
            .collect();
        let cases: Vec<(Vec<&str>, &str)> = vec![
            (
                vec!["Anna", "Anna Schmidt", "na S", "a@x.de"],
                "Anna Schmidt, Anna, a@x.de; Anna Schmid",
            ),
            (vec!["ab", "abc", "b", "ab"], "xabcab abab b"),
            (vec!["ä", "äö", "ö"], "äöäöö ä"),
            (vec!["x"], ""),
            (many, &text),
        ];
        for (values, text) in cases {
            let expected = automaton(&values, text);
            let scan = FirstByteScan::new(values.iter().copied()).unwrap();
            assert_eq!(
                scan.find_iter(text).collect::<Vec<_>>(),
                expected,
                "{values:?}"
            );
            let few = FewValues::new(values.iter().copied()).unwrap();
            assert_eq!(
                few.find_iter(text).collect::<Vec<_>>(),
                expected,
                "{values:?}"
            );
        }
    }

    #[test]
    fn word_comparison_is_starts_with() {
        let hay = b"030 5550007, 030 5550012 und mehr Text dahinter";
        for start in 0..hay.len() {
            for end in start..=hay.len() {
                let v = &hay[start..end];
                for at in 0..hay.len() {
                    assert_eq!(
                        starts_with(&hay[at..], v),
                        hay[at..].starts_with(v),
                        "{at} {start}..{end}"
                    );
                }
            }
        }
    }

    #[test]
    fn refuses_an_empty_value() {
        assert!(FirstByteScan::new(["a", ""].into_iter()).is_none());
        assert!(FewValues::new(["a", ""].into_iter()).is_none());
    }
}
