//! PERSON (entities.md §2) without a model, in phases over the words of the text:
//!
//! 1. [`fields`]: structured data (`"firstName": "Anna"`).
//! 2. [`anchors`]: names after an anchor (salutation, title, greeting, self-introduction, form
//!    label, verb of saying, role noun). An office after `Herr`/`Frau` is never a name.
//! 3. [`signatures`]: a name under a closing line.
//! 4. [`prose`]: unanchored names: gazetteer given names and surnames in the shape of a name.
//! 5. [`mentions`]: later mentions of a name found with confidence.
//!
//! Per-word facts live in [`facts`], the extent of a name (particles, hyphens, several
//! surnames, genitive) in [`span`]. Word lists come from the lexicon (`data/lexicon/`).
//!
//! # Scores: anchored and unanchored candidates
//!
//! A candidate's score says how it was found, so that a later stage (a trained tagger) can
//! keep what an anchor vouches for and decide the rest:
//!
//! - **Anchored** scores are multiples of 0.05: [`ANCHORED_STRONG`] 0.9 (salutation, title,
//!   self-introduction, form label, signature, structured field), [`ANCHORED`] 0.85
//!   (greeting), [`ANCHORED_ROLE`]/[`ANCHORED_CHAT`]/[`MENTION`] 0.8 (role noun, lower-case
//!   chat after a salutation, repeated mention of a confident name), [`ANCHORED_WEAK`] 0.75
//!   (verb of saying before or after).
//! - **Unanchored** scores end in 3 or 8 hundredths (0.05·k − 0.02): [`UNANCHORED_FULL`] 0.83
//!   (given name + surname, `Schmidt, Anna`), [`UNANCHORED_SHAPE`] 0.78 (initial + surname,
//!   lower-case chat pair), [`UNANCHORED_PAIR`] 0.73 (ambiguous given name + surname, family
//!   name first), [`UNANCHORED_UNCASED`] 0.68 (script without case),
//!   [`UNANCHORED_LONE_FIRST_SURNAME`] 0.63, [`UNANCHORED_LONE_FIRST`] 0.58,
//!   [`UNANCHORED_LONE_SURNAME`] 0.53 (one word alone), [`UNANCHORED_LONE_SURNAME_START`] 0.38
//!   (a surname opening a sentence: below the threshold, dropped).
//!
//! [`is_unanchored`] tells them apart.

mod anchors;
mod facts;
mod fields;
mod mentions;
mod prose;
mod signatures;
mod span;

use super::cand;
use crate::detect::lexicon::Lexicon;
use crate::detect::{Candidate, EntityType, Recognizer, Text};
use facts::Ctx;

/// Anchored: salutation, title, self-introduction, form label, signature, structured field.
pub const ANCHORED_STRONG: f32 = 0.9;
/// Anchored: greeting (`Hallo Anna,`).
pub const ANCHORED: f32 = 0.85;
/// Anchored: role noun with a known name (`Kollegin Petra`).
pub const ANCHORED_ROLE: f32 = 0.8;
/// Anchored: lower-case chat after a salutation (`herrn meyer`).
pub const ANCHORED_CHAT: f32 = 0.8;
/// Anchored by an earlier confident finding: a repeated mention (`Nowak`).
pub const MENTION: f32 = 0.8;
/// Anchored: verb of saying (`sagte Müller`, `Müller sagte`, `laut Müller`).
pub const ANCHORED_WEAK: f32 = 0.75;
/// Unanchored: given name(s) + surname, or `Schmidt, Anna`.
pub const UNANCHORED_FULL: f32 = 0.83;
/// Unanchored: initial + surname (`A. Schmidt`), lower-case chat pair (`tobias meier`).
pub const UNANCHORED_SHAPE: f32 = 0.78;
/// Unanchored: ambiguous given name + surname (`Frank Becker`), family name first
/// (`Nguyen Van Minh`).
pub const UNANCHORED_PAIR: f32 = 0.73;
/// Unanchored: words of a script without case inside Latin text.
pub const UNANCHORED_UNCASED: f32 = 0.68;
/// Unanchored: a lone given name that is also a surname, mid-sentence; or a lower-case chat
/// sentence opening with a given name.
pub const UNANCHORED_LONE_FIRST_SURNAME: f32 = 0.63;
/// Unanchored: a lone given name.
pub const UNANCHORED_LONE_FIRST: f32 = 0.58;
/// Unanchored: a lone surname mid-sentence.
pub const UNANCHORED_LONE_SURNAME: f32 = 0.53;
/// Unanchored: a lone surname opening a sentence (below the threshold).
pub const UNANCHORED_LONE_SURNAME_START: f32 = 0.38;
/// Names at or above this score seed the search for repeated mentions.
const CONFIDENT: f32 = 0.73;

