//! Who is on the other end of a web-page request: the address that the page's per-address
//! limits count, and whether the browser reached us over https (the cookie's `Secure`).
//!
//! The client is the socket's peer. Only when that peer is a configured trusted proxy does a
//! forwarding header name the client, and only the one header the proxies are configured to set
//! (`X-Forwarded-For` or `Forwarded`): a proxy that sets one usually passes the other on as the
//! client sent it. The header is read from the right, skipping trusted hops; the first other
//! address is the client. Entries further left were written by the client itself and are never
//! believed. An entry that cannot be read ends the walk at the trusted hop that passed it on, so
//! garbage can only make a client share that hop's budget, never choose its own.
//!
//! IPv6 clients are counted per /64: one subscriber usually holds a whole /64, and counting
//! single addresses would give it 2^64 budgets.

use std::net::{IpAddr, SocketAddr};

use http::HeaderMap;
use ipnet::{IpNet, Ipv6Net};

use crate::config::ForwardedHeader;

/// The socket's side of a request: the peer address and whether the connection is TLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Peer {
    /// `None` for a peer without an IP address (a Unix socket).
    pub addr: Option<IpAddr>,
    pub tls: bool,
}

impl Peer {
    /// The peer of a pingora session.
    pub(crate) fn of(session: &pingora::proxy::Session) -> Peer {
        Peer {
            addr: session
                .client_addr()
                .and_then(|a| a.as_inet())
                .map(|a| canonical(a.ip())),
            tls: session.digest().is_some_and(|d| d.ssl_digest.is_some()),
        }
    }
}

/// The client as far as it can be known (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Client {
    pub addr: Option<IpAddr>,
    /// The browser's connection is https: ours is TLS, or a trusted proxy says so.
    pub https: bool,
}

impl Client {
    /// The name of this client's rate-limit window for `what` (`cookie` or `call`): the
    /// address, an IPv6 address reduced to its /64.
    pub(crate) fn window(&self, what: &str) -> String {
        match self.addr {
            Some(IpAddr::V4(v4)) => format!("web-client:{what}:{v4}"),
            Some(IpAddr::V6(v6)) => {
                let net = Ipv6Net::new(v6, 64).map_or(v6, |n| n.network());
                format!("web-client:{what}:{net}/64")
            }
            None => format!("web-client:{what}:unknown"),
        }
    }
}

/// A `web.trusted_proxies` entry that is neither an address nor a CIDR.
#[derive(Debug, thiserror::Error)]
#[error("invalid value for web.trusted_proxies[{0}] (or TARNKAPPE_TRUSTED_PROXIES): expected an IP address or a CIDR such as 10.0.0.0/8")]
pub struct TrustedProxyError(pub usize);

/// The configured trusted proxies and the header they set.
#[derive(Debug, Clone)]
pub(crate) struct TrustedProxies {
    nets: Vec<IpNet>,
    header: ForwardedHeader,
}

impl TrustedProxies {
    /// Parses `web.trusted_proxies`: each entry an address (`192.0.2.7`, `::1`) or a CIDR.
    pub(crate) fn parse(
        entries: &[String],
        header: ForwardedHeader,
    ) -> Result<Self, TrustedProxyError> {
        let nets = entries
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let entry = entry.trim();
                entry
                    .parse::<IpNet>()
                    .map(|n| n.trunc())
                    .or_else(|_| entry.parse::<IpAddr>().map(|a| IpNet::from(canonical(a))))
                    .map_err(|_| TrustedProxyError(i))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TrustedProxies { nets, header })
    }

    fn trusts(&self, addr: IpAddr) -> bool {
        self.nets.iter().any(|n| n.contains(&addr))
    }

    /// The client of a request that arrived from `peer` with `headers`.
    pub(crate) fn client(&self, peer: Peer, headers: &HeaderMap) -> Client {
        let Some(peer_addr) = peer.addr.filter(|a| self.trusts(*a)) else {
            return Client {
                addr: peer.addr,
                https: peer.tls,
            };
        };
        let (hops, https) = match self.header {
            ForwardedHeader::XForwardedFor => {
                (x_forwarded_for(headers), x_forwarded_proto(headers))
            }
            ForwardedHeader::Forwarded => forwarded(headers),
        };
        let mut client = peer_addr;
        for hop in hops.into_iter().rev() {
            let Some(addr) = hop else { break };
            client = addr;
            if !self.trusts(addr) {
                break;
            }
        }
        Client {
            addr: Some(client),
            https: peer.tls || https,
        }
    }
}

/// IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`, from dual-stack sockets) as IPv4.
fn canonical(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(addr, IpAddr::V4),
        v4 => v4,
    }
}

