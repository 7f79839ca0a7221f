//! The first trigger of a text, found by stepping the trigger automaton as a bare DFA in a
//! tight loop of our own: most texts hold no trigger at all, and the library's general search
//! loop costs about twice as much per byte.

use aho_corasick::automaton::Automaton;
use aho_corasick::{dfa, Anchored, BuildError, MatchKind, StartKind};

/// The trigger automaton of [`super::SecretRecognizer`] (same patterns, case and match kind)
/// as a DFA without prefilter, so that only dead and match states are special.
pub(super) struct FirstTrigger {
    dfa: dfa::DFA,
}

impl FirstTrigger {
    pub(super) fn new<I, P>(patterns: I) -> Result<FirstTrigger, BuildError>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<[u8]>,
    {
        let dfa = dfa::DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .prefilter(false)
            .start_kind(StartKind::Unanchored)
            .build(patterns)?;
        Ok(FirstTrigger { dfa })
    }

    /// Where the trigger search must start so that it finds exactly the triggers a search of
    /// the whole text finds (`None`: the text holds no trigger). The unanchored automaton
    /// enters its first match state at the end of the trigger that ends first; every trigger
    /// ends there or later and is at most the longest trigger long, so none starts before
    /// that end minus the longest trigger's length.
    pub(super) fn search_from(&self, b: &[u8]) -> Option<usize> {
        let dfa = &self.dfa;
        let Ok(mut sid) = dfa.start_state(Anchored::No) else {
            return Some(0);
        };
        let step = |sid, byte| dfa.next_state(Anchored::No, sid, byte);
        let hit = |sid| dfa.is_special(sid) && !dfa.is_start(sid);
        let from = |end: usize| Some(end.saturating_sub(dfa.max_pattern_len()));
        // Four bytes a step: special states have the smallest ids, so one test of the least
        // of the four says whether any of them is special.
        let mut chunks = b.chunks_exact(4);
        let mut at = 0;
        for c in &mut chunks {
            let s1 = step(sid, c[0]);
            let s2 = step(s1, c[1]);
            let s3 = step(s2, c[2]);
            let s4 = step(s3, c[3]);
            if dfa.is_special(s1.min(s2).min(s3).min(s4)) {
                for (k, s) in [s1, s2, s3, s4].into_iter().enumerate() {
                    if hit(s) {
                        return from(at + k + 1);
                    }
                }
            }
            sid = s4;
            at += 4;
        }
        for &byte in chunks.remainder() {
            sid = step(sid, byte);
            at += 1;
            if hit(sid) {
                return from(at);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use aho_corasick::Input;

    use super::super::SecretRecognizer;

    #[test]
    fn skipping_to_the_first_trigger_finds_the_same_triggers() {
        let r = SecretRecognizer::new();
        let filler = "Sehr geehrte Damen und Herren, bitte prüfen Sie den Vorgang. ";
        for tail in [
            "",
            "PASSWORT: Sommer2024!",
            "api_key=sk-abcDEF1234567890abcdef1234 und pin 1234",
            "postgres://user:geheim@db/x -----BEGIN RSA PRIVATE KEY-----",
            "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x AKIAIOSFODNN7EXAMPLE",
            "kennworttoken pwpw ghp_ xoxb-",
        ] {
            for lead in ["", "x", filler, &filler.repeat(3)] {
                let s = format!("{lead}{tail}");
                let all: Vec<(usize, usize)> = r
                    .triggers
                    .find_iter(s.as_str())
                    .map(|m| (m.start(), m.end()))
                    .collect();
                let skipped: Vec<(usize, usize)> = match r.skip.search_from(s.as_bytes()) {
                    Some(from) => r
                        .triggers
                        .find_iter(Input::new(&s).span(from..s.len()))
                        .map(|m| (m.start(), m.end()))
                        .collect(),
                    None => Vec::new(),
                };
                assert_eq!(skipped, all, "{s}");
            }
        }
    }
}
