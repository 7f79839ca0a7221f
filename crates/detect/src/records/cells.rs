//! Whether a cell's value can be of a type: the shape checks that keep ids, amounts, codes,
//! status words and free text out of typed columns. A cell is only ever given the type of its
//! column when its value passes here.

use std::sync::OnceLock;

use ahash::AHashSet;

use crate::lexicon::{class, Lexicon};
use crate::recognizers::with_exact_lower;
use crate::EntityType;

static VALUES: &str = include_str!("../../data/record_values.txt");

/// How much the column vouches for its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vouch {
    /// A strong personal name in a strict shape (CSV, SQL, JSON, table): lowercase values and
    /// common words that are also names (`Koch`) are accepted.
    Strong,
    /// A weak name, a loose shape (`key: value` lines) or a type taken from the other cells:
    /// values must be capitalised and not common words.
    Loose,
}

/// Placeholder and status values (`null`, `aktiv`, `n/a`), lowercase, and the most code points
/// any of them has.
struct Placeholders {
    set: AHashSet<&'static str>,
    max_chars: usize,
}

impl Placeholders {
    fn get() -> &'static Placeholders {
        static SET: OnceLock<Placeholders> = OnceLock::new();
        SET.get_or_init(|| {
            let set: AHashSet<&'static str> = VALUES
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .collect();
            let max_chars = set.iter().map(|p| p.chars().count()).max().unwrap_or(0);
            Placeholders { set, max_chars }
        })
    }

    /// True when `v`, lowercased, is a placeholder. Lowercasing never yields fewer code points
    /// than it is given, so a value with more code points than the longest placeholder is
    /// none and needs no look-up (most cells).
    fn holds(&self, v: &str) -> bool {
        v.chars().count() <= self.max_chars && with_exact_lower(v, |lower| self.set.contains(lower))
    }
}

/// True when `v` (a trimmed cell value) can be a value of type `t`.
pub(crate) fn plausible(t: EntityType, v: &str, vouch: Vouch) -> bool {
    if v.is_empty() || v.len() > 80 || !v.chars().any(char::is_alphanumeric) {
        return false;
    }
    let shaped = match t {
        EntityType::Person => person(v, vouch),
        EntityType::Location => location(v, vouch),
        EntityType::Date => date(v),
        EntityType::PhoneNumber => phone(v),
        _ => false,
    };
    // The placeholder look-up last: the shape checks reject most cells that are no value (an
    // e-mail address in a name column) for less than a hash of the lowercased cell.
    shaped && !Placeholders::get().holds(v)
}

fn words(v: &str) -> impl Iterator<Item = &str> {
    v.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
}

/// Lexicon classes of a word's lowercase form, and whether it is written capitalised.
fn classes(w: &str) -> (u32, bool) {
    let capital = w.chars().next().is_some_and(char::is_uppercase);
    (
        with_exact_lower(w, |lower| Lexicon::get().form_bits(lower)),
        capital,
    )
}

fn person(v: &str, vouch: Vouch) -> bool {
    // The character check first: it rejects most cells that are no name (an e-mail address,
    // a number) before the letters and words are counted.
    let ok_chars = v.chars().all(|c| {
        c.is_alphabetic()
            || matches!(
                c,
                ' ' | '-' | '.' | '\'' | '’' | ',' | '\u{300}'..='\u{36f}'
            )
    });
    if !ok_chars {
        return false;
    }
    let letters = v.chars().filter(|c| c.is_alphabetic()).count();
    let n = words(v).count();
    if letters < 2 || n > 5 {
        return false;
    }
    let all_lower = !v.chars().any(char::is_uppercase);
    let mut any_name = false;
    for w in words(v) {
        let (bits, capital) = classes(w.trim_end_matches('.'));
        let particle = with_exact_lower(w, |lower| Lexicon::get().lists.particles.contains(&lower));
        any_name |= bits & (class::FIRST_NAME | class::LAST_NAME) != 0;
        if !(capital || particle || (all_lower && vouch == Vouch::Strong)) {
            return false;
        }
        if bits & class::STOP != 0 && !particle {
            return false;
        }
    }
    // A lone common word (`Hammer`, `Termin`) is a name only where the column says so.
    let (bits, _) = classes(v);
    let common = n == 1 && bits & class::COMMON != 0;
    !common || vouch == Vouch::Strong || any_name && bits & class::COMMON == 0
}

/// What one pass over a cell's characters tells [`location`].
struct Shape {
    /// ASCII digits.
    digits: usize,
    /// The longest run of ASCII digits.
    longest_run: usize,
    letters: usize,
    /// Words as [`words`] splits them.
    words: usize,
    upper: bool,
    /// Every character passes the shape's character test.
    ok_chars: bool,
}

impl Shape {
    fn of(v: &str, ok: impl Fn(char) -> bool) -> Shape {
        // An ASCII value (most cells) is read byte by byte: no decoding, and the character
        // tests reduce to their ASCII branches.
        if v.is_ascii() {
            Shape::of_chars(v.bytes().map(char::from), ok)
        } else {
            Shape::of_chars(v.chars(), ok)
        }
    }

    fn of_chars(chars: impl Iterator<Item = char>, ok: impl Fn(char) -> bool) -> Shape {
        let mut sh = Shape {
            digits: 0,
            longest_run: 0,
            letters: 0,
            words: 0,
            upper: false,
            ok_chars: true,
        };
        let (mut run, mut in_word) = (0, false);
        for c in chars {
            if c.is_ascii_digit() {
                sh.digits += 1;
                run += 1;
                sh.longest_run = sh.longest_run.max(run);
            } else {
                run = 0;
            }
            sh.letters += usize::from(c.is_alphabetic());
            sh.upper |= c.is_uppercase();
            sh.ok_chars &= ok(c);
            let separator = c.is_whitespace() || c == ',';
            sh.words += usize::from(!separator && !in_word);
            in_word = !separator;
        }
        sh
    }
}

