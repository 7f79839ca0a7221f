//! The registry: one recognizer per entity type. A new type is one new file plus a line in
//! [`all`]. Shared helpers for boundaries (entities.md §1.3) and context words (§1.5) live here.

mod credit_card;
mod date;
mod email;
mod iban;
mod ip;
mod kfz;
mod location;
pub(crate) mod person;
mod phone;
mod steuer_id;
mod steuernummer;
mod sv_nummer;
mod url;

use super::Recognizer;

/// Every recognizer the engine runs, built once (patterns compiled here).
pub fn all() -> Vec<Box<dyn Recognizer>> {
    vec![
        Box::new(email::EmailRecognizer::new()),
        Box::new(url::UrlRecognizer::new()),
        Box::new(ip::IpRecognizer::new()),
        Box::new(iban::IbanRecognizer::new()),
        Box::new(credit_card::CreditCardRecognizer::new()),
        Box::new(phone::PhoneRecognizer::new()),
        Box::new(steuer_id::SteuerIdRecognizer::new()),
        Box::new(steuernummer::SteuernummerRecognizer::new()),
        Box::new(sv_nummer::SvNummerRecognizer::new()),
        Box::new(kfz::KfzRecognizer::new()),
        Box::new(date::DateRecognizer::new()),
        Box::new(location::LocationRecognizer::new()),
        Box::new(person::PersonRecognizer::new()),
        // Last: reads the candidates of the others (tables, columns, datelines).
        Box::new(crate::detect::records::RecordRecognizer::new()),
    ]
}

/// True when the code points around `[start, end)` of `s` do not extend a number or word:
/// no letter or digit directly before or after (entities.md §1.3).
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

/// Groups the sorted digit `runs` of `s` (see [`Text::digit_runs`](crate::detect::Text::digit_runs))
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

