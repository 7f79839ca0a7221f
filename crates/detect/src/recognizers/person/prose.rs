//! Phase 3, unanchored names: capitalised words that the gazetteers know, in the shape of a
//! name (given name + surname, `Schmidt, Anna`, `A. Schmidt`, family name first), lone given
//! names and surnames (low scores, see the module doc of `person`), lower-case chat names, names
//! in scripts without case, and names before a verb of saying (`Müller sagte`).

use super::facts::{Mode, NameContext, F_PET, F_SPEECH};
use super::scores::{
    push, Found, ANCHORED_WEAK, UNANCHORED_FULL, UNANCHORED_LONE_FIRST,
    UNANCHORED_LONE_FIRST_SURNAME, UNANCHORED_LONE_SURNAME, UNANCHORED_LONE_SURNAME_START,
    UNANCHORED_PAIR, UNANCHORED_SHAPE, UNANCHORED_UNCASED,
};
use crate::words::Shape;

/// Appends the unanchored names of `cx` to `found`.
pub(super) fn find(cx: &NameContext<'_>, found: &mut Found) {
    let n = cx.words.len();
    // 3. Unanchored names in prose and chat.
    let mut i = 0;
    while i < n {
        let f = &cx.word_info[i];
        let w = cx.words[i];
        if f.stop && !(f.first && w.shape == Shape::Capitalised && !f.common) {
            i += 1;
            continue;
        }
        // Each step returns the word after a name it took whole, `None` to go on by one word.
        let next = match w.shape {
            Shape::Capitalised | Shape::Other => capitalised(cx, i, found),
            Shape::Lower => lower_case_chat(cx, i, found),
            Shape::Uncased => Some(uncased_run(cx, i, found)),
            Shape::Upper => None,
        };
        i = next.unwrap_or(i + 1);
    }
    names_before_speech(cx, found);
}

/// A name opening at the capitalised word `i`; the first reading whose trigger matches
/// decides.
fn capitalised(cx: &NameContext<'_>, i: usize, found: &mut Found) -> Option<usize> {
    let n = cx.words.len();
    let f = &cx.word_info[i];
    if f.first && !f.common {
        given_name_first(cx, i, found)
    } else if f.first
        && f.common
        && i + 1 < n
        && cx.word_info[i + 1].joined
        && cx.words[i + 1].shape == Shape::Capitalised
        && (cx.word_info[i + 1].last && !cx.word_info[i + 1].common)
    {
        // `Frank Becker`, `Mark Twain`: ambiguous given name + known surname.
        push(found, i, i + 1, UNANCHORED_PAIR);
        Some(i + 2)
    } else if f.last && !f.common && !f.stop {
        surname_first(cx, i, found)
    } else if cx.is_initial(i)
        && i + 1 < n
        && cx.words[i + 1].shape == Shape::Capitalised
        && cx.word_info[i + 1].last
        && !cx.word_info[i + 1].common
    {
        // `A. Schmidt`: an initial and a known surname.
        let gap = &cx.text[cx.words[i].end..cx.words[i + 1].start];
        if gap == ". " || gap == "." {
            push(found, i, i + 1, UNANCHORED_SHAPE);
            return Some(i + 2);
        }
        None
    } else {
        None
    }
}

/// Given name (+ given names) + surname at word `i`, or a lone given name (not a pet's).
fn given_name_first(cx: &NameContext<'_>, i: usize, found: &mut Found) -> Option<usize> {
    let j = cx.extend(i, Mode::Prose, 5)?;
    if j > i {
        let sur_ok = cx.word_info[j].last || cx.word_info[j].first || !cx.noun_like(j);
        if sur_ok && !cx.followed_by_org(j) && !cx.preceded_by_org(i) {
            push(found, i, j, UNANCHORED_FULL);
            return Some(j + 1);
        }
    } else if !(cx.followed_by_org(i)
        || cx.preceded_by_org(i)
        || cx.after_determiner(i)
        || (i > 0 && cx.has(i - 1, F_PET)))
    {
        let f = &cx.word_info[i];
        let score = if f.last && !f.sentence_start {
            UNANCHORED_LONE_FIRST_SURNAME
        } else {
            UNANCHORED_LONE_FIRST
        };
        push(found, i, i, score);
    }
    None
}

/// A known surname at word `i`: inverted `Schmidt, Anna`, family name first, or alone.
fn surname_first(cx: &NameContext<'_>, i: usize, found: &mut Found) -> Option<usize> {
    let (s, n) = (cx.text, cx.words.len());
    let (f, w) = (&cx.word_info[i], cx.words[i]);
    // Inverted `Schmidt, Anna`.
    if i + 1 < n
        && s[w.end..cx.words[i + 1].start] == *", "
        && cx.word_info[i + 1].first
        && cx.words[i + 1].shape == Shape::Capitalised
    {
        let after = s[cx.words[i + 1].end..].trim_start_matches(' ');
        if after.is_empty() || after.starts_with(['\n', ';', ')', '.']) || after.starts_with(',') {
            push(found, i, i + 1, UNANCHORED_FULL);
            return Some(i + 2);
        }
    }
    // Family name first, given names after: `Nguyen Van Minh`.
    if let Some(j) = cx.extend(i, Mode::Prose, 4) {
        // Given names after it, no particle, no surname-only or common word
        // (`Jones House`, `Pont del Diable` are places).
        let given = (i + 1..=j).any(|x| cx.word_info[x].first);
        let plain = (i + 1..=j).all(|x| {
            let g = &cx.word_info[x];
            cx.words[x].shape == Shape::Capitalised && (g.first || !(g.last || g.common || g.stop))
        });
        if j > i && given && plain && !cx.followed_by_org(j) && !cx.preceded_by_org(i) {
            push(found, i, j, UNANCHORED_PAIR);
            return Some(j + 1);
        }
    }
    if !cx.followed_by_org(i) && !cx.preceded_by_org(i) && !cx.after_determiner(i) {
        let score = if f.sentence_start {
            UNANCHORED_LONE_SURNAME_START
        } else {
            UNANCHORED_LONE_SURNAME
        };
        push(found, i, i, score);
    }
    None
}

