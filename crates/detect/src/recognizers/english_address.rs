//! English, UK and US addresses for LOCATION: `42 Baker Street`, `1600 Pennsylvania Ave NW`,
//! `London NW1 6XE`, `Washington, DC 20500`.
//!
//! Every one holds a digit run, so only windows around digit runs are searched. The windows are
//! widened around every run of a loose shape (a short number before a capital, one or two digits
//! after a capital, five digits) and merged; a window is then searched only when it holds a run
//! with the bytes the pattern itself puts around it ([`opens_street`], [`opens_outward_code`],
//! [`opens_zip`]). Each match lies in the one window that holds its own run, so skipping the
//! others keeps every match: German postcodes (`50667 Köln`), years (`2023 Geburtstag`) and
//! tables of five-digit codes open no search.

use regex::Regex;

use super::street::alternation;
use super::{cand, find_in, widen};
use crate::finding::{Form, Needs};
use crate::lexicon::Lists;
use crate::{Candidate, EntityType};

/// The three address patterns and what a street number must be followed by.
pub(super) struct EnglishAddresses {
    /// Street addresses, the number first: `42 Baker Street`.
    street: Regex,
    /// Bytes that may follow the first word of a street name and its space: a capital (a
    /// further word) or the first byte of a street type.
    after_first_word: [bool; 256],
    /// UK postcodes with the town before them: `London NW1 6XE`.
    uk_postcode: Regex,
    /// US town, state and ZIP code: `Washington, DC 20500`.
    us_zip: Regex,
}

impl EnglishAddresses {
    pub(super) fn new(lists: &Lists) -> EnglishAddresses {
        let street = Regex::new(&format!(
            r"\b[1-9][0-9]{{0,4}}[A-Za-z]?,? (?:[A-Z][a-z]+ ){{1,3}}(?:{})\.?(?: (?:NW|NE|SW|SE|N|S|E|W)\b)?",
            alternation(&lists.english_street_types)
        ))
        .expect("static English street pattern");
        let mut after_first_word = [false; 256];
        for first in lists
            .english_street_types
            .iter()
            .filter_map(|t| t.bytes().next())
            .chain(b'A'..=b'Z')
        {
            after_first_word[usize::from(first)] = true;
        }
        let uk_postcode = Regex::new(
            r"\b(?:[A-Z][a-z]+(?: [A-Z][a-z]+)?,? )?[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}\b",
        )
        .expect("static UK postcode pattern");
        let us_zip = Regex::new(&format!(
            r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)?, (?:{}) [0-9]{{5}}(?:-[0-9]{{4}})?\b",
            lists.us_states.join("|")
        ))
        .expect("static US ZIP pattern");
        EnglishAddresses {
            street,
            after_first_word,
            uk_postcode,
            us_zip,
        }
    }

    /// Appends a candidate for every address in `s`, whose sorted digit runs are `runs`.
    pub(super) fn find(&self, s: &str, runs: &[(usize, usize)], out: &mut Vec<Candidate>) {
        let b = s.as_bytes();
        let loose_streets = widen(
            s,
            runs.iter()
                .copied()
                .filter(|&(a, e)| e - a <= 5 && followed_by_capital(b, e)),
            0,
            72,
        );
        let opening = runs
            .iter()
            .filter(|&&r| opens_street(b, r, &self.after_first_word));
        for m in find_in(&self.street, s, &holding(&loose_streets, opening)) {
            let c = cand(EntityType::Location, m.start(), m.end(), 0.75, false);
            out.push(c.asking(Form::Alternate, Needs::Nothing));
        }
        let codes = widen(
            s,
            runs.iter()
                .copied()
                .filter(|&r| after_capital(b, r) || r.1 - r.0 == 5),
            44,
            12,
        );
        let outward = runs.iter().filter(|&&r| opens_outward_code(b, r));
        let zip = runs.iter().filter(|&&r| opens_zip(b, r));
        for (re, windows) in [
            (&self.uk_postcode, holding(&codes, outward)),
            (&self.us_zip, holding(&codes, zip)),
        ] {
            for m in find_in(re, s, &windows) {
                out.push(cand(EntityType::Location, m.start(), m.end(), 0.8, false));
            }
        }
    }
}

/// True when `, ` or ` ` and a capital follow byte `e` (the loose shape of a street number).
fn followed_by_capital(b: &[u8], e: usize) -> bool {
    let rest = b.get(e..).unwrap_or(&[]);
    let rest = rest.strip_prefix(b",").unwrap_or(rest);
    rest.first() == Some(&b' ') && rest.get(1).is_some_and(u8::is_ascii_uppercase)
}

