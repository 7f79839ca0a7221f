//! Policies: what is masked, per route and per API key.
//!
//! A policy (`[policies.<name>]` in `proxy.toml`, [`PolicyConfig`]) says which built-in
//! types are detected, a minimum score per type, an allow list (literals and regexes never
//! masked), deny terms (always masked, with their type — a custom type gets its own token
//! prefix such as `[[PROJEKT_1]]`), custom recognizers (regex, optional check digit, optional
//! context words, score, prefix) and an action per type (`mask` or `block`).
//!
//! Everything is checked and compiled once at start-up ([`Policies::compile`]): a problem is one
//! sentence naming the policy and the entry, and the process exits 1. The compiled
//! [`compiled::Policy`] implements the detection engine's `Scope`, so detection stays pure and
//! takes the policy as input. Which policy applies: the calling key's (`[[api.keys]] policy`),
//! else the route's (`[[route]] policy`), else the default — the policy named `default` when one
//! is configured, otherwise the built-in behaviour under that name. The web page's tenants get
//! `[web] policy` or the default.

pub(crate) mod compiled;
mod error;
mod types;

use std::collections::HashMap;
use std::sync::Arc;

pub use crate::config::policies::PolicyConfig;
pub use compiled::Policy;
pub(crate) use compiled::{RequestTerms, WithTerms};
pub use error::PolicyError;

/// Name of the policy that applies when none is named.
pub(crate) const DEFAULT_POLICY: &str = "default";

/// Every compiled policy and who gets which.
pub(crate) struct Policies {
    default: Arc<Policy>,
    web: Arc<Policy>,
    by_route: HashMap<String, Arc<Policy>>,
    by_key: HashMap<String, Arc<Policy>>,
}

fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

impl Policies {
    /// Checks and compiles `[policies.*]` and the assignments in `[[route]]`, `[[api.keys]]` and
    /// `[web]`.
    pub fn compile(config: &crate::config::Config) -> Result<Policies, PolicyError> {
        let mut named: HashMap<&str, Arc<Policy>> = HashMap::new();
        for (name, p) in &config.policies {
            if !valid_name(name) {
                return Err(PolicyError::BadName(name.clone()));
            }
            named.insert(name, Arc::new(Policy::compile(name, p)?));
        }
        let default = named
            .get(DEFAULT_POLICY)
            .cloned()
            .unwrap_or_else(|| Arc::new(Policy::everything(DEFAULT_POLICY)));
        let lookup = |owner: String, name: &str| {
            named
                .get(name)
                .cloned()
                .ok_or_else(|| PolicyError::Unknown {
                    owner,
                    name: name.to_owned(),
                })
        };
        let web = match &config.web.policy {
            Some(n) => lookup("[web] policy".into(), n)?,
            None => default.clone(),
        };
        let mut by_route = HashMap::new();
        for r in &config.routes {
            if let Some(n) = &r.policy {
                by_route.insert(r.prefix.clone(), lookup(format!("route {}", r.prefix), n)?);
            }
        }
        let mut by_key: HashMap<String, Arc<Policy>> = HashMap::new();
        for k in &config.api.keys {
            let Some(n) = &k.policy else {
                if by_key.contains_key(&k.name) {
                    return Err(PolicyError::KeyConflict(k.name.clone()));
                }
                continue;
            };
            let p = lookup(format!("API key {}", k.name), n)?;
            let clash = by_key.get(&k.name).is_some_and(|q| q.name != p.name)
                || config
                    .api
                    .keys
                    .iter()
                    .any(|o| o.name == k.name && o.policy.is_none());
            if clash {
                return Err(PolicyError::KeyConflict(k.name.clone()));
            }
            by_key.insert(k.name.clone(), p);
        }
        Ok(Policies {
            default,
            web,
            by_route,
            by_key,
        })
    }

    /// The policy of an API caller: its key's (`tenant` is the key's name), or for the web
    /// page's cookie tenants the web policy.
    pub(crate) fn for_caller(&self, tenant: &str, cookie: bool) -> &Arc<Policy> {
        if cookie {
            return &self.web;
        }
        self.by_key.get(tenant).unwrap_or(&self.default)
    }

