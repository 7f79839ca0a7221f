//! The triggers of a text: every occurrence of a trigger word ([`word_scan`], four scans at
//! once), reduced to the leftmost-longest ones the recognizer reads, as the library's
//! leftmost-longest search would report them (proptest below).

use aho_corasick::{dfa, BuildError};

use super::super::word_scan::{self, Occurrence};

/// The trigger words as a standard DFA ([`word_scan::automaton`]).
pub(super) struct TriggerScan {
    dfa: dfa::DFA,
}

impl TriggerScan {
    pub(super) fn new<I, P>(patterns: I) -> Result<TriggerScan, BuildError>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<[u8]>,
    {
        Ok(TriggerScan {
            dfa: word_scan::automaton(patterns)?,
        })
    }

    /// The non-overlapping leftmost-longest triggers of `b`, in order: at each step the
    /// occurrence that starts first, the longest of those (the lowest pattern among equally
    /// long ones), then on from its end.
    pub(super) fn leftmost_longest(&self, b: &[u8]) -> Vec<Occurrence> {
        let mut all = word_scan::occurrences(&self.dfa, b);
        all.sort_unstable_by_key(|t| (t.start, usize::MAX - t.end, t.pattern));
        let mut out: Vec<Occurrence> = Vec::new();
        for t in all {
            if out.last().is_none_or(|last| t.start >= last.end) {
                out.push(t);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use aho_corasick::{AhoCorasick, MatchKind};
    use proptest::prelude::*;

    use super::super::TRIGGERS;
    use super::{Occurrence, TriggerScan};

    fn patterns() -> impl Iterator<Item = &'static str> {
        TRIGGERS.iter().map(|(p, _)| *p)
    }

    /// The library's leftmost-longest search over the same patterns: the reference.
    fn reference(s: &str) -> Vec<Occurrence> {
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(patterns())
            .expect("static triggers");
        ac.find_iter(s)
            .map(|m| Occurrence {
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
            for lead in 0..128 {
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
                    proptest::sample::select(patterns().collect::<Vec<_>>())
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
