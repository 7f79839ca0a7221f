//! The web page is no keyless, unlimited door to the API: fresh cookies and cookie calls are
//! limited per client address (the socket's, or what a trusted proxy's forwarding header says),
//! shared through Redis by replicas; the page is on by default only on a loopback listener; the
//! cookie is `Secure` when the browser's connection is https.
//!
//! Client addresses are real: the client socket is bound to 127.0.0.1 or 127.0.0.2, and a
//! trusted proxy is simulated by a client on the trusted address that sends forwarding headers.

use reqwest::blocking::{Client, Response};
use serde_json::json;

use crate::harness::api::assert_error;
use crate::harness::config::config_with;
use crate::harness::fixtures::SECRET;
use crate::harness::http::{client, client_from};
use crate::harness::metrics::{metrics, sample};
use crate::harness::server::TestServer;
use crate::harness::web::{cookie_pair, tenant_cookie};

const KEYS: (&str, &str) = ("TARNKAPPE_API_KEYS", "ops:ops-key");

fn get_page(c: &Client, s: &TestServer, headers: &[(&str, &str)]) -> Response {
    let mut req = c.get(s.url("/"));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().expect("GET /")
}

/// `POST /anonymize` as the page does it: the cookie, and `Origin` of this server.
fn call_with_cookie(
    c: &Client,
    s: &TestServer,
    cookie: &str,
    headers: &[(&str, &str)],
) -> Response {
    let mut req = c
        .post(s.url("/api/v1/anonymize"))
        .header("cookie", cookie)
        .header("origin", format!("http://{}", s.addr))
        .json(&json!({ "text": "Kein Personenbezug." }));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().expect("POST /anonymize")
}

fn assert_rate_limited(resp: Response) {
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("seconds");
    assert!((1..=60).contains(&retry), "Retry-After {retry}");
    assert_eq!(tenant_cookie(&resp), None, "no cookie with a 429");
    assert_error(resp, 429, "rate_limited");
}

/// The value of one metrics series (`name{labels}`), 0 when absent.
fn metric(s: &TestServer, series: &str) -> f64 {
    sample(&metrics(s), series)
}

