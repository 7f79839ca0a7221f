//! Conversations kept at the provider (issue 28): a turn sends only its new input with
//! `previous_response_id` or `conversation`, and the stateful fake provider answers from the
//! history it holds (tokens only). The proxy must restore tokens of every earlier turn, number
//! new values after the old ones, pass what it cannot map as written, keep each caller's tables
//! to that caller, and share them across replicas through Redis, sealed.

use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::fixtures::IBAN;
use crate::harness::http::client;
use crate::harness::metrics::{metrics_when, sample};
use crate::harness::server::TestServer;
use crate::harness::stream::parse_sse;
use crate::harness::tokens::{has_token, tokens_in};
use crate::harness::upstream::provider::Provider;
use crate::harness::upstream::FakeUpstream;

const ANNA: &str = "Anna Schmidt";
const ANNA_MAIL: &str = "anna.schmidt@example.org";
const JONAS: &str = "Jonas Weber";
const JONAS_MAIL: &str = "jonas.weber@example.com";
const VALUES: [&str; 5] = [ANNA, ANNA_MAIL, JONAS, JONAS_MAIL, IBAN];

const ALICE: &str = "Bearer sk-alice-credential";
const BOB: &str = "Bearer sk-bob-credential";

fn turn_1() -> String {
    format!("Die Kundin heißt {ANNA}, ihre E-Mail ist {ANNA_MAIL}.")
}
fn turn_2() -> String {
    format!("Wie heißt die Kundin nochmal? Ihr Kollege {JONAS} schreibt von {JONAS_MAIL}.")
}
fn turn_3() -> String {
    format!("Ihre IBAN ist {IBAN}, bitte an {ANNA_MAIL} bestätigen.")
}

/// A turn as the client sees it: status, the response's id and text (the completed response
/// of a stream, whose deltas must say the same), and the raw body.
struct Seen {
    status: u16,
    id: String,
    text: String,
    raw: String,
}

fn output_text(response: &Value) -> String {
    let item = &response["output"][0];
    match item["type"].as_str() {
        Some("function_call") => item["arguments"].as_str().unwrap_or("").to_owned(),
        _ => item["content"][0]["text"].as_str().unwrap_or("").to_owned(),
    }
}

fn send(server: &TestServer, credential: &str, body: &Value) -> Seen {
    send_to(
        server,
        "/v1/responses",
        &[("authorization", credential)],
        body,
    )
}

fn send_to(server: &TestServer, path: &str, headers: &[(&str, &str)], body: &Value) -> Seen {
    let mut req = client().post(server.url(path)).json(body);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let resp = req.send().expect("POST …/responses");
    let status = resp.status().as_u16();
    let raw = resp.text().expect("body");
    if body["stream"] != json!(true) || status != 200 {
        let v: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
        let id = v["id"].as_str().unwrap_or("").to_owned();
        return Seen {
            status,
            id,
            text: output_text(&v),
            raw,
        };
    }
    let events = parse_sse(&raw);
    let mut deltas = String::new();
    let mut completed = Value::Null;
    for (_, data) in &events {
        let ev: Value = serde_json::from_str(data).expect("event JSON");
        match ev["type"].as_str() {
            Some("response.output_text.delta" | "response.function_call_arguments.delta") => {
                deltas += ev["delta"].as_str().unwrap_or("");
            }
            Some("response.completed") => completed = ev["response"].clone(),
            _ => {}
        }
    }
    let text = output_text(&completed);
    assert_eq!(
        deltas, text,
        "the deltas say what the completed response says"
    );
    let id = completed["id"].as_str().unwrap_or("").to_owned();
    Seen {
        status,
        id,
        text,
        raw,
    }
}

fn request(input: &str, previous: Option<&str>, stream: bool) -> Value {
    let mut body = json!({"model": "gpt-4.1", "input": input, "stream": stream});
    if let Some(id) = previous {
        body["previous_response_id"] = json!(id);
    }
    body
}

/// Every request the fake provider received is free of original values.
fn upstream_saw_no_value(up: &FakeUpstream) {
    for r in up.requests() {
        for v in VALUES {
            assert!(!r.body_str().contains(v), "the upstream received {v:?}");
        }
    }
}

