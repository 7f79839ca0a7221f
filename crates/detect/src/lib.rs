//! The detection engine: a pure library (no I/O, no async) that finds personal data in text.
//!
//! Design, after Presidio's analyzer: one [`Recognizer`] per entity type, all behind one trait,
//! registered in [`registry::all`]. [`Detector::detect`] builds a [`Text`] (the original plus an
//! offset-preserving *matching view*, docs/entities.md §1.2), lets every recognizer add [`Candidate`]s,
//! then resolves overlaps (§1.7) and converts byte offsets into the code-point offsets that the API
//! promises. Validators (Luhn, mod-97, …) are pure functions in [`validate`].
//!
//! A [`Detector`] is built once at start-up and shared across threads (`Send + Sync`).

mod code;
mod context_rules;
mod detector;
mod entity;
pub mod examples;
mod finding;
mod hosts;
pub(crate) mod lexicon;
mod overlaps;
mod recognizer;
pub mod recognizers;
mod records;
pub mod registry;
mod resolve;
pub mod scope;
pub mod tagger;
pub(crate) mod text;
// The one place with `unsafe`: a borrowed closure handed to a helper thread (see its docs).
#[allow(unsafe_code)]
mod two_threads;
pub mod validate;
pub mod values;
pub mod view;
pub(crate) mod words;

pub use detector::{DetectError, Detector, MAX_CANDIDATES};
pub use entity::{CustomType, EntityType};
pub use finding::{
    Anchor, Ask, Basis, Candidate, Cues, Evidence, Finding, Form, NameShape, Needs,
    DEFAULT_THRESHOLD,
};
pub use recognizer::Recognizer;
pub use scope::{Everything, Scope};
pub use text::Text;
pub use view::View;