#[test]
fn fresh_cookies_from_one_address_stop_at_the_limit_and_another_address_is_unaffected() {
    let s = TestServer::start(&[KEYS, ("TARNKAPPE_RATE_LIMIT", "3")]);
    let one = client_from("127.0.0.1");
    let mut first = None;
    for remaining in ["2", "1", "0"] {
        let resp = get_page(&one, &s, &[]);
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.headers()["x-ratelimit-limit"], "3");
        assert_eq!(resp.headers()["x-ratelimit-remaining"], remaining);
        let pair = cookie_pair(&resp).expect("a fresh cookie");
        first.get_or_insert(pair);
    }
    assert_rate_limited(get_page(&one, &s, &[]));
    let head = one.head(s.url("/")).send().expect("HEAD /");
    assert_eq!(head.status(), 429, "HEAD issues cookies too");

    // A browser that shows its valid cookie gets no fresh one: it is served, its cookie renewed.
    let first = first.expect("cookie");
    let resp = get_page(&one, &s, &[("cookie", &first)]);
    assert_eq!(resp.status(), 200);
    assert_eq!(cookie_pair(&resp).as_deref(), Some(first.as_str()));

    // Another address has its own budget.
    let two = client_from("127.0.0.2");
    let resp = get_page(&two, &s, &[]);
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["x-ratelimit-remaining"], "2");
    assert!(cookie_pair(&resp).is_some());

    assert_eq!(
        metric(&s, r#"tarnkappe_web_cookies_total{outcome="issued"}"#),
        4.0
    );
    assert_eq!(
        metric(&s, r#"tarnkappe_web_cookies_total{outcome="rate_limited"}"#),
        2.0
    );
}

#[test]
fn cookie_calls_are_limited_per_address_not_per_cookie() {
    // The reproduction of the issue: one client, many fresh cookies, many calls.
    let s = TestServer::start(&[KEYS, ("TARNKAPPE_RATE_LIMIT", "5")]);
    let one = client_from("127.0.0.1");
    let cookies: Vec<String> = (0..5)
        .map(|_| cookie_pair(&get_page(&one, &s, &[])).expect("cookie"))
        .collect();
    for (i, remaining) in ["4", "3", "2", "1", "0"].iter().enumerate() {
        let resp = call_with_cookie(&one, &s, &cookies[i], &[]);
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.headers()["x-ratelimit-limit"], "5");
        assert_eq!(resp.headers()["x-ratelimit-remaining"], *remaining);
    }
    for cookie in [&cookies[0], &cookies[4]] {
        assert_rate_limited(call_with_cookie(&one, &s, cookie, &[]));
    }
    // The cookie of another address, from that address, has its own budget.
    let two = client_from("127.0.0.2");
    let cookie = cookie_pair(&get_page(&two, &s, &[])).expect("cookie");
    let resp = call_with_cookie(&two, &s, &cookie, &[]);
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["x-ratelimit-remaining"], "4");
    // A key is limited per key, whatever the address.
    let resp = one
        .post(s.url("/api/v1/anonymize"))
        .header("x-api-key", "ops-key")
        .json(&json!({ "text": "x" }))
        .send()
        .expect("keyed call");
    assert_eq!(resp.status(), 200);

    let series = |auth: &str, outcome: &str| {
        metric(
            &s,
            &format!(
                r#"tarnkappe_authenticated_requests_total{{auth="{auth}",outcome="{outcome}"}}"#
            ),
        )
    };
    assert_eq!(series("cookie", "admitted"), 6.0);
    assert_eq!(series("cookie", "rate_limited"), 2.0);
    assert_eq!(series("key", "admitted"), 1.0);
    assert_eq!(series("key", "rate_limited"), 0.0);
}

#[test]
fn x_forwarded_for_names_the_client_only_from_a_trusted_proxy() {
    let s = TestServer::start(&[
        KEYS,
        ("TARNKAPPE_RATE_LIMIT", "2"),
        ("TARNKAPPE_TRUSTED_PROXIES", "127.0.0.1"),
    ]);
    let proxy = client_from("127.0.0.1");
    let page = |c: &Client, xff: &str| get_page(c, &s, &[("x-forwarded-for", xff)]);
    for _ in 0..2 {
        assert_eq!(page(&proxy, "198.51.100.1").status(), 200);
    }
    assert_rate_limited(page(&proxy, "198.51.100.1"));
    // A client that prepends another address is still the one the proxy appended.
    assert_rate_limited(page(&proxy, "203.0.113.77, 198.51.100.1"));
    assert_eq!(page(&proxy, "198.51.100.2").status(), 200);
    // Without a forwarding header, the proxy itself is the client; `Forwarded` is not the
    // configured header and is ignored.
    assert_eq!(get_page(&proxy, &s, &[]).status(), 200);
    let forwarded = get_page(&proxy, &s, &[("forwarded", "for=198.51.100.3")]);
    assert_eq!(forwarded.status(), 200);
    assert_rate_limited(get_page(&proxy, &s, &[("forwarded", "for=198.51.100.4")]));

    // From an untrusted peer the header is ignored: changing it buys nothing.
    let untrusted = client_from("127.0.0.2");
    assert_eq!(page(&untrusted, "198.51.100.5").status(), 200);
    assert_eq!(page(&untrusted, "198.51.100.6").status(), 200);
    assert_rate_limited(page(&untrusted, "198.51.100.7"));

    // Cookie calls are counted by the same client address.
    let cookie = cookie_pair(&page(&proxy, "198.51.100.8")).expect("cookie");
    let call = |xff: &str| call_with_cookie(&proxy, &s, &cookie, &[("x-forwarded-for", xff)]);
    assert_eq!(call("198.51.100.8").status(), 200);
    assert_eq!(call("198.51.100.8").status(), 200);
    assert_rate_limited(call("198.51.100.8"));
    assert_eq!(call("198.51.100.9").status(), 200);
}

