//! Gazetteers and word lists, compiled into the binary (`data/`, see NOTICE) and loaded once
//! when the [`Detector`](super::Detector) is built.

use ahash::{AHashMap, AHashSet as HashSet};
use std::collections::HashMap;
use std::sync::OnceLock;

static FIRST_NAMES: &str = include_str!("../data/first_names.txt");
static LAST_NAMES: &str = include_str!("../data/last_names.txt");
static PLACES_DACH: &str = include_str!("../data/places_dach.txt");
static TOWNS_DACH: &str = include_str!("../data/towns_dach.txt");
static PLACES_WORLD: &str = include_str!("../data/places_world.txt");
static KFZ_CODES: &str = include_str!("../data/kfz_codes.txt");
static ENGLISH_WORDS: &str = include_str!("../data/english_words.tsv");

/// Every keyword list of the detector, one data file each under `data/lexicon/` (one entry a
/// line, `#` starts a comment line). Recognizers read their lists from [`Lexicon::lists`] and
/// hold none in code.
macro_rules! word_lists {
    ($($field:ident,)*) => {
        /// The keyword lists, each in the order of its file.
        pub struct Lists {
            $(pub $field: Vec<&'static str>,)*
        }

        impl Lists {
            fn load() -> Lists {
                Lists {
                    $($field: lines(include_str!(concat!(
                        "../data/lexicon/",
                        stringify!($field),
                        ".txt"
                    )))
                    .collect(),)*
                }
            }

            /// `(file stem, entries)` of every list.
            #[cfg(test)]
            fn all(&self) -> Vec<(&'static str, &[&'static str])> {
                vec![$((stringify!($field), &self.$field[..]),)*]
            }
        }
    };
}

word_lists! {
    // Name classes (see [`class`]).
    common_words,
    stop_words,
    common_stop_words,
    particles,
    name_prefixes,
    particle_links,
    determiners,
    conjunctions,
    ambiguous_towns,
    // PERSON anchors and vetoes.
    salutations,
    plural_salutations,
    titles,
    greetings,
    labels,
    weak_labels,
    speech_verbs,
    roles,
    closings,
    legal_forms,
    org_before,
    name_not_before,
    pets,
    products,
    typefaces,
    tool_names,
    saint_words,
    value_labels,
    noun_suffixes,
    name_leads,
    person_field_keys,
    // LOCATION.
    location_context_strong,
    location_context_weak,
    location_context_negative,
    location_field_keys,
    street_stop,
    number_units,
    prep_street_stop,
    after_number_stop,
    org_words,
    org_after,
    street_suffixes,
    weak_street_suffixes,
    street_words,
    street_prepositions,
    street_name_leads,
    english_street_types,
    us_states,
    country_prefixes,
    postcode_not_after,
    town_prepositions,
    verb_markers,
    place_prepositions,
    ambiguous_town_idioms,
    town_labels,
    town_context_strong,
    // Example values in instructions (examples.rs).
    example_markers,
    // Code is not prose (code/).
    code_keywords,
    code_shell_keywords,
    code_secret_labels,
    code_userinfo_options,
    example_domains,
    // Context words of the other types (docs/entities.md §1.5).
    kvnr_context_strong,
    kvnr_context_weak,
    kvnr_context_negative,
    steuernummer_context_strong,
    steuernummer_context_weak,
    steuernummer_context_negative,
    sv_nummer_context_strong,
    sv_nummer_context_weak,
    sv_nummer_context_negative,
    us_ssn_context_strong,
    us_ssn_context_weak,
    us_ssn_context_negative,
    ust_id_context_strong,
    ust_id_context_weak,
    ust_id_context_negative,
    date_context_strong,
    date_context_weak,
    date_context_negative,
    date_amount_context_negative,
    phone_context_strong,
    phone_context_weak,
    phone_context_negative,
    email_context_strong,
    email_context_weak,
    ip_context_strong,
    ip_context_weak,
    ip_context_negative,
    steuer_id_context_strong,
    steuer_id_context_weak,
    steuer_id_context_negative,
    ausweis_context_strong,
    ausweis_context_weak,
    ausweis_context_negative,
    credit_card_context_strong,
    credit_card_context_weak,
    credit_card_context_negative,
    iban_context_strong,
    iban_context_weak,
    iban_context_negative,
    kfz_context_strong,
    kfz_context_weak,
    kfz_context_negative,
    // Keyword lists of single recognizers.
    email_role_locals,
    email_file_extensions,
    ip_version_words,
    kfz_wordlike_codes,
    secret_password_words,
    secret_token_words,
    secret_placeholders,
    secret_password_verbs,
    url_personal_parts,
    url_bare_tlds,
}