/// The canonical tokens of prefix `prefix` the upstream received in its last request.
fn last_tokens(up: &FakeUpstream, prefix: &str) -> Vec<String> {
    let open = format!("[[{prefix}_");
    tokens_in(&up.last().body_str())
        .into_iter()
        .filter(|t| t.starts_with(&open))
        .collect()
}

fn number(token: &str) -> u64 {
    token
        .trim_end_matches("]]")
        .rsplit('_')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a numbered token")
}

fn assert_restored(seen: &Seen, values: &[&str]) {
    assert_eq!(seen.status, 200, "{}", seen.raw);
    for v in values {
        assert!(
            seen.text.contains(v),
            "{v:?} is not restored: {}",
            seen.text
        );
    }
    assert!(
        !has_token(&seen.text),
        "a token reached the client: {}",
        seen.text
    );
}

/// Three turns, each continuing the last by `previous_response_id`, through `servers` in turn.
fn three_turns(servers: [&TestServer; 3], up: &FakeUpstream, stream: bool) -> [String; 3] {
    let t1 = send(servers[0], ALICE, &request(&turn_1(), None, stream));
    assert_restored(&t1, &[ANNA, ANNA_MAIL]);

    let t2 = send(servers[1], ALICE, &request(&turn_2(), Some(&t1.id), stream));
    // failure 2 of the issue: the new person is numbered after the first, not as 1 again
    assert_eq!(last_tokens(up, "EMAIL"), ["[[EMAIL_2]]"]);
    assert_eq!(last_tokens(up, "NAME"), ["[[NAME_2]]"]);
    // failure 1: the earlier turn's tokens come back restored, beside the new ones
    assert_restored(&t2, &[ANNA, ANNA_MAIL, JONAS, JONAS_MAIL]);

    let t3 = send(servers[2], ALICE, &request(&turn_3(), Some(&t2.id), stream));
    // the same value gets its old token; a value first seen now gets the next number
    assert_eq!(last_tokens(up, "EMAIL"), ["[[EMAIL_1]]"]);
    assert_eq!(last_tokens(up, "IBAN"), ["[[IBAN_1]]"]);
    assert_restored(&t3, &[ANNA, ANNA_MAIL, JONAS, JONAS_MAIL, IBAN]);
    upstream_saw_no_value(up);
    [t1.id, t2.id, t3.id]
}

fn no_value_in_logs_or_metrics(server: &TestServer) {
    let metrics = crate::harness::metrics::metrics(server);
    let log = server.log();
    for v in VALUES {
        assert!(!log.contains(v), "{v:?} in the log");
        assert!(!metrics.contains(v), "{v:?} in the metrics");
    }
}

#[test]
fn three_turns_by_previous_response_id_plain_and_streaming() {
    for stream in [false, true] {
        let up = FakeUpstream::start(Provider::new().handler());
        let server = up.proxy(&[]);
        three_turns([&server, &server, &server], &up, stream);
        let log = server.log_when(|l| l.matches("conversation_state=").count() >= 3);
        assert_eq!(
            log.matches("conversation_state=\"new\"").count(),
            1,
            "{log}"
        );
        assert_eq!(
            log.matches("conversation_state=\"found\"").count(),
            2,
            "{log}"
        );
        let m = metrics_when(&server, |m| {
            sample(m, "tarnkappe_conversations_total{event=\"saved\"}") >= 3.0
        });
        assert_eq!(
            sample(&m, "tarnkappe_conversations_total{event=\"found\"}"),
            2.0
        );
        no_value_in_logs_or_metrics(&server);
    }
}

