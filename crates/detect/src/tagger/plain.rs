//! Capitalised words that name no person or place in *this* text unless an anchor says so:
//!
//! - a value label (`Steuer-ID`, `IBAN`): a label is never a value;
//! - a product, model or tool name (`Claude`, `Opus`, `Grep`);
//! - a word the same text also writes in lower case (`Read` and `read`, `Agent` and `agent`):
//!   a name keeps its capital wherever it occurs, so a word seen lower-case is a word (a listed
//!   given name is exempt unless it is a very common English word in English text);
//! - in English text (by its [`class::ENGLISH_MARKER`] words nearby), a common English word
//!   (`Firstly`, `Hence`, `Member States`) that no gazetteer lists as a name, or that is so
//!   common that the listing does not count (`Little`, `Seven`, `Asia`).
//!
//! German text keeps the first three only: German capitalises every noun, and its surnames
//! are often English words (`Fischer`, `Wolf`).

use ahash::AHashSet;

use crate::lexicon::{class, Lexicon};
use crate::text::WordFacts;
use crate::words::{Shape, Word};
use crate::Text;

/// English Zipf frequency (times ten) from which a listed given name or surname alone is still
/// a word in English text (`Little` 57, `Asia` 46; not `Jane` 44).
const LISTED_BUT_WORD: u16 = 45;

/// How much more frequent in English than in German (Zipf times ten) a listed given name must
/// be for [`LISTED_BUT_WORD`] to make it a word: a given name is about as frequent in both
/// languages' text (`Robert` 48/47, `Elizabeth` 45/40, `James` 51/45), an English word that is
/// also a given name is not (`Grace` 46/37, `Joy` 46/36, `Summer` 52/38).
const LISTED_WORD_LEAD: u16 = 9;

/// Words on each side read to tell English text.
const LANGUAGE_WINDOW: usize = 10;

/// The plain-word test of one text, for the words of the mentions it is asked about.
pub(crate) struct Plain<'t, 'a> {
    text: &'t Text<'a>,
    lex: &'static Lexicon,
    /// Lowercase-form hashes of the asked words that the text also writes in lower case.
    seen_lower: AHashSet<u64>,
}

impl<'t, 'a> Plain<'t, 'a> {
    /// Prepares the test for the words `asked` (word indices) of `text`: one pass over the
    /// text's lower-case words.
    pub(crate) fn new(text: &'t Text<'a>, asked: impl IntoIterator<Item = usize>) -> Self {
        let words = text.words();
        let facts = text.lexed().facts();
        let wanted: AHashSet<u64> = asked
            .into_iter()
            .filter(|&k| words.get(k).is_some_and(|w| w.shape != Shape::Lower))
            .map(|k| facts[k].low_hash)
            .collect();
        let mut seen_lower = AHashSet::new();
        if !wanted.is_empty() {
            for (w, f) in words.iter().zip(facts) {
                if w.shape == Shape::Lower && wanted.contains(&f.low_hash) {
                    seen_lower.insert(f.low_hash);
                }
            }
        }
        Plain {
            text,
            lex: Lexicon::get(),
            seen_lower,
        }
    }

    /// The lexicon facts of the text's words.
    pub(crate) fn facts(&self) -> &[WordFacts] {
        self.text.lexed().facts()
    }

    /// True when word `k` names nobody here without an anchor (see the module doc).
    pub(crate) fn is_plain(&self, k: usize) -> bool {
        let words = self.text.words();
        let facts = self.text.lexed().facts();
        let (Some(w), Some(f)) = (words.get(k), facts.get(k)) else {
            return false;
        };
        if f.bits & (class::PRODUCT | class::VALUE_LABEL) != 0 {
            return true;
        }
        if w.shape == Shape::Lower {
            return false;
        }
        let text = w.text(self.text.view());
        // A compound adjective or participle (`Github-flavored`, `JSON-encoded`): no name
        // ends in a lower-case part.
        if w.hyphen
            && text
                .rsplit('-')
                .next()
                .is_some_and(|tail| tail.starts_with(char::is_lowercase))
        {
            return true;
        }
        if inner_capital(text) {
            return true;
        }
        let listed_first = f.cased & class::FIRST_NAME != 0;
        let listed = f.cased & (class::FIRST_NAME | class::LAST_NAME) != 0;
        let en = if f.bits & class::ENGLISH != 0 {
            self.lex.english_zipf(f.low_hash)
        } else {
            0
        };
        let mut english = None;
        let mut is_english = || *english.get_or_insert_with(|| self.english_around(k));
        if self.seen_lower.contains(&f.low_hash)
            && (!listed_first || (en >= LISTED_BUT_WORD && is_english()))
        {
            return true;
        }
        // In English text, a word glued to another by `/`, `,` or `:` is an identifier from a
        // list (`Edit/Write`, `select:Read,Edit`): names are written apart.
        if self.glued(k) && is_english() {
            return true;
        }
        let word_despite_listing = en >= LISTED_BUT_WORD
            && (!listed_first || self.lex.english_lead(f.low_hash) >= LISTED_WORD_LEAD);
        en > 0 && (!listed || word_despite_listing) && is_english()
    }

