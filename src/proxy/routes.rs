//! Routes: path prefix → upstream (origin plus optional base path), wire format, key policy,
//! injected credential. Built once at start-up; host names are resolved off the request path
//! (a background warm-up at start, then an async lookup cached for a minute).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use crate::config::{Config, RouteConfig, UnknownPolicy, UnlistedHeaders};

use super::format::{self, WireFormat};
use crate::tokens::links::ToolPolicy;

const DNS_TTL: Duration = Duration::from_secs(60);

type DnsCache = Arc<RwLock<HashMap<(String, u16), (Vec<SocketAddr>, Instant)>>>;

/// Why an upstream URL cannot be used (the URL itself is not repeated: it may carry a token).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpstreamError {
    #[error("the upstream must start with http:// or https://")]
    Scheme,
    #[error("the upstream must be an origin with an optional base path")]
    NotOrigin,
    #[error("invalid IPv6 address")]
    Ipv6,
    #[error("invalid port")]
    Port,
    #[error("invalid upstream authority")]
    Authority,
}

/// A configured route that cannot be served, named by its index in `proxy.toml`.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error("route[{index}]: {source}")]
    Upstream { index: usize, source: UpstreamError },
    #[error("route[{index}]: credential_env {var} is not set")]
    CredentialUnset { index: usize, var: String },
}

/// An upstream base URL, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    pub tls: bool,
    pub host: String,
    pub port: u16,
    /// Without trailing slash; empty for none.
    pub base_path: String,
    /// The `Host` header value.
    pub authority: String,
}

impl Upstream {
    pub fn parse(url: &str) -> Result<Upstream, UpstreamError> {
        let (tls, rest) = if let Some(r) = url.strip_prefix("https://") {
            (true, r)
        } else if let Some(r) = url.strip_prefix("http://") {
            (false, r)
        } else {
            return Err(UpstreamError::Scheme);
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if authority.is_empty() || authority.contains('@') || path.contains(['?', '#']) {
            return Err(UpstreamError::NotOrigin);
        }
        let default_port = if tls { 443 } else { 80 };
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, after) = v6.split_once(']').ok_or(UpstreamError::Ipv6)?;
            let port = match after.strip_prefix(':') {
                Some(p) => p.parse().map_err(|_| UpstreamError::Port)?,
                None if after.is_empty() => default_port,
                None => return Err(UpstreamError::Authority),
            };
            (h.to_owned(), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_owned(), p.parse().map_err(|_| UpstreamError::Port)?),
                None => (authority.to_owned(), default_port),
            }
        };
        Ok(Upstream {
            tls,
            host,
            port,
            base_path: path.trim_end_matches('/').to_owned(),
            authority: authority.to_owned(),
        })
    }
}

pub struct Route {
    pub prefix: String,
    pub upstream: Upstream,
    pub format: &'static dyn WireFormat,
    pub require_key: bool,
    /// Header name and full value of the injected provider credential.
    pub credential: Option<(String, String)>,
    pub unknown: UnknownPolicy,
    /// Request headers off the allow-list: anonymized or dropped (`super::edges`).
    pub unlisted_headers: UnlistedHeaders,
    /// What of an exchange's values may be restored into tool-call arguments.
    pub tools: Arc<ToolPolicy>,
}

#[derive(Clone)]
pub struct Routes {
    /// Longest prefix first.
    routes: Vec<Arc<Route>>,
    dns: DnsCache,
}

impl Routes {
    pub fn from_config(config: &Config) -> Result<Routes, RouteError> {
        let mut routes = Vec::new();
        for (i, r) in config.routes.iter().enumerate() {
            routes.push(Arc::new(build_route(i, r)?));
        }
        routes.sort_by_key(|r| std::cmp::Reverse(r.prefix.len()));
        Ok(Routes {
            routes,
            dns: Arc::new(RwLock::new(HashMap::new())),
        })
    }

    pub fn find(&self, path: &str) -> Option<Arc<Route>> {
        self.routes
            .iter()
            .find(|r| path.starts_with(&r.prefix))
            .cloned()
    }

    /// Resolves every host name once in the background, so first requests find them cached.
    pub fn warm_up(&self) {
        let hosts: Vec<(String, u16)> = self
            .routes
            .iter()
            .filter(|r| r.upstream.host.parse::<IpAddr>().is_err())
            .map(|r| (r.upstream.host.clone(), r.upstream.port))
            .collect();
        if hosts.is_empty() {
            return;
        }
        let dns = self.dns.clone();
        let _ = std::thread::Builder::new()
            .name("tarnkappe-dns".into())
            .spawn(move || {
                use std::net::ToSocketAddrs;
                for (h, p) in hosts {
                    if let Ok(addrs) = (h.as_str(), p).to_socket_addrs() {
                        let addrs: Vec<SocketAddr> = addrs.collect();
                        if let Ok(mut m) = dns.write() {
                            m.insert((h, p), (addrs, Instant::now()));
                        }
                    }
                }
            });
    }

    /// A socket address for `upstream` without blocking the worker.
    pub async fn resolve(&self, upstream: &Upstream) -> Option<SocketAddr> {
        if let Ok(ip) = upstream.host.parse::<IpAddr>() {
            return Some(SocketAddr::new(ip, upstream.port));
        }
        let key = (upstream.host.clone(), upstream.port);
        if let Ok(m) = self.dns.read() {
            if let Some((addrs, at)) = m.get(&key) {
                if at.elapsed() < DNS_TTL {
                    return addrs.first().copied();
                }
            }
        }
        let addrs: Vec<SocketAddr> =
            tokio::net::lookup_host((upstream.host.as_str(), upstream.port))
                .await
                .ok()?
                .collect();
        let first = addrs.first().copied();
        if let Ok(mut m) = self.dns.write() {
            m.insert(key, (addrs, Instant::now()));
        }
        first
    }
}

fn build_route(index: usize, r: &RouteConfig) -> Result<Route, RouteError> {
    let upstream =
        Upstream::parse(&r.upstream).map_err(|source| RouteError::Upstream { index, source })?;
    let credential = match &r.credential_env {
        Some(var) => {
            let value = std::env::var(var).map_err(|_| RouteError::CredentialUnset {
                index,
                var: var.clone(),
            })?;
            let header = r
                .credential_header
                .clone()
                .unwrap_or_else(|| "authorization".into())
                .to_ascii_lowercase();
            let value = if header == "authorization" && !value.starts_with("Bearer ") {
                format!("Bearer {value}")
            } else {
                value
            };
            Some((header, value))
        }
        None => None,
    };
    Ok(Route {
        prefix: r.prefix.clone(),
        upstream,
        format: format::for_name(r.format),
        require_key: r.require_key,
        credential,
        unknown: r.unknown,
        unlisted_headers: r.unlisted_headers,
        tools: Arc::new(ToolPolicy::new(r.tool_arguments, &r.tool_url_hosts)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_upstreams() {
        let u = Upstream::parse("https://gateway.example/openai/").unwrap();
        assert_eq!(
            (u.tls, u.host.as_str(), u.port, u.base_path.as_str()),
            (true, "gateway.example", 443, "/openai")
        );
        let u = Upstream::parse("http://127.0.0.1:11434").unwrap();
        assert_eq!(
            (u.tls, u.port, u.base_path.as_str(), u.authority.as_str()),
            (false, 11434, "", "127.0.0.1:11434")
        );
        let u = Upstream::parse("http://[::1]:8000/x").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 8000));
        assert!(Upstream::parse("ftp://x").is_err());
        assert!(Upstream::parse("http://u:p@x").is_err());
    }
}
