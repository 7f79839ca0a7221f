//! The 13 entity types, their token prefixes and descriptions (api.md, `GET /entities`).

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
}

impl EntityType {
    pub const ALL: [EntityType; 13] = [
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
        }
    }

    /// Priority in overlap resolution (entities.md §1.7): higher wins a tie.
    pub fn priority(self) -> u8 {
        match self {
            EntityType::EmailAddress => 13,
            EntityType::Url => 12,
            EntityType::Iban => 11,
            EntityType::CreditCard => 10,
            EntityType::SvNummer => 9,
            EntityType::SteuerId => 8,
            EntityType::Steuernummer => 7,
            EntityType::IpAddress => 6,
            EntityType::PhoneNumber => 5,
            EntityType::KfzKennzeichen => 4,
            EntityType::Date => 3,
            EntityType::Location => 2,
            EntityType::Person => 1,
        }
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
}
