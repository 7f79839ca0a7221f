//! E-mail addresses (docs/entities.md §3): dot-atom local part, ≥ 2 domain labels, alphabetic TLD.

use regex::{Regex, RegexBuilder};

use super::cand;
use crate::finding::{Form, Needs};
use crate::lexicon::Lexicon;
use crate::{Candidate, EntityType, Recognizer, Text};

/// A byte that may belong to an address: every non-ASCII byte (a superset of `\p{L}\p{M}`),
/// ASCII letters and digits, and the punctuation of the local part, `.` and `@`.
fn run_byte(b: u8) -> bool {
    !b.is_ascii() || b.is_ascii_alphanumeric() || b"!#$%&'*+/=?^_`{|}~-.@".contains(&b)
}

/// The maximal runs of [`run_byte`]s that contain an `@`, found from the `@`s (memchr). No
/// match of the pattern crosses a byte outside the set and every match contains `@`, so
/// searching these runs finds exactly the matches of the whole text, while the (slow, Unicode)
/// pattern sees a few dozen bytes per address. Run ends sit next to ASCII bytes or at the text
/// ends, so they are char boundaries.
fn at_runs(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut runs = Vec::new();
    let mut next = 0;
    for at in memchr::memchr_iter(b'@', b) {
        if at < next {
            continue;
        }
        let mut start = at;
        while start > 0 && b.get(start - 1).copied().is_some_and(run_byte) {
            start -= 1;
        }
        let end = b
            .get(at + 1..)
            .and_then(|r| r.iter().position(|&x| !run_byte(x)))
            .map_or(b.len(), |p| at + 1 + p);
        runs.push((start, end));
        next = end;
    }
    runs
}

/// Whether `s.to_lowercase()` is one of the lowercase ASCII `words`, without building the
/// lowercase string for an ASCII `s` (compared case-insensitively); others (where a sign such as
/// the Kelvin sign lowercases to an ASCII letter) take the full conversion.
fn lowercase_in(s: &str, words: &[&str]) -> bool {
    if s.is_ascii() {
        words
            .iter()
            .any(|w| w.len() == s.len() && s.eq_ignore_ascii_case(w))
    } else {
        let lower = s.to_lowercase();
        words.iter().any(|w| lower == *w)
    }
}

pub struct EmailRecognizer {
    pattern: Regex,
}

impl EmailRecognizer {
    pub fn new() -> Self {
        // The counted Unicode classes make a large automaton: with the default 2 MB the lazy
        // DFA cannot even start and every search falls back to a backtracker that clears a
        // bitmap the size of the automaton first, on every address. 8 MB lets the DFA run.
        let pattern = RegexBuilder::new(
            r"[\p{L}\p{M}0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{M}0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[\p{L}0-9](?:[\p{L}\p{M}0-9-]{0,61}[\p{L}0-9])?\.)+\p{L}{2,24}",
        )
        .dfa_size_limit(8 << 20)
        .build()
        .expect("static e-mail pattern");
        EmailRecognizer { pattern }
    }
}

impl Recognizer for EmailRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::EmailAddress
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let lists = &Lexicon::get().lists;
        for m in super::find_in(&self.pattern, s, &at_runs(s)) {
            let v = m.as_str();
            // Byte look-ups: `@`, `.` and the trimmed marks are ASCII, so every position found
            // is a char boundary (a match is a few dozen bytes: `memchr` would cost more).
            let vb = v.as_bytes();
            // `mailto:` belongs outside; a leading apostrophe/quote is punctuation.
            let local_all = &vb[..vb.iter().position(|&b| b == b'@').unwrap_or(vb.len())];
            let lead = local_all
                .iter()
                .take_while(|b| b"'`{|}~/=".contains(b))
                .count();
            let start = m.start() + lead;
            let local = v.get(lead..local_all.len()).unwrap_or("");
            if local.is_empty() || local.len() > 64 || s.as_bytes()[..m.start()].ends_with(b".") {
                continue;
            }
            let tld = v
                .get(vb.iter().rposition(|&b| b == b'.').map_or(0, |p| p + 1)..)
                .unwrap_or("");
            if lowercase_in(tld, &lists.email_file_extensions) {
                continue;
            }
            if s[m.end()..].starts_with(|c: char| c.is_alphanumeric() || c == '@') {
                continue;
            }
            let base = if lowercase_in(local, &lists.email_role_locals) {
                0.7
            } else {
                0.9
            };
            out.push(
                cand(EntityType::EmailAddress, start, m.end(), base, false)
                    .asking(Form::Main, Needs::Nothing),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::kept;

    #[test]
    fn finds_addresses_and_leaves_trailing_punctuation_outside() {
        let r = EmailRecognizer::new();
        assert_eq!(
            kept(&r, "Schreiben Sie an erika.mustermann@beispiel.de."),
            vec!["erika.mustermann@beispiel.de".to_owned()]
        );
    }

    #[test]
    fn lowercase_comparison_as_to_lowercase() {
        for (s, lower) in [
            ("PNG", "png"),
            ("png", "png"),
            ("pnG", "pn"),
            ("Info", "info"),
            ("\u{212A}ontakt", "kontakt"),
            ("Jörg", "jorg"),
            ("", ""),
        ] {
            assert_eq!(lowercase_in(s, &[lower]), s.to_lowercase() == lower, "{s}");
        }
        let r = EmailRecognizer::new();
        assert!(kept(&r, "Logo: logo@2x.PNG im Anhang").is_empty());
    }

    #[test]
    fn a_single_label_domain_is_no_address() {
        let r = EmailRecognizer::new();
        assert!(kept(&r, "root@localhost hat sich angemeldet").is_empty());
        assert!(kept(&r, "Preis: 3 @ 5 Euro").is_empty());
    }
}
