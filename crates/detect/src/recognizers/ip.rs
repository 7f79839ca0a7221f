//! IP addresses (docs/entities.md §7): strict IPv4 dotted quads and IPv6 (compressed, embedded
//! IPv4, zone IDs), parsed with `std::net`. The context step scores them
//! (`crate::context_rules`): a quad asks with the form that says whether it may be a version.

use std::net::{Ipv4Addr, Ipv6Addr};

use regex::Regex;

use super::cand;
use crate::finding::{Form, Needs};
use crate::lexicon::Lexicon;
use crate::{Candidate, EntityType, Recognizer, Text};

pub struct IpRecognizer {
    v4: Regex,
    v6: Regex,
}

impl IpRecognizer {
    pub fn new() -> Self {
        IpRecognizer {
            v4: Regex::new(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}").expect("static v4"),
            v6: Regex::new(
                r"[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}(?:\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})?(?:%[0-9A-Za-z]+)?",
            )
            .expect("static v6"),
        }
    }
}

/// Words that make a dotted quad near them a version number (`data/lexicon/ip_version_words.txt`).
fn version_words() -> impl Iterator<Item = &'static str> {
    Lexicon::get().lists.ip_version_words.iter().copied()
}

/// True when the word right before the quad at `start` (past spaces and a colon) ends in a
/// version word: `Client-Version 1.0.0.8`, `Vorgängerversion: 2.7.6.3`, `Firmware 6.20.2.47`.
fn labelled_version(s: &str, start: usize) -> bool {
    // The label's tail is enough, and a bounded window keeps long runs before it cheap.
    let head = super::before(s, start, 48).trim_end_matches([' ', ':', '\u{a0}']);
    let word_start = head
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '-'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    super::with_lower(&head[word_start..], |w| {
        version_words().any(|k| w.ends_with(k))
    })
}

/// Which table of IP's context rule scores the quad `ip` at `start`: whether the text or the
/// quad itself makes it look like a version number.
fn v4_form(s: &str, start: usize, ip: Ipv4Addr) -> Form {
    if labelled_version(s, start) {
        // The number's own label names a version (`Client-Version 1.0.0.8`,
        // `Vorgängerversion`): a compound's last part says what it is, so `Client` in front is
        // no IP context.
        Form::VersionLabel
    } else if super::with_lower(super::before(s, start, 40), |window| {
        version_words().any(|k| window.contains(k))
    }) {
        Form::AfterVersionWord
    } else if ip.octets()[0] < 10 {
        // `2.4.1.0`: without IP context a version.
        Form::VersionLike
    } else {
        Form::Main
    }
}

/// The score of the quad `ip` before context.
fn v4_base(ip: Ipv4Addr) -> f32 {
    let o = ip.octets();
    if ip.is_unspecified() || ip.is_broadcast() || o[0] == 255 {
        0.3
    } else if ip.is_private() || ip.is_loopback() || ip.is_link_local() || ip.is_documentation() {
        0.6
    } else {
        0.85
    }
}

/// A byte the IPv6 pattern can match: hex digits, `:`, the dots of an embedded IPv4 address,
/// `%` and the letters and digits of a zone ID.
fn v6_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b':' | b'.' | b'%')
}

/// The maximal runs of [`v6_byte`]s that may hold an accepted IPv6 address: every match lies
/// inside one run, and an accepted one has `::` or seven colons. Found from the colons
/// (memchr), so text without colons costs nothing.
fn v6_tokens(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut next = 0;
    for colon in memchr::memchr_iter(b':', b) {
        if colon < next {
            continue;
        }
        let mut start = colon;
        while start > 0 && b.get(start - 1).copied().is_some_and(v6_byte) {
            start -= 1;
        }
        let end = b
            .get(colon..)
            .and_then(|r| r.iter().position(|&x| !v6_byte(x)))
            .map_or(b.len(), |p| colon + p);
        next = end;
        let token = b.get(start..end).unwrap_or(&[]);
        let colons = token.iter().filter(|&&x| x == b':').count();
        if colons >= 7 || memchr::memmem::find(token, b"::").is_some() {
            out.push((start, end));
        }
    }
    out
}

