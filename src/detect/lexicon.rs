//! Gazetteers and word lists, compiled into the binary (`data/`, see NOTICE) and loaded once
//! when the [`Detector`](super::Detector) is built.

use ahash::AHashSet as HashSet;
use std::sync::OnceLock;

static FIRST_NAMES: &str = include_str!("../../data/first_names.txt");
static LAST_NAMES: &str = include_str!("../../data/last_names.txt");
static PLACES_DACH: &str = include_str!("../../data/places_dach.txt");
static TOWNS_DACH: &str = include_str!("../../data/towns_dach.txt");
static PLACES_WORLD: &str = include_str!("../../data/places_world.txt");
static KFZ_CODES: &str = include_str!("../../data/kfz_codes.txt");

/// Capitalised words that are also names but mostly ordinary German (or English) words: never a
/// PERSON or LOCATION on their own, only with an anchor (title, given name, form label …).
const COMMON_WORDS: &[&str] = &[
    // surnames that are nouns or adjectives
    "koch", "bauer", "richter", "schmied", "müller", "fischer", "schneider", "weber", "becker",
    "wagner", "zimmermann", "schuster", "jäger", "kaiser", "könig", "graf", "wolf", "fuchs", "hahn",
    "vogel", "engel", "klein", "groß", "gross", "lang", "lange", "jung", "braun", "schwarz", "weiß",
    "weiss", "roth", "rot", "winter", "sommer", "stein", "busch", "horn", "keller", "sauer",
    "frank", "ernst", "kraus", "krause", "meister", "schreiber", "schreiner", "maurer", "gärtner",
    "glaser", "förster", "kellner", "fleischer", "metzger", "bäcker", "pfeffer", "salz", "zucker",
    "bach", "berg", "baum", "wald", "feld", "brand", "strand", "stern", "sturm", "frost", "regen",
    "herbst", "mai", "kuhn", "fink", "adler", "bär", "hirsch", "krebs", "hase", "wurm", "käfer",
    "kopf", "hammer", "nagel", "ring", "bock", "kamp", "dorn", "rose", "lilie", "linde", "kranz",
    "mann", "herr", "frau", "kind", "bruder", "prinz", "herzog", "fürst", "bischof", "pastor",
    "probst", "vogt", "held", "gut", "frei", "reich", "stolz", "kühn", "fromm", "still", "hell",
    "dunkel", "link", "links", "recht", "rechts", "gast", "schüler", "bürger", "römer", "schweizer",
    "wiener", "zimmer", "post", "kraft", "glück", "heim", "haus", "hof", "mühle", "steuer",
    "kummer", "scherz", "schmuck", "stock", "zahn", "huhn", "pilz", "grau", "grün", "grüner",
    "weise", "böse", "lieb", "schön", "schöne", "neu", "alt", "kern", "kunz", "mark", "will",
    "kai", "heide", "hans", "august", "grant", "art", "may", "june", "april", "hope", "faith",
    "joy", "grace", "summer", "dawn", "guy", "bill", "rich", "chase", "hunter", "page", "king",
    "young", "green", "white", "black", "brown", "hill", "wood", "rock", "house", "hall", "park",
    "lane", "ball", "bass", "power", "story", "major", "lord", "pope", "cook", "west", "north",
    "real", "villa", "silk", "ware", "wade", "sky", "star", "server", "single", "online", "london",
    "paris", "madrid", "houston", "sydney", "washington", "holland", "jordan", "lima", "palma",
    "monaco", "toledo", "valencia", "montenegro", "jesus", "amor", "corona", "kohl", "salami",
    "döner", "sole", "flor", "beste", "senn", "lage", "aus", "einer", "eimer", "sepp", "made",
    "mate", "ale", "job", "lot", "per", "van", "don", "ion", "gun", "tor", "kick", "jet", "uno",
    "my", "li", "pi", "ho", "mir", "kos", "pol", "pop", "mur", "rus", "wu", "cross", "fall",
    "wall", "wild", "list", "gras", "garde", "masse", "real", "moll", "mohr", "masse", "fee",
    "fleck", "grill", "raid", "rand", "rauch", "reif", "rinne", "schacht", "schatz", "schenk",
    "scheibe", "schiefer", "staub", "stange", "steiger", "stecher", "trupp", "tauber", "volk",
    "wende", "wicht", "zeller", "ziegler", "bloch", "doppler", "falkner", "kopp", "leber",
    "mangel", "mandel", "nord", "pfleger", "quartier", "reiter", "ritter", "sattler", "schäfer",
    "schlosser", "seiler", "tischler", "trommler", "wimmer", "zobel", "knecht", "knappe", "macher",
    "hacker", "killer", "farmer", "butler", "porter", "turner", "walker", "carpenter", "baker",
    "weil", "ende", "sonne", "mond",
];

