//! Configuration: `proxy.toml` (every option documented there) plus environment overrides,
//! validated into one [`Config`]. Errors name the offending key and never echo secrets.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;

use base64::Engine;
use serde::Deserialize;
use sha2::{Digest, Sha256};

mod error;
pub mod policies;
mod sections;

use error::invalid;
pub use error::ConfigError;
pub use sections::{
    ApiConfig, ApiKey, EncryptionKeyConfig, ForwardedHeader, LogConfig, LogFormat, RedisConfig,
    RouteConfig, SealingKey, ServerConfig, SessionConfig, StoreKind, ToolArguments, UnknownPolicy,
    UnlistedHeaders, UpstreamConfig, WebConfig, WireFormatName, DEFAULT_MAX_VALUES_PER_REQUEST,
};

/// The defaults compiled into the binary (the shipped `proxy.toml`).
pub const DEFAULT_TOML: &str = include_str!("../../proxy.toml");

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub api: ApiConfig,
    pub session: SessionConfig,
    pub redis: RedisConfig,
    pub web: WebConfig,
    pub log: LogConfig,
    pub upstream: UpstreamConfig,
    #[serde(rename = "route")]
    pub routes: Vec<RouteConfig>,
    /// Named policies (`[policies.<name>]`), checked and compiled at start-up by
    /// `crate::policy::Policies::compile`.
    pub policies: std::collections::BTreeMap<String, policies::PolicyConfig>,
}

