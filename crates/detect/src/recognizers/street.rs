//! German street + house number (docs/entities.md §13): one multi-pattern search, one pattern
//! per kind of street name, run only in the windows before house numbers. LOCATION scores the
//! matches.

use std::sync::OnceLock;

use regex_automata::meta::Regex as MetaRegex;
use regex_automata::Input;

use super::context::with_exact_lower;
use crate::lexicon::{Lexicon, Lists};

/// The street search: which kind of street name ends before a house number, and where.
pub(super) struct StreetSearch {
    regex: MetaRegex,
}

impl StreetSearch {
    pub(super) fn new(lists: &Lists) -> StreetSearch {
        // One pattern per kind of street name (`StreetKind`, in this order), each followed by
        // the house number: a multi-pattern search reports the leftmost-first matches of their
        // alternation and which kind matched, so no capture search is needed per address
        // (costly on an address-dense request).
        let regex = MetaRegex::new_many(
            &[
                r"[A-ZÄÖÜ][a-zäöüß]+(?:-[A-ZÄÖÜ][a-zäöüß]*)*-?(?i:SUFFIXES)",
                r"[A-ZÄÖÜ][a-zäöüß]+(?:er|e|en|es)\ (?:WORDS)",
                r"(?:PREPS|Alt-)\ ?[A-ZÄÖÜ][a-zäöüß]+",
                r"Straße\ des\ [0-9]{1,2}\.\ [A-ZÄÖÜ][a-zäöüß]+|Platz\ der\ [A-ZÄÖÜ][a-zäöüß]+",
            ]
            .map(|kind| {
                format!("(?x)(?:{kind}){HOUSE_NUMBER}")
                    .replace("SUFFIXES", &alternation(&lists.street_suffixes))
                    .replace("WORDS", &alternation(&lists.street_words))
                    .replace("PREPS", &alternation(&lists.street_prepositions))
            }),
        )
        .expect("static street patterns");
        StreetSearch { regex }
    }

    /// Street matches `(kind, start, end)` inside `windows` (see [`street_windows`]).
    pub(super) fn matches(
        &self,
        s: &str,
        windows: &[(usize, usize)],
    ) -> Vec<(StreetKind, usize, usize)> {
        let mut out = Vec::new();
        for &(a, b) in windows {
            let Some(w) = s.get(a..b) else { continue };
            for m in self.regex.find_iter(Input::new(w)) {
                let kind = StreetKind::ALL
                    .get(m.pattern().as_usize())
                    .copied()
                    .unwrap_or(StreetKind::Named);
                out.push((kind, a + m.start(), a + m.end()));
            }
        }
        out
    }
}

/// A regex alternation of literal words, their spaces escaped so that it holds in `x` mode too.
pub(super) fn alternation(words: &[&str]) -> String {
    words
        .iter()
        .map(|x| regex::escape(x).replace(' ', r"\ "))
        .collect::<Vec<_>>()
        .join("|")
}

/// The house number after a street name and its space: `5`, `12a`, `12-14`, `12 / 14a`.
const HOUSE_NUMBER: &str = r"\ [1-9][0-9]{0,3}[a-zA-Z]?(?:\ ?[-/]\ ?[0-9]{1,4}[a-z]?)?";

/// Which kind of street name a match has (the patterns of the street search, in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StreetKind {
    /// `Lindenstraße`, `Bahnhofstr.`, `Ernst-Reuter-Platz`.
    Compound,
    /// `Berliner Allee`.
    TwoWord,
    /// `Am Markt`, `Alt-Moabit`.
    Prep,
    /// `Straße des 17. Juni`, `Platz der Republik`.
    Named,
}

impl StreetKind {
    const ALL: [StreetKind; 4] = [
        StreetKind::Compound,
        StreetKind::TwoWord,
        StreetKind::Prep,
        StreetKind::Named,
    ];
}

/// Start of the house number of the street match `s[start..end]`: after the last space that a
/// digit follows and no `-` or `/` precedes. The number's own spaces stand only beside its `-`
/// or `/` (`12 - 14`), and a street name ends in a letter or `.` (a test checks the word lists),
/// so that space is the one between name and number.
pub(super) fn house_number_start(s: &str, start: usize, end: usize) -> usize {
    let b = s.as_bytes();
    (start + 2..end)
        .rev()
        .find(|&q| b[q - 1] == b' ' && b[q].is_ascii_digit() && !matches!(b[q - 2], b'-' | b'/'))
        .unwrap_or(end)
}

