//! Recognizer tests: the VALID / INVALID vectors of entities.md per type, plus German sentences
//! written for these tests.

use tarnkappe_detect::EntityType;

use crate::harness::{detector, found};

/// The whole input (or `expect`) is found as exactly one finding of type `t`.
fn valid(t: EntityType, input: &str, expect: &str) {
    let got = found(input, t);
    assert_eq!(got, vec![expect.to_owned()], "{t} in {input:?}");
}

fn invalid(t: EntityType, input: &str) {
    let got = found(input, t);
    assert!(
        got.is_empty(),
        "{t} must not be found in {input:?}, got {got:?}"
    );
}

#[test]
fn iban_vectors() {
    use EntityType::Iban;
    for v in [
        "DE89 3704 0044 0532 0130 00",
        "DE89370400440532013000",
        "DE02120300000000202051",
        "AT611904300234573201",
        "CH9300762011623852957",
        "GB82WEST12345698765432",
        "NL91ABNA0417164300",
        "FR1420041010050500013M02606",
        "de89 3704 0044 0532 0130 00",
    ] {
        valid(Iban, v, v);
    }
    for v in [
        "DE89370400440532013001",
        "DE8937040044053201300",
        "XX89370400440532013000",
        "DE00370400440532013000",
        "AT611904300234573202",
        "DE98ZZZ09999999999",
    ] {
        invalid(Iban, v);
    }
    valid(
        Iban,
        "Bitte überweisen Sie auf DE89 3704 0044 0532 0130 00.",
        "DE89 3704 0044 0532 0130 00",
    );
}

#[test]
fn credit_card_vectors() {
    use EntityType::CreditCard;
    for v in [
        "4111 1111 1111 1111",
        "4012888888881881",
        "5555 5555 5555 4444",
        "5105-1051-0510-5100",
        "2223 0031 2200 3222",
        "3782 822463 10005",
        "371449635398431",
        "6011 1111 1111 1117",
        "3530 1113 3330 0000",
        "3056 930902 5904",
        "6759 6498 2643 8453",
    ] {
        valid(CreditCard, &format!("Karte: {v}"), v);
    }
    for v in [
        "4111 1111 1111 1112",
        "5555 5555 5555 4440",
        "378282246310006",
        "0000 0000 0000 0000",
        "1234 5678 1234 5678",
        "4111 1111 1111",
        "4111 1111-1111 1111",
    ] {
        invalid(CreditCard, &format!("Karte: {v}"));
    }
}

#[test]
fn steuer_id_vectors() {
    use EntityType::SteuerId;
    for v in [
        "86095742719",
        "86 095 742 719",
        "47036892816",
        "65929970489",
        "57549285017",
        "25768131411",
        "76123948575",
        "52038659144",
    ] {
        valid(SteuerId, &format!("Steuer-ID: {v}"), v);
    }
    for v in [
        "02476291358",
        "86095742718",
        "12345678903",
        "11123456786",
        "11223456785",
        "8609574271",
        "860957427190",
    ] {
        invalid(SteuerId, &format!("Steuer-ID: {v}"));
    }
}

#[test]
fn sv_nummer_vectors() {
    use EntityType::SvNummer;
    for v in [
        "65180539W001",
        "65 180539 W 001",
        "14311239W008",
        "12150485M550",
        "53270790S025",
        "04010100A498",
        "25290204K513",
        "15330764B129",
        "42311299Z509",
        "65180539w001",
    ] {
        valid(SvNummer, &format!("SV-Nummer {v}"), v);
    }
    for v in [
        "65180539W002",
        "12151385M011",
        "121504850012",
        "65180539W00",
    ] {
        invalid(SvNummer, &format!("SV-Nummer {v}"));
    }
}

