//! URLs (docs/entities.md §14): with scheme or `www.`, and bare domains with a path or an
//! allow-listed TLD. Trailing punctuation and unbalanced closing brackets stay outside.

use aho_corasick::AhoCorasick;
use regex::Regex;

use super::cand;
use crate::lexicon::Lexicon;
use crate::{Candidate, EntityType, Recognizer, Text};

pub struct UrlRecognizer {
    pattern: Regex,
    /// Path and query parts that point at a person (`url_personal_parts`), case-insensitive.
    personal: AhoCorasick,
}

impl UrlRecognizer {
    pub fn new() -> Self {
        let lists = &Lexicon::get().lists;
        let tlds = lists
            .url_bare_tlds
            .iter()
            .map(|t| regex::escape(t))
            .collect::<Vec<_>>()
            .join("|");
        let src = format!(
            r#"(?i)(?:(?:https?|ftps?|sftp|wss?)://|www\.)[^\s<>"'`«»“”„]+|(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.)+(?:{tlds})(?:/[^\s<>"'`«»“”„]*)?"#
        );
        let pattern = Regex::new(&src).expect("static URL pattern");
        let personal = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&lists.url_personal_parts)
            .expect("static URL parts");
        UrlRecognizer { pattern, personal }
    }
}

/// True for the ASCII bytes no match contains: whitespace and the excluded quotes/brackets.
/// (Unicode spaces and quotes are never ASCII, so a token may run over them; the pattern still
/// stops there.)
fn delimiter(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ' | b'<' | b'>' | b'"' | b'\'' | b'`')
}

/// True when the dot at `i` may be part of a match: `www.`, or a dot directly followed by an
/// allow-listed TLD (the last dot of a bare domain). A non-ASCII byte after the dot counts
/// too, as case-insensitive matching lets `ſ` (long s) stand for `s`.
fn dot_may_match(b: &[u8], i: usize) -> bool {
    let www = i >= 3 && b[i - 3..i].eq_ignore_ascii_case(b"www");
    let rest = b.get(i + 1..).unwrap_or(&[]);
    match rest.first() {
        Some(c) if !c.is_ascii() => true,
        Some(c) if c.is_ascii_alphabetic() => {
            // the first letter rules out most TLDs before a comparison
            let first = c.to_ascii_lowercase();
            www || Lexicon::get().lists.url_bare_tlds.iter().any(|tld| {
                tld.as_bytes()[0] == first
                    && rest
                        .get(..tld.len())
                        .is_some_and(|r| r.eq_ignore_ascii_case(tld.as_bytes()))
            })
        }
        _ => www,
    }
}

/// Where the pattern can match: the tokens (runs of non-[`delimiter`] bytes) holding a `://`
/// or a dot that [`dot_may_match`]. Every match lies inside one token and needs one of these,
/// so the pattern skips plain prose, sentence ends and numbers. Tokens whose every such dot is
/// in an e-mail address's domain ([`mail_domains_only`]) are left out too.
fn tokens(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out: Vec<(usize, usize)> = Vec::new();
    // The end of the last token read, kept or not.
    let mut read_to = 0;
    for i in memchr::memchr2_iter(b'.', b':', b) {
        if i < read_to {
            continue;
        }
        let hit = if b[i] == b':' {
            b.get(i + 1..i + 3) == Some(b"//")
        } else {
            dot_may_match(b, i)
        };
        if !hit {
            continue;
        }
        let start = b[..i]
            .iter()
            .rposition(|&c| delimiter(c))
            .map_or(0, |p| p + 1);
        let end = b[i..]
            .iter()
            .position(|&c| delimiter(c))
            .map_or(b.len(), |p| i + p);
        read_to = end;
        if !mail_domains_only(b, start, end) {
            out.push((start, end));
        }
    }
    out
}

/// True when the token `b[start..end]` holds no `://` and no `www.`, and each of its dots that
/// [`dot_may_match`] lies in a run of ASCII letters, digits, dots and hyphens that directly
/// follows an `@` (`k.lange@beispiel.de`). Every match in such a token is then a bare domain
/// inside such a run (a domain holds no `@`), so it starts right after the `@` or after a
/// letter, digit, dot or hyphen, and `recognize` drops it: the token needs no search. Most
/// tokens that reach the pattern in mail-heavy text are e-mail addresses.
fn mail_domains_only(b: &[u8], start: usize, end: usize) -> bool {
    let token = &b[start..end];
    if token.windows(3).any(|w| w == b"://")
        || token.windows(4).any(|w| w.eq_ignore_ascii_case(b"www."))
    {
        return false;
    }
    let label = |c: u8| c.is_ascii_alphanumeric() || c == b'.' || c == b'-';
    memchr::memchr_iter(b'.', token)
        .map(|i| start + i)
        .filter(|&dot| dot_may_match(b, dot))
        .all(|dot| {
            let before = b[start..dot].iter().rposition(|&c| !label(c));
            before.is_some_and(|p| b[start + p] == b'@')
        })
}

/// Strips trailing punctuation and closing brackets that are not balanced inside the URL.
fn trim_url(v: &str) -> &str {
    let mut v = v;
    loop {
        let before = v.len();
        v = v.trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '*']);
        for (open, close) in [('(', ')'), ('[', ']'), ('{', '}')] {
            if v.ends_with(close) && v.matches(close).count() > v.matches(open).count() {
                v = &v[..v.len() - 1];
            }
        }
        if v.len() == before {
            return v;
        }
    }
}