/// Classes of a word form, one bit each, so that a word's classes come with one lookup
/// ([`Lexicon::classes`]). Gazetteer classes hold for the lowercase form and, separately, for
/// the exact spellings of the gazetteers; keyword classes are lowercase.
pub mod class {
    pub const FIRST_NAME: u32 = 1;
    pub const LAST_NAME: u32 = 1 << 1;
    /// A town (DACH towns and world places), not every DACH place name.
    pub const TOWN: u32 = 1 << 2;
    pub const STOP: u32 = 1 << 3;
    pub const COMMON: u32 = 1 << 4;
    pub const AMBIGUOUS_TOWN: u32 = 1 << 5;
    pub const PARTICLE: u32 = 1 << 6;
    /// Words after which a name may follow (`ist`, `heiße`, `laut`, …; PERSON's anchors).
    pub const NAME_LEAD: u32 = 1 << 7;
    /// Keyword classes ([`super::Lists`], merged into the form table by [`super::Lexicon`]).
    pub const SALUTATION: u32 = 1 << 8;
    pub const TITLE: u32 = 1 << 9;
    pub const GREETING: u32 = 1 << 10;
    pub const LABEL: u32 = 1 << 11;
    pub const SPEECH: u32 = 1 << 12;
    pub const ROLE: u32 = 1 << 13;
    pub const PET: u32 = 1 << 14;
    pub const ORG_BEFORE: u32 = 1 << 15;
    /// Lowercase prefixes of hyphenated surnames (`al-Farsi`).
    pub const NAME_PREFIX: u32 = 1 << 16;
    /// Articles and determiners (`die`, `im`, `the`).
    pub const DETERMINER: u32 = 1 << 17;
    /// Conjunctions between two nouns (`und`, `oder`).
    pub const CONJUNCTION: u32 = 1 << 18;
    /// Particles that only continue another particle (`der` in `von der`).
    pub const PARTICLE_LINK: u32 = 1 << 19;
    /// A common English word (`data/english_words.tsv`: Zipf frequency 2.8 or more).
    pub const ENGLISH: u32 = 1 << 20;
    /// A frequent English word much rarer in German (`the`, `when`, `you`): tells English text.
    pub const ENGLISH_MARKER: u32 = 1 << 21;
    /// A software product, AI model or tool name (`Claude`, `Grep`).
    pub const PRODUCT: u32 = 1 << 22;
    /// The label of a personal value (`Steuer-ID`, `IBAN`): never a value itself.
    pub const VALUE_LABEL: u32 = 1 << 23;
}

/// English Zipf frequency (times ten) from which a word marks English text, if it is also
/// [`ENGLISH_MARKER_LEAD`] more frequent in English than in German.
const ENGLISH_MARKER_MIN: u16 = 40;
const ENGLISH_MARKER_LEAD: u16 = 15;

/// Where a form's classes live in the packed table value: the lowercase form's classes in the
/// low 24 bits, the gazetteer classes of its title-case spelling (`Müller` for `müller`) above
/// them, and a flag for forms that the gazetteers also spell otherwise (`McDonald`,
/// `Hans-Peter`).
const CASED_SHIFT: u32 = 24;
const GAZETTEER: u32 = class::FIRST_NAME | class::LAST_NAME | class::TOWN;
const IRREGULAR: u32 = 1 << 31;
const FORM_BITS: u32 = (1 << CASED_SHIFT) - 1;

