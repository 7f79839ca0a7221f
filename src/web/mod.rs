//! The web page at `/` (docs/api.md, "Authentication and tenants"): one HTML document with its CSS
//! and JavaScript embedded in the binary, served with a strict Content-Security-Policy that allows
//! exactly the embedded style and script (by hash) and connections to this origin only. Who may
//! have it, and the tenant cookie it carries, is [`crate::access::WebAccess`]'s job.

use std::sync::OnceLock;

use base64::Engine;
use bytes::Bytes;
use pingora::http::RequestHeader;
use sha2::{Digest, Sha256};

use crate::access::WebAccess;
use crate::http::Reply;

const PAGE_TEMPLATE: &str = include_str!("page.html");
const PAGE_CSS: &str = include_str!("page.css");
const PAGE_JS: &str = include_str!("page.js");

/// What `GET /` answers (see [`page_reply`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PageAnswer {
    /// The page with the browser's valid cookie again (its lifetime restarts).
    Renew(String),
    /// The reload document for a cross-site navigation (no cookie).
    Reload,
    /// The page with a fresh cookie: counted against the client's cookie window.
    Issue,
}

/// The page with its style and script inlined, and the CSP that admits exactly those.
struct Page {
    html: Bytes,
    csp: String,
}

fn sha256_b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
}

fn page() -> &'static Page {
    static PAGE: OnceLock<Page> = OnceLock::new();
    PAGE.get_or_init(|| {
        let html = PAGE_TEMPLATE
            .replacen("/*PAGE_CSS*/", PAGE_CSS, 1)
            .replacen("/*PAGE_JS*/", PAGE_JS, 1);
        let csp = format!(
            "default-src 'none'; style-src 'sha256-{}'; script-src 'sha256-{}'; \
             connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; \
             frame-ancestors 'none'",
            sha256_b64(PAGE_CSS),
            sha256_b64(PAGE_JS)
        );
        Page {
            html: Bytes::from(html),
            csp,
        }
    })
}

/// The complete page as served (for tests and tools).
pub fn page_html() -> &'static str {
    // Built from UTF-8 templates, so this never fails.
    std::str::from_utf8(&page().html).unwrap_or_default()
}

/// A tiny document that reloads `/` from the page's own origin; see [`page_reply`].
const RELOAD_HTML: &str = "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0; url=/?tenant=1\"><title>Tarnkappe</title><link rel=\"icon\" href=\"data:,\"><p><a href=\"/?tenant=1\">Tarnkappe</a></p>";

/// What `GET /` (and `HEAD /`; the API router checks the method) answers: the page with the
/// browser's tenant cookie — its valid one again (so the lifetime restarts with every visit),
/// else a new one.
///
/// A `SameSite=Strict` cookie is not sent on a navigation that comes from another site (a
/// link); issuing a new cookie then would silently replace the browser's tenant and orphan its
/// sessions. Such a navigation gets a one-line document that reloads the page from its own
/// origin instead, where the existing cookie is sent (or a new one is issued).
pub(crate) fn page_answer(req: &RequestHeader, web: &WebAccess) -> PageAnswer {
    if let Some(value) = web.existing_cookie(&req.headers) {
        return PageAnswer::Renew(value);
    }
    let cross_site_navigation = req
        .headers
        .get("sec-fetch-site")
        .and_then(|h| h.to_str().ok())
        .is_some_and(|s| {
            s.eq_ignore_ascii_case("cross-site") || s.eq_ignore_ascii_case("same-site")
        });
    let already_reloaded = req
        .uri
        .query()
        .is_some_and(|q| q.split('&').any(|p| p == "tenant=1"));
    if cross_site_navigation && !already_reloaded {
        PageAnswer::Reload
    } else {
        PageAnswer::Issue
    }
}

/// The reply for `answer` (from [`page_answer`], after the caller has counted a fresh cookie
/// against the client's window); the cookie is `Secure` when `https`. Call only when the page
/// is enabled.
pub(crate) fn page_reply(answer: PageAnswer, web: &WebAccess, https: bool) -> Reply {
    let page = page();
    let (body, set_cookie) = match answer {
        PageAnswer::Renew(value) => (page.html.clone(), Some(web.set_cookie(&value, https))),
        PageAnswer::Reload => (Bytes::from_static(RELOAD_HTML.as_bytes()), None),
        PageAnswer::Issue => (page.html.clone(), Some(web.set_cookie(&web.issue(), https))),
    };
    let mut reply = Reply::raw(200, "text/html; charset=utf-8", body)
        .header("content-security-policy", page.csp.as_str())
        .header("x-frame-options", "DENY")
        .header("referrer-policy", "no-referrer")
        .header("cross-origin-opener-policy", "same-origin")
        .header("cross-origin-resource-policy", "same-origin");
    if let Some(cookie) = set_cookie {
        reply = reply.header("set-cookie", cookie);
    }
    reply
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::web::COOKIE_NAME;
    use crate::config::WebConfig;

    fn web() -> WebAccess {
        let loopback = std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
        WebAccess::new(&WebConfig::default(), 3600, loopback, 120).expect("default web config")
    }

    #[test]
    fn page_answers_renew_reload_or_issue() {
        let web = web();
        let value = web.issue();
        let page = |headers: &[(&str, &str)], path: &str| {
            let mut req = RequestHeader::build("GET", path.as_bytes(), None).expect("request");
            for (k, v) in headers {
                req.append_header(k.to_string(), *v).expect("header");
            }
            page_answer(&req, &web)
        };
        let cookie = format!("{COOKIE_NAME}={value}");
        assert_eq!(page(&[("cookie", &cookie)], "/"), PageAnswer::Renew(value));
        assert_eq!(page(&[], "/"), PageAnswer::Issue);
        assert_eq!(
            page(&[("sec-fetch-site", "cross-site")], "/"),
            PageAnswer::Reload
        );
        assert_eq!(
            page(&[("sec-fetch-site", "cross-site")], "/?tenant=1"),
            PageAnswer::Issue
        );
    }

    #[test]
    fn page_is_self_contained_and_csp_matches() {
        let html = page_html();
        assert!(html.contains("<style>") && html.contains("<script>"));
        assert!(!html.contains("/*PAGE_CSS*/") && !html.contains("/*PAGE_JS*/"));
        for external in ["http://", "https://", "//cdn", "@import", "url("] {
            assert!(
                !html.contains(external),
                "page must not load anything external ({external})"
            );
        }
        assert!(
            !PAGE_JS.contains("innerHTML"),
            "build the DOM with textContent"
        );
        // An empty inline icon (the CSP's `img-src data:` admits it), so that browsers do not
        // ask for /favicon.ico, which the server does not have, and log a 404.
        for doc in [html, RELOAD_HTML] {
            assert!(doc.contains(r#"<link rel="icon" href="data:,">"#), "{doc}");
        }
        let csp = &page().csp;
        assert!(csp.contains(&sha256_b64(PAGE_CSS)) && csp.contains(&sha256_b64(PAGE_JS)));
        // The hashes must cover exactly the text between the tags.
        assert!(html.contains(&format!("<style>{PAGE_CSS}</style>")));
        assert!(html.contains(&format!("<script>{PAGE_JS}</script>")));
    }
}
