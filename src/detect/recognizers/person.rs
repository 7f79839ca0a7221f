//! PERSON (entities.md §2) without a model: anchors (salutations, titles, greetings,
//! self-introductions, form labels, signatures, verbs of saying, role nouns), gazetteers of
//! first and last names, the shape of a name sequence, and a second pass that finds repeated
//! mentions of names already found. Common words that are also names (`Koch`, `Wolf`) need an
//! anchor or a given name.

use super::cand;
use crate::detect::lexicon::{class, Lexicon};
use crate::detect::text::Lexed;
use crate::detect::words::{Shape, Word};
use crate::detect::{Candidate, EntityType, Recognizer, Text};

pub(crate) const SALUTATIONS: &[&str] = &[
    "herr",
    "herrn",
    "frau",
    "fräulein",
    "hr",
    "fr",
    "mr",
    "mrs",
    "ms",
    "miss",
    "sir",
    "madame",
    "monsieur",
    "familie",
    "ehepaar",
    "eheleute",
    "dr",
    "prof",
    "professor",
    "professorin",
];
pub(crate) const TITLES: &[&str] = &[
    "dr",
    "prof",
    "med",
    "dent",
    "vet",
    "rer",
    "nat",
    "pol",
    "oec",
    "phil",
    "jur",
    "dipl",
    "ing",
    "kfm",
    "psych",
    "mag",
    "habil",
    "pd",
    "h",
    "c",
    "ra",
    "stb",
    "professor",
    "professorin",
    "doktor",
];
pub(crate) const GREETINGS: &[&str] = &[
    "hallo", "hi", "hey", "liebe", "lieber", "liebes", "dear", "moin", "servus", "hello", "grüezi",
    "salut", "ciao", "tag", "morgen", "abend",
];
pub(crate) const LABELS: &[&str] = &[
    "name",
    "vorname",
    "nachname",
    "familienname",
    "geburtsname",
    "ansprechpartner",
    "ansprechpartnerin",
    "kontaktperson",
    "absender",
    "absenderin",
    "empfänger",
    "empfängerin",
    "inhaber",
    "inhaberin",
    "geschäftsführer",
    "geschäftsführerin",
    "verantwortlich",
    "antragsteller",
    "antragstellerin",
    "patient",
    "patientin",
    "mieter",
    "mieterin",
    "vermieter",
    "vermieterin",
    "kläger",
    "klägerin",
    "beklagte",
    "beklagter",
    "zeuge",
    "zeugin",
    "kunde",
    "kundin",
    "mitarbeiter",
    "mitarbeiterin",
    "versicherte",
    "versicherter",
    "bearbeiter",
    "bearbeiterin",
    "sachbearbeiter",
    "sachbearbeiterin",
    "teilnehmer",
    "teilnehmerin",
    "fahrer",
    "fahrerin",
    "halter",
    "halterin",
    "arzt",
    "ärztin",
    "betreuer",
    "betreuerin",
    "kontoinhaber",
    "kontoinhaberin",
    "unterschrift",
    "von",
    "an",
    "from",
    "to",
    "cc",
    "contact",
    "customer",
    "employee",
    "patient",
    "author",
    "autor",
    "autorin",
    "gast",
    "kontakt",
    "vertreter",
    "vertreterin",
    "erziehungsberechtigter",
    "schüler",
    "schülerin",
    "student",
    "studentin",
    "bewerber",
    "bewerberin",
    "ehepartner",
    "ehepartnerin",
    "kind",
    "mutter",
    "vater",
    "applicant",
    "tenant",
    "owner",
    "holder",
    "user",
    "nutzer",
    "benutzer",
    "fullname",
    "full",
    "recipient",
    "sender",
    "assignee",
    "reporter",
    "requester",
    "agent",
    "melder",
    "meldende",
    "ansprechperson",
    "erziehungsberechtigte",
    "erziehungsberechtigter",
    "entschuldigt",
    "anwesend",
    "abwesend",
    "teilnehmende",
    "gäste",
    "person",
    "vertretung",
    "verfasser",
    "verfasserin",
    "unterzeichner",
    "unterzeichnerin",
    "beteiligte",
    "fahrzeughalter",
    "fahrzeughalterin",
    "versicherungsnehmer",
    "versicherungsnehmerin",
    "name des kindes",
];
pub(crate) const SPEECH: &[&str] = &[
    "sagte",
    "sagt",
    "erklärte",
    "erklärt",
    "betonte",
    "betont",
    "meinte",
    "meint",
    "berichtete",
    "berichtet",
    "kritisierte",
    "forderte",
    "warnte",
    "schrieb",
    "fragte",
    "antwortete",
    "ergänzte",
    "bestätigte",
    "kündigte",
    "sagten",
    "erzählte",
    "erzählt",
    "said",
    "says",
    "told",
    "wrote",
    "asked",
    "added",
    "explained",
    "schreibt",
    "fragt",
    "antwortet",
    "ruft",
    "rief",
    "lobte",
    "mahnte",
    "räumte",
    "widersprach",
    "teilte",
    "versicherte",
    "ergänzt",
];
pub(crate) const ROLES: &[&str] = &[
    "kollege",
    "kollegin",
    "chef",
    "chefin",
    "nachbar",
    "nachbarin",
    "sohn",
    "tochter",
    "bruder",
    "schwester",
    "mutter",
    "vater",
    "freund",
    "freundin",
    "mann",
    "ehemann",
    "ehefrau",
    "partner",
    "partnerin",
    "kanzler",
    "kanzlerin",
    "minister",
    "ministerin",
    "präsident",
    "präsidentin",
    "bürgermeister",
    "bürgermeisterin",
    "trainer",
    "trainerin",
    "sprecher",
    "sprecherin",
    "anwalt",
    "anwältin",
    "rechtsanwalt",
    "rechtsanwältin",
    "mandant",
    "mandantin",
    "azubi",
    "lehrer",
    "lehrerin",
    "autorin",
    "sänger",
    "sängerin",
    "schauspieler",
    "schauspielerin",
    "vorsitzende",
    "vorsitzender",
    "ceo",
    "gründer",
    "gründerin",
    "coach",
    "colleague",
    "manager",
    "managerin",
    "leiter",
    "leiterin",
    "teamleiter",
    "teamleiterin",
    "abteilungsleiter",
    "abteilungsleiterin",
    "enkel",
    "enkelin",
    "oma",
    "opa",
    "tante",
    "onkel",
    "cousin",
    "cousine",
    "neffe",
    "nichte",
    "schwager",
    "schwägerin",
    "pfarrer",
    "pastorin",
    "notar",
    "notarin",
    "steuerberater",
    "steuerberaterin",
    "hausarzt",
    "hausärztin",
    "professor",
    "professorin",
    "spieler",
    "spielerin",
    "stürmer",
    "torwart",
    "regisseur",
    "regisseurin",
    "künstler",
    "künstlerin",
    "musiker",
    "musikerin",
    "sohnemann",
    "kumpel",
    "mitbewohner",
    "mitbewohnerin",
    "vermieter",
    "vermieterin",
    "bewerberin",
    "bewerber",
    "praktikant",
    "praktikantin",
    "kunde",
    "kundin",
    "patientin",
    "patient",
    "abgeordnete",
    "abgeordneter",
    "senator",
    "senatorin",
    "landrat",
    "landrätin",
    "ministerpräsident",
    "ministerpräsidentin",
    "bundeskanzler",
    "bundeskanzlerin",
    "dichter",
    "schriftsteller",
    "schriftstellerin",
    "journalist",
    "journalistin",
    "reporterin",
    "moderator",
    "moderatorin",
    "sekretärin",
    "assistentin",
    "assistent",
    "kommissar",
    "kommissarin",
    "richterin",
    "staatsanwalt",
    "staatsanwältin",
    "verteidiger",
    "verteidigerin",
    "zeugin",
];
const CLOSINGS: &[&str] = &[
    "mit freundlichen grüßen",
    "mit freundlichen grüssen",
    "mit freundlichem gruß",
    "mit freundlichem gruss",
    "freundliche grüße",
    "freundliche grüsse",
    "viele grüße",
    "viele grüsse",
    "beste grüße",
    "beste grüsse",
    "herzliche grüße",
    "herzliche grüsse",
    "liebe grüße",
    "liebe grüsse",
    "schöne grüße",
    "grüße",
    "grüsse",
    "gruß",
    "gruss",
    "lg",
    "vg",
    "mfg",
    "best regards",
    "kind regards",
    "regards",
    "best",
    "cheers",
    "thanks",
    "thank you",
    "danke",
    "vielen dank",
    "bis bald",
    "sincerely",
    "yours sincerely",
    "yours truly",
    "herzlichst",
    "ciao",
    "tschüss",
    "bye",
    "grüßle",
    "servus",
    "gez.",
    "warm regards",
    "many thanks",
    "mfg.",
    "beste grüße aus",
    "bis dann",
    "bis später",
    "bis morgen",
    "danke dir",
    "danke euch",
    "liebe grüße aus",
    "viele grüße aus",
    "best wishes",
    "all the best",
    "take care",
];
const LEGAL_FORMS: &[&str] = &[
    "gmbh", "ag", "kg", "ohg", "gbr", "ug", "mbh", "inc", "ltd", "llc", "co", "e.v", "se", "plc",
    "partg", "kgaa", "&",
];
pub(crate) const ORG_BEFORE: &[&str] = &[
    "bäckerei",
    "apotheke",
    "kanzlei",
    "autohaus",
    "firma",
    "hotel",
    "restaurant",
    "café",
    "cafe",
    "stiftung",
    "institut",
    "verlag",
    "bank",
    "klinik",
    "metzgerei",
    "gasthaus",
    "gasthof",
    "brauerei",
    "weingut",
    "modehaus",
    "möbelhaus",
    "schreinerei",
    "elektro",
    "malerbetrieb",
    "friseur",
    "salon",
    "galerie",
    "buchhandlung",
    "pension",
    "reisebüro",
    "hochschule",
    "universität",
    "schule",
    "gymnasium",
    "straße",
    "str",
    "platz",
    "allee",
];
const STREET_AFTER: &[&str] = &[
    "straße",
    "strasse",
    "str",
    "platz",
    "weg",
    "allee",
    "gasse",
    "ring",
    "damm",
    "ufer",
    "chaussee",
    "brücke",
    "park",
    "center",
    "centre",
    "zentrum",
    "halle",
    "arena",
    "stadion",
    "preis",
    "award",
    "stiftung",
    "institut",
    "schule",
    "gymnasium",
    "universität",
    "gmbh",
];
/// Animals: `unser Hund Bruno` names a pet.
pub(crate) const PETS: &[&str] = &[
    "hund",
    "hündin",
    "katze",
    "kater",
    "pferd",
    "hamster",
    "kaninchen",
    "dog",
    "cat",
    "welpe",
];
/// Noun endings that rarely end a surname (`Bescheinigung`, `Freiheit`, `Information`).
const NOUN_SUFFIXES: &[&str] = &[
    "ung", "heit", "keit", "schaft", "tion", "sion", "ität", "nis", "tum", "ment", "ismus", "chen",
    "lein", "anz", "enz", "ur", "ik", "age", "ie",
];

