//! The web page's tenant cookie as a browser sees it (`web_page`, `web_access`).

use reqwest::blocking::Response;
use reqwest::header::SET_COOKIE;

/// The whole `Set-Cookie` value of the tenant cookie in `resp`, if one was set.
pub fn tenant_cookie(resp: &Response) -> Option<String> {
    resp.headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("tarnkappe_tenant="))
        .map(str::to_owned)
}

/// The `name=value` part of the tenant cookie in `resp` (what a browser sends back).
pub fn cookie_pair(resp: &Response) -> Option<String> {
    tenant_cookie(resp).and_then(|c| c.split(';').next().map(str::to_owned))
}
