//! Tests of the context step (a file of their own: context_rules.rs is near the 700-line cap).

use super::*;
use crate::finding::cand;

/// The candidate `value` of `s` asking with `form`/`needs`, after the step (`None`: dropped).
fn stepped(s: &str, value: &str, t: EntityType, ask: (Form, Needs)) -> Option<Candidate> {
    stepped_asking(0.5, s, value, t, ask)
}

/// [`stepped`] with the base score `base`, needing nothing.
fn stepped_from(base: f32, s: &str, value: &str, t: EntityType, form: Form) -> Option<Candidate> {
    stepped_asking(base, s, value, t, (form, Needs::Nothing))
}

/// [`stepped`] with the base score `base`.
fn stepped_asking(
    base: f32,
    s: &str,
    value: &str,
    t: EntityType,
    ask: (Form, Needs),
) -> Option<Candidate> {
    let text = Text::new(s);
    let start = text.view().find(value)?;
    let c = cand(t, start, start + value.len(), base, true).asking(ask.0, ask.1);
    let mut out = vec![c, cand(t, 0, 1, 0.42, false)];
    apply(&text, &mut out);
    // A candidate that does not ask is left as it is.
    assert_eq!(out.last().map(|c| c.score), Some(0.42));
    (out.len() == 2).then(|| out[0])
}

#[test]
fn a_fixed_table_is_not_base_plus_boost_minus_penalty() {
    let main = (Form::Main, Needs::Nothing);
    // weak and negative: 0.3, where 0.55 + 0.2 − a penalty would give 0.5
    let c = stepped(
        "Krankenkasse, Bestellnummer A123456780",
        "A123456780",
        EntityType::Kvnr,
        main,
    );
    let c = c.expect("kept");
    assert_eq!(c.score, 0.3);
    assert!(c.evidence.context.weak() && c.evidence.context.negative());
    let c = stepped("KVNR A123456780", "A123456780", EntityType::Kvnr, main);
    assert_eq!(c.map(|c| c.score), Some(0.95));
}

#[test]
fn a_candidate_that_needs_a_strong_word_is_dropped_without_one() {
    let typo = (Form::Unchecked, Needs::Strong);
    let kept = stepped("KVNR: A123456781", "A123456781", EntityType::Kvnr, typo);
    assert_eq!(kept.map(|c| c.score), Some(0.6));
    let gone = stepped(
        "Krankenkasse A123456781",
        "A123456781",
        EntityType::Kvnr,
        typo,
    );
    assert_eq!(gone, None);
}

#[test]
fn the_shared_rule_adds_to_the_base() {
    let c = stepped(
        "Tel. 030 1234567",
        "030 1234567",
        EntityType::PhoneNumber,
        (Form::Main, Needs::Nothing),
    );
    // 0.5 + 0.2 for a strong word
    assert_eq!(c.map(|c| c.score), Some(0.5 + 0.2));
}

/// The score of [`stepped_from`] (`None`: dropped).
fn score(base: f32, s: &str, value: &str, t: EntityType, form: Form) -> Option<f32> {
    stepped_from(base, s, value, t, form).map(|c| c.score)
}

fn near(a: Option<f32>, b: f32) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-6)
}

/// Asserts that the context step scores `value` in `s` (found at `base` in `form`) at `want`.
fn scores(base: f32, s: &str, value: &str, t: EntityType, form: Form, want: f32) {
    let got = score(base, s, value, t, form);
    assert!(near(got, want), "{s}: {got:?}, not {want}");
}

#[test]
fn an_ip_quad_that_may_be_a_version_loses_without_the_ip_word() {
    let ip = EntityType::IpAddress;
    let v = "4.12.0.3";
    // strong: the base plus 0.2, nothing taken off
    scores(0.85, "Login von 4.12.0.3", v, ip, Form::VersionLike, 1.0);
    scores(0.6, "IP 4.12.0.3", v, ip, Form::VersionLike, 0.8);
    // weak: 0.3 off, then 0.1 on
    scores(0.85, "Router 4.12.0.3", v, ip, Form::VersionLike, 0.65);
    // the same words on a plain address take nothing off
    scores(0.85, "Router 84.12.0.3", "84.12.0.3", ip, Form::Main, 0.95);
    scores(0.85, "Messwert 4.12.0.3", v, ip, Form::VersionLike, 0.55);
}

