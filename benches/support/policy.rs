//! The large policy of the policy bench (issue 12): 50 allow entries, 50 deny terms and 10
//! custom recognizers, shared by `benches/detect.rs` and `examples/policy_cost.rs`.

use tarnkappe::config::policies::{DenyConfig, RecognizerConfig, Validator};
use tarnkappe::policy::{Policy, PolicyConfig};

/// A large policy: 50 allow literals (four of them occur in the prose, often), 50 deny terms in
/// a custom type and PERSON (code names: they do not occur, as such terms rarely do), 10 custom
/// recognizers with every validator, with and without context words (one finds the prose's
/// customer numbers: 90 findings more than the plain case).
pub fn large_policy() -> Policy {
    let mut allow: Vec<String> = (0..46)
        .map(|i| format!("Firma {i} GmbH & Co. KG"))
        .collect();
    allow.extend(["Koch", "Kantine", "Version 2.4.1", "Lindenstraße"].map(String::from));
    let mut projects: Vec<String> = (0..40).map(|i| format!("Projekt{i:02}")).collect();
    projects.extend(["Falke", "Nordlicht", "Adlerhorst"].map(String::from));
    let people: Vec<String> = (0..7).map(|i| format!("Testperson{i}")).collect();
    let recognizer = |t: &str, regex: &str, validator, context: &[&str]| RecognizerConfig {
        entity_type: t.to_owned(),
        prefix: None,
        regex: regex.to_owned(),
        validator,
        context: context.iter().map(|w| (*w).to_owned()).collect(),
        score: 0.9,
    };
    let config = PolicyConfig {
        allow,
        deny: vec![
            DenyConfig {
                entity_type: "PROJEKT".into(),
                prefix: None,
                terms: projects,
            },
            DenyConfig {
                entity_type: "PERSON".into(),
                prefix: None,
                terms: people,
            },
        ],
        recognizers: vec![
            recognizer(
                "KUNDE",
                r"\b[0-9]{4}-[0-9]{2}\b",
                Validator::None,
                &["kundennummer"],
            ),
            recognizer(
                "RECHNUNG",
                r"\bRE-[0-9]{4}-[0-9]{4}\b",
                Validator::None,
                &["rechnungsnummer"],
            ),
            recognizer("VERTRAG", r"\bV[0-9]{7}\b", Validator::Luhn, &[]),
            recognizer("KONTO", r"\bKTO[0-9]{10}\b", Validator::Mod97, &["konto"]),
            recognizer("MITGLIED", r"\bM[0-9]{8}\b", Validator::Mod11, &[]),
            recognizer(
                "TICKET",
                r"\bTCK-[A-Z]{3}-[0-9]{5}\b",
                Validator::None,
                &["ticket"],
            ),
            recognizer(
                "AKTE",
                r"\bAZ [0-9]{1,4}/[0-9]{2}\b",
                Validator::None,
                &["aktenzeichen"],
            ),
            recognizer("GERAET", r"\bSN[A-F0-9]{12}\b", Validator::None, &[]),
            recognizer(
                "LIZENZ",
                r"\bLIC-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
                Validator::None,
                &[],
            ),
            recognizer(
                "PERSONAL",
                r"\bPN[0-9]{6}\b",
                Validator::Luhn,
                &["personalnummer"],
            ),
        ],
        ..PolicyConfig::default()
    };
    Policy::compile("bench", &config).expect("bench policy")
}
