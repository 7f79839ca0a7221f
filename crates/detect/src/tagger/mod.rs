//! A trained sequence tagger for person (and place) names, beside the rules. The PERSON rules are
//! sure of anchored names (`Frau X`, form labels, signatures) but must guess at a capitalised word
//! nobody announced (`Gegen Ribéry wurde ermittelt.`); a linear model trained on labelled German
//! text decides those, from the word's form, shape, lexicon classes, word cluster and neighbours.
//!
//! - [`features`]: one feature extractor for training and tagging;
//! - [`infer`]: the label scores of a text, summed once per spelling where the templates allow;
//! - [`model`]: weights, Viterbi decoding, the weights file;
//! - [`tables`]: word clusters and common nouns (`data/tagger/`);
//! - `train` (feature `training`): the averaged perceptron and corpus parsers (run by
//!   `examples/train_tagger.rs`);
//! - [`combine`]: how the tagger's mentions and the rules' candidates meet.
//!
//! Pure, no I/O: the weights are compiled in (`data/tagger/weights.bin`), parsed once and shared.

pub mod combine;
pub mod features;
pub mod infer;
pub mod model;
mod plain;
pub(crate) mod tables;
// Training is for the tools (`examples/train_tagger.rs`), not for the service: compiled only with
// the `training` feature, which the service's build does not enable.
#[cfg(feature = "training")]
pub mod train;

use std::sync::{Arc, OnceLock};

pub use model::ModelError;
pub(crate) use plain::english_at;

/// True when `word` (as written) is a common noun of the tagger's noun table.
pub(crate) fn is_common_noun(word: &str) -> bool {
    tables::Tables::get().is_noun(word)
}
use model::{viterbi, Model, B_LOC, B_OTH, B_PER, I_LOC, I_OTH, I_PER, O};

use super::Text;

static WEIGHTS: &[u8] = include_bytes!("../../data/tagger/weights.bin");

/// An entity kind the tagger learns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Person,
    Location,
    /// Organisations, works and parts or derivations of names: neither person nor place.
    Other,
}

/// A mention the tagger found: byte range of [`Text::view`], first and last word index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mention {
    pub start: usize,
    pub end: usize,
    pub first_word: usize,
    pub last_word: usize,
    pub kind: Kind,
}

/// What the tagger says about one text.
#[derive(Debug, Default)]
pub struct Tagging {
    /// Per word: true when the tagger judged the word (see [`features`]), false when it is `O`
    /// by construction.
    pub open: Vec<bool>,
    /// Per word: how far the tagger's `B-PER` score lies above the best score of `O`, `B-LOC`
    /// and `B-OTH` (0 for words that are `O` by construction).
    pub person_margin: Vec<f32>,
    pub mentions: Vec<Mention>,
}

/// The tagger: a model plus the shared feature tables.
pub struct Tagger {
    model: Model,
}

impl Tagger {
    pub fn new(model: Model) -> Tagger {
        Tagger { model }
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Tagger, ModelError> {
        Ok(Tagger::new(Model::from_bytes(bytes)?))
    }

    /// The compiled-in tagger, parsed on first use and shared by every detector. Panics only
    /// if the compiled-in weights are corrupt, which a unit test rules out (like the static
    /// patterns of the recognizers).
    pub fn shared() -> Arc<Tagger> {
        static SHARED: OnceLock<Arc<Tagger>> = OnceLock::new();
        SHARED
            .get_or_init(|| {
                // Build the word tables now, not on the first request.
                let _ = tables::Tables::get();
                Arc::new(Tagger::from_bytes(WEIGHTS).expect("compiled-in tagger weights"))
            })
            .clone()
    }

    /// The model (weights and transitions).
    #[cfg(test)]
    pub(crate) fn model(&self) -> &Model {
        &self.model
    }

    /// Tags the words of `text`.
    pub fn tag(&self, text: &Text<'_>) -> Tagging {
        let em = infer::emissions(text, &self.model);
        if em.iter().all(Option::is_none) {
            // No open word: every label is `O` (what Viterbi finds without a score to weigh).
            return Tagging {
                open: vec![false; em.len()],
                person_margin: vec![0.0; em.len()],
                mentions: Vec::new(),
            };
        }
        let labels = viterbi(&em, self.model.trans());
        let words = text.words();
        let mut mentions: Vec<Mention> = Vec::new();
        for (i, &l) in labels.iter().enumerate() {
            let kind = match l {
                B_PER | I_PER => Kind::Person,
                B_LOC | I_LOC => Kind::Location,
                B_OTH | I_OTH => Kind::Other,
                _ => continue,
            };
            let continues = matches!(l, I_PER | I_LOC | I_OTH);
            match mentions.last_mut() {
                Some(m) if continues && m.last_word + 1 == i && m.kind == kind => {
                    m.last_word = i;
                    m.end = words[i].end;
                }
                _ => mentions.push(Mention {
                    start: words[i].start,
                    end: words[i].end,
                    first_word: i,
                    last_word: i,
                    kind,
                }),
            }
        }
        Tagging {
            open: em.iter().map(Option::is_some).collect(),
            person_margin: em
                .iter()
                .map(|e| {
                    e.map_or(0.0, |e| {
                        e[B_PER as usize]
                            - e[O as usize].max(e[B_LOC as usize]).max(e[B_OTH as usize])
                    })
                })
                .collect(),
            mentions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn persons(s: &str) -> Vec<String> {
        let t = Text::new(s);
        Tagger::shared()
            .tag(&t)
            .mentions
            .iter()
            .filter(|m| m.kind == Kind::Person)
            .map(|m| s[m.start..m.end].to_owned())
            .collect()
    }

    #[test]
    fn shipped_weights_load() {
        let t = Tagger::from_bytes(WEIGHTS).expect("weights parse");
        assert!(t.model.mask() >= 1023);
    }

    #[test]
    fn margins_of_open_and_closed_words() {
        let t = Text::new("Gegen Ribéry wurde ermittelt.");
        let tagging = Tagger::shared().tag(&t);
        assert_eq!(tagging.person_margin.len(), t.words().len());
        // `Ribéry` is a name (its `B-PER` beats every other label); `wurde` is closed.
        assert!(
            tagging.person_margin[1] > 0.0,
            "{:?}",
            tagging.person_margin
        );
        assert_eq!(tagging.person_margin[2], 0.0);
        assert!(!tagging.open[2]);
    }

    #[test]
    fn probes_unanchored_names() {
        assert_eq!(
            persons("Meine Kollegin Małgorzata Kowalska wohnt in Wanne-Eickel."),
            vec!["Małgorzata Kowalska"]
        );
        // Common nouns are never part of a mention.
        assert!(persons("Das Drehbuch war schlecht, Curtiz war schlecht.")
            .iter()
            .all(|p| !p.contains("Drehbuch")));
    }
}
