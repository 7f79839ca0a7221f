//! PERSON (docs/entities.md §2) without a model, in phases over the words of the text:
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
//! # Evidence: anchored and unanchored candidates
//!
//! Each phase proposes a [`Proposal`](scores::Proposal): how it found the name, as
//! [`Basis`](crate::Basis) data, and the score that goes with it. A later stage (the trained
//! tagger, `tagger/combine.rs`) keeps what an anchor vouches for and decides the rest by that
//! evidence, never by the score:
//!
//! - **Anchored** ([`Basis::Anchored`](crate::Basis::Anchored), and the structured field and
//!   repeated mention): [`ANCHORED_STRONG`](scores::ANCHORED_STRONG) 0.9 (salutation, title,
//!   self-introduction, form label, signature; [`FIELD`](scores::FIELD) a structured field),
//!   [`ANCHORED`](scores::ANCHORED) 0.85 (greeting), [`ANCHORED_ROLE`](scores::ANCHORED_ROLE)/
//!   [`ANCHORED_CHAT`](scores::ANCHORED_CHAT)/[`MENTION`](scores::MENTION) 0.8 (role noun,
//!   lower-case chat after a salutation, repeated mention of a confident name),
//!   [`ANCHORED_WEAK`](scores::ANCHORED_WEAK) 0.75 (verb of saying before or after).
//! - **Unanchored** ([`Basis::Unanchored`](crate::Basis::Unanchored)):
//!   [`UNANCHORED_FULL`](scores::UNANCHORED_FULL) 0.83 (given name + surname, `Schmidt, Anna`),
//!   [`UNANCHORED_SHAPE`](scores::UNANCHORED_SHAPE) 0.78 (initial + surname, lower-case chat
//!   pair), [`UNANCHORED_PAIR`](scores::UNANCHORED_PAIR) 0.73 (ambiguous given name + surname,
//!   family name first), [`UNANCHORED_UNCASED`](scores::UNANCHORED_UNCASED) 0.68 (script without
//!   case), [`UNANCHORED_LONE_FIRST_SURNAME`](scores::UNANCHORED_LONE_FIRST_SURNAME) 0.63,
//!   [`UNANCHORED_LONE_FIRST`](scores::UNANCHORED_LONE_FIRST) 0.58,
//!   [`UNANCHORED_LONE_SURNAME`](scores::UNANCHORED_LONE_SURNAME) 0.53 (one word alone),
//!   [`UNANCHORED_LONE_SURNAME_START`](scores::UNANCHORED_LONE_SURNAME_START) 0.38 (a surname
//!   opening a sentence: below the threshold, dropped).

mod anchors;
mod facts;
mod fields;
mod mentions;
mod prose;
mod scores;
mod signatures;
mod span;

use super::cand;
use crate::lexicon::Lexicon;
use crate::{Candidate, EntityType, Recognizer, Text};
use facts::NameContext;
use scores::Found;

/// True when word `k` of `text` is a listed given name as written, or a hyphenated one whose
/// every part is (`Hans-Peter`, which no gazetteer lists whole).
pub(crate) fn is_given_name_word(text: &Text<'_>, k: usize) -> bool {
    let (Some(w), Some(f)) = (text.words().get(k), text.lexed().facts().get(k)) else {
        return false;
    };
    if f.cased & crate::lexicon::class::FIRST_NAME != 0 {
        return true;
    }
    w.hyphen
        && facts::hyphenated_name(
            w.text(text.view()),
            text.lexed().low(k),
            w.shape,
            Lexicon::get(),
        )
        .0
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

    fn is_heavy(&self) -> bool {
        true
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let words = text.words();
        if words.is_empty() {
            return;
        }
        self.fields.find(text, out);
        let cx = NameContext::new(s, words, text.lexed(), self.lex);
        let mut found = Found::new();
        anchors::find(&cx, &mut found);
        signatures::find(&cx, &mut found);
        prose::find(&cx, &mut found);
        mentions::find(&cx, &mut found, out);
        for (i, j, p) in found {
            let (a, b) = cx.span(i, j);
            if a < b {
                out.push(cand(EntityType::Person, a, b, p.score, false).because(p.basis));
            }
        }
    }
}

/// What the whole detector finds in `text`: `(type, value)` in order. Shared by the phases'
/// tests, since a phase's answer only counts after overlap resolution.
#[cfg(test)]
pub(crate) fn detected(text: &str) -> Vec<(EntityType, String)> {
    use std::sync::OnceLock;
    static DETECTOR: OnceLock<crate::Detector> = OnceLock::new();
    let chars: Vec<char> = text.chars().collect();
    DETECTOR
        .get_or_init(crate::Detector::new)
        .detect(text)
        .into_iter()
        .map(|f| (f.entity_type, chars[f.start..f.end].iter().collect()))
        .collect()
}

/// The values of one type among [`detected`].
#[cfg(test)]
pub(crate) fn detected_of(text: &str, entity_type: EntityType) -> Vec<String> {
    detected(text)
        .into_iter()
        .filter(|(t, _)| *t == entity_type)
        .map(|(_, v)| v)
        .collect()
}

/// The PERSON values of [`detected`].
#[cfg(test)]
pub(crate) fn names(text: &str) -> Vec<String> {
    detected_of(text, EntityType::Person)
}

/// The LOCATION values of [`detected`].
#[cfg(test)]
pub(crate) fn places(text: &str) -> Vec<String> {
    detected_of(text, EntityType::Location)
}