#[test]
fn after_a_version_word_only_the_ip_word_makes_an_address() {
    let ip = EntityType::IpAddress;
    let v = "84.12.0.3";
    let after = Form::AfterVersionWord;
    // `ip` is nearer than the negative `update`: 0.55 + 0.2, whatever the base
    scores(
        0.3,
        "nach dem Update hat die IP 84.12.0.3",
        v,
        ip,
        after,
        0.75,
    );
    scores(
        0.85,
        "nach dem Update der Server 84.12.0.3",
        v,
        ip,
        after,
        0.0,
    );
    scores(0.85, "Host 84.12.0.3", v, ip, after, 0.1);
    // a version label: from 0, the IP word adds its boost only
    scores(0.85, "IP 84.12.0.3", v, ip, Form::VersionLabel, 0.2);
}

#[test]
fn ipv6_pays_a_smaller_penalty_than_ipv4() {
    let ip = EntityType::IpAddress;
    scores(0.6, "Raum fe80::1", "fe80::1", ip, Form::Alternate, 0.3);
    scores(0.6, "Raum 10.0.0.1", "10.0.0.1", ip, Form::Main, 0.25);
}

#[test]
fn a_plate_after_an_all_caps_word_loses_and_stays_at_or_above_zero() {
    let kfz = EntityType::KfzKennzeichen;
    let caps = Form::AfterCapsWord;
    scores(0.75, "KENNZEICHEN B-XY 123", "B-XY 123", kfz, caps, 0.65);
    scores(0.75, "PARKEN B-XY 123", "B-XY 123", kfz, caps, 0.45);
    // the same words in prose
    scores(0.75, "parken B-XY 123", "B-XY 123", kfz, Form::Main, 0.75);
    // a negative word as well: 0.45 − 0.3 − 0.3 is clamped at 0
    let s = score(0.45, "NORM ES AB 12", "ES AB 12", kfz, caps);
    assert_eq!(s, Some(0.0));
}

#[test]
fn a_street_counts_its_strong_word_only() {
    let loc = EntityType::Location;
    let v = "Birkenweg 4";
    scores(0.75, "Anschrift: Birkenweg 4", v, loc, Form::Main, 0.9);
    // weak (`in`) and negative (`Seite`) words leave the base
    scores(0.6, "Seite 3, in Birkenweg 4", v, loc, Form::Main, 0.6);
    let en = "17 Elm Road";
    scores(0.75, "lives in 17 Elm Road", en, loc, Form::Alternate, 0.85);
    scores(0.75, "walk to 17 Elm Road", en, loc, Form::Alternate, 0.75);
    // the evidence records every word found, weak and negative ones too
    let c = stepped_from(0.6, "Seite 3, in Birkenweg 4", v, loc, Form::Main);
    let cues = c.map(|c| c.evidence.context);
    assert!(cues.is_some_and(|c| !c.strong() && c.weak() && c.negative()));
}

#[test]
fn a_form_without_a_table_keeps_its_base() {
    let s = score(
        0.42,
        "Tel. 030 1234567",
        "030 1234567",
        EntityType::PhoneNumber,
        Form::VersionLabel,
    );
    assert_eq!(s, Some(0.42));
}

#[test]
fn the_ask_adds_at_most_one_word_to_a_candidate() {
    // Two bytes of ask past the 64 of before; measured no dearer (benches/RESULTS.md).
    assert_eq!(std::mem::size_of::<Ask>(), 2);
    assert!(std::mem::size_of::<Candidate>() <= 72);
}

#[test]
fn every_type_has_one_rule_and_every_form_one_table() {
    for (k, r) in RULES.iter().enumerate() {
        assert!(
            RULES[k + 1..].iter().all(|o| o.entity != r.entity),
            "{:?}",
            r.entity
        );
        for (i, (form, _)) in r.tables.iter().enumerate() {
            assert!(
                r.tables[i + 1..].iter().all(|(f, _)| f != form),
                "{:?} {form:?}",
                r.entity
            );
        }
    }
    assert_eq!(compiled().len(), RULES.len());
}
