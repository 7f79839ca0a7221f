//! Personal data in tables and records (issue 16): CSV/TSV, Markdown tables, SQL `INSERT`,
//! JSON, `key: value` / `key=value` lines, logs and letter datelines, through the whole engine.
//! Tables written for these tests; the names and towns are rare or made up, so the gazetteers
//! alone do not know most of them. Both directions: personal cells masked, ids, amounts, codes,
//! status words and headers kept.

use tarnkappe_detect::EntityType;

use crate::harness::{findings, masked};

/// Asserts that every `(type, value)` of `personal` is found exactly so, and that every string
/// of `kept` is still verbatim in the anonymized text.
fn check(text: &str, personal: &[(EntityType, &str)], kept: &[&str]) {
    let got = findings(text);
    for &(t, v) in personal {
        assert!(
            got.iter().any(|(gt, gv)| *gt == t && gv == v),
            "{t} {v:?} not found in {text:?}; found {got:?}"
        );
    }
    let out = masked(text);
    for k in kept {
        assert!(out.contains(k), "{k:?} must stay in {out:?}");
    }
}

use EntityType::{Date, Location as Loc, Person, PhoneNumber as Phone};

#[test]
fn csv_with_german_header() {
    let text = "Bitte nach Ort sortieren:\nvorname,nachname,plz,ort,geburtstag,betrag,status\n\
                Jana,Brökelmann,33602,Bielefeld,1984-03-12,120.50,aktiv\n\
                Olaf,Trittinski,03046,Cottbus,07.11.1979,80.00,inaktiv\n";
    check(
        text,
        &[
            (Person, "Jana"),
            (Person, "Brökelmann"),
            (Person, "Trittinski"),
            (Loc, "33602"),
            (Loc, "03046"),
            (Loc, "Bielefeld"),
            (Loc, "Cottbus"),
            (Date, "1984-03-12"),
            (Date, "07.11.1979"),
        ],
        &[
            "vorname,nachname,plz,ort,geburtstag,betrag,status",
            ",120.50,aktiv",
            ",80.00,inaktiv",
        ],
    );
}

#[test]
fn csv_semicolons_quoted_cells_and_english_tsv() {
    let text = "\"Kundennr\";\"Name\";\"Straße\";\"PLZ\";\"Ort\";\"Telefon\"\n\
                \"K-1001\";\"Brökelmann, Jana\";\"Am Sandberg 4\";\"03172\";\"Guben\";\"03561 445566\"\n\
                \"K-1002\";\"Wenzeslaus Pohlenz\";\"Lindenweg 17a\";\"16928\";\"Pritzwalk\";\"033954 12345\"\n";
    check(
        text,
        &[
            (Person, "Brökelmann, Jana"),
            (Person, "Wenzeslaus Pohlenz"),
            (Loc, "Am Sandberg 4"),
            (Loc, "Lindenweg 17a"),
            (Loc, "03172"),
            (Loc, "Guben"),
            (Loc, "Pritzwalk"),
            (Phone, "03561 445566"),
        ],
        &["\"K-1001\";", "\"K-1002\";", "\"Kundennr\";\"Name\""],
    );
    let text = "customer_id\tfirst_name\tlast_name\tcity\tamount\tproduct\n\
                1001\tIngrid\tVasquez-Lohmann\tQuedlinburg\t19.99\tSKU-4471\n\
                1002\tTobias\tOberhäuser\tWittstock\t5.00\tSKU-1180\n";
    check(
        text,
        &[
            (Person, "Ingrid"),
            (Person, "Vasquez-Lohmann"),
            (Person, "Oberhäuser"),
            (Loc, "Quedlinburg"),
            (Loc, "Wittstock"),
        ],
        &[
            "1001\t",
            "\t19.99\tSKU-4471",
            "\t5.00\tSKU-1180",
            "customer_id\tfirst_name",
        ],
    );
}

#[test]
fn headerless_csv_takes_types_from_the_column() {
    // Most names and towns are known; `Quappendorf` and `Wendehals` are not, and take the type
    // of their columns.
    let text = "Teilnehmer:\nJana Brökelmann,Guben,4\nOlaf Trittinski,Cottbus,2\n\
                Anna Pfefferkorn,Forst,1\nKlaus Wendehals,Quappendorf,3\n";
    check(
        text,
        &[
            (Person, "Jana Brökelmann"),
            (Person, "Klaus Wendehals"),
            (Loc, "Guben"),
            (Loc, "Quappendorf"),
        ],
        &[",4\n", ",2\n", ",1\n", ",3\n"],
    );
}

