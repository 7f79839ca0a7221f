//! The target grammar: what opens a target in prose ([`Tail::entry`]) and what ends it
//! ([`Tail::next`]), as CommonMark, HTML, CSS and URL parsers read them, judged from the last
//! bytes read (the [`Tail`]).

/// Bytes of text remembered for entries recognized by what precedes them (`href =`, `<mailto:`).
pub(super) const TAIL: usize = 40;

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
pub(super) enum End {
    /// After `](` or CSS `url(`: whitespace with one line ending at most, then a destination.
    ParenLead { line: bool },
    /// A markdown destination or CSS `url(` value: ends at its unbalanced `)` or whitespace;
    /// `\` escapes the next byte.
    Paren { depth: u8, escaped: bool },
    /// A `<…>` destination: ends at an unescaped `>` or a line ending.
    AngleDest { escaped: bool },
    /// An autolink: ends at `>` or whitespace.
    Angle,
    /// A quoted value: ends at its quote.
    Quote(u8),
    /// After a URL attribute's `=`: whitespace, then a quoted or unquoted value.
    AttrLead,
    /// An unquoted attribute value: ends at whitespace or `>`.
    Unquoted,
    /// A bare URL or reference destination: ends at whitespace, `<`, `>` or `"` (a URL parser
    /// keeps `'` and reads `\` as `/`).
    Space,
    /// After `]:`: whitespace with one line ending at most, then a destination.
    RefLead { line: bool },
    /// A URL that is a whole value (a tool argument's string): ends with the value.
    Value,
}

/// The last bytes read, and how far the start of a whole value may still begin a URL.
#[derive(Debug, Clone)]
pub(super) struct Tail {
    bytes: [u8; TAIL],
    /// Bytes seen so far (`bytes` holds the last `TAIL` of them).
    seen: usize,
    /// In a whole value (a tool argument's string), how far what was read since its start may
    /// still begin a URL: a URL found while it may is the value.
    lead: Lead,
}

impl Default for Tail {
    fn default() -> Tail {
        Tail {
            bytes: [0; TAIL],
            seen: 0,
            lead: Lead::None,
        }
    }
}

/// How far the start of a whole value may still begin a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lead {
    /// Not in a whole value, or past what may begin a URL.
    None,
    /// Only leading whitespace so far.
    Space,
    /// Leading whitespace, then a scheme (`https:`), `www.` or slashes.
    Scheme,
}

/// Whether `c` may come before a URL's `//` or `www.`'s dot at the start of a value.
fn may_begin_url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-' | b':' | b'/')
}

impl Tail {
    /// A whole value starts: a URL it begins with is the value.
    pub(super) fn start_value(&mut self) {
        self.lead = Lead::Space;
    }

    /// Not in a whole value (any more).
    pub(super) fn end_value(&mut self) {
        self.lead = Lead::None;
    }

    /// Remembers byte `c`, read after every decision on it.
    pub(super) fn push(&mut self, c: u8) {
        self.lead = match self.lead {
            Lead::Space if c.is_ascii_whitespace() => Lead::Space,
            Lead::Space | Lead::Scheme if may_begin_url(c) => Lead::Scheme,
            _ => Lead::None,
        };
        self.bytes[self.seen % TAIL] = c;
        self.seen += 1;
    }