/// Whether a URL with a scheme or `www.` names a host after it: a bare scheme (`https://` in
/// "do not use URIs like file:// or https://") is the name of a scheme, no address.
fn has_host(v: &str) -> bool {
    let rest = match v.find("://") {
        Some(i) => &v[i + 3..],
        None => v.get(4..).unwrap_or(""),
    };
    rest.chars().next().is_some_and(char::is_alphanumeric)
}

impl Recognizer for UrlRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Url
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in super::find_in(&self.pattern, s, &tokens(s)) {
            let start = m.start();
            let prev = s[..start].chars().next_back();
            let v = trim_url(m.as_str());
            // a byte scan: `str::contains` sets up a substring searcher for a few dozen bytes
            let explicit = v.as_bytes().windows(3).any(|w| w == b"://")
                || v.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("www."));
            if !explicit {
                // Bare domain: not glued to a word, an address or a path.
                if prev.is_some_and(|c| {
                    c.is_alphanumeric() || matches!(c, '@' | '.' | '/' | '-' | '_')
                }) {
                    continue;
                }
                let next = s[m.end()..].chars().next();
                if next.is_some_and(|c| c.is_alphanumeric() || c == '@') {
                    continue;
                }
            } else if prev.is_some_and(char::is_alphanumeric) {
                continue;
            }
            if v.len() < 4 || (explicit && !has_host(v)) {
                continue;
            }
            let personal = self.personal.is_match(v);
            let base = if explicit {
                0.75
            } else if v.contains('/') {
                0.6
            } else {
                0.5
            };
            let score: f32 = if personal { base + 0.2 } else { base };
            out.push(cand(
                EntityType::Url,
                start,
                start + v.len(),
                score.min(1.0),
                false,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::kept;

    #[test]
    fn a_bare_scheme_is_no_url() {
        let text = "Do not use URIs like file://, vscode://, or https://. See https://x.de/a.";
        let r = UrlRecognizer::new();
        let mut out = Vec::new();
        r.recognize(&Text::new(text), &mut out);
        let found: Vec<&str> = out.iter().map(|c| &text[c.start..c.end]).collect();
        assert_eq!(found, ["https://x.de/a"]);
    }

    #[test]
    fn scheme_and_www_forms_without_trailing_punctuation() {
        let r = UrlRecognizer::new();
        assert_eq!(
            kept(&r, "Siehe https://beispiel.de/profil/anna."),
            vec!["https://beispiel.de/profil/anna".to_owned()]
        );
        assert_eq!(
            kept(&r, "(www.beispiel.de)"),
            vec!["www.beispiel.de".to_owned()]
        );
    }

    #[test]
    fn e_mail_domains_are_not_searched_and_nothing_else_is_left_out() {
        let b = |t: &str| mail_domains_only(t.as_bytes(), 0, t.len());
        assert!(b("k0.lange@beispiel.de,"));
        assert!(b("maria.keller@example.org"));
        // a domain that may be a URL of its own: before the `@`, after a `+`, or with `www.`
        assert!(!b("a.de,b@c.de"));
        assert!(!b("x@a+b.de"));
        assert!(!b("x@www.beispiel.de"));
        assert!(!b("https://user@beispiel.de/x"));
        assert!(!b("beispiel.de"));
        // whatever the shortcut decides, the recognizer keeps what the pattern alone would
        let r = UrlRecognizer::new();
        for (text, urls) in [
            ("Mail an k0.lange@beispiel.de, bitte.", vec![]),
            ("a.de,b@c.de", vec!["a.de"]),
            ("x@a+b.de", vec!["b.de"]),
            (
                "Profil: https://user@beispiel.de/x",
                vec!["https://user@beispiel.de/x"],
            ),
            ("siehe x@www.beispiel.de", vec!["www.beispiel.de"]),
        ] {
            assert_eq!(kept(&r, text), urls, "{text}");
        }
    }

    proptest::proptest! {
        /// In a token the shortcut leaves out, every match of the pattern is a bare domain that
        /// starts after an `@` or a letter, digit, dot or hyphen: one `recognize` drops.
        #[test]
        fn a_token_left_out_holds_only_matches_that_are_dropped(
            t in "[a-zA-Z0-9.@+_/:,ſ-]{1,24}(de|com|org)?"
        ) {
            static URL: std::sync::LazyLock<UrlRecognizer> =
                std::sync::LazyLock::new(UrlRecognizer::new);
            if mail_domains_only(t.as_bytes(), 0, t.len()) {
                for m in URL.pattern.find_iter(&t) {
                    let v = m.as_str();
                    proptest::prop_assert!(!v.contains("://") && !v.to_ascii_lowercase().starts_with("www."));
                    let prev = t[..m.start()].chars().next_back();
                    proptest::prop_assert!(
                        prev.is_some_and(|c| c == '@' || c == '.' || c == '-' || c.is_ascii_alphanumeric()),
                        "{t}: {v}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_decimal_number_is_no_domain() {
        let r = UrlRecognizer::new();
        assert!(kept(&r, "Das kostet 3.50 Euro").is_empty());
    }
}
