//! The entity types, their token prefixes and descriptions (docs/api.md, `GET /entities`): the 13 of
//! the contract first, in its order and unchanged, then the types Tarnkappe adds in their own
//! documented order. Everything that lists types (the entities endpoint, reserved
//! tokens, tolerant restore, metrics) iterates [`EntityType::ALL`], so a new type is one variant
//! here; a policy can switch each type off or raise its minimum score by name.
//!
//! A policy may also define types of its own (`[[PROJEKT_1]]`): [`EntityType::Custom`] carries a
//! [`CustomType`], an interned name and token prefix. Those are never in [`EntityType::ALL`]
//! (they are not the product's types), but travel through detection, tokens, restore and
//! metrics exactly like the built-in ones.

use std::sync::{LazyLock, Mutex};

use serde::{Deserialize, Serialize};

/// One kind of personal data. The order of [`EntityType::ALL`] is the order of the product
/// description and of `GET /entities`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntityType {
    Person,
    EmailAddress,
    PhoneNumber,
    Iban,
    CreditCard,
    IpAddress,
    SteuerId,
    Steuernummer,
    SvNummer,
    KfzKennzeichen,
    Date,
    Location,
    Url,
    // Added types (not in the contract), after its 13.
    Secret,
    Kvnr,
    Ausweis,
    UstId,
    UsSsn,
    /// A type defined by a policy (deny terms, custom recognizers).
    Custom(CustomType),
}

/// The name and token prefix of a policy-defined type. Interned: the same pair always yields
/// the same `&'static` strings, so the set of leaked strings is bounded by the configuration
/// (policies are compiled once at start-up; requests never create types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CustomType {
    name: &'static str,
    prefix: &'static str,
}

static INTERNED: LazyLock<Mutex<Vec<CustomType>>> = LazyLock::new(|| Mutex::new(Vec::new()));

impl CustomType {
    /// The type `name` with tokens `[[prefix_n]]`. Validation (grammar, clashes) is the
    /// caller's job (`crate::policy`).
    pub fn intern(name: &str, prefix: &str) -> CustomType {
        let mut all = INTERNED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = all.iter().find(|t| t.name == name && t.prefix == prefix) {
            return *t;
        }
        let t = CustomType {
            name: Box::leak(name.to_owned().into_boxed_str()),
            prefix: Box::leak(prefix.to_owned().into_boxed_str()),
        };
        all.push(t);
        t
    }

    pub fn name(self) -> &'static str {
        self.name
    }

    pub fn prefix(self) -> &'static str {
        self.prefix
    }
}

impl EntityType {
    /// The 13 types of the contract, in its order: the first 13 of [`EntityType::ALL`].
    pub const CONTRACT: [EntityType; 13] = {
        let mut out = [EntityType::Person; 13];
        let mut i = 0;
        while i < out.len() {
            out[i] = EntityType::ALL[i];
            i += 1;
        }
        out
    };

    /// Every type: the contract's 13 first, then the added ones in their documented order.
    pub const ALL: [EntityType; 18] = [
        EntityType::Person,
        EntityType::EmailAddress,
        EntityType::PhoneNumber,
        EntityType::Iban,
        EntityType::CreditCard,
        EntityType::IpAddress,
        EntityType::SteuerId,
        EntityType::Steuernummer,
        EntityType::SvNummer,
        EntityType::KfzKennzeichen,
        EntityType::Date,
        EntityType::Location,
        EntityType::Url,
        EntityType::Secret,
        EntityType::Kvnr,
        EntityType::Ausweis,
        EntityType::UstId,
        EntityType::UsSsn,
    ];

