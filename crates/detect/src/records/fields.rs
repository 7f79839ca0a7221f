//! What a column or key name says about its cells, from `data/record_fields.txt`: a personal
//! type (strong, or weak = needs corroboration), explicitly not personal, or unknown. Names are
//! compared normalised (lowercase letters and digits only), whole first, then by their last and
//! first part (`kunden_ort` → `ort`, `kunde_id` → `id`, `Telefon (privat)` → `telefon`).

use std::sync::OnceLock;

use ahash::AHashMap as HashMap;

use crate::EntityType;

static FIELDS: &str = include_str!("../../data/record_fields.txt");

/// What a column name makes of its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Its cells hold this type; `strong` = the name alone is enough (`nachname`), otherwise
    /// the table must corroborate it (`name`).
    Personal { t: EntityType, strong: bool },
    /// Not personal (`betrag`, `status`, `id`): cells untouched, no type from neighbours.
    NotPersonal,
    /// Not listed: cells may take a type only from their column's other cells.
    Unknown,
}

/// The listed names by normalised form, and which bytes begin and end one.
struct Fields {
    kinds: HashMap<String, Kind>,
    first: [bool; 256],
    last: [bool; 256],
}

impl Fields {
    fn get() -> &'static Fields {
        static FIELDS_TABLE: OnceLock<Fields> = OnceLock::new();
        FIELDS_TABLE.get_or_init(|| {
            let kinds = parse(FIELDS);
            let (mut first, mut last) = ([false; 256], [false; 256]);
            for name in kinds.keys().map(String::as_bytes) {
                if let (Some(&a), Some(&b)) = (name.first(), name.last()) {
                    first[usize::from(a)] = true;
                    last[usize::from(b)] = true;
                }
            }
            Fields { kinds, first, last }
        })
    }

    /// The kind listed for the normalised name `n`. Most names that are not listed begin or
    /// end with a byte no listed name does (`kunde7`, `7`): they need no hash.
    fn kind_of(&self, n: &str) -> Option<Kind> {
        let b = n.as_bytes();
        match (b.first(), b.last()) {
            (Some(&a), Some(&z)) if self.first[usize::from(a)] && self.last[usize::from(z)] => {
                self.kinds.get(n).copied()
            }
            (Some(_), Some(_)) => None,
            _ => self.kinds.get(n).copied(),
        }
    }
}

/// Parses the data file; lines that do not parse are skipped (a test checks there are none).
fn parse(data: &str) -> HashMap<String, Kind> {
    data.lines()
        .filter_map(|l| parse_line(l).ok().flatten())
        .collect()
}

/// `Ok(None)` for comments and blank lines, `Err` for a line that names no known kind.
fn parse_line(line: &str) -> Result<Option<(String, Kind)>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(name), Some(kind), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(line.to_owned());
    };
    let kind = if kind == "-" {
        Kind::NotPersonal
    } else {
        let (type_name, strong) = match kind.strip_suffix('?') {
            Some(t) => (t, false),
            None => (kind, true),
        };
        let t = EntityType::from_name(type_name).ok_or_else(|| line.to_owned())?;
        Kind::Personal { t, strong }
    };
    Ok(Some((normalise(name), kind)))
}

