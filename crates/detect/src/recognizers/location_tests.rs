//! Tests of the LOCATION recognizer (a file of their own: location.rs is near the 700-line cap).

use crate::recognizers::person::{detected, places};
use crate::EntityType;

#[test]
fn english_street_town_and_postcode() {
    let text = "Hi, I am John Smith and I live at 42 Baker Street, London NW1 6XE.";
    assert_eq!(places(text), vec!["42 Baker Street", "London NW1 6XE"]);
    assert_eq!(
        places("The office is at 1600 Pennsylvania Ave NW, Washington, DC 20500."),
        vec!["1600 Pennsylvania Ave NW", "Washington, DC 20500"]
    );
}

#[test]
fn english_addresses_among_german_postcodes() {
    // German postcodes open search windows too; each English form is still found in its own.
    assert_eq!(
        places(
            "Erst Hauptstraße 5, 50667 Köln, dann London SW1A 1AA und Springfield, IL 62704-1234."
        ),
        vec![
            "Hauptstraße 5",
            "50667 Köln",
            "London SW1A 1AA",
            "Springfield, IL 62704-1234"
        ]
    );
    assert_eq!(
        places("Lieferung an 12, Downing Street, später Hauptstraße 5, 10117 Berlin."),
        vec!["12, Downing Street", "Hauptstraße 5", "10117 Berlin"]
    );
    // A ZIP code needs its state, an outward code its inward code.
    assert_eq!(
        places("Springfield, 62704 und London NW1."),
        Vec::<String>::new()
    );
}

#[test]
fn numbers_before_capitalised_words_are_no_english_street() {
    assert_eq!(
        places("Wir haben 42 Baker gesehen und 3 Street Fighter."),
        Vec::<String>::new()
    );
    assert_eq!(
        places("Seite 12 Absatz 3, Format A4."),
        Vec::<String>::new()
    );
}

#[test]
fn a_town_enumeration_shares_its_context() {
    assert_eq!(
        places("Ich arbeite in Paris, Wien und Zürich."),
        vec!["Paris", "Wien", "Zürich"]
    );
    // Without a preposition before the first town, none of them is a place.
    assert_eq!(
        places("Paris, Wien und Zürich sind schön."),
        Vec::<String>::new()
    );
}

#[test]
fn german_addresses_still_hold() {
    assert_eq!(
        places("Anschrift: Lindenstraße 12, 50667 Köln"),
        vec!["Lindenstraße 12", "50667 Köln"]
    );
}

#[test]
fn one_value_gets_one_type() {
    let found = detected("Herr Turan kommt aus Turan. Turan sagte das.");
    let turan: Vec<EntityType> = found
        .iter()
        .filter(|(_, v)| v == "Turan")
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(turan.len(), 3, "{found:?}");
    assert!(turan.iter().all(|t| *t == turan[0]), "{found:?}");
}

#[test]
fn a_street_is_lifted_by_a_strong_word_in_the_context_step() {
    let r = super::LocationRecognizer::new();
    let score = |s: &str, v: &str| {
        crate::recognizers::proposed(&r, s)
            .into_iter()
            .find(|(found, ..)| found == v)
            .map(|(_, score, _)| score)
    };
    assert_eq!(
        score("Anschrift: Birkenweg 4", "Birkenweg 4"),
        Some(0.75 + 0.15)
    );
    assert_eq!(score("Treffpunkt Birkenweg 4", "Birkenweg 4"), Some(0.75));
    assert_eq!(
        score("She lives in 17 Elm Road now", "17 Elm Road"),
        Some(0.85)
    );
    assert_eq!(score("Walk to 17 Elm Road now", "17 Elm Road"), Some(0.75));
}
