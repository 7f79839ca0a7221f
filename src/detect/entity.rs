//! The entity types, their token prefixes and descriptions (api.md, `GET /entities`): the 13 of
//! the contract first, in its order and unchanged, then the types Tarnkappe adds (issue 12) in
//! their own documented order. Everything that lists types (the entities endpoint, reserved
//! tokens, tolerant restore, metrics) iterates [`EntityType::ALL`], so a new type is one variant
//! here; a policy can switch each type off or raise its minimum score by name.

use serde::{Deserialize, Serialize};

/// One kind of personal data. The order of [`EntityType::ALL`] is the order of the product
/// description and of `GET /entities`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
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
        }
    }

    /// Priority in overlap resolution (entities.md §1.7): higher wins a tie.
    /// The added types slot in: SECRET above all, the validated identifiers beside their
    /// neighbours, US_SSN below the German numbers.
    pub fn priority(self) -> u8 {
        match self {
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
        }
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
