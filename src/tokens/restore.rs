use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};

/// Replaces known tokens by their values in one left-to-right pass; all other text, including
/// token-like text that is not in the mapping, is copied unchanged.
pub struct Restorer {
    matcher: Option<AhoCorasick>,
    values: Vec<String>,
}

impl Restorer {
    /// Builds a restorer from `(token, value)` pairs. Empty tokens are ignored; for a token listed
    /// twice the first value wins.
    pub fn new<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Restorer {
        let mut seen: HashMap<&str, ()> = HashMap::new();
        let mut tokens = Vec::new();
        let mut values = Vec::new();
        for (token, value) in pairs {
            if !token.is_empty() && seen.insert(token, ()).is_none() {
                tokens.push(token);
                values.push(value.to_owned());
            }
        }
        let matcher = if tokens.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&tokens)
                .ok()
        };
        Restorer { matcher, values }
    }

    /// The length in bytes of `restore(text)`, computed from the matches without building it
    /// (so that an oversized result can be refused before any memory is spent on it).
    pub(crate) fn restored_len(&self, text: &str) -> usize {
        let Some(matcher) = &self.matcher else {
            return text.len();
        };
        matcher.find_iter(text).fold(text.len(), |len, m| {
            len - m.len() + self.values[m.pattern().as_usize()].len()
        })
    }

    pub fn restore(&self, text: &str) -> String {
        let Some(matcher) = &self.matcher else {
            return text.to_owned();
        };
        let mut out = String::with_capacity(text.len());
        matcher.replace_all_with(text, &mut out, |m, _, dst| {
            dst.push_str(&self.values[m.pattern().as_usize()]);
            true
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_only_known_tokens() {
        let r = Restorer::new([("[[NAME_1]]", "Anna"), ("[[NAME_10]]", "Zoe")]);
        assert_eq!(
            r.restore("[[NAME_1]], [[NAME_10]], [[NAME_2]], [NAME_1]"),
            "Anna, Zoe, [[NAME_2]], [NAME_1]"
        );
    }

    #[test]
    fn restored_len_is_the_length_of_the_result() {
        let r = Restorer::new([("a", "bcd"), ("[[NAME_1]]", ""), ("aa", "ü")]);
        for text in ["", "a", "aaa", "x [[NAME_1]] a aa", "[[NAME_1]][[NAME_1]]"] {
            assert_eq!(r.restored_len(text), r.restore(text).len(), "{text}");
        }
        assert_eq!(Restorer::new([]).restored_len("abc"), 3);
    }

    #[test]
    fn empty_mapping_is_identity() {
        assert_eq!(Restorer::new([]).restore("x [[NAME_1]]"), "x [[NAME_1]]");
    }
}
