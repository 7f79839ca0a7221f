//! Span and window helpers shared by the recognizers: boundaries of a value (docs/entities.md
//! §1.3), digit clusters, search windows around anchors, the context windows before and after
//! a candidate (§1.5), and regex matches inside windows with absolute offsets.

pub(crate) use crate::text::{ceil_boundary, floor_boundary};

/// True when the code points around `[start, end)` of `s` do not extend a number or word:
/// no letter or digit directly before or after (docs/entities.md §1.3).
pub(crate) fn standalone(s: &str, start: usize, end: usize) -> bool {
    let before = s.get(..start).and_then(|p| p.chars().next_back());
    let after = s.get(end..).and_then(|p| p.chars().next());
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}

/// [`standalone`] plus: no separator + digit pair that would extend the number on either side
/// (`1.2.3.4` inside `1.2.3.4.5`, `12345` inside `12.345.678`).
pub(crate) fn numeric_standalone(s: &str, start: usize, end: usize) -> bool {
    if !standalone(s, start, end) {
        return false;
    }
    let b = s.as_bytes();
    let sep = |c: u8| matches!(c, b'.' | b',' | b'-' | b'/' | b':');
    if start >= 2 && sep(b[start - 1]) && b[start - 2].is_ascii_digit() {
        return false;
    }
    if end + 1 < b.len() && sep(b[end]) && b[end + 1].is_ascii_digit() {
        return false;
    }
    true
}

/// True when a separator + digit pair directly before `start` would extend a number
/// (`…3.` + `4`).
pub(crate) fn number_continues_left(s: &str, start: usize) -> bool {
    let b = s.as_bytes();
    start >= 2
        && start <= b.len()
        && matches!(b[start - 1], b'.' | b'/' | b'-' | b',' | b':')
        && b[start - 2].is_ascii_digit()
}

/// True when the character at `end` is one of `seps` and a digit follows it.
pub(crate) fn number_continues_right(s: &str, end: usize, seps: &[char]) -> bool {
    let rest = s.get(end..).unwrap_or("");
    let mut it = rest.chars();
    it.next().is_some_and(|c| seps.contains(&c)) && it.next().is_some_and(|c| c.is_ascii_digit())
}

/// Consecutive digit runs that one pattern may span: a number with its inner separators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cluster {
    /// Index of its first run in the list it was grouped from.
    pub first_run: usize,
    /// Byte offset of the first digit.
    pub start: usize,
    /// Byte offset after the last digit.
    pub end: usize,
    /// Number of digit runs.
    pub runs: usize,
    /// Number of digits.
    pub digits: usize,
}

impl Cluster {
    /// Its runs, from the list it was grouped from.
    pub fn runs<'r>(&self, all: &'r [(usize, usize)]) -> &'r [(usize, usize)] {
        all.get(self.first_run..self.first_run + self.runs)
            .unwrap_or(&[])
    }
}

/// Groups the sorted digit `runs` of `s` (see [`Text::digit_runs`](crate::Text::digit_runs))
/// into clusters: a run joins the previous cluster when `joins` accepts the bytes between them.
/// A recognizer passes the separators its pattern allows between digits, so every match of
/// the pattern lies inside one cluster (plus the few bytes it may have before the first or
/// after the last digit), and clusters too small for a valid value can be skipped unseen.
pub(crate) fn clusters<'r>(
    s: &'r str,
    runs: &'r [(usize, usize)],
    joins: impl Fn(&[u8]) -> bool + 'r,
) -> impl Iterator<Item = Cluster> + 'r {
    let b = s.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        let &(start, mut end) = runs.get(i)?;
        let first_run = i;
        let (mut count, mut digits) = (1, end - start);
        i += 1;
        while let Some(&(a, e)) = runs.get(i) {
            if !b.get(end..a).is_some_and(&joins) {
                break;
            }
            (end, count, digits) = (e, count + 1, digits + e - a);
            i += 1;
        }
        Some(Cluster {
            first_run,
            start,
            end,
            runs: count,
            digits,
        })
    })
}

/// Windows closer than this merge: one search over the bytes between two windows costs less
/// than starting another. (The bytes between are real text, so a merged window is searched
/// exactly like the whole text would be.)
const MERGE_GAP: usize = 32;

