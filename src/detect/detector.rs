//! The engine: every registered recognizer, the name tagger, the policy's scope, overlap
//! resolution, offsets converted to code points.

use std::sync::Arc;

use super::finding::{Finding, DEFAULT_THRESHOLD};
use super::recognizer::Recognizer;
use super::scope::{self, Everything, Scope};
use super::text::Text;
use super::{recognizers, resolve, tagger};

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