/// Function words and frequent capitalised nouns that never start or continue a name.
const STOP_WORDS: &[&str] = &[
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "eines", "und",
    "oder", "aber", "doch", "sondern", "denn", "weil", "dass", "daß", "ob", "wenn", "als", "wie",
    "ich", "du", "er", "sie", "es", "wir", "ihr", "mich", "dich", "sich", "uns", "euch", "mir",
    "dir", "ihm", "ihn", "ihnen", "mein", "meine", "meinen", "meinem", "dein", "sein", "seine",
    "unser", "unsere", "euer", "bitte", "danke", "dank", "vielen", "viele", "liebe", "lieber",
    "hallo", "hi", "hey", "herr", "herrn", "frau", "fräulein", "familie", "sehr", "geehrte",
    "geehrter", "guten", "tag", "morgen", "abend", "gruß", "grüße", "grüßen", "grüsse", "grüssen",
    "mit", "von", "vom", "zu", "zum", "zur", "bei", "beim", "für", "an", "am", "auf", "aus", "in",
    "im", "nach", "über", "unter", "vor", "hinter", "neben", "zwischen", "ohne", "gegen", "bis",
    "seit", "ab", "laut", "so", "hier", "da", "dort", "heute", "gestern", "jetzt", "noch", "schon",
    "auch", "nur", "nicht", "kein", "keine", "ja", "nein", "okay", "ok", "gerne", "gern", "was",
    "wer", "wo", "wann", "warum", "welche", "welcher", "dieser", "diese", "dieses", "jeder",
    "jede", "alle", "man", "habe", "hat", "haben", "ist", "sind", "war", "wird", "werden", "kann",
    "können", "soll", "muss", "möchte", "bin", "bist", "the", "and", "or", "of", "to", "for",
    "with", "from", "by", "at", "on", "is", "are", "was", "be", "a", "an", "this", "that",
    "please", "thanks", "thank", "you", "your", "we", "our", "i", "me", "he", "she", "they",
    "dear", "hello", "regards", "best", "kind", "sincerely", "cheers", "mr", "mrs", "ms", "dr",
    "prof", "sir", "name", "vorname", "nachname", "datum", "ort", "straße", "strasse", "str",
    "tel", "telefon", "fax", "mobil", "handy", "email", "e-mail", "mail", "iban", "bic", "konto",
    "adresse", "anschrift", "kundennummer", "rechnung", "vertrag", "betreff", "anlage", "anhang",
    "montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag", "sonnabend",
    "januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september",
    "oktober", "november", "dezember", "jänner", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "january", "february", "march", "july", "october",
    "december", "gmbh", "ag", "kg", "ohg", "gbr", "ug", "mbh", "inc", "ltd", "llc", "co", "se",
    "zeit", "bescheid", "geld", "hilfe", "lust", "angst", "sorge", "sorgen", "infos", "info",
    "unterlagen", "termin", "termine", "nachricht", "feedback", "rückmeldung", "antwort", "frage",
    "fragen", "problem", "probleme", "ärger", "spaß", "freude", "zugang", "daten", "auto",
    "urlaub", "arbeit", "hause", "kinder", "sohn", "tochter", "schule", "geburtstag", "mittag",
    "bescheinigung", "unterschrift", "kunde", "kundin", "team", "support", "service", "kontakt",
    "abteilung", "firma", "büro", "praxis", "kanzlei", "grüezi", "servus", "moin", "tschüss",
    "ciao", "bye", "gute", "besserung", "alles", "liebe", "herzlich", "herzliche", "beste",
    "viel", "erfolg", "neue", "neuer", "neuen", "alte", "alten", "erste", "ersten", "letzte",
    "nächste", "nächsten", "deutsch", "deutsche", "deutschen", "deutschland", "österreich",
    "schweiz", "europa", "eu", "stadt", "land", "kreis", "gemeinde", "bundesland", "straßen",
    "platz", "weg", "allee", "gasse", "ring", "damm", "ufer", "vielleicht", "leider", "eigentlich",
    "natürlich", "bald", "hoffentlich", "wegen", "trotz", "während", "statt", "zwar", "sowie",
    "sowohl", "weder", "entweder", "also", "dann", "damit", "dabei", "dazu", "darüber", "deshalb",
    "daher", "trotzdem", "außerdem", "jedoch", "zudem", "hierzu", "anbei", "beiliegend",
    "ihre", "ihren", "ihrem", "ihrer", "ihres", "sein", "seinem", "seinen", "seiner", "wurde",
    "wurden", "hatte", "hatten", "sagte", "sagt", "meinte", "schrieb", "erklärte", "betonte",
    "uhr", "euro", "eur", "prozent", "nummer", "nr", "id", "pdf", "ticket", "bestellung",
    "lieferung", "paket", "sendung", "status", "update", "version", "login", "passwort", "konto",
    "account", "user", "admin", "system", "server", "host", "client", "app", "web", "website",
    "link", "url", "chat", "hinweis", "achtung", "wichtig", "dringend", "frist", "antrag",
    "bescheid", "steuer", "finanzamt", "krankenkasse", "versicherung", "bank", "sparkasse",
    "wohnung", "miete", "vermieter", "mieter", "nachbar", "nachbarin", "chef", "chefin",
    "kollege", "kollegin", "mutter", "vater", "oma", "opa", "tante", "onkel", "mama", "papa",
    "can", "could", "would", "should", "will", "may", "might", "must", "english", "german",
    "french", "spanish", "italian", "englisch", "französisch", "spanisch", "italienisch",
    "türkisch", "polnisch", "russisch", "person", "personen", "tage", "tagen", "woche", "wochen",
    "monat", "monate", "jahr", "jahre", "team", "hund", "katze", "mitglied", "lehrer", "herzlichen",
    "glückwunsch", "hier", "its", "it's", "hallo", "entschuldigt", "anwesend", "protokoll",
];