/// Lowercase letters and digits of `name` (`E-Mail` → `email`, `first_name` → `firstname`).
pub(crate) fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Calls `f` with [`normalise`]`(name)`, built on the stack for a short ASCII name (every key
/// and header of a dense request is one).
pub(crate) fn with_normalised<R>(name: &str, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = [0u8; 64];
    let mut len = 0;
    if name.len() <= buf.len() && name.is_ascii() {
        for b in name.bytes().filter(u8::is_ascii_alphanumeric) {
            buf[len] = b.to_ascii_lowercase();
            len += 1;
        }
        if let Ok(n) = std::str::from_utf8(&buf[..len]) {
            return f(n);
        }
    }
    f(&normalise(name))
}

/// The byte ranges of the parts of a name: split at non-alphanumerics and lower → upper case
/// changes (`customerCity` → `customer`, `City`). A part is alphanumeric only, so its lookup key
/// is its [`with_normalised`] form; nothing is allocated (column names are read per table).
fn parts(name: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = name.char_indices().peekable();
    let mut prev_lower = false;
    std::iter::from_fn(move || {
        let mut start = None;
        while let Some(&(i, c)) = chars.peek() {
            let boundary = !c.is_alphanumeric() || (c.is_uppercase() && prev_lower);
            if let (true, Some(a)) = (boundary, start) {
                return Some((a, i));
            }
            chars.next();
            if c.is_alphanumeric() && start.is_none() {
                start = Some(i);
            }
            prev_lower = c.is_lowercase();
        }
        start.map(|a| (a, name.len()))
    })
}

/// A byte range of a name.
type Span = (usize, usize);

/// How many [`parts`] `name` has (counted up to 2), and the first and the last. An ASCII name
/// (every key of a dense request) is read byte by byte, without decoding characters.
fn first_and_last_part(name: &str) -> (usize, Option<Span>, Option<Span>) {
    let (mut n, mut first, mut last) = (0, None, None);
    let mut note = |p: (usize, usize)| {
        n += 1;
        first.get_or_insert(p);
        last = Some(p);
    };
    if name.is_ascii() {
        // `parts` for ASCII: a part ends at a byte that is no letter or digit, or at an upper
        // case letter after a lower case one.
        let (mut start, mut prev_lower) = (None, false);
        for (i, &c) in name.as_bytes().iter().enumerate() {
            let alnum = c.is_ascii_alphanumeric();
            if let (true, Some(a)) = (!alnum || c.is_ascii_uppercase() && prev_lower, start) {
                note((a, i));
                start = None;
            }
            if alnum && start.is_none() {
                start = Some(i);
            }
            prev_lower = c.is_ascii_lowercase();
        }
        if let Some(a) = start {
            note((a, name.len()));
        }
    } else {
        parts(name).for_each(note);
    }
    (n.min(2), first, last)
}

/// The kind of a column or key named `name` (as written).
pub(crate) fn kind(name: &str) -> Kind {
    // Column names are short; anything long is a sentence, not a name.
    if name.len() > 48 {
        return Kind::Unknown;
    }
    let t = Fields::get();
    if let Some(k) = with_normalised(name, |n| t.kind_of(n)) {
        return k;
    }
    let (n, first, last) = first_and_last_part(name);
    if n < 2 {
        return Kind::Unknown;
    }
    for (a, b) in [last, first].into_iter().flatten() {
        if let Some(k) = with_normalised(&name[a..b], |p| t.kind_of(p)) {
            return k;
        }
    }
    Kind::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_data_line_parses() {
        for line in FIELDS.lines() {
            assert!(
                parse_line(line).is_ok(),
                "bad line in record_fields.txt: {line}"
            );
        }
    }

    #[test]
    fn the_byte_filter_keeps_every_listed_name() {
        let t = Fields::get();
        for (name, kind) in &t.kinds {
            assert_eq!(t.kind_of(name), Some(*kind), "{name}");
        }
        assert_eq!(t.kind_of("kunde7"), None);
        assert_eq!(t.kind_of(""), t.kinds.get("").copied());
    }

    #[test]
    fn normalised_on_the_stack_as_on_the_heap() {
        let long = "Kunden_Nummer-".repeat(6);
        for name in [
            "Kunde 0",
            "E-Mail",
            "first_name",
            "Straße",
            "",
            long.as_str(),
        ] {
            assert_eq!(
                with_normalised(name, str::to_owned),
                normalise(name),
                "{name}"
            );
        }
    }

    #[test]
    fn parts_split_at_separators_and_case_changes() {
        let texts = |name: &'static str| parts(name).map(|(a, b)| &name[a..b]).collect::<Vec<_>>();
        assert_eq!(texts("customerCity"), ["customer", "City"]);
        assert_eq!(texts("Kunde 0"), ["Kunde", "0"]);
        assert_eq!(texts("  Telefon (privat) "), ["Telefon", "privat"]);
        assert_eq!(texts("KUNDEN_ort"), ["KUNDEN", "ort"]);
        assert_eq!(texts("straßeNr"), ["straße", "Nr"]);
        assert!(texts("-- ").is_empty());
    }

    #[test]
    fn first_and_last_part_as_parts_gives_them() {
        for name in [
            "customerCity",
            "Kunde 0",
            "  Telefon (privat) ",
            "KUNDEN_ort",
            "straßeNr",
            "-- ",
            "aB",
            "x",
            "kunde_id",
            "Kunde 7: k7.lange@beispiel.de",
            "ABCdefGh9i",
        ] {
            let all: Vec<_> = parts(name).collect();
            assert_eq!(
                first_and_last_part(name),
                (all.len().min(2), all.first().copied(), all.last().copied()),
                "{name}"
            );
        }
    }

    #[test]
    fn names_map_to_kinds() {
        let person = Kind::Personal {
            t: EntityType::Person,
            strong: true,
        };
        assert_eq!(kind("Nachname"), person);
        assert_eq!(kind("last_name"), person);
        assert_eq!(kind("lastName"), person);
        assert_eq!(
            kind("Name"),
            Kind::Personal {
                t: EntityType::Person,
                strong: false
            }
        );
        assert!(matches!(
            kind("kunden_ort"),
            Kind::Personal {
                t: EntityType::Location,
                ..
            }
        ));
        assert!(matches!(
            kind("Straße"),
            Kind::Personal {
                t: EntityType::Location,
                ..
            }
        ));
        assert!(matches!(
            kind("E-Mail"),
            Kind::Personal {
                t: EntityType::EmailAddress,
                ..
            }
        ));
        assert!(matches!(
            kind("Telefon (privat)"),
            Kind::Personal {
                t: EntityType::PhoneNumber,
                ..
            }
        ));
        assert_eq!(kind("kunde_id"), Kind::NotPersonal);
        assert_eq!(kind("Betrag"), Kind::NotPersonal);
        assert_eq!(kind("status"), Kind::NotPersonal);
        assert_eq!(kind("Lieblingsfarbe"), Kind::Unknown);
        assert_eq!(kind("Hallo Anna, wie geht es dir heute so"), Kind::Unknown);
    }
}
