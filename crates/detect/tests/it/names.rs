//! Names in real text (issue 27), through the public API, each in both directions: the value is
//! found (and does not survive `anonymize`), the label, sentence opener or common word next to
//! it is not. The context word nearest to a value decides its type; a label is never a value.

use tarnkappe_detect::EntityType;

use crate::harness::{found, hidden, kept, names, places};

#[test]
fn a_lowercase_given_name_in_a_request() {
    let s = "kannst du anna bitte zurückrufen";
    assert_eq!(names(s), vec!["anna"]);
    kept(s, &["kannst du ", " bitte zurückrufen"]);
}

#[test]
fn a_rare_given_name_as_object() {
    let s = "Schreib Kishen eine kurze Antwort.";
    assert_eq!(names(s), vec!["Kishen"]);
    kept(s, &["Schreib ", " eine kurze Antwort."]);
}

#[test]
fn a_name_between_a_label_and_its_value() {
    let s = "Die Steuer-ID von Anna ist 24768915326.";
    assert_eq!(names(s), vec!["Anna"]);
    assert_eq!(found(s, EntityType::SteuerId), vec!["24768915326"]);
    kept(s, &["Die Steuer-ID von ", " ist "]);
}

#[test]
fn the_nearest_label_decides_between_steuer_id_and_steuernummer() {
    let s = "Meine Steuer-ID ist 24768915326, meine Steuernummer 62 152 95232.";
    assert_eq!(found(s, EntityType::SteuerId), vec!["24768915326"]);
    assert_eq!(found(s, EntityType::Steuernummer), vec!["62 152 95232"]);
    kept(s, &["Meine Steuer-ID ist ", ", meine Steuernummer "]);

    let s = "Meine Steuer-ID 24768915326. Vom Finanzamt habe ich die Steuernummer 2181508150.";
    assert_eq!(found(s, EntityType::SteuerId), vec!["24768915326"]);
    assert_eq!(found(s, EntityType::Steuernummer), vec!["2181508150"]);
    hidden(s, &["24768915326", "2181508150"]);
    kept(
        s,
        &[
            "Meine Steuer-ID ",
            "Vom Finanzamt habe ich die Steuernummer ",
        ],
    );
}

#[test]
fn a_label_is_never_a_name() {
    let s = "Meine Steuer-ID lautet 24768915326 und meine Steuernummer lautet 62/152/95232.";
    assert!(names(s).is_empty(), "{:?}", names(s));
    assert_eq!(found(s, EntityType::SteuerId), vec!["24768915326"]);
    assert_eq!(found(s, EntityType::Steuernummer), vec!["62/152/95232"]);
    kept(
        s,
        &["Meine Steuer-ID lautet ", " und meine Steuernummer lautet "],
    );
}

#[test]
fn english_names_after_anchors_and_in_full() {
    let s = "Dear Mr Smith, thank you for your letter.";
    assert!(
        names(s).iter().any(|n| n.contains("Smith")),
        "{:?}",
        names(s)
    );
    hidden(s, &["Smith"]);
    kept(s, &["Dear ", "thank you for your letter."]);

    let s = "Yesterday I met Jane Doe at the station.";
    assert_eq!(names(s), vec!["Jane Doe"]);
    kept(s, &["Yesterday I met ", " at the station."]);

    let s = "Commissioner Monti answered the question from the floor.";
    hidden(s, &["Monti"]);
    kept(s, &["Commissioner ", " answered the question"]);

    let s = "Messrs Rack and Swoboda have asked to speak on this report.";
    hidden(s, &["Rack", "Swoboda"]);
    kept(s, &["Messrs ", " and ", " have asked to speak"]);
}

#[test]
fn english_sentence_openers_and_common_words_are_not_names() {
    for s in [
        "Firstly, we have to look at the budget again.",
        "Secondly, the Member States must agree on the figures.",
        "Hence the proposal needs a second reading.",
        "Equally, the committee should hear the experts.",
        "Little progress has been made since the last meeting.",
        "Seven European countries support the Basque position.",
        "Trade with Asia has grown by a third since then.",
    ] {
        assert!(names(s).is_empty(), "{s:?}: {:?}", names(s));
    }
}

#[test]
fn agent_instructions_hold_no_names_or_places() {
    let s = "Use the Read tool before you change a file, and Edit to change it. \
        Grep searches the contents of files; do not call grep from the shell. \
        Hooks run shell commands when the agent stops. Don't guess paths. \
        When a task is done, Claude Code reports back to the calling Agent. \
        Opus is the model behind it. Claude answers in the user's language. \
        Pass the arguments JSON-encoded, for example --max-findings 5 to review-changes, \
        and poll the job every few seconds until it reports done.";
    assert!(names(s).is_empty(), "{:?}", names(s));
    assert!(places(s).is_empty(), "{:?}", places(s));
    kept(
        s,
        &[
            "Read",
            "Edit",
            "Grep",
            "Hooks",
            "Claude Code",
            "Opus",
            "Agent",
            "review-changes",
            "poll",
        ],
    );
}

#[test]
fn a_users_name_inside_english_instructions_is_still_found() {
    let s = "Use the Read tool first. My name is Roswitha Quernheim and I review the changes.";
    assert_eq!(names(s), vec!["Roswitha Quernheim"]);
    kept(s, &["Use the Read tool first."]);
}
