//! What the engine produces ([`Finding`]) and what recognizers propose ([`Candidate`]), with the
//! [`Evidence`] behind each: what it rests on ([`Basis`]) and which context words were found
//! near it ([`Cues`]). A score only ranks; later stages ask the evidence, never the digits of
//! a score, how a candidate was found.

use super::entity::EntityType;

/// A detected entity, offsets in code points into the submitted text, `end` exclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finding {
    pub entity_type: EntityType,
    pub start: usize,
    pub end: usize,
    /// The same span as byte offsets into the submitted text, for callers that slice it (the
    /// detector has them; converting the code points back would cost a pass over the text).
    pub bytes: (usize, usize),
    pub score: f32,
    /// True only when a check-digit algorithm confirmed the value (IBAN, card, Steuer-ID, SV-Nr).
    pub validated: bool,
    pub evidence: Evidence,
}

/// What a recognizer proposes: byte offsets into [`crate::Text::view`] (which are also valid byte
/// offsets into nothing else — [`crate::Detector`] converts them to code points).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub entity_type: EntityType,
    pub start: usize,
    pub end: usize,
    pub score: f32,
    /// True only when a check-digit algorithm confirmed the value.
    pub validated: bool,
    pub evidence: Evidence,
}

impl Candidate {
    /// This candidate resting on `basis` instead of its value's form.
    #[must_use]
    pub fn because(mut self, basis: Basis) -> Candidate {
        self.evidence.basis = basis;
        self
    }

    /// This candidate asking the context step ([`crate::context_rules`]) to score it by its
    /// type's table for `form`, and to drop it unless the words it `needs` are near.
    #[must_use]
    pub fn asking(mut self, form: Form, needs: Needs) -> Candidate {
        self.evidence.ask = Ask::Score { form, needs };
        self
    }

    /// This candidate with the context words `cues` found near it.
    #[must_use]
    pub fn with_cues(mut self, cues: Cues) -> Candidate {
        self.evidence.context = cues;
        self
    }
}

/// Why a candidate was proposed, apart from the check digit ([`Candidate::validated`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Evidence {
    pub basis: Basis,
    pub context: Cues,
    /// What the context step does with the candidate.
    pub ask: Ask,
}

/// What the context step ([`crate::context_rules`]) does with a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ask {
    /// Nothing: no context words decide it, or its recognizer read them itself.
    #[default]
    Nothing,
    /// Score it by its type's table for `form`; drop it unless the words it `needs` are near.
    Score { form: Form, needs: Needs },
}

/// Which of its type's score tables a candidate is scored by: the form its value was found in,
/// where the form changes what the context words around it mean. A type's rule holds a table
/// for each form its recognizer proposes ([`crate::context_rules`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The value as the type expects it (a check digit, when the type has one, held).
    Main,
    /// A check digit failed or is missing.
    Unchecked,
    /// The type's second notation, whose words weigh otherwise (IP_ADDRESS: IPv6 beside IPv4;
    /// LOCATION: a street address written number first, `42 Baker Street`).
    Alternate,
    /// A value that may as well be a version number (IP_ADDRESS: a dotted quad whose first
    /// number is below 10, `2.4.1.0`): it loses without a strong word.
    VersionLike,
    /// A version word comes before it (`nach dem Update`, `Release`): only a strong word makes
    /// it the type.
    AfterVersionWord,
    /// Its own label names a version (`Client-Version 3.1.4.7`): no word makes it the type.
    VersionLabel,
    /// An all-caps word comes before it (KFZ: `AB MO 10 UHR`): capitals are no sign of a code
    /// there, the score drops.
    AfterCapsWord,
}

/// The context words without which a candidate does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// None: the context words only score it.
    Nothing,
    /// A strong word (a label of the type).
    Strong,
}

