//! The types of one policy under construction: built-in types by name, and the custom types its
//! deny entries and recognizers declare, each checked (name, token prefix, clashes) once.

use std::collections::BTreeMap;

use super::error::PolicyError;
use crate::detect::{CustomType, EntityType};

/// Prefix of the tokens of a request's own `deny_terms` (`[[TERM_1]]`); no policy may use it.
pub(crate) const REQUEST_TERM_PREFIX: &str = "TERM";

/// Index of a built-in type in [`EntityType::ALL`]; `None` for a custom type.
pub(super) fn slot(t: EntityType) -> Option<usize> {
    EntityType::ALL.iter().position(|&x| x == t)
}

fn valid_type_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 32
        && b[0].is_ascii_uppercase()
        && b.iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
}

/// The token grammar (`src/tokens/tolerant.rs`) reads a prefix as a run of capital letters.
fn valid_prefix(s: &str) -> bool {
    (2..=16).contains(&s.len()) && s.bytes().all(|c| c.is_ascii_uppercase())
}

/// Custom types of one policy under construction.
pub(super) struct Types<'a> {
    policy: &'a str,
    custom: BTreeMap<String, CustomType>,
}

impl<'a> Types<'a> {
    pub(super) fn new(policy: &'a str) -> Types<'a> {
        Types {
            policy,
            custom: BTreeMap::new(),
        }
    }

    /// The custom types declared so far, by name.
    pub(super) fn custom(&self) -> impl Iterator<Item = &CustomType> {
        self.custom.values()
    }

    pub(super) fn err(&self, reason: String) -> PolicyError {
        PolicyError::Invalid {
            policy: self.policy.to_owned(),
            reason,
        }
    }

    /// A built-in type by name (one the policy detects), or the custom type `name` with `prefix` (declared here).
    pub(super) fn declare(
        &mut self,
        name: &str,
        prefix: Option<&str>,
        what: &str,
        on: &[bool; EntityType::ALL.len()],
    ) -> Result<EntityType, PolicyError> {
        if let Some(t) = EntityType::from_name(name) {
            if slot(t).is_some_and(|i| !on[i]) {
                return Err(self.err(format!(
                    "{what} gives its findings the type {name}, which this policy does not detect (types)"
                )));
            }
            if prefix.is_some_and(|p| p != t.token_prefix()) {
                return Err(self.err(format!(
                    "{what} gives the built-in type {name} a token prefix of its own, which is not possible"
                )));
            }
            return Ok(t);
        }
        if !valid_type_name(name) {
            return Err(self.err(format!(
                "{what} names the type \"{name}\", which is neither a built-in type nor a valid custom type name (capital letters, digits and _, at most 32)"
            )));
        }
        let prefix = prefix.unwrap_or(name);
        if !valid_prefix(prefix) {
            return Err(self.err(format!(
                "{what} gives type {name} the token prefix \"{prefix}\", but a prefix must be 2 to 16 capital letters A-Z (the token grammar [[PREFIX_n]])"
            )));
        }
        if let Some(t) = EntityType::ALL
            .into_iter()
            .find(|t| t.token_prefix() == prefix || t.name() == prefix)
        {
            return Err(self.err(format!(
                "{what} gives type {name} the token prefix {prefix}, which clashes with the built-in type {}",
                t.name()
            )));
        }
        if prefix == REQUEST_TERM_PREFIX {
            return Err(self.err(format!(
                "{what} gives type {name} the token prefix {prefix}, which is reserved for the deny_terms of a request"
            )));
        }
        if let Some(known) = self.custom.get(name) {
            if known.prefix() != prefix {
                return Err(self.err(format!(
                    "{what} gives type {name} the token prefix {prefix}, but it already has {}",
                    known.prefix()
                )));
            }
            return Ok(EntityType::Custom(*known));
        }
        if let Some(other) = self.custom.values().find(|c| c.prefix() == prefix) {
            return Err(self.err(format!(
                "{what} gives type {name} the token prefix {prefix}, which type {} already uses",
                other.name()
            )));
        }
        let t = CustomType::intern(name, prefix);
        self.custom.insert(name.to_owned(), t);
        Ok(EntityType::Custom(t))
    }

    /// A type named in `min_score` or `actions`: built-in, or declared by a deny entry or
    /// recognizer of this policy.
    pub(super) fn known(&self, name: &str, what: &str) -> Result<EntityType, PolicyError> {
        EntityType::from_name(name)
            .or_else(|| self.custom.get(name).map(|c| EntityType::Custom(*c)))
            .ok_or_else(|| {
                self.err(format!(
                    "{what} names the unknown entity type \"{name}\" (neither built-in nor defined by a deny entry or recognizer of this policy)"
                ))
            })
    }
}
