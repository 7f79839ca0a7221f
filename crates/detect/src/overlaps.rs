//! Overlap queries against a fixed set of byte ranges in logarithmic time: the engine asks,
//! for each of many candidates, whether it overlaps any of many mentions, and a scan of the
//! whole set per candidate made that quadratic in the text (`Max\n` repeated).

/// A set of half-open ranges, sorted by start, with the largest end among each prefix.
pub(crate) struct Overlaps {
    starts: Vec<usize>,
    /// `reach[i]`: the largest end among the first `i + 1` ranges.
    reach: Vec<usize>,
}

impl Overlaps {
    pub fn new(ranges: impl Iterator<Item = (usize, usize)>) -> Overlaps {
        let mut sorted: Vec<(usize, usize)> = ranges.collect();
        sorted.sort_unstable();
        let mut max_end = 0;
        let reach = sorted
            .iter()
            .map(|&(_, end)| {
                max_end = max_end.max(end);
                max_end
            })
            .collect();
        Overlaps {
            starts: sorted.into_iter().map(|(start, _)| start).collect(),
            reach,
        }
    }

    /// Whether some range `x..y` of the set overlaps `a..b` (`x < b && a < y`): among the
    /// ranges starting before `b`, the one reaching furthest decides.
    pub fn any(&self, a: usize, b: usize) -> bool {
        let before = self.starts.partition_point(|&x| x < b);
        before
            .checked_sub(1)
            .and_then(|i| self.reach.get(i))
            .is_some_and(|&y| a < y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn answers_like_a_scan(
            ranges in prop::collection::vec((0usize..60, 0usize..12), 0..20),
            a in 0usize..70,
            len in 0usize..12,
        ) {
            let ranges: Vec<(usize, usize)> = ranges.iter().map(|&(x, l)| (x, x + l)).collect();
            let set = Overlaps::new(ranges.iter().copied());
            let b = a + len;
            let scan = ranges.iter().any(|&(x, y)| x < b && a < y);
            prop_assert_eq!(set.any(a, b), scan);
        }
    }
}
