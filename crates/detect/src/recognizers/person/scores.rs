//! The scores of PERSON candidates (see the module doc of `person`) and the list of names
//! the phases fill.

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
pub(super) const CONFIDENT: f32 = 0.73;

/// True when a PERSON candidate's score is one of the unanchored scores (see the module doc).
/// For the stage after the rules that decides unanchored names (the tagger).
pub fn is_unanchored(score: f32) -> bool {
    (score * 100.0).round() as i32 % 5 == 3
}

/// Names found so far: word index ranges `i..=j` with their scores.
pub(super) type Found = Vec<(usize, usize, f32)>;

pub(super) fn push(found: &mut Found, i: usize, j: usize, score: f32) {
    found.push((i, j, score));
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
