//! Participant names written as identifiers (`Max_Mustermann`, `MaxMustermann`): the words they
//! join, for detection and for replacing the name whole.

/// The words an identifier joins: runs of letters, split where a lower-case letter is followed
/// by an upper-case one (`MaxMustermann` → `Max`, `Mustermann`).
pub(super) fn identifier_words(s: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev_lower = false;
    for (i, c) in s.char_indices() {
        if c.is_alphabetic() {
            if prev_lower && c.is_uppercase() {
                if let Some(st) = start {
                    words.push(&s[st..i]);
                }
                start = Some(i);
            } else if start.is_none() {
                start = Some(i);
            }
            prev_lower = c.is_lowercase();
        } else {
            if let Some(st) = start.take() {
                words.push(&s[st..i]);
            }
            prev_lower = false;
        }
    }
    if let Some(st) = start {
        words.push(&s[st..]);
    }
    words
}

/// `w` with its first letter upper-case and the rest lower-case.
pub(super) fn capitalised(w: &str) -> String {
    let mut chars = w.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_their_words() {
        assert_eq!(identifier_words("Max_Mustermann"), ["Max", "Mustermann"]);
        assert_eq!(identifier_words("MaxMustermann"), ["Max", "Mustermann"]);
        assert_eq!(identifier_words("max-mustermann2"), ["max", "mustermann"]);
        assert_eq!(identifier_words("JÖRG_Ölmann"), ["JÖRG", "Ölmann"]);
        assert!(identifier_words("_-42").is_empty());
        assert_eq!(capitalised("mAX"), "Max");
    }
}
