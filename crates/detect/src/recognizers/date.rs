//! Dates (docs/entities.md §12): numeric `d.m.y`, ISO, slashes, written German and English months;
//! calendar-valid with day, month and year. Partial dates only with birth context.

use regex::Regex;

use super::{cand, Context, ContextIndex};
use crate::finding::{Cues, Form, Needs};
use crate::lexicon::Lexicon;
use crate::{validate, Candidate, EntityType, Recognizer, Text};

/// How far before a date an amount word still belongs to it (`Betrag: `, `EUR `).
const AMOUNT_BACK: usize = 9;

const MONTHS: &[(&str, u32)] = &[
    ("januar", 1),
    ("jänner", 1),
    ("jän", 1),
    ("january", 1),
    ("jan", 1),
    ("februar", 2),
    ("feber", 2),
    ("february", 2),
    ("feb", 2),
    ("märz", 3),
    ("maerz", 3),
    ("march", 3),
    ("mär", 3),
    ("mrz", 3),
    ("mar", 3),
    ("april", 4),
    ("apr", 4),
    ("mai", 5),
    ("may", 5),
    ("juni", 6),
    ("june", 6),
    ("jun", 6),
    ("juli", 7),
    ("july", 7),
    ("jul", 7),
    ("august", 8),
    ("aug", 8),
    ("september", 9),
    ("sept", 9),
    ("sep", 9),
    ("oktober", 10),
    ("october", 10),
    ("okt", 10),
    ("oct", 10),
    ("november", 11),
    ("nov", 11),
    ("dezember", 12),
    ("december", 12),
    ("dez", 12),
    ("dec", 12),
];

const MONTH_RE: &str = "januar|jänner|jän|january|jan|februar|feber|february|feb|märz|maerz|march|mär|mrz|mar|april|apr|mai|may|juni|june|jun|juli|july|jul|august|aug|september|sept|sep|oktober|october|okt|oct|november|nov|dezember|december|dez|dec";

/// Which alternative of the pattern matched, read off the matched text (cheaper than captures).
struct Kind {
    dmy: bool,
    iso: bool,
    slash: bool,
    dml: bool,
    mdy: bool,
    my: bool,
}

impl Kind {
    fn of(v: &str) -> Kind {
        let letters = v.bytes().any(|b| b.is_ascii_alphabetic()) || !v.is_ascii();
        let starts_digit = v.starts_with(|c: char| c.is_ascii_digit());
        let digit_groups = v
            .split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty())
            .count();
        Kind {
            dmy: !letters && v.contains('.'),
            iso: !letters && v.contains('-'),
            slash: !letters && v.contains('/'),
            dml: letters && starts_digit,
            mdy: letters && !starts_digit && digit_groups == 2,
            my: letters && !starts_digit && digit_groups == 1,
        }
    }

    fn name(&self, n: &str) -> Option<()> {
        let hit = match n {
            "dmy" => self.dmy,
            "iso" => self.iso,
            "slash" => self.slash,
            "dml" => self.dml,
            "mdy" => self.mdy,
            _ => self.my,
        };
        hit.then_some(())
    }
}

pub struct DateRecognizer {
    /// Amount words (`date_amount_context_negative`), with their own look-back: recorded as a
    /// negative cue that the context step adds to the words it finds.
    amount: ContextIndex,
    pattern: Regex,
    /// [`tail_key`]s of the month names of the pattern.
    month_tails: Vec<u32>,
}

impl DateRecognizer {
    pub fn new() -> Self {
        let src = format!(
            r"(?x)
            (?P<dmy>[0-9]{{1,2}}\.\ ?[0-9]{{1,2}}\.\ ?[0-9]{{2,4}})
            | (?P<iso>[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})
            | (?P<slash>[0-9]{{1,2}}/[0-9]{{1,2}}/[0-9]{{2,4}}|[0-9]{{4}}/[0-9]{{2}}/[0-9]{{2}})
            | (?P<dml>[0-9]{{1,2}}(?:\.|st|nd|rd|th)?\ ?(?i:{m})\.?,?\ [0-9]{{4}})
            | (?P<mdy>(?i:{m})\.?\ [0-9]{{1,2}}(?:st|nd|rd|th)?,?\ [0-9]{{4}})
            | (?P<my>(?i:{m})\.?\ [0-9]{{4}})
            ",
            m = MONTH_RE
        );
        DateRecognizer {
            amount: ContextIndex::new(&Context {
                strong: &[],
                weak: &[],
                negative: &Lexicon::get().lists.date_amount_context_negative,
            }),
            pattern: Regex::new(&src).expect("static date pattern"),
            month_tails: MONTH_RE
                .split('|')
                .filter_map(|m| tail_key(m.chars().rev()))
                .collect(),
        }
    }
}