/// The fixed hash of a lowercase form: the table stores 64-bit hashes, not strings, so that a
/// lookup touches one small entry and no string (a collision among the ~70,000 forms and a
/// word has a probability of about 10^-14 per word).
fn form_hash(lower: &str) -> u64 {
    word_hash(lower)
}

/// Fixed 64-bit hash of a word form. The lexicon keys its form table by it, and the name
/// tagger keys its word tables and its word features by it (`tagger::tables`), so a lowercase
/// form is hashed once per word ([`WordFacts`](super::text::WordFacts) keeps it) and the tagger
/// reuses the hash. The seed is part of the shipped tagger weights: do not change it.
pub(crate) fn word_hash(word: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x5461_6767_6572_2121).hash_one(word)
}

/// The form table: keys are already hashes ([`form_hash`]), so the map uses them as they are.
type FormTable = HashMap<u64, u32, nohash_hasher::BuildNoHashHasher<u64>>;

/// English and German word frequencies keyed like [`FormTable`].
type FreqTable = HashMap<u64, (u16, u16), nohash_hasher::BuildNoHashHasher<u64>>;

/// True when `word` is `lower` with its first letter capitalised (`Müller`/`müller`).
fn is_title_case(word: &str, lower: &str) -> bool {
    if let (Some(&w0), Some(&l0)) = (word.as_bytes().first(), lower.as_bytes().first()) {
        if w0.is_ascii() && l0.is_ascii() {
            return w0 == l0.to_ascii_uppercase() && word.get(1..) == lower.get(1..);
        }
    }
    let mut w = word.chars();
    let mut l = lower.chars();
    match (w.next(), l.next()) {
        (Some(wc), Some(lc)) => {
            let mut upper = lc.to_uppercase();
            upper.next() == Some(wc) && upper.next().is_none() && w.as_str() == l.as_str()
        }
        _ => false,
    }
}

/// The compiled lexicon.
pub struct Lexicon {
    pub first: HashSet<&'static str>,
    pub last: HashSet<&'static str>,
    pub places: HashSet<&'static str>,
    pub towns: HashSet<&'static str>,
    pub kfz: HashSet<&'static str>,
    /// Every word form above: hash of the lowercase form → packed classes (see [`CASED_SHIFT`]).
    forms: FormTable,
    /// Gazetteer spellings that are not the title case of their form, with their classes.
    irregular: AHashMap<&'static str, u32>,
    /// English and German Zipf frequencies (times ten) of the common English words, by
    /// [`form_hash`].
    english: FreqTable,
    /// The keyword lists (`data/lexicon/`).
    pub lists: Lists,
}

