use proptest::prelude::*;

use super::*;

/// The original stretch that view range `start..end` covers.
fn covered<'t>(original: &'t str, v: &View<'_>, start: usize, end: usize) -> &'t str {
    &original[v.start_in_original(start)..v.end_in_original(end)]
}

/// The original stretch behind the first occurrence of `needle` in the view.
fn behind<'t>(original: &'t str, needle: &str) -> (String, &'t str) {
    let v = View::new(original);
    let at = v.as_str().find(needle).expect("needle in the view");
    let got = covered(original, &v, at, at + needle.len());
    (v.as_str().to_owned(), got)
}

#[test]
fn plain_text_is_borrowed_without_units() {
    for s in [
        "",
        "Sehr geehrter Herr Müller, Grüße aus Köln (siehe [1] und {x}).",
        "Preis 12 % & mehr \\ Pfad",
        "€ 😀 東京",
    ] {
        let v = View::new(s);
        assert!(v.is_original(), "{s}");
        assert!(matches!(v.text, Cow::Borrowed(_)));
        assert_eq!(v.start_in_original(3.min(s.len())), 3.min(s.len()));
    }
}

#[test]
fn the_scan_finds_a_special_byte_anywhere_in_a_block() {
    for len in [0, 1, 7, 8, 9, 16, 21] {
        for at in 0..len {
            let mut b = vec![b'a'; len];
            b[at] = 0x1B;
            for from in 0..=at {
                assert_eq!(next_special(&b, from), Some(at), "{len} {at} {from}");
            }
            assert_eq!(next_special(&b, at + 1), None);
        }
        assert_eq!(next_special(&vec![b'a'; len], 0), None);
    }
    assert_eq!(next_special(b"abc", 4), None);
}

#[test]
fn ignorables_vanish_and_the_value_covers_them() {
    let s = "Mail: max.muster\u{AD}mann@exam\u{200B}ple.de, Tel 0171\u{2060}2345678\u{FEFF}";
    let (view, got) = behind(s, "max.mustermann@example.de");
    assert_eq!(got, "max.muster\u{AD}mann@exam\u{200B}ple.de");
    assert!(view.contains("0171 2345678") || view.contains("01712345678"));
    let (_, phone) = behind(s, "01712345678");
    assert_eq!(phone, "0171\u{2060}2345678");
}

#[test]
fn spaces_fullwidth_and_decomposed_letters_fold() {
    let s = "ＤＥ８９\u{3000}３７０４ and DE89\u{2003}3704 for Ju\u{308}rgen";
    let v = View::new(s);
    assert_eq!(v.as_str(), "DE89 3704 and DE89 3704 for Jürgen");
    let (_, got) = behind(s, "DE89 3704");
    assert_eq!(got, "ＤＥ８９\u{3000}３７０４");
    let (_, got) = behind(s, "Jürgen");
    assert_eq!(got, "Ju\u{308}rgen");
    // The older one-for-one folds stay.
    assert_eq!(View::new("a\u{A0}b\u{2013}c\u{2044}d").as_str(), "a b-c/d");
}

#[test]
fn the_typographic_apostrophe_reads_as_the_ascii_one() {
    let s = "I\u{2019}ve met O\u{2019}Brien; I\u{2BC}ll go.";
    assert_eq!(View::new(s).as_str(), "I've met O'Brien; I'll go.");
    let (_, got) = behind(s, "O'Brien");
    assert_eq!(got, "O\u{2019}Brien");
}

