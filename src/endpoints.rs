//! The one table of paths this process answers itself (the REST API, `/metrics`, the web page):
//! the proxy asks it whether a path is local, the API which endpoint it names, telemetry which
//! fixed template to log.

/// The local endpoints, after matching the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Local {
    Anonymize,
    Deanonymize,
    /// `DELETE /api/v1/session/{id}`, with the raw id segment.
    Session(String),
    Entities,
    /// `GET /api/v1/policy`: the caller's effective policy (key or cookie).
    Policy,
    Health,
    Ready,
    OpenApi,
    /// `GET /metrics`: Prometheus metrics (no key).
    Metrics,
    /// `/`: the web page (when `web.enabled`).
    Page,
    NotFound,
}

impl Local {
    pub fn of(path: &str) -> Local {
        if path == "/openapi.json" {
            return Local::OpenApi;
        }
        let Some(rest) = path.strip_prefix("/api/v1/") else {
            if path == "/metrics" {
                return Local::Metrics;
            }
            return if path == "/" {
                Local::Page
            } else {
                Local::NotFound
            };
        };
        match rest {
            "anonymize" => Local::Anonymize,
            "deanonymize" => Local::Deanonymize,
            "entities" => Local::Entities,
            "policy" => Local::Policy,
            "health" => Local::Health,
            "health/ready" => Local::Ready,
            "openapi.json" => Local::OpenApi,
            _ => match rest.strip_prefix("session/") {
                Some(id) if !id.is_empty() && !id.contains('/') => Local::Session(id.to_owned()),
                _ => Local::NotFound,
            },
        }
    }

    /// The methods this route answers (the `Allow` header of a 405).
    pub fn allow(&self) -> &'static str {
        match self {
            Local::Anonymize | Local::Deanonymize => "POST",
            Local::Session(_) => "DELETE",
            _ => "GET, HEAD",
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Local::Anonymize => "anonymize",
            Local::Deanonymize => "deanonymize",
            Local::Session(_) => "session",
            Local::Entities => "entities",
            Local::Policy => "policy",
            Local::Health => "health",
            Local::Ready => "ready",
            Local::OpenApi => "openapi",
            Local::Metrics => "metrics",
            Local::Page => "page",
            Local::NotFound => "unknown",
        }
    }
}

/// Whether `path` is answered by this process (never proxied): every local endpoint, and every
/// path under `/api/v1` (an unknown one is answered 404 here, not forwarded).
pub fn is_local(path: &str) -> bool {
    Local::of(path) != Local::NotFound || path == "/api/v1" || path.starts_with("/api/v1/")
}

/// The template of a local `path` for logs and metric labels: the path itself for a fixed
/// endpoint, a placeholder for the parts a client chooses; `None` when the path is not local.
pub fn template(path: &str) -> Option<&'static str> {
    Some(match Local::of(path) {
        Local::Anonymize => "/api/v1/anonymize",
        Local::Deanonymize => "/api/v1/deanonymize",
        Local::Session(_) => "/api/v1/session/{id}",
        Local::Entities => "/api/v1/entities",
        Local::Policy => "/api/v1/policy",
        Local::Health => "/api/v1/health",
        Local::Ready => "/api/v1/health/ready",
        Local::OpenApi if path == "/openapi.json" => "/openapi.json",
        Local::OpenApi => "/api/v1/openapi.json",
        Local::Metrics => "/metrics",
        Local::Page => "/",
        Local::NotFound if is_local(path) => "/api/v1/{unknown}",
        Local::NotFound => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_table_for_routing_and_templates() {
        assert_eq!(
            Local::of("/api/v1/session/abc"),
            Local::Session("abc".into())
        );
        assert_eq!(Local::of("/api/v1/session/a/b"), Local::NotFound);
        assert!(is_local("/api/v1/nothing-here"));
        assert!(is_local("/"));
        assert!(!is_local("/v1/chat/completions"));
        assert_eq!(
            template("/api/v1/session/Max%20Mustermann"),
            Some("/api/v1/session/{id}")
        );
        assert_eq!(
            template("/api/v1/Max%20Mustermann"),
            Some("/api/v1/{unknown}")
        );
        assert_eq!(template("/openapi.json"), Some("/openapi.json"));
        assert_eq!(template("/v1/messages"), None);
    }
}