#[test]
fn steuernummer_vectors() {
    use EntityType::Steuernummer;
    for (input, v) in [
        ("Steuernummer: 181/815/08155", "181/815/08155"),
        ("St.-Nr. 21/815/08150", "21/815/08150"),
        ("Steuernummer 133/8150/8159", "133/8150/8159"),
        ("Steuernummer 013 815 08153", "013 815 08153"),
        ("Steuernummer 93815/08152", "93815/08152"),
        ("Steuer-Nr. 22/815/0815/4", "22/815/0815/4"),
        ("ELSTER: 2893081508152", "2893081508152"),
        ("Steuernummer 9181081508155", "9181081508155"),
    ] {
        valid(Steuernummer, input, v);
    }
    for v in [
        "4151181508156",
        "8181081508155",
        "2581081508155",
        "181/815/0815",
        "18/18/08155",
        "12/05/2023",
        "030/12345678",
    ] {
        invalid(Steuernummer, &format!("Steuernummer {v}"));
    }
}

#[test]
fn phone_vectors() {
    use EntityType::PhoneNumber;
    for v in [
        "+49 30 12345678",
        "+49 (0)30 12345678",
        "0049 89 1234567",
        "030 12345678",
        "(030) 123 456 78",
        "030/12345678",
        "0171 2345678",
        "0151-23456789",
        "089 1234567-18",
        "+43 1 5123456",
        "+41 44 123 45 67",
    ] {
        valid(PhoneNumber, &format!("Rufen Sie mich an: {v}"), v);
    }
    for v in [
        "12.03.2024",
        "1.234,56 €",
        "192.168.0.1",
        "ISBN 978-3-16-148410-0",
        "112",
        "+49",
        "0 30--123456",
    ] {
        invalid(PhoneNumber, &format!("Wert {v} notiert"));
    }
}

#[test]
fn ip_vectors() {
    use EntityType::IpAddress;
    for v in [
        "192.168.0.1",
        "8.8.8.8",
        "10.0.0.255",
        "2001:db8::1",
        "2001:0db8:0000:0000:0000:ff00:0042:8329",
        "::ffff:192.0.2.128",
        "fe80::1%eth0",
    ] {
        valid(IpAddress, &format!("IP-Adresse {v} gesperrt"), v);
    }
    valid(
        IpAddress,
        "Server [2001:db8::1]:8443 antwortet",
        "2001:db8::1",
    );
    for v in [
        "256.1.1.1",
        "192.168.01.1",
        "1.2.3",
        "1.2.3.4.5",
        "2001:db8::1::1",
        "12345::1",
        "2001:db8:g::1",
        "12:30:45",
        "Version 10.0.19041.1",
    ] {
        invalid(IpAddress, &format!("Wert {v} notiert"));
    }
    invalid(
        IpAddress,
        "Nach dem Update auf Version 2.4.1.0 ging nichts mehr.",
    );
}

#[test]
fn email_vectors() {
    use EntityType::EmailAddress;
    for v in [
        "max.mustermann@example.de",
        "Anna-Lena.Mueller@Firma-GmbH.DE",
        "j.doe+newsletter@gmail.com",
        "info@müller-bäckerei.de",
        "jürgen@example.de",
    ] {
        valid(EmailAddress, &format!("Mail an {v} bitte"), v);
    }
    valid(
        EmailAddress,
        "Schreiben Sie an max@example.de.",
        "max@example.de",
    );
    valid(
        EmailAddress,
        "mailto:max@example.de?subject=Hi",
        "max@example.de",
    );
    for v in [
        "lodash@4.17.21",
        "logo@2x.png",
        "admin@localhost",
        "@example.de",
    ] {
        invalid(EmailAddress, &format!("Wert {v} notiert"));
    }
}

#[test]
fn url_vectors() {
    use EntityType::Url;
    valid(
        Url,
        "Siehe https://www.example.de/kontakt?name=max heute",
        "https://www.example.de/kontakt?name=max",
    );
    valid(Url, "http://beispiel.de", "http://beispiel.de");
    valid(Url, "Mehr unter www.example.de.", "www.example.de");
    valid(
        Url,
        "(siehe https://de.wikipedia.org/wiki/Halle_(Saale))",
        "https://de.wikipedia.org/wiki/Halle_(Saale)",
    );
    valid(
        Url,
        "Impressum: example.de/impressum",
        "example.de/impressum",
    );
    for v in ["z.B.", "bzw.", "setup.py", "README.md", "v1.2.3", "3.14"] {
        invalid(Url, &format!("Das ist {v} hier"));
    }
}