/// True for one or two digits right after a capital (the loose shape of a UK outward code).
fn after_capital(b: &[u8], (a, e): (usize, usize)) -> bool {
    e - a <= 2 && a > 0 && b.get(a - 1).is_some_and(u8::is_ascii_uppercase)
}

/// `rest` without its first byte when `skippable` accepts that byte.
fn skip_one(rest: &[u8], skippable: impl Fn(&u8) -> bool) -> &[u8] {
    match rest.split_first() {
        Some((c, tail)) if skippable(c) => tail,
        _ => rest,
    }
}

/// True when the run `[a, e)` can open a street match: at most five digits, not starting with
/// `0`, then an optional letter and comma, a space, a capitalised ASCII word, a space and a byte
/// of `after_first_word` (`42 Baker S`, `12, Downing S`).
fn opens_street(b: &[u8], (a, e): (usize, usize), after_first_word: &[bool; 256]) -> bool {
    let letter_end = e + usize::from(b.get(e).is_some_and(u8::is_ascii_alphabetic));
    let comma = usize::from(b.get(letter_end) == Some(&b','));
    let word = b.get(letter_end + comma + 2..).unwrap_or(&[]);
    let lower = word.iter().take_while(|c| c.is_ascii_lowercase()).count();
    e - a <= 5
        && b.get(a).is_some_and(|&d| d != b'0')
        && followed_by_capital(b, letter_end)
        && lower > 0
        && word.get(lower) == Some(&b' ')
        && word
            .get(lower + 1)
            .is_some_and(|&c| after_first_word[usize::from(c)])
}

/// True when the run can be a UK outward code's digits: after a capital, then an optional
/// capital and the inward code (` 6XE`).
fn opens_outward_code(b: &[u8], r: (usize, usize)) -> bool {
    let rest = skip_one(b.get(r.1..).unwrap_or(&[]), u8::is_ascii_uppercase);
    after_capital(b, r)
        && matches!(rest, [b' ', d, x, y, ..] if d.is_ascii_digit()
            && x.is_ascii_uppercase() && y.is_ascii_uppercase())
}

/// True when the run can be a ZIP code: five digits after `, `, two capitals (the state) and a
/// space.
fn opens_zip(b: &[u8], (a, e): (usize, usize)) -> bool {
    e - a == 5
        && matches!(b.get(a.wrapping_sub(5)..a), Some([b',', b' ', x, y, b' '])
            if x.is_ascii_uppercase() && y.is_ascii_uppercase())
}

/// The `windows` (sorted, disjoint) that hold one of the sorted digit `runs` whole.
fn holding<'r>(
    windows: &[(usize, usize)],
    runs: impl Iterator<Item = &'r (usize, usize)>,
) -> Vec<(usize, usize)> {
    let mut runs = runs.peekable();
    windows
        .iter()
        .copied()
        .filter(|&(from, to)| {
            while runs.next_if(|r| r.0 < from).is_some() {}
            runs.peek().is_some_and(|r| r.1 <= to)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run test: whether a digit run opens a search, given the text's bytes.
    type Opens<'a> = dyn Fn(&[u8], (usize, usize)) -> bool + 'a;

    /// The test's answer for each digit run of `s`, in order.
    fn each_run(s: &str, opens: &Opens<'_>) -> Vec<bool> {
        let text = crate::Text::new(s);
        let runs = text.digit_runs().to_vec();
        runs.into_iter().map(|r| opens(s.as_bytes(), r)).collect()
    }

    #[test]
    fn only_runs_with_the_patterns_bytes_open_a_search() {
        let lists = &crate::lexicon::Lexicon::get().lists;
        let next = EnglishAddresses::new(lists).after_first_word;
        let street = |b: &[u8], r| opens_street(b, r, &next);
        assert_eq!(each_run("42 Baker Street", &street), [true]);
        assert_eq!(
            each_run("221b Baker Street, 10, Downing St", &street),
            [true, true]
        );
        assert_eq!(
            each_run("50667 Köln, 2023 Geburtstag gefeiert, 07 Baker St", &street),
            [false, false, false]
        );
        assert_eq!(
            each_run("London NW1 6XE, SW1A 1AA, A4 Papier", &opens_outward_code),
            [true, false, true, false, false]
        );
        assert_eq!(
            each_run("Washington, DC 20500, Köln 50667, IL 6270", &opens_zip),
            [true, false, false]
        );
    }
}
