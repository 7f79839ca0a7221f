//! Fuzz target for the detection engine: any UTF-8 input must not panic, findings must be in
//! bounds, sorted and disjoint, and anonymize → restore must give the input back.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tarnkappe::detect::Detector;
use tarnkappe::tokens::{anonymize, contains_reserved_token, Restorer};

fn detector() -> &'static Detector {
    static D: OnceLock<Detector> = OnceLock::new();
    D.get_or_init(Detector::new)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let n = text.chars().count();
    let findings = detector().detect(text);
    let mut prev = 0;
    for f in &findings {
        assert!(f.start < f.end && f.end <= n && f.start >= prev, "{f:?}");
        prev = f.end;
    }
    if !contains_reserved_token(text) {
        let anon = anonymize(detector(), text);
        let pairs = anon.mapping.iter().map(|m| (m.token.as_str(), m.value.as_str()));
        assert_eq!(Restorer::new(pairs).restore(&anon.anonymized_text), text);
    }
});