fn lines(data: &'static str) -> impl Iterator<Item = &'static str> {
    data.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        // `\#` is an entry starting with `#` (`Ticket #`), not a comment.
        .map(|l| l.strip_prefix('\\').unwrap_or(l))
}

/// Reads `data/english_words.tsv` (`word<TAB>en<TAB>de`, Zipf frequencies times ten): every
/// word gets [`class::ENGLISH`], the ones that tell English from German also
/// [`class::ENGLISH_MARKER`]; returns the English and German frequencies.
fn english_words(forms: &mut FormTable) -> FreqTable {
    let mut freq = FreqTable::with_capacity_and_hasher(32 * 1024, Default::default());
    for line in lines(ENGLISH_WORDS) {
        let mut cols = line.split('\t');
        let (Some(word), Some(en), Some(de)) = (cols.next(), cols.next(), cols.next()) else {
            continue;
        };
        let (Ok(en), Ok(de)) = (en.parse::<u16>(), de.parse::<u16>()) else {
            continue;
        };
        let h = form_hash(word);
        let mut bits = class::ENGLISH;
        if en >= ENGLISH_MARKER_MIN && en >= de + ENGLISH_MARKER_LEAD {
            bits |= class::ENGLISH_MARKER;
        }
        *forms.entry(h).or_default() |= bits;
        freq.insert(h, (en, de));
    }
    freq
}

impl Lexicon {
    fn build() -> Lexicon {
        let first: HashSet<&'static str> = lines(FIRST_NAMES).collect();
        let last: HashSet<&'static str> = lines(LAST_NAMES).collect();
        let mut towns: HashSet<&'static str> = lines(TOWNS_DACH).collect();
        towns.extend(lines(PLACES_WORLD));
        let mut places: HashSet<&'static str> = lines(PLACES_DACH).collect();
        places.extend(towns.iter().copied());
        let mut forms = FormTable::with_capacity_and_hasher(96 * 1024, Default::default());
        let mut irregular: AHashMap<&'static str, u32> = AHashMap::new();
        for (set, bit) in [
            (&first, class::FIRST_NAME),
            (&last, class::LAST_NAME),
            (&towns, class::TOWN),
        ] {
            for &spelling in set {
                let lower = spelling.to_lowercase();
                let packed = forms.entry(form_hash(&lower)).or_default();
                *packed |= bit;
                if is_title_case(spelling, &lower) {
                    *packed |= bit << CASED_SHIFT;
                } else {
                    *packed |= IRREGULAR;
                    *irregular.entry(spelling).or_default() |= bit;
                }
            }
        }
        let lists = Lists::load();
        let keyword_classes: [(&[&'static str], u32); 21] = [
            (&lists.products, class::PRODUCT),
            (&lists.typefaces, class::PRODUCT),
            (&lists.tool_names, class::PRODUCT),
            (&lists.value_labels, class::VALUE_LABEL),
            (&lists.salutations, class::SALUTATION),
            (&lists.titles, class::TITLE),
            (&lists.greetings, class::GREETING),
            (&lists.labels, class::LABEL),
            (&lists.speech_verbs, class::SPEECH),
            (&lists.roles, class::ROLE),
            (&lists.pets, class::PET),
            (&lists.org_before, class::ORG_BEFORE),
            (&lists.particles, class::PARTICLE),
            (&lists.name_leads, class::NAME_LEAD),
            (&lists.stop_words, class::STOP),
            (&lists.common_words, class::COMMON),
            (&lists.ambiguous_towns, class::AMBIGUOUS_TOWN),
            (&lists.name_prefixes, class::NAME_PREFIX),
            (&lists.determiners, class::DETERMINER),
            (&lists.conjunctions, class::CONJUNCTION),
            (&lists.particle_links, class::PARTICLE_LINK),
        ];
        for (list, bit) in keyword_classes {
            for &word in list {
                *forms.entry(form_hash(word)).or_default() |= bit;
            }
        }
        // Both classes from one list, so that no word needs to be in two lists.
        for &word in &lists.common_stop_words {
            *forms.entry(form_hash(word)).or_default() |= class::STOP | class::COMMON;
        }
        let english = english_words(&mut forms);
        Lexicon {
            first,
            last,
            places,
            towns,
            kfz: lines(KFZ_CODES).collect(),
            forms,
            irregular,
            english,
            lists,
        }
    }

    /// English Zipf frequency times ten of the lowercase form with hash `lower_hash` (0 when
    /// it is no common English word).
    pub fn english_zipf(&self, lower_hash: u64) -> u16 {
        self.english.get(&lower_hash).map_or(0, |&(en, _)| en)
    }

    /// How much more frequent (Zipf times ten) the common English word with hash `lower_hash`
    /// is in English than in German (0 when it is not, or is no common English word).
    pub fn english_lead(&self, lower_hash: u64) -> u16 {
        self.english
            .get(&lower_hash)
            .map_or(0, |&(en, de)| en.saturating_sub(de))
    }

    /// The process-wide lexicon, built on first use (at [`Detector::new`](super::Detector::new)).
    pub fn get() -> &'static Lexicon {
        static LEXICON: OnceLock<Lexicon> = OnceLock::new();
        LEXICON.get_or_init(Lexicon::build)
    }

    /// Classes of a word: `(of its lowercase form, of its exact spelling)`, `lower` being
    /// `word` lowercased. One hash lookup; the spelling's classes come from the title-case bits
    /// or, for the rare irregular spellings, from a second table.
    pub fn classes(&self, word: &str, lower: &str) -> (u32, u32) {
        self.classes_of_hash(word, lower, form_hash(lower))
    }

    /// [`Lexicon::classes`] when the caller already has `lower`'s [`word_hash`]. Inlined: it
    /// runs once per word of every text.
    #[inline]
    pub fn classes_of_hash(&self, word: &str, lower: &str, lower_hash: u64) -> (u32, u32) {
        let Some(&packed) = self.forms.get(&lower_hash) else {
            return (0, 0);
        };
        let mut cased = 0;
        let title_bits = (packed >> CASED_SHIFT) & GAZETTEER;
        if title_bits != 0 && is_title_case(word, lower) {
            cased = title_bits;
        }
        if packed & IRREGULAR != 0 {
            cased |= self.irregular.get(word).copied().unwrap_or(0);
        }
        (packed & FORM_BITS, cased)
    }

    /// Classes of the lowercase form `lower`.
    pub fn form_bits(&self, lower: &str) -> u32 {
        self.forms
            .get(&form_hash(lower))
            .map_or(0, |&p| p & FORM_BITS)
    }

    pub fn is_stop(&self, lower: &str) -> bool {
        self.form_bits(lower) & class::STOP != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_escaped_hash_is_an_entry_not_a_comment() {
        let l = &Lexicon::get().lists;
        assert!(l.phone_context_negative.contains(&"#"));
        assert!(l
            .all()
            .iter()
            .all(|(_, words)| !words.iter().any(|w| w.starts_with('\\'))));
    }

    #[test]
    fn lists_hold_no_duplicates() {
        let lists = &Lexicon::get().lists;
        for (name, words) in lists.all() {
            assert!(!words.is_empty(), "{name} is empty");
            let mut seen = HashSet::new();
            for w in words {
                assert!(seen.insert(*w), "{name} holds {w:?} twice");
            }
        }
    }

    #[test]
    fn class_lists_are_disjoint() {
        // A word in two of them would carry a class by accident; the words that need both
        // classes live in `common_stop_words` alone.
        let l = &Lexicon::get().lists;
        let lists = [
            ("common_words", &l.common_words),
            ("stop_words", &l.stop_words),
            ("common_stop_words", &l.common_stop_words),
        ];
        let mut owner: AHashMap<&str, &str> = AHashMap::new();
        for (name, words) in lists {
            for &w in words.iter() {
                if let Some(other) = owner.insert(w, name) {
                    panic!("{w:?} is in {other} and in {name}");
                }
            }
        }
    }

    #[test]
    fn common_stop_words_carry_both_classes() {
        let lex = Lexicon::get();
        for w in ["juni", "herr", "may"] {
            let bits = lex.form_bits(w);
            assert_ne!(bits & class::STOP, 0, "{w}");
            assert_ne!(bits & class::COMMON, 0, "{w}");
        }
        assert_eq!(lex.form_bits("und") & class::COMMON, 0);
        assert_eq!(lex.form_bits("koch") & class::STOP, 0);
    }

    #[test]
    fn lists_meant_to_extend_the_stop_words_do_not_repeat_them() {
        let lists = &Lexicon::get().lists;
        let stop: HashSet<&str> = lists
            .stop_words
            .iter()
            .chain(&lists.common_stop_words)
            .copied()
            .collect();
        for (name, words) in [
            ("prep_street_stop", &lists.prep_street_stop),
            ("after_number_stop", &lists.after_number_stop),
        ] {
            for w in words {
                assert!(!stop.contains(w), "{name}: {w:?} is a stop word already");
            }
        }
    }

    #[test]
    fn place_prepositions_are_town_prepositions() {
        // The tagger's places need a stricter lead than the gazetteer towns, never another one.
        let l = &Lexicon::get().lists;
        for w in &l.place_prepositions {
            assert!(
                l.town_prepositions.contains(w),
                "{w:?} is no town preposition"
            );
        }
    }

    #[test]
    fn keyword_lists_are_lowercase() {
        let l = &Lexicon::get().lists;
        for (name, words) in [
            ("common_words", &l.common_words),
            ("stop_words", &l.stop_words),
            ("common_stop_words", &l.common_stop_words),
            ("particles", &l.particles),
            ("name_prefixes", &l.name_prefixes),
            ("determiners", &l.determiners),
            ("conjunctions", &l.conjunctions),
            ("particle_links", &l.particle_links),
            ("roles", &l.roles),
            ("salutations", &l.salutations),
            ("plural_salutations", &l.plural_salutations),
            ("titles", &l.titles),
            ("labels", &l.labels),
            ("products", &l.products),
            ("typefaces", &l.typefaces),
            ("tool_names", &l.tool_names),
            ("value_labels", &l.value_labels),
            ("closings", &l.closings),
            ("town_prepositions", &l.town_prepositions),
            ("place_prepositions", &l.place_prepositions),
            ("email_role_locals", &l.email_role_locals),
            ("email_file_extensions", &l.email_file_extensions),
            ("ip_version_words", &l.ip_version_words),
            ("secret_password_words", &l.secret_password_words),
            ("secret_token_words", &l.secret_token_words),
            ("url_personal_parts", &l.url_personal_parts),
            ("url_bare_tlds", &l.url_bare_tlds),
            ("example_markers", &l.example_markers),
            ("code_keywords", &l.code_keywords),
            ("code_shell_keywords", &l.code_shell_keywords),
            ("code_secret_labels", &l.code_secret_labels),
            ("code_userinfo_options", &l.code_userinfo_options),
            ("example_domains", &l.example_domains),
        ] {
            for w in words {
                assert_eq!(*w, w.to_lowercase(), "{name}: {w:?} would never match");
            }
        }
    }

    #[test]
    fn recognizer_lists_have_the_shape_their_matchers_expect() {
        let l = &Lexicon::get().lists;
        // KFZ compares them with the plate's capitals as written.
        for w in &l.kfz_wordlike_codes {
            assert_eq!(
                *w,
                w.to_uppercase(),
                "kfz_wordlike_codes: {w:?} would never match"
            );
        }
        // URL compares a TLD's first byte with a lowercased ASCII letter.
        for w in &l.url_bare_tlds {
            assert!(
                w.bytes().all(|b| b.is_ascii_lowercase()),
                "url_bare_tlds: {w:?} is no lowercase ASCII TLD"
            );
        }
    }

    #[test]
    fn title_case_is_first_letter_only() {
        assert!(is_title_case("Müller", "müller"));
        assert!(is_title_case("Ödön", "ödön"));
        assert!(!is_title_case("MÜLLER", "müller"));
        assert!(!is_title_case("müller", "müller"));
        assert!(!is_title_case("McDonald", "mcdonald"));
        assert!(!is_title_case("", ""));
    }

    #[test]
    fn classes_separate_lowercase_forms_from_spellings() {
        let lex = Lexicon::get();
        let (bits, cased) = lex.classes("Müller", "müller");
        assert_ne!(bits & class::LAST_NAME, 0);
        assert_ne!(cased & class::LAST_NAME, 0);
        // The lowercase form is known, but the gazetteer does not spell it so.
        let (bits, cased) = lex.classes("müller", "müller");
        assert_ne!(bits & class::LAST_NAME, 0);
        assert_eq!(cased, 0);
        // Irregular spellings come from the second table.
        assert_ne!(lex.classes("McDonald", "mcdonald").1 & class::LAST_NAME, 0);
        assert_eq!(lex.classes("MacAdOO", "macadoo").1 & class::LAST_NAME, 0);
        assert_ne!(lex.classes("MacAdoo", "macadoo").1 & class::LAST_NAME, 0);
        assert_ne!(lex.classes("Köln", "köln").1 & class::TOWN, 0);
        // Keyword classes are lowercase.
        assert_ne!(lex.classes("Frau", "frau").0 & class::SALUTATION, 0);
        assert_ne!(lex.form_bits("und") & class::STOP, 0);
        assert_eq!(lex.classes("Xqzvbn", "xqzvbn"), (0, 0));
    }
}
