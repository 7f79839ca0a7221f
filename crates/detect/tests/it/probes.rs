//! The probes of issue 10 (names, places and IDs on text the rules were not tuned on), each in
//! both directions: the personal value is found (no finding-free copy of it is left), the role
//! word, month or common noun next to it is not. Run through the public API only.

use tarnkappe_detect::EntityType;

use crate::harness::{findings, found, hidden, kept, names, places};

#[test]
fn lone_unknown_surname_after_a_preposition() {
    let s = "Gegen Ribéry wurde ermittelt.";
    assert_eq!(names(s), vec!["Ribéry"]);
    kept(s, &["Gegen", "wurde ermittelt"]);
}

#[test]
fn lone_unknown_surname_as_subject() {
    let s = "Das Drehbuch war schlecht, Curtiz war schlecht.";
    assert_eq!(names(s), vec!["Curtiz"]);
    kept(s, &["Das Drehbuch war schlecht"]);
}

#[test]
fn polish_name_and_hyphenated_town() {
    let s = "Meine Kollegin Małgorzata Kowalska wohnt in Wanne-Eickel.";
    assert_eq!(names(s), vec!["Małgorzata Kowalska"]);
    assert_eq!(places(s), vec!["Wanne-Eickel"]);
    kept(s, &["Meine Kollegin"]);
}

#[test]
fn whole_name_with_particles_and_several_surnames() {
    let s = "Treffen mit Ahmed al-Farsi und Nguyen Van Minh";
    assert_eq!(names(s), vec!["Ahmed al-Farsi", "Nguyen Van Minh"]);
    hidden(s, &["al-Farsi", "Farsi", "Van Minh", "Minh"]);
    kept(s, &["Treffen mit", " und "]);
}

#[test]
fn months_are_not_names() {
    for s in [
        "bis zum Verbot im Juni 1941",
        "Die Regelung gilt seit dem Beschluss vom Juni 1999.",
        "Im August 2003 wurde das Werk geschlossen.",
    ] {
        assert!(names(s).is_empty(), "{s:?}: {:?}", names(s));
    }
}

#[test]
fn english_address_street_town_postcode() {
    let s = "Hi, I am John Smith and I live at 42 Baker Street, London NW1 6XE.";
    assert_eq!(names(s), vec!["John Smith"]);
    hidden(
        s,
        &[
            "John",
            "Smith",
            "42 Baker Street",
            "Baker",
            "London",
            "NW1",
            "6XE",
        ],
    );
    kept(s, &["Hi, I am", "and I live at"]);
}

#[test]
fn every_town_of_a_list() {
    let s = "Ich arbeite in Paris, Wien und Zürich.";
    assert_eq!(places(s), vec!["Paris", "Wien", "Zürich"]);
    kept(s, &["Ich arbeite in", " und "]);
}

#[test]
fn steuer_id_beside_a_phone_field_in_json() {
    let alone = r#"{"steuer_id": "86095742719"}"#;
    assert_eq!(found(alone, EntityType::SteuerId), vec!["86095742719"]);
    let s = r#"{"telefon": "+49 30 1234567", "steuer_id": "86095742719"}"#;
    assert_eq!(found(s, EntityType::SteuerId), vec!["86095742719"]);
    assert_eq!(found(s, EntityType::PhoneNumber), vec!["+49 30 1234567"]);
    kept(s, &["telefon", "steuer_id"]);
}

/// One value, one token: every finding of the same value has the same type (a token stands for a
/// type and a value, so a value found under two types would get two tokens).
#[test]
fn one_value_one_token() {
    for s in [
        "Herr Turan aus Berlin schreibt: Turan wird morgen in Turan sein.",
        "Frau Essen wohnt in Essen. Essen ist schön, sagt Essen.",
        "Ich heiße Paris Hilton und wohne in Paris.",
    ] {
        let mut seen: Vec<(String, EntityType)> = Vec::new();
        for (t, v) in findings(s) {
            if let Some((_, first)) = seen.iter().find(|(sv, _)| *sv == v) {
                assert_eq!(*first, t, "{v:?} found as {first} and as {t} in {s:?}");
                continue;
            }
            seen.push((v, t));
        }
    }
}

#[test]
fn offices_after_herr_and_frau_are_never_names() {
    for s in [
        "Herr Präsident! Meine sehr verehrten Damen und Herren!",
        "Vielen Dank, Frau Präsidentin. Ich komme zum Antrag.",
        "Herr Kommissar, Sie haben die Frage nicht beantwortet.",
        "Frau Ministerin, wann legen Sie den Bericht vor?",
        "Sehr geehrter Herr Bürgermeister, wir bitten um Antwort.",
    ] {
        assert!(names(s).is_empty(), "{s:?}: {:?}", names(s));
    }
    // The anchor still works for a real surname after the office.
    let s = "Herr Präsident Kowalczyk eröffnet die Sitzung.";
    assert_eq!(names(s), vec!["Kowalczyk"]);
    kept(s, &["Herr Präsident"]);
}

#[test]
fn common_words_opening_a_sentence_are_not_names() {
    for s in [
        "Kosten entstehen dabei keine.",
        "Die Kosten trägt der Bund.",
        "Darin liegt das eigentliche Problem.",
        "Darin sind sich alle Fraktionen einig.",
    ] {
        assert!(names(s).is_empty(), "{s:?}: {:?}", names(s));
    }
}

#[test]
fn unknown_names_in_prompts() {
    // Surnames no gazetteer is likely to list, in chat and e-mail phrasing.
    for (s, want) in [
        (
            "Kannst du eine Mail an Frau Wybranietz schreiben?",
            "Wybranietz",
        ),
        (
            "Die Rechnung hat Tuğba Kırbaşoğlu schon bezahlt.",
            "Tuğba Kırbaşoğlu",
        ),
        (
            "Laut Ołeksandr Hrycenko ist das Projekt fertig.",
            "Ołeksandr Hrycenko",
        ),
    ] {
        assert_eq!(names(s), vec![want], "{s:?}");
    }
}
