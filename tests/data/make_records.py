#!/usr/bin/env python3
"""Writes records.jsonl: a small labelled set of record-shaped texts (tables, SQL, JSON, key/value
lines, logs, letter datelines), in the format of ../shared/eval/dev.jsonl, for scoring the
detector on records (docs/detection.md, "Records"). Written for this project; names and places
are made up or rare. Markup: [[value|TYPE]] marks a labelled span.

    python3 tests/data/make_records.py   # rewrites tests/data/records.jsonl
"""
import json
import re
from pathlib import Path

TEXTS = [
    ("de", "csv_header", """Kannst du diese Liste nach Ort sortieren?

vorname,nachname,plz,ort,geburtstag,betrag,status
[[Jana|PERSON]],[[Brökelmann|PERSON]],[[33602|LOCATION]],[[Bielefeld|LOCATION]],[[1984-03-12|DATE]],120.50,aktiv
[[Olaf|PERSON]],[[Trittinski|PERSON]],[[03046|LOCATION]],[[Cottbus|LOCATION]],[[07.11.1979|DATE]],80.00,inaktiv
[[Merle|PERSON]],[[Quandtmeyer|PERSON]],[[15711|LOCATION]],[[Königs Wusterhausen|LOCATION]],[[23.02.1991|DATE]],15.00,aktiv
"""),
    ("de", "csv_semicolon_quoted", """Export aus dem Kundensystem:
"Kundennr";"Name";"Straße";"PLZ";"Ort";"Telefon"
"K-1001";"[[Brökelmann, Jana|PERSON]]";"[[Am Sandberg 4|LOCATION]]";"[[03172|LOCATION]]";"[[Guben|LOCATION]]";"[[03561 445566|PHONE_NUMBER]]"
"K-1002";"[[Wenzeslaus Pohlenz|PERSON]]";"[[Lindenweg 17a|LOCATION]]";"[[16928|LOCATION]]";"[[Pritzwalk|LOCATION]]";"[[033954 12345|PHONE_NUMBER]]"
Bitte prüfe die Dubletten.
"""),
    ("en", "tsv_english", """customer_id\tfirst_name\tlast_name\tcity\tamount\tproduct
1001\t[[Ingrid|PERSON]]\t[[Vasquez-Lohmann|PERSON]]\t[[Quedlinburg|LOCATION]]\t19.99\tSKU-4471
1002\t[[Tobias|PERSON]]\t[[Oberhäuser|PERSON]]\t[[Wittstock|LOCATION]]\t5.00\tSKU-1180
1003\t[[Marit|PERSON]]\t[[Jelinski|PERSON]]\t[[Eisenhüttenstadt|LOCATION]]\t250.00\tSKU-0042
"""),
    ("de", "csv_headerless", """Die Teilnehmerliste (ohne Kopfzeile):
[[Jana Brökelmann|PERSON]],[[Guben|LOCATION]],4
[[Olaf Trittinski|PERSON]],[[Cottbus|LOCATION]],2
[[Anna Pfefferkorn|PERSON]],[[Forst|LOCATION]],1
[[Klaus Wendehals|PERSON]],[[Spremberg|LOCATION]],3
"""),
    ("de", "markdown", """| Name | Ort | Kennzeichen | Betrag |
|------|-----|-------------|-------:|
| [[Jana Brökelmann|PERSON]] | [[Bielefeld|LOCATION]] | [[BI-JB 123|KFZ_KENNZEICHEN]] | 12,50 € |
| [[Olaf Trittinski|PERSON]] | [[Guben|LOCATION]] | [[CB-OT 77|KFZ_KENNZEICHEN]] | 8,00 € |

Wer hat mehr bezahlt?"""),
    ("en", "markdown_no_rule", """| Patient | Town | Ward | Status |
| [[Edeltraud Kwiatkowski|PERSON]] | [[Lübbenau|LOCATION]] | 3B | open |
| [[Henrike Saalfeld|PERSON]] | [[Beeskow|LOCATION]] | 2A | done |
"""),
    ("de", "sql_columns", """Warum schlägt das fehl?
INSERT INTO kunden (id, vorname, nachname, telefon, ort) VALUES
  (17, '[[Jana|PERSON]]', '[[Brökelmann|PERSON]]', '[[0521 1234567|PHONE_NUMBER]]', '[[Bielefeld|LOCATION]]'),
  (18, '[[Olaf|PERSON]]', '[[Trittinski|PERSON]]', '[[030 9876543|PHONE_NUMBER]]', '[[Cottbus|LOCATION]]');
"""),
    ("en", "sql_no_columns", """insert into patients values (1, '[[Marit Jelinski|PERSON]]', '[[Eisenhüttenstadt|LOCATION]]', 'A-17', 42.5);
insert into patients values (2, '[[Tobias Oberhäuser|PERSON]]', '[[Wittstock|LOCATION]]', 'B-03', 17.0);
insert into patients values (3, '[[Ingrid Vasquez|PERSON]]', '[[Quedlinburg|LOCATION]]', 'C-11', 3.25);
"""),
    ("de", "json_array", """Hier die Antwort der API:
[
  {"kundeId": 4711, "kontakt": "[[Jana Brökelmann|PERSON]]", "wohnort": "[[Guben|LOCATION]]", "status": "aktiv", "summe": 99.9},
  {"kundeId": 4712, "kontakt": "[[Olaf Trittinski|PERSON]]", "wohnort": "[[Pritzwalk|LOCATION]]", "status": "gesperrt", "summe": 12.0}
]
Warum ist der zweite gesperrt?"""),
    ("en", "json_unknown_keys", """[{"n": "[[Henrike Saalfeld|PERSON]]", "c": "[[Beeskow|LOCATION]]", "sku": "X-100"},
 {"n": "[[Edeltraud Kwiatkowski|PERSON]]", "c": "[[Berlin|LOCATION]]", "sku": "X-200"},
 {"n": "[[Wenzeslaus Pohlenz|PERSON]]", "c": "[[Hamburg|LOCATION]]", "sku": "X-300"}]"""),
    ("de", "key_value", """Stammdaten:
Kunde: [[Brökelmann|PERSON]]
Vorname: [[Jana|PERSON]]
Straße: [[Am Sandberg 4|LOCATION]]
Ort: [[Guben|LOCATION]]
Status: offen
Betrag: 120,00 EUR
"""),
    ("en", "logfmt", """[[2024-07-22|DATE]]T10:15:01Z INFO login user_id=4711 name="[[Jana Brökelmann|PERSON]]" city=[[Guben|LOCATION]] status=ok
[[2024-07-22|DATE]]T10:16:12Z WARN login user_id=4712 name="[[Olaf Trittinski|PERSON]]" city=[[Pritzwalk|LOCATION]] status=failed
[[2024-07-22|DATE]]T10:17:40Z INFO logout user_id=4711 duration=812
"""),
    ("de", "dateline", """[[Guben|LOCATION]], den [[22.07.2024|DATE]]

Sehr geehrte Frau [[Pohlenz|PERSON]],

vielen Dank für Ihr Schreiben. Die Rechnung Nr. 2024-0815 über 120,00 € ist beglichen.

Mit freundlichen Grüßen
[[Jana Brökelmann|PERSON]]"""),
    ("de", "dateline_month", """[[Quappendorf|LOCATION]], [[1. Mai 2025|DATE]]

Kündigung des Vertrags 4471-22

Hiermit kündige ich zum nächstmöglichen Termin.
"""),
    ("de", "negatives", """artikel;menge;preis;status
Schraube M4;100;0,10;offen
Mutter M4;200;0,05;bezahlt
Dübel 6mm;50;0,20;storniert

id,produkt,betrag
1,Hammer,12.99
2,Zange,8.49
"""),
]

MARK = re.compile(r"\[\[(.+?)\|([A-Z_]+)\]\]")


def build(lang, template, marked, n):
    text, spans, pos, last = [], [], 0, 0
    for m in MARK.finditer(marked):
        text.append(marked[last:m.start()])
        pos += len(marked[last:m.start()])
        value, typ = m.group(1), m.group(2)
        spans.append({"start": pos, "end": pos + len(value), "type": typ, "value": value})
        text.append(value)
        pos += len(value)
        last = m.end()
    text.append(marked[last:])
    return {"id": f"rec-{n:03d}", "lang": lang, "template": template, "text": "".join(text),
            "spans": spans, "negatives": []}


def main():
    out = Path(__file__).with_name("records.jsonl")
    with out.open("w", encoding="utf-8") as f:
        for n, (lang, template, marked) in enumerate(TEXTS, 1):
            f.write(json.dumps(build(lang, template, marked, n), ensure_ascii=False) + "\n")
    print(f"wrote {len(TEXTS)} texts to {out}")


if __name__ == "__main__":
    main()
