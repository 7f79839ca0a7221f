//! Dates (entities.md §12): numeric `d.m.y`, ISO, slashes, written German and English months;
//! calendar-valid with day, month and year. Partial dates only with birth context.

use regex::Regex;

use super::{cand, Context, ContextIndex};
use crate::detect::{validate, Candidate, EntityType, Recognizer, Text};

const CONTEXT: Context = Context {
    strong: &[
        "geb.",
        "geboren",
        "geburtsdatum",
        "geb.-datum",
        "geb.dat.",
        "geburtstag",
        "geburtsjahr",
        "jahrgang",
        "dob",
        "date of birth",
        "born",
        "birthday",
        "birth",
    ],
    weak: &[
        "verstorben",
        "gest.",
        "todestag",
        "hochzeit",
        "eintrittsdatum",
        "einstellungsdatum",
        "austritt",
        "termin",
        "behandlung",
        "aufnahme",
        "datum",
        "date",
        "am",
        "vom",
        "seit",
    ],
    negative: &[
        "version", "v", "build", "release", "§", "abs.", "ziffer", "kapitel", "€", "eur", "betrag",
        "preis", "stand:", "ip",
    ],
};

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
    context: ContextIndex,
    pattern: Regex,
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
            context: ContextIndex::new(&CONTEXT),
            pattern: Regex::new(&src).expect("static date pattern"),
        }
    }
}

fn nums(v: &str) -> Vec<u32> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty() && p.len() <= 4)
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn year4(y: u32, len: usize) -> Option<u32> {
    match len {
        4 => Some(y),
        2 => Some(validate::expand_year(y)),
        _ => None,
    }
}

fn month_of(v: &str) -> Option<u32> {
    let lower = v.to_lowercase();
    let word: String = lower
        .chars()
        .skip_while(|c| !c.is_alphabetic())
        .take_while(|c| c.is_alphabetic())
        .collect();
    let word = word
        .trim_start_matches("st")
        .trim_start_matches("nd")
        .trim_start_matches("rd")
        .trim_start_matches("th");
    MONTHS.iter().find(|(n, _)| *n == word).map(|&(_, m)| m)
}

/// Where the pattern can match. Numeric forms are three digit groups joined by `.`, `. `, `-`
/// or `/`: one such cluster with at least three runs. Written forms end with a space and a
/// four-digit year, and their first byte (day or month name) is at most 20 bytes before the
/// year (`12th September, 2024`, `September. 12th, 2024`); such a window never starts inside
/// a digit run, so a scan never begins in the middle of a number.
fn windows(s: &str, runs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let numeric = super::clusters(s, runs, |gap| matches!(gap, b"." | b". " | b"-" | b"/"))
        .filter(|c| c.runs >= 3)
        .map(|c| (c.start, c.end));
    let mut spans: Vec<(usize, usize)> = numeric.collect();
    for (k, &(a, e)) in runs.iter().enumerate() {
        if e - a < 4 || a == 0 || b.get(a - 1) != Some(&b' ') {
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
        spans.push((from, a + 4));
    }
    spans.sort_unstable();
    super::widen(s, spans, 0, 0)
}

impl Recognizer for DateRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Date
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in super::find_in(&self.pattern, s, &windows(s, text.digit_runs())) {
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
            let n = nums(v);
            let ev = self.context.evidence(s, start, end);
            let valid = if c.name("dmy").is_some() || c.name("slash").is_some() {
                let parts: Vec<&str> = v
                    .split(['.', '/'])
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .collect();
                if n.len() != 3 || parts.len() != 3 {
                    continue;
                }
                if parts[0].len() == 4 {
                    validate::date(n[0], n[1], n[2])
                } else {
                    let y = year4(n[2], parts[2].len());
                    y.is_some_and(|y| {
                        validate::date(y, n[1], n[0])
                            || (c.name("slash").is_some() && validate::date(y, n[0], n[1]))
                    })
                }
            } else if c.name("iso").is_some() {
                n.len() == 3 && validate::date(n[0], n[1], n[2])
            } else if c.name("dml").is_some() || c.name("mdy").is_some() {
                let month = month_of(v);
                match (month, n.as_slice()) {
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
                // month + year: only with birth context
                month_of(v).is_some()
                    && ev.strong
                    && n.first().is_some_and(|y| (1900..=2100).contains(y))
            };
            if !valid {
                continue;
            }
            // `12.03.2024 14:30 Uhr` is still a date; `12.30 Uhr` never reaches here.
            let base = if c.name("my").is_some() { 0.35 } else { 0.6 };
            let score = ev.score(base, 0.35, 0.1, 0.3);
            out.push(cand(EntityType::Date, start, end, score, false));
        }
    }
}