#[test]
fn forwarded_names_the_client_when_configured() {
    let dir = tempfile::tempdir().expect("dir");
    let config = config_with(
        dir.path(),
        "trusted_proxies = [\"127.0.0.1\"]\nforwarded_header = \"forwarded\"\nrate_limit_per_minute = 1",
    );
    let s = TestServer::start_with_args(&[KEYS], &["--config", &config]);
    let proxy = client_from("127.0.0.1");
    let page = |value: &str| get_page(&proxy, &s, &[("forwarded", value)]);
    let resp = page("for=198.51.100.1;proto=https");
    assert_eq!(resp.status(), 200);
    assert!(tenant_cookie(&resp).expect("cookie").contains("; Secure"));
    assert_rate_limited(page("for=198.51.100.1"));
    // IPv6 clients are counted per /64.
    assert_eq!(page("for=\"[2001:db8:1:2::1]:4711\"").status(), 200);
    assert_rate_limited(page("for=\"[2001:db8:1:2::99]\""));
    assert_eq!(page("for=\"[2001:db8:1:3::1]\"").status(), 200);
    // X-Forwarded-For is not the configured header: the proxy itself is the client.
    let xff = |a: &str| get_page(&proxy, &s, &[("x-forwarded-for", a)]);
    assert_eq!(xff("198.51.100.2").status(), 200);
    assert_rate_limited(xff("198.51.100.3"));
}

#[test]
fn the_cookie_is_secure_when_a_trusted_proxy_says_https() {
    let s = TestServer::start(&[KEYS, ("TARNKAPPE_TRUSTED_PROXIES", "127.0.0.1")]);
    let proxy = client_from("127.0.0.1");
    let https = [
        ("x-forwarded-for", "198.51.100.1"),
        ("x-forwarded-proto", "https"),
    ];
    let resp = get_page(&proxy, &s, &https);
    let cookie = tenant_cookie(&resp).expect("cookie");
    assert!(cookie.contains("; Secure"), "{cookie}");
    assert!(cookie.contains("; HttpOnly") && cookie.contains("; SameSite=Strict"));
    let pair = cookie_pair(&resp).expect("cookie");
    // Renewed, it stays Secure.
    let mut with_cookie = https.to_vec();
    with_cookie.push(("cookie", pair.as_str()));
    let renewed = tenant_cookie(&get_page(&proxy, &s, &with_cookie)).expect("renewed");
    assert!(renewed.contains("; Secure"), "{renewed}");
    // The browser's origin behind the TLS proxy is https://<host>: its calls are accepted.
    let resp = proxy
        .post(s.url("/api/v1/anonymize"))
        .header("cookie", &pair)
        .header("origin", format!("https://{}", s.addr))
        .header("x-forwarded-for", "198.51.100.1")
        .header("x-forwarded-proto", "https")
        .json(&json!({ "text": "x" }))
        .send()
        .expect("call");
    assert_eq!(resp.status(), 200);

    for (c, headers) in [
        (&proxy, vec![("x-forwarded-proto", "http")]),
        (&proxy, vec![]),
        // An untrusted peer cannot claim https.
        (
            &client_from("127.0.0.2"),
            vec![("x-forwarded-proto", "https")],
        ),
    ] {
        let cookie = tenant_cookie(&get_page(c, &s, &headers)).expect("cookie");
        assert!(!cookie.contains("Secure"), "{headers:?}: {cookie}");
    }
}

