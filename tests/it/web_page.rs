//! The web page over real HTTP (no browser): how `/` is served, the tenant cookie it issues,
//! and the configuration switch. The browser tests are in `web_e2e.rs`.

use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE};
use tarnkappe::config::DEFAULT_TOML;

use crate::harness;
use crate::harness::http::client;
use crate::harness::server::TestServer;
use crate::harness::web::tenant_cookie;

const KEYS: (&str, &str) = ("TARNKAPPE_API_KEYS", "ops:ops-key");

/// A config file: the shipped defaults with the page switched on or off and a fixed cookie
/// secret.
fn config_with_web(dir: &std::path::Path, enabled: bool, secret_b64: &str) -> String {
    harness::config::config_with(
        dir,
        &format!("enabled = {enabled}\ncookie_secret = \"{secret_b64}\""),
    )
}

#[test]
fn the_page_is_served_self_contained_with_a_tenant_cookie() {
    let server = TestServer::start(&[KEYS]);
    let resp = client().get(server.url("/")).send().expect("GET /");
    assert_eq!(resp.status(), 200);
    let headers = resp.headers().clone();
    assert_eq!(headers[CONTENT_TYPE], "text/html; charset=utf-8");
    let cookie = tenant_cookie(&resp).expect("a tenant cookie is issued with the page");
    for attr in [
        "; HttpOnly",
        "; SameSite=Strict",
        "; Path=/",
        "; Max-Age=86400",
    ] {
        assert!(cookie.contains(attr), "{attr} missing: {cookie}");
    }
    let csp = headers["content-security-policy"].to_str().expect("ascii");
    assert!(csp.contains("default-src 'none'") && csp.contains("connect-src 'self'"));
    assert!(csp.contains("script-src 'sha256-") && !csp.contains("unsafe-inline"));
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["cache-control"], "no-store");
    let length: usize = headers[CONTENT_LENGTH]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("number");
    let body = resp.text().expect("body");
    assert_eq!(body.len(), length);
    assert!(body.contains("<title>Tarnkappe"));
    assert!(
        !body.contains("http://") && !body.contains("https://"),
        "nothing external"
    );
    assert_eq!(body, tarnkappe::web::page_html());
}

#[test]
fn a_valid_cookie_is_kept_and_a_forged_one_replaced() {
    let server = TestServer::start(&[KEYS]);
    let first = client().get(server.url("/")).send().expect("GET /");
    let set = tenant_cookie(&first).expect("cookie");
    let pair = set.split(';').next().expect("name=value").to_owned();

    let again = client()
        .get(server.url("/"))
        .header("cookie", &pair)
        .send()
        .expect("GET / with cookie");
    assert_eq!(again.status(), 200);
    assert_eq!(
        tenant_cookie(&again).as_deref(),
        Some(set.as_str()),
        "the browser keeps its tenant; the lifetime restarts"
    );

    let forged = client()
        .get(server.url("/"))
        .header(
            "cookie",
            "tarnkappe_tenant=00000000000000000000000000000000.AAAA",
        )
        .send()
        .expect("GET / with forged cookie");
    let fresh = tenant_cookie(&forged).expect("a forged cookie is replaced");
    assert_ne!(fresh, set);
}

#[test]
fn a_cross_site_navigation_reloads_instead_of_replacing_the_tenant() {
    let server = TestServer::start(&[KEYS]);
    // A SameSite=Strict cookie is not sent on a navigation from another site; the server must
    // not take that for a new browser.
    let resp = client()
        .get(server.url("/"))
        .header("sec-fetch-site", "cross-site")
        .send()
        .expect("GET /");
    assert_eq!(resp.status(), 200);
    assert_eq!(tenant_cookie(&resp), None);
    let body = resp.text().expect("body");
    assert!(body.contains("http-equiv=\"refresh\""), "{body}");

    let resp = client()
        .get(server.url("/?tenant=1"))
        .header("sec-fetch-site", "cross-site")
        .send()
        .expect("GET /?tenant=1");
    assert!(tenant_cookie(&resp).is_some(), "the reload gets a cookie");
}