/// On a route with `require_key` the tables belong to the key's tenant (the provider credential
/// is the route's own, the same for everyone).
#[test]
fn on_a_keyed_route_another_tenant_gets_nothing_restored() {
    let up = FakeUpstream::start(Provider::new().handler());
    let toml = format!(
        "{}\n[[route]]\nprefix = \"/team/v1/\"\nupstream = \"{}\"\nformat = \"openai\"\nrequire_key = true\ncredential_env = \"TEST_PROVIDER_KEY\"\n",
        tarnkappe::config::DEFAULT_TOML,
        up.url()
    );
    let server = TestServer::start_with_config(
        &[
            (
                "TARNKAPPE_API_KEYS",
                "x:kx-key-of-tenant-x,y:ky-key-of-tenant-y",
            ),
            ("TEST_PROVIDER_KEY", "sk-shared-provider-key"),
        ],
        &toml,
    );
    let path = "/team/v1/responses";
    let x = [("x-api-key", "kx-key-of-tenant-x")];
    let y = [("x-api-key", "ky-key-of-tenant-y")];
    let t1 = send_to(&server, path, &x, &request(&turn_1(), None, false));
    assert_restored(&t1, &[ANNA_MAIL]);
    let question = "Wie lautet die E-Mail der Kundin?";
    let other = send_to(&server, path, &y, &request(question, Some(&t1.id), true));
    assert_eq!(other.status, 200, "{}", other.raw);
    assert!(other.text.contains("[[EMAIL_1]]"), "{}", other.text);
    assert!(
        !other.raw.contains(ANNA_MAIL),
        "another tenant got the value"
    );
    let owner = send_to(&server, path, &x, &request(question, Some(&t1.id), true));
    assert_restored(&owner, &[ANNA_MAIL]);
}

#[test]
fn an_unknown_id_is_forwarded_and_numbers_above_every_kept_chain() {
    let up = FakeUpstream::start(Provider::new().handler());
    let server = up.proxy(&[]);
    let seen = send(
        &server,
        ALICE,
        &request(&turn_2(), Some("resp_never_issued"), false),
    );
    assert_eq!(seen.status, 404, "the provider decides: {}", seen.raw);
    assert_eq!(up.requests().len(), 1, "forwarded");
    for token in last_tokens(&up, "EMAIL") {
        assert!(number(&token) > 10_000, "{token}");
    }
    let log = server.log_when(|l| l.contains("conversation_state="));
    assert!(log.contains("conversation_state=\"missing\""), "{log}");
    let m = metrics_when(&server, |m| {
        sample(m, "tarnkappe_conversations_total{event=\"missing\"}") >= 1.0
    });
    assert_eq!(
        sample(&m, "tarnkappe_conversations_total{event=\"missing\"}"),
        1.0
    );
    upstream_saw_no_value(&up);
}

#[test]
fn an_expired_table_leaves_old_tokens_as_written_and_never_maps_them_to_new_values() {
    let up = FakeUpstream::start(Provider::new().handler());
    let server = up.proxy(&[("TARNKAPPE_SESSION_TTL", "1")]);
    let t1 = send(&server, ALICE, &request(&turn_1(), None, false));
    assert_restored(&t1, &[ANNA_MAIL]);
    std::thread::sleep(Duration::from_millis(2500));
    for stream in [false, true] {
        let t2 = send(&server, ALICE, &request(&turn_2(), Some(&t1.id), stream));
        assert_eq!(t2.status, 200, "{}", t2.raw);
        // the provider still holds turn 1 (as tokens): they pass as written …
        assert!(t2.text.contains("[[EMAIL_1]]"), "{}", t2.text);
        assert!(!t2.text.contains(ANNA_MAIL), "{}", t2.text);
        // … and the new value, numbered far above them, is restored once, in its own place
        let new = last_tokens(&up, "EMAIL");
        assert_eq!(new.len(), 1, "{new:?}");
        assert!(number(&new[0]) > 10_000, "{new:?}");
        assert_eq!(t2.text.matches(JONAS_MAIL).count(), 1, "{}", t2.text);
    }
    let log = server.log_when(|l| l.matches("conversation_state=").count() >= 3);
    assert_eq!(
        log.matches("conversation_state=\"missing\"").count(),
        2,
        "{log}"
    );
    upstream_saw_no_value(&up);
}

