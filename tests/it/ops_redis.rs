//! The Redis session store and the Redis rate limiter against a real Redis: the shared one on
//! 127.0.0.1:6379 (these tests fail when it is missing) and private servers that are stopped and
//! started during the test; and the LLM proxy, which needs no store, while its Redis is down.

use std::time::Duration;

use serde_json::{json, Value};

use tarnkappe::config::RedisConfig;
use tarnkappe::ratelimit::{RateLimiter, RedisLimiter};
use tarnkappe::redis_client::RedisClient;
use tarnkappe::vault::{RedisStore, Sealer, SealingKey, Store};

use crate::harness::config::edited;
use crate::harness::fixtures::ENCRYPTION_KEY;
use crate::harness::http::client;
use crate::harness::metrics::metrics_when;
use crate::harness::redis::{
    delete_prefix, shared_redis, unique_prefix, PrivateCluster, PrivateRedis, SHARED_REDIS,
};
use crate::harness::server::{free_port, TestServer};
use crate::harness::upstream::{chat_completion, FakeUpstream, Reply};

fn config(url: &str, prefix: &str) -> RedisConfig {
    RedisConfig {
        url: Some(url.to_owned()),
        key_prefix: prefix.to_owned(),
        connect_timeout_ms: 500,
        command_timeout_ms: 500,
        ..RedisConfig::default()
    }
}

fn store(url: &str, prefix: &str) -> RedisStore {
    RedisStore::new(RedisClient::new(&config(url, prefix)).expect("client"))
}

const VALUES: [&str; 3] = [
    "Max Mustermann",
    "DE89370400440532013000",
    "max@example.org",
];

#[tokio::test]
async fn records_in_redis_are_ciphertext_with_redis_ttl_and_delete_at_once() {
    let prefix = unique_prefix("store");
    let mut raw = shared_redis();
    let store = store(SHARED_REDIS, &prefix);
    assert_eq!(store.kind(), "redis");
    assert!(store.healthy().await);

    let sealer = Sealer::new(&[SealingKey {
        id: 3,
        key: [7; 32],
    }])
    .expect("sealer");
    let id = uuid::Uuid::new_v4().to_string();
    let plaintext = serde_json::json!({ "mapping": VALUES }).to_string();
    let sealed = sealer.seal(&id, "tenant-x", plaintext.as_bytes());
    store
        .put(&id, sealed.clone(), Duration::from_secs(90))
        .await
        .expect("put");

    // What Redis holds under the documented key: exactly the sealed bytes, none of the values.
    let key = format!("{prefix}session:{id}");
    let bytes: Vec<u8> = redis::cmd("GET")
        .arg(&key)
        .query(&mut raw)
        .expect("raw GET");
    assert_eq!(bytes, sealed);
    assert_eq!(bytes[1], 3, "the record carries its key id");
    for v in VALUES {
        assert!(
            !bytes.windows(v.len()).any(|w| w == v.as_bytes()),
            "a value is readable in Redis"
        );
        for part in v.split(' ') {
            assert!(!bytes.windows(part.len()).any(|w| w == part.as_bytes()));
        }
    }
    // Redis itself expires the record.
    let pttl: i64 = redis::cmd("PTTL").arg(&key).query(&mut raw).expect("PTTL");
    assert!(pttl > 80_000 && pttl <= 90_000, "PTTL {pttl}");

    // Another replica (another client, same key) opens it.
    let other = store_for_other_replica(&prefix);
    let fetched = other.get(&id).await.expect("get").expect("present");
    assert_eq!(
        sealer.open(&id, "tenant-x", &fetched).expect("opens"),
        plaintext.as_bytes()
    );
    assert!(sealer.open(&id, "tenant-y", &fetched).is_err());

    assert!(other.delete(&id).await.expect("delete"));
    let exists: i64 = redis::cmd("EXISTS")
        .arg(&key)
        .query(&mut raw)
        .expect("EXISTS");
    assert_eq!(exists, 0, "deleted at once");
    assert_eq!(store.get(&id).await.expect("get"), None);
    assert!(!store.delete(&id).await.expect("delete again"));
    delete_prefix(&mut raw, &prefix);
}