#[test]
fn kfz_vectors() {
    use EntityType::KfzKennzeichen;
    for v in [
        "B-AB 1234",
        "M-XY 99",
        "HH AB 123",
        "S-A 1",
        "KA-Q 4711",
        "LÖ-AB 123",
        "TÖL-K 808",
        "D-EL 123E",
        "OF-OC 42H",
        "B-AB1234",
    ] {
        valid(KfzKennzeichen, &format!("Kennzeichen {v} geparkt"), v);
    }
    for v in [
        "BGL-ZZ 9999",
        "XY-AB 123",
        "B-AB 01234",
        "B-ÄB 123",
        "B-ABC 123",
        "DIN EN 71",
        "b-ab 1234",
    ] {
        invalid(KfzKennzeichen, &format!("Kennzeichen {v} geparkt"));
    }
}

#[test]
fn date_vectors() {
    use EntityType::Date;
    for v in [
        "12.03.2024",
        "1.3.2024",
        "29.02.2024",
        "29.02.2000",
        "12. März 2024",
        "3. Okt. 1990",
        "2024-03-12",
        "March 12, 2024",
    ] {
        valid(Date, &format!("Termin am {v} bestätigt"), v);
    }
    valid(Date, "geb. 05.11.1987", "05.11.1987");
    valid(Date, "Montag, 1. Januar 2024", "1. Januar 2024");
    valid(Date, "Sie ist geboren im März 1985 in Graz.", "März 1985");
    for v in [
        "29.02.2023",
        "29.02.1900",
        "31.04.2021",
        "32.01.2020",
        "12.13.2020",
        "2024-02-30",
        "12.30 Uhr",
        "1.234,56",
        "Version 1.2.3",
        "10.0.0.1",
    ] {
        invalid(Date, &format!("Wert {v} notiert"));
    }
    invalid(Date, "Das Projekt startet im März 2025.");
}

#[test]
fn location_vectors() {
    use EntityType::Location;
    assert_eq!(
        found("Musterstraße 12a, 12345 Musterstadt", Location),
        vec!["Musterstraße 12a", "12345 Musterstadt"]
    );
    assert_eq!(
        found("Unter den Linden 77, 10117 Berlin", Location),
        vec!["Unter den Linden 77", "10117 Berlin"]
    );
    valid(Location, "Hauptstr. 12-14", "Hauptstr. 12-14");
    valid(
        Location,
        "Konrad-Adenauer-Allee 1",
        "Konrad-Adenauer-Allee 1",
    );
    valid(Location, "Treffpunkt Am Markt 5", "Am Markt 5");
    valid(Location, "10115 Berlin", "10115 Berlin");
    valid(Location, "D-80331 München", "D-80331 München");
    valid(Location, "A-1010 Wien", "A-1010 Wien");
    valid(Location, "CH-8001 Zürich", "CH-8001 Zürich");
    valid(Location, "Ich wohne in Köln.", "Köln");
    for v in [
        "12345 Euro",
        "Bestellnummer 10115",
        "Arbeitsplatz 3",
        "Seit 2024 Berlin-Fan",
        "Wir essen um 12 Uhr.",
    ] {
        invalid(Location, v);
    }
    // 00 is no German postcode: only the town is a place.
    assert_eq!(found("00123 Berlin", Location), vec!["Berlin"]);
    // Towns inside organisation names locate nobody.
    invalid(
        Location,
        "Die Stadtwerke München haben die Rechnung geschickt.",
    );
}

