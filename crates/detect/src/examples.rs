//! Example values in developers' instructions: a value written right after a marker such as
//! `e.g.` or `z. B.` (`data/lexicon/example_markers.txt`) shows a format, it is no one's data.
//! Only the caller knows whether a text is such an instruction (a tool's description); this
//! module answers whether a given value stands as an example there.

use crate::lexicon::Lexicon;

/// How far before a value a marker is looked for, in bytes.
const REACH: usize = 40;

/// Whether the value starting at byte `start` of `text` directly follows an example marker
/// (quotes, brackets, colons and spaces between them allowed): `e.g. "2023-10-01 00:00"`,
/// `z. B. 01.02.2024`, `(example: 2024-05-01)`.
pub fn follows_example_marker(text: &str, start: usize) -> bool {
    let Some(before) = text.get(..start) else {
        return false;
    };
    let from = before.floor_char_boundary(start.saturating_sub(REACH));
    let near = before[from..]
        .trim_end_matches(|c: char| c.is_whitespace() || "\"'`“”„‚‘’«»([{:=".contains(c))
        .to_lowercase();
    Lexicon::get()
        .lists
        .example_markers
        .iter()
        .any(|m| whole_word_at_end(&near, m))
}

/// `s` ends with `marker`, and no letter or digit runs into it from the left.
fn whole_word_at_end(s: &str, marker: &str) -> bool {
    s.strip_suffix(marker)
        .is_some_and(|rest| !rest.chars().next_back().is_some_and(char::is_alphanumeric))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, value: &str) -> bool {
        follows_example_marker(text, text.find(value).unwrap_or(0))
    }

    #[test]
    fn a_value_after_an_example_marker_is_an_example() {
        assert!(at(r#"Start time, e.g. "2023-10-01 00:00""#, "2023"));
        assert!(at("Datum im Format TT.MM.JJJJ, z. B. 01.02.2024", "01.02"));
        assert!(at("The date (example: 2024-05-01)", "2024"));
        assert!(at("a day such as 2024-05-01", "2024"));
    }

    #[test]
    fn a_value_elsewhere_is_not() {
        assert!(!at("Geboren am 01.02.1980, z. B. in Köln", "01.02"));
        assert!(!at("The unlike 2024-05-01", "2024"));
        assert!(!at("Termin am 2024-05-01", "2024"));
        assert!(!at("2024-05-01", "2024"));
    }
}
