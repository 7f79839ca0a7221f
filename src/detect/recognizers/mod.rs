//! The registry: one recognizer per entity type. A new type is one new file plus a line in
//! [`all`]. Shared helpers: span and window helpers in [`window`], context scoring in
//! [`context`].

mod address_line;
mod ausweis;
mod context;
mod credit_card;
mod date;
mod email;
mod iban;
mod ip;
mod kfz;
mod kvnr;
mod location;
pub(crate) mod person;
mod phone;
mod secret;
mod steuer_id;
mod steuernummer;
mod street;
mod sv_nummer;
mod town_noun;
mod url;
mod us_ssn;
mod ust_id;
mod window;

use super::Recognizer;

pub(crate) use super::finding::cand;

pub(crate) use context::{with_exact_lower, with_lower, Context, ContextIndex};
pub(crate) use window::{
    before, captures_in, ceil_boundary, clusters, find_in, floor_boundary, number_continues_left,
    number_continues_right, numeric_standalone, standalone, widen, M,
};

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
        // Added types (issue 12).
        Box::new(secret::SecretRecognizer::new()),
        Box::new(kvnr::KvnrRecognizer::new()),
        Box::new(ausweis::AusweisRecognizer::new()),
        Box::new(ust_id::UstIdRecognizer::new()),
        Box::new(us_ssn::UsSsnRecognizer::new()),
        // Last: reads the candidates of the others (tables, columns, datelines).
        Box::new(super::records::RecordRecognizer::new()),
    ]
}

/// What one recognizer alone proposes in a text, for the recognizers' own tests: the values
/// (from the view) with their scores and whether a check digit confirmed them.
#[cfg(test)]
pub(crate) fn proposed(r: &dyn Recognizer, s: &str) -> Vec<(String, f32, bool)> {
    let text = crate::detect::Text::new(s);
    let mut out = Vec::new();
    r.recognize(&text, &mut out);
    out.iter()
        .map(|c| (text.view()[c.start..c.end].to_owned(), c.score, c.validated))
        .collect()
}

/// True when some proposal of `r` on `s` passed its check digits.
#[cfg(test)]
pub(crate) fn validated(r: &dyn Recognizer, s: &str) -> bool {
    proposed(r, s).iter().any(|(_, _, validated)| *validated)
}

/// The values of [`proposed`] at or above the default threshold.
#[cfg(test)]
pub(crate) fn kept(r: &dyn Recognizer, s: &str) -> Vec<String> {
    proposed(r, s)
        .into_iter()
        .filter(|(_, score, _)| *score >= crate::detect::DEFAULT_THRESHOLD)
        .map(|(v, _, _)| v)
        .collect()
}