/// Largest char boundary `<= i`.
pub(crate) fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Smallest char boundary `>= i`.
pub(crate) fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The context window before byte `start` (§1.5): at most `max` bytes (about as many code
/// points for German), on the same line, or also the previous line when it ends with `:`.
pub(crate) fn before(s: &str, start: usize, max: usize) -> &str {
    let from = floor_boundary(s, start.saturating_sub(max));
    let w = s.get(from..start).unwrap_or("");
    match w.rfind('\n') {
        Some(nl) => {
            let prev = w[..nl].trim_end();
            if prev.ends_with(':') {
                match prev.rfind('\n') {
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
    match w.find('\n') {
        Some(nl) => &w[..nl],
        None => w,
    }
}

/// Lowercased copy of a (short, bounded) window.
pub(crate) fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// Calls `f` with the lowercase of a short window without allocating: char by char into a
/// stack buffer (the same as [`lower`] except for the final-sigma rule, which no context word
/// involves), falling back to [`lower`] for windows that do not fit.
pub(crate) fn with_lower<R>(s: &str, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = [0u8; 512];
    let mut len = 0;
    let mut rest = s;
    loop {
        // ASCII stretches are copied and lowercased as slices; other chars go through Unicode.
        let ascii = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        let Some(slot) = buf.get_mut(len..len + ascii) else {
            return f(&lower(s));
        };
        slot.copy_from_slice(&rest.as_bytes()[..ascii]);
        slot.make_ascii_lowercase();
        len += ascii;
        rest = &rest[ascii..];
        let Some(c) = rest.chars().next() else {
            break;
        };
        rest = &rest[c.len_utf8()..];
        for l in c.to_lowercase() {
            let Some(slot) = buf.get_mut(len..len + l.len_utf8()) else {
                return f(&lower(s));
            };
            l.encode_utf8(slot);
            len += l.len_utf8();
        }
    }
    match std::str::from_utf8(&buf[..len]) {
        Ok(t) => f(t),
        Err(_) => f(&lower(s)),
    }
}

/// True when `w` (lowercase) occurs in `hay` at byte `i` and ends a token there: when `w` ends
/// in a letter or digit, no letter or digit follows it.
fn word_at(hay: &str, i: usize, w: &str) -> bool {
    let end = i + w.len();
    // Words are short: a byte loop beats a call to memcmp.
    let same = hay
        .as_bytes()
        .get(i..end)
        .is_some_and(|r| r.iter().zip(w.as_bytes()).all(|(a, b)| a == b));
    if w.is_empty() || !same || !hay.is_char_boundary(end) {
        return false;
    }
    let open_end = !w.ends_with(|c: char| c.is_alphanumeric());
    open_end
        || !hay
            .get(end..)
            .and_then(|r| r.chars().next())
            .is_some_and(char::is_alphanumeric)
}

/// Calls `f` with the byte offset of every position of `hay` where a token may begin: not
/// after a letter/digit or hyphen (`IdNr` must not fire inside `USt-IdNr`). `f` returns false
/// to stop.
fn token_starts(hay: &str, mut f: impl FnMut(usize) -> bool) {
    let b = hay.as_bytes();
    let mut may_start = true;
    let mut i = 0;
    while let Some(&x) = b.get(i) {
        if may_start && !f(i) {
            return;
        }
        if x.is_ascii() {
            may_start = !(x.is_ascii_alphanumeric() || x == b'-');
            i += 1;
        } else {
            let c = hay.get(i..).and_then(|r| r.chars().next()).unwrap_or(' ');
            may_start = !c.is_alphanumeric();
            i += c.len_utf8();
        }
    }
}

/// True when one of `words` (lowercase) occurs in `hay` (lowercase) as a whole token: not
/// preceded by a letter/digit or hyphen (`IdNr` must not fire inside `USt-IdNr`), and, when the word ends in a letter, not followed by one.
pub(crate) fn has_word(hay: &str, words: &[&str]) -> bool {
    // Windows are short (≤ ~100 bytes): one pass over the token starts of `hay`, trying the
    // words only where a token begins with the first byte of one of them.
    let mut firsts = [false; 256];
    for w in words {
        if let Some(&b) = w.as_bytes().first() {
            firsts[usize::from(b)] = true;
        }
    }
    let h = hay.as_bytes();
    let mut found = false;
    token_starts(hay, |i| {
        found = firsts[usize::from(h[i])] && words.iter().any(|w| word_at(hay, i, w));
        !found
    });
    found
}

/// Context words of one type (lowercase).
pub(crate) struct Context {
    pub strong: &'static [&'static str],
    pub weak: &'static [&'static str],
    pub negative: &'static [&'static str],
}

/// Evidence found around a candidate.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Evidence {
    pub strong: bool,
    pub weak: bool,
    pub negative: bool,
}

impl Evidence {
    /// `base` plus boosts (capped at +0.35) minus the penalty (§1.6).
    pub fn score(self, base: f32, strong: f32, weak: f32, penalty: f32) -> f32 {
        let boost: f32 = if self.strong {
            strong
        } else if self.weak {
            weak
        } else {
            0.0
        };
        let pen = if self.negative { penalty } else { 0.0 };
        (base + boost.min(0.35) - pen).clamp(0.0, 1.0)
    }
}

impl Context {
    /// Looks 50 bytes back (same line, or a preceding `label:` line) and 25 bytes ahead.
    pub fn evidence(&self, s: &str, start: usize, end: usize) -> Evidence {
        self.evidence_within(s, start, end, 50)
    }

    /// [`Context::evidence`] with a custom look-back (bytes).
    pub fn evidence_within(&self, s: &str, start: usize, end: usize, back: usize) -> Evidence {
        let a = after(s, end, 25);
        with_lower(before(s, start, back), |b| Evidence {
            strong: has_word(b, self.strong)
                || (a.contains('(') && with_lower(a, |a| has_word(a, self.strong))),
            weak: has_word(b, self.weak),
            negative: has_word(b, self.negative),
        })
    }
}

/// Which list of a [`Context`] a word comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    Strong,
    Weak,
    Negative,
}

/// A [`Context`] compiled once per recognizer: [`ContextIndex::evidence`] gives the same
/// answer as [`Context::evidence`], but finds the words of all three lists in one automaton
/// pass over the lowercased window (no allocation), checking token boundaries only where a
/// word occurs.
pub(crate) struct ContextIndex {
    words: aho_corasick::AhoCorasick,
    /// Per pattern id: its list, and whether it ends in a letter or digit (then no letter or
    /// digit may follow).
    cues: Vec<(Cue, bool)>,
}

impl ContextIndex {
    pub fn new(context: &Context) -> ContextIndex {
        let mut patterns: Vec<&'static str> = Vec::new();
        let mut cues = Vec::new();
        for (words, cue) in [
            (context.strong, Cue::Strong),
            (context.weak, Cue::Weak),
            (context.negative, Cue::Negative),
        ] {
            for &w in words.iter().filter(|w| !w.is_empty()) {
                patterns.push(w);
                cues.push((cue, w.ends_with(|c: char| c.is_alphanumeric())));
            }
        }
        let words = aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(&patterns)
            .expect("static context words");
        ContextIndex { words, cues }
    }

    /// Looks 50 bytes back (same line, or a preceding `label:` line) and 25 bytes ahead.
    pub fn evidence(&self, s: &str, start: usize, end: usize) -> Evidence {
        self.evidence_within(s, start, end, 50)
    }

    /// [`ContextIndex::evidence`] with a custom look-back (bytes).
    pub fn evidence_within(&self, s: &str, start: usize, end: usize, back: usize) -> Evidence {
        let mut ev = with_lower(before(s, start, back), |b| self.scan(b, false));
        let a = after(s, end, 25);
        if !ev.strong && a.contains('(') {
            ev.strong = with_lower(a, |a| self.scan(a, true).strong);
        }
        ev
    }

