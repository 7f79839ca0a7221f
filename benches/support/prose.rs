//! Generated German prose with a realistic density of personal data (bench input; written for
//! this project, not taken from any corpus).

#[path = "rng.rs"]
mod rng;
pub use rng::Rng;

const FILLER: &[&str] = &[
    "Wir haben die Unterlagen gestern geprüft und melden uns in der kommenden Woche erneut.",
    "Die Lieferung verzögert sich leider, weil der Spediteur zwei Tage Verspätung gemeldet hat.",
    "Bitte beachten Sie, dass die Frist für den Widerspruch vier Wochen beträgt.",
    "Im Anhang finden Sie das ausgefüllte Formular sowie eine Kopie der Rechnung über 1.234,56 €.",
    "Der Termin um 14:30 Uhr passt uns gut, die Besprechung dauert etwa eine Stunde.",
    "Nach dem Update auf Version 2.4.1 startet die Anwendung deutlich schneller als vorher.",
    "Können Sie mir kurz zusammenfassen, welche Schritte als Nächstes nötig sind?",
    "Der Koch in der Kantine hat heute wieder eine sehr gute Suppe gekocht.",
    "Die Heizung in der Wohnung funktioniert seit dem Wochenende nicht mehr richtig.",
    "Unsere Kundennummer lautet 4471-22, die Bestellung ist unter RE-2024-0045 erfasst.",
    "Ich würde mich freuen, wenn wir das Thema bis Ende des Monats abschließen könnten.",
    "Das Meeting wurde auf Donnerstag verschoben, weil mehrere Kolleginnen im Urlaub sind.",
];

const FIRST: &[&str] = &[
    "Anna",
    "Jonas",
    "Lea",
    "Thomas",
    "Sabine",
    "Mehmet",
    "Katarzyna",
    "Lukas",
];
const LAST: &[&str] = &[
    "Schmidt", "Weber", "Yilmaz", "Hoffmann", "Nowak", "Becker", "Lange", "Krüger",
];
const TOWNS: &[&str] = &[
    "Köln", "Leipzig", "München", "Bremen", "Graz", "Zürich", "Kassel",
];
const STREETS: &[&str] = &[
    "Lindenstraße",
    "Am Markt",
    "Bahnhofstr.",
    "Goetheweg",
    "Berliner Allee",
];

fn sentence_with_entity(r: &mut Rng) -> String {
    let (f, l, t, st) = (r.pick(FIRST), r.pick(LAST), r.pick(TOWNS), r.pick(STREETS));
    let n = r.next() % 1000;
    match r.next() % 10 {
        0 => format!(
            "Sehr geehrte Frau {l}, vielen Dank für Ihre Nachricht vom {}.{:02}.2024.",
            1 + n % 28,
            1 + n % 12
        ),
        1 => format!("Mein Name ist {f} {l} und ich wohne in {t}."),
        2 => format!(
            "Sie erreichen mich unter 0171 {:07} oder per E-Mail an {}.{}@example.de.",
            n * 7919 % 10_000_000,
            f.to_lowercase(),
            l.to_lowercase()
        ),
        3 => format!(
            "Die neue Anschrift lautet {st} {}, {:05} {t}.",
            1 + n % 120,
            10000 + n * 37
        ),
        4 => "Bitte überweisen Sie den Betrag auf DE89 3704 0044 0532 0130 00 bis Freitag."
            .to_owned(),
        5 => format!("Laut {f} {l} ist der Antrag bereits beim Finanzamt eingegangen."),
        6 => format!(
            "Das Fahrzeug mit dem Kennzeichen B-AB {} stand vor der Einfahrt.",
            1 + n
        ),
        7 => format!("{f} hat am {}. März 2023 Geburtstag gefeiert.", 1 + n % 28),
        8 => "Meine Steuer-ID ist 86095742719, die Steuernummer 181/815/08155.".to_owned(),
        _ => format!(
            "Der Server 192.168.{}.{} antwortet nicht, siehe https://status.example.de/log.",
            n % 255,
            (n * 3) % 255
        ),
    }
}

/// German prose of exactly `chars` code points, about one entity per 250 characters.
pub fn prose(chars: usize) -> String {
    prose_with(chars, 3)
}

/// German prose of exactly `chars` code points in which every sentence holds values: about one
/// entity per 50 characters, the density of prompts that paste customer correspondence.
#[allow(dead_code)] // the other benches include this file too
pub fn dense_prose(chars: usize) -> String {
    prose_with(chars, 1)
}

/// Prose in which one sentence in `every` holds values; the others are filler.
fn prose_with(chars: usize, every: u64) -> String {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = String::with_capacity(chars * 2);
    let mut count = 0;
    while count < chars {
        let piece = if r.next().is_multiple_of(every) {
            sentence_with_entity(&mut r)
        } else {
            r.pick(FILLER).to_owned()
        };
        count += piece.chars().count() + 1;
        out.push_str(&piece);
        out.push(if r.next().is_multiple_of(6) {
            '\n'
        } else {
            ' '
        });
    }
    out.chars().take(chars).collect()
}

/// Surnames and towns no gazetteer holds, so record columns carry their type to them.
const RARE_LAST: &[&str] = &["Brökelmann", "Trittinski", "Quandtmeyer", "Wendehals"];
const RARE_TOWNS: &[&str] = &["Quappendorf", "Wölkau", "Pritzwalk"];

/// A CSV export of exactly `chars` code points: a German header, then customer rows with
/// names, addresses, phone numbers, birthdays, amounts and status words (issue 16).
pub fn csv(chars: usize) -> String {
    let mut r = Rng(0x2545_F491_4F6C_DD1D);
    let mut out = String::with_capacity(chars * 2);
    out.push_str("kundennr;vorname;nachname;straße;plz;ort;telefon;geburtstag;betrag;status\n");
    let mut id = 10_000;
    while out.chars().count() < chars {
        let n = r.next() % 1000;
        let last = if n.is_multiple_of(4) {
            r.pick(RARE_LAST)
        } else {
            r.pick(LAST)
        };
        let town = if n.is_multiple_of(5) {
            r.pick(RARE_TOWNS)
        } else {
            r.pick(TOWNS)
        };
        out.push_str(&format!(
            "K-{id};{};{last};{} {};{:05};{town};0171 {:07};{:02}.{:02}.19{:02};{}.{:02};{}\n",
            r.pick(FIRST),
            r.pick(STREETS),
            1 + n % 120,
            10000 + n * 37,
            n * 7919 % 10_000_000,
            1 + n % 28,
            1 + n % 12,
            50 + n % 50,
            n % 400,
            n % 100,
            r.pick(&["offen", "bezahlt", "storniert"]),
        ));
        id += 1;
    }
    out.chars().take(chars).collect()
}

/// The load bench's dense 2 KB text: an e-mail address and an IBAN, then about 2000 code points
/// of customer lines that are mostly values (e-mail addresses, phone numbers, street addresses).
#[allow(dead_code)] // the other benches include this file too
pub fn dense(email: &str, iban: &str) -> String {
    let mut text = format!("Kontakt {email}, Konto {iban}.\n");
    let mut i = 0;
    while text.chars().count() < 1950 {
        text.push_str(&format!(
            "Kunde {i}: k{i}.lange@beispiel.de, Tel. 030 5550{i:03}, {} 1{i:02} 123 45.\n",
            ["Ahornweg", "Birkenallee", "Lindenstraße", "Eichenplatz"][i % 4]
        ));
        i += 1;
    }
    text
}
