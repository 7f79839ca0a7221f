use super::*;

/// The bytes of `text` that lie inside a target, marked `^`, fed in pieces of `piece`.
fn marks_in(mut cx: LinkContext, text: &str, piece: usize) -> String {
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(piece) {
        for &b in chunk {
            out.push(if cx.in_target() { '^' } else { ' ' });
            cx.feed(&[b]);
        }
    }
    out
}

fn marks(text: &str, piece: usize) -> String {
    marks_in(LinkContext::default(), text, piece)
}

/// Every case marks as written, whole and in pieces of any size.
fn check(new: fn() -> LinkContext, cases: &[(&str, &str)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(text, want)| marks_in(new(), text, 1).trim_end() != want.trim_end())
        .map(|(text, want)| format!("{text:?}\n{want}|\n{}|", marks_in(new(), text, 1)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for (text, _) in cases {
        let got = marks_in(new(), text, 1);
        for piece in [2, 3, 7] {
            assert_eq!(
                marks_in(new(), text, piece),
                got,
                "{text} in pieces of {piece}"
            );
        }
    }
}

#[test]
fn marks_the_targets_of_every_kind() {
    check(
        LinkContext::default,
        &[
            ("![a](http://x/y) z", "     ^^^^^^^^^^^  "),
            ("[t](u(v)) w", "    ^^^^^  "),
            ("<mailto:e> f", "        ^^  "),
            ("<a href=\"u v\">t</a>", "        ^^^^^"),
            ("<img SRC = 'q'>", "          ^^^^  "),
            ("s https://h/p?q x", "          ^^^^^^"),
            ("w www.h.de x", "      ^^^^^"),
            ("[r]:  u x\n[s]:\nt", "    ^^^^      ^^"),
            ("mailto:e, f", "       ^^^"),
            ("style=\"background:url(u)\"", "                      ^^"),
        ],
    );
}

/// Issue 45, items 15–19: destinations as CommonMark, HTML and CSS read them.
#[test]
fn reads_destinations_as_their_parsers_do() {
    check(
        LinkContext::default,
        &[
            // a backslash-escaped parenthesis stays inside
            ("[a](u\\)v) w", "    ^^^^^  "),
            ("[a](u\\\\)v", "    ^^^^ "),
            // `<…>` runs to its `>`, spaces and escapes included, not past a line ending
            ("[a](<u v\\>w>) x", "    ^^^^^^^^   "),
            ("[a](<u\nv>)", "    ^^^   "),
            // whitespace and one line ending before the destination
            ("[a]( u) v", "    ^^^  "),
            ("[a](\r\n\tu) v", "    ^^^^^  "),
            ("[a](\n\nu)", "    ^^  "),
            ("[a]() b", "    ^  "),
            // a reference destination on the next line
            ("[r]:\n  <u v> w", "    ^^^^^^^^  "),
            ("[r]:\n\nu", "    ^^ "),
            // attributes: unquoted, whitespace around `=`, a line ending before the quote
            ("<img src=u v>", "         ^^  "),
            ("<img src\t=\n\"u v\">", "          ^^^^^^ "),
            ("<a data-x=u href= u>", "                 ^^^"),
            // CSS `url(` with whitespace and quotes
            ("url( u) v", "    ^^^  "),
            ("url(\n'u v') w", "    ^^^^^^   "),
            // a bare URL reads through `'` and `\`, not past `"`, `<`, `>` or whitespace
            ("s https://h/'a\\b\"c d", "          ^^^^^^^    "),
        ],
    );
}

/// Issue 45, items 20–22: tool arguments in JSON source are decoded first, and a string that
/// is a URL is a target to its end.
#[test]
fn reads_json_strings_decoded_and_url_values_whole() {
    check(
        LinkContext::json_source,
        &[
            (
                r#"{"u":"https:\/\/h\/p d","q":"x"}"#,
                "                ^^^^^^^         ",
            ),
            (r#"{"u":"//h/p'x","q":"y"}"#, "        ^^^^^^         "),
            (r#"{"u":" www.h x"}"#, "           ^^^^ "),
            (
                r#"{"t":"see https://h/p x","q":"y"}"#,
                "                  ^^^^           ",
            ),
            (
                r#"{"t":"a \u0028x\u0029 [b](https://h\u0029 c"}"#,
                "                          ^^^^^^^^^^^^^^^    ",
            ),
            (r#"{"t":"ok","n":1}"#, ""),
        ],
    );
    check(
        LinkContext::tool_value,
        &[
            ("https://h/p?a= b\\c", "        ^^^^^^^^^^"),
            ("a //h x", ""),
        ],
    );
}

#[test]
fn prose_stays_prose() {
    for text in [
        "Herr Maier (Kunde) schreibt: danke.",
        "a = \"b\" und href ohne Gleich \"c\"",
        "Vorlage [1] und (2), Uhrzeit 12:30, <b>fett</b>",
        "the url (siehe oben) and my www-Seite",
        "Pfad a/b//c und 1/2",
    ] {
        assert_eq!(marks(text, 1).trim(), "", "{text}");
    }
    let mut cx = LinkContext::json_source();
    cx.feed(br#"{"a":"b","c":"d e //f"}"#);
    assert!(!cx.in_target());
}