fn store_for_other_replica(prefix: &str) -> RedisStore {
    store(SHARED_REDIS, prefix)
}

#[tokio::test]
async fn short_ttl_expires_in_redis() {
    let prefix = unique_prefix("ttl");
    let store = store(SHARED_REDIS, &prefix);
    store
        .put("s1", vec![1, 2, 3], Duration::from_millis(150))
        .await
        .expect("put");
    assert_eq!(store.get("s1").await.expect("get"), Some(vec![1, 2, 3]));
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(store.get("s1").await.expect("get"), None);
}

#[tokio::test]
async fn key_rotation_old_records_open_new_ones_use_the_new_key() {
    let prefix = unique_prefix("rotation");
    let store = store(SHARED_REDIS, &prefix);
    let k1 = SealingKey {
        id: 1,
        key: [1; 32],
    };
    let k2 = SealingKey {
        id: 2,
        key: [2; 32],
    };
    let before = Sealer::new(std::slice::from_ref(&k1)).expect("sealer");
    let after = Sealer::new(&[k1, k2.clone()]).expect("sealer");
    store
        .put(
            "old",
            before.seal("old", "t", b"v"),
            Duration::from_secs(30),
        )
        .await
        .expect("put");
    store
        .put("new", after.seal("new", "t", b"w"), Duration::from_secs(30))
        .await
        .expect("put");
    let old = store.get("old").await.expect("get").expect("present");
    let new = store.get("new").await.expect("get").expect("present");
    assert_eq!(old[1], 1);
    assert_eq!(new[1], 2, "the newest key seals");
    assert_eq!(after.open("old", "t", &old).expect("old opens"), b"v");
    assert_eq!(after.open("new", "t", &new).expect("new opens"), b"w");
    // Once key 1 is retired, its records no longer open (they must have expired by then).
    let retired = Sealer::new(&[k2]).expect("sealer");
    assert!(retired.open("old", "t", &old).is_err());
    assert!(store.delete("old").await.expect("delete"));
    assert!(store.delete("new").await.expect("delete"));
}

#[tokio::test]
async fn rate_limit_is_shared_by_two_replicas_and_atomic() {
    let prefix = unique_prefix("limit");
    let a = RedisLimiter::new(RedisClient::new(&config(SHARED_REDIS, &prefix)).expect("client"));
    let b = RedisLimiter::new(RedisClient::new(&config(SHARED_REDIS, &prefix)).expect("client"));
    for i in 0..10u32 {
        let limiter = if i % 2 == 0 { &a } else { &b };
        let d = limiter.check_shared("tenant", 10).await.expect("check");
        assert!(d.allowed, "request {i}");
        assert_eq!(d.remaining, 9 - i);
    }
    let refused = b.check_shared("tenant", 10).await.expect("check");
    assert!(!refused.allowed);
    assert!(refused.retry_after >= Duration::from_secs(1));
    assert!(refused.retry_after <= Duration::from_secs(60));
    assert!(a.check_shared("other", 10).await.expect("check").allowed);

    // Concurrent requests from both replicas: exactly `limit` get through.
    let tasks: Vec<_> = (0..60)
        .map(|i| {
            let limiter = if i % 2 == 0 { &a } else { &b };
            limiter.check("burst", 25)
        })
        .collect();
    let results = futures_util::future::join_all(tasks).await;
    let allowed = results
        .into_iter()
        .filter(|r| r.as_ref().expect("check").allowed)
        .count();
    assert_eq!(allowed, 25);

    // The tenant name is not in the key.
    let mut raw = shared_redis();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query(&mut raw)
        .expect("KEYS");
    assert!(!keys.is_empty());
    assert!(keys
        .iter()
        .all(|k| !k.contains("tenant") && !k.contains("burst")));
    let ttl: i64 = redis::cmd("PTTL")
        .arg(&keys[0])
        .query(&mut raw)
        .expect("PTTL");
    assert!(ttl > 0 && ttl <= 60_000, "window keys expire by themselves");
    delete_prefix(&mut raw, &prefix);
}