// Keyword classes of the lexicon (lists above, registered in `lexicon::KEYWORD_CLASSES`).
const F_SALUT: u32 = class::SALUTATION;
const F_TITLE: u32 = class::TITLE;
const F_GREET: u32 = class::GREETING;
const F_LABEL: u32 = class::LABEL;
const F_SPEECH: u32 = class::SPEECH;
const F_ROLE: u32 = class::ROLE;
const F_PET: u32 = class::PET;
const F_ORG: u32 = class::ORG_BEFORE;
const F_PARTICLE: u32 = class::PARTICLE;
const F_LEAD: u32 = class::NAME_LEAD;

/// Words a self-introduction or a source runs through before a name (`ich bin`, `mein Name
/// ist`, `laut`, `so`), lowercase: the intro and source anchors below match on these.
pub(crate) const NAME_LEADS: &[&str] = &[
    "ist", "is", "its", "it's", "heiße", "heisse", "heißt", "bin", "am", "i'm", "im", "laut", "so",
];

/// (given name, surname) for a hyphenated word that is not itself in the gazetteers:
/// `Hans-Peter` when every part is a given name, `Schulze-Wiegand` when every part is a name.
fn hyphenated_name(text: &str, lower: &str, shape: Shape, lex: &Lexicon) -> (bool, bool) {
    let mut all_first = true;
    let mut all_names = true;
    for (part, part_lower) in text.split('-').zip(lower.split('-')) {
        let (lower_bits, cased_bits) = lex.classes(part, part_lower);
        let bits = if shape == Shape::Capitalised && part.starts_with(char::is_uppercase) {
            cased_bits
        } else {
            lower_bits
        };
        all_first &= bits & class::FIRST_NAME != 0;
        all_names &= bits & (class::FIRST_NAME | class::LAST_NAME) != 0;
    }
    if all_first {
        (true, false)
    } else {
        (false, all_names)
    }
}

