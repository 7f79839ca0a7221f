//! Phase 1, anchored names: a name after a salutation or title (`Frau Dr. Becker`), a
//! greeting (`Hallo Anna`), a self-introduction (`ich bin`, `mein Name ist`), a form label
//! (`Name: Schmidt, Anna`), a verb of saying (`sagte Anna Schmidt`, `laut Müller`) or a role
//! noun (`Kollegin Petra`). An office after a salutation is skipped and never named
//! (`Herr Präsident`).

use super::facts::{
    Mode, NameContext, F_GREET, F_LABEL, F_LEAD, F_PARTICLE, F_PARTICLE_LINK, F_ROLE, F_SALUT,
    F_SPEECH,
};
use super::scores::{
    push, Found, ANCHORED, ANCHORED_CHAT, ANCHORED_ROLE, ANCHORED_STRONG, ANCHORED_WEAK,
};
use crate::lexicon::class;
use crate::words::Shape;

/// Appends the anchored names of `cx` to `found`.
pub(super) fn find(cx: &NameContext<'_>, found: &mut Found) {
    // 1. Anchored names.
    for i in 0..cx.words.len() {
        // Every anchor below is one of these classes: most words skip the whole chain.
        if !cx.has(i, F_SALUT | F_GREET | F_LABEL | F_SPEECH | F_ROLE | F_LEAD) {
            continue;
        }
        let l = cx.low(i);
        // The first anchor whose trigger matches claims the word, found name or not.
        if salutation(cx, i, l, found)
            || greeting(cx, i, l, found)
            || self_introduction(cx, i, l, found)
            || form_label(cx, i, l, found)
            || verb_of_saying(cx, i, l, found)
        {
            continue;
        }
        role_noun(cx, i, found);
    }
}

/// Salutation / title: `Frau Dr. Becker`, `Herrn Koch`, `Mr. Smith`. True when word `i`
/// is one.
fn salutation(cx: &NameContext<'_>, i: usize, l: &str, found: &mut Found) -> bool {
    let n = cx.words.len();
    if !(cx.has(i, F_SALUT)
        && (cx.words[i].shape == Shape::Capitalised || cx.words[i].shape == Shape::Lower))
    {
        return false;
    }
    if cx.words[i].shape == Shape::Lower && english_word_salutation(cx, i) {
        return true;
    }
    let mut k = cx.skip_titles(i + 1);
    // `Herr Präsident`, `Frau Ministerin Schulze`: the office is skipped, a name
    // may follow it on the same line.
    if k < n && cx.has(k, F_ROLE) && !(cx.word_info[k].first || cx.word_info[k].last) {
        k = cx.skip_titles(k + 1);
        if k >= n || !cx.word_info[k].joined || cx.words[k].shape == Shape::Lower {
            return true;
        }
    }
    if k < n && k > i && !cx.text[cx.words[k - 1].end..cx.words[k].start].contains('\n') {
        name_after_salutation(cx, i, l, k, found);
    }
    true
}

/// The name starting at word `k` after the salutation at word `i` (lower case `l`), on the
/// same line.
fn name_after_salutation(cx: &NameContext<'_>, i: usize, l: &str, k: usize, found: &mut Found) {
    let n = cx.words.len();
    let mode = Mode::Anchored;
    // `Herr von Bauer`, `Prof. Dr. zu Zahn`: particles lead the surname.
    let mut k2 = k;
    // `der` alone only continues a particle (`von der`): `Herr der Lage` is none.
    let leads = !cx.has(k, F_PARTICLE_LINK);
    while leads
        && k2 + 1 < n
        && cx.has(k2, F_PARTICLE)
        && cx.words[k2].shape == Shape::Lower
        && cx.word_info[k2 + 1].joined
    {
        k2 += 1;
    }
    if k2 > k && cx.words[k2].shape == Shape::Capitalised {
        if let Some(j) = cx.extend(k2, mode, 3) {
            push(found, k, j, ANCHORED_STRONG);
        }
        return;
    }
    if cx.words[k].shape == Shape::Lower && !(cx.word_info[k].first || cx.word_info[k].last) {
        // Chat in lower case: `frag mal herrn meyer-kruschwitz`.
        let f = &cx.word_info[k];
        // Two-letter abbreviations in lower case are no salutation (`hr`, `ms`).
        if cx.words[i].shape == Shape::Lower
            && l.chars().count() >= 3
            && !f.stop
            && !f.common
            && f.joined
            && cx.low(k).chars().count() >= 3
            && !cx.has(k, F_PARTICLE)
        {
            push(found, k, k, ANCHORED_CHAT);
        }
        return;
    }
    if let Some(mut j) = cx.extend(k, mode, 4) {
        // `Herrn Kochs Schreiben`: without a given name the span is the surname,
        // unless the next word is a known name too.
        if j > k
            && !cx.word_info[k].first
            && !(cx.word_info[k + 1].last || cx.word_info[k + 1].first)
        {
            j = k;
        }
        if !cx.followed_by_org(j) {
            push(found, k, j, ANCHORED_STRONG);
            plural_salutation(cx, l, j, found);
        }
    }
}