#[test]
fn another_credential_naming_the_same_response_id_gets_nothing_restored() {
    let up = FakeUpstream::start(Provider::new().handler());
    let server = up.proxy(&[]);
    let t1 = send(&server, ALICE, &request(&turn_1(), None, false));
    assert_restored(&t1, &[ANNA_MAIL]);
    let question = "Wie lautet die E-Mail der Kundin?";
    for stream in [false, true] {
        let bob = send(&server, BOB, &request(question, Some(&t1.id), stream));
        assert_eq!(bob.status, 200, "{}", bob.raw);
        assert!(bob.text.contains("[[EMAIL_1]]"), "{}", bob.text);
        for v in VALUES {
            assert!(!bob.raw.contains(v), "another client got {v:?}");
        }
    }
    // the owner, same id: restored (the id was right, only the caller was not)
    let alice = send(&server, ALICE, &request(question, Some(&t1.id), false));
    assert_restored(&alice, &[ANNA_MAIL]);

    // what the owner deletes at the provider, the proxy forgets: no longer restored
    let resp = client()
        .delete(server.url(&format!("/v1/responses/{}", t1.id)))
        .header("authorization", ALICE)
        .send()
        .expect("DELETE");
    assert_eq!(resp.status().as_u16(), 200);
    let after = send(&server, ALICE, &request(question, Some(&t1.id), false));
    assert_eq!(after.status, 200, "{}", after.raw);
    assert!(after.text.contains("[[EMAIL_1]]"), "{}", after.text);
    assert!(!after.raw.contains(ANNA_MAIL), "{}", after.raw);
}

/// The Conversations API: items added by the conversation's own routes and turns that name it
/// share one table.
#[test]
fn a_conversation_and_its_items_share_one_table() {
    let up = FakeUpstream::start(Provider::new().handler());
    let server = up.proxy(&[]);
    let post = |path: &str, body: Value| {
        let resp = client()
            .post(server.url(path))
            .header("authorization", ALICE)
            .json(&body)
            .send()
            .expect("POST");
        (resp.status().as_u16(), resp.json::<Value>().expect("JSON"))
    };
    let item = |text: String| json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]});
    let (status, conv) = post("/v1/conversations", json!({"items": [item(turn_1())]}));
    assert_eq!(status, 200, "{conv}");
    let id = conv["id"].as_str().expect("conversation id").to_owned();

    let t2 = send(
        &server,
        ALICE,
        &json!({"model": "gpt-4.1", "conversation": id, "input": turn_2()}),
    );
    assert_eq!(last_tokens(&up, "EMAIL"), ["[[EMAIL_2]]"]);
    assert_restored(&t2, &[ANNA_MAIL, JONAS_MAIL]);

    let (status, added) = post(
        &format!("/v1/conversations/{id}/items"),
        json!({"items": [item(turn_3())]}),
    );
    assert_eq!(status, 200, "{added}");
    assert_eq!(last_tokens(&up, "IBAN"), ["[[IBAN_1]]"]);
    assert_eq!(last_tokens(&up, "EMAIL"), ["[[EMAIL_1]]"]);
    assert!(
        added.to_string().contains(IBAN),
        "the reply's items are restored: {added}"
    );

    let t4 = send(
        &server,
        ALICE,
        &json!({"model": "gpt-4.1", "conversation": {"id": id}, "input": "Und jetzt?", "stream": true}),
    );
    assert_restored(&t4, &[ANNA_MAIL, JONAS_MAIL, IBAN]);

    // what the provider keeps comes back restored to its caller, as written to anyone else
    let get = |path: &str, credential: &str| {
        let resp = client()
            .get(server.url(path))
            .header("authorization", credential)
            .send()
            .expect("GET");
        (resp.status().as_u16(), resp.text().expect("body"))
    };
    let items = format!("/v1/conversations/{id}/items");
    let (status, held) = get(&items, ALICE);
    assert_eq!(status, 200, "{held}");
    for v in [ANNA_MAIL, JONAS_MAIL, IBAN] {
        assert!(held.contains(v), "{v:?} not restored: {held}");
    }
    assert!(!has_token(&held), "{held}");
    let (_, other) = get(&items, BOB);
    assert!(other.contains("[[EMAIL_1]]"), "{other}");
    let (status, response) = get(&format!("/v1/responses/{}", t4.id), ALICE);
    assert_eq!(status, 200, "{response}");
    assert!(
        response.contains(IBAN) && !has_token(&response),
        "{response}"
    );
    for v in VALUES {
        assert!(!other.contains(v), "another client got {v:?}");
    }
    upstream_saw_no_value(&up);
}

