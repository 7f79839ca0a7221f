//! Values that code labels: a string literal whose label — the identifier or key just before
//! it — names a personal field, as a record's column does (`data/record_fields.txt`).
//!
//! `user.setLastName("Neumann")`, `.nachname("Weiß")`, `'strasse' => 'Große Bleichen 124'`,
//! `name: "Jürgen Koch".to_string()`, `DB_PASSWORD = "…"`, `WITH PASSWORD '…'`: a surname alone
//! has no context in prose, but in code its label says what it is. Accessor prefixes (`set`,
//! `with`, `get`) are not part of the label. A weak label (`name`) needs a value of a name's
//! shape; a secret label a value of a secret's shape.

use ahash::AHashSet;

use super::judge::cased_as_a_name;
use super::lexer::Layout;
use crate::finding::{Basis, Candidate, Evidence, DEFAULT_THRESHOLD};
use crate::lexicon::Lexicon;
use crate::recognizers::secret::names_a_secret;
use crate::records::fields::{self, Kind};
use crate::EntityType;

/// Score of a value whose label names its type outright (`nachname`, `password`).
const STRONG: f32 = 0.85;
/// Score of a value whose label may name its type (`name`) and whose shape agrees.
const WEAK: f32 = 0.7;

/// Words looked at before a literal for its label (`const API_KEY: &str = "…"` needs three).
const LABEL_WORDS: usize = 3;

/// Appends a candidate for every literal of `layout` that a personal label precedes (or, as in
/// `assertEquals("Neumann", user.getLastName())`, follows).
pub(crate) fn propose(view: &str, layout: &Layout, out: &mut Vec<Candidate>) {
    for &(start, end) in &layout.literals {
        let Some((body_start, body_end)) = literal_body(view, start, end) else {
            continue;
        };
        let value = &view[body_start..body_end];
        let labelled = labels_before(view, layout, start)
            .map(|(s, e)| (&view[s..e], e == start))
            .chain(label_after(view, layout, end).map(|label| (label, false)))
            .find_map(|(label, attached)| decide(label, attached, value));
        let Some(Some(found)) = labelled else {
            continue;
        };
        let (from, to) = found.span.unwrap_or((0, value.len()));
        out.push(field_candidate(
            found.entity_type,
            body_start + from,
            body_start + to,
            found.score,
        ));
    }
}

/// Appends a PERSON candidate for every literal that repeats a name found in the text, whole or
/// its last word (`"Graf".to_string()` after `"Anna-Lena Graf"`).
pub(crate) fn mentions(view: &str, layout: &Layout, out: &mut Vec<Candidate>) {
    // A set: a large file holds many literals and the text many names.
    let mut names: AHashSet<&str> = AHashSet::new();
    for c in out
        .iter()
        .filter(|c| c.entity_type == EntityType::Person && c.score >= DEFAULT_THRESHOLD)
    {
        let name = view.get(c.start..c.end).unwrap_or("");
        let last = name.rsplit(' ').next().filter(|w| *w != name);
        for n in [Some(name), last].into_iter().flatten() {
            if n.len() >= 3 && n.starts_with(char::is_uppercase) && cased_as_a_name(n) {
                names.insert(n);
            }
        }
    }
    if names.is_empty() {
        return;
    }
    for &(start, end) in &layout.literals {
        let Some((a, z)) = literal_body(view, start, end) else {
            continue;
        };
        // A literal found already (by its label) is resolved with this one as any overlap is.
        if names.contains(&view[a..z]) {
            out.push(field_candidate(EntityType::Person, a, z, STRONG).because(Basis::Mention));
        }
    }
}

fn field_candidate(entity_type: EntityType, start: usize, end: usize, score: f32) -> Candidate {
    Candidate {
        entity_type,
        start,
        end,
        score,
        validated: false,
        evidence: Evidence::default(),
    }
    .because(Basis::Field)
}

/// The value bytes of a literal: between the quotes of a one-line string, or a bare shell
/// argument whole; `None` for comments and strings that span lines.
fn literal_body(view: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let b = view.as_bytes();
    let first = *b.get(start)?;
    if matches!(first, b'"' | b'\'' | b'`') {
        let closed = end >= start + 2 && b[end - 1] == first;
        return (closed && end - start > 2).then_some((start + 1, end - 1));
    }
    let text = &view[start..end];
    let comment = ["#", "//", "/*", "--", "*"]
        .iter()
        .any(|m| text.starts_with(m));
    (!comment && !text.bytes().all(|c| c.is_ascii_digit() || c == b'.')).then_some((start, end))
}

/// The words before the literal at `start` on its line, nearest first, across joints
/// (`(`, `=`, `:`, `=>`, `&`, `.`) and at most [`LABEL_WORDS`] words; a `,`, `;`, a brace or
/// another literal ends the walk, but a quoted key right before the value is its label.
fn labels_before(
    view: &str,
    layout: &Layout,
    start: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let b = view.as_bytes();
    let mut i = start;
    let mut found = Vec::new();
    while found.len() < LABEL_WORDS {
        while i > 0
            && matches!(
                b[i - 1],
                b' ' | b'\t' | b'=' | b'(' | b':' | b'>' | b'&' | b'.' | b'*' | b'!'
            )
        {
            i -= 1;
        }
        let at = layout.words.partition_point(|&(_, e)| e < i);
        if found.is_empty() && layout.words.get(at).is_none_or(|&(_, e)| e != i) {
            // A quoted key: `'strasse' => '…'`, `"name": "…"`.
            let key = layout.literals.partition_point(|&(_, e)| e < i);
            if let Some(&(s, e)) = layout.literals.get(key).filter(|&&(_, e)| e == i) {
                if let Some(body) = literal_body(view, s, e) {
                    found.push(body);
                }
                break;
            }
        }
        match layout.words.get(at) {
            Some(&(s, e)) if e == i && s < i => {
                // A type in an annotation (`API_KEY: &str`, `x: String`) labels nothing.
                let before = view[..s].trim_end_matches([' ', '\t']);
                let is_type = before.ends_with('&')
                    || before.ends_with('<')
                    || before.ends_with(':') && !before.ends_with("::");
                if !is_type {
                    found.push((s, e));
                }
                i = s;
            }
            _ => break,
        }
    }
    found.into_iter()
}