#[test]
fn person_vectors() {
    use EntityType::Person;
    valid(Person, "Sehr geehrte Frau Dr. Becker,", "Becker");
    valid(Person, "Mein Name ist Jonas Weber und ich …", "Jonas Weber");
    valid(
        Person,
        "Mit freundlichen Grüßen\nAnna-Lena Schulze-Wiegand",
        "Anna-Lena Schulze-Wiegand",
    );
    valid(
        Person,
        "z. Hd. Herrn Karl-Theodor zu Guttenberg",
        "Karl-Theodor zu Guttenberg",
    );
    valid(Person, "Ansprechpartner: Thomas Wolf", "Thomas Wolf");
    valid(Person, "Schmidt, Anna", "Schmidt, Anna");
    valid(Person, "Laut Herrn Kochs Schreiben …", "Koch");
    for v in [
        "Der Koch bereitet das Essen zu.",
        "Ich bin Lehrer.",
        "Die Müller GmbH liefert …",
        "Wir treffen uns in der Goethestraße.",
        "Im August fahren wir weg.",
    ] {
        invalid(Person, v);
    }
}

#[test]
fn person_in_plain_prose() {
    use EntityType::Person;
    // Written for this test: names without any title or salutation.
    assert_eq!(
        found(
            "Gestern hat Lukas Hoffmann die Präsentation gehalten.",
            Person
        ),
        vec!["Lukas Hoffmann"]
    );
    assert_eq!(
        found("„Das reicht nicht“, sagte Yilmaz am Abend.", Person),
        vec!["Yilmaz"]
    );
    assert_eq!(
        found(
            "Katarzyna Nowak übernimmt ab Montag, Nowak ist erfahren.",
            Person
        ),
        vec!["Katarzyna Nowak", "Nowak"]
    );
    assert_eq!(
        found("hey, hier ist sabine krüger, kannst du helfen?", Person),
        vec!["sabine krüger"]
    );
    assert!(found(
        "Der Wolf heult, der Richter entschied, der Bauer erntet.",
        Person
    )
    .is_empty());
}

#[test]
fn person_opening_a_sentence_in_lowercase_chat() {
    use EntityType::Person;
    // Written for this test: chat typed in lower case, a given name opens a sentence.
    assert_eq!(
        found(
            "ok das passt so. paula kommt morgen vorbei und bringt den schlüssel.",
            Person
        ),
        vec!["paula"]
    );
    // Words that are also given names stay words; capitalised prose is not chat.
    assert!(found(
        "das war knapp. rose schneidet die hecke. will kommt auch.",
        Person
    )
    .is_empty());
    assert!(found("erst mal kaffee. danke dir trotzdem für alles.", Person).is_empty());
}

#[test]
fn overlap_rules() {
    let d = detector();
    // A validated IBAN beats phone-like fragments inside it.
    let f = d.detect("IBAN DE89 3704 0044 0532 0130 00");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].entity_type, EntityType::Iban);
    assert!(f[0].validated);
    // A street with a date-like part stays one LOCATION.
    let f = d.detect("Straße des 17. Juni 135");
    assert_eq!(
        f.iter().map(|x| x.entity_type).collect::<Vec<_>>(),
        vec![EntityType::Location]
    );
}

#[test]
fn offsets_are_code_points() {
    let text = "Grüße aus Köln – Frau Müller, Tel. 0171 2345678";
    let f = detector().detect(text);
    for x in &f {
        let piece: String = text.chars().skip(x.start).take(x.end - x.start).collect();
        assert!(!piece.is_empty());
    }
    assert!(f
        .iter()
        .any(|x| x.entity_type == EntityType::PhoneNumber && x.start == 35));
}

// ---- Types added after the contract's 13 (issue 12). Keys below are made up for these tests:
// right prefix and shape, random bodies, belonging to nobody.