/// Replicas on Redis (shared and private) and the real Agents SDK: the full tier.
#[cfg(feature = "full-tier")]
mod with_tools {
    use super::*;
    use crate::harness::fixtures::ENCRYPTION_KEY;
    use crate::harness::redis::{
        delete_prefix, shared_redis, unique_prefix, PrivateRedis, SHARED_REDIS,
    };

    fn replica(prefix: &str, up: &FakeUpstream, redis_url: &str) -> TestServer {
        up.proxy(&[
            ("TARNKAPPE_REDIS_URL", redis_url),
            ("TARNKAPPE_REDIS_KEY_PREFIX", prefix),
            ("TARNKAPPE_ENCRYPTION_KEY", ENCRYPTION_KEY),
        ])
    }

    fn contains(haystack: &[u8], needle: &str) -> bool {
        haystack
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
    }

    #[test]
    #[cfg(feature = "full-tier")]
    fn two_replicas_on_one_redis_share_turns_and_redis_holds_ciphertext_only() {
        let prefix = unique_prefix("conversation");
        let up = FakeUpstream::start(Provider::new().handler());
        let a = replica(&prefix, &up, SHARED_REDIS);
        let b = replica(&prefix, &up, SHARED_REDIS);
        let ids = three_turns([&a, &b, &a], &up, false);
        let streamed = three_turns([&b, &a, &b], &up, true);

        let mut raw = shared_redis();
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{prefix}session:conv-*"))
            .query(&mut raw)
            .expect("KEYS");
        assert_eq!(keys.len(), 6, "one record per kept response: {keys:?}");
        for key in &keys {
            let bytes: Vec<u8> = redis::cmd("GET").arg(key).query(&mut raw).expect("GET");
            let pttl: i64 = redis::cmd("PTTL").arg(key).query(&mut raw).expect("PTTL");
            assert!(pttl > 0, "Redis expires {key}");
            let readable = VALUES
                .iter()
                .copied()
                .chain(["[[EMAIL_1]]", "EMAIL", "Schmidt", "example.org"])
                .chain(ids.iter().chain(&streamed).map(String::as_str));
            for v in readable {
                assert!(!contains(&bytes, v), "{v:?} is readable in Redis");
                assert!(!key.contains(v), "{v:?} in a Redis key");
            }
        }

        // `store: false`: the provider keeps nothing, nor does the proxy
        let body = json!({"model": "gpt-4.1", "input": turn_1(), "store": false});
        assert_restored(&send(&a, ALICE, &body), &[ANNA_MAIL]);
        let after: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{prefix}session:conv-*"))
            .query(&mut raw)
            .expect("KEYS");
        assert_eq!(after.len(), 6, "{after:?}");
        delete_prefix(&mut raw, &prefix);
    }

