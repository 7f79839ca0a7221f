//! IP addresses (entities.md §7): strict IPv4 dotted quads and IPv6 (compressed, embedded
//! IPv4, zone IDs), parsed with `std::net`.

use std::net::{Ipv4Addr, Ipv6Addr};

use regex::Regex;

use super::{cand, Context};
use crate::detect::{Candidate, EntityType, Recognizer, Text};

const CONTEXT: Context = Context {
    strong: &[
        "ip",
        "ip-adresse",
        "ipv4",
        "ipv6",
        "ip address",
        "remote_addr",
        "x-forwarded-for",
        "quell-ip",
        "absender-ip",
        "login von",
        "zugriff von",
        "client",
    ],
    weak: &[
        "adresse", "host", "server", "von", "from", "address", "router", "rechner", "gerät",
    ],
    negative: &[
        "version",
        "v",
        "build",
        "release",
        "kapitel",
        "abschnitt",
        "ziffer",
        "§",
        "nr.",
        "oid",
        "subnetzmaske",
        "netzmaske",
        "netmask",
        "firmware",
        "update",
        "patch",
        "software",
        "app",
        "ver.",
        "raum",
        "room",
    ],
};

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

impl Recognizer for IpRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::IpAddress
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        for m in super::find_in(&self.v4, s, text.digit_windows()) {
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
            let ev = CONTEXT.evidence(s, start, end);
            let mut base = v4_base(ip);
            // Version-like quads (`2.4.1.0`) without IP context are versions.
            if ip.octets()[0] < 10 && !ev.strong {
                base -= 0.3;
            }
            let window = super::lower(super::before(s, start, 40));
            if ["version", "firmware", "build", "release", "patch", "update"]
                .iter()
                .any(|k| window.contains(k))
                || s[..start].ends_with(['v', 'V'])
            {
                base = if ev.strong { 0.55 } else { 0.0 };
            }
            let score = ev.score(base, 0.2, 0.1, 0.35);
            out.push(cand(EntityType::IpAddress, start, end, score, false));
        }
        for m in super::find_in(
            &self.v6,
            s,
            &super::super::text::windows_around(s, |b| b == b':', 45, 45),
        ) {
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
            let ev = CONTEXT.evidence(s, start, end);
            let score = ev.score(base, 0.2, 0.1, 0.3);
            out.push(cand(EntityType::IpAddress, start, end, score, false));
        }
    }
}
