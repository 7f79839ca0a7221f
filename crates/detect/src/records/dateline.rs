//! Letter datelines as a LOCATION anchor: a line that is only a place, a comma and a date
//! (`Guben, den 22.07.2024`, `Kassel, 1. Mai 2025`, `Bad Homburg v. d. Höhe, 03.02.2025`) names
//! the place the letter was written in — the writer's town — even when no gazetteer knows it.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;

use crate::lexicon::{class, Lexicon};
use crate::recognizers::cand;
use crate::{Candidate, EntityType};

static NOT_PLACES: &str = include_str!("../../data/dateline_words.txt");

/// Words that begin dateline-shaped lines without being a place (lowercase).
fn not_places() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        NOT_PLACES
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

/// Score of a place in a dateline (as the location recognizer gives known towns there).
const SCORE: f32 = 0.75;
/// Datelines are short lines; longer ones are not looked at.
const MAX_LINE: usize = 96;

pub(crate) struct Datelines {
    re: Regex,
}

impl Datelines {
    pub fn new() -> Datelines {
        let re = Regex::new(
            r"^(\p{Lu}[\p{L}'’-]*\.?(?:[ -](?:am|an|der|im|in|ob|bei|vor|v\.|d\.|a\.|\p{Lu}[\p{L}'’-]*\.?)){0,4}),[ \t]+(?:den[ \t]+|am[ \t]+)?(?:\d{1,2}\.[ \t]?\d{1,2}\.[ \t]?(?:\d{4}|\d{2})|\d{1,2}\.[ \t]?\p{L}{3,}\.?[ \t]+\d{4}|\d{4}-\d{2}-\d{2})[ \t]*$",
        )
        .expect("static dateline pattern");
        Datelines { re }
    }

    /// Appends a LOCATION candidate for the place of every dateline of `s`.
    pub fn find(&self, s: &str, out: &mut Vec<Candidate>) {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', s.as_bytes()).chain([s.len()]) {
            let line = &s[start..end];
            let from = start;
            start = end + 1;
            let trimmed = line.trim();
            if trimmed.len() > MAX_LINE || trimmed.len() < 8 {
                continue;
            }
            // Cheap gate: a comma and a digit.
            if !trimmed.contains(", ") || !trimmed.bytes().any(|b| b.is_ascii_digit()) {
                continue;
            }
            // A dateline ends with its date's last digit (`\d` is any Unicode decimal digit,
            // which `is_numeric` includes): a line ending otherwise needs no regex.
            if !trimmed.chars().next_back().is_some_and(char::is_numeric) {
                continue;
            }
            let Some(c) = self.re.captures(trimmed) else {
                continue;
            };
            let Some(place) = c.get(1) else { continue };
            let first = place.as_str().split([' ', '-']).next().unwrap_or("");
            let bits = Lexicon::get().form_bits(&first.to_lowercase());
            // `Montag, den 3.2.2025`, `Stand, 1. Mai 2025`: common words are no place, unless a
            // gazetteer knows them as a town.
            let lower = first.to_lowercase();
            if (bits & (class::COMMON | class::STOP) != 0 || not_places().contains(lower.as_str()))
                && bits & class::TOWN == 0
            {
                continue;
            }
            let offset = from + (line.len() - line.trim_start().len());
            out.push(cand(
                EntityType::Location,
                offset + place.start(),
                offset + place.end(),
                SCORE,
                false,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(s: &str) -> Vec<&str> {
        let mut out = Vec::new();
        Datelines::new().find(s, &mut out);
        out.iter().map(|c| &s[c.start..c.end]).collect()
    }

    #[test]
    fn datelines_name_their_place() {
        assert_eq!(places("Guben, den 22.07.2024"), ["Guben"]);
        assert_eq!(places("Brief\n  Kassel, 1. Mai 2025\nHallo"), ["Kassel"]);
        assert_eq!(
            places("Bad Homburg v. d. Höhe, 03.02.2025"),
            ["Bad Homburg v. d. Höhe"]
        );
        assert_eq!(
            places("Frankfurt am Main, den 3.2.25"),
            ["Frankfurt am Main"]
        );
    }

    #[test]
    fn other_lines_are_no_datelines() {
        assert!(places("Montag, den 22.07.2024").is_empty());
        assert!(places("Hallo, am 22.07.2024 komme ich").is_empty());
        assert!(places("Stand, 1. Mai 2025").is_empty());
        assert!(places("Rechnung, 1.234,56 €").is_empty());
        assert!(places("guben, den 22.07.2024").is_empty());
    }
}