    #[test]
    #[cfg(feature = "full-tier")]
    fn a_store_that_cannot_be_read_refuses_the_turn_and_forwards_nothing() {
        let mut redis = PrivateRedis::start();
        let prefix = unique_prefix("conversation-down");
        let up = FakeUpstream::start(Provider::new().handler());
        let server = replica(&prefix, &up, &redis.url());
        let t1 = send(&server, ALICE, &request(&turn_1(), None, false));
        assert_restored(&t1, &[ANNA_MAIL]);
        // turn 1's table is written as its reply goes out: stop the store once it landed
        metrics_when(&server, |m| {
            sample(m, "tarnkappe_conversations_total{event=\"saved\"}") >= 1.0
        });
        redis.stop();
        let before = up.requests().len();
        let t2 = send(&server, ALICE, &request(&turn_2(), Some(&t1.id), false));
        assert_eq!(t2.status, 503, "{}", t2.raw);
        let err: Value = serde_json::from_str(&t2.raw).expect("error JSON");
        assert_eq!(err["error"]["code"], "privacy_proxy_state_unavailable");
        assert_eq!(up.requests().len(), before, "nothing forwarded");
        // a turn that continues nothing still goes out restored; only its table is not kept
        let fresh = send(&server, ALICE, &request(&turn_1(), None, false));
        assert_restored(&fresh, &[ANNA_MAIL]);
        let m = metrics_when(&server, |m| {
            sample(m, "tarnkappe_conversations_total{event=\"save_failed\"}") >= 1.0
        });
        assert_eq!(
            sample(&m, "tarnkappe_conversations_total{event=\"save_failed\"}"),
            1.0
        );
        assert_eq!(
            sample(&m, "tarnkappe_conversations_total{event=\"unavailable\"}"),
            1.0
        );
        // the private Redis keeps nothing over a restart: the turn goes on without turn 1's table
        redis.resume();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let again = loop {
            let seen = send(&server, ALICE, &request(&turn_2(), Some(&t1.id), false));
            if seen.status != 503 || std::time::Instant::now() > deadline {
                break seen;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        assert_eq!(again.status, 200, "{}", again.raw);
        assert!(again.text.contains(JONAS_MAIL), "{}", again.text);
        assert!(again.text.contains("[[EMAIL_1]]"), "{}", again.text);
        assert!(!again.text.contains(ANNA_MAIL), "{}", again.text);
    }

    /// The real OpenAI Agents SDK (`openai-agents`, pinned in scripts/requirements-test.txt): three
    /// turns of an agent with a tool, each continuing the last by `previous_response_id`. The
    /// provider never sees an original; the tool and the final output see only originals.
    #[test]
    #[cfg(feature = "full-tier")]
    fn the_agents_sdk_runs_three_turns_with_a_tool_through_the_proxy() {
        let up = FakeUpstream::start(Provider::new().handler());
        let server = up.proxy(&[]);
        let path = format!(
            "{}/tests/sdk/openai_agents_sdk.py",
            env!("CARGO_MANIFEST_DIR")
        );
        let turns = [turn_1(), turn_2(), turn_3()];
        let out = std::process::Command::new("python3")
            .arg(&path)
            .env("TARNKAPPE_PROXY", server.url(""))
            .env("TARNKAPPE_TURNS", serde_json::to_string(&turns).unwrap())
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_API_KEY")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .output()
            .expect("python3 must be installed to run the SDK tests");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "the agent failed ({})\nstdout:\n{stdout}\nstderr:\n{stderr}",
            crate::harness::python::INSTALL
        );
        let seen: Value = serde_json::from_str(stdout.trim()).expect("the script's JSON");
        let outputs: Vec<&str> = seen["outputs"]
            .as_array()
            .expect("outputs")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(outputs.len(), 3, "{seen}");
        for v in VALUES {
            assert!(
                outputs[2].contains(v),
                "the final output lacks {v:?}: {}",
                outputs[2]
            );
        }
        assert!(outputs.iter().all(|o| !has_token(o)), "{seen}");
        let asked: Vec<&str> = seen["asked"]
            .as_array()
            .expect("asked")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(asked.len(), 3, "the tool ran once a turn: {seen}");
        assert!(
            asked[0].contains(ANNA_MAIL) && asked[2].contains(IBAN),
            "{asked:?}"
        );
        assert!(asked.iter().all(|q| !has_token(q)), "{asked:?}");

        let requests = up.requests();
        let chained = requests
            .iter()
            .filter(|r| r.json().get("previous_response_id").is_some())
            .count();
        assert_eq!(requests.len(), 6, "a tool call and an answer per turn");
        assert_eq!(
            chained, 5,
            "every request after the first continues by previous_response_id"
        );
        upstream_saw_no_value(&up);
        let log = server.log_when(|l| l.matches("conversation_state=").count() >= 6);
        assert_eq!(
            log.matches("conversation_state=\"found\"").count(),
            5,
            "{log}"
        );
        no_value_in_logs_or_metrics(&server);
    }
}