/// The numbers of a matched date, in order (groups of at most four digits; a match has at
/// most three). Kept on the stack: this runs for every candidate.
struct Nums {
    vals: [u32; 4],
    len: usize,
}

impl Nums {
    fn of(v: &str) -> Nums {
        let mut n = Nums {
            vals: [0; 4],
            len: 0,
        };
        let groups = v
            .split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty() && p.len() <= 4)
            .filter_map(|p| p.parse().ok());
        for x in groups {
            if let Some(slot) = n.vals.get_mut(n.len) {
                *slot = x;
            }
            n.len += 1;
        }
        n
    }

    /// The numbers, or `None` when there are more than fit (never for a date match).
    fn get(&self) -> Option<&[u32]> {
        self.vals.get(..self.len)
    }
}

fn year4(y: u32, len: usize) -> Option<u32> {
    match len {
        4 => Some(y),
        2 => Some(validate::expand_year(y)),
        _ => None,
    }
}

fn month_of(v: &str) -> Option<u32> {
    super::with_lower(v, |lower| {
        let from = lower.find(char::is_alphabetic)?;
        let rest = &lower[from..];
        let word = &rest[..rest
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(rest.len())];
        let word = word
            .trim_start_matches("st")
            .trim_start_matches("nd")
            .trim_start_matches("rd")
            .trim_start_matches("th");
        MONTHS.iter().find(|(n, _)| *n == word).map(|&(_, m)| m)
    })
}

/// Key of the last three chars of a month name: each lowercase char as its Latin-1 byte.
/// `ſ` (long s) counts as `s`, as case-insensitive matching folds it so.
fn tail_key(chars_rev: impl Iterator<Item = char>) -> Option<u32> {
    let mut key = 0u32;
    let mut n = 0;
    for c in chars_rev.take(3) {
        let l = if c.is_ascii() {
            c.to_ascii_lowercase()
        } else if c == '\u{17f}' {
            's'
        } else {
            c.to_lowercase().next().unwrap_or(c)
        };
        key |= u32::from(u8::try_from(u32::from(l)).ok()?) << (8 * n);
        n += 1;
    }
    (n == 3).then_some(key)
}

/// Where the pattern can match. Numeric forms are three digit groups joined by `.`, `. `, `-`
/// or `/`: one such cluster with at least three runs. Written forms end with a space and a
/// four-digit year, with the month name ending 2–9 bytes before the year (`März 2024`,
/// `September. 12th, 2024`) and their first byte at most 20 bytes before it; they are searched
/// only where a letter run ends there in the last three letters of a month name (`tails`,
/// from [`tail_key`]). Such a window never starts inside a digit run.
fn windows(s: &str, runs: &[(usize, usize)], tails: &[u32]) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let numeric = super::clusters(s, runs, |gap| matches!(gap, b"." | b". " | b"-" | b"/"))
        .filter(|c| c.runs >= 3)
        .map(|c| (c.start, c.end));
    let numeric: Vec<(usize, usize)> = numeric.collect();
    let mut written: Vec<(usize, usize)> = Vec::new();
    let month_ends_at = |end: usize| {
        b.get(end - 1).is_some_and(u8::is_ascii_alphabetic)
            && !b.get(end).is_some_and(u8::is_ascii_alphabetic)
            && tail_key(s.get(..end).unwrap_or("").chars().rev())
                .is_some_and(|k| tails.contains(&k))
    };
    for (k, &(a, e)) in runs.iter().enumerate() {
        if e - a < 4 || a < 3 || b.get(a - 1) != Some(&b' ') {
            continue;
        }
        if !(a.saturating_sub(9).max(1)..a).any(month_ends_at) {
            continue;
        }
        let mut from = super::floor_boundary(s, a.saturating_sub(20));
        // Runs before this one that the margin reaches into start the window instead.
        for &(pa, pe) in runs[..k].iter().rev() {
            if pe <= from {
                break;
            }
            from = from.min(pa);
        }
        written.push((from, a + 4));
    }
    super::widen(s, merge_sorted(&numeric, &written), 0, 0)
}

/// The spans of two lists sorted by start, in one sorted sequence.
fn merge_sorted<'a>(
    a: &'a [(usize, usize)],
    b: &'a [(usize, usize)],
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x <= y => x,
            (Some(_), Some(y)) | (None, Some(y)) => y,
            (Some(x), None) => x,
            (None, None) => return None,
        };
        if a.get(i) == Some(next) {
            i += 1;
        } else {
            j += 1;
        }
        Some(*next)
    })
}

impl DateRecognizer {
    /// True when an amount word belongs to the date at `start..end`: at most [`AMOUNT_BACK`]
    /// bytes before it. (One after it opens the next number: `am 28.1.2024 EUR 150,00`.)
    fn is_amount(&self, s: &str, start: usize, end: usize) -> bool {
        self.amount
            .evidence_within(s, start, end, AMOUNT_BACK)
            .negative
    }
}