#[test]
fn only_get_and_head_are_allowed_on_the_page() {
    let server = TestServer::start(&[KEYS]);
    let resp = client().post(server.url("/")).send().expect("POST /");
    assert_eq!(resp.status(), 405);
    assert_eq!(resp.headers()["allow"], "GET, HEAD");
    let body: serde_json::Value = resp.json().expect("json");
    assert_eq!(body["error"], "method_not_allowed");

    let resp = client().head(server.url("/")).send().expect("HEAD /");
    assert_eq!(resp.status(), 200);
    let length: usize = resp.headers()[CONTENT_LENGTH]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("number");
    assert_eq!(length, tarnkappe::web::page_html().len());
    assert_eq!(resp.bytes().expect("body").len(), 0);
}

#[test]
fn switched_off_the_page_is_not_served() {
    let dir = tempfile::tempdir().expect("dir");
    let secret = harness::fixtures::SECRET;
    let config = config_with_web(dir.path(), false, secret);
    let server = TestServer::start_with_args(&[KEYS], &["--config", &config]);
    let resp = client().get(server.url("/")).send().expect("GET /");
    assert_eq!(resp.status(), 404);
    assert_eq!(tenant_cookie(&resp), None);
    let body: serde_json::Value = resp.json().expect("json");
    assert_eq!(body["error"], "not_found");
}

#[test]
fn a_short_cookie_secret_stops_the_start() {
    let dir = tempfile::tempdir().expect("dir");
    let config = config_with_web(dir.path(), true, "c2hvcnQ=");
    let (status, stderr) = harness::server::refused_start(
        &[("TARNKAPPE_API_KEYS", "ops:ops-key")],
        &["--config", &config],
    );
    assert!(!status.success());
    assert!(stderr.contains("web.cookie_secret"), "{stderr}");
    assert!(!stderr.contains("c2hvcnQ="), "the secret is never echoed");
}

/// The `name=value` part of the tenant cookie that `GET /` issues.
fn fetch_cookie(server: &TestServer) -> String {
    let resp = client().get(server.url("/")).send().expect("GET /");
    harness::web::cookie_pair(&resp).expect("cookie")
}

fn anonymize_with_cookie(
    server: &TestServer,
    cookie: &str,
    origin: &str,
) -> reqwest::blocking::Response {
    client()
        .post(server.url("/api/v1/anonymize"))
        .header("cookie", cookie)
        .header("origin", origin)
        .json(&serde_json::json!({ "text": "IBAN DE89 3704 0044 0532 0130 00" }))
        .send()
        .expect("POST /anonymize")
}

#[test]
fn the_cookie_is_a_tenant_of_its_own_with_the_default_limit() {
    let server = TestServer::start(&[KEYS, ("TARNKAPPE_RATE_LIMIT", "50")]);
    let cookie = fetch_cookie(&server);
    let origin = format!("http://{}", server.addr);
    let resp = anonymize_with_cookie(&server, &cookie, &origin);
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["x-ratelimit-limit"], "50");
    let body: serde_json::Value = resp.json().expect("json");
    let session = body["session_id"].as_str().expect("session id").to_owned();

    // The operator's key is another tenant: it cannot read or delete the page's session.
    let resp = client()
        .post(server.url("/api/v1/deanonymize"))
        .header("x-api-key", "ops-key")
        .json(&serde_json::json!({ "text": "[[IBAN_1]]", "session_id": session }))
        .send()
        .expect("deanonymize with key");
    assert_eq!(resp.status(), 404);
    let resp = client()
        .delete(server.url(&format!("/api/v1/session/{session}")))
        .header("x-api-key", "ops-key")
        .send()
        .expect("delete with key");
    assert_eq!(resp.status(), 404);

    // A key, when present, decides alone: a wrong key with a valid cookie is 401.
    let resp = client()
        .post(server.url("/api/v1/anonymize"))
        .header("cookie", &cookie)
        .header("origin", &origin)
        .header("x-api-key", "wrong")
        .json(&serde_json::json!({ "text": "x" }))
        .send()
        .expect("call");
    assert_eq!(resp.status(), 401);

    // The cookie's owner deletes its session.
    let resp = client()
        .delete(server.url(&format!("/api/v1/session/{session}")))
        .header("cookie", &cookie)
        .header("origin", &origin)
        .send()
        .expect("delete with cookie");
    assert_eq!(resp.status(), 200);

    let value = cookie.split_once('=').expect("name=value").1;
    assert!(!server.log().contains(value), "the cookie is never logged");
    assert!(!server.log().contains("DE89"), "nor the text");
}