/// One node of a forwarding header: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `[2001:db8::1]` or `[2001:db8::1]:4711`, optionally quoted. Anything else (`unknown`, an
/// obfuscated `_name`, garbage) is `None`.
fn parse_node(node: &str) -> Option<IpAddr> {
    let node = node.trim().trim_matches('"');
    if let Ok(addr) = node.parse::<IpAddr>() {
        return Some(canonical(addr));
    }
    if let Ok(addr) = node.parse::<SocketAddr>() {
        return Some(canonical(addr.ip()));
    }
    let bracketed = node.strip_prefix('[')?.strip_suffix(']')?;
    bracketed.parse::<IpAddr>().ok().map(canonical)
}

/// The hops of every `X-Forwarded-For` header, left to right (an unreadable header is one
/// unreadable hop).
fn x_forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let mut hops = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        match value.to_str() {
            Ok(text) => hops.extend(text.split(',').map(parse_node)),
            Err(_) => hops.push(None),
        }
    }
    hops
}

/// `X-Forwarded-Proto` as the nearest proxy set it (its last value) is `https`.
fn x_forwarded_proto(headers: &HeaderMap) -> bool {
    headers
        .get_all("x-forwarded-proto")
        .iter()
        .next_back()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"))
}

/// The `for=` hops of every RFC 7239 `Forwarded` header, left to right, and whether the nearest
/// element that states a `proto` says `https`.
fn forwarded(headers: &HeaderMap) -> (Vec<Option<IpAddr>>, bool) {
    let mut hops = Vec::new();
    let mut proto_https = None;
    for value in headers.get_all(http::header::FORWARDED) {
        let Ok(text) = value.to_str() else {
            hops.push(None);
            continue;
        };
        for element in split_unquoted(text, ',') {
            let mut node = None;
            for pair in split_unquoted(element, ';') {
                let Some((key, value)) = pair.split_once('=') else {
                    continue;
                };
                match key.trim().to_ascii_lowercase().as_str() {
                    "for" => node = Some(parse_node(value)),
                    "proto" => {
                        proto_https =
                            Some(value.trim().trim_matches('"').eq_ignore_ascii_case("https"))
                    }
                    _ => {}
                }
            }
            // An element without `for=` names no hop we can count: treat it as unreadable.
            hops.push(node.flatten());
        }
    }
    (hops, proto_https.unwrap_or(false))
}