    /// True when every word of `first..=last` is plain, or one of them is a label or product.
    pub(crate) fn all_plain(&self, first: usize, last: usize) -> bool {
        let facts = self.text.lexed().facts();
        (first..=last).any(|k| {
            facts
                .get(k)
                .is_some_and(|f| f.bits & (class::PRODUCT | class::VALUE_LABEL) != 0)
        }) || (first..=last).all(|k| self.is_plain(k))
    }

    /// True when word `k` touches a neighbouring word through `/`, `,` or `:` alone.
    fn glued(&self, k: usize) -> bool {
        let (s, words) = (self.text.view(), self.text.words());
        let glue = |a: usize, b: usize| s.get(a..b).is_some_and(|g| matches!(g, "/" | "," | ":"));
        (k > 0 && glue(words[k - 1].end, words[k].start))
            || words
                .get(k + 1)
                .is_some_and(|n| glue(words[k].end, n.start))
    }

    fn english_around(&self, k: usize) -> bool {
        english_at(self.text.words(), self.text.lexed().facts(), k)
    }
}

/// An identifier or brand written in camel case (`TaskStop`, `JetBrains`): a capital after a
/// lower-case letter, three or more letters into the word, unless the letters before it are
/// `Mac` or a particle (`MacArthur`, `VanDyke`; `McDonald` and `DiCaprio` have it earlier).
fn inner_capital(word: &str) -> bool {
    let mut prev_lower = false;
    for (i, (n, c)) in word
        .char_indices()
        .enumerate()
        .map(|(n, (i, c))| (i, (n, c)))
    {
        if c.is_uppercase() && prev_lower && n >= 3 {
            let head = word[..i].to_lowercase();
            return head != "mac" && Lexicon::get().form_bits(&head) & class::PARTICLE == 0;
        }
        prev_lower = c.is_lowercase();
    }
    false
}

/// True when the words around `k` read as English: at least two lower-case words that mark
/// English text, and they make a third or more of the lower-case words there.
pub(crate) fn english_at(words: &[Word], facts: &[WordFacts], k: usize) -> bool {
    let from = k.saturating_sub(LANGUAGE_WINDOW);
    let to = (k + LANGUAGE_WINDOW + 1).min(words.len());
    let (mut lower, mut marked) = (0usize, 0usize);
    for (w, f) in words[from..to].iter().zip(&facts[from..to]) {
        if w.shape == Shape::Lower {
            lower += 1;
            if f.bits & class::ENGLISH_MARKER != 0 {
                marked += 1;
            }
        }
    }
    marked >= 2 && marked * 3 >= lower
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain words of `s`, all of its words asked.
    fn plain(s: &str) -> Vec<String> {
        let t = Text::new(s);
        let n = t.words().len();
        let p = Plain::new(&t, 0..n);
        (0..n)
            .filter(|&k| t.words()[k].shape != Shape::Lower && p.is_plain(k))
            .map(|k| t.words()[k].text(s).to_owned())
            .collect()
    }

    #[test]
    fn english_openers_and_common_words_are_plain_names_are_not() {
        let s = "Firstly, the Member States should act. Hence we met Jane Doe and Mr Smith.";
        let p = plain(s);
        for w in ["Firstly", "Member", "States", "Hence"] {
            assert!(p.contains(&w.to_owned()), "{w}: {p:?}");
        }
        for w in ["Jane", "Doe"] {
            assert!(!p.contains(&w.to_owned()), "{w}: {p:?}");
        }
    }

    #[test]
    fn frequent_given_names_are_names_in_english_text_english_words_are_not() {
        // `Robert`, `Elizabeth`, `James` are about as frequent in German as in English text;
        // `Summer` and `Hope` are English words far more than names.
        let p = plain(
            "Yesterday I asked Robert and then Elizabeth, and James said that the Summer was \
             over and that Hope was all we had left for the rest of the year.",
        );
        for w in ["Robert", "Elizabeth", "James"] {
            assert!(!p.contains(&w.to_owned()), "{w}: {p:?}");
        }
        for w in ["Summer", "Hope"] {
            assert!(p.contains(&w.to_owned()), "{w}: {p:?}");
        }
    }

    #[test]
    fn german_text_keeps_english_looking_surnames() {
        let p = plain("Gestern hat Fischer die Wahl gewonnen, sagte Wolf.");
        assert!(p.is_empty(), "{p:?}");
    }

    #[test]
    fn labels_products_and_words_seen_lower_case_are_plain() {
        let p = plain(
            "Meine Steuer-ID lautet 1. Frag Claude. Read the file, then read it again. \
             Shown as Github-flavored text; call it with select:Grep,Edit when you are done.",
        );
        for w in ["Steuer-ID", "Claude", "Read", "Github-flavored", "Edit"] {
            assert!(p.contains(&w.to_owned()), "{w}: {p:?}");
        }
        assert!(inner_capital("TaskStop") && inner_capital("JetBrains"));
        assert!(!inner_capital("McDonald") && !inner_capital("MacArthur"));
        assert!(!inner_capital("DiCaprio") && !inner_capital("Schulze-Vogel"));
        assert!(!inner_capital("VanDyke"));
        // A given name stays a name even where the text writes it in lower case too.
        assert!(plain("Anna rief an, anna schrieb später.").is_empty());
    }
}