/// Greeting: `Hallo Anna,`, `Guten Tag Herr …` (a salutation after it is left to
/// [`salutation`]). True when word `i` (lower case `l`) opens one.
fn greeting(cx: &NameContext<'_>, i: usize, l: &str, found: &mut Found) -> bool {
    let n = cx.words.len();
    if !(cx.has(i, F_GREET) && i + 1 < n && cx.word_info[i + 1].joined) {
        return false;
    }
    let k = i + 1;
    if cx.has(k, F_SALUT) {
        return true;
    }
    if matches!(l, "tag" | "morgen" | "abend") && !(i > 0 && cx.low(i - 1) == "guten") {
        return true;
    }
    if let Some(j) = cx.extend(k, Mode::Anchored, 3) {
        let after = cx.text[cx.words[j].end..].trim_start_matches(' ');
        let closes = after.is_empty() || after.starts_with([',', '!', '\n', '.', ':', '?']);
        let (f, shape) = (&cx.word_info[k], cx.words[k].shape);
        let gaz = f.first || f.last;
        // `hey can u help`: a lower-case word that is also an ordinary word names
        // someone only when the greeting closes after it (`hey can,`).
        let word_reading = shape == Shape::Lower && (f.stop || f.common) && !closes;
        // `Hallo Support-Team,`, `Hallo Team`: a common noun no gazetteer lists
        // greets a group.
        let group = !gaz && j == k && cx.common_noun(k);
        if ((closes && shape != Shape::Lower) || gaz) && !word_reading && !group {
            push(found, k, j, ANCHORED);
        }
    }
    true
}

/// Self-introduction: `ich bin`, `mein Name ist`, `I'm`. True when word `i` (lower case
/// `l`) is one.
fn self_introduction(cx: &NameContext<'_>, i: usize, l: &str, found: &mut Found) -> bool {
    let n = cx.words.len();
    let intro = match l {
        "ist" | "is" => i > 0 && matches!(cx.low(i - 1), "name" | "hier" | "this"),
        "its" | "it's" => true,
        "heiße" | "heisse" | "heißt" => true,
        "bin" => i > 0 && cx.low(i - 1) == "ich",
        "am" | "i'm" | "im" => l == "i'm" || (l == "am" && i > 0 && cx.low(i - 1) == "i"),
        _ => false,
    };
    if !(intro && i + 1 < n && cx.word_info[i + 1].joined) {
        return false;
    }
    let k = cx.skip_titles(i + 1);
    // `Ich bin einer der letzten`: a lower-case common word is no name; after `it's` a
    // lower-case word is what it is like (`it's best to …`), even a listed surname — but a
    // listed given name is a chat's self-introduction (`its felizitas zu vogel`).
    let lower = k < n && cx.words[k].shape == Shape::Lower;
    let describes = lower && matches!(l, "its" | "it's") && !cx.word_info[k].first;
    if k < n && !describes && !(lower && cx.word_info[k].common) {
        if let Some(j) = cx.extend(k, Mode::Anchored, 4) {
            let gaz = (i + 1..=j).any(|x| cx.word_info[x].first || cx.word_info[x].last);
            let weak = matches!(l, "bin" | "am" | "i'm" | "im" | "its" | "it's")
                || (l == "ist" && cx.low(i - 1) == "hier")
                || (l == "is" && cx.low(i - 1) == "this");
            if !weak || gaz {
                push(found, k, j, ANCHORED_STRONG);
            }
        }
    }
    true
}

