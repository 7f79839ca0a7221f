//! Host names that name nobody: the names reserved for documentation and testing (RFC 2606,
//! RFC 6761), listed in `data/lexicon/example_domains.txt`. Instructions keep an example URL on
//! one as written (`examples.rs`), and code does not count one as personal data (`code/`).

use crate::lexicon::Lexicon;

/// The lowercase host of a URL (`https://user@Docs.Example.com:8080/x` → `docs.example.com`);
/// a value without a scheme is read as `host[:port][/path]`.
pub(crate) fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    host_port
        .split(':')
        .next()
        .unwrap_or(host_port)
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// Whether `host` (lowercase) is a reserved name or below one: an entry with a leading dot is a
/// top-level name (`.test`), one without a domain (`example.com`); both match their subdomains.
pub(crate) fn is_example_host(host: &str) -> bool {
    Lexicon::get().lists.example_domains.iter().any(|entry| {
        let name = entry.trim_start_matches('.');
        host == name || host.strip_suffix(name).is_some_and(|h| h.ends_with('.'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names_and_their_subdomains() {
        for url in [
            "http://example.com/",
            "proxy.example.com",
            "https://a.test:8080/x",
            "http://localhost:3000",
            "https://u@Docs.Example.org/a?b",
        ] {
            assert!(is_example_host(&host_of(url)), "{url}");
        }
        for url in [
            "https://www.example.de/kontakt",
            "https://notexample.com",
            "https://example.com.evil.de/anna",
            "github.com",
        ] {
            assert!(!is_example_host(&host_of(url)), "{url}");
        }
    }
}