#[test]
fn secret_key_prefixes() {
    use EntityType::Secret;
    for key in [
        "sk-proj-Q7mZ2vK9xL4pR8tW1nB6cD3fG5hJ0kYs",
        "sk-ant-api03-Zx8Kq2Lm9Pw4Rt7Yv1Bn6Cd3Fg5Hj0Ks-AbCdEf12",
        "sk-Zx8Kq2Lm9Pw4Rt7Yv1Bn6Cd3Fg5Hj0Ks",
        "sk_live_51Hx9KzAbCdEfGh12345678",
        "rk_test_51Hx9KzAbCdEfGh12345678",
        "pk_live_51Hx9KzAbCdEfGh12345678",
        "AKIAQ3EGRF7XPZ2KT4NB",
        "ASIAQ3EGRF7XPZ2KT4NB",
        "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2",
        "gho_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2",
        "github_pat_11ABCDEFG0123456789_abcdefghijKLMNOPqrstuv",
        "glpat-Xy9zAb8cDe7fGh6iJk5l",
        "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiJ9.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ] {
        valid(Secret, key, key);
        valid(Secret, &format!("Mein Key ist {key}, bitte prüfen."), key);
        valid(Secret, &format!("export OPENAI_API_KEY={key}"), key);
        valid(Secret, &format!("\"{key}\""), key);
    }
    // The AWS secret access key next to its id.
    let aws = "aws_access_key_id = AKIAQ3EGRF7XPZ2KT4NB\naws_secret = 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";
    assert_eq!(
        found(aws, Secret),
        [
            "AKIAQ3EGRF7XPZ2KT4NB",
            "Xq3/LmN8pRt2VwY5zA1bC4dE6fG7hJ9kL0mN2pQr"
        ]
    );
}

#[test]
fn secret_fields_urls_and_pem() {
    use EntityType::Secret;
    valid(
        Secret,
        r#"{"user": "anna", "password": "Blume#2024"}"#,
        "Blume#2024",
    );
    valid(Secret, "Passwort: Sommer2024!", "Sommer2024!");
    valid(Secret, "client_secret=q8Hn2LkP0xZt", "q8Hn2LkP0xZt");
    valid(
        Secret,
        "Authorization: Bearer 9f8e7d6c5b4a3f2e1d0c9b8a",
        "9f8e7d6c5b4a3f2e1d0c9b8a",
    );
    valid(
        Secret,
        "DATABASE_URL=postgres://app:Xk9#mQ2z@db.intern:5432/shop",
        "Xk9#mQ2z",
    );
    let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
    valid(
        Secret,
        &format!("Hier der Schlüssel:\n{pem}\nWas ist falsch?"),
        pem,
    );
}

#[test]
fn secret_in_a_web_url_masks_the_url_whole() {
    let text = "Login über https://anna:Geheim99@intranet.example.de/admin bitte";
    let found = detector().detect(text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].entity_type, EntityType::Secret);
    let span: String = text
        .chars()
        .skip(found[0].start)
        .take(found[0].end - found[0].start)
        .collect();
    assert_eq!(span, "https://anna:Geheim99@intranet.example.de/admin");
    // A URL without credentials stays a URL.
    valid(
        EntityType::Url,
        "Siehe https://intranet.example.de/admin",
        "https://intranet.example.de/admin",
    );
}

#[test]
fn secret_negatives_hashes_uuids_images_prose() {
    use EntityType::Secret;
    for text in [
        "md5 5d41402abc4b2a76b9719d911017c592",
        "sha1 aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d",
        "sha256: 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
        "Commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "id 550e8400-e29b-41d4-a716-446655440000",
        "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAKIAQ3EGRF7XPZ2KT4NBAAABCAYAAAAfFcSJeyJhbGciOiJIUzI1NiJ9AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6QAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">",
        "Wir nutzen sk-learn-compatible-estimators für das Modell.",
        "Die task-Zx8Kq2Lm9Pw4Rt7Yv1Bn6Cd3Fg5Hj0Ks läuft.",
        "Bestellnummer AKIA-2024-0042",
        r#"{"model": "gpt-4o", "max_tokens": 1024, "temperature": 0.2}"#,
        "Das Passwort ist falsch, bitte zurücksetzen.",
        "password: ********",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
        "Asia and AKIAxyz are words here",
    ] {
        invalid(Secret, text);
    }
}

