//! Configuration: `proxy.toml` (every option documented there) plus environment overrides,
//! validated into one [`Config`]. Errors name the offending key and never echo secrets.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;

use base64::Engine;
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The defaults compiled into the binary (the shipped `proxy.toml`).
pub const DEFAULT_TOML: &str = include_str!("../proxy.toml");

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("invalid configuration: {0}")]
    Parse(String),
    #[error("invalid value for {key}: {reason}")]
    Invalid { key: String, reason: String },
}

fn invalid(key: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_owned(),
        reason: reason.into(),
    }
}

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
    pub policies: std::collections::BTreeMap<String, crate::policy::PolicyConfig>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// host:port of the one listener (API, web page and proxy).
    pub listen: String,
    /// Worker threads of the pingora service.
    pub threads: usize,
    /// Seconds that in-flight requests get after SIGTERM.
    pub grace_period_seconds: u64,
    /// Longest time a client may take to send a request's header, from its first byte (from
    /// the connection's start for the first request); slower clients are disconnected.
    pub client_header_timeout_ms: u64,
    /// Longest time a client may take to send a request's body, from the end of its header;
    /// slower clients get 408 and are disconnected.
    pub client_body_timeout_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ApiConfig {
    /// Requests per minute per key (and per web-page tenant) unless a key says otherwise.
    pub rate_limit_per_minute: u32,
    /// Request bodies above this many bytes get 413 (from Content-Length, or while reading).
    pub max_body_bytes: usize,
    /// Operator-issued keys; the secret itself is held only as a SHA-256 hash.
    pub keys: Vec<ApiKey>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiKey {
    /// Tenant id; sessions are bound to it.
    pub name: String,
    /// Hex SHA-256 of the key (`tarnkappe hash-key`).
    pub sha256: String,
    /// Requests per minute for this key (default: `api.rate_limit_per_minute`).
    pub rate_limit_per_minute: Option<u32>,
    /// The policy of this key's requests (REST and proxy routes with `require_key`); it wins
    /// over the route's.
    #[serde(default)]
    pub policy: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreKind {
    Memory,
    Redis,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionConfig {
    pub ttl_seconds: u64,
    pub store: StoreKind,
    /// Byte bound of the embedded store.
    pub memory_capacity_bytes: u64,
    /// AES-256 keys (base64 of 32 bytes) with ids; the highest id seals, all open.
    pub encryption_keys: Vec<EncryptionKeyConfig>,
    /// Seal with this key id instead of the highest (step 1 of a key rotation, see README).
    pub sealing_key_id: Option<u8>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EncryptionKeyConfig {
    pub id: u8,
    /// base64 of 32 bytes.
    pub key: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedisConfig {
    /// redis:// or rediss:// (TLS).
    pub url: Option<String>,
    /// Treat `url` (comma-separated for several seeds) as a Redis Cluster.
    pub cluster: bool,
    pub connect_timeout_ms: u64,
    pub command_timeout_ms: u64,
    /// Put in front of every key (`<prefix>session:<id>`, `<prefix>ratelimit:<hash>`), so that
    /// several deployments can share one Redis.
    pub key_prefix: String,
    /// PEM bundle of the CA(s) that sign the Redis server certificate (rediss://), instead of the
    /// system roots.
    pub ca_file: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebConfig {
    /// Serve the page at `/` and accept its cookie on the API. Unset: only when `server.listen`
    /// is a loopback address (`crate::web::resolve_enabled`).
    pub enabled: Option<bool>,
    /// base64 of at least 32 bytes to sign the tenant cookie; random per process when absent.
    pub cookie_secret: Option<String>,
    /// Fresh cookies, and cookie-authenticated calls, per minute per client address (two
    /// windows); default `api.rate_limit_per_minute`.
    pub rate_limit_per_minute: Option<u32>,
    /// Addresses or CIDRs of reverse proxies whose forwarding header names the client.
    pub trusted_proxies: Vec<String>,
    /// Which header a trusted proxy sets: the other one is ignored (a client could send it).
    pub forwarded_header: ForwardedHeader,
    /// The policy of the page's tenants (default: the default policy).
    pub policy: Option<String>,
}

/// The header from which a trusted proxy's client address (and scheme) is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ForwardedHeader {
    /// `X-Forwarded-For` (and `X-Forwarded-Proto`), as set by nginx, HAProxy, Envoy, Traefik.
    #[default]
    XForwardedFor,
    /// RFC 7239 `Forwarded` (`for=` and `proto=`).
    Forwarded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    pub format: LogFormat,
    /// A tracing filter, e.g. `info` or `tarnkappe=debug`.
    pub level: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UpstreamConfig {
    /// PEM bundle of extra CAs trusted for https upstreams (server-wide).
    pub ca_file: Option<String>,
    pub connect_timeout_ms: u64,
    /// Longest wait for the next bytes from the upstream (LLMs can be slow to start).
    pub read_timeout_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WireFormatName {
    Openai,
    Anthropic,
    Ollama,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum UnknownPolicy {
    /// POSTs to paths the format does not know are refused (fail closed).
    #[default]
    Refuse,
    /// Anonymize every JSON string except well-known non-text keys.
    Generic,
    /// Forward unchanged (explicit opt-out, logged).
    Passthrough,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteConfig {
    /// Path prefix, e.g. `/v1/`.
    pub prefix: String,
    /// Base URL: origin plus optional base path.
    pub upstream: String,
    /// Environment variable that overrides `upstream`.
    #[serde(default)]
    pub upstream_env: Option<String>,
    pub format: WireFormatName,
    #[serde(default)]
    pub require_key: bool,
    /// Environment variable holding a provider credential to inject.
    #[serde(default)]
    pub credential_env: Option<String>,
    /// Header that carries the injected credential (`authorization` gets `Bearer `).
    #[serde(default)]
    pub credential_header: Option<String>,
    #[serde(default)]
    pub unknown: UnknownPolicy,
    /// The policy of this route's exchanges (a key's own policy wins).
    #[serde(default)]
    pub policy: Option<String>,
}

fn default_listen() -> String {
    "127.0.0.1:8080".to_owned()
}
fn default_threads() -> usize {
    2
}
fn default_grace() -> u64 {
    10
}
fn default_rate() -> u32 {
    120
}
fn default_body_cap() -> usize {
    2 * 1024 * 1024
}
fn default_ttl() -> u64 {
    86_400
}
fn default_store() -> StoreKind {
    StoreKind::Memory
}
fn default_capacity() -> u64 {
    256 * 1024 * 1024
}
fn default_redis_connect_ms() -> u64 {
    1_000
}
fn default_redis_command_ms() -> u64 {
    1_000
}
fn default_redis_prefix() -> String {
    "tarnkappe:".to_owned()
}
fn default_log_format() -> LogFormat {
    LogFormat::Text
}
fn default_log_level() -> String {
    "info".to_owned()
}
fn default_connect_ms() -> u64 {
    5_000
}
fn default_read_ms() -> u64 {
    300_000
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: default_listen(),
            threads: default_threads(),
            grace_period_seconds: default_grace(),
            client_header_timeout_ms: 10_000,
            client_body_timeout_ms: 60_000,
        }
    }
}
impl Default for UpstreamConfig {
    fn default() -> Self {
        UpstreamConfig {
            ca_file: None,
            connect_timeout_ms: default_connect_ms(),
            read_timeout_ms: default_read_ms(),
        }
    }
}
impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            rate_limit_per_minute: default_rate(),
            max_body_bytes: default_body_cap(),
            keys: Vec::new(),
        }
    }
}
impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            ttl_seconds: default_ttl(),
            store: default_store(),
            memory_capacity_bytes: default_capacity(),
            encryption_keys: Vec::new(),
            sealing_key_id: None,
        }
    }
}
impl Default for RedisConfig {
    fn default() -> Self {
        RedisConfig {
            url: None,
            cluster: false,
            connect_timeout_ms: default_redis_connect_ms(),
            command_timeout_ms: default_redis_command_ms(),
            key_prefix: default_redis_prefix(),
            ca_file: None,
        }
    }
}
impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            format: default_log_format(),
            level: default_log_level(),
        }
    }
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
    pub fn from_toml_and_env(
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
            for pair in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
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
        }
        if let Some(v) = env.get("TARNKAPPE_ENCRYPTION_KEY") {
            let id = self
                .session
                .encryption_keys
                .iter()
                .map(|k| k.id)
                .max()
                .map_or(1, |m| m.saturating_add(1));
            self.session
                .encryption_keys
                .push(EncryptionKeyConfig { id, key: v.clone() });
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

    pub fn listen_addr(&self) -> Result<SocketAddr, ConfigError> {
        use std::net::ToSocketAddrs;
        self.server
            .listen
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .ok_or_else(|| invalid("server.listen", "expected host:port"))
    }

    /// Decoded encryption keys (empty when none are configured).
    pub fn sealing_keys(&self) -> Result<Vec<crate::vault::SealingKey>, ConfigError> {
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
                Ok(crate::vault::SealingKey { id: k.id, key })
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