#[test]
fn markdown_tables_with_and_without_rule() {
    let text = "| Name | Ort | Kennzeichen | Betrag |\n|------|-----|-------------|-------:|\n\
                | Jana Brökelmann | Bielefeld | BI-JB 123 | 12,50 € |\n\
                | Olaf Trittinski | Guben | CB-OT 77 | 8,00 € |\n\nWer hat mehr bezahlt?";
    check(
        text,
        &[
            (Person, "Jana Brökelmann"),
            (Person, "Olaf Trittinski"),
            (Loc, "Bielefeld"),
            (Loc, "Guben"),
            (EntityType::KfzKennzeichen, "BI-JB 123"),
        ],
        &[
            "| Name | Ort | Kennzeichen | Betrag |",
            "| 12,50 € |",
            "| 8,00 € |",
        ],
    );
    let text =
        "| Patient | Town | Ward | Status |\n| Edeltraud Kwiatkowski | Lübbenau | 3B | open |\n\
                | Henrike Saalfeld | Beeskow | 2A | done |\n";
    check(
        text,
        &[
            (Person, "Edeltraud Kwiatkowski"),
            (Person, "Henrike Saalfeld"),
            (Loc, "Lübbenau"),
            (Loc, "Beeskow"),
        ],
        &[
            "| 3B | open |",
            "| 2A | done |",
            "| Patient | Town | Ward | Status |",
        ],
    );
}

#[test]
fn sql_insert_with_and_without_column_list() {
    let text = "INSERT INTO kunden (id, vorname, nachname, telefon, ort) VALUES\n\
                (17, 'Jana', 'Brökelmann', '0521 1234567', 'Bielefeld'), \
                (18, 'Olaf', 'Trittinski', '030 9876543', 'Cottbus');";
    check(
        text,
        &[
            (Person, "Jana"),
            (Person, "Brökelmann"),
            (Person, "Trittinski"),
            (Phone, "0521 1234567"),
            (Loc, "Bielefeld"),
            (Loc, "Cottbus"),
        ],
        &["(17, '", "(18, '", "(id, vorname, nachname, telefon, ort)"],
    );
    let text =
        "insert into patients values (1, 'Marit Jelinski', 'Eisenhüttenstadt', 'A-17', 42.5);\n\
                insert into patients values (2, 'Tobias Oberhäuser', 'Wittstock', 'B-03', 17.0);\n\
                insert into patients values (3, 'Ingrid Vasquez', 'Quappendorf', 'C-11', 3.25);\n";
    check(
        text,
        &[
            (Person, "Marit Jelinski"),
            (Person, "Tobias Oberhäuser"),
            (Loc, "Eisenhüttenstadt"),
            (Loc, "Quappendorf"),
        ],
        &[
            "'A-17', 42.5",
            "'B-03', 17.0",
            "'C-11', 3.25",
            "values (1, '",
        ],
    );
}

#[test]
fn json_arrays_with_known_and_unknown_keys() {
    let text = "[\n {\"kundeId\": 4711, \"kontakt\": \"Jana Brökelmann\", \"wohnort\": \"Guben\", \"status\": \"aktiv\", \"summe\": 99.9},\n \
                {\"kundeId\": 4712, \"kontakt\": \"Olaf Trittinski\", \"wohnort\": \"Pritzwalk\", \"status\": \"gesperrt\", \"summe\": 12.0}\n]";
    check(
        text,
        &[
            (Person, "Jana Brökelmann"),
            (Person, "Olaf Trittinski"),
            (Loc, "Guben"),
            (Loc, "Pritzwalk"),
        ],
        &[
            "\"kundeId\": 4711",
            "\"status\": \"aktiv\"",
            "\"summe\": 12.0",
        ],
    );
    // Keys nobody lists: the columns show their types through the cells the gazetteers know.
    let text = "[{\"n\": \"Henrike Saalfeld\", \"c\": \"Quappendorf\", \"sku\": \"X-100\"},\n \
                {\"n\": \"Edeltraud Kwiatkowski\", \"c\": \"Berlin\", \"sku\": \"X-200\"},\n \
                {\"n\": \"Wenzeslaus Pohlenz\", \"c\": \"Hamburg\", \"sku\": \"X-300\"}]";
    check(
        text,
        &[
            (Person, "Henrike Saalfeld"),
            (Person, "Wenzeslaus Pohlenz"),
            (Loc, "Quappendorf"),
            (Loc, "Hamburg"),
        ],
        &["\"X-100\"", "\"X-200\"", "\"sku\""],
    );
}