impl Evidence {
    /// A PERSON name guessed from its shape, without a word that announces it: the kind the
    /// tagger may overrule.
    pub fn is_unanchored(self) -> bool {
        matches!(self.basis, Basis::Unanchored(_))
    }
}

/// What a candidate rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Basis {
    /// The value's own form: a pattern, a listed word, a code.
    #[default]
    Form,
    /// A key, label or column of structured data names the value (`"firstName": "Anna"`, a
    /// cell of a name column).
    Field,
    /// A later mention of a value found with confidence (`Nowak` after `Katarzyna Nowak`).
    Mention,
    /// A PERSON name announced by the words around it.
    Anchored(Anchor),
    /// A PERSON name guessed from its shape alone.
    Unanchored(NameShape),
    /// A mention of the trained tagger.
    Tagger,
}

/// The words that announce a PERSON name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Salutation, title, self-introduction, form label or signature (`Frau X`, `Name:`).
    Strong,
    /// A greeting (`Hallo Anna,`).
    Greeting,
    /// A role noun before a known name (`Kollegin Petra`).
    Role,
    /// Lower-case chat after a salutation (`herrn meyer`).
    Chat,
    /// A verb of saying before or after (`sagte Müller`, `laut Müller`).
    Speech,
}

/// The shape of a PERSON name found without an anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameShape {
    /// Given name(s) + surname, or `Schmidt, Anna`.
    Full,
    /// Initial + surname (`A. Schmidt`), a lower-case chat pair (`tobias meier`).
    Initial,
    /// An ambiguous given name + surname (`Frank Becker`), family name first.
    Pair,
    /// Words of a script without case inside Latin text.
    Uncased,
    /// A lone given name that is also a surname, mid-sentence; a lower-case chat sentence
    /// opening with a given name.
    LoneFirstSurname,
    /// A lone given name.
    LoneFirst,
    /// A lone surname mid-sentence.
    LoneSurname,
    /// A lone surname opening a sentence.
    LoneSurnameStart,
}

/// The context words (docs/entities.md §1.5) found near a candidate: any of strong, weak and
/// negative, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cues(u8);

impl Cues {
    const STRONG: u8 = 1;
    const WEAK: u8 = 1 << 1;
    const NEGATIVE: u8 = 1 << 2;

    pub fn new(strong: bool, weak: bool, negative: bool) -> Cues {
        let bit = |on: bool, bit: u8| if on { bit } else { 0 };
        Cues(bit(strong, Cues::STRONG) | bit(weak, Cues::WEAK) | bit(negative, Cues::NEGATIVE))
    }

    pub fn strong(self) -> bool {
        self.0 & Cues::STRONG != 0
    }

    pub fn weak(self) -> bool {
        self.0 & Cues::WEAK != 0
    }

    pub fn negative(self) -> bool {
        self.0 & Cues::NEGATIVE != 0
    }
}

/// Score below which a candidate is dropped (docs/entities.md §1.6).
pub const DEFAULT_THRESHOLD: f32 = 0.5;

/// Builds a candidate resting on its form ([`Basis::Form`]), no context words recorded.
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
        evidence: Evidence::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_keep_each_kind_apart() {
        for (strong, weak, negative) in [(true, false, false), (false, true, true)] {
            let c = Cues::new(strong, weak, negative);
            assert_eq!(
                (c.strong(), c.weak(), c.negative()),
                (strong, weak, negative)
            );
        }
        assert_eq!(Cues::default(), Cues::new(false, false, false));
    }

    #[test]
    fn only_a_shape_guess_is_unanchored() {
        let e = |basis| Evidence {
            basis,
            ..Evidence::default()
        };
        assert!(e(Basis::Unanchored(NameShape::Pair)).is_unanchored());
        for b in [
            Basis::Anchored(Anchor::Speech),
            Basis::Field,
            Basis::Mention,
            Basis::Tagger,
        ] {
            assert!(!e(b).is_unanchored(), "{b:?}");
        }
    }
}