#[test]
fn escapes_and_references_read_as_their_characters() {
    let s = r#"{"name": "J\u00fcrgen M\u00fcller", "mail": "a\u0040b.de"} \ud83d\ude00"#;
    let v = View::new(s);
    assert_eq!(
        v.as_str(),
        "{\"name\": \"Jürgen Müller\", \"mail\": \"a@b.de\"} 😀"
    );
    let (_, got) = behind(s, "Jürgen Müller");
    assert_eq!(got, r"J\u00fcrgen M\u00fcller");
    let s = "mailto:max&#64;example.de x&#x40;y.de q&commat;r.de &amp; &lt;b&gt; &#xAD;";
    assert_eq!(
        View::new(s).as_str(),
        "mailto:max@example.de x@y.de q@r.de & <b> "
    );
    // Broken or unknown forms stay as written.
    for s in [
        r"\u00f",
        r"\uD800 x",
        r"\udc00",
        "&#;",
        "&#x110000;",
        "&nosuch;",
        "&amp",
        "&#0;",
    ] {
        assert_eq!(View::new(s).as_str(), s);
    }
}

#[test]
fn spelled_out_at_and_percent_encoded_at_in_addresses() {
    for (s, want) in [
        ("max.mustermann(at)example.de", "max.mustermann@example.de"),
        ("max [at] example [dot] de", "max@example.de"),
        ("max{AT}example.de", "max@example.de"),
        ("mailto:max%40example.de", "mailto:max@example.de"),
    ] {
        assert_eq!(View::new(s).as_str(), want, "{s}");
    }
    for s in [
        "Wien (AT) und Graz",
        "Preis (at) 5",
        "(at)example.de",
        "50%40 Rabatt",
        "wie (dot) ",
    ] {
        assert_eq!(View::new(s).as_str(), s, "{s}");
    }
    let s = "max (at) example (dot) de";
    let (_, got) = behind(s, "max@example.de");
    assert_eq!(got, s);
}

#[test]
fn a_value_ending_before_trailing_ignorables_excludes_them() {
    let s = "ab\u{200B}\u{200B}cd";
    let v = View::new(s);
    assert_eq!(v.as_str(), "abcd");
    assert_eq!(covered(s, &v, 0, 2), "ab");
    assert_eq!(covered(s, &v, 2, 4), "cd");
    assert_eq!(covered(s, &v, 1, 3), "b\u{200B}\u{200B}c");
    assert_eq!(v.end_in_original(0), 0);
}

#[test]
fn terminal_codes_read_as_nothing_and_values_cover_them() {
    let s = "Karte \x1b[1m4111 1111 1111 1111\x1b[0m, Titel \x1b]0;Akte\x07 ok";
    let v = View::new(s);
    assert_eq!(v.as_str(), "Karte 4111 1111 1111 1111, Titel Akte ok");
    // Codes around a value stay outside it; codes inside it are covered.
    let (_, got) = behind(s, "4111 1111 1111 1111");
    assert_eq!(got, "4111 1111 1111 1111");
    let s = "3:max.\x1b[01;31m\x1b[Kmuster\x1b[m\x1b[Kmann@example.de";
    let (view, got) = behind(s, "max.mustermann@example.de");
    assert_eq!(view, "3:max.mustermann@example.de");
    assert_eq!(got, &s[2..]);
    let (_, got) = behind("Karte \u{9b}1m4111\u{9b}0m", "4111");
    assert_eq!(got, "4111");
    // Digits written as parameters stay readable: only the introducer vanishes.
    assert_eq!(
        View::new("\x1b[4111111111111111m").as_str(),
        "[4111111111111111m"
    );
}

#[test]
fn controls_vanish_but_separators_stay() {
    let s = "a\u{0}b\u{7f}c\u{1}d\u{80}e\u{9c}f\tg\nh\ri\u{b}j\u{c}k\u{85}l\u{2800}m";
    assert_eq!(View::new(s).as_str(), "abcdef\tg\nh\ri\nj\nk\nl m");
    assert_eq!(View::new(r"a\u0000b&#127;c\u001b[1md").as_str(), "abc[1md");
    let (_, got) = behind("Nr 860\u{0}957\u{7f}42719.", "86095742719");
    assert_eq!(got, "860\u{0}957\u{7f}42719");
}