    /// The byte `k` positions before the next one (`k` ≥ 1), if remembered.
    fn back(&self, k: usize) -> Option<u8> {
        (k <= TAIL && k <= self.seen).then(|| self.bytes[(self.seen - k) % TAIL])
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

    /// A bare URL: the whole value when it is what the value starts with, else up to its end.
    fn bare_url(&self) -> End {
        if self.lead != Lead::None {
            End::Value
        } else {
            End::Space
        }
    }

    /// The target that byte `c`, read in prose, opens.
    pub(super) fn entry(&self, c: u8) -> Option<End> {
        match c {
            b'(' if self.ends_with(b"]") => Some(End::ParenLead { line: false }),
            b'(' if self.ends_with(b"url") && self.word_start(3) => {
                Some(End::ParenLead { line: false })
            }
            b'=' if self.after_url_attribute() => Some(End::AttrLead),
            b'/' if self.ends_with(b":/") => Some(self.bare_url()),
            // `//host` that a tool argument's string starts with
            b'/' if self.ends_with(b"/") && self.lead == Lead::Scheme => Some(End::Value),
            b'.' if self.ends_with(b"www") && self.word_start(3) => Some(self.bare_url()),
            b':' if self.ends_with(b"]") => Some(End::RefLead { line: false }),
            b':' if self.ends_with(b"mailto") && self.word_start(6) => Some(self.bare_url()),
            b':' if self.after_autolink_scheme() => Some(End::Angle),
            _ => None,
        }
    }

    /// The state after byte `c` inside a target that ends as `end` says.
    pub(super) fn next(&self, end: End, c: u8) -> Option<End> {
        let space = c.is_ascii_whitespace();
        let line = c == b'\n' || c == b'\r';
        match end {
            End::ParenLead { line: seen } | End::RefLead { line: seen } if line => {
                // `\r\n` is one line ending; a second one ends the target (a blank line)
                let crlf = c == b'\n' && self.back(1) == Some(b'\r');
                (!seen || crlf).then_some(match end {
                    End::ParenLead { .. } => End::ParenLead { line: true },
                    _ => End::RefLead { line: true },
                })
            }
            End::ParenLead { .. } | End::RefLead { .. } if space => Some(end),
            End::ParenLead { .. } => Some(match c {
                b'<' => End::AngleDest { escaped: false },
                b')' => return None,
                b'"' | b'\'' => End::Quote(c),
                _ => {
                    let start = End::Paren {
                        depth: 0,
                        escaped: false,
                    };
                    return paren(start, c);
                }
            }),
            End::RefLead { .. } if c == b'<' => Some(End::AngleDest { escaped: false }),
            End::RefLead { .. } => Some(End::Space),
            End::Paren { .. } if space => None,
            End::Paren { .. } => paren(end, c),
            End::AngleDest { escaped: true } => Some(End::AngleDest { escaped: false }),
            End::AngleDest { .. } => match c {
                b'\\' => Some(End::AngleDest { escaped: true }),
                b'>' | b'\n' | b'\r' => None,
                _ => Some(end),
            },
            End::Angle => (!space && c != b'>').then_some(end),
            End::Quote(q) => (c != q).then_some(end),
            End::AttrLead if space => Some(end),
            End::AttrLead => match c {
                b'"' | b'\'' => Some(End::Quote(c)),
                b'>' => None,
                _ => Some(End::Unquoted),
            },
            End::Unquoted => (!space && c != b'>').then_some(end),
            End::Space => {
                (!space && !c.is_ascii_control() && !matches!(c, b'"' | b'<' | b'>')).then_some(end)
            }
            End::Value => Some(end),
        }
    }

    /// `name=` (whitespace on either side) of a URL attribute: the byte before `=` is next.
    fn after_url_attribute(&self) -> bool {
        let mut k = 1;
        while self.back(k).is_some_and(|c| c.is_ascii_whitespace()) {
            k += 1;
        }
        if k > TAIL {
            // whitespace past what is remembered: maybe an attribute's
            return true;
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

/// The state after non-whitespace byte `c` inside a [`End::Paren`] destination, or `None`
/// when `c` closes it.
fn paren(end: End, c: u8) -> Option<End> {
    let End::Paren { depth, escaped } = end else {
        return Some(end);
    };
    if escaped {
        return Some(End::Paren {
            depth,
            escaped: false,
        });
    }
    Some(match c {
        b'\\' => End::Paren {
            depth,
            escaped: true,
        },
        b'(' => End::Paren {
            depth: depth.saturating_add(1),
            escaped: false,
        },
        b')' if depth == 0 => return None,
        b')' => End::Paren {
            depth: depth - 1,
            escaped: false,
        },
        _ => end,
    })
}