/// One bit per word length (lengths past 127 bytes share the last bit).
fn length_bit(len: usize) -> u128 {
    1u128 << len.min(127)
}

/// Per-word facts, computed once per text.
struct Info {
    /// Lexicon classes of the lowercase form (`F_*` among them).
    flags: u32,
    first: bool,
    last: bool,
    stop: bool,
    common: bool,
    /// Preceded by exactly one space on the same line (so it may continue a name).
    joined: bool,
    /// First word of a sentence or line.
    sentence_start: bool,
    /// Followed directly by `.` (initial or abbreviation).
    dot_after: bool,
}

pub struct PersonRecognizer {
    lex: &'static Lexicon,
    /// Structured data: `"firstName": "Anna"`, `name=Anna Schmidt`.
    field: regex::Regex,
}

impl PersonRecognizer {
    pub fn new() -> Self {
        let field = regex::Regex::new(
            r#"(?i)["']?(?:first_?name|last_?name|full_?name|given_?name|family_?name|sur_?name|vor_?name|nach_?name|contact_?name|customer_?name|display_?name|name)["']?\s*[:=]\s*["']([^"'\n,;{}]{1,60})["']"#,
        )
        .expect("static field pattern");
        let lex = Lexicon::get();
        PersonRecognizer { lex, field }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Capitalised name-shaped words only; surname-shape rules apply.
    Prose,
    /// After a strong anchor: capitalised, all-caps, or lowercase gazetteer names.
    Anchored,
}

struct Ctx<'a> {
    s: &'a str,
    w: &'a [Word],
    info: Vec<Info>,
    /// Lowercase forms and lexicon classes, shared with the other word recognizers.
    lexed: &'a Lexed,
    lex: &'static Lexicon,
}