/// Merged windows `[start - back, end + ahead)` around sorted `spans`, widened to char
/// boundaries. Touching and close windows merge, so a match never straddles two of them.
pub(crate) fn widen(
    s: &str,
    spans: impl IntoIterator<Item = (usize, usize)>,
    back: usize,
    ahead: usize,
) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (a, e) in spans {
        let start = floor_boundary(s, a.saturating_sub(back));
        let end = ceil_boundary(s, e.saturating_add(ahead));
        match out.last_mut() {
            Some(last) if start <= last.1 + MERGE_GAP => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// The context window before byte `start` (§1.5): at most `max` bytes (about as many code
/// points for German), on the same line, or also the previous line when it ends with `:`.
pub(crate) fn before(s: &str, start: usize, max: usize) -> &str {
    let from = floor_boundary(s, start.saturating_sub(max));
    own_member(line_window(s.get(from..start).unwrap_or("")))
}

/// In JSON-like text a value's label is its own member name: the cues of earlier members
/// (`"telefon": "[[TEL_1]]", "steuer_id": "…"`) are no evidence for it. The window starts after
/// the last comma that is followed by a quoted name and a colon.
fn own_member(w: &str) -> &str {
    let b = w.as_bytes();
    let mut end = b.len();
    while let Some(comma) = memchr::memrchr(b',', &b[..end]) {
        let rest = &w[comma + 1..];
        let name = rest.trim_start();
        if let Some(inner) = name.strip_prefix('"') {
            if let Some(close) = memchr::memchr(b'"', inner.as_bytes()) {
                if inner[close + 1..].trim_start().starts_with(':') {
                    return rest;
                }
            }
        }
        end = comma;
    }
    w
}

/// The look-back window cut to the same line, or to a preceding `label:` line.
fn line_window(w: &str) -> &str {
    // `memrchr` rather than `rfind('\n')`: the same byte offsets, without the generic char
    // searcher (this runs once per candidate).
    match memchr::memrchr(b'\n', w.as_bytes()) {
        Some(nl) => {
            let prev = w[..nl].trim_end();
            if prev.ends_with(':') {
                match memchr::memrchr(b'\n', prev.as_bytes()) {
                    Some(nl2) => &w[nl2 + 1..],
                    None => w,
                }
            } else {
                &w[nl + 1..]
            }
        }
        None => w,
    }
}

/// The context window after byte `end`: at most `max` bytes, same line.
pub(crate) fn after(s: &str, end: usize, max: usize) -> &str {
    let to = ceil_boundary(s, end.saturating_add(max));
    let w = s.get(end..to).unwrap_or("");
    match memchr::memchr(b'\n', w.as_bytes()) {
        Some(nl) => &w[..nl],
        None => w,
    }
}

/// A match with absolute byte offsets into the view (the shape of `regex::Match`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct WindowMatch<'t> {
    s: &'t str,
    start: usize,
    end: usize,
}

impl<'t> WindowMatch<'t> {
    pub fn new(s: &'t str, start: usize, end: usize) -> WindowMatch<'t> {
        WindowMatch { s, start, end }
    }
    pub fn start(&self) -> usize {
        self.start
    }
    pub fn end(&self) -> usize {
        self.end
    }
    pub fn as_str(&self) -> &'t str {
        self.s.get(self.start..self.end).unwrap_or("")
    }
}

/// All matches of `re` inside the given disjoint windows of `s`, with absolute offsets.
pub(crate) fn find_in<'t>(
    re: &regex::Regex,
    s: &'t str,
    windows: &[(usize, usize)],
) -> Vec<WindowMatch<'t>> {
    let mut out = Vec::new();
    for &(a, b) in windows {
        let Some(w) = s.get(a..b) else { continue };
        out.extend(re.find_iter(w).map(|m| WindowMatch {
            s,
            start: a + m.start(),
            end: a + m.end(),
        }));
    }
    out
}

/// Captures of `re` inside the windows: `(window start, captures relative to the window)`.
pub(crate) fn captures_in<'t>(
    re: &regex::Regex,
    s: &'t str,
    windows: &[(usize, usize)],
) -> Vec<(usize, regex::Captures<'t>)> {
    let mut out = Vec::new();
    for &(a, b) in windows {
        let Some(w) = s.get(a..b) else { continue };
        for m in re.find_iter(w) {
            if let Some(c) = re.captures_at(&w[..m.end()], m.start()) {
                out.push((a, c));
            }
        }
    }
    out
}

/// [`captures_in`] for a `key: "value"` pattern, keeping only matches whose key is a whole
/// word: it starts the text, follows a non-alphanumeric character (`"ort"`, `kunden_ort`) or
/// a lower-case letter before its capital (`kundenOrt`). A key is never the tail of a longer
/// member name (`effort`, `comfort`, `report`, `sort` are no `ort`; `hostname` is no `name`),
/// whose value is a setting, not a personal one.
pub(crate) fn field_captures_in<'t>(
    re: &regex::Regex,
    s: &'t str,
    windows: &[(usize, usize)],
) -> Vec<(usize, regex::Captures<'t>)> {
    let mut out = captures_in(re, s, windows);
    out.retain(|(base, c)| {
        let Some(m) = c.get(0) else { return false };
        let quoted = matches!(m.as_str().as_bytes().first(), Some(b'"' | b'\''));
        key_starts_word(s, base + m.start() + usize::from(quoted))
    });
    out
}

