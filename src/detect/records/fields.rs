//! What a column or key name says about its cells, from `data/record_fields.txt`: a personal
//! type (strong, or weak = needs corroboration), explicitly not personal, or unknown. Names are
//! compared normalised (lowercase letters and digits only), whole first, then by their last and
//! first part (`kunden_ort` → `ort`, `kunde_id` → `id`, `Telefon (privat)` → `telefon`).

use std::sync::OnceLock;

use ahash::AHashMap as HashMap;

use crate::detect::EntityType;

static FIELDS: &str = include_str!("../../../data/record_fields.txt");

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

fn table() -> &'static HashMap<String, Kind> {
    static TABLE: OnceLock<HashMap<String, Kind>> = OnceLock::new();
    TABLE.get_or_init(|| parse(FIELDS))
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

/// The kind of a column or key named `name` (as written).
pub(crate) fn kind(name: &str) -> Kind {
    // Column names are short; anything long is a sentence, not a name.
    if name.len() > 48 {
        return Kind::Unknown;
    }
    let t = table();
    if let Some(k) = with_normalised(name, |n| t.get(n).copied()) {
        return k;
    }
    let (mut n, mut first, mut last) = (0, None, None);
    for p in parts(name) {
        n += 1;
        first.get_or_insert(p);
        last = Some(p);
    }
    if n < 2 {
        return Kind::Unknown;
    }
    for (a, b) in [last, first].into_iter().flatten() {
        if let Some(k) = with_normalised(&name[a..b], |p| t.get(p).copied()) {
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