/// True when a PERSON candidate's score is one of the unanchored scores (see the module doc).
/// For the stage after the rules that decides unanchored names (issue 10's tagger).
#[allow(dead_code)]
pub fn is_unanchored(score: f32) -> bool {
    (score * 100.0).round() as i32 % 5 == 3
}

/// Names found so far: word index ranges `i..=j` with their scores.
type Found = Vec<(usize, usize, f32)>;

fn push(found: &mut Found, i: usize, j: usize, score: f32) {
    found.push((i, j, score));
}

pub struct PersonRecognizer {
    lex: &'static Lexicon,
    fields: fields::Fields,
}

impl PersonRecognizer {
    pub fn new() -> Self {
        let lex = Lexicon::get();
        PersonRecognizer {
            lex,
            fields: fields::Fields::new(lex),
        }
    }
}

impl Recognizer for PersonRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Person
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let words = text.words();
        if words.is_empty() {
            return;
        }
        self.fields.find(text, out);
        let cx = Ctx::new(s, words, text.lexed(), self.lex);
        let mut found = Found::new();
        anchors::find(&cx, &mut found);
        signatures::find(&cx, &mut found);
        prose::find(&cx, &mut found);
        mentions::find(&cx, &mut found, out);
        for (i, j, score) in found {
            let (a, b) = cx.span(i, j);
            if a < b {
                out.push(cand(EntityType::Person, a, b, score, false));
            }
        }
    }
}

/// What the whole detector finds in `text`: `(type, value)` in order. Shared by the phases'
/// tests, since a phase's answer only counts after overlap resolution.
#[cfg(test)]
pub(crate) fn detected(text: &str) -> Vec<(EntityType, String)> {
    use std::sync::OnceLock;
    static DETECTOR: OnceLock<crate::detect::Detector> = OnceLock::new();
    let chars: Vec<char> = text.chars().collect();
    DETECTOR
        .get_or_init(crate::detect::Detector::new)
        .detect(text)
        .into_iter()
        .map(|f| (f.entity_type, chars[f.start..f.end].iter().collect()))
        .collect()
}

/// The PERSON values of [`detected`].
#[cfg(test)]
pub(crate) fn names(text: &str) -> Vec<String> {
    detected(text)
        .into_iter()
        .filter(|(t, _)| *t == EntityType::Person)
        .map(|(_, v)| v)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchored_and_unanchored_scores_are_told_apart() {
        for s in [
            ANCHORED_STRONG,
            ANCHORED,
            ANCHORED_ROLE,
            ANCHORED_CHAT,
            MENTION,
            ANCHORED_WEAK,
        ] {
            assert!(!is_unanchored(s), "{s}");
        }
        for s in [
            UNANCHORED_FULL,
            UNANCHORED_SHAPE,
            UNANCHORED_PAIR,
            UNANCHORED_UNCASED,
            UNANCHORED_LONE_FIRST_SURNAME,
            UNANCHORED_LONE_FIRST,
            UNANCHORED_LONE_SURNAME,
            UNANCHORED_LONE_SURNAME_START,
        ] {
            assert!(is_unanchored(s), "{s}");
        }
    }
}
