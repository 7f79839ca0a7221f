//! Engine-like input for property tests, shared by the detection crate's tests and the service's
//! token tests (`tests/it/tokens_props.rs` includes this file by path).

use proptest::prelude::*;

/// Text that looks like the engine's input: German words, names, digits and separators mixed
/// with arbitrary Unicode.
pub fn textish() -> impl Strategy<Value = String> {
    let atoms = prop_oneof![
        Just("Frau ".to_owned()),
        Just("Herrn Dr. ".to_owned()),
        Just("Anna Schmidt".to_owned()),
        Just("müller".to_owned()),
        Just("Mit freundlichen Grüßen\n".to_owned()),
        Just("DE89 3704 0044 0532 0130 00".to_owned()),
        Just("0171 2345678".to_owned()),
        Just("12.03.2024".to_owned()),
        Just("10115 Berlin".to_owned()),
        Just("Hauptstraße 5".to_owned()),
        Just("a@b.de".to_owned()),
        Just("https://x.de/(a)".to_owned()),
        Just("B-AB 12".to_owned()),
        Just("::1".to_owned()),
        Just("\u{a0}".to_owned()),
        Just("\u{2013}".to_owned()),
        Just("i\u{307}".to_owned()),
        Just("[[NAME_1]]".to_owned()),
        "[0-9 ./:-]{1,12}",
        "\\PC{0,8}",
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(atoms, 0..24).prop_map(|v| v.concat())
}