/// `text` split at `sep` outside double quotes.
fn split_unquoted(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        if c == '"' {
            quoted = !quoted;
        } else if c == sep && !quoted {
            parts.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(entries: &[&str], header: ForwardedHeader) -> TrustedProxies {
        let entries: Vec<String> = entries.iter().map(|e| (*e).to_owned()).collect();
        TrustedProxies::parse(&entries, header).expect("valid entries")
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(
                http::HeaderName::from_bytes(k.as_bytes()).expect("name"),
                v.parse().expect("value"),
            );
        }
        map
    }

    fn peer(addr: &str) -> Peer {
        Peer {
            addr: Some(addr.parse().expect("address")),
            tls: false,
        }
    }

    fn ip(addr: &str) -> Option<IpAddr> {
        Some(addr.parse().expect("address"))
    }

    #[test]
    fn entries_are_addresses_or_cidrs() {
        let p = proxies(
            &["10.0.0.0/8", " 192.0.2.7 ", "2001:db8::/32", "10.1.2.3/8"],
            ForwardedHeader::XForwardedFor,
        );
        assert!(p.trusts("10.200.0.1".parse().unwrap()));
        assert!(p.trusts("192.0.2.7".parse().unwrap()));
        assert!(!p.trusts("192.0.2.8".parse().unwrap()));
        assert!(p.trusts("2001:db8:ffff::1".parse().unwrap()));
        assert!(!p.trusts("2001:db9::1".parse().unwrap()));
        for bad in ["10.0.0.0/33", "proxy.example", "", "10.0.0.1:80"] {
            let err = TrustedProxies::parse(
                &["10.0.0.1".into(), bad.into()],
                ForwardedHeader::XForwardedFor,
            )
            .expect_err(bad);
            assert_eq!(err.0, 1, "{bad}");
            assert!(err.to_string().contains("web.trusted_proxies[1]"));
        }
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_sends() {
        let p = proxies(&["10.0.0.1"], ForwardedHeader::XForwardedFor);
        let h = headers(&[
            ("x-forwarded-for", "198.51.100.1"),
            ("x-forwarded-proto", "https"),
            ("forwarded", "for=198.51.100.2;proto=https"),
        ]);
        let c = p.client(peer("203.0.113.9"), &h);
        assert_eq!(
            c,
            Client {
                addr: ip("203.0.113.9"),
                https: false
            }
        );
        let none = proxies(&[], ForwardedHeader::XForwardedFor);
        assert_eq!(none.client(peer("10.0.0.1"), &h).addr, ip("10.0.0.1"));
        let tls = Peer {
            tls: true,
            ..peer("203.0.113.9")
        };
        assert!(p.client(tls, &h).https, "our own TLS counts");
    }

    #[test]
    fn x_forwarded_for_is_read_from_the_right_past_trusted_hops() {
        let p = proxies(&["10.0.0.0/8"], ForwardedHeader::XForwardedFor);
        let client = |xff: &[&str]| {
            let pairs: Vec<(&str, &str)> = xff.iter().map(|v| ("x-forwarded-for", *v)).collect();
            p.client(peer("10.0.0.1"), &headers(&pairs)).addr
        };
        assert_eq!(client(&["198.51.100.1"]), ip("198.51.100.1"));
        // The client prepended a made-up address: the one our proxy appended counts.
        assert_eq!(client(&["1.2.3.4, 198.51.100.1"]), ip("198.51.100.1"));
        // Two trusted hops.
        assert_eq!(client(&["198.51.100.1, 10.0.0.7"]), ip("198.51.100.1"));
        assert_eq!(
            client(&["1.2.3.4", "198.51.100.1, 10.0.0.7"]),
            ip("198.51.100.1")
        );
        // Ports and brackets.
        assert_eq!(client(&["198.51.100.1:4711"]), ip("198.51.100.1"));
        assert_eq!(client(&["[2001:db8::1]:4711"]), ip("2001:db8::1"));
        assert_eq!(client(&["::ffff:198.51.100.1"]), ip("198.51.100.1"));
        // Garbage stops at the trusted hop that passed it on.
        assert_eq!(client(&["198.51.100.1, garbage, 10.0.0.7"]), ip("10.0.0.7"));
        assert_eq!(client(&["unknown"]), ip("10.0.0.1"));
        assert_eq!(client(&[]), ip("10.0.0.1"), "no header: the proxy itself");
        // Only trusted hops: the leftmost.
        assert_eq!(client(&["10.9.9.9, 10.0.0.7"]), ip("10.9.9.9"));
        // The other header is not read.
        let h = headers(&[("forwarded", "for=198.51.100.2")]);
        assert_eq!(p.client(peer("10.0.0.1"), &h).addr, ip("10.0.0.1"));
    }

    #[test]
    fn forwarded_is_read_when_configured() {
        let p = proxies(&["10.0.0.0/8"], ForwardedHeader::Forwarded);
        let client = |value: &str| p.client(peer("10.0.0.1"), &headers(&[("forwarded", value)]));
        assert_eq!(client("for=198.51.100.1").addr, ip("198.51.100.1"));
        assert_eq!(
            client("for=1.2.3.4, For=\"[2001:db8::1]:4711\";proto=https;by=10.0.0.1"),
            Client {
                addr: ip("2001:db8::1"),
                https: true
            }
        );
        assert_eq!(
            client("for=198.51.100.1;proto=http, for=10.0.0.5").addr,
            ip("198.51.100.1")
        );
        assert!(!client("for=198.51.100.1;proto=http").https);
        assert_eq!(client("for=unknown").addr, ip("10.0.0.1"));
        assert_eq!(client("for=_hidden, for=10.0.0.5").addr, ip("10.0.0.5"));
        assert_eq!(client("proto=https").addr, ip("10.0.0.1"), "no for=");
        // X-Forwarded-For is not read in this mode.
        let h = headers(&[
            ("x-forwarded-for", "198.51.100.2"),
            ("x-forwarded-proto", "https"),
        ]);
        assert_eq!(
            p.client(peer("10.0.0.1"), &h),
            Client {
                addr: ip("10.0.0.1"),
                https: false
            }
        );
    }

    #[test]
    fn https_is_what_the_nearest_trusted_proxy_says() {
        let p = proxies(&["10.0.0.1"], ForwardedHeader::XForwardedFor);
        let https = |pairs: &[(&str, &str)]| p.client(peer("10.0.0.1"), &headers(pairs)).https;
        assert!(https(&[("x-forwarded-proto", "https")]));
        assert!(https(&[("x-forwarded-proto", "HTTPS")]));
        assert!(https(&[("x-forwarded-proto", "http, https")]));
        assert!(!https(&[("x-forwarded-proto", "https, http")]));
        assert!(!https(&[("x-forwarded-proto", "http")]));
        assert!(!https(&[]));
    }

    #[test]
    fn windows_are_per_address_and_per_ipv6_64() {
        let w = |addr: &str| {
            Client {
                addr: ip(addr),
                https: false,
            }
            .window("cookie")
        };
        assert_eq!(w("198.51.100.1"), "web-client:cookie:198.51.100.1");
        assert_ne!(w("198.51.100.1"), w("198.51.100.2"));
        assert_eq!(w("2001:db8:1:2:aaaa::1"), w("2001:db8:1:2:bbbb::2"));
        assert_ne!(w("2001:db8:1:2::1"), w("2001:db8:1:3::1"));
        assert_eq!(w("2001:db8:1:2::1"), "web-client:cookie:2001:db8:1:2::/64");
        let c = Client {
            addr: ip("198.51.100.1"),
            https: false,
        };
        assert_ne!(c.window("cookie"), c.window("call"));
    }
}