#[test]
fn switched_off_a_valid_cookie_gets_401() {
    let dir = tempfile::tempdir().expect("dir");
    let secret = harness::fixtures::SECRET;
    // First with the page on, to obtain a cookie signed with this secret…
    let on = config_with_web(dir.path(), true, secret);
    let server = TestServer::start_with_args(&[KEYS], &["--config", &on]);
    let cookie = fetch_cookie(&server);
    let origin = format!("http://{}", server.addr);
    assert_eq!(
        anonymize_with_cookie(&server, &cookie, &origin).status(),
        200
    );
    drop(server);
    // …then the same secret with the page off: the same cookie is refused.
    let off = config_with_web(dir.path(), false, secret);
    let server = TestServer::start_with_args(&[KEYS], &["--config", &off]);
    let origin = format!("http://{}", server.addr);
    let resp = anonymize_with_cookie(&server, &cookie, &origin);
    assert_eq!(resp.status(), 401);
    let body: serde_json::Value = resp.json().expect("json");
    assert_eq!(body["error"], "unauthorized");
}

#[test]
fn a_cookie_survives_a_restart_with_a_configured_secret() {
    let dir = tempfile::tempdir().expect("dir");
    let secret = harness::fixtures::SECRET;
    let config = config_with_web(dir.path(), true, secret);
    let first = TestServer::start_with_args(&[KEYS], &["--config", &config]);
    let cookie = fetch_cookie(&first);
    drop(first);
    let second = TestServer::start_with_args(&[KEYS], &["--config", &config]);
    let origin = format!("http://{}", second.addr);
    assert_eq!(
        anonymize_with_cookie(&second, &cookie, &origin).status(),
        200
    );
    // Without a configured secret, each process signs with its own random key.
    let third = TestServer::start(&[KEYS]);
    let origin = format!("http://{}", third.addr);
    assert_eq!(
        anonymize_with_cookie(&third, &cookie, &origin).status(),
        401
    );
}

#[test]
fn the_cookie_does_not_open_proxy_routes_that_require_a_key() {
    // Anyone who loads the page gets a cookie; a proxy route behind the key gate (which may
    // inject the operator's provider credential) must not accept it.
    let upstream = format!("http://127.0.0.1:{}", harness::server::free_port());
    let text = format!(
        "{DEFAULT_TOML}\n[[route]]\nprefix = \"/guarded/\"\nupstream = \"{upstream}\"\nformat = \"openai\"\nrequire_key = true\n"
    );
    let server = TestServer::start_with_config(&[KEYS], &text);
    let cookie = fetch_cookie(&server);
    let origin = format!("http://{}", server.addr);
    let body =
        serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "Hallo"}]});

    let resp = client()
        .post(server.url("/guarded/v1/chat/completions"))
        .header("cookie", &cookie)
        .header("origin", &origin)
        .json(&body)
        .send()
        .expect("proxy call with the cookie");
    assert_eq!(resp.status(), 401);

    // Control: the same request with the key passes the gate (and then fails upstream).
    let resp = client()
        .post(server.url("/guarded/v1/chat/completions"))
        .header("x-api-key", "ops-key")
        .json(&body)
        .send()
        .expect("proxy call with the key");
    assert_ne!(resp.status(), 401);
    // And the cookie still works where it belongs.
    assert_eq!(
        anonymize_with_cookie(&server, &cookie, &origin).status(),
        200
    );
}
