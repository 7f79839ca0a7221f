//! Who the web page's callers are (docs/api.md, "Authentication and tenants"): the signed tenant
//! cookie that identifies each browser, the same-origin check that cookie-authenticated API calls
//! must pass, and the switch and per-address limit of the page ([`crate::web`] serves the page).
//!
//! - The cookie value is `<id>.<tag>`: `id` is 128 random bits in lower-case hex, `tag` the
//!   base64url HMAC-SHA256 of the id under the cookie secret (`web.cookie_secret`, random per
//!   process when unset). Verification recomputes the tag and compares in constant time.
//! - A cookie call is accepted only when its `Origin` names this server (`http://` or `https://`
//!   followed by exactly the request's `Host`), or, without `Origin`, when the browser marks it
//!   `Sec-Fetch-Site: same-origin`. Missing both means refused.
//! - The page is a door to the API without a key, so it is on by default only on a loopback
//!   listener ([`resolve_enabled`]), and fresh cookies and cookie calls are limited per client
//!   address ([`super::client`]), not per cookie: a cookie costs one `GET /`.

use std::net::IpAddr;

use base64::Engine;
use hmac::{Hmac, Mac};
use http::HeaderMap;
use pingora::http::RequestHeader;
use rand::RngCore;
use sha2::Sha256;

use super::client::{Client, Peer, TrustedProxies, TrustedProxyError};
use crate::config::WebConfig;

/// Name of the tenant cookie.
pub(crate) const COOKIE_NAME: &str = "tarnkappe_tenant";

/// The only paths on which the cookie identifies a caller: the REST API the page calls.
pub(crate) const API_PREFIX: &str = "/api/v1/";

/// Prefix of the tenant id of a page caller, e.g. `web:3f…`.
pub(crate) const TENANT_PREFIX: &str = "web:";

/// Domain separation for the cookie MAC, so the secret signs nothing else by accident.
const MAC_CONTEXT: &[u8] = b"tarnkappe web tenant v1\0";
const ID_BYTES: usize = 16;
const MIN_SECRET_BYTES: usize = 32;

type HmacSha256 = Hmac<Sha256>;

/// Why the web configuration cannot be used (never contains the secret).
#[derive(Debug, thiserror::Error)]
pub enum WebConfigError {
    #[error("invalid value for web.cookie_secret: {0}")]
    CookieSecret(&'static str),
    #[error(transparent)]
    TrustedProxy(#[from] TrustedProxyError),
}

/// Whether the page is served: as configured, else only on a loopback listener (127.0.0.0/8,
/// `::1`). Any other address — `0.0.0.0` included — faces a network, where a keyless door to
/// the API must be opened on purpose.
pub(crate) fn resolve_enabled(configured: Option<bool>, listen: IpAddr) -> bool {
    configured.unwrap_or_else(|| listen.is_loopback())
}

/// The web page's process-wide state: whether it is on, the cookie signing key, the per-address
/// limit and the trusted proxies that name client addresses.
pub(crate) struct WebAccess {
    enabled: bool,
    secret: Vec<u8>,
    cookie_max_age: u64,
    rate_limit: u32,
    proxies: TrustedProxies,
}

impl std::fmt::Debug for WebAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebAccess")
            .field("enabled", &self.enabled)
            .field("cookie_max_age", &self.cookie_max_age)
            .field("rate_limit", &self.rate_limit)
            .finish_non_exhaustive()
    }
}

/// What the cookie of a request without `X-API-Key` amounts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CookieAuth {
    /// No tenant cookie at all.
    Absent,
    /// A valid cookie on a same-origin request: the caller is this tenant (`web:<id>`).
    Tenant(String),
    /// A cookie that is forged, from another origin, or sent while the page is switched off.
    Refused,
}

