//! Values that code labels: a string literal whose label — the identifier or key just before
//! it — names a personal field, as a record's column does (`data/record_fields.txt`).
//!
//! `user.setLastName("Neumann")`, `.nachname("Weiß")`, `'strasse' => 'Große Bleichen 124'`,
//! `name: "Jürgen Koch".to_string()`, `DB_PASSWORD = "…"`, `WITH PASSWORD '…'`: a surname alone
//! has no context in prose, but in code its label says what it is. Accessor prefixes (`set`,
//! `with`, `get`) are not part of the label. A weak label (`name`) needs a value of a name's
//! shape; a secret label a value of a secret's shape.

use super::lexer::Layout;
use crate::finding::{Basis, Candidate, Evidence};
use crate::recognizers::secret::names_a_secret;
use crate::records::fields::{self, Kind};
use crate::EntityType;

/// Score of a value whose label names its type outright (`nachname`, `password`).
const STRONG: f32 = 0.85;
/// Score of a value whose label may name its type (`name`) and whose shape agrees.
const WEAK: f32 = 0.7;

/// Appends a candidate for every string literal of `layout` that a personal label precedes.
pub(crate) fn propose(view: &str, layout: &Layout, out: &mut Vec<Candidate>) {
    for &(start, end) in &layout.literals {
        let Some((inner_start, inner_end)) = string_body(view, start, end) else {
            continue;
        };
        let Some(label) = label_before(view, layout, start) else {
            continue;
        };
        let value = &view[inner_start..inner_end];
        if let Some((entity_type, score)) = judge(label, value) {
            out.push(
                Candidate {
                    entity_type,
                    start: inner_start,
                    end: inner_end,
                    score,
                    validated: false,
                    evidence: Evidence::default(),
                }
                .because(Basis::Field),
            );
        }
    }
}

/// The bytes between the quotes of a one-line string literal.
fn string_body(view: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let b = view.as_bytes();
    let quote = *b.get(start)?;
    let closed = end >= start + 2 && b[end - 1] == quote && matches!(quote, b'"' | b'\'' | b'`');
    (closed && end - start > 2).then_some((start + 1, end - 1))
}

/// The label of the literal at `start`: the word or quoted key before it, across whitespace and
/// one joint (`(`, `=`, `:`, `=>`, `->`), on the same line.
fn label_before<'v>(view: &'v str, layout: &Layout, start: usize) -> Option<&'v str> {
    let b = view.as_bytes();
    let mut i = start;
    let skip_blank = |mut i: usize| {
        while i > 0 && matches!(b[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        i
    };
    i = skip_blank(i);
    for joint in ["=>", "->", "(", "=", ":"] {
        if view[..i].ends_with(joint) {
            i = skip_blank(i - joint.len());
            break;
        }
    }
    let word = layout
        .words
        .partition_point(|&(_, e)| e <= i.saturating_sub(1));
    if let Some(&(s, e)) = layout.words.get(word).filter(|&&(_, e)| e == i) {
        return Some(strip_accessor(&view[s..e]));
    }
    let literal = layout.literals.partition_point(|&(_, e)| e < i);
    let &(s, e) = layout.literals.get(literal).filter(|&&(_, e)| e == i)?;
    string_body(view, s, e).map(|(a, z)| &view[a..z])
}

/// `setLastName` → `LastName`, `withCity` → `City`; other names as they are.
fn strip_accessor(name: &str) -> &str {
    let name = name.trim_start_matches(['.', '$', '@']);
    for prefix in ["set", "with", "get"] {
        if let Some(rest) = name.strip_prefix(prefix) {
            if rest.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
                return rest.trim_start_matches('_');
            }
        }
    }
    name
}

/// The type and score a `label` gives `value`, if any.
fn judge(label: &str, value: &str) -> Option<(EntityType, f32)> {
    if names_a_secret(label) {
        return secret_shaped(value).then_some((EntityType::Secret, STRONG));
    }
    match fields::kind(label) {
        Kind::Personal {
            t: t @ (EntityType::Person | EntityType::Location),
            strong,
        } => {
            let shaped = if t == EntityType::Person {
                name_shaped(value)
            } else {
                place_shaped(value)
            };
            match (shaped, strong) {
                (false, _) => None,
                (true, true) => Some((t, STRONG)),
                (true, false) => {
                    (t == EntityType::Person && value.contains(' ')).then_some((t, WEAK))
                }
            }
        }
        _ => None,
    }
}

/// One to four words of letters, the last capitalised (`Neumann`, `de Vries`, `Jürgen Koch`).
fn name_shaped(value: &str) -> bool {
    let words: Vec<&str> = value.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    (1..=4).contains(&words.len())
        && value.len() <= 64
        && words.iter().all(|w| {
            w.chars()
                .all(|c| c.is_alphabetic() || c == '-' || c == '\'' || c == '.')
        })
        && words
            .iter()
            .any(|w| w.starts_with(|c: char| c.is_uppercase()))
}

/// A capitalised phrase that may end in a house number (`Kiel`, `Große Bleichen 124`).
fn place_shaped(value: &str) -> bool {
    value.len() <= 80
        && value.starts_with(|c: char| c.is_uppercase())
        && value.chars().any(char::is_alphabetic)
        && !value.contains(['{', '}', '<', '>', '$', '\\'])
}

/// No blank, long enough, and not a placeholder or an ordinary lowercase word.
fn secret_shaped(value: &str) -> bool {
    value.len() >= 6
        && value.len() <= 256
        && !value.contains(char::is_whitespace)
        && !value.contains(['{', '}', '<', '>', '$'])
        && !value.chars().all(|c| c.is_ascii_lowercase())
        && !value.chars().all(|c| c == '*' || c == 'x' || c == 'X')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_give_their_type_to_values_of_its_shape() {
        assert_eq!(
            judge("LastName", "Neumann"),
            Some((EntityType::Person, STRONG))
        );
        assert_eq!(
            judge("nachname", "de Vries"),
            Some((EntityType::Person, STRONG))
        );
        assert_eq!(
            judge("city", "Frankfurt am Main"),
            Some((EntityType::Location, STRONG))
        );
        assert_eq!(
            judge("name", "Jürgen Koch"),
            Some((EntityType::Person, WEAK))
        );
        assert_eq!(judge("name", "kundenportal"), None);
        assert_eq!(
            judge("DB_PASSWORD", "hunter2-prod"),
            Some((EntityType::Secret, STRONG))
        );
        assert_eq!(judge("password", "changeme"), None);
        assert_eq!(judge("password", "${DB_PASS}"), None);
        assert_eq!(judge("status", "Aktiv"), None);
    }

    #[test]
    fn accessor_prefixes_are_not_the_label() {
        assert_eq!(strip_accessor("setLastName"), "LastName");
        assert_eq!(strip_accessor("withCity"), "City");
        assert_eq!(strip_accessor("settings"), "settings");
    }
}