/// Where a street address can end: before every house number (a digit run starting with 1–9,
/// after a space) whose preceding text may end a street name ([`may_end_street_name`]), from 72
/// bytes before the number (the name) to 14 after it (`12a`, `12-14`). Every match of the
/// street pattern ends so, so searching only these windows finds the same streets as searching
/// the whole text.
pub(super) fn street_windows(s: &str, digit_runs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &(start, end) in digit_runs {
        let Some(name) = s.get(..start).and_then(|p| p.strip_suffix(' ')) else {
            continue;
        };
        if s.as_bytes().get(start).is_some_and(|&d| d == b'0') {
            continue;
        }
        // Every street name has a capital in its last word (`Markt`, `Lindenstraße`,
        // `Alt-Moabit`): a cheap test before the word lists.
        let capital = name
            .chars()
            .rev()
            .take_while(|c| c.is_alphabetic() || matches!(c, '-' | '.' | '\'' | '’'))
            .any(char::is_uppercase);
        if !capital || !may_end_street_name(name) {
            continue;
        }
        let from = super::floor_boundary(s, start.saturating_sub(72));
        let to = super::ceil_boundary(s, end + 14);
        match out.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => out.push((from, to)),
        }
    }
    out
}

/// True when `word` (lowercase) ends with a street suffix (`data/lexicon/street_suffixes.txt`).
/// Only the suffixes with the word's last byte are compared: the suffixes grouped by last byte
/// once, so a house number costs a handful of comparisons, not one per suffix.
fn ends_with_suffix(word: &str) -> bool {
    static BY_LAST_BYTE: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    let groups = BY_LAST_BYTE.get_or_init(|| {
        let mut groups = vec![Vec::new(); 256];
        for &x in &Lexicon::get().lists.street_suffixes {
            match x.as_bytes().last() {
                Some(&b) => groups[usize::from(b)].push(x),
                // An empty suffix ends every word.
                None => groups.iter_mut().for_each(|g| g.push(x)),
            }
        }
        groups
    });
    word.as_bytes().last().is_some_and(|&b| {
        groups
            .get(usize::from(b))
            .is_some_and(|g| g.iter().any(|x| word.ends_with(x)))
    })
}

/// True when `name` (the text before a house number and its space) may end a street name: its
/// last word ends with a street suffix (`Lindenstraße`, `Bahnhofstr.`, `Berliner Allee`), starts
/// with `Alt-`, follows a leading word (`Am Markt`) or a day (`Straße des 17. Juni`).
fn may_end_street_name(name: &str) -> bool {
    let is_name_char = |c: char| c.is_alphabetic() || matches!(c, '-' | '.' | '\'' | '’');
    let head = name.trim_end_matches(is_name_char);
    let ends_street = with_exact_lower(&name[head.len()..], |last| {
        (!last.is_empty()).then(|| ends_with_suffix(last) || last.starts_with("alt-"))
    });
    match ends_street {
        None => return false,
        Some(true) => return true,
        Some(false) => {}
    }
    let Some(before) = head.strip_suffix(' ') else {
        return false;
    };
    with_exact_lower(
        &before[before.trim_end_matches(is_name_char).len()..],
        |lead| {
            Lexicon::get()
                .lists
                .street_name_leads
                .contains(&lead.trim_end_matches('.'))
        },
    ) || before.ends_with('.') && before[..before.len() - 1].ends_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::{ends_with_suffix, house_number_start, StreetKind, StreetSearch};
    use crate::lexicon::Lexicon;

    #[test]
    fn street_names_end_where_house_numbers_cannot_begin() {
        // `house_number_start` relies on it: no street word ends with `-`, `/` or a space.
        let lists = &Lexicon::get().lists;
        for w in lists.street_suffixes.iter().chain(&lists.street_words) {
            assert!(!w.ends_with(['-', '/', ' ']), "{w}");
        }
    }

    #[test]
    fn suffixes_by_last_byte_as_by_scan() {
        let suffixes = &Lexicon::get().lists.street_suffixes;
        let mut words: Vec<String> = suffixes.iter().map(|x| format!("linden{x}")).collect();
        words.extend(["lindenhof", "markt", "", "x", "straßen", "weg."].map(str::to_owned));
        for w in &words {
            let scan = !w.is_empty() && suffixes.iter().any(|x| w.ends_with(x));
            assert_eq!(ends_with_suffix(w), scan, "{w}");
        }
    }

    #[test]
    fn street_kinds_and_house_numbers() {
        let r = StreetSearch::new(&Lexicon::get().lists);
        let s = "Lindenstraße 12 - 14a, Berliner Allee 5, Am Markt 3/4, \
                 Straße des 17. Juni 135 und Platz der Republik 1 / 2";
        let found: Vec<(StreetKind, &str, &str)> = r
            .matches(s, &[(0, s.len())])
            .into_iter()
            .map(|(k, a, e)| (k, &s[a..e], &s[house_number_start(s, a, e)..e]))
            .collect();
        assert_eq!(
            found,
            vec![
                (StreetKind::Compound, "Lindenstraße 12 - 14a", "12 - 14a"),
                (StreetKind::TwoWord, "Berliner Allee 5", "5"),
                (StreetKind::Prep, "Am Markt 3/4", "3/4"),
                (StreetKind::Named, "Straße des 17. Juni 135", "135"),
                (StreetKind::Named, "Platz der Republik 1 / 2", "1 / 2"),
            ]
        );
    }
}