#[test]
fn the_page_is_on_by_default_only_on_a_loopback_listener() {
    let dir = tempfile::tempdir().expect("dir");
    // `enabled` unset; a fixed secret so that a cookie from one server is valid on the next.
    let config = config_with(dir.path(), &format!("cookie_secret = \"{SECRET}\""));
    let args = ["--config", config.as_str()];

    let loopback = TestServer::start_with_args(&[KEYS], &args);
    let resp = get_page(&client(), &loopback, &[]);
    assert_eq!(resp.status(), 200);
    let cookie = cookie_pair(&resp).expect("cookie");
    assert!(
        !loopback.log().contains("web page"),
        "nothing to say on loopback"
    );
    drop(loopback);

    // 0.0.0.0 faces every network of the host: the page is off, and so is its cookie.
    let wildcard = TestServer::start_with_args(&[KEYS, ("TARNKAPPE_LISTEN", "0.0.0.0:0")], &args);
    let resp = get_page(&client(), &wildcard, &[]);
    assert_eq!(tenant_cookie(&resp), None);
    assert_error(resp, 404, "not_found");
    assert_error(
        call_with_cookie(&client(), &wildcard, &cookie, &[]),
        401,
        "unauthorized",
    );
    let log = wildcard.log();
    assert_eq!(log.matches("web page").count(), 1, "{log}");
    assert!(log.contains("the web page at / is off"), "{log}");
    drop(wildcard);

    // Switched on explicitly (here by the environment), it is served, and start-up says once
    // that it is open to the network.
    let open = TestServer::start_with_args(
        &[
            KEYS,
            ("TARNKAPPE_LISTEN", "0.0.0.0:0"),
            ("TARNKAPPE_WEB_ENABLED", "true"),
        ],
        &args,
    );
    assert_eq!(get_page(&client(), &open, &[]).status(), 200);
    assert_eq!(
        call_with_cookie(&client(), &open, &cookie, &[]).status(),
        200
    );
    let log = open.log();
    assert_eq!(log.matches("web page").count(), 1, "{log}");
    assert!(log.contains("open to the network"), "{log}");

    // The same with `[web] enabled = true` in the file.
    let on = config_with(
        dir.path(),
        &format!("enabled = true\ncookie_secret = \"{SECRET}\""),
    );
    let open = TestServer::start_with_args(
        &[KEYS, ("TARNKAPPE_LISTEN", "0.0.0.0:0")],
        &["--config", &on],
    );
    assert_eq!(get_page(&client(), &open, &[]).status(), 200);
}

/// Replicas on the shared Redis: the full tier.
#[cfg(feature = "full-tier")]
mod on_redis {
    use super::*;
    use crate::harness;

    #[test]
    fn replicas_on_one_redis_share_the_per_address_windows() {
        let prefix = harness::redis::unique_prefix("web-windows");
        let mut conn = harness::redis::shared_redis();
        let dir = tempfile::tempdir().expect("dir");
        let config = config_with(dir.path(), &format!("cookie_secret = \"{SECRET}\""));
        let replica = || {
            TestServer::start_with_args(
                &[
                    KEYS,
                    ("TARNKAPPE_RATE_LIMIT", "3"),
                    ("TARNKAPPE_REDIS_URL", harness::redis::SHARED_REDIS),
                    ("TARNKAPPE_REDIS_KEY_PREFIX", &prefix),
                    (
                        "TARNKAPPE_ENCRYPTION_KEY",
                        harness::fixtures::ENCRYPTION_KEY,
                    ),
                ],
                &["--config", &config],
            )
        };
        let (a, b) = (replica(), replica());
        let one = client_from("127.0.0.1");
        let cookie = cookie_pair(&get_page(&one, &a, &[])).expect("cookie");
        assert_eq!(get_page(&one, &b, &[]).status(), 200);
        assert_eq!(get_page(&one, &a, &[]).status(), 200);
        assert_rate_limited(get_page(&one, &b, &[]));
        assert_eq!(get_page(&client_from("127.0.0.2"), &b, &[]).status(), 200);

        for s in [&a, &b, &a] {
            assert_eq!(call_with_cookie(&one, s, &cookie, &[]).status(), 200);
        }
        assert_rate_limited(call_with_cookie(&one, &b, &cookie, &[]));
        harness::redis::delete_prefix(&mut conn, &prefix);
    }
}
