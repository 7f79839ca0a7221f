//! Example values in developers' instructions: a value written right after a marker such as
//! `e.g.` or `z. B.` (`data/lexicon/example_markers.txt`) shows a format, it is no one's data.
//! Only the caller knows whether a text is such an instruction (a tool's description); this
//! module answers whether a given value stands as an example there: after a marker, as the
//! whole value of a member of a JSON example of a call (`{"pattern": "John Smith"}`), or an
//! address that names nothing but a site or lies on a domain reserved for examples.

use crate::hosts::{host_of, is_example_host};
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

/// Whether the value at bytes `start..end` of `text` is the whole string value of a JSON
/// member written in it (`"date_from": "2025-02-24"`): an instruction showing how a call looks.
pub fn is_json_member_value(text: &str, start: usize, end: usize) -> bool {
    let (Some(before), Some(after)) = (text.get(..start), text.get(end..)) else {
        return false;
    };
    let Some(before) = before.strip_suffix('"') else {
        return false;
    };
    let before = before.trim_end_matches(' ');
    let Some(before) = before.strip_suffix(':') else {
        return false;
    };
    before.trim_end_matches(' ').ends_with('"') && after.starts_with('"')
}

/// Whether `url` lies on a domain reserved for examples and documentation (RFC 2606, RFC 6761:
/// `example.com`, `example.org`, `example.net` and their subdomains, `.example`, `.test`,
/// `.invalid`): no one's page can be there.
pub fn is_example_domain(url: &str) -> bool {
    url.contains("://") && is_example_host(&host_of(url))
}

/// Whether `url` is a bare origin: a scheme, a host and at most a port and a final `/` — no
/// user, path, query or fragment, where someone's data could be.
pub fn is_bare_origin(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    let host = rest.strip_suffix('/').unwrap_or(rest);
    !scheme.is_empty()
        && scheme.bytes().all(|b| b.is_ascii_alphabetic())
        && !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:".contains(&b))
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
    fn the_whole_value_of_a_json_member_is_an_example_of_a_call() {
        let text =
            r#"`find`: {"ref_id": "t3", "pattern": "John Smith"}, {"date_from":"2025-02-24"}"#;
        let at = |v: &str| {
            let start = text.find(v).unwrap();
            is_json_member_value(text, start, start + v.len())
        };
        assert!(at("John Smith") && at("2025-02-24"));
        assert!(!at("John"), "a part of the value");
        assert!(!is_json_member_value("Ich bin \"Anna\"", 9, 13));
    }

    #[test]
    fn addresses_on_reserved_domains_are_examples() {
        assert!(is_example_domain("https://example.com/page"));
        assert!(is_example_domain("https://docs.example.org/a?b=c"));
        assert!(is_example_domain("http://api.test:8080/x"));
        assert!(!is_example_domain("https://example.com.evil.de/anna"));
        assert!(!is_example_domain("https://anna-example.com/"));
        assert!(!is_example_domain("example.com/page"));
    }

    #[test]
    fn only_an_address_without_path_user_or_query_is_a_bare_origin() {
        assert!(is_bare_origin("https://www.openai.com"));
        assert!(is_bare_origin("http://localhost:8080/"));
        assert!(!is_bare_origin("https://example.com/users/anna"));
        assert!(!is_bare_origin("https://anna@example.com"));
        assert!(!is_bare_origin("https://example.com?u=anna"));
        assert!(!is_bare_origin("www.example.com"));
    }

    #[test]
    fn a_value_elsewhere_is_not() {
        assert!(!at("Geboren am 01.02.1980, z. B. in Köln", "01.02"));
        assert!(!at("The unlike 2024-05-01", "2024"));
        assert!(!at("Termin am 2024-05-01", "2024"));
        assert!(!at("2024-05-01", "2024"));
    }
}