/// Lower-case chat names at word `i`.
fn lower_case_chat(cx: &NameContext<'_>, i: usize, found: &mut Found) -> Option<usize> {
    let n = cx.words.len();
    let f = &cx.word_info[i];
    // Chat: `tobias meier`, also with a surname that is a word too (`tobias koch`):
    // after an unambiguous given name it is the surname, as in `Tobias Koch`.
    if f.first
        && !f.stop
        && !f.common
        && i + 1 < n
        && cx.word_info[i + 1].joined
        && cx.words[i + 1].shape == Shape::Lower
        && cx.word_info[i + 1].last
        && !cx.word_info[i + 1].stop
    {
        push(found, i, i + 1, UNANCHORED_SHAPE);
        return Some(i + 2);
    }
    // Chat in lower case: `… war der zeuge. carmen saß im auto`: a given name
    // opening a sentence, where sentences start in lower case.
    if f.first
        && !f.stop
        && !f.common
        && f.sentence_start
        && cx.low(i).chars().count() >= 4
        && i + 1 < n
        && cx.word_info[i + 1].joined
        && cx.words[i + 1].shape == Shape::Lower
        && cx.previous_sentence_in_lower_case(i)
    {
        push(found, i, i, UNANCHORED_LONE_FIRST_SURNAME);
    } else if f.first && !f.stop && !f.common && cx.lone_lower_chat_name(i) {
        // `kannst du anna bitte zurückrufen`: a given name inside a line typed in
        // lower case throughout.
        push(found, i, i, UNANCHORED_LONE_FIRST);
    }
    None
}

/// A name in a script without case inside Latin text: `فداء بلقرن`. Returns the word
/// after the run of uncased words starting at `i`.
fn uncased_run(cx: &NameContext<'_>, i: usize, found: &mut Found) -> usize {
    let n = cx.words.len();
    let mut j = i;
    while j + 1 < n && cx.words[j + 1].shape == Shape::Uncased && cx.word_info[j + 1].joined {
        j += 1;
    }
    if j - i < 4 {
        push(found, i, j, UNANCHORED_UNCASED);
    }
    j + 1
}

/// Names followed by a verb of saying: `Müller sagte`.
fn names_before_speech(cx: &NameContext<'_>, found: &mut Found) {
    for i in 0..cx.words.len().saturating_sub(1) {
        if cx.has(i + 1, F_SPEECH)
            && cx.word_info[i + 1].joined
            && cx.words[i].shape == Shape::Capitalised
        {
            let f = &cx.word_info[i];
            let article = i > 0 && cx.word_info[i - 1].stop && cx.word_info[i].joined;
            if !f.stop && !f.common && !article && (f.last || f.first) {
                push(found, i, i, ANCHORED_WEAK);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::names;

    #[test]
    fn common_nouns_and_months_are_not_names() {
        for text in [
            "Die Kosten sind zu hoch.",
            "Darin liegt das Problem.",
            "Das Gesetz vom Juni 1999 gilt noch.",
            "Das war bis zum Verbot im Juni 1941 so.",
        ] {
            assert_eq!(names(text), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn lower_case_chat_names_may_have_a_common_word_surname() {
        assert_eq!(
            names("ok also tobias koch meinte das passt so"),
            vec!["tobias koch"]
        );
        // Without a given name before it the word stays a word.
        assert_eq!(
            names("ok also der koch meinte das passt so"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn names_in_prose_and_english_are_found() {
        assert_eq!(
            names("Hi, I am John Smith and I live in London."),
            vec!["John Smith"]
        );
        assert_eq!(
            names("Gestern hat Anna Schmidt angerufen."),
            vec!["Anna Schmidt"]
        );
        // A family name first, given names after.
        assert_eq!(
            names("Wir trafen Nguyen Van Minh."),
            vec!["Nguyen Van Minh"]
        );
    }

    #[test]
    fn a_lone_hyphenated_given_name_opening_a_line_is_a_name() {
        assert_eq!(
            names("Offen:\n4. Miroslaw-Ottokar prüft die Rechnung bis Montag."),
            vec!["Miroslaw-Ottokar"]
        );
        assert_eq!(
            names("Hans-Jürgen schreibt das Protokoll."),
            vec!["Hans-Jürgen"]
        );
    }

    #[test]
    fn a_frequent_given_name_alone_in_english_text_is_a_name() {
        assert_eq!(
            names("Next week my sister Elizabeth and I will visit the museum."),
            vec!["Elizabeth"]
        );
        assert_eq!(
            names("Could you send the invoice to Robert before Friday?"),
            vec!["Robert"]
        );
    }
}
