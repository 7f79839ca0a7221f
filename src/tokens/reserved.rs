use std::sync::LazyLock;

use regex::Regex;

use crate::detect::EntityType;

static RESERVED: LazyLock<Regex> = LazyLock::new(|| {
    let prefixes: Vec<&str> = EntityType::ALL.iter().map(|t| t.token_prefix()).collect();
    Regex::new(&format!(r"\[\[(?:{})_[0-9]+\]\]", prefixes.join("|")))
        .expect("static token pattern")
});

/// Literal tokens of the prefixes of `GET /entities` (the contract's 13 and the added ones) in `text`, with their byte offsets. Other bracket text such
/// as `[[FOO_1]]` or `[[NAME]]` is ordinary text.
pub(crate) fn reserved_tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    RESERVED.find_iter(text).map(|m| (m.start(), m.as_str()))
}

pub fn contains_reserved_token(text: &str) -> bool {
    RESERVED.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_prefixes_with_numbers_are_reserved() {
        assert!(contains_reserved_token("a [[NAME_1]] b"));
        assert!(contains_reserved_token("[[IBAN_12]]"));
        assert!(contains_reserved_token("key [[SECRET_3]]"));
        assert!(contains_reserved_token("[[SSN_1]] [[USTID_2]]"));
        assert!(!contains_reserved_token(
            "[[FOO_1]] [[NAME]] [NAME_1] [[name_1]]"
        ));
    }
}
