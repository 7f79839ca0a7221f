//! Name spans: which words may be part of a name, how far a name extends from its first word
//! (given names, particles, hyphenated and several surnames, initials), and the byte span that
//! is reported (genitive `s` left outside). Also the vetoes on a span's neighbours
//! (`Müller GmbH`, `Bäckerei Müller`, `die Kosten`).

use super::facts::{
    Mode, NameContext, F_ORG, F_PARTICLE, F_PARTICLE_LINK, F_ROLE, F_SALUT, F_TITLE,
};
use crate::lexicon::class;
use crate::words::Shape;

/// Longest line (bytes) read as a chat line by [`NameContext::lone_lower_chat_name`].
const CHAT_LINE: usize = 200;

impl NameContext<'_> {
    pub(super) fn is_initial(&self, i: usize) -> bool {
        let w = &self.words[i];
        w.shape == Shape::Upper
            && w.end - w.start <= 2
            && w.text(self.text).chars().count() == 1
            && self.word_info[i].dot_after
    }

    /// `al-Farsi`, `el-Masri`, `ibn-Saud`, `d'Alembert`: a lowercase name prefix joined to a
    /// capitalised name.
    pub(super) fn prefixed_surname(&self, i: usize) -> bool {
        let t = self.words[i].text(self.text);
        let Some(cut) = t.find(['-', '\'', '’']) else {
            return false;
        };
        let (prefix, rest) = (&t[..cut], &t[cut..]);
        let rest = rest.trim_start_matches(['-', '\'', '’']);
        rest.starts_with(char::is_uppercase)
            && rest.chars().skip(1).all(|c| !c.is_uppercase())
            && self.lex.form_bits(prefix) & class::NAME_PREFIX != 0
    }

    /// True when word `i` directly follows an article or determiner (`die Kosten`, `im`):
    /// a lone capitalised word there is a noun, not a name.
    pub(super) fn after_determiner(&self, i: usize) -> bool {
        // After a comma `der`/`die`/`den` open a relative clause: `, den Blair erreichen will`.
        i > 0
            && self.word_info[i].joined
            && self.has(i - 1, class::DETERMINER)
            && !self.text[..self.words[i - 1].start]
                .trim_end()
                .ends_with(',')
    }

    /// True when word `i` is a common noun as written, or a hyphenated compound ending in
    /// one (`Team`, `Support-Team`), per the noun table of `german-nouns`.
    pub(super) fn common_noun(&self, i: usize) -> bool {
        let nouns = crate::tagger::tables::Tables::get();
        let t = self.words[i].text(self.text);
        nouns.is_noun(t)
            || t.rsplit_once('-').is_some_and(|(_, tail)| {
                tail.starts_with(char::is_uppercase) && nouns.is_noun(tail)
            })
    }

    pub(super) fn noun_like(&self, i: usize) -> bool {
        let l = self.low(i);
        l.chars().count() > 4
            && self
                .lex
                .lists
                .noun_suffixes
                .iter()
                .any(|suf| l.ends_with(suf))
    }

    /// Can word `i` be part of a name in `mode`?
    pub(super) fn name_token(&self, i: usize, mode: Mode) -> bool {
        let (w, f) = (&self.words[i], &self.word_info[i]);
        if f.stop && !(f.first || f.last) {
            return false;
        }
        if self.has(i, F_TITLE | F_SALUT) {
            return false;
        }
        // `Herr Präsident`, `Frau Kommissarin`: a role or office is never part of a name.
        if self.has(i, F_ROLE) && !(f.first || f.last) {
            return false;
        }
        match w.shape {
            Shape::Capitalised => mode == Mode::Anchored || f.first || f.last || !self.noun_like(i),
            Shape::Upper => mode == Mode::Anchored && (w.end - w.start >= 2 || self.is_initial(i)),
            Shape::Lower => mode == Mode::Anchored && (f.first || f.last),
            Shape::Uncased => true,
            Shape::Other => {
                // McDonald, DiCaprio, LeBron
                let t = w.text(self.text);
                (t.starts_with(|c: char| c.is_uppercase())
                    && t.chars().filter(|c| c.is_uppercase()).count() == 2)
                    || self.prefixed_surname(i)
            }
        }
    }

    /// Extends a name from word `i`: given names, particles, surname; at most 5 words, one line.
    /// Returns the index of the last word.
    pub(super) fn extend(&self, i: usize, mode: Mode, max: usize) -> Option<usize> {
        if !self.name_token(i, mode) && !self.is_initial(i) {
            return None;
        }
        let mut last = i;
        let mut count = 1;
        let mut j = i + 1;
        while j < self.words.len() && count < max {
            let prev_initial = self.is_initial(j - 1);
            let gap = &self.text[self.words[j - 1].end..self.words[j].start];
            let ok_gap = self.word_info[j].joined || (prev_initial && (gap == ". " || gap == "."));
            if !ok_gap {
                break;
            }
            if self.words[j - 1].end < self.text.len()
                && self.text[self.words[j - 1].end..].starts_with([',', ';', ':', '!', '?'])
            {
                break;
            }
            let f = &self.word_info[j];
            if self.has(j, F_PARTICLE) && self.words[j].shape == Shape::Lower {
                // `der`, `den`, `und` only continue a particle (`von der`, `von und zu`):
                // `Paul und Lena` is two people (`data/lexicon/particle_links.txt`).
                if self.has(j, F_PARTICLE_LINK) {
                    break;
                }
                // particle(s) must be followed by a name word
                let mut k = j;
                while k < self.words.len()
                    && self.has(k, F_PARTICLE)
                    && self.words[k].shape == Shape::Lower
                    && self.word_info[k].joined
                {
                    k += 1;
                }
                if k < self.words.len()
                    && k > j
                    && self.word_info[k].joined
                    && self.words[k].shape == Shape::Capitalised
                    && self.name_token(k, mode)
                {
                    last = k;
                    count += k - j + 1;
                    j = k + 1;
                    continue;
                }
                break;
            }
            let chat_surname = mode == Mode::Anchored
                && j == i + 1
                && self.words[i].shape == Shape::Lower
                && self.words[j].shape == Shape::Lower
                && !f.stop
                && !f.common
                && self.low(j).chars().count() >= 3;
            if self.is_initial(j) || self.name_token(j, mode) || chat_surname {
                // In prose a lowercase word never continues a capitalised name.
                if self.words[j].shape == Shape::Lower && self.words[i].shape != Shape::Lower {
                    break;
                }
                if self.words[j].shape != Shape::Lower && self.words[i].shape == Shape::Lower {
                    break;
                }
                last = j;
                count += 1;
                j += 1;
                continue;
            }
            break;
        }
        // A span must not end on an initial alone unless it is a single initial + dot ... keep.
        Some(last)
    }

    /// Byte span of words `i..=j`, with a trailing genitive `s` left outside (§2.5).
    pub(super) fn span(&self, i: usize, j: usize) -> (usize, usize) {
        let start = self.words[i].start;
        let mut end = self.words[j].end;
        if self.is_initial(j) {
            end += 1;
        }
        let f = &self.word_info[j];
        if !(f.first || f.last)
            && self.low(j).ends_with('s')
            && self.words[j].end - self.words[j].start > 3
        {
            let base =
                &self.words[j].text(self.text)[..self.words[j].end - self.words[j].start - 1];
            if self.lex.first.contains(base) || self.lex.last.contains(base) {
                end -= 1;
            }
        }
        (start, end)
    }

    /// Organisation or street right after the span: not a person.
    pub(super) fn followed_by_org(&self, j: usize) -> bool {
        let rest = self.text[self.words[j].end..].trim_start_matches([' ', '-']);
        let next: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '&')
            .collect::<String>()
            .to_lowercase();
        let next = next.trim_end_matches('.');
        let lists = &self.lex.lists;
        lists.legal_forms.contains(&next)
            || lists.name_not_before.contains(&next)
            || rest.starts_with('&')
    }

    pub(super) fn preceded_by_org(&self, i: usize) -> bool {
        i > 0 && (self.word_info[i].joined && self.has(i - 1, F_ORG) || self.after_saint_word(i))
    }

    /// `St. Maria`, `Sankt Peter`, `Hagia Sophia`: a church, place or school.
    fn after_saint_word(&self, i: usize) -> bool {
        let gap = &self.text[self.words[i - 1].end..self.words[i].start];
        matches!(gap, " " | ". " | " . " | ".")
            && self.lex.lists.saint_words.contains(&self.low(i - 1))
    }

    /// True when the sentence before word `i` (on the same line or the line before) starts with a
    /// lowercase word: the text is chat typed in lower case.
    pub(super) fn previous_sentence_in_lower_case(&self, i: usize) -> bool {
        let mut k = i;
        while k > 0 {
            k -= 1;
            if self.word_info[k].sentence_start {
                return self.words[k].shape == Shape::Lower
                    && !self.text[self.words[k].end..self.words[i].start].contains("\n\n");
            }
        }
        false
    }

    /// True when lower-case word `i`, a listed given name, stands alone inside a chat line typed
    /// in lower case (no capital anywhere on its line, at most [`CHAT_LINE`] bytes), after a
    /// word that is no article and before another word: `kannst du anna bitte zurückrufen`.
    /// Not a noun (`die rose`), and in English text not an English word (`use ruby here`).
    pub(super) fn lone_lower_chat_name(&self, i: usize) -> bool {
        let n = self.words.len();
        if i == 0 || i + 1 >= n || self.low(i).chars().count() < 4 {
            return false;
        }
        let (prev, next) = (&self.word_info[i - 1], &self.word_info[i + 1]);
        let facts = self.lexed.facts();
        // Only the bytes a chat line may hold are read: a longer line is no chat line.
        let b = self.text.as_bytes();
        let from = self.words[i].start.saturating_sub(CHAT_LINE);
        let line_start = match memchr::memrchr(b'\n', &b[from..self.words[i].start]) {
            Some(p) => from + p + 1,
            None if from == 0 => 0,
            None => return false,
        };
        let to = (self.words[i].end + CHAT_LINE).min(b.len());
        let line_end = match memchr::memchr(b'\n', &b[self.words[i].end..to]) {
            Some(p) => self.words[i].end + p,
            None if to == b.len() => to,
            None => return false,
        };
        let Some(line) = self.text.get(line_start..line_end) else {
            return false;
        };
        if !self.word_info[i].joined
            || !next.joined
            || prev.flags & class::DETERMINER != 0
            || self.words[i - 1].shape != Shape::Lower
            || self.words[i + 1].shape != Shape::Lower
            || line.len() > CHAT_LINE
            || line.chars().any(char::is_uppercase)
        {
            return false;
        }
        let title: String = {
            let low = self.low(i);
            let mut c = low.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        };
        let english =
            facts[i].bits & class::ENGLISH != 0 && crate::tagger::english_at(self.words, facts, i);
        !english && !crate::tagger::is_common_noun(&title)
    }

    /// Skips salutations and titles (`Frau Dr. med.`) starting at `i`; returns the next index.
    /// The last chain walked is remembered: every word inside it ends at the same place, so the
    /// phases' ascending calls walk each chain once (walking it from each of its words made
    /// `Dr. Dr. Dr. …` quadratic).
    pub(super) fn skip_titles(&self, i: usize) -> usize {
        let (from, to) = self.last_title_chain.get();
        if from <= i && i <= to {
            return to;
        }
        let mut k = i;
        while k < self.words.len()
            && (self.has(k, F_TITLE | F_SALUT)
                || (self.words[k].shape == Shape::Lower
                    && matches!(self.low(k), "med" | "rer" | "nat" | "phil" | "jur" | "dent")))
        {
            k += 1;
        }
        self.last_title_chain.set((i, k));
        k
    }
}

#[cfg(test)]
mod tests {
    use super::super::names;

    #[test]
    fn a_span_covers_the_whole_name() {
        assert_eq!(
            names("Treffen mit Ahmed al-Farsi und Nguyen Van Minh"),
            vec!["Ahmed al-Farsi", "Nguyen Van Minh"]
        );
        assert_eq!(
            names("Ursula von der Leyen sprach mit Sabine Leutheusser-Schnarrenberger."),
            vec!["Ursula von der Leyen", "Sabine Leutheusser-Schnarrenberger"]
        );
        assert_eq!(
            names("Gestern kam Gabriel García Márquez."),
            vec!["Gabriel García Márquez"]
        );
    }

    #[test]
    fn a_span_stops_at_what_is_not_a_name() {
        // `und` joins two people; a lowercase word ends a name; a prefix needs a capital after it.
        assert_eq!(
            names("Paul Weber und Lena Schmidt"),
            vec!["Paul Weber", "Lena Schmidt"]
        );
        assert_eq!(names("Ahmed al-farsi kam"), vec!["Ahmed"]);
    }
}