    /// The cues whose words occur as whole tokens in `hay` (lowercase), as [`has_word`] decides:
    /// not after a letter, digit or hyphen, and not followed by a letter or digit when the word
    /// ends in one. Only strong ones when `strong_only`.
    fn scan(&self, hay: &str, strong_only: bool) -> Evidence {
        let mut ev = Evidence::default();
        for m in self.words.find_overlapping_iter(hay) {
            let Some(&(cue, closed_end)) = self.cues.get(m.pattern().as_usize()) else {
                continue;
            };
            let seen = match cue {
                Cue::Strong => ev.strong,
                Cue::Weak => ev.weak || strong_only,
                Cue::Negative => ev.negative || strong_only,
            };
            // Words and window are UTF-8, so a match starts and ends on char boundaries.
            let (before, after) = (&hay[..m.start()], &hay[m.end()..]);
            if seen
                || before
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '-')
                || closed_end && after.chars().next().is_some_and(char::is_alphanumeric)
            {
                continue;
            }
            match cue {
                Cue::Strong => ev.strong = true,
                Cue::Weak => ev.weak = true,
                Cue::Negative => ev.negative = true,
            }
            if ev.strong && (strong_only || ev.weak && ev.negative) {
                break;
            }
        }
        ev
    }
}

/// Builds a candidate.
pub(crate) fn cand(
    t: super::EntityType,
    start: usize,
    end: usize,
    score: f32,
    validated: bool,
) -> super::Candidate {
    super::Candidate {
        entity_type: t,
        start,
        end,
        score,
        validated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_words() {
        let s = "Kunde\nSteuer-ID:\n86095742719";
        let start = s.find('8').unwrap_or(0);
        assert_eq!(before(s, start, 50), "Steuer-ID:\n");
        let s2 = "Name\nnichts 123";
        assert_eq!(before(s2, s2.len() - 3, 50), "nichts ");
        assert!(has_word("die steuer-id: ", &["steuer-id"]));
        assert!(!has_word("ust-idnr 123", &["idnr"]));
        assert!(has_word("tel. 030", &["tel."]));
    }

    #[test]
    fn clusters_follow_the_joiners() {
        let s = "Tel 0171 1234567, IBAN DE89 3704-0044 x 12";
        let runs = crate::detect::Text::new(s).digit_runs().to_vec();
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
    fn lowercase_on_the_stack_matches_lower() {
        for s in [
            "",
            "Steuer-ID:",
            "ÜBERWEISUNG an Müller",
            "İstanbul ΣΑΣ ẞ",
            &"ab".repeat(400),
        ] {
            assert_eq!(
                with_lower(s, str::to_owned).replace('ς', "σ"),
                lower(s).replace('ς', "σ")
            );
        }
    }

    #[test]
    fn context_index_agrees_with_context() {
        const C: Context = Context {
            strong: &["steuer-id", "tel.", "tel", "☎"],
            weak: &["überweisung", "fa"],
            negative: &["ust-idnr", "v"],
        };
        let index = ContextIndex::new(&C);
        for s in [
            "Meine Steuer-ID: 123",
            "USt-IdNr 123",
            "Tel.: 123",
            "Telefon 123",
            "per Überweisung, FA Köln 123",
            "Fahrzeug v 123",
            "☎ 123",
            "Kunde\nSteuer-ID:\n123",
            "123 (Tel)",
        ] {
            let start = s.find("123").unwrap_or(0);
            let (a, b) = (
                C.evidence(s, start, start + 3),
                index.evidence(s, start, start + 3),
            );
            assert_eq!(
                (a.strong, a.weak, a.negative),
                (b.strong, b.weak, b.negative),
                "{s}"
            );
        }
    }

    #[test]
    fn numeric_boundaries() {
        let s = "1.2.3.4.5";
        assert!(!numeric_standalone(s, 0, 7));
        assert!(numeric_standalone("x 1234 y", 2, 6));
        assert!(!numeric_standalone("a1234", 1, 5));
    }
}

/// A match with absolute byte offsets into the view (the shape of `regex::Match`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct M<'t> {
    s: &'t str,
    start: usize,
    end: usize,
}

impl<'t> M<'t> {
    pub fn new(s: &'t str, start: usize, end: usize) -> M<'t> {
        M { s, start, end }
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
pub(crate) fn find_in<'t>(re: &regex::Regex, s: &'t str, windows: &[(usize, usize)]) -> Vec<M<'t>> {
    let mut out = Vec::new();
    for &(a, b) in windows {
        let Some(w) = s.get(a..b) else { continue };
        out.extend(re.find_iter(w).map(|m| M {
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
