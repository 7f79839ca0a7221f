//! Word segmentation of the matching view, shared by the recognizers that work on words
//! (PERSON, LOCATION). One pass, no allocation per word beyond the output vector.

/// Letter case shape of a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `Müller`, `Hans-Peter`, `McDonald`, `O'Neill`: uppercase first, some lowercase after.
    Capitalised,
    /// `MÜLLER`, `A` (a single uppercase letter counts here too).
    Upper,
    /// `müller`.
    Lower,
    /// Anything else (`eBay`, mixed with digits is never a word here).
    Other,
    /// Letters of a script without case (Arabic, Hebrew, CJK …).
    Uncased,
}

/// One word: a run of letters, possibly joined by inner hyphens or apostrophes
/// (`Hans-Peter`, `O'Neill`). Byte offsets into the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word {
    pub start: usize,
    pub end: usize,
    pub shape: Shape,
    /// Holds a `-` (`Hans-Peter`): the parts may be names of their own.
    pub hyphen: bool,
}

impl Word {
    pub fn text<'a>(&self, s: &'a str) -> &'a str {
        s.get(self.start..self.end).unwrap_or("")
    }
}

/// Letters plus combining diacritical marks (`i̇` = `i` + U+0307).
fn is_letter(c: char) -> bool {
    c.is_alphabetic() || ('\u{300}'..='\u{36f}').contains(&c)
}

fn is_joiner(c: char) -> bool {
    matches!(c, '-' | '\'' | '’')
}

/// The code point at byte `i` of `s` (a char boundary) and its length; ASCII without decoding.
#[inline]
fn char_at(s: &str, i: usize) -> Option<(char, usize)> {
    match s.as_bytes().get(i) {
        Some(&b) if b.is_ascii() => Some((char::from(b), 1)),
        Some(_) => s.get(i..)?.chars().next().map(|c| (c, c.len_utf8())),
        None => None,
    }
}

/// Class bits of an ASCII byte for [`tokenize`]: one table load instead of several range tests
/// per byte (the word loop runs over most bytes of a text).
const LOWER: u8 = 1;
const UPPER: u8 = 2;
/// A byte that needs a closer look inside a word: not ASCII, or a joiner (`-`, `'`).
const SLOW: u8 = 4;
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b.is_ascii_lowercase() {
            LOWER
        } else if b.is_ascii_uppercase() {
            UPPER
        } else if !b.is_ascii() || b == b'-' || b == b'\'' {
            SLOW
        } else {
            0
        };
        i += 1;
    }
    t
};

/// Splits `s` into words. Digits end a word and are not part of any word. ASCII bytes, the
/// bulk of most texts, are classified by [`CLASS`] without decoding a `char`; a word's shape
/// needs only whether it holds some upper- and some lower-case letter, so the letters' case
/// bits are or-ed, not counted.
pub fn tokenize(s: &str) -> Vec<Word> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(s.len() / 6);
    let mut i = 0;
    while let Some(&b0) = b.get(i) {
        if b0.is_ascii() && CLASS[usize::from(b0)] & (LOWER | UPPER) == 0 {
            i += 1;
            continue;
        }
        // The first letter's case bits and length: ASCII and Latin-1 from the bytes, the rest
        // decoded (a word starts with a letter, not with a combining mark).
        let (first, len) = if b0.is_ascii() {
            (CLASS[usize::from(b0)], 1)
        } else if let Some(k) = latin1_case(b0, b.get(i + 1).copied()) {
            (k, 2)
        } else {
            let Some((c, len)) = char_at(s, i) else {
                break;
            };
            if !c.is_alphabetic() {
                i += len;
                continue;
            }
            (case_bits(c), len)
        };
        let start = i;
        let mut end = i + len;
        let first_upper = first & UPPER != 0;
        // LOWER and UPPER bits of every letter seen.
        let mut seen = first;
        let mut hyphen = false;
        while let Some(&d0) = b.get(end) {
            let k = CLASS[usize::from(d0)];
            if k & (LOWER | UPPER) != 0 {
                seen |= k;
                end += 1;
                continue;
            }
            if k & SLOW == 0 {
                break;
            }
            if let Some(k) = latin1_case(d0, b.get(end + 1).copied()) {
                seen |= k;
                end += 2;
                continue;
            }
            let Some((d, dlen)) = char_at(s, end) else {
                break;
            };
            if is_letter(d) {
                seen |= case_bits(d);
            } else if is_joiner(d) && char_at(s, end + dlen).is_some_and(|(e, _)| is_letter(e)) {
                // Only a joiner between two letters belongs to the word.
                hyphen |= d == '-';
            } else {
                break;
            }
            end += dlen;
        }
        let (upper, lower) = (seen & UPPER != 0, seen & LOWER != 0);
        let shape = if !upper && !lower {
            Shape::Uncased
        } else if first_upper && lower {
            Shape::Capitalised
        } else if !lower {
            Shape::Upper
        } else if !upper {
            Shape::Lower
        } else {
            Shape::Other
        };
        out.push(Word {
            start,
            end,
            shape,
            hyphen,
        });
        i = end;
    }
    out
}

