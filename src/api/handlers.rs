//! The endpoints. Each validates completely before it changes anything.

use pingora::proxy::Session;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::body;
use super::call::Call;
use super::error::ApiError;
use super::json::parse_object;
use crate::access::Caller;
use crate::app::App;
use crate::http::Reply;
use crate::policy::{RequestTerms, WithTerms};
use crate::tokens::{self, contains_reserved_token, Entity, MappingEntry, Restorer, Stats};

/// Most entries a stateless `mapping` may have.
pub const MAX_MAPPING_ENTRIES: usize = 100_000;

/// The longest `text` (in code points) of `/anonymize` and `/deanonymize`.
pub const MAX_TEXT_CODE_POINTS: usize = 100_000;

/// Longest restored text `/deanonymize` builds, in bytes of UTF-8 (1 MiB): more than twice the
/// largest text the API accepts (100 000 code points are at most 400 000 bytes), far below
/// what a short text that repeats the token of a long value could otherwise expand to. The
/// length is computed from the matches before the text is built; beyond it the answer is 413
/// `too_large`.
pub const MAX_RESTORED_BYTES: usize = 1024 * 1024;

type Object = Map<String, Value>;

/// Reads and parses the body of a JSON endpoint, in the contract's order: byte cap (413), then
/// the length of `text` (413), then `Content-Type` and JSON well-formedness (400).
pub async fn read_json(
    session: &mut Session,
    app: &App,
    call: &mut Call,
) -> Result<Object, ApiError> {
    let cap = app.config.api.max_body_bytes;
    let timeout = std::time::Duration::from_millis(app.config.server.client_body_timeout_ms);
    let bytes = body::read(session, &call.declared, cap, timeout, &mut call.body).await?;
    let parsed = parse_object(&bytes);
    if let Ok(obj) = &parsed {
        if let Some(Value::String(text)) = obj.get("text") {
            check_text_length(text)?;
        }
    }
    if !is_json_content_type(session.req_header()) {
        return Err(ApiError::BadRequest(
            "Content-Type must be application/json.",
        ));
    }
    parsed
}

fn is_json_content_type(req: &pingora::http::RequestHeader) -> bool {
    let Some(value) = req
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let media = value.split(';').next().unwrap_or("").trim();
    media.eq_ignore_ascii_case("application/json")
}

fn check_text_length(text: &str) -> Result<(), ApiError> {
    // A UTF-8 string has at most as many code points as bytes: count only when it could matter.
    if text.len() > MAX_TEXT_CODE_POINTS && text.chars().count() > MAX_TEXT_CODE_POINTS {
        return Err(ApiError::TooLarge(
            "The text is longer than 100000 code points.",
        ));
    }
    Ok(())
}

fn required_text(obj: &Object) -> Result<&str, ApiError> {
    match obj.get("text") {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(ApiError::BadRequest("The field text must be a string.")),
        None => Err(ApiError::BadRequest("The field text is required.")),
    }
}

#[derive(Serialize)]
struct AnonymizeResponse<'a> {
    session_id: &'a str,
    anonymized_text: &'a str,
    entities: &'a [Entity],
    mapping: &'a [MappingEntry],
    stats: &'a Stats,
}

/// What a stored session holds (sealed): the token → value pairs.
#[derive(Deserialize)]
struct SessionRecord {
    pairs: Vec<(String, String)>,
}

/// A [`SessionRecord`] as it is written: the pairs borrowed from the answer's mapping (the same
/// JSON, without a copy of every token and value).
#[derive(Serialize)]
struct SessionRecordOut<'a> {
    pairs: Vec<(&'a str, &'a str)>,
}