/// Form label: `Name: Schmidt, Anna`. True when word `i` (lower case `l`) is a label
/// followed by a colon.
fn form_label(cx: &NameContext<'_>, i: usize, l: &str, found: &mut Found) -> bool {
    let (s, n) = (cx.text, cx.words.len());
    if !(cx.has(i, F_LABEL) && s[cx.words[i].end..].starts_with(':')) {
        return false;
    }
    let k = cx.skip_titles(i + 1);
    if k < n && !s[cx.words[i].end..cx.words[k].start].contains('\n') {
        if let Some(j) = cx.extend(k, Mode::Anchored, 4) {
            // inverted `Schmidt, Anna`: a surname before the comma, no given name
            // (`Olga Brenner, Miroslaw` is a list of two people)
            let mut jj = j;
            let surname_only = j == k || !(k..=j).any(|x| cx.word_info[x].first);
            if surname_only
                && j + 1 < n
                && s[cx.words[j].end..cx.words[j + 1].start] == *", "
                && cx.word_info[j + 1].first
            {
                jj = cx.extend(j + 1, Mode::Anchored, 3).unwrap_or(j + 1);
            }
            let gaz = (k..=jj).any(|x| cx.word_info[x].first || cx.word_info[x].last);
            let strong_label = !cx.lex.lists.weak_labels.contains(&l);
            if (strong_label || gaz) && !cx.followed_by_org(jj) {
                push(found, k, jj, ANCHORED_STRONG);
            }
        }
    }
    true
}

/// Verb of saying: `sagte Anna Schmidt`, `laut Müller`. True when word `i` (lower case
/// `l`) is one.
fn verb_of_saying(cx: &NameContext<'_>, i: usize, l: &str, found: &mut Found) -> bool {
    let n = cx.words.len();
    if !((cx.has(i, F_SPEECH) || l == "laut" || l == "so")
        && i + 1 < n
        && cx.word_info[i + 1].joined)
    {
        return false;
    }
    let k = cx.skip_titles(i + 1);
    if k < n && cx.words[k].shape == Shape::Capitalised {
        if let Some(j) = cx.extend(k, Mode::Prose, 4) {
            let gaz = (k..=j).any(|x| cx.word_info[x].first || cx.word_info[x].last);
            let plain = !cx.word_info[k].common && !cx.word_info[k].stop;
            let needs_gaz = l == "laut" || l == "so";
            if (gaz || (plain && !needs_gaz)) && !cx.followed_by_org(j) {
                push(found, k, j, ANCHORED_WEAK);
            }
        }
    }
    true
}

/// Role noun: `Kollegin Petra`, `Kanzler Scholz`.
fn role_noun(cx: &NameContext<'_>, i: usize, found: &mut Found) {
    let n = cx.words.len();
    if !(cx.has(i, F_ROLE)
        && i + 1 < n
        && cx.word_info[i + 1].joined
        && cx.words[i + 1].shape == Shape::Capitalised)
    {
        return;
    }
    let k = i + 1;
    if let Some(j) = cx.extend(k, Mode::Prose, 4) {
        let gaz = (k..=j).any(|x| cx.word_info[x].first || cx.word_info[x].last);
        // Two or more plain capitalised words in the shape of a name need no gazetteer:
        // `Kollegin Małgorzata Kowalska`.
        let shaped = j > k
            && (k..=j).all(|x| {
                let f = &cx.word_info[x];
                cx.words[x].shape == Shape::Capitalised && !f.stop && !f.common && !cx.noun_like(x)
            });
        if (gaz || shaped) && !cx.word_info[k].stop && !cx.followed_by_org(j) {
            push(found, k, j, ANCHORED_ROLE);
        }
    }
}

/// A lower-case salutation that is an English word or unit in English text (`cache miss buys`,
/// `300 ms without`) or follows a number: no one is greeted.
fn english_word_salutation(cx: &NameContext<'_>, i: usize) -> bool {
    let after_number = cx.text[..cx.words[i].start]
        .trim_end_matches(' ')
        .ends_with(|c: char| c.is_ascii_digit());
    let facts = cx.lexed.facts();
    after_number || (cx.has(i, class::ENGLISH) && crate::tagger::english_at(cx.words, facts, i))
}

