//! The proposals of the PERSON phases (see the module doc of `person`): the evidence a name
//! was found by, with the score that goes with it, and the list of names the phases fill.

use crate::finding::{Anchor, Basis, NameShape};

/// How a phase found a name: its evidence and its score. The evidence, not the score, tells
/// later stages whether an anchor vouches for the name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proposal {
    pub score: f32,
    pub basis: Basis,
}

const fn anchored(score: f32, anchor: Anchor) -> Proposal {
    Proposal {
        score,
        basis: Basis::Anchored(anchor),
    }
}

const fn unanchored(score: f32, shape: NameShape) -> Proposal {
    Proposal {
        score,
        basis: Basis::Unanchored(shape),
    }
}

/// Anchored: salutation, title, self-introduction, form label, signature.
pub const ANCHORED_STRONG: Proposal = anchored(0.9, Anchor::Strong);
/// A structured field (`"firstName": "Anna"`): as sure as [`ANCHORED_STRONG`].
pub const FIELD: Proposal = Proposal {
    score: ANCHORED_STRONG.score,
    basis: Basis::Field,
};
/// Anchored: greeting (`Hallo Anna,`).
pub const ANCHORED: Proposal = anchored(0.85, Anchor::Greeting);
/// Anchored: role noun with a known name (`Kollegin Petra`).
pub const ANCHORED_ROLE: Proposal = anchored(0.8, Anchor::Role);
/// Anchored: lower-case chat after a salutation (`herrn meyer`).
pub const ANCHORED_CHAT: Proposal = anchored(0.8, Anchor::Chat);
/// Anchored by an earlier confident finding: a repeated mention (`Nowak`).
pub const MENTION: Proposal = Proposal {
    score: 0.8,
    basis: Basis::Mention,
};
/// Anchored: verb of saying (`sagte Müller`, `Müller sagte`, `laut Müller`).
pub const ANCHORED_WEAK: Proposal = anchored(0.75, Anchor::Speech);
/// Unanchored: given name(s) + surname, or `Schmidt, Anna`.
pub const UNANCHORED_FULL: Proposal = unanchored(0.83, NameShape::Full);
/// Unanchored: initial + surname (`A. Schmidt`), lower-case chat pair (`tobias meier`).
pub const UNANCHORED_SHAPE: Proposal = unanchored(0.78, NameShape::Initial);
/// Unanchored: ambiguous given name + surname (`Frank Becker`), family name first
/// (`Nguyen Van Minh`).
pub const UNANCHORED_PAIR: Proposal = unanchored(0.73, NameShape::Pair);
/// Unanchored: words of a script without case inside Latin text.
pub const UNANCHORED_UNCASED: Proposal = unanchored(0.68, NameShape::Uncased);
/// Unanchored: a lone given name that is also a surname, mid-sentence; or a lower-case chat
/// sentence opening with a given name.
pub const UNANCHORED_LONE_FIRST_SURNAME: Proposal = unanchored(0.63, NameShape::LoneFirstSurname);
/// Unanchored: a lone given name.
pub const UNANCHORED_LONE_FIRST: Proposal = unanchored(0.58, NameShape::LoneFirst);
/// Unanchored: a lone surname mid-sentence.
pub const UNANCHORED_LONE_SURNAME: Proposal = unanchored(0.53, NameShape::LoneSurname);
/// Unanchored: a lone surname opening a sentence (below the threshold).
pub const UNANCHORED_LONE_SURNAME_START: Proposal = unanchored(0.38, NameShape::LoneSurnameStart);
/// Names at or above this score seed the search for repeated mentions.
pub(super) const CONFIDENT: f32 = 0.73;

/// Names found so far: word index ranges `i..=j` with how they were found.
pub(super) type Found = Vec<(usize, usize, Proposal)>;

pub(super) fn push(found: &mut Found, i: usize, j: usize, p: Proposal) {
    found.push((i, j, p));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scores keep the order the tagger's thresholds were tuned on (`tagger/combine.rs`):
    /// every anchor at or above 0.75, the full and shaped guesses in between.
    #[test]
    fn anchored_and_unanchored_proposals_carry_their_evidence() {
        for p in [
            ANCHORED_STRONG,
            FIELD,
            ANCHORED,
            ANCHORED_ROLE,
            ANCHORED_CHAT,
            MENTION,
            ANCHORED_WEAK,
        ] {
            assert!(!matches!(p.basis, Basis::Unanchored(_)), "{p:?}");
            assert!(p.score >= 0.75, "{p:?}");
        }
        for p in [
            UNANCHORED_FULL,
            UNANCHORED_SHAPE,
            UNANCHORED_PAIR,
            UNANCHORED_UNCASED,
            UNANCHORED_LONE_FIRST_SURNAME,
            UNANCHORED_LONE_FIRST,
            UNANCHORED_LONE_SURNAME,
            UNANCHORED_LONE_SURNAME_START,
        ] {
            assert!(matches!(p.basis, Basis::Unanchored(_)), "{p:?}");
            assert!(p.score < 0.85, "{p:?}");
        }
    }

    /// The basis of the PERSON candidate over `value` in `text`, from the recognizer alone.
    fn basis_of(text: &str, value: &str) -> Option<Basis> {
        use crate::Recognizer;
        let t = crate::Text::new(text);
        let mut out = Vec::new();
        super::super::PersonRecognizer::new().recognize(&t, &mut out);
        out.iter()
            .find(|c| &t.view()[c.start..c.end] == value)
            .map(|c| c.evidence.basis)
    }

    #[test]
    fn candidates_carry_the_evidence_they_were_found_by() {
        assert_eq!(
            basis_of("Hallo Anna, wie geht es?", "Anna"),
            Some(ANCHORED.basis)
        );
        assert_eq!(
            basis_of("Sehr geehrte Frau Schneider, danke.", "Schneider"),
            Some(ANCHORED_STRONG.basis)
        );
        assert_eq!(
            basis_of("Gestern traf ich Anna Schneider im Park.", "Anna Schneider"),
            Some(UNANCHORED_FULL.basis)
        );
        assert_eq!(
            basis_of(r#"{"firstName": "Anna"}"#, "Anna"),
            Some(FIELD.basis)
        );
    }
}