#[test]
fn json_escaped_at_any_depth_reads_as_its_characters() {
    for (s, want) in [
        (r"J\\u00fcrgen", "Jürgen"),
        (r"J\\\\u00fcrgen M\\\\\\\\u00fcller", "Jürgen Müller"),
        (r"\\ud83d\\ude00", "😀"),
        (
            r#"Kunde:\\nJ\\u00fcrgen\nTel\\t1 \\"x\\" https:\/\/a.de\/b"#,
            "Kunde:\nJürgen\nTel\t1 \"x\" https://a.de/b",
        ),
    ] {
        assert_eq!(View::new(s).as_str(), want, "{s}");
    }
    let s = r"Name: J\\u00fcrgen M\\u00fcller.";
    let (_, got) = behind(s, "Jürgen Müller");
    assert_eq!(got, r"J\\u00fcrgen M\\u00fcller");
    // A line-break escape before a lowercase letter is read as a path, and stray backslashes
    // stay as written.
    for s in [
        r"C:\\Users\\nadine\\tmp",
        r"a \\ b \\\\",
        r"\\x41",
        r"\\u00f",
    ] {
        assert_eq!(View::new(s).as_str(), s);
    }
}

/// Strings mixing plain text with everything that folds.
fn foldy() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-zA-Z0-9 .@()\\[\\]{}%&;#\\\\]{0,6}",
        Just("\u{AD}".to_owned()),
        Just("\u{200B}".to_owned()),
        Just("\u{3000}".to_owned()),
        Just("８".to_owned()),
        Just("ﬁ".to_owned()),
        Just("u\u{308}".to_owned()),
        Just("\u{301}\u{308}".to_owned()),
        Just(r"\u00fc".to_owned()),
        Just(r"\ud83d\ude00".to_owned()),
        Just("&#64;".to_owned()),
        Just("&amp;".to_owned()),
        Just("(at)".to_owned()),
        Just(" (dot) ".to_owned()),
        Just("%40".to_owned()),
        Just("\x1b[1;31m".to_owned()),
        Just("\x1b]0;".to_owned()),
        Just("\x1b".to_owned()),
        Just("\u{9b}".to_owned()),
        Just("\u{0}\u{7f}\u{b}".to_owned()),
        Just("\u{2800}".to_owned()),
        Just(r"\\u00fc".to_owned()),
        Just(r"\\n".to_owned()),
        Just("ä€😀".to_owned()),
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    /// Every view range (at view char boundaries) maps to an ordered range of char boundaries
    /// of the original, and mapping is monotonic.
    #[test]
    fn every_view_range_maps_to_original_char_boundaries(s in foldy()) {
        let v = View::new(&s);
        let view = v.as_str();
        let cuts: Vec<usize> = (0..=view.len()).filter(|&i| view.is_char_boundary(i)).collect();
        let mut last_start = 0;
        for &a in &cuts {
            let start = v.start_in_original(a);
            prop_assert!(s.is_char_boundary(start) && start <= s.len());
            prop_assert!(start >= last_start);
            last_start = start;
            for &b in cuts.iter().filter(|&&b| b > a) {
                let end = v.end_in_original(b);
                prop_assert!(s.is_char_boundary(end) && end <= s.len());
                prop_assert!(start < end, "{a}..{b} -> {start}..{end} in {s:?}");
            }
        }
        prop_assert_eq!(v.end_in_original(view.len()) <= s.len(), true);
    }

    /// The whole view maps to the whole original less any ignorables at its ends, and a view
    /// without units is the original.
    #[test]
    fn whole_view_covers_the_original(s in foldy()) {
        let v = View::new(&s);
        if v.is_original() {
            prop_assert_eq!(v.as_str(), s.as_str());
        } else if !v.as_str().is_empty() {
            let start = v.start_in_original(0);
            let end = v.end_in_original(v.as_str().len());
            let (head, tail) = (View::new(&s[..start]), View::new(&s[end..]));
            prop_assert_eq!(head.as_str(), "");
            prop_assert_eq!(tail.as_str(), "");
        }
    }
}