fn location(v: &str, vouch: Vouch) -> bool {
    // One pass for the counts (a dense request has a street address per row).
    let sh = Shape::of(v, |c| {
        c.is_alphanumeric() || matches!(c, ' ' | '-' | '.' | '\'' | '’' | ',' | '/' | '(' | ')')
    });
    if sh.digits == v.len() {
        // A postcode (DE/AT/CH: 4 or 5 digits).
        return (4..=5).contains(&sh.digits);
    }
    // Digit runs of a street address or postcode, never longer.
    if !sh.ok_chars || sh.longest_run > 5 || sh.letters < 2 || sh.words > 8 {
        return false;
    }
    let first = v.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    let Some(head) = words(first).next() else {
        return false;
    };
    let (bits, capital) = classes(head);
    // Lower case only in a strong column whose value has no capital at all (`trittin`).
    let all_lower_ok = vouch == Vouch::Strong && !sh.upper;
    if !(capital || all_lower_ok) {
        return false;
    }
    let town = bits & class::TOWN != 0;
    let lone = sh.words == 1 && sh.digits == 0;
    if bits & class::STOP != 0 && !town {
        return false;
    }
    !(lone && bits & class::COMMON != 0 && !town && vouch != Vouch::Strong)
}

fn date(v: &str) -> bool {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(
            r"^(?:\d{1,2}\.\s?\d{1,2}\.\s?(?:\d{2}|\d{4})|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/(?:\d{2}|\d{4})|\d{1,2}\.?\s+\p{L}{3,}\.?\s+\d{4})$",
        )
        .expect("static date shape")
    });
    re.is_match(v)
}

fn phone(v: &str) -> bool {
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    (6..=20).contains(&digits)
        && v.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '+' | '-' | '/' | '(' | ')' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use EntityType::*;

    #[test]
    fn names_but_not_codes_or_status_words() {
        assert!(plausible(Person, "Jana Brökelmann", Vouch::Loose));
        assert!(plausible(Person, "Brökelmann, Jana", Vouch::Loose));
        assert!(plausible(Person, "Ulrike von der Heide", Vouch::Loose));
        assert!(plausible(Person, "Koch", Vouch::Strong));
        assert!(plausible(Person, "trittin", Vouch::Strong));
        assert!(!plausible(Person, "trittin", Vouch::Loose));
        assert!(!plausible(Person, "aktiv", Vouch::Strong));
        assert!(!plausible(Person, "NULL", Vouch::Strong));
        assert!(!plausible(Person, "Schraube M4", Vouch::Strong));
        assert!(!plausible(Person, "Termin", Vouch::Loose));
        assert!(!plausible(Person, "bitte per Mail", Vouch::Loose));
        assert!(!plausible(Person, "A-4711", Vouch::Strong));
    }

    #[test]
    fn one_pass_shape_counts_as_the_splits() {
        for v in [
            "Hauptstr. 5, 10115 Berlin",
            " a,,b  c ",
            "1234567 x",
            "",
            "Ähm 12 Öl",
        ] {
            let sh = Shape::of(v, |c| c != 'x');
            assert_eq!(sh.words, words(v).count(), "{v}");
            assert_eq!(
                sh.digits,
                v.bytes().filter(u8::is_ascii_digit).count(),
                "{v}"
            );
            let longest = v.split(|c: char| !c.is_ascii_digit()).map(str::len).max();
            assert_eq!(sh.longest_run, longest.unwrap_or(0), "{v}");
            assert_eq!(sh.letters, v.chars().filter(|c| c.is_alphabetic()).count());
            assert_eq!(sh.upper, v.chars().any(char::is_uppercase));
            assert_eq!(sh.ok_chars, !v.contains('x'));
        }
    }

    #[test]
    fn long_values_are_no_placeholders() {
        let p = Placeholders::get();
        assert!(p.max_chars >= "unbekannt".len());
        assert!(p.holds("NULL") && p.holds("Unbekannt") && p.holds("k. A."));
        assert!(!p.holds("Unbekannter Weg") && !p.holds("Lindenstraße 12"));
    }

    #[test]
    fn places_postcodes_dates_phones() {
        assert!(plausible(Location, "Bielefeld", Vouch::Loose));
        assert!(plausible(Location, "33602", Vouch::Strong));
        assert!(plausible(Location, "Hauptstr. 5", Vouch::Strong));
        assert!(plausible(Location, "Frankfurt am Main", Vouch::Loose));
        assert!(!plausible(Location, "123456", Vouch::Strong));
        assert!(!plausible(Location, "12,50", Vouch::Strong));
        assert!(!plausible(Location, "siehe oben", Vouch::Loose));
        assert!(plausible(Date, "12.03.1984", Vouch::Strong));
        assert!(plausible(Date, "1984-03-12", Vouch::Strong));
        assert!(plausible(Date, "1. Mai 1984", Vouch::Strong));
        assert!(!plausible(Date, "1984", Vouch::Strong));
        assert!(plausible(PhoneNumber, "0521 1234567", Vouch::Strong));
        assert!(!plausible(PhoneNumber, "12,50", Vouch::Strong));
    }
}
