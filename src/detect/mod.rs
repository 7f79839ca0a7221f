//! The detection engine: a pure library (no I/O, no async) that finds personal data in text.
//!
//! Design, after Presidio's analyzer: one [`Recognizer`] per entity type, all behind one trait,
//! registered in [`recognizers::all`]. [`Detector::detect`] builds a [`Text`] (the original plus an
//! offset-preserving *matching view*, entities.md §1.2), lets every recognizer add [`Candidate`]s,
//! then resolves overlaps (§1.7) and converts byte offsets into the code-point offsets that the API
//! promises. Validators (Luhn, mod-97, …) are pure functions in [`validate`].
//!
//! A [`Detector`] is built once at start-up and shared across threads (`Send + Sync`).

mod entity;
pub(crate) mod lexicon;
pub mod recognizers;
mod records;
mod resolve;
pub mod scope;
pub mod tagger;
pub(crate) mod text;
pub mod validate;
pub(crate) mod words;

use std::sync::Arc;

pub use entity::{CustomType, EntityType};
pub use scope::{Everything, Scope};
pub use text::Text;

/// A detected entity, offsets in code points into the submitted text, `end` exclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finding {
    pub entity_type: EntityType,
    pub start: usize,
    pub end: usize,
    pub score: f32,
    /// True only when a check-digit algorithm confirmed the value (IBAN, card, Steuer-ID, SV-Nr).
    pub validated: bool,
}

/// What a recognizer proposes: byte offsets into [`Text::view`] (which are also valid byte
/// offsets into nothing else — [`Detector`] converts them to code points).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub entity_type: EntityType,
    pub start: usize,
    pub end: usize,
    pub score: f32,
    pub validated: bool,
}

/// One recognizer per entity type (a type may also be proposed by others, e.g. a container).
pub trait Recognizer: Send + Sync {
    /// The type this recognizer is responsible for.
    fn entity_type(&self) -> EntityType;
    /// Append candidates found in `text` to `out`. Must not panic on any input.
    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>);
    /// True for a recognizer that reads the candidates already in `out` (record awareness): it
    /// runs after every other recognizer and after the name tagger.
    fn reads_candidates(&self) -> bool {
        false
    }
}

/// Score below which a candidate is dropped (entities.md §1.6).
pub const DEFAULT_THRESHOLD: f32 = 0.5;

/// The engine: every registered recognizer, the name tagger, overlap resolution.
pub struct Detector {
    recognizers: Vec<Box<dyn Recognizer>>,
    /// Decides unanchored capitalised words ([`tagger::combine`]); `None` runs the rules alone.
    tagger: Option<Arc<tagger::Tagger>>,
    threshold: f32,
}

impl Detector {
    /// All recognizers of [`recognizers::all`] and the compiled-in tagger, default threshold.
    pub fn new() -> Detector {
        Detector::with_recognizers(recognizers::all()).with_tagger(Some(tagger::Tagger::shared()))
    }

    /// The given recognizers alone (no tagger), default threshold.
    pub fn with_recognizers(recognizers: Vec<Box<dyn Recognizer>>) -> Detector {
        Detector {
            recognizers,
            tagger: None,
            threshold: DEFAULT_THRESHOLD,
        }
    }

    /// Replaces the name tagger (`None`: rules only; evaluation trains its own per fold).
    pub fn with_tagger(mut self, tagger: Option<Arc<tagger::Tagger>>) -> Detector {
        self.tagger = tagger;
        self
    }

    /// Findings sorted by `start`, never overlapping, offsets in code points.
    pub fn detect(&self, input: &str) -> Vec<Finding> {
        self.detect_in(input, &Everything)
    }

    /// [`Detector::detect`] under a policy: `scope` decides which candidates count, adds its
    /// own and names the stretches that are never masked (see [`scope`]).
    pub fn detect_in(&self, input: &str, scope: &dyn Scope) -> Vec<Finding> {
        let text = Text::new(input);
        let mut candidates = Vec::new();
        let (readers, finders): (Vec<_>, Vec<_>) =
            self.recognizers.iter().partition(|r| r.reads_candidates());
        for recognizer in finders {
            recognizer.recognize(&text, &mut candidates);
        }
        if let Some(tagger) = &self.tagger {
            tagger::combine::apply(tagger, &text, &mut candidates);
        }
        for recognizer in readers {
            recognizer.recognize(&text, &mut candidates);
        }
        scope.propose(&text, &mut candidates);
        candidates
            .retain(|c| c.start < c.end && scope.admits(c.entity_type, c.score, self.threshold));
        let mut allowed = Vec::new();
        scope.allowed(&text, &mut allowed);
        scope::drop_allowed(&mut candidates, &mut allowed);
        let mut accepted = resolve::resolve_overlaps(candidates);
        resolve::one_type_per_value(text.view(), &mut accepted);
        text.to_findings(accepted)
    }
}

impl Default for Detector {
    fn default() -> Self {
        Detector::new()
    }
}