pub async fn anonymize(app: &App, caller: &Caller, obj: Object) -> Result<Reply, ApiError> {
    let text = required_text(&obj)?;
    let policy = super::policy::of(app, caller);
    let terms = super::policy::request_terms(&obj)?;
    let term_token =
        |t: &RequestTerms| tokens::TokenTable::holds_token_of(text, t.entity_type().token_prefix());
    if contains_reserved_token(text)
        || policy.holds_reserved_token(text)
        || terms.as_ref().is_some_and(term_token)
    {
        return Err(ApiError::ReservedToken);
    }
    let result = match &terms {
        Some(terms) => tokens::try_anonymize_in(
            &app.detector,
            &WithTerms {
                policy: &policy,
                terms,
            },
            text,
        ),
        None => tokens::try_anonymize_in(&app.detector, policy.as_ref(), text),
    }?;
    let blocked = policy.blocked_among(result.entities.iter().map(|e| e.entity_type));
    crate::telemetry::metrics().policy_applied(&policy.name, !blocked.is_empty());
    if !blocked.is_empty() {
        return Err(ApiError::PolicyBlocked(blocked));
    }
    let record = SessionRecordOut {
        pairs: result
            .mapping
            .iter()
            .map(|m| (m.token.as_str(), m.value.as_str()))
            .collect(),
    };
    let plain = serde_json::to_vec(&record)
        .map_err(|_| ApiError::Internal("session record serialization failed"))?;
    let session_id = uuid::Uuid::new_v4().hyphenated().to_string();
    let sealed = app.sealer.seal(&session_id, &caller.tenant, &plain);
    app.store
        .put(&session_id, sealed, app.session_ttl())
        .await?;
    crate::telemetry::record_anonymized(&result.entities);
    // The answer holds the text (escaped) and, per entity, its value twice plus ~150 bytes of
    // names and numbers.
    let capacity = result.anonymized_text.len() * 11 / 10
        + result
            .entities
            .iter()
            .map(|e| 2 * e.text.len() + 160)
            .sum::<usize>();
    Ok(Reply::json_sized(
        200,
        &AnonymizeResponse {
            session_id: &session_id,
            anonymized_text: &result.anonymized_text,
            entities: &result.entities,
            mapping: &result.mapping,
            stats: &result.stats,
        },
        capacity,
    ))
}

#[derive(Serialize)]
struct TextResponse<'a> {
    text: &'a str,
}

pub async fn deanonymize(app: &App, caller: &Caller, obj: Object) -> Result<Reply, ApiError> {
    let text = required_text(&obj)?;
    let restorer = match (obj.get("session_id"), obj.get("mapping")) {
        (Some(_), Some(_)) => {
            return Err(ApiError::BadRequest(
                "Give either session_id or mapping, not both.",
            ))
        }
        (None, None) => {
            return Err(ApiError::BadRequest(
                "Either session_id or mapping is required.",
            ))
        }
        (None, Some(mapping)) => restorer_from_mapping(mapping)?,
        (Some(Value::String(id)), None) => {
            let pairs = load_session(app, caller, id).await?;
            crate::telemetry::metrics().session(crate::telemetry::SessionEvent::restored);
            Restorer::new(pairs.iter().map(|(t, v)| (t.as_str(), v.as_str())))
        }
        (Some(_), None) => {
            return Err(ApiError::BadRequest(
                "The field session_id must be a string.",
            ))
        }
    };
    if restorer.restored_len(text) > MAX_RESTORED_BYTES {
        return Err(ApiError::TooLarge(
            "The restored text would be longer than 1048576 bytes.",
        ));
    }
    let restored = restorer.restore(text);
    Ok(Reply::json(200, &TextResponse { text: &restored }))
}

/// Validates a stateless mapping completely, then builds its restorer.
fn restorer_from_mapping(mapping: &Value) -> Result<Restorer, ApiError> {
    let Value::Array(entries) = mapping else {
        return Err(ApiError::BadRequest("The field mapping must be an array."));
    };
    if entries.len() > MAX_MAPPING_ENTRIES {
        return Err(ApiError::BadRequest(
            "The mapping has more than 100000 entries.",
        ));
    }
    let mut pairs = Vec::with_capacity(entries.len());
    for entry in entries {
        let Value::Object(entry) = entry else {
            return Err(ApiError::BadRequest(
                "Every mapping entry must be an object.",
            ));
        };
        match (entry.get("token"), entry.get("value")) {
            (Some(Value::String(token)), Some(Value::String(value))) => {
                if token.is_empty() {
                    return Err(ApiError::BadRequest("A mapping token must not be empty."));
                }
                pairs.push((token.as_str(), value.as_str()));
            }
            _ => {
                return Err(ApiError::BadRequest(
                    "Every mapping entry needs a string token and a string value.",
                ))
            }
        }
    }
    Ok(Restorer::new(pairs))
}