impl WebAccess {
    /// Builds the state from `[web]`; `cookie_max_age` is the cookie lifetime in seconds (the
    /// session lifetime, so a browser keeps its tenant as long as its sessions live), `listen`
    /// the listener's address (for the default of `enabled`), `default_rate` the per-address
    /// limit when `[web]` sets none.
    pub(crate) fn new(
        config: &WebConfig,
        cookie_max_age: u64,
        listen: IpAddr,
        default_rate: u32,
    ) -> Result<WebAccess, WebConfigError> {
        let secret = match &config.cookie_secret {
            Some(encoded) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(encoded.trim())
                    .map_err(|_| WebConfigError::CookieSecret("not valid base64"))?;
                if bytes.len() < MIN_SECRET_BYTES {
                    return Err(WebConfigError::CookieSecret(
                        "must decode to at least 32 bytes",
                    ));
                }
                bytes
            }
            None => {
                let mut bytes = vec![0u8; MIN_SECRET_BYTES];
                rand::rngs::OsRng.fill_bytes(&mut bytes);
                bytes
            }
        };
        Ok(WebAccess {
            enabled: resolve_enabled(config.enabled, listen),
            secret,
            cookie_max_age: cookie_max_age.max(1),
            rate_limit: config.rate_limit_per_minute.unwrap_or(default_rate).max(1),
            proxies: TrustedProxies::parse(&config.trusted_proxies, config.forwarded_header)?,
        })
    }

    /// Whether the page is served and its cookie accepted.
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// Fresh cookies, and cookie calls, per minute per client address (two windows).
    pub(crate) fn rate_limit(&self) -> u32 {
        self.rate_limit
    }

    /// The client of a request from `peer` (a trusted proxy's forwarding header considered).
    pub(crate) fn client(&self, peer: Peer, headers: &HeaderMap) -> Client {
        self.proxies.client(peer, headers)
    }

    fn tag(&self, id: &str) -> HmacSha256 {
        // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
        let mut mac = match HmacSha256::new_from_slice(&self.secret) {
            Ok(mac) => mac,
            Err(_) => unreachable!("HMAC takes keys of any length"),
        };
        mac.update(MAC_CONTEXT);
        mac.update(id.as_bytes());
        mac
    }

    /// A fresh tenant: its cookie value `<id>.<tag>`.
    pub(crate) fn issue(&self) -> String {
        let mut raw = [0u8; ID_BYTES];
        rand::rngs::OsRng.fill_bytes(&mut raw);
        let id: String = raw.iter().map(|b| format!("{b:02x}")).collect();
        let tag = self.tag(&id).finalize().into_bytes();
        format!(
            "{id}.{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(tag)
        )
    }

    /// The tenant id (`web:<id>`) of a cookie value, if its signature is ours.
    pub(crate) fn verify(&self, value: &str) -> Option<String> {
        let (id, tag) = value.split_once('.')?;
        let well_formed = id.len() == 2 * ID_BYTES
            && id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !well_formed || tag.len() > 64 {
            return None;
        }
        let tag = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(tag)
            .ok()?;
        // `verify_slice` compares in constant time.
        self.tag(id).verify_slice(&tag).ok()?;
        Some(format!("{TENANT_PREFIX}{id}"))
    }

    /// The `Set-Cookie` header value for a cookie value from [`Web::issue`]; `secure` when the
    /// browser's connection is https (so the cookie never travels in clear text afterwards).
    pub(crate) fn set_cookie(&self, value: &str, secure: bool) -> String {
        format!(
            "{COOKIE_NAME}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{}",
            self.cookie_max_age,
            if secure { "; Secure" } else { "" }
        )
    }

    /// Decides who a request without `X-API-Key` is, by its tenant cookie: a tenant only when
    /// the page is on, the request is for the REST API (`/api/v1/…`), the cookie verifies and
    /// the request passes the same-origin check.
    ///
    /// The cookie is handed to anyone who loads the page, so it must never open anything but
    /// the API the page uses: proxy routes that require a key (and may inject a provider
    /// credential) share the API's gate, and a cookie there is refused.
    pub(crate) fn authenticate(&self, req: &RequestHeader) -> CookieAuth {
        let values = cookie_values(&req.headers, COOKIE_NAME);
        if values.is_empty() {
            return CookieAuth::Absent;
        }
        let api_path = req.uri.path().starts_with(API_PREFIX);
        if !self.enabled || !api_path || !is_same_origin(req) {
            return CookieAuth::Refused;
        }
        values
            .iter()
            .find_map(|v| self.verify(v))
            .map_or(CookieAuth::Refused, CookieAuth::Tenant)
    }

    /// The request's valid cookie value, ignoring the origin (for serving the page).
    pub(crate) fn existing_cookie(&self, headers: &HeaderMap) -> Option<String> {
        cookie_values(headers, COOKIE_NAME)
            .into_iter()
            .find(|v| self.verify(v).is_some())
    }
}