    /// The name used on the wire, e.g. `PERSON`.
    pub fn name(self) -> &'static str {
        match self {
            EntityType::Person => "PERSON",
            EntityType::EmailAddress => "EMAIL_ADDRESS",
            EntityType::PhoneNumber => "PHONE_NUMBER",
            EntityType::Iban => "IBAN",
            EntityType::CreditCard => "CREDIT_CARD",
            EntityType::IpAddress => "IP_ADDRESS",
            EntityType::SteuerId => "STEUER_ID",
            EntityType::Steuernummer => "STEUERNUMMER",
            EntityType::SvNummer => "SV_NUMMER",
            EntityType::KfzKennzeichen => "KFZ_KENNZEICHEN",
            EntityType::Date => "DATE",
            EntityType::Location => "LOCATION",
            EntityType::Url => "URL",
            EntityType::Secret => "SECRET",
            EntityType::Kvnr => "KVNR",
            EntityType::Ausweis => "AUSWEIS",
            EntityType::UstId => "UST_ID",
            EntityType::UsSsn => "US_SSN",
            EntityType::Custom(c) => c.name,
        }
    }

    /// The token prefix, e.g. `NAME` for `[[NAME_1]]`.
    pub fn token_prefix(self) -> &'static str {
        match self {
            EntityType::Person => "NAME",
            EntityType::EmailAddress => "EMAIL",
            EntityType::PhoneNumber => "TEL",
            EntityType::Iban => "IBAN",
            EntityType::CreditCard => "KARTE",
            EntityType::IpAddress => "IP",
            EntityType::SteuerId => "STEUERID",
            EntityType::Steuernummer => "STEUERNR",
            EntityType::SvNummer => "SVNR",
            EntityType::KfzKennzeichen => "KFZ",
            EntityType::Date => "DATUM",
            EntityType::Location => "ORT",
            EntityType::Url => "URL",
            EntityType::Secret => "SECRET",
            EntityType::Kvnr => "KVNR",
            EntityType::Ausweis => "AUSWEIS",
            EntityType::UstId => "USTID",
            EntityType::UsSsn => "SSN",
            EntityType::Custom(c) => c.prefix,
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            EntityType::Person => "person names",
            EntityType::EmailAddress => "e-mail addresses",
            EntityType::PhoneNumber => "telephone numbers",
            EntityType::Iban => "IBAN, validated by the mod-97 check",
            EntityType::CreditCard => "credit cards, validated by the Luhn check",
            EntityType::IpAddress => "IPv4 and IPv6 addresses",
            EntityType::SteuerId => "tax identification number",
            EntityType::Steuernummer => "tax number of the tax office (slash-separated groups)",
            EntityType::SvNummer => "social insurance number",
            EntityType::KfzKennzeichen => "vehicle licence plate",
            EntityType::Date => "date / date of birth",
            EntityType::Location => "address / postal code + town",
            EntityType::Url => "web addresses",
            EntityType::Secret => "API keys, tokens, private keys and passwords",
            EntityType::Kvnr => {
                "health insurance number (Krankenversicherungsnummer), check digit validated"
            }
            EntityType::Ausweis => {
                "German ID card and passport numbers (ICAO 9303 check digit when present)"
            }
            EntityType::UstId => "German VAT ID (USt-IdNr.), check digit validated",
            EntityType::UsSsn => "US Social Security number",
            EntityType::Custom(_) => "a type defined by a policy",
        }
    }

    /// Priority in overlap resolution (docs/entities.md §1.7): higher wins a tie.
    /// The added types slot in: SECRET above all, the validated identifiers beside their
    /// neighbours, US_SSN below the German numbers. A policy's own types come first: its
    /// deny terms and recognizers are the operator's explicit word.
    pub fn priority(self) -> u8 {
        match self {
            EntityType::Custom(_) => 19,
            EntityType::Secret => 18,
            EntityType::EmailAddress => 17,
            EntityType::Url => 16,
            EntityType::Iban => 15,
            EntityType::CreditCard => 14,
            EntityType::SvNummer => 13,
            EntityType::Kvnr => 12,
            EntityType::SteuerId => 11,
            EntityType::UstId => 10,
            EntityType::Ausweis => 9,
            EntityType::Steuernummer => 8,
            EntityType::UsSsn => 7,
            EntityType::IpAddress => 6,
            EntityType::PhoneNumber => 5,
            EntityType::KfzKennzeichen => 4,
            EntityType::Date => 3,
            EntityType::Location => 2,
            EntityType::Person => 1,
        }
    }

    /// True for the 13 types of the contract.
    pub fn in_contract(self) -> bool {
        EntityType::CONTRACT.contains(&self)
    }

    pub fn from_name(name: &str) -> Option<EntityType> {
        EntityType::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn from_prefix(prefix: &str) -> Option<EntityType> {
        EntityType::ALL
            .into_iter()
            .find(|t| t.token_prefix() == prefix)
    }
}

/// On the wire a type is its name (`"PERSON"`, `"PROJEKT"`).
impl Serialize for EntityType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Only the built-in names are read back (a policy's types are not known to a parser).
impl<'de> Deserialize<'de> for EntityType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<EntityType, D::Error> {
        let name = String::deserialize(d)?;
        EntityType::from_name(&name).ok_or_else(|| serde::de::Error::custom("unknown entity type"))
    }
}

impl std::fmt::Display for EntityType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_prefixes_round_trip() {
        for t in EntityType::ALL {
            assert_eq!(EntityType::from_name(t.name()), Some(t));
            assert_eq!(EntityType::from_prefix(t.token_prefix()), Some(t));
            assert_eq!(serde_json::to_value(t).unwrap(), t.name());
            let back: EntityType = serde_json::from_value(serde_json::json!(t.name())).unwrap();
            assert_eq!(back, t);
        }
    }

    #[test]
    fn custom_types_are_interned_and_named_by_their_policy() {
        let a = EntityType::Custom(CustomType::intern("PROJEKT", "PROJEKT"));
        let b = EntityType::Custom(CustomType::intern("PROJEKT", "PROJEKT"));
        assert_eq!(a, b);
        assert_eq!((a.name(), a.token_prefix()), ("PROJEKT", "PROJEKT"));
        assert_eq!(serde_json::to_value(a).unwrap(), "PROJEKT");
        assert!(!EntityType::ALL.contains(&a));
        assert!(a.priority() > EntityType::Secret.priority());
        assert_eq!(EntityType::from_name("PROJEKT"), None);
    }

    #[test]
    fn contract_types_come_first_and_prefixes_are_unique() {
        assert_eq!(EntityType::ALL[..13], EntityType::CONTRACT);
        assert!(EntityType::ALL[13..].iter().all(|t| !t.in_contract()));
        let names: Vec<&str> = EntityType::ALL[13..].iter().map(|t| t.name()).collect();
        assert_eq!(names, ["SECRET", "KVNR", "AUSWEIS", "UST_ID", "US_SSN"]);
        let mut prefixes: Vec<&str> = EntityType::ALL.iter().map(|t| t.token_prefix()).collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        assert_eq!(prefixes.len(), EntityType::ALL.len());
        let mut priorities: Vec<u8> = EntityType::ALL.iter().map(|t| t.priority()).collect();
        priorities.sort_unstable();
        priorities.dedup();
        assert_eq!(priorities.len(), EntityType::ALL.len());
    }
}