/// The canonical form of a session id, or None when it is not a UUID.
fn canonical_id(id: &str) -> Option<String> {
    uuid::Uuid::try_parse(id)
        .ok()
        .map(|u| u.hyphenated().to_string())
}

/// Opens the caller's session `id`; every way of not getting it is the same 404.
async fn load_session(
    app: &App,
    caller: &Caller,
    id: &str,
) -> Result<Vec<(String, String)>, ApiError> {
    let id = canonical_id(id).ok_or(ApiError::SessionNotFound)?;
    let sealed = app.store.get(&id).await?.ok_or(ApiError::SessionNotFound)?;
    let plain = app
        .sealer
        .open(&id, &caller.tenant, &sealed)
        .map_err(|_| ApiError::SessionNotFound)?;
    let record: SessionRecord = serde_json::from_slice(&plain)
        .map_err(|_| ApiError::Internal("stored session record is not readable"))?;
    Ok(record.pairs)
}

#[derive(Serialize)]
struct Deleted {
    deleted: bool,
}

pub async fn delete_session(app: &App, caller: &Caller, id: &str) -> Result<Reply, ApiError> {
    let id = canonical_id(id).ok_or(ApiError::SessionNotFound)?;
    let sealed = app.store.get(&id).await?.ok_or(ApiError::SessionNotFound)?;
    // Only the owner may delete: the record must open for the caller's tenant.
    app.sealer
        .open(&id, &caller.tenant, &sealed)
        .map_err(|_| ApiError::SessionNotFound)?;
    if !app.store.delete(&id).await? {
        return Err(ApiError::SessionNotFound);
    }
    crate::telemetry::metrics().session(crate::telemetry::SessionEvent::deleted);
    Ok(Reply::json(200, &Deleted { deleted: true }))
}

#[derive(Serialize)]
struct Health {
    status: &'static str,
    version: &'static str,
    store: &'static str,
    store_ok: bool,
}