#[test]
fn kvnr_vectors() {
    use EntityType::Kvnr;
    valid(Kvnr, "KVNR: A123456780", "A123456780");
    valid(Kvnr, "Versichertennummer A123456780 (AOK)", "A123456780");
    valid(Kvnr, "A123456780", "A123456780");
    // Typo rule: strong label, wrong check digit.
    valid(Kvnr, "Krankenversicherungsnummer: A123456781", "A123456781");
    for v in [
        "A123456781",
        "a123456780",
        "A12345678",
        "A1234567801",
        "XA123456780",
        "Bestellnummer A123456780",
    ] {
        invalid(Kvnr, v);
    }
}

#[test]
fn ausweis_vectors() {
    use EntityType::Ausweis;
    valid(Ausweis, "Personalausweis T220001293", "T220001293");
    valid(Ausweis, "Reisepass: C01X00T478", "C01X00T478");
    valid(Ausweis, "T220001293", "T220001293");
    valid(Ausweis, "Ausweisnummer T22000129", "T22000129");
    valid(Ausweis, "passport number C01X00T47", "C01X00T47");
    // `Pass` is the passport here, not a password field.
    valid(Ausweis, "Pass: C01X00T47", "C01X00T47");
    invalid(EntityType::Secret, "Pass: C01X00T47");
    for v in [
        "T22000129",
        "T220001294",
        "Artikel T220001293",
        "A220001293",
        "Ausweisnummer T2200012",
        "Ausweisnummer TBDE00129",
    ] {
        invalid(Ausweis, v);
    }
}

#[test]
fn ust_id_vectors() {
    use EntityType::UstId;
    for v in [
        "DE136695976",
        "DE 136695976",
        "DE 136 695 976",
        "DE811907980",
    ] {
        valid(UstId, v, v);
    }
    valid(UstId, "USt-IdNr.: DE136695976", "DE136695976");
    valid(UstId, "USt-IdNr. DE136695977", "DE136695977");
    for v in [
        "DE136695977",
        "XDE136695976",
        "DE1366959761",
        "DE036695976",
        "de136695976",
    ] {
        invalid(UstId, v);
    }
}

#[test]
fn us_ssn_vectors() {
    use EntityType::UsSsn;
    valid(UsSsn, "536-22-8841", "536-22-8841");
    valid(UsSsn, "SSN: 536-22-8841", "536-22-8841");
    valid(UsSsn, "Social Security Number 536 22 8841", "536 22 8841");
    valid(UsSsn, "SSN 536228841", "536228841");
    // Area 9xx (ITIN area, never an issued SSN) only when the text labels the number.
    valid(
        UsSsn,
        "contact a@b.com, SSN 978-28-1044, card",
        "978-28-1044",
    );
    valid(UsSsn, "ITIN: 912-22-8841", "912-22-8841");
    for v in [
        "Bestellung 912-22-8841",
        "SSN 912-00-8841",
        "SSN 912-22-0000",
        "536228841",
        "536 22 8841",
        "000-22-8841",
        "666-22-8841",
        "912-22-8841",
        "536-00-8841",
        "536-22-0000",
        "078-05-1120",
        "219-09-9999",
        "536-22 8841",
        "Tel. 536-22-8841",
        "1536-22-8841",
        "536-22-88412",
    ] {
        invalid(UsSsn, v);
    }
}

#[test]
fn added_types_leave_order_numbers_alone() {
    for text in [
        "Bestellnummer 4711-0815-42, Rechnung RE-2024-00017",
        "Auftrag A-123456789 vom Kunden",
        "Artikelnummer L12345678 in Größe M",
        "Tracking 1Z999AA10123456784",
    ] {
        let found: Vec<EntityType> = detector()
            .detect(text)
            .iter()
            .map(|f| f.entity_type)
            .collect();
        for t in EntityType::ALL[13..].iter() {
            assert!(!found.contains(t), "{t} in {text:?}: {found:?}");
        }
    }
}