/// The getter after a literal that is a call's first argument: `("Neumann", user.getLastName())`.
fn label_after<'v>(view: &'v str, layout: &Layout, end: usize) -> Option<&'v str> {
    let rest = view.get(end..)?;
    let skipped = rest.len() - rest.trim_start_matches([' ', ',']).len();
    if !rest[..skipped].contains(',') {
        return None;
    }
    let mut i = end + skipped;
    let mut last = None;
    let at = layout.words.partition_point(|&(s, _)| s < i);
    for &(s, e) in &layout.words[at..] {
        if s != i {
            break;
        }
        last = Some(&view[s..e]);
        i = e + usize::from(view.as_bytes().get(e) == Some(&b'.'));
    }
    last.filter(|w| w.starts_with("get"))
}

/// What a label found in code makes of a value.
struct Found {
    entity_type: EntityType,
    score: f32,
    /// The part of the value that is the finding (`user:secret` → the secret), else all of it.
    span: Option<(usize, usize)>,
}

/// `None` when `label` says nothing (look further), `Some(None)` when it names a field whose
/// value this is not, `Some(Some(_))` when the value is the field's. `attached`: the label is
/// written right against the value, as a short option's value must be (`-p'…'`; `mkdir -p
/// .vscode` has none).
fn decide(label: &str, attached: bool, value: &str) -> Option<Option<Found>> {
    let lists = &Lexicon::get().lists;
    let lower = label.to_ascii_lowercase();
    if lists.code_userinfo_options.contains(&lower.as_str()) {
        let colon = value.find(':')?;
        let secret = &value[colon + 1..];
        return Some(secret_shaped(secret).then_some(Found {
            entity_type: EntityType::Secret,
            score: STRONG,
            span: Some((colon + 1, value.len())),
        }));
    }
    let stripped = strip_accessor(label);
    let short_option = label.len() == 2 && label.starts_with('-');
    let listed = lists.code_secret_labels.contains(&lower.as_str()) && (attached || !short_option);
    let secret = listed || names_a_secret(stripped);
    if !secret && fields::kind(stripped) == Kind::Unknown {
        return None;
    }
    Some(
        judge(stripped, secret, value).map(|(entity_type, score)| Found {
            entity_type,
            score,
            span: None,
        }),
    )
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

/// The type and score a `label` (a secret's when `secret`) gives `value`, if any.
fn judge(label: &str, secret: bool, value: &str) -> Option<(EntityType, f32)> {
    if secret {
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
        let kind = |label: &str, value: &str| {
            decide(label, false, value)
                .flatten()
                .map(|f| (f.entity_type, f.score, f.span))
        };
        let person = Some((EntityType::Person, STRONG, None));
        assert_eq!(kind("setLastName", "Neumann"), person);
        assert_eq!(kind("nachname", "de Vries"), person);
        let city = Some((EntityType::Location, STRONG, None));
        assert_eq!(kind("city", "Frankfurt am Main"), city);
        assert_eq!(
            kind("name", "Jürgen Koch"),
            Some((EntityType::Person, WEAK, None))
        );
        assert_eq!(kind("name", "kundenportal"), None);
        let secret = Some((EntityType::Secret, STRONG, None));
        assert_eq!(kind("DB_PASSWORD", "hunter2-prod"), secret);
        assert_eq!(kind("IDENTIFIED", "Winter1993#"), secret);
        let userinfo = Some((EntityType::Secret, STRONG, Some((7, 19))));
        assert_eq!(kind("-u", "mengel:yw9s.N6inSTp"), userinfo);
        assert_eq!(kind("password", "changeme"), None);
        assert_eq!(kind("password", "${DB_PASS}"), None);
        assert_eq!(kind("status", "Aktiv"), None);
        assert!(decide("status", false, "x").is_some() && decide("value", false, "x").is_none());
        assert!(
            decide("-p", false, "Qp4NViUhD7").is_none(),
            "mkdir -p .vscode"
        );
        assert!(decide("-p", true, "Qp4NViUhD7").is_some_and(|f| f.is_some()));
    }

    #[test]
    fn the_walk_back_skips_types_and_joints() {
        let text = "const API_KEY: &str = \"x\"; user.setLastName(\"N\");";
        let words = |needle: &str| {
            let at = text.find(needle).unwrap_or(0);
            let layout = Layout {
                literals: vec![],
                words: ["const", "API_KEY", "str", "user", "setLastName"]
                    .iter()
                    .map(|w| {
                        let s = text.find(w).unwrap_or(0);
                        (s, s + w.len())
                    })
                    .collect(),
            };
            labels_before(text, &layout, at)
                .map(|(s, e)| &text[s..e])
                .collect::<Vec<_>>()
        };
        assert_eq!(words("\"x\""), ["API_KEY", "const"]);
        assert_eq!(words("\"N\""), ["setLastName", "user"]);
    }

    #[test]
    fn accessor_prefixes_are_not_the_label() {
        assert_eq!(strip_accessor("setLastName"), "LastName");
        assert_eq!(strip_accessor("withCity"), "City");
        assert_eq!(strip_accessor("settings"), "settings");
    }
}