/// Every value of cookie `name` in the request's `Cookie` header(s).
pub(crate) fn cookie_values(headers: &HeaderMap, name: &str) -> Vec<String> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|h| h.to_str().ok())
        .flat_map(|h| h.split(';'))
        .filter_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k.trim() == name).then(|| v.trim().trim_matches('"').to_owned())
        })
        .collect()
}

/// The request's own authority: the `Host` header, else the URI's authority (HTTP/2).
fn request_host(req: &RequestHeader) -> Option<String> {
    let host = req
        .headers
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned)
        .or_else(|| req.uri.authority().map(|a| a.as_str().to_owned()))?;
    let host = host.trim().to_ascii_lowercase();
    (!host.is_empty()).then_some(host)
}

/// The same-origin check for cookie calls: `Origin` equal to this server's origin, or (without
/// `Origin`) `Sec-Fetch-Site: same-origin`. Anything else — including neither header — fails.
///
/// The listener speaks plain HTTP, but a TLS-terminating reverse proxy in front of it makes the
/// browser's origin `https://<host>`; both schemes are accepted for exactly the request's host.
pub(crate) fn is_same_origin(req: &RequestHeader) -> bool {
    let mut origins = req.headers.get_all(http::header::ORIGIN).iter();
    if let Some(first) = origins.next() {
        // Exactly one readable `Origin`, naming this server; anything else fails.
        let (Ok(origin), None, Some(host)) = (first.to_str(), origins.next(), request_host(req))
        else {
            return false;
        };
        return origin_matches(origin, &host);
    }
    let mut sites = req.headers.get_all("sec-fetch-site").iter();
    matches!(
        (sites.next().and_then(|h| h.to_str().ok()), sites.next()),
        (Some(site), None) if site.trim().eq_ignore_ascii_case("same-origin")
    )
}