/// Whether a key at byte `at` of `s` begins a word (see [`field_captures_in`]).
fn key_starts_word(s: &str, at: usize) -> bool {
    let (Some(before), Some(after)) = (s.get(..at), s.get(at..)) else {
        return false;
    };
    match (before.chars().next_back(), after.chars().next()) {
        (None, _) => true,
        (Some(p), _) if !p.is_alphanumeric() => true,
        (Some(p), Some(k)) => p.is_lowercase() && k.is_uppercase(),
        (Some(_), None) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_key_is_a_whole_word_not_the_tail_of_a_member_name() {
        let re = regex::Regex::new(r#"(?i)["']?(?:ort|name)["']?\s*[:=]\s*["']([^"']+)["']"#)
            .unwrap_or_else(|e| panic!("{e}"));
        let found = |s: &str| -> Vec<String> {
            field_captures_in(&re, s, &[(0, s.len())])
                .iter()
                .filter_map(|(_, c)| c.get(1).map(|v| v.as_str().to_owned()))
                .collect()
        };
        for s in [
            r#"{"reasoning_effort":"low","effort":"high","comfort":"high"}"#,
            r#"{"report":"Bremen","export":"csv","sort":"asc","hostname":"Anna"}"#,
            "effort: 'low'",
        ] {
            assert!(found(s).is_empty(), "{s}: {:?}", found(s));
        }
        assert_eq!(found(r#"{"ort":"Guben"}"#), ["Guben"]);
        assert_eq!(
            found(r#"{"kunden_ort": "Guben", "kundenOrt": "Cottbus"}"#),
            ["Guben", "Cottbus"]
        );
        assert_eq!(found("Ort: 'Guben', name='Anna'"), ["Guben", "Anna"]);
    }

    #[test]
    fn a_json_value_is_labelled_by_its_own_member_only() {
        let s = r#"{"name": "[[NAME_1]]", "telefon": "[[TEL_1]]", "steuer_id": "86095742719"}"#;
        let start = s.find('8').unwrap_or(0);
        assert_eq!(before(s, start, 50), r#" "steuer_id": ""#);
        // a comma inside prose or a CSV row is no member boundary
        let prose = "Telefon, Steuer-ID 86095742719";
        assert_eq!(before(prose, prose.len() - 11, 50), "Telefon, Steuer-ID ");
        let csv = r#""Telefon","Steuer-ID",86095742719"#;
        assert_eq!(before(csv, csv.len() - 11, 50), r#""Telefon","Steuer-ID","#);
    }

    #[test]
    fn context_windows() {
        let s = "Kunde\nSteuer-ID:\n86095742719";
        let start = s.find('8').unwrap_or(0);
        assert_eq!(before(s, start, 50), "Steuer-ID:\n");
        let s2 = "Name\nnichts 123";
        assert_eq!(before(s2, s2.len() - 3, 50), "nichts ");
        assert_eq!(after("12 ab\ncd", 2, 25), " ab");
    }

    #[test]
    fn clusters_follow_the_joiners() {
        let s = "Tel 0171 1234567, IBAN DE89 3704-0044 x 12";
        let runs = crate::Text::new(s).digit_runs().to_vec();
        let spaced: Vec<(usize, usize, usize)> = clusters(s, &runs, |g| g == b" ")
            .map(|c| (c.start, c.end, c.digits))
            .collect();
        assert_eq!(spaced[0], (4, 16, 11));
        let c = clusters(s, &runs, |g| matches!(g, b" " | b"-"))
            .nth(1)
            .expect("IBAN cluster");
        assert_eq!(&s[c.start..c.end], "89 3704-0044");
        assert_eq!(c.runs(&runs).len(), 3);
        // Close windows merge, far ones do not; ends are widened to char boundaries.
        assert_eq!(widen("ää1", [(4, 5)], 1, 0), vec![(2, 5)]);
        let far = format!("1{}2", " ".repeat(40));
        assert_eq!(widen(&far, [(0, 1), (41, 42)], 0, 0).len(), 2);
        assert_eq!(widen(&far, [(0, 1), (20, 21)], 0, 0), vec![(0, 21)]);
    }

    #[test]
    fn numeric_boundaries() {
        let s = "1.2.3.4.5";
        assert!(!numeric_standalone(s, 0, 7));
        assert!(numeric_standalone("x 1234 y", 2, 6));
        assert!(!numeric_standalone("a1234", 1, 5));
    }
}