impl Recognizer for IpRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::IpAddress
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        // A dotted quad is four digit runs joined by single dots: one such cluster.
        let quads = super::widen(
            s,
            super::clusters(s, text.digit_runs(), |gap| gap == b".")
                .filter(|c| c.runs >= 4)
                .map(|c| (c.start, c.end)),
            0,
            0,
        );
        for m in super::find_in(&self.v4, s, &quads) {
            let (start, end) = (m.start(), m.end());
            let Ok(ip) = m.as_str().parse::<Ipv4Addr>() else {
                continue;
            };
            let before = s[..start].chars().next_back();
            let after = s[end..].chars().next();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '.' || c == ':')
                || after.is_some_and(char::is_alphanumeric)
                || (after == Some('.') && s[end + 1..].starts_with(|c: char| c.is_ascii_digit()))
            {
                continue;
            }
            let form = v4_form(s, start, ip);
            out.push(
                cand(EntityType::IpAddress, start, end, v4_base(ip), false)
                    .asking(form, Needs::Nothing),
            );
        }
        for m in super::find_in(&self.v6, s, &v6_tokens(s)) {
            let (start, end) = (m.start(), m.end());
            let v = m.as_str();
            let addr = v.split('%').next().unwrap_or(v);
            let before = s[..start].chars().next_back();
            let after = s[end..].chars().next();
            if before.is_some_and(|c| c.is_alphanumeric() || c == ':')
                || after.is_some_and(|c| c.is_alphanumeric())
            {
                continue;
            }
            let groups = addr.split(':').filter(|g| !g.is_empty()).count();
            let has_digit = addr.bytes().any(|b| b.is_ascii_digit());
            if !(addr.contains("::") || addr.matches(':').count() == 7)
                || !(has_digit || groups >= 3)
                || addr.len() < 3
            {
                continue;
            }
            let Ok(ip) = addr.parse::<Ipv6Addr>() else {
                continue;
            };
            let seg = ip.segments();
            let private = ip.is_loopback()
                || (seg[0] & 0xffc0) == 0xfe80
                || (seg[0] & 0xfe00) == 0xfc00
                || (seg[0] == 0x2001 && seg[1] == 0x0db8);
            let base = if ip.is_unspecified() {
                0.3
            } else if private {
                0.6
            } else {
                0.85
            };
            out.push(
                cand(EntityType::IpAddress, start, end, base, false)
                    .asking(Form::Alternate, Needs::Nothing),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizers::kept;

    #[test]
    fn strict_ipv4_and_ipv6() {
        let r = IpRecognizer::new();
        assert_eq!(
            kept(&r, "Zugriff von 192.168.10.25 um 14 Uhr"),
            vec!["192.168.10.25".to_owned()]
        );
        assert_eq!(
            kept(&r, "Server 2001:db8::8a2e:370:7334 antwortet nicht"),
            vec!["2001:db8::8a2e:370:7334".to_owned()]
        );
    }

    #[test]
    fn a_quad_labelled_as_a_version_is_no_address_even_after_client() {
        let r = IpRecognizer::new();
        assert!(kept(
            &r,
            "Nach dem Wechsel auf Client-Version 3.1.4.7 hängt die App"
        )
        .is_empty());
        assert!(kept(&r, "Die Clientversion: 10.2.0.15 ist veraltet").is_empty());
        // The IP word itself still decides: a client's address is an address.
        assert_eq!(
            kept(&r, "Der Client mit der IP 10.2.0.15 meldet Fehler"),
            vec!["10.2.0.15".to_owned()]
        );
    }

    #[test]
    fn a_quad_asks_with_the_form_that_says_whether_it_may_be_a_version() {
        let r = IpRecognizer::new();
        for (s, form) in [
            ("Host 84.12.0.3 antwortet", Form::Main),
            ("Host 4.12.0.3 antwortet", Form::VersionLike),
            ("seit dem Release läuft 84.12.0.3", Form::AfterVersionWord),
            ("Firmware 84.12.0.3", Form::VersionLabel),
            ("Host fe80::1 antwortet", Form::Alternate),
        ] {
            let text = Text::new(s);
            let mut out = Vec::new();
            r.recognize(&text, &mut out);
            let asks: Vec<_> = out.iter().map(|c| c.evidence.ask).collect();
            let needs = Needs::Nothing;
            assert_eq!(asks, vec![crate::Ask::Score { form, needs }], "{s}");
        }
        // scored by the step: a weak word keeps a version-like quad, a version word drops one
        assert_eq!(
            kept(&r, "Host 4.12.0.3 antwortet"),
            vec!["4.12.0.3".to_owned()]
        );
        assert!(kept(&r, "seit dem Release läuft 84.12.0.3").is_empty());
    }

    #[test]
    fn out_of_range_octets_and_longer_dotted_numbers_are_not_addresses() {
        let r = IpRecognizer::new();
        assert!(kept(&r, "Wert 256.1.1.1 ist ungültig").is_empty());
        assert!(kept(&r, "Abschnitt 1.2.3.4.5 der Norm").is_empty());
    }
}
