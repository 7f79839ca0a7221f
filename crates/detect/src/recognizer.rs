//! The trait every recognizer implements.

use super::entity::EntityType;
use super::finding::Candidate;
use super::text::Text;

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
    /// True for a recognizer that takes a large share of a text's detection time whatever the
    /// text (LOCATION and PERSON, which read every word): on two threads the engine starts
    /// these first, so that neither thread is left with a long job at the end (a scheduling
    /// hint only; the findings do not depend on it).
    fn is_heavy(&self) -> bool {
        false
    }
}