/// After a salutation of several people (`Messrs Rack and Swoboda`), the name after the
/// conjunction that follows the first name `..=j` is anchored too.
fn plural_salutation(cx: &NameContext<'_>, salutation: &str, j: usize, found: &mut Found) {
    let n = cx.words.len();
    if j + 2 >= n
        || !cx.lex.lists.plural_salutations.contains(&salutation)
        || !cx.has(j + 1, class::CONJUNCTION)
        || !cx.word_info[j + 1].joined
        || !cx.word_info[j + 2].joined
        || cx.words[j + 2].shape != Shape::Capitalised
    {
        return;
    }
    if let Some(e) = cx.extend(j + 2, Mode::Anchored, 3) {
        push(found, j + 2, e, ANCHORED_STRONG);
    }
}

#[cfg(test)]
mod tests {
    use super::super::names;

    #[test]
    fn an_office_after_herr_or_frau_is_never_a_name() {
        for text in [
            "Herr Präsident, meine Damen und Herren!",
            "Frau Präsidentin! Liebe Kolleginnen und Kollegen!",
            "Herr Kommissar, Sie haben das Wort.",
            "Vielen Dank, Frau Kollegin.",
            "Herr Staatssekretär, bitte.",
        ] {
            assert_eq!(names(text), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn a_name_after_the_office_or_title_is_found_without_them() {
        assert_eq!(names("Herr Präsident Schäuble eröffnet."), vec!["Schäuble"]);
        assert_eq!(names("Frau Ministerin Schulze antwortet."), vec!["Schulze"]);
        assert_eq!(names("Herr Dr. Becker kommt morgen."), vec!["Becker"]);
        assert_eq!(
            names("Sehr geehrte Frau Prof. Dr. Anna Weiß,"),
            vec!["Anna Weiß"]
        );
    }

    #[test]
    fn a_greeting_before_a_group_or_a_word_names_nobody() {
        for text in [
            "Hallo Vertriebs-Team, anbei die Liste.",
            "Hallo Team, kurze Frage.",
            "hey can u check this for me",
        ] {
            assert_eq!(names(text), Vec::<String>::new(), "{text}");
        }
        assert_eq!(names("hey can, alles gut?"), vec!["can"]);
        assert_eq!(names("Hallo Ines, kurze Frage."), vec!["Ines"]);
    }

    #[test]
    fn after_its_a_lower_case_word_says_what_it_is_like() {
        for text in [
            "If you call the tool by accident, it's best just to send an empty query.",
            "its fine to wait",
        ] {
            assert_eq!(names(text), Vec::<String>::new(), "{text}");
        }
        assert_eq!(names("Hi, it's Anna Schmidt."), vec!["Anna Schmidt"]);
        assert!(
            !names("its felizitas btw").is_empty(),
            "a given name after its"
        );
    }

    #[test]
    fn the_parties_of_a_contract_are_form_labels() {
        assert_eq!(
            names("Verkäufer: Ayten Kaya, Gartenweg 4, 12345 Berlin"),
            vec!["Ayten Kaya"]
        );
        assert_eq!(names("Käuferin: Sezen Duran"), vec!["Sezen Duran"]);
        assert_eq!(names("Auftraggeber: Jonas Brandt"), vec!["Jonas Brandt"]);
    }

    #[test]
    fn other_anchors_still_hold() {
        assert_eq!(names("Hallo Tobias, wie geht es?"), vec!["Tobias"]);
        assert_eq!(names("Name: Schmidt, Anna"), vec!["Schmidt, Anna"]);
        // After a label, a given name + surname and a comma start a list, not `Surname, Given`:
        // each person is one value, so that each is found again later in the text.
        assert_eq!(
            names("Anwesend: Olga Brenner, Miroslaw-Ottokar, Frau Kessel"),
            vec!["Olga Brenner", "Miroslaw-Ottokar", "Kessel"]
        );
        assert_eq!(names("Mein Name ist Jonas Weber."), vec!["Jonas Weber"]);
        assert_eq!(
            names("Meine Kollegin Małgorzata Kowalska wohnt dort."),
            vec!["Małgorzata Kowalska"]
        );
        // A role before a plain noun phrase names nobody.
        assert_eq!(
            names("Der Kanzler Besuch Termin war kurz."),
            Vec::<String>::new()
        );
    }
}