impl<'a> Ctx<'a> {
    fn new(s: &'a str, w: &'a [Word], lexed: &'a Lexed, lex: &'static Lexicon) -> Ctx<'a> {
        let mut info = Vec::with_capacity(w.len());
        for (i, (word, facts)) in w.iter().zip(lexed.facts()).enumerate() {
            let text = word.text(s);
            let lower = lexed.low(i);
            let names = match word.shape {
                Shape::Capitalised => facts.cased,
                Shape::Lower | Shape::Upper if lower.len() >= 3 => facts.bits,
                _ => 0,
            };
            let (mut first, mut last) = (
                names & class::FIRST_NAME != 0,
                names & class::LAST_NAME != 0,
            );
            if !first && !last && text.contains('-') {
                (first, last) = hyphenated_name(text, lower, word.shape, lex);
            }
            let gap = if i == 0 {
                s.get(..word.start).unwrap_or("")
            } else {
                s.get(w[i - 1].end..word.start).unwrap_or("")
            };
            let joined = i > 0 && (gap == " " || gap == "\u{a0}");
            let prev_char = s[..word.start]
                .trim_end_matches([' ', '\t', '"', '„', '“', '(', '\'', '*', '-'])
                .chars()
                .next_back();
            let sentence_start = prev_char.is_none()
                || matches!(prev_char, Some('.' | '!' | '?' | '\n' | ':' | '>' | '•'))
                || gap.contains('\n');
            let dot_after = s[word.end..].starts_with('.');
            info.push(Info {
                flags: facts.bits,
                stop: facts.bits & class::STOP != 0,
                common: facts.bits & class::COMMON != 0,
                first,
                last,
                joined,
                sentence_start,
                dot_after,
            });
        }
        Ctx {
            s,
            w,
            info,
            lexed,
            lex,
        }
    }

    fn has(&self, i: usize, flag: u32) -> bool {
        self.info.get(i).is_some_and(|f| f.flags & flag != 0)
    }

    /// Lowercase form of word `i`.
    fn low(&self, i: usize) -> &str {
        self.lexed.low(i)
    }

    fn is_initial(&self, i: usize) -> bool {
        let w = &self.w[i];
        w.shape == Shape::Upper
            && w.end - w.start <= 2
            && w.text(self.s).chars().count() == 1
            && self.info[i].dot_after
    }

    fn noun_like(&self, i: usize) -> bool {
        let l = self.low(i);
        l.chars().count() > 4 && NOUN_SUFFIXES.iter().any(|suf| l.ends_with(suf))
    }

    /// Can word `i` be part of a name in `mode`?
    fn name_token(&self, i: usize, mode: Mode) -> bool {
        let (w, f) = (&self.w[i], &self.info[i]);
        if f.stop && !(f.first || f.last) {
            return false;
        }
        if self.has(i, F_TITLE | F_SALUT) {
            return false;
        }
        match w.shape {
            Shape::Capitalised => mode == Mode::Anchored || f.first || f.last || !self.noun_like(i),
            Shape::Upper => mode == Mode::Anchored && (w.end - w.start >= 2 || self.is_initial(i)),
            Shape::Lower => mode == Mode::Anchored && (f.first || f.last),
            Shape::Uncased => true,
            Shape::Other => {
                // McDonald, DiCaprio, LeBron
                let t = w.text(self.s);
                t.starts_with(|c: char| c.is_uppercase())
                    && t.chars().filter(|c| c.is_uppercase()).count() == 2
            }
        }
    }

    /// Extends a name from word `i`: given names, particles, surname; at most 5 words, one line.
    /// Returns the index of the last word.
    fn extend(&self, i: usize, mode: Mode, max: usize) -> Option<usize> {
        if !self.name_token(i, mode) && !self.is_initial(i) {
            return None;
        }
        let mut last = i;
        let mut count = 1;
        let mut j = i + 1;
        while j < self.w.len() && count < max {
            let prev_initial = self.is_initial(j - 1);
            let gap = &self.s[self.w[j - 1].end..self.w[j].start];
            let ok_gap = self.info[j].joined || (prev_initial && (gap == ". " || gap == "."));
            if !ok_gap {
                break;
            }
            if self.w[j - 1].end < self.s.len()
                && self.s[self.w[j - 1].end..].starts_with([',', ';', ':', '!', '?'])
            {
                break;
            }
            let f = &self.info[j];
            if self.has(j, F_PARTICLE) && self.w[j].shape == Shape::Lower {
                // `der`, `den`, `und` only continue a particle (`von der`, `von und zu`):
                // `Paul und Lena` is two people.
                if matches!(self.low(j), "der" | "den" | "und") {
                    break;
                }
                // particle(s) must be followed by a name word
                let mut k = j;
                while k < self.w.len()
                    && self.has(k, F_PARTICLE)
                    && self.w[k].shape == Shape::Lower
                    && self.info[k].joined
                {
                    k += 1;
                }
                if k < self.w.len()
                    && k > j
                    && self.info[k].joined
                    && self.w[k].shape == Shape::Capitalised
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
                && self.w[i].shape == Shape::Lower
                && self.w[j].shape == Shape::Lower
                && !f.stop
                && !f.common
                && self.low(j).chars().count() >= 3;
            if self.is_initial(j) || self.name_token(j, mode) || chat_surname {
                // In prose a lowercase word never continues a capitalised name.
                if self.w[j].shape == Shape::Lower && self.w[i].shape != Shape::Lower {
                    break;
                }
                if self.w[j].shape != Shape::Lower && self.w[i].shape == Shape::Lower {
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
    fn span(&self, i: usize, j: usize) -> (usize, usize) {
        let start = self.w[i].start;
        let mut end = self.w[j].end;
        if self.is_initial(j) {
            end += 1;
        }
        let f = &self.info[j];
        if !(f.first || f.last) && self.low(j).ends_with('s') && self.w[j].end - self.w[j].start > 3
        {
            let base = &self.w[j].text(self.s)[..self.w[j].end - self.w[j].start - 1];
            if self.lex.first.contains(base) || self.lex.last.contains(base) {
                end -= 1;
            }
        }
        (start, end)
    }

    /// Organisation or street right after the span: not a person.
    fn followed_by_org(&self, j: usize) -> bool {
        let rest = self.s[self.w[j].end..].trim_start_matches([' ', '-']);
        let next: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '&')
            .collect::<String>()
            .to_lowercase();
        let next = next.trim_end_matches('.');
        LEGAL_FORMS.contains(&next) || STREET_AFTER.contains(&next) || rest.starts_with('&')
    }

    fn preceded_by_org(&self, i: usize) -> bool {
        i > 0 && self.info[i].joined && self.has(i - 1, F_ORG)
    }

    /// True when the sentence before word `i` (on the same line or the line before) starts with a
    /// lowercase word: the text is chat typed in lower case.
    fn previous_sentence_in_lower_case(&self, i: usize) -> bool {
        let mut k = i;
        while k > 0 {
            k -= 1;
            if self.info[k].sentence_start {
                return self.w[k].shape == Shape::Lower
                    && !self.s[self.w[k].end..self.w[i].start].contains("\n\n");
            }
        }
        false
    }

    /// Skips salutations and titles (`Frau Dr. med.`) starting at `i`; returns the next index.
    fn skip_titles(&self, mut i: usize) -> usize {
        while i < self.w.len()
            && (self.has(i, F_TITLE | F_SALUT)
                || (self.w[i].shape == Shape::Lower
                    && matches!(self.low(i), "med" | "rer" | "nat" | "phil" | "jur" | "dent")))
        {
            i += 1;
        }
        i
    }
}

impl Recognizer for PersonRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Person
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let words = text.words();
        if words.is_empty() {
            return;
        }
        for (base, c) in super::captures_in(&self.field, s, text.field_windows()) {
            if let Some(v) = c.get(1) {
                let v = super::M::new(s, base + v.start(), base + v.end());
                let t = v.as_str();
                if t.chars().any(char::is_alphabetic)
                    && t.chars().all(|x| {
                        x.is_alphabetic()
                            || matches!(x, ' ' | '-' | '.' | '\'' | '\u{300}'..='\u{36f}')
                    })
                {
                    out.push(cand(EntityType::Person, v.start(), v.end(), 0.9, false));
                }
            }
        }
        let cx = Ctx::new(s, words, text.lexed(), self.lex);
        let n = words.len();
        let mut found: Vec<(usize, usize, f32)> = Vec::new(); // word ranges + score
        let push = |found: &mut Vec<(usize, usize, f32)>, i: usize, j: usize, score: f32| {
            found.push((i, j, score));
        };

        // 1. Anchored names.
        for i in 0..n {
            // Every anchor below is one of these classes: most words skip the whole chain.
            if !cx.has(i, F_SALUT | F_GREET | F_LABEL | F_SPEECH | F_ROLE | F_LEAD) {
                continue;
            }
            let l = cx.low(i);
            // Salutation / title: `Frau Dr. Becker`, `Herrn Koch`, `Mr. Smith`.
            if cx.has(i, F_SALUT)
                && (cx.w[i].shape == Shape::Capitalised || cx.w[i].shape == Shape::Lower)
            {
                let k = cx.skip_titles(i + 1);
                if k < n && k > i && !cx.s[cx.w[k - 1].end..cx.w[k].start].contains('\n') {
                    let mode = Mode::Anchored;
                    // `Herr von Bauer`, `Prof. Dr. zu Zahn`: particles lead the surname.
                    let mut k2 = k;
                    while k2 + 1 < n
                        && cx.has(k2, F_PARTICLE)
                        && cx.w[k2].shape == Shape::Lower
                        && cx.info[k2 + 1].joined
                    {
                        k2 += 1;
                    }
                    if k2 > k && cx.w[k2].shape == Shape::Capitalised {
                        if let Some(j) = cx.extend(k2, mode, 3) {
                            push(&mut found, k, j, 0.9);
                        }
                        continue;
                    }
                    if cx.w[k].shape == Shape::Lower && !(cx.info[k].first || cx.info[k].last) {
                        // Chat in lower case: `frag mal herrn meyer-kruschwitz`.
                        let f = &cx.info[k];
                        if cx.w[i].shape == Shape::Lower
                            && !f.stop
                            && !f.common
                            && cx.low(k).chars().count() >= 3
                            && !cx.has(k, F_PARTICLE)
                        {
                            push(&mut found, k, k, 0.8);
                        }
                        continue;
                    }
                    if let Some(mut j) = cx.extend(k, mode, 4) {
                        // `Herrn Kochs Schreiben`: without a given name the span is the surname,
                        // unless the next word is a known name too.
                        if j > k
                            && !cx.info[k].first
                            && !(cx.info[k + 1].last || cx.info[k + 1].first)
                        {
                            j = k;
                        }
                        if !cx.followed_by_org(j) {
                            push(&mut found, k, j, 0.9);
                        }
                    }
                }
                continue;
            }
            // Greeting: `Hallo Anna,`, `Liebe Frau …` handled above, `Guten Tag Herr …`.
            if cx.has(i, F_GREET) && i + 1 < n && cx.info[i + 1].joined {
                let k = i + 1;
                if cx.has(k, F_SALUT) {
                    continue;
                }
                if matches!(l, "tag" | "morgen" | "abend") && !(i > 0 && cx.low(i - 1) == "guten") {
                    continue;
                }
                if let Some(j) = cx.extend(k, Mode::Anchored, 3) {
                    let after = cx.s[cx.w[j].end..].trim_start_matches(' ');
                    let closes =
                        after.is_empty() || after.starts_with([',', '!', '\n', '.', ':', '?']);
                    let gaz = cx.info[k].first || cx.info[k].last;
                    if (closes && cx.w[k].shape != Shape::Lower) || gaz {
                        push(&mut found, k, j, 0.85);
                    }
                }
                continue;
            }
            // Self-introduction.
            let intro = match l {
                "ist" | "is" => i > 0 && matches!(cx.low(i - 1), "name" | "hier" | "this"),
                "its" | "it's" => true,
                "heiße" | "heisse" | "heißt" => true,
                "bin" => i > 0 && cx.low(i - 1) == "ich",
                "am" | "i'm" | "im" => l == "i'm" || (l == "am" && i > 0 && cx.low(i - 1) == "i"),
                _ => false,
            };
            if intro && i + 1 < n && cx.info[i + 1].joined {
                let k = cx.skip_titles(i + 1);
                if k < n {
                    if let Some(j) = cx.extend(k, Mode::Anchored, 4) {
                        let gaz = (i + 1..=j).any(|x| cx.info[x].first || cx.info[x].last);
                        let weak = matches!(l, "bin" | "am" | "i'm" | "im" | "its" | "it's")
                            || (l == "ist" && cx.low(i - 1) == "hier")
                            || (l == "is" && cx.low(i - 1) == "this");
                        if !weak || gaz {
                            push(&mut found, k, j, 0.9);
                        }
                    }
                }
                continue;
            }
            // Form label: `Name: Schmidt, Anna`.
            if cx.has(i, F_LABEL) && s[cx.w[i].end..].starts_with(':') {
                let k = cx.skip_titles(i + 1);
                if k < n && !s[cx.w[i].end..cx.w[k].start].contains('\n') {
                    if let Some(j) = cx.extend(k, Mode::Anchored, 4) {
                        // inverted `Schmidt, Anna`
                        let mut jj = j;
                        if j + 1 < n
                            && s[cx.w[j].end..cx.w[j + 1].start] == *", "
                            && cx.info[j + 1].first
                        {
                            jj = cx.extend(j + 1, Mode::Anchored, 3).unwrap_or(j + 1);
                        }
                        let gaz = (k..=jj).any(|x| cx.info[x].first || cx.info[x].last);
                        let strong_label = !matches!(
                            l,
                            "von"
                                | "an"
                                | "from"
                                | "to"
                                | "cc"
                                | "kontakt"
                                | "contact"
                                | "kind"
                                | "mutter"
                                | "vater"
                                | "user"
                                | "agent"
                        );
                        if (strong_label || gaz) && !cx.followed_by_org(jj) {
                            push(&mut found, k, jj, 0.9);
                        }
                    }
                }
                continue;
            }
            // Verb of saying: `sagte Anna Schmidt`, `laut Müller`.
            if (cx.has(i, F_SPEECH) || l == "laut" || l == "so")
                && i + 1 < n
                && cx.info[i + 1].joined
            {
                let k = cx.skip_titles(i + 1);
                if k < n && cx.w[k].shape == Shape::Capitalised {
                    if let Some(j) = cx.extend(k, Mode::Prose, 4) {
                        let gaz = (k..=j).any(|x| cx.info[x].first || cx.info[x].last);
                        let plain = !cx.info[k].common && !cx.info[k].stop;
                        let needs_gaz = l == "laut" || l == "so";
                        if (gaz || (plain && !needs_gaz)) && !cx.followed_by_org(j) {
                            push(&mut found, k, j, 0.75);
                        }
                    }
                }
                continue;
            }
            // Role noun: `Kollegin Petra`, `Kanzler Scholz`.
            if cx.has(i, F_ROLE)
                && i + 1 < n
                && cx.info[i + 1].joined
                && cx.w[i + 1].shape == Shape::Capitalised
            {
                let k = i + 1;
                if let Some(j) = cx.extend(k, Mode::Prose, 4) {
                    let gaz = (k..=j).any(|x| cx.info[x].first || cx.info[x].last);
                    if gaz && !cx.info[k].stop && !cx.followed_by_org(j) {
                        push(&mut found, k, j, 0.8);
                    }
                }
            }
        }

        // 2. Signatures: a closing line followed by a line that is only a name.
        let mut line_start = 0usize;
        for line in s.split_inclusive('\n') {
            let ls = line_start;
            line_start += line.len();
            let t = line.trim().trim_end_matches([',', '.', '!']).trim();
            if t.len() > 60 || t.is_empty() || !t.starts_with(|c: char| c.is_alphabetic()) {
                continue;
            }
            let tl = t.to_lowercase();
            if t.len() > 60 || t.is_empty() {
                continue;
            }
            let Some(closing) = CLOSINGS.iter().find(|c| {
                tl == **c
                    || tl.strip_suffix(**c).is_some_and(|p| p.ends_with(' '))
                    || tl
                        .strip_prefix(**c)
                        .is_some_and(|r| r.starts_with([' ', ',']))
            }) else {
                continue;
            };
            // Same line: `Viele Grüße, Anna` / `LG Tom`.
            let mut candidates_lines: Vec<(usize, usize)> = Vec::new();
            if tl.starts_with(closing) && tl.len() > closing.len() {
                let off = line.find(|c: char| !c.is_whitespace()).unwrap_or(0)
                    + t.len().min(closing.len());
                candidates_lines.push((ls + off, ls + line.trim_end().len()));
            } else {
                let mut pos = line_start;
                let mut taken = 0;
                for next in s[line_start..].split_inclusive('\n') {
                    let start = pos;
                    pos += next.len();
                    if next.trim().is_empty() {
                        continue;
                    }
                    candidates_lines.push((start, start + next.trim_end().len()));
                    taken += 1;
                    if taken == 2 {
                        break;
                    }
                }
            }
            for (a, b) in candidates_lines.into_iter().take(1) {
                let wi = words.partition_point(|w| w.start < a);
                let wj = words.partition_point(|w| w.start < b);
                if wi >= wj {
                    continue;
                }
                let k = cx.skip_titles(wi);
                // `i. A.` / `i.V.` / `ppa.` / `gez.`
                let mut k = k;
                while k < wj
                    && matches!(cx.low(k), "i" | "a" | "v" | "ppa" | "gez")
                    && cx.w[k].end - cx.w[k].start <= 3
                    && cx.info[k].dot_after
                {
                    k += 1;
                }
                if k >= wj {
                    continue;
                }
                if let Some(j) = cx.extend(k, Mode::Anchored, 4) {
                    // The rest of the line may hold only a title/degree after a comma.
                    let rest = s[cx.w[j].end..b].trim();
                    let clean = rest.is_empty()
                        || rest.starts_with(',')
                        || rest.starts_with('(')
                        || rest.starts_with('|')
                        || rest.starts_with('-');
                    if clean && j < wj && !cx.followed_by_org(j) && !cx.info[k].stop {
                        push(&mut found, k, j, 0.9);
                    }
                }
            }
        }

        // 3. Unanchored names in prose and chat.
        let mut i = 0;
        while i < n {
            let f = &cx.info[i];
            let w = cx.w[i];
            if f.stop && !(f.first && w.shape == Shape::Capitalised && !f.common) {
                i += 1;
                continue;
            }
            match w.shape {
                Shape::Capitalised | Shape::Other => {
                    if f.first && !f.common {
                        // Given name (+ given names) + surname.
                        if let Some(j) = cx.extend(i, Mode::Prose, 5) {
                            if j > i {
                                let sur_ok =
                                    cx.info[j].last || cx.info[j].first || !cx.noun_like(j);
                                if sur_ok && !cx.followed_by_org(j) && !cx.preceded_by_org(i) {
                                    push(&mut found, i, j, 0.85);
                                    i = j + 1;
                                    continue;
                                }
                            } else if !(cx.followed_by_org(i)
                                || cx.preceded_by_org(i)
                                || (i > 0 && cx.has(i - 1, F_PET)))
                            {
                                // A lone given name (not a pet's).
                                let score = if f.last && !f.sentence_start {
                                    0.6
                                } else {
                                    0.55
                                };
                                push(&mut found, i, i, score);
                            }
                        }
                    } else if f.first
                        && f.common
                        && i + 1 < n
                        && cx.info[i + 1].joined
                        && cx.w[i + 1].shape == Shape::Capitalised
                        && (cx.info[i + 1].last && !cx.info[i + 1].common)
                    {
                        // `Frank Becker`, `Mark Twain`: ambiguous given name + known surname.
                        push(&mut found, i, i + 1, 0.75);
                        i += 2;
                        continue;
                    } else if f.last && !f.common && !f.stop {
                        // Inverted `Schmidt, Anna`.
                        if i + 1 < n
                            && s[w.end..cx.w[i + 1].start] == *", "
                            && cx.info[i + 1].first
                            && cx.w[i + 1].shape == Shape::Capitalised
                        {
                            let after = s[cx.w[i + 1].end..].trim_start_matches(' ');
                            if after.is_empty()
                                || after.starts_with(['\n', ';', ')', '.'])
                                || after.starts_with(',')
                            {
                                push(&mut found, i, i + 1, 0.85);
                                i += 2;
                                continue;
                            }
                        }
                        if !cx.followed_by_org(i) && !cx.preceded_by_org(i) {
                            let score = if f.sentence_start { 0.4 } else { 0.5 };
                            push(&mut found, i, i, score);
                        }
                    } else if cx.is_initial(i)
                        && i + 1 < n
                        && cx.w[i + 1].shape == Shape::Capitalised
                        && cx.info[i + 1].last
                        && !cx.info[i + 1].common
                    {
                        let gap = &s[w.end..cx.w[i + 1].start];
                        if gap == ". " || gap == "." {
                            push(&mut found, i, i + 1, 0.8);
                            i += 2;
                            continue;
                        }
                    }
                }
                Shape::Lower => {
                    // Chat: `tobias meier`.
                    if f.first
                        && !f.stop
                        && !f.common
                        && i + 1 < n
                        && cx.info[i + 1].joined
                        && cx.w[i + 1].shape == Shape::Lower
                        && cx.info[i + 1].last
                        && !cx.info[i + 1].stop
                        && !cx.info[i + 1].common
                    {
                        push(&mut found, i, i + 1, 0.8);
                        i += 2;
                        continue;
                    }
                    // Chat in lower case: `… war der zeuge. carmen saß im auto`: a given name
                    // opening a sentence, where sentences start in lower case.
                    if f.first
                        && !f.stop
                        && !f.common
                        && f.sentence_start
                        && cx.low(i).chars().count() >= 4
                        && i + 1 < n
                        && cx.info[i + 1].joined
                        && cx.w[i + 1].shape == Shape::Lower
                        && cx.previous_sentence_in_lower_case(i)
                    {
                        push(&mut found, i, i, 0.6);
                    }
                }
                Shape::Uncased => {
                    // A name in a script without case inside Latin text: `فداء بلقرن`.
                    let mut j = i;
                    while j + 1 < n && cx.w[j + 1].shape == Shape::Uncased && cx.info[j + 1].joined
                    {
                        j += 1;
                    }
                    if j - i < 4 {
                        push(&mut found, i, j, 0.7);
                    }
                    i = j + 1;
                    continue;
                }
                Shape::Upper => {}
            }
            i += 1;
        }

        // Names followed by a verb of saying: `Müller sagte`.
        for i in 0..n.saturating_sub(1) {
            if cx.has(i + 1, F_SPEECH)
                && cx.info[i + 1].joined
                && cx.w[i].shape == Shape::Capitalised
            {
                let f = &cx.info[i];
                let article = i > 0 && cx.info[i - 1].stop && cx.info[i].joined;
                if !f.stop && !f.common && !article && (f.last || f.first) {
                    push(&mut found, i, i, 0.75);
                }
            }
        }

        // 4. Repeated mentions of names found with confidence (surname or given name alone).
        let mut known: Vec<&str> = Vec::new();
        for &(a, b, sc) in &found {
            if sc >= 0.75 {
                for k in a..=b {
                    if cx.w[k].shape != Shape::Lower && !cx.is_initial(k) && !cx.info[k].stop {
                        known.push(cx.w[k].text(s));
                    }
                }
            }
        }
        if !known.is_empty() {
            known.sort_unstable();
            known.dedup();
            // Most words differ in first byte or length from every known name (and its
            // genitive): a bit test per word keeps the search off the hot path.
            let mut lengths = vec![0u128; 256];
            for k in &known {
                let first = k.as_bytes().first().map_or(0, |&b| usize::from(b));
                lengths[first] |= length_bit(k.len()) | length_bit(k.len() + 1);
            }
            for i in 0..n {
                let t = cx.w[i].text(s);
                let first = t.as_bytes().first().map_or(0, |&b| usize::from(b));
                if lengths[first] & length_bit(t.len()) == 0 {
                    continue;
                }
                let base = t
                    .strip_suffix('s')
                    .filter(|b| known.binary_search(b).is_ok());
                if known.binary_search(&t).is_ok() {
                    push(&mut found, i, i, 0.8);
                } else if base.is_some() {
                    let (a, _) = cx.span(i, i);
                    out.push(cand(EntityType::Person, a, cx.w[i].end - 1, 0.8, false));
                }
            }
        }

        for (i, j, score) in found {
            let (a, b) = cx.span(i, j);
            if a < b {
                out.push(cand(EntityType::Person, a, b, score, false));
            }
        }
    }
}
