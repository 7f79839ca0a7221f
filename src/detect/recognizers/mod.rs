//! The registry: one recognizer per entity type. A new type is one new file plus a line in
//! [`all`].

mod credit_card;
mod email;
mod iban;
mod ip;
mod url;

use super::Recognizer;

/// Every recognizer the engine runs, built once (patterns compiled here).
pub fn all() -> Vec<Box<dyn Recognizer>> {
    vec![
        Box::new(email::EmailRecognizer::new()),
        Box::new(url::UrlRecognizer::new()),
        Box::new(ip::IpRecognizer::new()),
        Box::new(iban::IbanRecognizer::new()),
        Box::new(credit_card::CreditCardRecognizer::new()),
    ]
}

/// True when the code points around `[start, end)` of `s` do not extend a number or word:
/// no letter or digit directly before or after (entities.md §1.3).
pub(crate) fn standalone(s: &str, start: usize, end: usize) -> bool {
    let before = s[..start].chars().next_back();
    let after = s[end..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}
