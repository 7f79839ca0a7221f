//! Towns that are also common words (`data/lexicon/ambiguous_towns.txt`: `Weiden`, `Hof`,
//! `Brand`): when a place preposition alone makes them a place (docs/entities.md §13.2).

use crate::lexicon::class;
use crate::text::Lexed;
use crate::words::{Shape, Word};

/// Score of a town that is also a common word, directly after a place preposition without an
/// article (`in Weiden`).
pub(super) const AFTER_PREPOSITION: f32 = 0.6;

/// True when the town ending at byte `end` is the first of two coordinated nouns (`Bad und
/// Küche`, `Wald und Flur`): a conjunction (`data/lexicon/conjunctions.txt`) and a capitalised
/// word that is no town.
pub(super) fn coordinated_noun(s: &str, words: &[Word], lexed: &Lexed, end: usize) -> bool {
    let k = words.partition_point(|w| w.start < end);
    let joined = |a: usize, b: usize| s.get(a..b) == Some(" ");
    let (Some(conj), Some(next)) = (words.get(k), words.get(k + 1)) else {
        return false;
    };
    let conj_word = joined(end, conj.start)
        && lexed
            .facts()
            .get(k)
            .is_some_and(|f| f.bits & class::CONJUNCTION != 0);
    conj_word
        && joined(conj.end, next.start)
        && next.shape == Shape::Capitalised
        && lexed
            .facts()
            .get(k + 1)
            .is_some_and(|f| f.cased & class::TOWN == 0)
}

#[cfg(test)]
mod tests {
    use crate::recognizers::person::places;

    #[test]
    fn a_town_that_is_a_noun_needs_a_bare_preposition() {
        assert_eq!(
            places("Wir haben eine Wohnung in Weiden gefunden."),
            vec!["Weiden"]
        );
        assert_eq!(places("Morgen fahre ich nach Hof."), vec!["Hof"]);
        for text in [
            "Das Haus geriet in Brand.",
            "Neue Fliesen in Bad und Küche.",
            "Eine Mauer aus Stein.",
            "Wir sitzen in den Weiden.",
        ] {
            assert_eq!(places(text), Vec::<String>::new(), "{text}");
        }
    }
}
