//! The sections of `proxy.toml` with their defaults.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// host:port of the one listener (API, web page and proxy).
    pub listen: String,
    /// Worker threads of the pingora service.
    pub threads: usize,
    /// Whether idle worker threads take over requests queued on a busy one (one shared
    /// runtime) instead of each thread serving its own connections (one service per thread,
    /// `src/server.rs`). Off by default: stealing wakes a second thread for every request
    /// (docs/performance.md, "Worker threads").
    pub work_stealing: bool,
    /// Seconds that in-flight requests get after SIGTERM.
    pub grace_period_seconds: u64,
    /// Longest time a client may take to send a request's header, from its first byte (from
    /// the connection's start for the first request); slower clients are disconnected.
    pub client_header_timeout_ms: u64,
    /// Longest time a client may take to send a request's body, from the end of its header;
    /// slower clients get 408 and are disconnected.
    pub client_body_timeout_ms: u64,
    /// WebSockets (Responses API) open at once; one more is answered 503.
    pub websocket_max_connections: usize,
    /// A WebSocket with no message either way for this long is closed.
    pub websocket_idle_timeout_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ApiConfig {
    /// Requests per minute per key (and per web-page tenant) unless a key says otherwise.
    pub rate_limit_per_minute: u32,
    /// Request bodies above this many bytes get 413 (from Content-Length, or while reading).
    pub max_body_bytes: usize,
    /// Candidate values the detector takes from one text; past it the request gets 413
    /// `too_many_values` (docs/api.md), and the proxy forwards nothing.
    pub max_candidates_per_text: usize,
    /// Distinct values one proxied request may hold; past it the request is refused with 413
    /// (`docs/proxy.md`, "Limits").
    pub max_values_per_request: usize,
    /// Bytes of findings the proxy keeps of texts it has detected, so that a conversation's
    /// history, sent again every turn, is detected once (`src/detection_cache.rs`); 0: off.
    pub detection_cache_bytes: u64,
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
    /// Seal with this key id instead of the highest (step 1 of a key rotation, docs/operations.md).
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
    /// is a loopback address (`crate::access::web::resolve_enabled`).
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

/// What a route does with a request header that is not on the allow-list of
/// `src/proxy/edges/headers.rs` (docs/proxy.md, "Headers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum UnlistedHeaders {
    /// Its value is anonymized with the exchange's tokens (one that cannot be read is dropped).
    #[default]
    Anonymize,
    /// It is not forwarded.
    Drop,
}

/// What of an exchange's values may be restored into tool-call arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ToolArguments {
    /// Every call gets its values (outside link targets).
    #[default]
    All,
    /// No call gets values: the agent acts on tokens.
    None,
    /// A call naming a URL whose host is not in `tool_url_hosts` gets no values.
    NoUrls,
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
    #[serde(default)]
    pub unlisted_headers: UnlistedHeaders,
    /// The policy of this route's exchanges (a key's own policy wins).
    #[serde(default)]
    pub policy: Option<String>,
    /// What of the exchange's values may be restored into tool-call arguments.
    #[serde(default)]
    pub tool_arguments: ToolArguments,
    /// Hosts (with their subdomains) a tool call may name under `tool_arguments = "no_urls"`.
    #[serde(default)]
    pub tool_url_hosts: Vec<String>,
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
/// The default of `api.max_values_per_request`.
pub const DEFAULT_MAX_VALUES_PER_REQUEST: usize = 20_000;

/// The default of `api.detection_cache_bytes`: 16 MiB, about 3,000 dense 2 KB messages.
pub const DEFAULT_DETECTION_CACHE_BYTES: u64 = 16 * 1024 * 1024;

fn default_max_values() -> usize {
    DEFAULT_MAX_VALUES_PER_REQUEST
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
            work_stealing: false,
            grace_period_seconds: default_grace(),
            client_header_timeout_ms: 10_000,
            client_body_timeout_ms: 60_000,
            websocket_max_connections: 256,
            websocket_idle_timeout_ms: 300_000,
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
            max_candidates_per_text: crate::detect::MAX_CANDIDATES,
            max_values_per_request: default_max_values(),
            detection_cache_bytes: DEFAULT_DETECTION_CACHE_BYTES,
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

/// One decoded `session.encryption_keys` entry: an AES-256 key with the id that records sealed
/// under it carry (the vault seals with it).
#[derive(Clone)]
pub struct SealingKey {
    pub id: u8,
    pub key: [u8; 32],
}

impl std::fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SealingKey {{ id: {}, key: <redacted> }}", self.id)
    }
}