/// SHA-256 of a key, lower-case hex, as stored in `proxy.toml`.
pub fn hash_key(key: &str) -> String {
    Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Config {
    /// Reads `path` (or the embedded defaults) and applies the environment.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let text = match path {
            Some(p) => std::fs::read_to_string(p).map_err(|source| ConfigError::Read {
                path: p.display().to_string(),
                source,
            })?,
            None => DEFAULT_TOML.to_owned(),
        };
        let env: HashMap<String, String> = std::env::vars().collect();
        Config::from_toml_and_env(&text, &env)
    }

    /// Parses `text`, applies overrides from `env`, validates.
    pub(crate) fn from_toml_and_env(
        text: &str,
        env: &HashMap<String, String>,
    ) -> Result<Config, ConfigError> {
        let mut config: Config =
            toml::from_str(text).map_err(|e| ConfigError::Parse(e.message().to_owned()))?;
        config.apply_env(env)?;
        config.validate()?;
        Ok(config)
    }

    fn apply_env(&mut self, env: &HashMap<String, String>) -> Result<(), ConfigError> {
        if let Some(v) = env.get("TARNKAPPE_LISTEN") {
            self.server.listen = v.clone();
        }
        for (name, field) in [
            (
                "TARNKAPPE_CLIENT_HEADER_TIMEOUT_MS",
                &mut self.server.client_header_timeout_ms,
            ),
            (
                "TARNKAPPE_CLIENT_BODY_TIMEOUT_MS",
                &mut self.server.client_body_timeout_ms,
            ),
        ] {
            if let Some(v) = env.get(name) {
                *field = v
                    .parse()
                    .map_err(|_| invalid(name, "expected whole milliseconds"))?;
            }
        }
        if let Some(v) = env.get("TARNKAPPE_API_KEYS") {
            self.add_env_api_keys(v)?;
        }
        if let Some(v) = env.get("TARNKAPPE_ENCRYPTION_KEY") {
            self.add_env_encryption_key(v);
        }
        if let Some(v) = env.get("TARNKAPPE_SESSION_TTL") {
            self.session.ttl_seconds = v
                .parse()
                .map_err(|_| invalid("TARNKAPPE_SESSION_TTL", "expected whole seconds"))?;
        }
        if let Some(v) = env.get("TARNKAPPE_RATE_LIMIT") {
            self.api.rate_limit_per_minute = v
                .parse()
                .map_err(|_| invalid("TARNKAPPE_RATE_LIMIT", "expected requests per minute"))?;
        }
        if let Some(v) = env.get("TARNKAPPE_MAX_CANDIDATES") {
            self.api.max_candidates_per_text = v
                .parse()
                .map_err(|_| invalid("TARNKAPPE_MAX_CANDIDATES", "expected a number of values"))?;
        }
        if let Some(v) = env.get("TARNKAPPE_DETECTION_CACHE_BYTES") {
            self.api.detection_cache_bytes = v.parse().map_err(|_| {
                invalid(
                    "TARNKAPPE_DETECTION_CACHE_BYTES",
                    "expected a number of bytes",
                )
            })?;
        }
        if let Some(v) = env.get("TARNKAPPE_REDIS_URL") {
            self.redis.url = Some(v.clone());
            self.session.store = StoreKind::Redis;
        }
        if let Some(v) = env.get("TARNKAPPE_REDIS_CA_FILE") {
            self.redis.ca_file = Some(v.clone());
        }
        if let Some(v) = env.get("TARNKAPPE_REDIS_KEY_PREFIX") {
            self.redis.key_prefix = v.clone();
        }
        if let Some(v) = env.get("TARNKAPPE_WEB_ENABLED") {
            self.web.enabled = Some(match v.trim() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => return Err(invalid("TARNKAPPE_WEB_ENABLED", "expected true or false")),
            });
        }
        if let Some(v) = env.get("TARNKAPPE_TRUSTED_PROXIES") {
            self.web.trusted_proxies = v
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect();
        }
        for route in &mut self.routes {
            if let Some(v) = route.upstream_env.as_ref().and_then(|name| env.get(name)) {
                route.upstream = v.clone();
            }
        }
        Ok(())
    }

    /// `TARNKAPPE_API_KEYS`: `name:key` pairs, hashed here; the plain keys are not kept.
    fn add_env_api_keys(&mut self, pairs: &str) -> Result<(), ConfigError> {
        for pair in pairs.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, key) = pair.split_once(':').ok_or_else(|| {
                invalid(
                    "TARNKAPPE_API_KEYS",
                    "expected name:key pairs separated by commas",
                )
            })?;
            if name.is_empty() || key.is_empty() {
                return Err(invalid(
                    "TARNKAPPE_API_KEYS",
                    "name and key must not be empty",
                ));
            }
            self.api.keys.push(ApiKey {
                name: name.to_owned(),
                sha256: hash_key(key),
                rate_limit_per_minute: None,
                policy: None,
            });
        }
        Ok(())
    }

    /// `TARNKAPPE_ENCRYPTION_KEY`: one more key, with the next id, so it seals (highest id).
    fn add_env_encryption_key(&mut self, key: &str) {
        let id = self
            .session
            .encryption_keys
            .iter()
            .map(|k| k.id)
            .max()
            .map_or(1, |m| m.saturating_add(1));
        self.session.encryption_keys.push(EncryptionKeyConfig {
            id,
            key: key.to_owned(),
        });
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.listen_addr()?;
        if self.session.ttl_seconds == 0 {
            return Err(invalid("session.ttl_seconds", "must be at least 1"));
        }
        if self.server.client_header_timeout_ms == 0 {
            return Err(invalid(
                "server.client_header_timeout_ms",
                "must be at least 1",
            ));
        }
        if self.server.client_body_timeout_ms == 0 {
            return Err(invalid(
                "server.client_body_timeout_ms",
                "must be at least 1",
            ));
        }
        if self.api.rate_limit_per_minute == 0 {
            return Err(invalid("api.rate_limit_per_minute", "must be at least 1"));
        }
        if self.web.rate_limit_per_minute == Some(0) {
            return Err(invalid("web.rate_limit_per_minute", "must be at least 1"));
        }
        for (i, k) in self.api.keys.iter().enumerate() {
            let ok = k.sha256.len() == 64 && k.sha256.bytes().all(|b| b.is_ascii_hexdigit());
            if !ok {
                return Err(invalid(
                    &format!("api.keys[{i}].sha256"),
                    "expected 64 hex digits",
                ));
            }
            if k.name.is_empty() {
                return Err(invalid(&format!("api.keys[{i}].name"), "must not be empty"));
            }
        }
        self.sealing_keys()?;
        if let Some(id) = self.session.sealing_key_id {
            if !self.session.encryption_keys.iter().any(|k| k.id == id) {
                return Err(invalid(
                    "session.sealing_key_id",
                    "no key in session.encryption_keys has this id",
                ));
            }
        }
        if self.session.store == StoreKind::Redis {
            if self.redis.url.is_none() {
                return Err(invalid(
                    "redis.url",
                    "required with session.store = \"redis\"",
                ));
            }
            if self.session.encryption_keys.is_empty() {
                return Err(invalid(
                    "session.encryption_keys",
                    "a configured key is required with the Redis store (every replica must open every record)",
                ));
            }
        }
        for (i, r) in self.routes.iter().enumerate() {
            if !r.prefix.starts_with('/') {
                return Err(invalid(&format!("route[{i}].prefix"), "must start with /"));
            }
            if r.credential_env.is_some() && !r.require_key {
                return Err(invalid(
                    &format!("route[{i}].require_key"),
                    "a route that injects a credential must require a key",
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn listen_addr(&self) -> Result<SocketAddr, ConfigError> {
        use std::net::ToSocketAddrs;
        self.server
            .listen
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .ok_or_else(|| invalid("server.listen", "expected host:port"))
    }

    /// Decoded encryption keys (empty when none are configured).
    pub(crate) fn sealing_keys(&self) -> Result<Vec<SealingKey>, ConfigError> {
        let engine = base64::engine::general_purpose::STANDARD;
        self.session
            .encryption_keys
            .iter()
            .map(|k| {
                let bytes = engine.decode(k.key.trim()).map_err(|_| {
                    invalid(
                        &format!("session.encryption_keys[id={}]", k.id),
                        "not valid base64",
                    )
                })?;
                let key: [u8; 32] = bytes.try_into().map_err(|_| {
                    invalid(
                        &format!("session.encryption_keys[id={}]", k.id),
                        "must decode to exactly 32 bytes",
                    )
                })?;
                Ok(SealingKey { id: k.id, key })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn embedded_defaults_parse() {
        let c = Config::from_toml_and_env(DEFAULT_TOML, &env(&[])).unwrap();
        assert_eq!(c.server.listen, "127.0.0.1:8080");
        assert_eq!(c.api.rate_limit_per_minute, 120);
        assert_eq!(c.session.store, StoreKind::Memory);
    }

    #[test]
    fn env_overrides_apply() {
        let c = Config::from_toml_and_env(
            DEFAULT_TOML,
            &env(&[
                ("TARNKAPPE_LISTEN", "127.0.0.1:9999"),
                ("TARNKAPPE_API_KEYS", "alice:k1,bob:k2"),
                ("TARNKAPPE_SESSION_TTL", "5"),
                ("TARNKAPPE_RATE_LIMIT", "7"),
                (
                    "TARNKAPPE_ENCRYPTION_KEY",
                    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                ),
            ]),
        )
        .unwrap();
        assert_eq!(c.server.listen, "127.0.0.1:9999");
        assert_eq!(c.api.keys.len(), 2);
        assert_eq!(c.api.keys[0].sha256, hash_key("k1"));
        assert_eq!(c.session.ttl_seconds, 5);
        assert_eq!(c.api.rate_limit_per_minute, 7);
        assert_eq!(c.sealing_keys().unwrap().len(), 1);
    }

    #[test]
    fn bad_values_name_their_key() {
        let err =
            Config::from_toml_and_env(DEFAULT_TOML, &env(&[("TARNKAPPE_SESSION_TTL", "soon")]))
                .unwrap_err();
        assert!(err.to_string().contains("TARNKAPPE_SESSION_TTL"));
        let err = Config::from_toml_and_env(
            DEFAULT_TOML,
            &env(&[("TARNKAPPE_ENCRYPTION_KEY", "c2hvcnQ=")]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("32 bytes"));
        assert!(!err.to_string().contains("c2hvcnQ"));
    }

    #[test]
    fn redis_without_key_is_refused() {
        let err = Config::from_toml_and_env(
            DEFAULT_TOML,
            &env(&[("TARNKAPPE_REDIS_URL", "redis://127.0.0.1")]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("encryption_keys"));
    }

    #[test]
    fn sealing_key_id_must_name_a_configured_key() {
        let with = |id: u8| {
            DEFAULT_TOML.replace(
                "# sealing_key_id = 1",
                &format!(
                    "sealing_key_id = {id}\nencryption_keys = [{{ id = 1, key = \"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\" }}]"
                ),
            )
        };
        let c = Config::from_toml_and_env(&with(1), &env(&[])).unwrap();
        assert_eq!(c.session.sealing_key_id, Some(1));
        let err = Config::from_toml_and_env(&with(2), &env(&[])).unwrap_err();
        assert!(err.to_string().contains("sealing_key_id"));
    }

    /// A missing section, an empty section and the shipped file's values are the same: one
    /// `Default` per section, used by serde too.
    #[test]
    fn missing_sections_take_the_shipped_defaults() {
        let minimal = "[server]\nlisten = \"127.0.0.1:1\"\n";
        let c = Config::from_toml_and_env(minimal, &env(&[])).unwrap();
        let shipped = Config::from_toml_and_env(DEFAULT_TOML, &env(&[])).unwrap();
        assert_eq!(c.upstream.connect_timeout_ms, 5_000);
        assert_eq!(c.upstream.read_timeout_ms, 300_000);
        let same = |a: &Config, b: &Config| {
            assert_eq!(format!("{:?}", a.upstream), format!("{:?}", b.upstream));
            assert_eq!(format!("{:?}", a.api), format!("{:?}", b.api));
            assert_eq!(format!("{:?}", a.session), format!("{:?}", b.session));
            assert_eq!(format!("{:?}", a.redis), format!("{:?}", b.redis));
            assert_eq!(format!("{:?}", a.log), format!("{:?}", b.log));
            assert_eq!(a.server.threads, b.server.threads);
            assert_eq!(
                a.server.client_header_timeout_ms,
                b.server.client_header_timeout_ms
            );
            assert_eq!(
                a.server.client_body_timeout_ms,
                b.server.client_body_timeout_ms
            );
        };
        same(&c, &shipped);
        let empty_sections =
            format!("{minimal}[api]\n[session]\n[redis]\n[web]\n[log]\n[upstream]\n");
        same(
            &Config::from_toml_and_env(&empty_sections, &env(&[])).unwrap(),
            &shipped,
        );
        let c = Config::from_toml_and_env(
            minimal,
            &env(&[
                ("TARNKAPPE_CLIENT_HEADER_TIMEOUT_MS", "250"),
                ("TARNKAPPE_CLIENT_BODY_TIMEOUT_MS", "750"),
            ]),
        )
        .unwrap();
        assert_eq!(
            (
                c.server.client_header_timeout_ms,
                c.server.client_body_timeout_ms
            ),
            (250, 750)
        );
    }

    #[test]
    fn web_switch_and_trusted_proxies_come_from_the_environment() {
        let c = Config::from_toml_and_env(DEFAULT_TOML, &env(&[])).unwrap();
        assert_eq!(c.web.enabled, None, "unset: decided by the listener");
        assert!(c.web.trusted_proxies.is_empty());
        assert_eq!(c.web.forwarded_header, ForwardedHeader::XForwardedFor);
        let c = Config::from_toml_and_env(
            DEFAULT_TOML,
            &env(&[
                ("TARNKAPPE_WEB_ENABLED", "true"),
                ("TARNKAPPE_TRUSTED_PROXIES", " 10.0.0.0/8, ,192.0.2.7 "),
            ]),
        )
        .unwrap();
        assert_eq!(c.web.enabled, Some(true));
        assert_eq!(c.web.trusted_proxies, ["10.0.0.0/8", "192.0.2.7"]);
        let c = Config::from_toml_and_env(DEFAULT_TOML, &env(&[("TARNKAPPE_WEB_ENABLED", "0")]))
            .unwrap();
        assert_eq!(c.web.enabled, Some(false));
        let err =
            Config::from_toml_and_env(DEFAULT_TOML, &env(&[("TARNKAPPE_WEB_ENABLED", "yes")]))
                .unwrap_err();
        assert!(err.to_string().contains("TARNKAPPE_WEB_ENABLED"));
        let text = DEFAULT_TOML.replace("[web]", "[web]\nforwarded_header = \"forwarded\"");
        let c = Config::from_toml_and_env(&text, &env(&[])).unwrap();
        assert_eq!(c.web.forwarded_header, ForwardedHeader::Forwarded);
    }

    #[test]
    fn hash_key_is_sha256_hex() {
        assert_eq!(
            hash_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