#[test]
fn key_value_lines_and_logs() {
    let text =
        "Stammdaten:\nKunde: Brökelmann\nVorname: Jana\nStraße: Am Sandberg 4\nOrt: Quappendorf\n\
                Status: offen\nBetrag: 120,00 EUR\n";
    check(
        text,
        &[
            (Person, "Brökelmann"),
            (Person, "Jana"),
            (Loc, "Am Sandberg 4"),
            (Loc, "Quappendorf"),
        ],
        &["Status: offen", "Betrag: 120,00 EUR", "Kunde: [["],
    );
    let text = "2024-07-22T10:15:01Z INFO login user_id=4711 name=\"Jana Brökelmann\" city=Quappendorf status=ok\n\
                2024-07-22T10:16:12Z WARN login user_id=4712 name=\"Olaf Trittinski\" city=Pritzwalk status=failed\n";
    check(
        text,
        &[
            (Person, "Jana Brökelmann"),
            (Person, "Olaf Trittinski"),
            (Loc, "Quappendorf"),
            (Loc, "Pritzwalk"),
        ],
        &["user_id=4711", "user_id=4712", "status=ok", "status=failed"],
    );
}

#[test]
fn letter_datelines_anchor_the_place() {
    check(
        "Guben, den 22.07.2024\n\nSehr geehrte Frau Pohlenz,",
        &[(Loc, "Guben"), (Date, "22.07.2024"), (Person, "Pohlenz")],
        &[", den "],
    );
    check(
        "Quappendorf, 1. Mai 2025\n\nKündigung",
        &[(Loc, "Quappendorf")],
        &[],
    );
    check("Montag, den 22.07.2024\nTermin", &[], &["Montag, den "]);
}

#[test]
fn a_value_found_in_a_record_is_found_everywhere() {
    let text = "nachname;ort\nWendehals;Quappendorf\nTrittinski;Pritzwalk\n\n\
                Kannst du Wendehals in Quappendorf anschreiben?";
    let got = findings(text);
    let n = |v: &str| got.iter().filter(|(_, g)| g == v).count();
    assert_eq!(n("Wendehals"), 2, "{got:?}");
    assert_eq!(n("Quappendorf"), 2, "{got:?}");
}

#[test]
fn tables_without_personal_columns_stay_untouched() {
    for text in [
        "artikel;menge;preis;status\nSchraube M4;100;0,10;offen\nMutter M4;200;0,05;bezahlt\nDübel 6mm;50;0,20;storniert\n",
        "id,produkt,betrag\n1,Hammer,12.99\n2,Zange,8.49\n3,Säge,19.00\n",
        "| Farbe | Anzahl |\n|---|---|\n| Rot | 3 |\n| Grün | 5 |\n",
        "INSERT INTO orders (id, sku, qty, price, status) VALUES (1, 'SKU-4471', 2, 19.99, 'paid'), (2, 'SKU-1180', 1, 5.00, 'open');",
        "[{\"id\": 1, \"status\": \"aktiv\", \"betrag\": 12.5}, {\"id\": 2, \"status\": \"offen\", \"betrag\": 7}]",
        "level=info method=GET path=/api/v1/orders status=200 duration=12ms\nlevel=warn method=POST path=/api/v1/pay status=502 duration=30ms\n",
        // A product table whose `name` column is not vouched for by any personal column.
        "name,preis\nHammer,12.99\nZange,8.49\nSchraubendreher,3.20\n",
    ] {
        let got = findings(text);
        assert!(got.is_empty(), "nothing personal in {text:?}, got {got:?}");
    }
}

#[test]
fn prose_with_commas_and_colons_is_no_table() {
    let text = "Hallo Anna, wie geht es dir?\nGruß, Olaf\nHinweis: bitte bis Freitag antworten.\n\
                Der Termin um 14:30 Uhr passt, danke.";
    let got = findings(text);
    let people: Vec<&str> = got
        .iter()
        .filter(|(t, _)| *t == Person)
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(people, ["Anna", "Olaf"], "{got:?}");
    assert!(got.iter().all(|(t, _)| *t != Loc), "{got:?}");
}
