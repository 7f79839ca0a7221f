//! The binary starts with the embedded defaults and answers over real HTTP.

use crate::harness::http::client;
use crate::harness::server::TestServer;

#[test]
fn serves_json_on_the_configured_port() {
    let server = TestServer::start(&[("TARNKAPPE_API_KEYS", "t:k")]);
    let resp = client()
        .get(server.url("/api/v1/does-not-exist"))
        .send()
        .expect("request");
    assert_eq!(resp.status(), 404);
    let body: serde_json::Value = resp.json().expect("json body");
    assert_eq!(body["error"], "not_found");
}