/// `GET /health` (always 200 while the process runs) and `GET /health/ready` (503 while the
/// store is unreachable).
pub async fn health(app: &App, readiness: bool) -> Reply {
    let store_ok = app.store.healthy().await;
    let status = match (readiness, store_ok) {
        (true, false) => 503,
        _ => 200,
    };
    Reply::json(
        status,
        &Health {
            status: if store_ok { "ok" } else { "degraded" },
            version: env!("CARGO_PKG_VERSION"),
            store: app.store.kind(),
            store_ok,
        },
    )
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use async_trait::async_trait;
    use serde_json::json;

    use super::*;
    use crate::config::{Config, DEFAULT_TOML};
    use crate::redis_client::RedisFailure;
    use crate::vault::{MemoryStore, Store, StoreError};

    /// A store that counts writes, over a real memory store.
    struct Counting {
        inner: MemoryStore,
        puts: AtomicUsize,
    }

    #[async_trait]
    impl Store for Counting {
        fn kind(&self) -> &'static str {
            "memory"
        }
        async fn put(&self, id: &str, sealed: Vec<u8>, ttl: Duration) -> Result<(), StoreError> {
            self.puts.fetch_add(1, Ordering::SeqCst);
            self.inner.put(id, sealed, ttl).await
        }
        async fn get(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
            self.inner.get(id).await
        }
        async fn delete(&self, id: &str) -> Result<bool, StoreError> {
            self.inner.delete(id).await
        }
        async fn healthy(&self) -> bool {
            true
        }
    }

    /// A store that is down.
    struct Down;

    #[async_trait]
    impl Store for Down {
        fn kind(&self) -> &'static str {
            "redis"
        }
        async fn put(&self, _: &str, _: Vec<u8>, _: Duration) -> Result<(), StoreError> {
            Err(StoreError::Redis(RedisFailure::Unreachable))
        }
        async fn get(&self, _: &str) -> Result<Option<Vec<u8>>, StoreError> {
            Err(StoreError::Redis(RedisFailure::Unreachable))
        }
        async fn delete(&self, _: &str) -> Result<bool, StoreError> {
            Err(StoreError::Redis(RedisFailure::Unreachable))
        }
        async fn healthy(&self) -> bool {
            false
        }
    }

    fn app_with(store: Arc<dyn Store>) -> App {
        let env = [("TARNKAPPE_API_KEYS".to_owned(), "a:ka".to_owned())].into();
        let mut app = App::new(Config::from_toml_and_env(DEFAULT_TOML, &env).unwrap()).unwrap();
        app.store = store;
        app
    }

    fn obj(v: serde_json::Value) -> Object {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    fn caller(tenant: &str) -> Caller {
        Caller {
            tenant: tenant.into(),
            rate_limit: 120,
            credential: crate::access::Credential::Key,
        }
    }

    #[tokio::test]
    async fn refused_anonymize_requests_store_nothing() {
        let store = Arc::new(Counting {
            inner: MemoryStore::new(Duration::from_secs(60), 1 << 20),
            puts: AtomicUsize::new(0),
        });
        let app = app_with(store.clone());
        for body in [
            json!({"text": "[[NAME_1]] a@b.de"}),
            json!({"text": 1}),
            json!({"txt": "a@b.de"}),
        ] {
            assert!(anonymize(&app, &caller("a"), obj(body)).await.is_err());
        }
        assert_eq!(store.puts.load(Ordering::SeqCst), 0);
        let ok = anonymize(&app, &caller("a"), obj(json!({"text": "a@b.de"}))).await;
        assert_eq!(ok.unwrap().status, 200);
        assert_eq!(store.puts.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn stored_records_are_sealed_and_tenant_bound() {
        let store = Arc::new(Counting {
            inner: MemoryStore::new(Duration::from_secs(60), 1 << 20),
            puts: AtomicUsize::new(0),
        });
        let app = app_with(store.clone());
        let reply = anonymize(&app, &caller("a"), obj(json!({"text": "anna@example.de"})))
            .await
            .unwrap();
        let body: Value = serde_json::from_slice(&reply.body).unwrap();
        let id = body["session_id"].as_str().unwrap();
        let sealed = store.inner.get(id).await.unwrap().unwrap();
        assert!(
            !sealed.windows(7).any(|w| w == b"example"),
            "no plain text at rest"
        );
        assert_eq!(
            load_session(&app, &caller("a"), id).await.unwrap(),
            vec![("[[EMAIL_1]]".to_owned(), "anna@example.de".to_owned())]
        );
        assert!(matches!(
            load_session(&app, &caller("b"), id).await,
            Err(ApiError::SessionNotFound)
        ));
        assert!(matches!(
            delete_session(&app, &caller("b"), id).await,
            Err(ApiError::SessionNotFound)
        ));
        assert!(
            store.inner.get(id).await.unwrap().is_some(),
            "not deleted by another tenant"
        );
    }

    #[tokio::test]
    async fn store_failures_take_their_own_path() {
        let app = app_with(Arc::new(Down));
        let err = anonymize(&app, &caller("a"), obj(json!({"text": "x"})))
            .await
            .unwrap_err();
        assert!(matches!(err, ApiError::Store(_)));
        assert_eq!((err.status(), err.code()), (503, "store_unavailable"));
        assert!(
            !err.message().contains("refused"),
            "no internals in the answer"
        );
        assert_eq!(health(&app, true).await.status, 503);
        assert_eq!(health(&app, false).await.status, 200);
    }
}