#[tokio::test]
async fn redis_stopped_then_started_fails_fast_then_recovers() {
    let mut server = PrivateRedis::start();
    let prefix = unique_prefix("outage");
    let store = store(&server.url(), &prefix);
    let limiter =
        RedisLimiter::new(RedisClient::new(&config(&server.url(), &prefix)).expect("client"));
    store
        .put("before", vec![9], Duration::from_secs(60))
        .await
        .expect("put while up");
    assert!(store.healthy().await);

    server.stop();
    let started = std::time::Instant::now();
    assert!(
        store.get("before").await.is_err(),
        "an outage is an error, never None"
    );
    assert!(store
        .put("x", vec![1], Duration::from_secs(5))
        .await
        .is_err());
    assert!(!store.healthy().await);
    assert!(limiter.check_shared("t", 5).await.is_err());
    // The limiter itself keeps deciding (per process) so that callers keep working.
    assert!(limiter.check("t", 5).await.expect("fallback").allowed);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "unreachable Redis answers within the timeouts"
    );

    server.resume();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !store.healthy().await {
        assert!(std::time::Instant::now() < deadline, "no recovery");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The private server keeps nothing across the restart; the store works again.
    assert_eq!(store.get("before").await.expect("get after recovery"), None);
    store
        .put("after", vec![2], Duration::from_secs(60))
        .await
        .expect("put after recovery");
    assert_eq!(store.get("after").await.expect("get"), Some(vec![2]));
    // The limiter's own connection recovers as well (after its short retry pause).
    loop {
        match limiter.check_shared("t", 5).await {
            Ok(d) => {
                assert!(d.allowed);
                break;
            }
            Err(_) => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "limiter did not recover"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

#[test]
fn the_store_starts_while_redis_is_down() {
    // Construction never connects: a replica may start before Redis and become ready later.
    let port = free_port();
    assert!(RedisClient::new(&config(&format!("redis://127.0.0.1:{port}"), "p:")).is_ok());
}

#[tokio::test]
async fn rediss_url_speaks_tls() {
    let server = PrivateRedis::start_tls();
    let prefix = unique_prefix("tls");
    let tls_config = |ca_file: Option<String>| RedisConfig {
        ca_file,
        ..config(&server.url(), &prefix)
    };
    // Without the private CA, the server's certificate is not trusted.
    let untrusted = RedisStore::new(RedisClient::new(&tls_config(None)).expect("client"));
    assert!(untrusted.get("tls").await.is_err());
    let ca = server.ca_file().to_str().expect("path").to_owned();
    let store = RedisStore::new(RedisClient::new(&tls_config(Some(ca))).expect("client"));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !store.healthy().await {
        assert!(std::time::Instant::now() < deadline, "no TLS connection");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    store
        .put("tls", vec![1, 2], Duration::from_secs(30))
        .await
        .expect("put over TLS");
    assert_eq!(store.get("tls").await.expect("get"), Some(vec![1, 2]));
    // The same server refuses plain text: the store really used TLS.
    let plain = self::store(&format!("redis://127.0.0.1:{}", server.port), &prefix);
    assert!(plain.get("tls").await.is_err());
}

#[tokio::test]
async fn cluster_option_stores_and_limits_across_slots() {
    let cluster = PrivateCluster::start();
    let prefix = unique_prefix("cluster");
    let cfg = RedisConfig {
        cluster: true,
        ..config(&cluster.url(), &prefix)
    };
    let store = RedisStore::new(RedisClient::new(&cfg).expect("client"));
    assert!(store.healthy().await);
    // Many ids spread over the slots of all three masters.
    let ids: Vec<String> = (0..30).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    for (i, id) in ids.iter().enumerate() {
        store
            .put(id, vec![i as u8], Duration::from_secs(30))
            .await
            .expect("put");
    }
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(store.get(id).await.expect("get"), Some(vec![i as u8]));
        assert!(store.delete(id).await.expect("delete"));
        assert_eq!(store.get(id).await.expect("get"), None);
    }
    let a = RedisLimiter::new(RedisClient::new(&cfg).expect("client"));
    let b = RedisLimiter::new(RedisClient::new(&cfg).expect("client"));
    for i in 0..4 {
        let limiter = if i % 2 == 0 { &a } else { &b };
        assert!(limiter.check_shared("c", 4).await.expect("check").allowed);
    }
    assert!(!a.check_shared("c", 4).await.expect("check").allowed);
}

#[test]
fn the_proxy_works_while_redis_is_down() {
    let answer = vec![chat_completion("Gern geschehen.").to_string()];
    let upstream = FakeUpstream::start(move |_| {
        Reply::paced("application/json", answer.clone(), Duration::ZERO)
    });
    let mut redis = PrivateRedis::start();
    let prefix = unique_prefix("proxy-outage");
    // The route requires a key: the gate (keys, shared rate limit) must work without Redis too.
    let toml = edited(&[(
        "prefix = \"/v1/\"\nupstream = \"https://api.openai.com\"\n",
        "prefix = \"/v1/\"\nupstream = \"https://api.openai.com\"\nrequire_key = true\n",
    )]);
    let server = TestServer::start_with_config(
        &[
            ("TARNKAPPE_REDIS_URL", &redis.url()),
            ("TARNKAPPE_REDIS_KEY_PREFIX", &prefix),
            ("TARNKAPPE_ENCRYPTION_KEY", ENCRYPTION_KEY),
            ("TARNKAPPE_API_KEYS", "x:kx"),
            ("TARNKAPPE_OPENAI_UPSTREAM", &upstream.url()),
        ],
        &toml,
    );
    redis.stop();
    let http = client();
    let resp = http
        .post(server.url("/api/v1/anonymize"))
        .header("x-api-key", "kx")
        .json(&json!({"text": "Mail an max@example.org"}))
        .send()
        .expect("request");
    assert_eq!(resp.status(), 503, "sessions need the store");

    let chat =
        json!({"model": "m", "messages": [{"role": "user", "content": "Mail an max@example.org"}]});
    let resp = http
        .post(server.url("/v1/chat/completions"))
        .json(&chat)
        .send()
        .expect("request");
    assert_eq!(resp.status(), 401, "the route requires a key");
    let resp = client()
        .post(server.url("/v1/chat/completions"))
        .header("x-api-key", "kx")
        .json(&chat)
        .send()
        .expect("request");
    assert_eq!(resp.status(), 200, "the proxy needs no store");
    let id = resp
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .expect("X-Request-Id on a proxied response")
        .to_owned();
    assert_eq!(id.len(), 32);
    assert_eq!(
        resp.headers()
            .get("x-tarnkappe-request-id")
            .and_then(|v| v.to_str().ok()),
        Some(id.as_str()),
        "the upstream sent no id of its own: ours in both headers"
    );
    let body: Value = resp.json().expect("json");
    assert_eq!(body["choices"][0]["message"]["content"], "Gern geschehen.");

    let counted = r#"tarnkappe_http_requests_total{route="/v1/",method="POST",status="200"} 1"#;
    let metrics = metrics_when(&server, |m| m.contains(counted));
    assert!(metrics.contains(counted), "{metrics}");
    assert!(
        metrics.contains(r#"entity_type="EMAIL_ADDRESS""#),
        "{metrics}"
    );
    assert!(!metrics.contains("max@example.org"));
    assert!(
        server.log().contains(&id),
        "the proxied request is logged by its id"
    );
}
