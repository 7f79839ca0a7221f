//! Which candidates code refutes.
//!
//! Inside a code region a candidate must lie where code carries values. A name or a place must
//! lie wholly inside literals (a name never spans a closing `)`); any other reading type must
//! touch no identifier and overlap a literal (`passwd = getpass(prompt)` has no literal after
//! the label, `DB_PASSWORD = "hunter2"` has). Values whose format proves them — e-mail addresses
//! and check-digit-validated numbers — stay wherever they are. And in code only, addresses
//! reserved for documentation or the local host and example host names name nobody.

use std::net::IpAddr;

use super::languages::is_line_keyword;
use super::lexer::Layout;
use super::regions::Region;
use crate::finding::{Basis, Candidate};
use crate::hosts::{host_of, is_example_host};
use crate::EntityType;

pub(crate) fn drop_refuted(
    view: &str,
    regions: &[Region],
    layouts: &[Layout],
    candidates: &mut Vec<Candidate>,
) {
    candidates.retain(|c| {
        let at = regions.partition_point(|r| r.end() <= c.start);
        match regions.get(at) {
            Some(region) if region.start() <= c.start => !refuted(view, c, &layouts[at]),
            _ => true,
        }
    });
}

/// Drops the PERSON candidates that hold a keyword of code as code writes it, lowercase
/// (`elif`, `else`, `return`): anywhere, not only in code regions.
pub(crate) fn drop_keyword_names(view: &str, candidates: &mut Vec<Candidate>) {
    candidates.retain(|c| {
        c.entity_type != EntityType::Person
            || !view
                .get(c.start..c.end)
                .unwrap_or("")
                .split(|ch: char| !ch.is_alphanumeric())
                .any(is_line_keyword)
    });
}

fn refuted(view: &str, c: &Candidate, layout: &Layout) -> bool {
    let value = view.get(c.start..c.end).unwrap_or("");
    match c.entity_type {
        EntityType::EmailAddress => return false,
        _ if c.validated => return false,
        EntityType::IpAddress => return names_no_host(value),
        EntityType::Url if is_example_host(&host_of(value)) => return true,
        _ => {}
    }
    match c.entity_type {
        EntityType::Person | EntityType::Location => {
            !outside_is_blank(view, &layout.literals, c.start, c.end)
                || !value.chars().any(is_latin_letter)
                || c.entity_type == EntityType::Person
                    && (!cased_as_a_name(value) || guessed_lone_word(c, value))
        }
        _ => {
            overlap(&layout.words, c.start, c.end) > 0
                || overlap(&layout.literals, c.start, c.end) == 0
        }
    }
}

/// Bytes of `[start, end)` covered by `spans` (sorted, disjoint).
fn overlap(spans: &[(usize, usize)], start: usize, end: usize) -> usize {
    let from = spans.partition_point(|&(_, e)| e <= start);
    spans[from..]
        .iter()
        .take_while(|&&(s, _)| s < end)
        .map(|&(s, e)| e.min(end) - s.max(start))
        .sum()
}

/// Whether every byte of `[start, end)` outside `spans` is whitespace: a name may run over two
/// words of a comment that the lexer read as two literals, never over code.
fn outside_is_blank(view: &str, spans: &[(usize, usize)], start: usize, end: usize) -> bool {
    let bytes = view.as_bytes();
    let mut at = start;
    let from = spans.partition_point(|&(_, e)| e <= start);
    for &(s, e) in spans[from..].iter().take_while(|&&(s, _)| s < end) {
        if bytes[at..s.max(at)]
            .iter()
            .any(|b| !b.is_ascii_whitespace())
        {
            return false;
        }
        at = at.max(e);
    }
    at >= end || bytes[at..end].iter().all(u8::is_ascii_whitespace)
}

/// A single word that only the tagger calls a name, no name list: in a code comment a
/// capitalised word opens a sentence (`// Penalize for…`, `Gregorian calendar`) far more often
/// than it names somebody, and no label, anchor or earlier mention backs it.
fn guessed_lone_word(c: &Candidate, value: &str) -> bool {
    !value.contains(' ') && c.evidence.basis == Basis::Tagger
}

/// Upper and lower case letters both: inside code, `asdf`, `alice`, `ok` are test strings and
/// `EEEE`, `D MMM YYYY` format patterns, not names.
pub(crate) fn cased_as_a_name(value: &str) -> bool {
    value.chars().any(char::is_uppercase) && value.chars().any(char::is_lowercase)
}

fn is_latin_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || ('\u{c0}'..='\u{24f}').contains(&c) && c.is_alphabetic()
}

/// An address that names no host in code: a documentation range (RFC 5737, RFC 3849), the
/// loopback or unspecified address, link-local, shared, multicast or reserved space, a network
/// written with its host part zero (`10.0.0.0`), or an IPv6 prefix of two groups or fewer
/// (`fe80::`, `1::2`). Code writes these as examples and constants.
fn names_no_host(value: &str) -> bool {
    let bare = value.split('%').next().unwrap_or(value);
    match bare.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => {
            let [a, b, c, d] = v4.octets();
            v4.is_loopback()
                || v4.is_unspecified()
                || v4.is_link_local()
                || v4.is_multicast()
                || v4.is_broadcast()
                || a >= 240
                || d == 0
                || (a == 100 && (64..128).contains(&b))
                || (a, b, c) == (192, 0, 2)
                || (a, b, c) == (198, 51, 100)
                || (a, b, c) == (203, 0, 113)
        }
        Ok(IpAddr::V6(v6)) => {
            let s = v6.segments();
            let written = bare.split(':').filter(|g| !g.is_empty()).count();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0], s[1]) == (0x2001, 0x0db8)
                || (bare.contains("::") && written <= 2)
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documentation_and_local_addresses_name_no_host() {
        for ip in [
            "192.0.2.130",
            "198.51.100.7",
            "203.0.113.1",
            "2001:db8::1",
            "127.0.0.1",
            "::1",
        ] {
            assert!(names_no_host(ip), "{ip}");
        }
        for ip in ["10.0.0.0", "169.254.0.0", "fe80::", "1::2", "F800::"] {
            assert!(names_no_host(ip), "{ip}");
        }
        for ip in [
            "8.8.8.8",
            "192.168.0.1",
            "2a00:1450:4001::1",
            "64.32.235.228",
        ] {
            assert!(!names_no_host(ip), "{ip}");
        }
    }

    #[test]
    fn overlap_counts_covered_bytes() {
        let spans = [(0, 4), (10, 20), (30, 31)];
        assert_eq!(overlap(&spans, 2, 12), 4);
        assert_eq!(overlap(&spans, 20, 30), 0);
        assert_eq!(overlap(&spans, 0, 40), 15);
    }
}