/// Surname particles (lowercase, part of the surname).
pub const PARTICLES: &[&str] = &[
    "von", "zu", "vom", "zur", "van", "der", "den", "de", "del", "della", "di", "da", "dos", "ten",
    "ter", "le", "la", "du", "op", "und", "al", "el", "bin", "ibn",
];

/// Towns whose name is also a common German word: only with strong context.
const AMBIGUOUS_TOWNS: &[&str] = &[
    "essen", "halle", "hof", "leer", "weiden", "senden", "wetter", "forst", "aue", "laufen",
    "kamen", "rain", "brand", "stein", "elend", "zug", "bad", "marl", "worms", "buch", "berg",
    "baden", "bergen", "burg", "mitte", "altstadt", "neustadt", "bruck", "bogen", "ems", "wedding",
    "werne", "haren", "lingen", "lage", "hagen", "achim", "stade", "gera", "olpe", "goch",
    "moers", "bühl", "barth", "diez", "wald", "dorf", "au", "mark", "lohne", "lünen", "weil",
    "ahlen", "linden", "uster", "sachsen", "kirchen", "landau", "hausen", "garten", "enge",
    "wolfen", "neuhaus", "alpen", "nord", "süd", "ost", "west", "roth", "bernau", "glück",
];

/// The compiled lexicon.
pub struct Lexicon {
    pub first: HashSet<&'static str>,
    pub last: HashSet<&'static str>,
    pub first_lower: HashSet<String>,
    pub last_lower: HashSet<String>,
    pub places: HashSet<&'static str>,
    pub towns: HashSet<&'static str>,
    pub towns_lower: HashSet<String>,
    pub kfz: HashSet<&'static str>,
    pub common: HashSet<&'static str>,
    pub stop: HashSet<&'static str>,
    pub ambiguous_towns: HashSet<&'static str>,
}

fn lines(data: &'static str) -> impl Iterator<Item = &'static str> {
    data.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

impl Lexicon {
    fn build() -> Lexicon {
        let first: HashSet<&'static str> = lines(FIRST_NAMES).collect();
        let last: HashSet<&'static str> = lines(LAST_NAMES).collect();
        let first_lower = first.iter().map(|s| s.to_lowercase()).collect();
        let last_lower = last.iter().map(|s| s.to_lowercase()).collect();
        let mut towns: HashSet<&'static str> = lines(TOWNS_DACH).collect();
        towns.extend(lines(PLACES_WORLD));
        let towns_lower = towns.iter().map(|s| s.to_lowercase()).collect();
        let mut places: HashSet<&'static str> = lines(PLACES_DACH).collect();
        places.extend(towns.iter().copied());
        Lexicon {
            first,
            last,
            first_lower,
            last_lower,
            places,
            towns,
            towns_lower,
            kfz: lines(KFZ_CODES).collect(),
            common: COMMON_WORDS.iter().copied().collect(),
            stop: STOP_WORDS.iter().copied().collect(),
            ambiguous_towns: AMBIGUOUS_TOWNS.iter().copied().collect(),
        }
    }

    /// The process-wide lexicon, built on first use (at [`Detector::new`](super::Detector::new)).
    pub fn get() -> &'static Lexicon {
        static LEXICON: OnceLock<Lexicon> = OnceLock::new();
        LEXICON.get_or_init(Lexicon::build)
    }

    /// `word` (any case) lowercased into `buf` when short; `None` for long words.
    pub fn lower<'b>(word: &str, buf: &'b mut String) -> &'b str {
        buf.clear();
        for c in word.chars() {
            buf.extend(c.to_lowercase());
        }
        buf.as_str()
    }

    pub fn is_stop(&self, lower: &str) -> bool {
        self.stop.contains(lower)
    }

    pub fn is_common(&self, lower: &str) -> bool {
        self.common.contains(lower)
    }

    pub fn is_particle(lower: &str) -> bool {
        PARTICLES.contains(&lower)
    }
}