/// [`LOWER`] or [`UPPER`] of the Latin-1 letter `À`–`ÿ` (but `×`, `÷`) encoded as `lead`, `next`
/// (lead byte C3): the non-ASCII letters of German and most Western European text, classified
/// without decoding or a Unicode table look-up (`À`–`Þ` upper case, `ß`–`ÿ` lower case). `None`
/// for every other code point.
#[inline]
fn latin1_case(lead: u8, next: Option<u8>) -> Option<u8> {
    match (lead, next) {
        (0xC3, Some(n @ 0x80..=0xBF)) if n != 0x97 && n != 0xB7 => {
            Some(if n < 0x9F { UPPER } else { LOWER })
        }
        _ => None,
    }
}

/// [`LOWER`] and [`UPPER`] of a letter (both for none: a letter without case has neither).
fn case_bits(c: char) -> u8 {
    (u8::from(c.is_lowercase()) * LOWER) | (u8::from(c.is_uppercase()) * UPPER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_words_with_joiners() {
        let s = "Hans-Peter O'Neill, müller- 12ab GROSS";
        let w = tokenize(s);
        let texts: Vec<&str> = w.iter().map(|w| w.text(s)).collect();
        assert_eq!(
            texts,
            vec!["Hans-Peter", "O'Neill", "müller", "ab", "GROSS"]
        );
        assert_eq!(w[0].shape, Shape::Capitalised);
        assert_eq!(w[2].shape, Shape::Lower);
        assert_eq!(w[4].shape, Shape::Upper);
    }

    /// The plain char-by-char reading, which [`tokenize`] and its ASCII fast path must equal.
    fn tokenize_chars(s: &str) -> Vec<Word> {
        let mut out = Vec::new();
        let mut i = 0;
        while let Some((c, len)) = char_at(s, i) {
            if !c.is_alphabetic() {
                i += len;
                continue;
            }
            let (start, mut end) = (i, i + len);
            let (mut upper, mut lower) =
                (usize::from(c.is_uppercase()), usize::from(c.is_lowercase()));
            while let Some((d, dlen)) = char_at(s, end) {
                if is_letter(d) {
                    upper += usize::from(d.is_uppercase());
                    lower += usize::from(d.is_lowercase());
                    end += dlen;
                } else if is_joiner(d) && char_at(s, end + dlen).is_some_and(|(e, _)| is_letter(e))
                {
                    end += dlen;
                } else {
                    break;
                }
            }
            let shape = match (c.is_uppercase(), upper, lower) {
                (_, 0, 0) => Shape::Uncased,
                (true, _, l) if l > 0 => Shape::Capitalised,
                (_, u, 0) if u > 0 => Shape::Upper,
                (_, 0, _) => Shape::Lower,
                _ => Shape::Other,
            };
            let hyphen = s[start..end].contains('-');
            out.push(Word {
                start,
                end,
                shape,
                hyphen,
            });
            i = end;
        }
        out
    }

    #[test]
    fn ascii_fast_path_splits_as_chars_do() {
        for s in [
            "Hans-Peter O'Neill, müller- 12ab GROSS",
            "l’Oréal Łódź-Süd i̇stanbul ÆSIR eBay x2y --a- 'b' ’c’",
            "ÀÖØÞßàöøÿ ×÷ x×y Ä÷ä ß-Straße Ÿves µ ªb º",
            "Ahmed al-Farsi (محمد) 東京 Straße\u{a0}1, CH-8001 Zürich…",
            "",
            "-",
            "a",
            "É",
        ] {
            assert_eq!(tokenize(s), tokenize_chars(s), "{s}");
        }
        let latin: String = ('\u{80}'..='\u{24f}')
            .flat_map(|c| [c, 'a', c, ' '])
            .collect();
        assert_eq!(tokenize(&latin), tokenize_chars(&latin));
    }
}
