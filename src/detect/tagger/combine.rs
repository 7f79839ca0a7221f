//! Where the tagger meets the rules. The rules keep what they are sure of: anchored names
//! (`Frau X`, `Name:`, signatures, greetings), structured fields and every other entity type. The
//! tagger decides the capitalised words nobody announced:
//!
//! - its person mentions become PERSON candidates ([`TAGGER_SCORE`]); particles between two of
//!   them join them (`Ursula von der Leyen`);
//! - a PERSON candidate the rules only guessed (score below [`WEAK_BELOW`]: a lone given name or
//!   surname without an anchor, see `recognizers/person.rs` phase 3) is dropped when it covers a
//!   word the tagger judged and none of its words is in a tagger mention.
//!
//! Overlaps between the tagger's and the rules' candidates are left to the usual resolution
//! (score, then length), so an anchored rule span (0.75 and up) always wins.

use super::{Kind, Tagger};
use crate::detect::lexicon::class;
use crate::detect::{Candidate, EntityType, Text};

/// Score of a tagger mention: above the rules' unanchored guesses (0.4–0.6), below anchors.
pub const TAGGER_SCORE: f32 = 0.7;

/// Rule PERSON candidates scored below this are unanchored guesses the tagger may veto.
pub const WEAK_BELOW: f32 = 0.7;

/// Adds the tagger's person mentions to `candidates` and vetoes weak rule guesses it rejects.
pub fn apply(tagger: &Tagger, text: &Text<'_>, candidates: &mut Vec<Candidate>) {
    if text.words().is_empty() {
        return;
    }
    let tagging = tagger.tag(text);
    let s = text.view();
    let words = text.words();
    let facts = text.lexed().facts();
    // Person mentions, joined across particles (`von der`).
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut last_word = usize::MAX;
    for m in tagging.mentions.iter().filter(|m| m.kind == Kind::Person) {
        if let Some(last) = spans.last_mut() {
            let between = last_word + 1..m.first_word;
            let particles = !between.is_empty()
                && between.len() <= 3
                && between.clone().all(|k| {
                    facts[k].bits & class::PARTICLE != 0
                        && s[words[k].start..words[k].end].starts_with(|c: char| c.is_lowercase())
                })
                && s[last.1..m.start]
                    .chars()
                    .all(|c| c.is_alphabetic() || c == ' ');
            if particles {
                last.1 = m.end;
                last_word = m.last_word;
                continue;
            }
        }
        spans.push((m.start, m.end));
        last_word = m.last_word;
    }
    let in_mention = |a: usize, b: usize| spans.iter().any(|&(x, y)| x < b && a < y);
    let judged = |a: usize, b: usize| {
        let i = words.partition_point(|w| w.end <= a);
        (i..words.len())
            .take_while(|&k| words[k].start < b)
            .any(|k| tagging.open[k])
    };
    candidates.retain(|c| {
        c.entity_type != EntityType::Person
            || c.score >= WEAK_BELOW
            || c.validated
            || in_mention(c.start, c.end)
            || !judged(c.start, c.end)
    });
    for (a, b) in spans {
        candidates.push(Candidate {
            entity_type: EntityType::Person,
            start: a,
            end: b,
            score: TAGGER_SCORE,
            validated: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::{Detector, EntityType};

    /// PERSON values the full detector (rules + tagger) finds in `s`.
    fn names(s: &str) -> Vec<String> {
        Detector::new()
            .detect(s)
            .iter()
            .filter(|f| f.entity_type == EntityType::Person)
            .map(|f| s.chars().skip(f.start).take(f.end - f.start).collect())
            .collect()
    }

    #[test]
    fn probes_from_the_issue() {
        assert_eq!(names("Gegen Ribéry wurde ermittelt."), vec!["Ribéry"]);
        assert_eq!(
            names("Das Drehbuch war schlecht, Curtiz war schlecht."),
            vec!["Curtiz"]
        );
        assert_eq!(
            names("Meine Kollegin Małgorzata Kowalska wohnt in Wanne-Eickel."),
            vec!["Małgorzata Kowalska"]
        );
    }

    #[test]
    fn common_nouns_and_months_stay_text() {
        assert!(names("bis zum Verbot im Juni 1941").is_empty());
        assert!(names("Die Kosten sind im Juni 1999 gestiegen.").is_empty());
        assert!(names("Darin sind sich alle einig.").is_empty());
    }

    #[test]
    fn particles_join_a_name() {
        let n = names("Die Rede hielt gestern Ursula von der Leyen in Brüssel.");
        assert!(n.iter().any(|x| x.contains("von der Leyen")), "{n:?}");
    }
}