    /// The policy of a proxied exchange: the key's when the route requires one and the key
    /// names a policy (`tenant`), else the route's, else the default.
    pub(crate) fn for_exchange(&self, route_prefix: &str, tenant: Option<&str>) -> &Arc<Policy> {
        if let Some(p) = tenant.and_then(|t| self.by_key.get(t)) {
            return p;
        }
        self.by_route.get(route_prefix).unwrap_or(&self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, DEFAULT_TOML};
    use crate::detect::{Detector, EntityType};

    fn config(extra: &str) -> Config {
        Config::from_toml_and_env(&format!("{DEFAULT_TOML}\n{extra}"), &Default::default()).unwrap()
    }

    fn error(extra: &str) -> String {
        match Policies::compile(&config(extra)) {
            Ok(_) => panic!("accepted: {extra}"),
            Err(e) => e.to_string(),
        }
    }

    fn one(extra: &str) -> Arc<Policy> {
        Policies::compile(&config(extra)).unwrap().default.clone()
    }

    fn found(policy: &Policy, text: &str) -> Vec<(String, String)> {
        let chars: Vec<char> = text.chars().collect();
        Detector::new()
            .detect_in(text, policy)
            .into_iter()
            .map(|f| {
                (
                    f.entity_type.name().to_owned(),
                    chars[f.start..f.end].iter().collect(),
                )
            })
            .collect()
    }

    #[test]
    fn each_mistake_is_one_sentence_naming_policy_and_entry() {
        let cases = [
            ("[policies.p]\ntypes = [\"PERSONS\"]", "policy \"p\": types names the unknown entity type \"PERSONS\""),
            ("[policies.p]\nmin_score = { FOO = 0.7 }", "min_score names the unknown entity type \"FOO\""),
            ("[policies.p]\nactions = { IBAN = \"block\", X = \"block\" }", "actions names the unknown entity type \"X\""),
            ("[policies.p]\n[[policies.p.recognizers]]\ntype = \"KD\"\nregex = \"KD-([0-9]\"", "recognizer 1 has an invalid regex"),
            ("[policies.p]\n[[policies.p.recognizers]]\ntype = \"KD\"\nregex = \"[0-9]*\"", "matches the empty text"),
            ("[policies.p]\nallow_regex = [\"(\"]", "allow_regex entry 1 is an invalid regex"),
            ("[policies.p]\n[[policies.p.deny]]\ntype = \"PROJEKT\"\nprefix = \"NAME\"\nterms = [\"Falke\"]", "clashes with the built-in type PERSON"),
            ("[policies.p]\n[[policies.p.deny]]\ntype = \"PROJEKT\"\nprefix = \"IBAN\"\nterms = [\"Falke\"]", "clashes with the built-in type IBAN"),
            ("[policies.p]\n[[policies.p.deny]]\ntype = \"PROJEKT\"\nprefix = \"Projekt_1\"\nterms = [\"Falke\"]", "2 to 16 capital letters"),
            ("[policies.p]\n[[policies.p.deny]]\ntype = \"PROJEKT\"\nprefix = \"TERM\"\nterms = [\"Falke\"]", "reserved for the deny_terms of a request"),
            ("[policies.p]\n[[policies.p.deny]]\ntype = \"A\"\nprefix = \"XY\"\nterms = [\"a\"]\n[[policies.p.deny]]\ntype = \"B\"\nprefix = \"XY\"\nterms = [\"b\"]", "which type A already uses"),
            ("[policies.p]\n[[policies.p.deny]]\ntype = \"PERSON\"\nprefix = \"PERS\"\nterms = [\"a\"]", "built-in type PERSON a token prefix of its own"),
            ("[policies.p]\n[[policies.p.recognizers]]\ntype = \"KD\"\nregex = \"KD-[0-9]+\"\nvalidator = \"crc\"", "unknown variant"),
            ("[policies.p]\n[[policies.p.recognizers]]\ntype = \"KD\"\nregex = \"KD-[0-9]+\"\nscore = 1.5", "a score must be above 0 and at most 1"),
            ("[policies.p]\ntypes = [\"EMAIL_ADDRESS\"]\n[[policies.p.deny]]\ntype = \"PERSON\"\nterms = [\"Anna\"]", "deny entry 1 gives its findings the type PERSON, which this policy does not detect"),
        ];
        for (toml, expected) in cases {
            let text = format!("{DEFAULT_TOML}\n{toml}");
            let msg = match Config::from_toml_and_env(&text, &Default::default()) {
                Err(e) => e.to_string(),
                Ok(c) => match Policies::compile(&c) {
                    Err(e) => e.to_string(),
                    Ok(_) => panic!("accepted: {toml}"),
                },
            };
            assert!(msg.contains(expected), "{toml}: {msg}");
            assert_eq!(msg.lines().count(), 1, "{msg}");
        }
    }

    #[test]
    fn assignments_must_name_configured_policies() {
        let with_route = DEFAULT_TOML.replacen(
            "format = \"openai\"",
            "format = \"openai\"\npolicy = \"strict\"",
            1,
        );
        let c = Config::from_toml_and_env(&with_route, &Default::default()).unwrap();
        let err = Policies::compile(&c).err().unwrap().to_string();
        assert_eq!(
            err,
            "route /v1/ names the policy \"strict\", which is not configured"
        );
        let with_web = DEFAULT_TOML.replacen("[web]", "[web]\npolicy = \"nope\"", 1);
        let c = Config::from_toml_and_env(&with_web, &Default::default()).unwrap();
        let err = Policies::compile(&c).err().unwrap().to_string();
        assert_eq!(
            err,
            "[web] policy names the policy \"nope\", which is not configured"
        );
        assert!(error("[policies.\"a b\"]").contains("invalid policy name"));
    }

    #[test]
    fn keys_win_over_routes_and_the_default_applies_elsewhere() {
        let mut c = config("[policies.strict]\ntypes = [\"EMAIL_ADDRESS\"]\n[policies.loose]\ntypes = [\"IBAN\"]\n[policies.default]\ntypes = [\"PERSON\"]");
        c.routes[0].policy = Some("loose".into());
        c.api.keys.push(crate::config::ApiKey {
            name: "team".into(),
            sha256: crate::config::hash_key("k"),
            rate_limit_per_minute: None,
            policy: Some("strict".into()),
        });
        let p = Policies::compile(&c).unwrap();
        let prefix = c.routes[0].prefix.clone();
        assert_eq!(p.for_exchange(&prefix, Some("team")).name, "strict");
        assert_eq!(p.for_exchange(&prefix, Some("other")).name, "loose");
        assert_eq!(p.for_exchange(&prefix, None).name, "loose");
        assert_eq!(p.for_exchange("/api/chat", None).name, "default");
        assert_eq!(p.for_caller("team", false).name, "strict");
        assert_eq!(p.for_caller("team", true).name, "default");
        assert_eq!(
            Policies::compile(&config("")).unwrap().default.name,
            "default"
        );
    }

    #[test]
    fn types_scores_allow_deny_and_recognizers_shape_the_findings() {
        let p = one(r#"
[policies.default]
types = ["PERSON", "EMAIL_ADDRESS", "CREDIT_CARD"]
min_score = { PERSON = 0.95 }
allow = ["support@firma.de"]
allow_regex = ['TICKET-[0-9]{5}']
actions = { CREDIT_CARD = "block", PROJEKT = "block" }
[[policies.default.deny]]
type = "PROJEKT"
terms = ["Falke"]
[[policies.default.deny]]
type = "PERSON"
terms = ["Tante Käthe"]
[[policies.default.recognizers]]
type = "KUNDENNUMMER"
prefix = "KUNDE"
regex = 'KD-[0-9]{6}'
context = ["Kunde"]
score = 0.9
[[policies.default.recognizers]]
type = "VERTRAG"
regex = '\bV[0-9]{7}\b'
validator = "luhn"
"#);
        let text = "Projekt falke: Kunde KD-123456. Vertrag V0000018, V0000019. Und dann noch, ohne \
                    jeden Hinweis davor, KD-654321. Mail an support@firma.de oder anna.berg@example.de, IBAN DE89 3704 0044 0532 0130 00, \
                    TICKET-12345 mit Frau Anna Berg und Tante Käthe. Falkenberg bleibt.";
        let got = found(&p, text);
        let has = |t: &str, v: &str| got.iter().any(|(a, b)| a == t && b == v);
        assert!(has("PROJEKT", "falke"), "{got:?}");
        // ASCII letters fold, others do not; offsets stay right after non-ASCII text.
        let folded = found(
            &p,
            "Größe über alles: FALKE und tante Käthe, nicht Tante KÄTHE.",
        );
        assert!(
            folded.contains(&("PROJEKT".into(), "FALKE".into())),
            "{folded:?}"
        );
        assert!(
            folded.contains(&("PERSON".into(), "tante Käthe".into())),
            "{folded:?}"
        );
        assert!(
            !folded.iter().any(|(_, v)| v.contains("KÄTHE")),
            "{folded:?}"
        );
        assert!(
            !got.iter().any(|(_, v)| v.starts_with("Falkenberg")),
            "{got:?}"
        );
        assert!(has("KUNDENNUMMER", "KD-123456"), "{got:?}");
        assert!(
            !has("KUNDENNUMMER", "KD-654321"),
            "context is required: {got:?}"
        );
        assert!(has("VERTRAG", "V0000018"), "{got:?}");
        assert!(!has("VERTRAG", "V0000019"), "Luhn fails: {got:?}");
        assert!(has("EMAIL_ADDRESS", "anna.berg@example.de"), "{got:?}");
        assert!(
            !got.iter().any(|(_, v)| v.contains("support@")),
            "allowed: {got:?}"
        );
        assert!(
            !got.iter().any(|(t, _)| t == "IBAN"),
            "IBAN is off: {got:?}"
        );
        assert!(!got.iter().any(|(_, v)| v.contains("TICKET")), "{got:?}");
        assert!(has("PERSON", "Tante Käthe"), "{got:?}");
        assert!(!has("PERSON", "Anna Berg"), "below PERSON's 0.95: {got:?}");
        let types: Vec<EntityType> = Detector::new()
            .detect_in(text, p.as_ref())
            .iter()
            .map(|f| f.entity_type)
            .collect();
        assert_eq!(p.blocked_among(types.clone()), ["PROJEKT"]);
        let summary = serde_json::to_value(p.summary()).unwrap();
        assert_eq!(summary["deny_terms"], 2);
        assert_eq!(summary["recognizers"], 2);
        assert!(
            !summary.to_string().contains("Falke"),
            "terms are not shown"
        );
        assert!(
            !summary.to_string().contains("KD-"),
            "patterns are not shown"
        );
    }

    #[test]
    fn custom_tokens_are_reserved_and_validators_check() {
        use crate::config::policies::Validator;
        let p = one("[policies.default]\n[[policies.default.deny]]\ntype = \"PROJEKT\"\nterms = [\"Falke\"]");
        assert!(p.holds_reserved_token("schon [[PROJEKT_2]] da"));
        assert!(!p.holds_reserved_token("[[PROJEKT]] [PROJEKT_2]"));
        assert_eq!(
            p.reserved_tokens("a [[PROJEKT_2]] [[NAME_1]]")
                .collect::<Vec<_>>(),
            ["[[PROJEKT_2]]"]
        );
        assert!(compiled::check(Validator::Luhn, "4111 1111 1111 1111"));
        assert!(!compiled::check(Validator::Luhn, "4111 1111 1111 1112"));
        assert!(compiled::check(
            Validator::Mod97,
            "GB82WEST12345698765432"
                .get(4..)
                .map(|r| format!("{r}GB82"))
                .as_deref()
                .unwrap_or("")
        ));
        assert!(
            compiled::check(Validator::Mod11, "86095742719"),
            "a Steuer-ID's check digit"
        );
        assert!(!compiled::check(Validator::Mod11, "86095742718"));
    }
}