impl Recognizer for DateRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Date
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in super::find_in(
            &self.pattern,
            s,
            &windows(s, text.digit_runs(), &self.month_tails),
        ) {
            let v = m.as_str();
            let (start, end) = (m.start(), m.end());
            let c = Kind::of(v);
            let prev_alnum = s[..start]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            let left_ok = !prev_alnum && !super::number_continues_left(s, start);
            let next = s[end..].chars().next();
            let right_ok = !next.is_some_and(char::is_alphanumeric)
                && !super::number_continues_right(s, end, &['.', '/', ',', '-']);
            let iso_time = c.name("iso").is_some() && next == Some('T');
            if !left_ok || !(right_ok || iso_time) {
                continue;
            }
            let nums = Nums::of(v);
            let Some(n) = nums.get() else {
                continue;
            };
            // Month + year is a date only with birth context (a strong word).
            let mut needs = Needs::Nothing;
            let valid = if c.name("dmy").is_some() || c.name("slash").is_some() {
                let mut parts = v.split(['.', '/']).map(str::trim).filter(|p| !p.is_empty());
                let (Some(p0), Some(_), Some(p2), None) =
                    (parts.next(), parts.next(), parts.next(), parts.next())
                else {
                    continue;
                };
                if n.len() != 3 {
                    continue;
                }
                if p0.len() == 4 {
                    validate::date(n[0], n[1], n[2])
                } else {
                    let y = year4(n[2], p2.len());
                    y.is_some_and(|y| {
                        validate::date(y, n[1], n[0])
                            || (c.name("slash").is_some() && validate::date(y, n[0], n[1]))
                    })
                }
            } else if c.name("iso").is_some() {
                n.len() == 3 && validate::date(n[0], n[1], n[2])
            } else if c.name("dml").is_some() || c.name("mdy").is_some() {
                let month = month_of(v);
                match (month, n) {
                    (Some(mo), [a, b]) => {
                        if c.name("dml").is_some() {
                            validate::date(*b, mo, *a)
                        } else {
                            validate::date(*b, mo, *a) || validate::date(*a, mo, *b)
                        }
                    }
                    _ => false,
                }
            } else {
                needs = Needs::Strong;
                month_of(v).is_some() && n.first().is_some_and(|y| (1900..=2100).contains(y))
            };
            if !valid {
                continue;
            }
            // `12.03.2024 14:30 Uhr` is still a date; `12.30 Uhr` never reaches here.
            let base = if c.name("my").is_some() { 0.35 } else { 0.6 };
            // The context step scores it (`context_rules.rs`).
            let amount = Cues::new(false, false, self.is_amount(s, start, end));
            out.push(
                cand(EntityType::Date, start, end, base, false)
                    .with_cues(amount)
                    .asking(Form::Main, needs),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::kept;

    #[test]
    fn an_amount_lowers_only_its_own_number() {
        let r = DateRecognizer::new();
        // An amount elsewhere in the sentence says nothing about the date.
        for s in [
            "Ich habe 250,00 € bezahlt, die Rechnung vom 3.11.2023 liegt bei.",
            "A fee of 80 EUR was charged on 14 June 2024 without notice.",
            "Betrag 12,50 €, fällig am 1. Oktober 2025.",
            "Überwiesen am 28.1.2023 EUR 99,00 auf das Konto.",
        ] {
            assert_eq!(kept(&r, s).len(), 1, "{s}");
        }
        // An amount word right at the number still does.
        for s in [
            "Betrag: 12.05.2024",
            "Preis 1.10.2024",
            "Summe EUR 1.10.2024",
        ] {
            assert!(kept(&r, s).is_empty(), "{s}");
        }
    }

    #[test]
    fn written_dates_open_windows_only_near_a_month() {
        let r = DateRecognizer::new();
        // Far apart, so that no two windows merge.
        let gap = " und dann noch ein wenig Text dazwischen, ";
        let s = &format!(
            "am 5. MÄRZ 2023{gap}Kundennummer 4471{gap}Sept. 3rd, 2024{gap}\u{17f}ep 1999"
        );
        // Windows are found in the matching view, where the long s reads as `s`.
        let text = crate::Text::new(s);
        let (s, runs) = (text.view(), text.digit_runs().to_vec());
        let w = windows(s, &runs, &r.month_tails);
        let covers = |needle: &str| {
            let at = s.find(needle).unwrap_or(0);
            w.iter().any(|&(a, e)| a <= at && at + needle.len() <= e)
        };
        assert!(covers("5. MÄRZ 2023"));
        assert!(covers("Sept. 3rd, 2024"));
        assert!(covers("sep 1999"));
        assert!(!covers("4471"));
    }
}