fn origin_matches(origin: &str, host: &str) -> bool {
    let origin = origin.trim().to_ascii_lowercase();
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    match rest {
        Some(authority) => authority == host || authority.strip_suffix('/') == Some(host),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOOPBACK: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    fn web() -> WebAccess {
        WebAccess::new(&WebConfig::default(), 3600, LOOPBACK, 120).expect("default web config")
    }

    fn request(method: &str, headers: &[(&str, &str)]) -> RequestHeader {
        let mut req = RequestHeader::build(method, b"/api/v1/anonymize", None).expect("request");
        for (k, v) in headers {
            req.append_header(k.to_string(), *v).expect("header");
        }
        req
    }

    #[test]
    fn issued_cookies_verify_and_differ() {
        let web = web();
        let a = web.issue();
        let b = web.issue();
        assert_ne!(a, b);
        let ta = web.verify(&a).expect("own cookie verifies");
        let tb = web.verify(&b).expect("own cookie verifies");
        assert!(ta.starts_with(TENANT_PREFIX));
        assert_ne!(ta, tb);
        assert_eq!(ta.len(), TENANT_PREFIX.len() + 32);
    }

    #[test]
    fn forged_and_foreign_cookies_fail() {
        let web = web();
        let other = super::tests::web();
        let value = web.issue();
        assert_eq!(other.verify(&value), None, "another secret");
        let (id, tag) = value.split_once('.').expect("dot");
        let mut flipped = id.to_owned().into_bytes();
        flipped[0] = if flipped[0] == b'a' { b'b' } else { b'a' };
        let flipped = String::from_utf8(flipped).expect("ascii");
        assert_eq!(web.verify(&format!("{flipped}.{tag}")), None, "changed id");
        assert_eq!(web.verify(id), None, "no tag");
        assert_eq!(web.verify(&format!("{id}.")), None, "empty tag");
        assert_eq!(web.verify(&format!("{}.{tag}", id.to_uppercase())), None);
        assert_eq!(web.verify(""), None);
        assert_eq!(web.verify("...."), None);
        assert_eq!(web.verify(&format!("{id}.{tag}{tag}{tag}")), None);
    }

    #[test]
    fn configured_secret_is_stable_and_validated() {
        let secret = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        let config = WebConfig {
            cookie_secret: Some(secret),
            ..WebConfig::default()
        };
        let a = WebAccess::new(&config, 60, LOOPBACK, 1).expect("valid secret");
        let b = WebAccess::new(&config, 60, LOOPBACK, 1).expect("valid secret");
        assert!(b.verify(&a.issue()).is_some(), "same secret, same verdict");

        let short = WebConfig {
            cookie_secret: Some(base64::engine::general_purpose::STANDARD.encode([7u8; 16])),
            ..WebConfig::default()
        };
        let err = WebAccess::new(&short, 60, LOOPBACK, 1)
            .expect_err("short secret")
            .to_string();
        assert!(err.contains("web.cookie_secret") && err.contains("32 bytes"));
        let bad = WebConfig {
            cookie_secret: Some("not base64 !!".into()),
            ..WebConfig::default()
        };
        let err = WebAccess::new(&bad, 60, LOOPBACK, 1)
            .expect_err("bad base64")
            .to_string();
        assert!(!err.contains("not base64 !!"), "never echo the secret");
    }

    #[test]
    fn set_cookie_has_the_required_attributes() {
        let web = web();
        let header = web.set_cookie(&web.issue(), false);
        assert!(header.starts_with("tarnkappe_tenant="));
        assert!(!header.contains("Secure"), "{header}");
        assert!(web.set_cookie("x", true).ends_with("; Secure"));
        for attr in [
            "; HttpOnly",
            "; SameSite=Strict",
            "; Path=/",
            "; Max-Age=3600",
        ] {
            assert!(header.contains(attr), "{attr} missing in {header}");
        }
    }

    #[test]
    fn cookie_values_are_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.append("cookie", "a=1; tarnkappe_tenant=x.y ;b=2".parse().unwrap());
        headers.append("cookie", "tarnkappe_tenant=z".parse().unwrap());
        assert_eq!(cookie_values(&headers, COOKIE_NAME), vec!["x.y", "z"]);
        assert!(cookie_values(&headers, "missing").is_empty());
    }

    #[test]
    fn same_origin_accepts_own_origin_or_fetch_metadata_only() {
        let host = ("host", "127.0.0.1:8080");
        let ok = |h: &[(&str, &str)]| is_same_origin(&request("POST", h));
        assert!(ok(&[host, ("origin", "http://127.0.0.1:8080")]));
        assert!(ok(&[host, ("origin", "https://127.0.0.1:8080")]));
        assert!(ok(&[
            ("host", "Example.ORG"),
            ("origin", "http://example.org")
        ]));
        assert!(ok(&[host, ("sec-fetch-site", "same-origin")]));

        assert!(!ok(&[host]), "neither header");
        assert!(!ok(&[host, ("origin", "http://evil.example")]));
        assert!(!ok(&[host, ("origin", "http://127.0.0.1:8081")]));
        assert!(!ok(&[host, ("origin", "http://127.0.0.1")]));
        assert!(!ok(&[
            host,
            ("origin", "http://127.0.0.1:8080.evil.example")
        ]));
        assert!(!ok(&[host, ("origin", "null")]));
        assert!(!ok(&[host, ("origin", "ftp://127.0.0.1:8080")]));
        assert!(
            !ok(&[
                host,
                ("origin", "http://evil.example"),
                ("sec-fetch-site", "same-origin")
            ]),
            "a foreign Origin wins over fetch metadata"
        );
        assert!(!ok(&[host, ("sec-fetch-site", "cross-site")]));
        assert!(!ok(&[host, ("sec-fetch-site", "same-site")]));
        assert!(!ok(&[host, ("sec-fetch-site", "none")]));
        assert!(!ok(&[("origin", "http://127.0.0.1:8080")]), "no host");
        assert!(
            !ok(&[
                host,
                ("origin", "http://127.0.0.1:8080"),
                ("origin", "http://evil.example")
            ]),
            "two origins"
        );
        let mut req = request("POST", &[host, ("sec-fetch-site", "same-origin")]);
        req.append_header(
            "origin",
            http::HeaderValue::from_bytes(b"http://\xff").unwrap(),
        )
        .unwrap();
        assert!(!is_same_origin(&req), "an unreadable Origin is not ignored");
    }

    #[test]
    fn authenticate_combines_cookie_origin_and_switch() {
        let web = web();
        let value = web.issue();
        let cookie = format!("{COOKIE_NAME}={value}");
        let tenant = web.verify(&value).expect("valid");
        let host = ("host", "localhost:9000");
        let same = ("origin", "http://localhost:9000");
        let foreign = ("origin", "http://attacker.example");

        let req = request("POST", &[host, same, ("cookie", &cookie)]);
        assert_eq!(web.authenticate(&req), CookieAuth::Tenant(tenant));
        let req = request("POST", &[host, foreign, ("cookie", &cookie)]);
        assert_eq!(web.authenticate(&req), CookieAuth::Refused);
        let req = request("POST", &[host, same]);
        assert_eq!(web.authenticate(&req), CookieAuth::Absent);
        let req = request(
            "POST",
            &[host, same, ("cookie", "tarnkappe_tenant=forged.x")],
        );
        assert_eq!(web.authenticate(&req), CookieAuth::Refused);

        // Not on proxy routes, even those behind the API's key gate.
        for path in [
            "/v1/chat/completions",
            "/api/chat",
            "/api/v1",
            "/x/api/v1/anonymize",
        ] {
            let mut req = RequestHeader::build("POST", path.as_bytes(), None).expect("request");
            for (k, v) in [host, same, ("cookie", cookie.as_str())] {
                req.append_header(k.to_string(), v).expect("header");
            }
            assert_eq!(web.authenticate(&req), CookieAuth::Refused, "{path}");
        }

        let off = WebAccess::new(
            &WebConfig {
                enabled: Some(false),
                ..WebConfig::default()
            },
            60,
            LOOPBACK,
            1,
        )
        .expect("config");
        let value = off.issue();
        let cookie = format!("{COOKIE_NAME}={value}");
        let req = request("POST", &[host, same, ("cookie", &cookie)]);
        assert_eq!(off.authenticate(&req), CookieAuth::Refused);
    }

    #[test]
    fn the_page_is_on_by_default_only_on_a_loopback_listener() {
        for (addr, on) in [
            ("127.0.0.1", true),
            ("127.0.0.2", true),
            ("::1", true),
            ("0.0.0.0", false),
            ("::", false),
            ("192.0.2.10", false),
        ] {
            let addr: IpAddr = addr.parse().expect("address");
            assert_eq!(resolve_enabled(None, addr), on, "{addr}");
            assert!(resolve_enabled(Some(true), addr));
            assert!(!resolve_enabled(Some(false), addr));
        }
        let config = WebConfig::default();
        let wildcard =
            WebAccess::new(&config, 60, "0.0.0.0".parse().expect("ip"), 1).expect("config");
        assert!(!wildcard.enabled());
    }

    #[test]
    fn the_per_address_limit_defaults_to_the_api_limit() {
        assert_eq!(web().rate_limit(), 120);
        let config = WebConfig {
            rate_limit_per_minute: Some(7),
            ..WebConfig::default()
        };
        let web = WebAccess::new(&config, 60, LOOPBACK, 120).expect("config");
        assert_eq!(web.rate_limit(), 7);
        let bad = WebConfig {
            trusted_proxies: vec!["10.0.0.0/8".into(), "not an address".into()],
            ..WebConfig::default()
        };
        let err = WebAccess::new(&bad, 60, LOOPBACK, 1).expect_err("bad proxy");
        assert!(err.to_string().contains("web.trusted_proxies[1]"), "{err}");
    }
}
