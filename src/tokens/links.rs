//! Where a reply's text is a link or image target the model chose: markdown `[text](target)`
//! and `![alt](target)`, reference definitions `[id]: target`, autolinks `<scheme:…>`, HTML
//! `href` / `src` (and the other URL attributes) values, CSS `url(…)`, and bare URLs
//! (`scheme://…`, `www.…`, `mailto:…`). A front-end follows or loads such targets by itself, so
//! a value restored there would leave the client for a host the model picked; the restorer
//! leaves tokens in targets as the model wrote them (`docs/proxy.md`, "Link targets").
//!
//! [`LinkContext`] reads a text forward, byte by byte, remembering only a short tail: it can be
//! fed a stream in pieces without holding anything back, and says at any point whether the
//! next byte lies inside a target.

/// Bytes of text remembered for entries recognized by what precedes them (`href="`, `<mailto:`).
const TAIL: usize = 40;
/// The longest scheme of an autolink (`<scheme:…>`); CommonMark allows 32.
const MAX_SCHEME: usize = 32;

/// Attributes whose values are URLs a browser follows or loads.
const URL_ATTRIBUTES: &[&[u8]] = &[
    b"href",
    b"src",
    b"srcset",
    b"action",
    b"formaction",
    b"poster",
    b"background",
    b"cite",
    b"data",
    b"xlink:href",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// A markdown destination or CSS `url(`: ends at its closing parenthesis or at whitespace.
    Paren { depth: u8 },
    /// An autolink: ends at `>` or whitespace.
    Angle,
    /// A quoted attribute value: ends at its quote.
    Quote(u8),
    /// A bare URL or reference destination: ends at whitespace, a quote, `<`, `>` or `\`.
    Space,
    /// After `]:`: spaces, then a [`End::Space`] target (a line break ends it).
    Lead,
}

/// The position of a reader in a text: in prose or inside a link target.
#[derive(Debug, Clone)]
pub(crate) struct LinkContext {
    target: Option<End>,
    tail: [u8; TAIL],
    /// Bytes seen so far (the tail holds the last `TAIL` of them).
    seen: usize,
}

impl Default for LinkContext {
    fn default() -> LinkContext {
        LinkContext {
            target: None,
            tail: [0; TAIL],
            seen: 0,
        }
    }
}

impl LinkContext {
    /// Whether the next byte fed lies inside a link or image target (right after `]:` it
    /// does: a token cannot start with the spaces that may come first).
    pub(crate) fn in_target(&self) -> bool {
        self.target.is_some()
    }

    /// Reads `bytes`, the text's next bytes.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &c in bytes {
            self.target = match self.target {
                None => self.entry(c),
                Some(end) => next(end, c),
            };
            self.tail[self.seen % TAIL] = c;
            self.seen += 1;
        }
    }

    /// The byte `k` positions before the next one (`k` ≥ 1), if remembered.
    fn back(&self, k: usize) -> Option<u8> {
        (k <= TAIL && k <= self.seen).then(|| self.tail[(self.seen - k) % TAIL])
    }

    /// Whether the remembered text ends with `s` (ASCII case-insensitive).
    fn ends_with(&self, s: &[u8]) -> bool {
        s.iter()
            .rev()
            .enumerate()
            .all(|(k, &b)| self.back(k + 1).is_some_and(|c| c.eq_ignore_ascii_case(&b)))
    }

    /// Whether the byte before the last `n` starts a word (none, or not alphanumeric).
    fn word_start(&self, n: usize) -> bool {
        self.back(n + 1).is_none_or(|c| !c.is_ascii_alphanumeric())
    }

    /// The target that byte `c`, read in prose, opens.
    fn entry(&self, c: u8) -> Option<End> {
        match c {
            b'(' if self.ends_with(b"]") => Some(End::Paren { depth: 0 }),
            b'(' if self.ends_with(b"url") && self.word_start(3) => Some(End::Paren { depth: 0 }),
            b'"' | b'\'' if self.after_url_attribute() => Some(End::Quote(c)),
            b'/' if self.ends_with(b":/") => Some(End::Space),
            b'.' if self.ends_with(b"www") && self.word_start(3) => Some(End::Space),
            b':' if self.ends_with(b"]") => Some(End::Lead),
            b':' if self.ends_with(b"mailto") && self.word_start(6) => Some(End::Space),
            b':' if self.after_autolink_scheme() => Some(End::Angle),
            _ => None,
        }
    }

    /// `name=` or `name = ` of a URL attribute just before.
    fn after_url_attribute(&self) -> bool {
        let mut k = 1;
        while self.back(k).is_some_and(|c| c == b' ') {
            k += 1;
        }
        if self.back(k) != Some(b'=') {
            return false;
        }
        k += 1;
        while self.back(k).is_some_and(|c| c == b' ') {
            k += 1;
        }
        let name_end = k;
        while self
            .back(k)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b':')
        {
            k += 1;
        }
        let len = k - name_end;
        URL_ATTRIBUTES.iter().any(|a| {
            a.len() == len
                && a.iter().enumerate().all(|(j, &b)| {
                    self.back(k - 1 - j)
                        .is_some_and(|c| c.eq_ignore_ascii_case(&b))
                })
        })
    }

    /// `<scheme` just before (a letter, then letters, digits, `+`, `.`, `-`).
    fn after_autolink_scheme(&self) -> bool {
        let mut k = 1;
        while k <= MAX_SCHEME
            && self
                .back(k)
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
        {
            k += 1;
        }
        k > 2
            && self.back(k) == Some(b'<')
            && self.back(k - 1).is_some_and(|c| c.is_ascii_alphabetic())
    }
}

