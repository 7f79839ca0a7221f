//! The registry: every recognizer the engine runs. A new entity type is one new file under
//! `recognizers/` plus a line in [`all`].

use crate::recognizers::{
    ausweis, credit_card, date, email, iban, ip, kfz, kvnr, location, person, phone, secret,
    steuer_id, steuernummer, sv_nummer, url, us_ssn, ust_id,
};
use crate::records::RecordRecognizer;
use crate::Recognizer;

/// Every recognizer the engine runs, built once (patterns compiled here).
pub fn all() -> Vec<Box<dyn Recognizer>> {
    vec![
        Box::new(email::EmailRecognizer::new()),
        Box::new(url::UrlRecognizer::new()),
        Box::new(ip::IpRecognizer::new()),
        Box::new(iban::IbanRecognizer::new()),
        Box::new(credit_card::CreditCardRecognizer::new()),
        Box::new(phone::PhoneRecognizer::new()),
        Box::new(steuer_id::SteuerIdRecognizer::new()),
        Box::new(steuernummer::SteuernummerRecognizer::new()),
        Box::new(sv_nummer::SvNummerRecognizer::new()),
        Box::new(kfz::KfzRecognizer::new()),
        Box::new(date::DateRecognizer::new()),
        Box::new(location::LocationRecognizer::new()),
        Box::new(person::PersonRecognizer::new()),
        // The types Tarnkappe adds to the contract's.
        Box::new(secret::SecretRecognizer::new()),
        Box::new(kvnr::KvnrRecognizer::new()),
        Box::new(ausweis::AusweisRecognizer::new()),
        Box::new(ust_id::UstIdRecognizer::new()),
        Box::new(us_ssn::UsSsnRecognizer::new()),
        // Last: reads the candidates of the others (tables, columns, datelines).
        Box::new(RecordRecognizer::new()),
    ]
}
