//! What the engine produces ([`Finding`]) and what recognizers propose ([`Candidate`]).

use super::entity::EntityType;

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

/// What a recognizer proposes: byte offsets into [`crate::Text::view`] (which are also valid byte
/// offsets into nothing else — [`crate::Detector`] converts them to code points).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub entity_type: EntityType,
    pub start: usize,
    pub end: usize,
    pub score: f32,
    pub validated: bool,
}

/// Score below which a candidate is dropped (docs/entities.md §1.6).
pub const DEFAULT_THRESHOLD: f32 = 0.5;

/// Builds a candidate.
pub(crate) fn cand(
    t: EntityType,
    start: usize,
    end: usize,
    score: f32,
    validated: bool,
) -> Candidate {
    Candidate {
        entity_type: t,
        start,
        end,
        score,
        validated,
    }
}