/// The state after byte `c` inside a target that ends as `end` says.
fn next(end: End, c: u8) -> Option<End> {
    let space = c.is_ascii_whitespace();
    match end {
        End::Paren { .. } if space => None,
        End::Paren { depth } => match c {
            b'(' => Some(End::Paren {
                depth: depth.saturating_add(1),
            }),
            b')' if depth == 0 => None,
            b')' => Some(End::Paren { depth: depth - 1 }),
            _ => Some(end),
        },
        End::Angle => (!space && c != b'>').then_some(end),
        End::Quote(q) => (c != q).then_some(end),
        End::Space => (!space && !matches!(c, b'"' | b'\'' | b'<' | b'>' | b'\\')).then_some(end),
        End::Lead => match c {
            b' ' | b'\t' => Some(End::Lead),
            _ if space => None,
            _ => Some(End::Space),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of `text` that lie inside a target, marked `^`, fed in pieces of `piece`.
    fn marks(text: &str, piece: usize) -> String {
        let mut cx = LinkContext::default();
        let mut out = String::new();
        for chunk in text.as_bytes().chunks(piece) {
            for &b in chunk {
                out.push(if cx.in_target() { '^' } else { ' ' });
                cx.feed(&[b]);
            }
        }
        out
    }

    #[test]
    fn marks_the_targets_of_every_kind() {
        let cases = [
            ("![a](http://x/y) z", "     ^^^^^^^^^^^  "),
            ("[t](u(v)) w", "    ^^^^^  "),
            ("<mailto:e> f", "        ^^  "),
            ("<a href=\"u v\">t</a>", "         ^^^^"),
            ("<img SRC = 'q'>", "            ^^  "),
            ("s https://h/p?q x", "          ^^^^^^"),
            ("w www.h.de x", "      ^^^^^"),
            ("[r]:  u x\n[s]:\nt", "    ^^^^      ^"),
            ("mailto:e, f", "       ^^^"),
            ("style=\"background:url(u)\"", "                      ^^"),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(text, want)| marks(text, 1).trim_end() != want.trim_end())
            .map(|(text, _)| format!("{text}\n{}|", marks(text, 1)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        for (text, _) in cases {
            let got = marks(text, 1);
            for piece in [2, 3, 7] {
                assert_eq!(marks(text, piece), got, "{text} in pieces of {piece}");
            }
        }
    }

    #[test]
    fn prose_stays_prose() {
        for text in [
            "Herr Maier (Kunde) schreibt: danke.",
            "a = \"b\" und href ohne Gleich \"c\"",
            "Vorlage [1] und (2), Uhrzeit 12:30, <b>fett</b>",
            "the url (siehe oben) and my www-Seite",
        ] {
            assert_eq!(marks(text, 1).trim(), "", "{text}");
        }
    }
}
