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

/// Splits `s` into words. Digits end a word and are not part of any word.
pub fn tokenize(s: &str) -> Vec<Word> {
    let mut out = Vec::with_capacity(s.len() / 6);
    let mut iter = s.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if !c.is_alphabetic() {
            continue;
        }
        let start = i;
        let mut end = i + c.len_utf8();
        let (mut upper, mut lower) = (usize::from(c.is_uppercase()), usize::from(c.is_lowercase()));
        let first_upper = c.is_uppercase();
        loop {
            match iter.peek() {
                Some(&(j, d)) if is_letter(d) => {
                    upper += usize::from(d.is_uppercase());
                    lower += usize::from(d.is_lowercase());
                    end = j + d.len_utf8();
                    iter.next();
                }
                Some(&(_, d)) if is_joiner(d) => {
                    // Only a joiner between two letters belongs to the word.
                    let mut ahead = iter.clone();
                    ahead.next();
                    match ahead.peek() {
                        Some(&(_, e)) if is_letter(e) => {
                            iter.next();
                        }
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        let shape = if upper == 0 && lower == 0 {
            Shape::Uncased
        } else if first_upper && lower > 0 {
            Shape::Capitalised
        } else if lower == 0 && upper > 0 {
            Shape::Upper
        } else if upper == 0 {
            Shape::Lower
        } else {
            Shape::Other
        };
        out.push(Word { start, end, shape });
    }
    out
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
}
