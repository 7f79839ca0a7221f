//! URLs (entities.md §14): with scheme or `www.`, and bare domains with a path or an
//! allow-listed TLD. Trailing punctuation and unbalanced closing brackets stay outside.

use regex::Regex;

use super::cand;
use crate::detect::{Candidate, EntityType, Recognizer, Text};

pub struct UrlRecognizer {
    pattern: Regex,
}

const BARE_TLDS: &str = "de|at|ch|li|eu|com|org|net|info|io|biz|me|online|shop|app|dev";

impl UrlRecognizer {
    pub fn new() -> Self {
        let src = format!(
            r#"(?i)(?:(?:https?|ftps?|sftp|wss?)://|www\.)[^\s<>"'`«»“”„]+|(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.)+(?:{BARE_TLDS})(?:/[^\s<>"'`«»“”„]*)?"#
        );
        let pattern = Regex::new(&src).expect("static URL pattern");
        UrlRecognizer { pattern }
    }
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

impl Recognizer for UrlRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Url
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in super::find_in(
            &self.pattern,
            s,
            &super::super::text::windows_around(s, |b| b == b'.' || b == b'/', 80, 260),
        ) {
            let start = m.start();
            let prev = s[..start].chars().next_back();
            let v = trim_url(m.as_str());
            let lower = v.to_ascii_lowercase();
            let explicit = lower.contains("://") || lower.starts_with("www.");
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
            if v.len() < 4 {
                continue;
            }
            let personal = [
                "/in/",
                "/profile",
                "facebook.com/",
                "instagram.com/",
                "x.com/",
                "twitter.com/",
                "github.com/",
                "tiktok.com/@",
                "name=",
                "email=",
                "user=",
                "userid=",
                "token=",
                "session=",
            ]
            .iter()
            .any(|p| lower.contains(p));
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
