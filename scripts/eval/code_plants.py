#!/usr/bin/env python3
"""Personal data planted in code, for `code_eval.py planted` (issue 50).

`generate(dst_dir)` writes ~200 code, config, data and log files in many languages into `dst_dir`
and returns one dict per file: `{"path", "kind", "text", "values"}`, where `values` lists
`(start, end, TYPE)` with **byte** offsets into the file's UTF-8 text of every value the proxy must
hide. Everything is generated here from a fixed seed (names, addresses, check-digit-valid IBANs,
cards, Steuer-IDs and SV-Nummern, secrets); nothing is copied from the held-out corpus.

Templates mark values with `«key»` (person 0) or `«key@1»` (person 1); a key is either a field of
a generated person or an extra keyword argument `(text, TYPE)` / plain text (not planted).
What counts as the value: a whole name (`Jürgen Weiß`), or first name / surname alone where the
code holds them apart; the secret itself, not its key; the password of a connection string;
street + number and PLZ + town as separate LOCATION values (a town alone where a field holds it).
Documentation ranges (RFC 5737/3849) and reserved example domains are avoided: they name nobody.
"""
import os
import random
import re

SEED = 50_2024

# ---------------------------------------------------------------------------------------------
# Value pools

FIRST_DE = [
    "Anna", "Jürgen", "Jörg", "Sören", "Björn", "Günther", "Hans-Peter", "Anna-Lena", "Lea", "Jonas",
    "Lukas", "Sophie", "Marie", "Maximilian", "Felix", "Katharina", "Ursula", "Dörte", "Heike",
    "Sabine", "Thomas", "Stefan", "Michael", "Andreas", "Claudia", "Petra", "Wolfgang", "Uwe",
    "Matthias", "Tobias", "Franziska", "Johanna", "Özlem", "Mehmet", "Emre", "Leonie", "Mia", "Finn",
    "Niklas", "Jana", "Birgit", "Gisela", "Käthe", "Jürgen", "Bärbel", "Hannelore", "Karl-Heinz",
    "Annegret", "Malte", "Frauke", "Till", "Merle", "Henrik", "Svenja", "Grete", "Ingeborg", "Rüdiger",
]
FIRST_EN = ["James", "Emily", "Oliver", "Charlotte", "Sarah", "David", "Jennifer", "William", "Grace", "Daniel"]
LAST_DE = [
    "Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz",
    "Hoffmann", "Schäfer", "Koch", "Bauer", "Richter", "Klein", "Wolf", "Schröder", "Neumann",
    "Schwarz", "Zimmermann", "Braun", "Krüger", "Hartmann", "Lange", "Werner", "Krause", "Lehmann",
    "Köhler", "Herrmann", "König", "Walter", "Huber", "Kaiser", "Fuchs", "Scholz", "Möller", "Weiß",
    "Jung", "Hahn", "Vogel", "Keller", "Günther", "Berger", "Winkler", "Roth", "Lorenz", "Baumann",
    "Böhm", "Winter", "Krämer", "Jäger", "Sommer", "Groß", "Brandt", "Haas", "Schreiber", "Graf",
    "Dietrich", "Ziegler", "Kühn", "Engel", "Horn", "Bergmann", "Voigt", "Sauer", "Pfeiffer",
    "Müller-Lüdenscheidt", "Schulze-Wiegand", "Meyer-Landrut", "Brückner", "Nußbaum", "Strauß",
    "Öztürk", "Yılmaz", "Demir", "Kowalski", "Nowak", "Großmann", "Weißenborn", "Loewe",
]
LAST_PARTICLE = ["von Weizsäcker", "von der Heide", "van der Berg", "van Dijk", "de Vries", "zu Stolberg", "von Bülow"]
LAST_EN = ["Smith", "Johnson", "Williams", "Taylor", "Brown", "Thompson", "Walker", "Clarke"]

STREETS = [
    "Hauptstraße", "Lindenallee", "Goethestraße", "Bahnhofstr.", "Schillerweg", "Königsallee",
    "Friedrichstraße", "Berliner Straße", "Mühlenweg", "Rosenstraße", "Kastanienallee",
    "Schloßstraße", "Gartenstraße", "Kirchgasse", "Am Sonnenhang", "Ringstraße", "Eichendorffweg",
    "Weserstraße", "Lerchenfeld", "Am Markt", "Karl-Marx-Str.", "Ulmenweg", "Hölderlinstraße",
    "Große Bleichen", "Brunnenstraße", "Auf dem Berg", "Wilhelmstraße", "Parkstraße", "Zum Hafen",
    "Bismarckplatz", "Rheinuferstraße", "Talstraße", "Mozartstraße", "Bergstraße", "Dorfstraße",
]
TOWNS = [
    ("10115", "Berlin"), ("20095", "Hamburg"), ("80331", "München"), ("50667", "Köln"),
    ("60311", "Frankfurt am Main"), ("70173", "Stuttgart"), ("40213", "Düsseldorf"),
    ("04109", "Leipzig"), ("01067", "Dresden"), ("30159", "Hannover"), ("90403", "Nürnberg"),
    ("28195", "Bremen"), ("53111", "Bonn"), ("69117", "Heidelberg"), ("79098", "Freiburg im Breisgau"),
    ("24103", "Kiel"), ("18055", "Rostock"), ("99084", "Erfurt"), ("39104", "Magdeburg"),
    ("66111", "Saarbrücken"), ("55116", "Mainz"), ("65183", "Wiesbaden"), ("33602", "Bielefeld"),
    ("48143", "Münster"), ("86150", "Augsburg"), ("93047", "Regensburg"), ("97070", "Würzburg"),
    ("37073", "Göttingen"), ("14467", "Potsdam"), ("23552", "Lübeck"), ("76133", "Karlsruhe"),
    ("68159", "Mannheim"), ("89073", "Ulm"), ("06108", "Halle (Saale)"), ("26122", "Oldenburg"),
]
MAIL_DOMAINS = [
    "firma.de", "gmx.de", "web.de", "t-online.de", "posteo.de", "mailbox.org", "gmail.com",
    "outlook.de", "mueller-bau.de", "stadtwerke-kiel.de", "kanzlei-roth.de", "uni-heidelberg.de",
    "icloud.com", "freenet.de", "praxis-lindner.de", "autohaus-berger.de", "yahoo.de", "gmx.net",
]
AREA = ["30", "40", "69", "89", "221", "211", "711", "341", "351", "511", "911", "421", "228",
        "6221", "761", "431", "381", "361", "391", "681", "6131", "611", "521", "251", "821", "941"]
MOBILE = ["151", "152", "157", "160", "162", "163", "170", "171", "172", "173", "174", "175", "176",
          "177", "178", "179"]
SV_AREAS = ["02", "09", "10", "12", "13", "15", "18", "21", "23", "24", "25", "26", "28", "38",
            "39", "42", "43", "44", "49", "50", "53", "54", "56", "58", "61", "63", "65", "66", "68"]
PW_WORDS = ["Sommer", "Winter", "Kennwort", "Passwort", "Sonnenblume", "Fussball", "Hamburg",
            "Kaffee", "Drache", "Pferd", "Schatz", "Admin", "Welcome", "Dragon", "Sunshine"]

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
PWCHARS = ALNUM + "!%&*+-_#?"
URLSAFE = ALNUM + "_-."


def translit(s):
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss"), ("Ä", "Ae"), ("Ö", "Oe"),
                 ("Ü", "Ue"), ("ı", "i"), ("ş", "s")):
        s = s.replace(a, b)
    return s


def slug(s):
    return re.sub(r"[^a-z0-9]+", "-", translit(s).lower()).strip("-")


# ---------------------------------------------------------------------------------------------
# Check-digit-valid identifiers


def iban_de(rng):
    blz = str(rng.randint(1, 8)) + "".join(rng.choice("0123456789") for _ in range(7))
    acct = "".join(rng.choice("0123456789") for _ in range(10))
    bban = blz + acct
    check = 98 - int(bban + "131400") % 97
    iban = f"DE{check:02d}{bban}"
    assert int(iban[4:] + "1314" + iban[2:4]) % 97 == 1
    return iban


def grouped(s, n=4):
    return " ".join(s[i:i + n] for i in range(0, len(s), n))


def luhn_complete(prefix, length, rng):
    digits = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return digits + str((10 - total % 10) % 10)


def card(rng):
    kind = rng.choice(["visa", "visa", "mc", "mc", "amex"])
    if kind == "visa":
        n = luhn_complete("4", 16, rng)
    elif kind == "mc":
        n = luhn_complete(rng.choice(["51", "52", "53", "54", "55", "2221", "2720"]), 16, rng)
    else:
        n = luhn_complete(rng.choice(["34", "37"]), 15, rng)
    return n


def card_format(n, rng, style=None):
    style = style or rng.choice(["plain", "space", "dash"])
    if style == "plain":
        return n
    sep = " " if style == "space" else "-"
    if len(n) == 15:
        return sep.join([n[:4], n[4:10], n[10:]])
    return sep.join(n[i:i + 4] for i in range(0, 16, 4))


def steuer_id_check(d10):
    product = 10
    for ch in d10:
        s = (int(ch) + product) % 10
        if s == 0:
            s = 10
        product = (2 * s) % 11
    check = 11 - product
    return 0 if check == 10 else check


def steuer_id(rng):
    while True:
        rep = rng.randint(0, 9)
        count = rng.choice([2, 2, 3])
        others = rng.sample([d for d in range(10) if d != rep], 10 - count)
        digits = [rep] * count + others
        rng.shuffle(digits)
        if digits[0] == 0:
            continue
        s = "".join(map(str, digits))
        if str(rep) * 3 in s:
            continue
        return s + str(steuer_id_check(s))


def sv_check(s11):
    letter = s11[8]
    digits = s11[:8] + f"{ord(letter.upper()) - 64:02d}" + s11[9:11]
    weights = [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1]
    total = sum(sum(map(int, str(int(d) * w))) for d, w in zip(digits, weights))
    return total % 10


def sv_nummer(rng, last, birth):
    letter = translit(last).replace("von ", "").replace("van ", "").replace("de ", "").replace("zu ", "")[0].upper()
    y, m, d = birth
    serial = rng.randint(0, 49) if rng.random() < 0.5 else rng.randint(50, 99)
    s11 = f"{rng.choice(SV_AREAS)}{d:02d}{m:02d}{y % 100:02d}{letter}{serial:02d}"
    return s11 + str(sv_check(s11))


# self-checks against the published vectors of entities.md
assert steuer_id_check("8609574271") == 9
assert sv_check("65180539W00") == 1


# ---------------------------------------------------------------------------------------------
# People


def phone(rng, mobile=None):
    if mobile is None:
        mobile = rng.random() < 0.5
    if mobile:
        pre = rng.choice(MOBILE)
        sub = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(7 if pre.startswith("15") else 6))
        style = rng.choice(["nat", "nat", "intl", "intl_c", "dash", "grouped", "0049"])
        if style == "nat":
            return f"0{pre} {sub}"
        if style == "intl":
            return f"+49 {pre} {sub}"
        if style == "intl_c":
            return f"+49{pre}{sub}"
        if style == "dash":
            return f"0{pre}-{sub}"
        if style == "0049":
            return f"0049 {pre} {sub}"
        return f"0{pre} {sub[:3]} {sub[3:5]} {sub[5:]}"
    area = rng.choice(AREA)
    n = 8 if len(area) == 2 else rng.randint(6, 11 - len(area) if len(area) > 3 else 8)
    sub = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n - 1))
    style = rng.choice(["nat", "nat", "intl", "paren", "slash", "intl0", "dash", "ext"])
    if style == "nat":
        return f"0{area} {sub}"
    if style == "intl":
        return f"+49 {area} {sub}"
    if style == "paren":
        return f"(0{area}) {sub}"
    if style == "slash":
        return f"0{area}/{sub}"
    if style == "intl0":
        return f"+49 (0){area} {sub}"
    if style == "dash":
        return f"0{area}-{sub}"
    return f"0{area} {sub[:-2]}-{rng.randint(10, 99)}"


def public_ip(rng):
    first = rng.choice([31, 37, 46, 62, 77, 78, 79, 80, 81, 82, 84, 85, 87, 88, 89, 91, 93, 94, 95,
                        109, 134, 141, 145, 176, 178, 185, 188, 193, 194, 195, 212, 213, 217])
    return f"{first}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def ip6(rng):
    return "2a02:{:x}:{:x}:{:x}::{:x}".format(rng.randint(0x100, 0xffff), rng.randint(0x100, 0xffff),
                                              rng.randint(0x100, 0xffff), rng.randint(1, 0xfff))


def password(rng, urlsafe=False):
    if urlsafe:
        return "".join(rng.choice(URLSAFE) for _ in range(rng.randint(12, 20)))
    if rng.random() < 0.35:
        return rng.choice(PW_WORDS) + str(rng.randint(1970, 2024)) + rng.choice("!#%&*?+")
    return "".join(rng.choice(PWCHARS) for _ in range(rng.randint(12, 22)))


def rand(rng, chars, n):
    return "".join(rng.choice(chars) for _ in range(n))


def secret_token(rng, kind=None):
    kind = kind or rng.choice(["stripe", "github", "slack", "google", "sendgrid", "hex", "jwt", "openai"])
    if kind == "stripe":
        return "sk_live_" + rand(rng, ALNUM, 24)
    if kind == "github":
        return "ghp_" + rand(rng, ALNUM, 36)
    if kind == "slack":
        return f"xoxb-{rng.randint(10**10, 10**11 - 1)}-{rng.randint(10**12, 10**13 - 1)}-" + rand(rng, ALNUM, 24)
    if kind == "google":
        return "AIza" + rand(rng, ALNUM + "_-", 35)
    if kind == "sendgrid":
        return "SG." + rand(rng, ALNUM + "_-", 22) + "." + rand(rng, ALNUM + "_-", 43)
    if kind == "hex":
        return rand(rng, "0123456789abcdef", rng.choice([32, 40, 64]))
    if kind == "openai":
        return "sk-proj-" + rand(rng, ALNUM + "_-", 48)
    head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    return head + "." + rand(rng, ALNUM + "_-", rng.randint(60, 110)) + "." + rand(rng, ALNUM + "_-", 43)


def aws_key_id(rng):
    return "AKIA" + rand(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)


def aws_secret(rng):
    return rand(rng, ALNUM + "/+", 40)


def make_person(rng, english=False):
    if english or rng.random() < 0.1:
        first, last = rng.choice(FIRST_EN), rng.choice(LAST_EN + LAST_DE[:20])
    else:
        first = rng.choice(FIRST_DE)
        r = rng.random()
        last = rng.choice(LAST_PARTICLE) if r < 0.08 else rng.choice(LAST_DE)
    name = f"{first} {last}"
    fl, ll = translit(first).lower().replace(" ", ""), translit(last).lower().replace(" ", "")
    style = rng.randint(0, 5)
    local = [f"{fl}.{ll}", f"{fl[0]}.{ll}", f"{fl}{ll}{rng.randint(1, 99)}", f"{fl}_{ll}",
             f"{ll}.{fl}", f"{fl[0]}{ll}"][style]
    local = local.replace("--", "-")
    email = f"{local}@{rng.choice(MAIL_DOMAINS)}"
    by, bm, bd = rng.randint(1940, 2004), rng.randint(1, 12), rng.randint(1, 28)
    plz, town = rng.choice(TOWNS)
    street = f"{rng.choice(STREETS)} {rng.randint(1, 140)}{rng.choice(['', '', '', 'a', 'b'])}"
    iban = iban_de(rng)
    cardn = card(rng)
    sid = steuer_id(rng)
    sv = sv_nummer(rng, last, (by, bm, bd))
    user = (fl[0] + ll).replace("-", "")[:12]
    url = rng.choice([
        f"https://www.linkedin.com/in/{slug(first)}-{slug(last)}-{rand(rng, '0123456789abcdef', 6)}",
        f"https://www.xing.com/profile/{translit(first).replace(' ', '_')}_{translit(last).replace(' ', '_')}",
        f"https://github.com/{user}",
        f"https://{slug(first)}-{slug(last)}.de",
        f"https://www.instagram.com/{fl}.{ll}/",
    ])
    P = {
        "name": (name, "PERSON"),
        "first": (first, "PERSON"),
        "last": (last, "PERSON"),
        "name_rev": (f"{last}, {first}", "PERSON"),
        "email": (email, "EMAIL_ADDRESS"),
        "phone": (phone(rng, False), "PHONE_NUMBER"),
        "mobile": (phone(rng, True), "PHONE_NUMBER"),
        "iban": (iban, "IBAN"),
        "iban_print": (grouped(iban), "IBAN"),
        "birth_iso": (f"{by:04d}-{bm:02d}-{bd:02d}", "DATE"),
        "birth_de": (f"{bd:02d}.{bm:02d}.{by:04d}", "DATE"),
        "street": (street, "LOCATION"),
        "city": (f"{plz} {town}", "LOCATION"),
        "town": (town, "LOCATION"),
        "plz": plz,
        "card": (cardn, "CREDIT_CARD"),
        "card_fmt": (card_format(cardn, rng), "CREDIT_CARD"),
        "card_exp": f"{rng.randint(1, 12):02d}/{rng.randint(26, 31)}",
        "steuer_id": (sid, "STEUER_ID"),
        "steuer_id_fmt": (f"{sid[:2]} {sid[2:5]} {sid[5:8]} {sid[8:]}", "STEUER_ID"),
        "svnr": (sv, "SV_NUMMER"),
        "ip": (public_ip(rng), "IP_ADDRESS"),
        "ip6": (ip6(rng), "IP_ADDRESS"),
        "url": (url, "URL"),
        "password": (password(rng), "SECRET"),
        "pw_url": (password(rng, urlsafe=True), "SECRET"),
        "user": user,
        "id": str(rng.randint(1000, 99999)),
        "gender": rng.choice(["f", "m", "d"]),
        "year": str(rng.randint(2015, 2024)),
    }
    return P


# ---------------------------------------------------------------------------------------------
# Documents with byte offsets

PH = re.compile(r"«(\w+)(?:@(\d))?»")


class Doc:
    def __init__(self):
        self.parts = []
        self.values = []
        self.n = 0

    def _lit(self, s):
        self.parts.append(s)
        self.n += len(s.encode("utf-8"))

    def add(self, tpl, *people, **extra):
        pos = 0
        for m in PH.finditer(tpl):
            self._lit(tpl[pos:m.start()])
            key, idx = m.group(1), int(m.group(2) or 0)
            val = extra[key] if key in extra else people[idx][key]
            text, typ = val if isinstance(val, tuple) else (val, None)
            start = self.n
            self._lit(text)
            if typ:
                self.values.append((start, self.n, typ))
            pos = m.end()
        self._lit(tpl[pos:])
        return self

    def text(self):
        return "".join(self.parts)


def S(text):
    return (text, "SECRET")


def ts(rng, day=None):
    d = day or (rng.randint(1, 12), rng.randint(1, 28))
    return f"2024-{d[0]:02d}-{d[1]:02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


# ---------------------------------------------------------------------------------------------
# Templates: each returns (relative path, Doc). `ps` is a list of people, `rng` the shared RNG.

def py_fixture(rng, ps, i):
    d = Doc()
    d.add('# -*- coding: utf-8 -*-\n"""Fixtures for the customer import tests.\n\nAuthor: «name» <«email»>\n"""\nimport pytest\n\n\n@pytest.fixture\ndef customers():\n    return [\n', ps[0])
    for p in ps[1:]:
        d.add('        {\n            "id": «id»,\n            "name": "«name»",\n            "email": "«email»",\n'
              '            "phone": "«phone»",\n            "iban": "«iban»",\n            "birth_date": "«birth_iso»",\n'
              '            "street": "«street»",\n            "city": "«city»",\n        },\n', p)
    d.add('    ]\n\n\ndef test_import(customers, importer):\n    result = importer.run(customers)\n    assert result.count == %d\n' % (len(ps) - 1))
    return f"python/tests/test_customers_{i}.py", d


def py_dataclass(rng, ps, i):
    d = Doc()
    d.add("from datetime import date\n\nfrom billing.models import Customer, Address\n\n# Testdaten, bitte nicht produktiv verwenden\nCUSTOMERS = [\n")
    for p in ps:
        d.add('    Customer(\n        first_name="«first»",\n        last_name="«last»",\n        email="«email»",\n'
              '        mobile="«mobile»",\n        steuer_id="«steuer_id»",\n        birth_date=date.fromisoformat("«birth_iso»"),\n'
              '        address=Address(street="«street»", zip_code="«plz»", city="«town»"),\n    ),\n', p)
    d.add("]\n")
    return f"python/billing/fixtures_{i}.py", d


def py_django_seed(rng, ps, i):
    d = Doc()
    d.add("from django.contrib.auth import get_user_model\nfrom django.core.management.base import BaseCommand\n\nUser = get_user_model()\n\n\nclass Command(BaseCommand):\n    help = \"Legt Demo-Benutzer an\"\n\n    def handle(self, *args, **options):\n")
    for p in ps:
        d.add('        User.objects.create_user(\n            username="«user»",\n            email="«email»",\n            password="«password»",\n'
              '            first_name="«first»",\n            last_name="«last»",\n        )\n', p)
    d.add('        self.stdout.write(self.style.SUCCESS("ok"))\n')
    return f"python/accounts/management/commands/seed_users_{i}.py", d


def py_settings(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add('"""Django settings for the shop project (staging)."""\nfrom pathlib import Path\n\nBASE_DIR = Path(__file__).resolve().parent.parent\n\n'
          'SECRET_KEY = "«sk»"\nDEBUG = False\nALLOWED_HOSTS = ["shop-staging.internal"]\n\nDATABASES = {\n    "default": {\n'
          '        "ENGINE": "django.db.backends.postgresql",\n        "NAME": "shop",\n        "USER": "shop_app",\n'
          '        "PASSWORD": "«password»",\n        "HOST": "db.staging.internal",\n        "PORT": 5432,\n    }\n}\n\n'
          'EMAIL_HOST = "smtp.mailgun.org"\nEMAIL_HOST_USER = "«email»"\nEMAIL_HOST_PASSWORD = "«pw2»"\n'
          'ADMINS = [("«name@1»", "«email@1»")]\nSTRIPE_SECRET_KEY = "«stripe»"\n', p, ps[1],
          sk=S("django-insecure-" + rand(rng, ALNUM + "!@#%^&*(-_=+)", 50)), pw2=S(password(rng)),
          stripe=S(secret_token(rng, "stripe")))
    return f"python/shop/settings/staging_{i}.py", d


def py_comments(rng, ps, i):
    p, q = ps[0], ps[1]
    d = Doc()
    d.add('# Copyright «year» «name@1»\n# SPDX-License-Identifier: MIT\n\n\ndef normalize_iban(value: str) -> str:\n'
          '    """Strip spaces and upper-case an IBAN.\n\n    Reported by customer «name» («email»): the export contained\n'
          '    «iban_print» with spaces, which the bank rejected.\n    """\n    return value.replace(" ", "").upper()\n\n\n'
          'def test_normalize_iban():\n    # Kundin «name», Tel. «phone», rief am «birth_de_call» an\n'
          '    assert normalize_iban("«iban_print»") == "«iban»"\n', p, q,
          birth_de_call=(f"{rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.2024", "DATE"))
    return f"python/payments/iban_{i}.py", d


def py_unittest(rng, ps, i):
    d = Doc()
    d.add("import unittest\n\nfrom crm.format import format_contact\n\n\nclass FormatContactTest(unittest.TestCase):\n")
    for k, p in enumerate(ps):
        d.add('    def test_contact_%d(self):\n        contact = {"vorname": "«first»", "nachname": "«last»", "telefon": "«mobile»"}\n'
              '        self.assertEqual(format_contact(contact), "«name_rev» («mobile»)")\n\n' % k, p)
    return f"python/crm/tests/test_format_{i}.py", d


def py_sv(rng, ps, i):
    d = Doc()
    d.add('"""Payroll export: checks the SV-Nummer and Steuer-ID of each employee."""\n\nEMPLOYEES = [\n')
    for p in ps:
        d.add('    ("«name»", "«svnr»", "«steuer_id»", "«iban»"),\n', p)
    d.add(']\n\n\ndef test_sv_nummer():\n    for name, sv, tax_id, iban in EMPLOYEES:\n        assert is_valid_sv(sv), name\n')
    return f"python/payroll/test_employees_{i}.py", d


def js_users(rng, ps, i):
    d = Doc()
    d.add("/**\n * Seed data for the local dev server.\n * @author «name» <«email»>\n */\n\nconst users = [\n", ps[0])
    for p in ps[1:]:
        d.add("  { id: «id», name: '«name»', email: '«email»', phone: '«phone»', city: '«town»', profile: '«url»' },\n", p)
    d.add("];\n\nmodule.exports = { users };\n")
    return f"js/seed/users_{i}.js", d


def js_jest(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("const { validateOrder } = require('../src/order');\n\ndescribe('validateOrder', () => {\n  it('accepts a complete order', () => {\n"
          "    const order = {\n      customer: {\n        firstName: '«first»',\n        lastName: '«last»',\n        email: '«email»',\n"
          "      },\n      billing: {\n        street: '«street»',\n        city: '«city»',\n        iban: '«iban»',\n      },\n"
          "      payment: { cardNumber: '«card»', expiry: '«card_exp»' },\n    };\n    expect(validateOrder(order)).toBe(true);\n  });\n\n"
          "  it('rejects a wrong mail', () => {\n    expect(validateOrder({ customer: { email: 'x' } })).toBe(false);\n  });\n});\n", p)
    return f"js/test/order_{i}.test.js", d


def js_config(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("// config/production.js\nmodule.exports = {\n  port: 8080,\n  db: {\n    host: 'pg-prod-1.internal',\n    user: 'api',\n"
          "    password: '«password»',\n  },\n  mail: {\n    from: '«email»',\n    smtpPass: '«pw2»',\n  },\n"
          "  npmToken: '«npm»',\n  githubToken: '«gh»',\n};\n", p,
          pw2=S(password(rng)), npm=S("npm_" + rand(rng, ALNUM, 36)), gh=S(secret_token(rng, "github")))
    return f"js/config/production_{i}.js", d


def ts_fixture(rng, ps, i):
    d = Doc()
    d.add("import { Customer } from '../models/customer';\n\nexport const customers: Customer[] = [\n")
    for p in ps:
        d.add("  {\n    id: '«id»',\n    fullName: '«name»',\n    email: '«email»',\n    phone: '«mobile»',\n    iban: '«iban»',\n"
              "    birthDate: new Date('«birth_iso»'),\n    address: { street: '«street»', zip: '«plz»', city: '«town»' },\n  },\n", p)
    d.add("];\n")
    return f"ts/src/fixtures/customers_{i}.ts", d


def ts_env(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("// Maintainer: «name» <«email»>\nexport const environment = {\n  production: true,\n  apiUrl: 'https://api.shop-intern.de/v2',\n"
          "  firebase: {\n    apiKey: '«gk»',\n    authDomain: 'shop-prod.firebaseapp.com',\n  },\n  stripePublishableKey: 'pk_live_«pk»',\n"
          "  adminContact: '«email@1»',\n};\n", p, ps[1], gk=S(secret_token(rng, "google")), pk=rand(rng, ALNUM, 24))
    return f"ts/src/environments/environment.prod_{i}.ts", d


def ts_spec(rng, ps, i):
    d = Doc()
    d.add("import { formatAddress } from './address';\n\ndescribe('formatAddress', () => {\n")
    for p in ps:
        d.add("  it('formats «user»', () => {\n    const a = { name: '«name»', street: '«street»', city: '«city»' };\n"
              "    expect(formatAddress(a)).toEqual('«name», «street», «city»');\n  });\n", p)
    d.add("});\n")
    return f"ts/src/address_{i}.spec.ts", d


def java_test(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("package de.shop.customer;\n\nimport static org.junit.jupiter.api.Assertions.*;\n\nimport java.time.LocalDate;\nimport org.junit.jupiter.api.Test;\n\n"
          "/**\n * Tests für {@link CustomerService}.\n *\n * @author «name@1»\n */\nclass CustomerServiceTest {\n\n    @Test\n    void savesCustomer() {\n"
          "        Customer user = new Customer();\n        user.setFirstName(\"«first»\");\n        user.setLastName(\"«last»\");\n"
          "        user.setEmail(\"«email»\");\n        user.setPhone(\"«phone»\");\n        user.setIban(\"«iban»\");\n"
          "        user.setBirthDate(LocalDate.parse(\"«birth_iso»\"));\n        user.setStreet(\"«street»\");\n        user.setCity(\"«town»\");\n"
          "        service.save(user);\n        assertEquals(\"«last»\", repository.findByEmail(\"«email»\").getLastName());\n    }\n}\n", p, ps[1])
    return f"java/src/test/java/de/shop/customer/CustomerServiceTest{i}.java", d


def java_builder(rng, ps, i):
    d = Doc()
    d.add("package de.versicherung.antrag;\n\nimport java.util.List;\n\n/** Beispieldaten für die Antragsstrecke. @author «name» */\npublic final class SampleData {\n\n"
          "    static List<Antragsteller> all() {\n        return List.of(\n", ps[0])
    for k, p in enumerate(ps[1:]):
        d.add("            Antragsteller.builder()\n                .vorname(\"«first»\")\n                .nachname(\"«last»\")\n"
              "                .svNummer(\"«svnr»\")\n                .steuerId(\"«steuer_id»\")\n                .telefon(\"«mobile»\")\n"
              "                .build()%s\n" % ("," if k < len(ps) - 2 else ""), p)
    d.add("        );\n    }\n}\n")
    return f"java/src/main/java/de/versicherung/antrag/SampleData{i}.java", d


def java_ctor(rng, ps, i):
    d = Doc()
    d.add("package com.example.crm;\n\nclass ContactRepositoryIT {\n    private final Contact[] contacts = {\n")
    for p in ps:
        d.add("        new Contact(\"«name»\", \"«email»\", \"«phone»\", \"«street»\", \"«city»\"),\n", p)
    d.add("    };\n\n    void surname() {\n        Person p = new Person();\n        p.setSurname(\"«last»\");\n        p.setGivenName(\"«first»\");\n    }\n}\n", ps[-1])
    return f"java/src/test/java/com/example/crm/ContactRepositoryIT{i}.java", d


def properties(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("# application-prod.properties\nserver.port=8443\nspring.datasource.url=jdbc:postgresql://db-prod.intern:5432/crm\n"
          "spring.datasource.username=crm\nspring.datasource.password=«password»\nspring.mail.host=smtp.office365.com\n"
          "spring.mail.username=«email»\nspring.mail.password=«pw2»\napp.admin.name=«name»\napp.admin.phone=«phone»\n"
          "jwt.secret=«jwt»\n", p, pw2=S(password(rng)), jwt=S(secret_token(rng, "hex")))
    return f"java/src/main/resources/application-prod_{i}.properties", d


def go_test(rng, ps, i):
    d = Doc()
    d.add("// Author: «name» <«email»>\npackage customer\n\nimport \"testing\"\n\nfunc TestValidate(t *testing.T) {\n\ttests := []struct {\n"
          "\t\tname string\n\t\tin   Customer\n\t}{\n", ps[0])
    for p in ps[1:]:
        d.add("\t\t{\"«user»\", Customer{Name: \"«name»\", Email: \"«email»\", Phone: \"«phone»\", IBAN: \"«iban»\"}},\n", p)
    d.add("\t}\n\tfor _, tt := range tests {\n\t\tif err := tt.in.Validate(); err != nil {\n\t\t\tt.Errorf(\"%s: %v\", tt.name, err)\n\t\t}\n\t}\n}\n")
    return f"go/customer/customer_{i}_test.go", d


def go_config(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("package main\n\nimport (\n\t\"database/sql\"\n\t\"log\"\n)\n\nconst (\n\tdsn       = \"postgres://billing:«pw_url»@10.20.0.5:5432/billing?sslmode=disable\"\n"
          "\tsmtpPass  = \"«password»\"\n\tslackHook = \"«slack»\"\n)\n\nfunc main() {\n\tdb, err := sql.Open(\"postgres\", dsn)\n\tif err != nil {\n"
          "\t\tlog.Fatal(err)\n\t}\n\tdefer db.Close()\n\t// TODO: Rückfrage bei «name», Tel. «mobile»\n}\n", p, slack=S(secret_token(rng, "slack")))
    return f"go/cmd/billing/main_{i}.go", d


def go_struct(rng, ps, i):
    d = Doc()
    d.add("package seed\n\nvar Members = []Member{\n")
    for p in ps:
        d.add("\t{\n\t\tFirstName: \"«first»\",\n\t\tLastName:  \"«last»\",\n\t\tEmail:     \"«email»\",\n\t\tBirthday:  \"«birth_iso»\",\n"
              "\t\tAddress:   \"«street», «city»\",\n\t\tLastIP:    \"«ip»\",\n\t\tWebsite:   \"«url»\",\n\t},\n", p)
    d.add("}\n")
    return f"go/seed/members_{i}.go", d


def rust_test(rng, ps, i):
    d = Doc()
    d.add("//! Integration tests for the invoice renderer.\n//! Author: «name» <«email»>\n\nuse invoice::{Customer, Invoice};\n\n", ps[0])
    for k, p in enumerate(ps[1:]):
        d.add("#[test]\nfn renders_customer_%d() {\n    let customer = Customer {\n        name: \"«name»\".to_string(),\n"
              "        email: String::from(\"«email»\"),\n        iban: \"«iban»\".into(),\n        street: \"«street»\".to_owned(),\n"
              "        city: String::from(\"«city»\"),\n    };\n    let inv = Invoice::new(customer);\n    assert!(inv.render().contains(\"«last»\"));\n}\n\n" % k, p)
    return f"rust/tests/invoice_{i}.rs", d


def rust_const(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("// Copyright «year» «name»\n\nconst DATABASE_URL: &str = \"mysql://root:«pw_url»@127.0.0.1:3306/app\";\nconst API_KEY: &str = \"«tok»\";\n\n"
          "fn default_admin() -> User {\n    User::new(String::from(\"«name@1»\"), \"«email@1»\".to_string(), \"«mobile@1»\".to_string())\n}\n\n"
          "fn owner_surname() -> String {\n    \"«last@1»\".to_string()\n}\n", p, ps[1], tok=S(secret_token(rng)))
    return f"rust/src/config_{i}.rs", d


def csharp(rng, ps, i):
    d = Doc()
    d.add("// <copyright file=\"CustomerSeed.cs\" company=\"Stadtwerke\">\n// Copyright (c) «year» «name». All rights reserved.\n// </copyright>\n\n"
          "namespace Stadtwerke.Portal.Data;\n\npublic static class CustomerSeed\n{\n    public static IEnumerable<Customer> Customers() => new[]\n    {\n", ps[0])
    for p in ps[1:]:
        d.add("        new Customer { FirstName = \"«first»\", LastName = \"«last»\", Email = \"«email»\", Iban = \"«iban»\", DateOfBirth = DateTime.Parse(\"«birth_iso»\") },\n", p)
    d.add("    };\n}\n")
    return f"csharp/Data/CustomerSeed{i}.cs", d


def appsettings(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("{\n  \"ConnectionStrings\": {\n    \"Default\": \"Server=sql-prod-01;Database=Portal;User Id=portal;Password=«password»;TrustServerCertificate=True\"\n  },\n"
          "  \"Smtp\": {\n    \"User\": \"«email»\",\n    \"Password\": \"«pw2»\"\n  },\n  \"Support\": {\n    \"Contact\": \"«name»\",\n    \"Phone\": \"«phone»\"\n  },\n"
          "  \"SendGrid\": { \"ApiKey\": \"«sg»\" }\n}\n", p, pw2=S(password(rng)), sg=S(secret_token(rng, "sendgrid")))
    return f"csharp/appsettings.Production_{i}.json", d


def php(rng, ps, i):
    d = Doc()
    d.add("<?php\n/**\n * @author «name» <«email»>\n */\n\nnamespace App\\Tests;\n\nuse App\\Entity\\User;\nuse PHPUnit\\Framework\\TestCase;\n\n"
          "final class UserTest extends TestCase\n{\n    public function testFullName(): void\n    {\n        $user = new User();\n"
          "        $user->setFirstname('«first@1»');\n        $user->setSurname('«last@1»');\n        $user->setEmail('«email@1»');\n"
          "        $user->setTelefon('«phone@1»');\n        $this->assertSame('«name@1»', $user->getFullName());\n    }\n}\n", ps[0], ps[1])
    return f"php/tests/UserTest{i}.php", d


def php_seeder(rng, ps, i):
    d = Doc()
    d.add("<?php\n\nnamespace Database\\Seeders;\n\nuse Illuminate\\Database\\Seeder;\nuse Illuminate\\Support\\Facades\\DB;\n\nclass KundenSeeder extends Seeder\n{\n"
          "    public function run(): void\n    {\n        DB::table('kunden')->insert([\n")
    for p in ps:
        d.add("            ['name' => '«name»', 'email' => '«email»', 'iban' => '«iban»', 'strasse' => '«street»', 'ort' => '«city»', 'geburtsdatum' => '«birth_iso»'],\n", p)
    d.add("        ]);\n    }\n}\n")
    return f"php/database/seeders/KundenSeeder{i}.php", d


def sql_insert(rng, ps, i):
    d = Doc()
    d.add("-- Seed-Daten für die Staging-Datenbank\n-- erstellt von «name»\n\nINSERT INTO customers (id, first_name, last_name, email, phone, iban, birth_date, street, city) VALUES\n", ps[0])
    for k, p in enumerate(ps[1:]):
        d.add("  («id», '«first»', '«last»', '«email»', '«phone»', '«iban»', '«birth_iso»', '«street»', '«city»')" + (",\n" if k < len(ps) - 2 else ";\n"), p)
    return f"sql/seed/customers_{i}.sql", d


def sql_single(rng, ps, i):
    d = Doc()
    d.add("BEGIN;\n")
    for p in ps:
        d.add("INSERT INTO mitarbeiter (vorname, nachname, sv_nummer, steuer_id, geburtsdatum, email) VALUES ('«first»', '«last»', '«svnr»', '«steuer_id»', '«birth_iso»', '«email»');\n", p)
    d.add("UPDATE users SET email = '«email»', phone = '«mobile»' WHERE id = «id»;\n-- Ticket: «name» hat die Adresse «street», «city» gemeldet\nCOMMIT;\n", ps[0])
    return f"sql/migrations/V{i}__mitarbeiter.sql", d


def sql_user(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("CREATE USER reporting WITH PASSWORD '«password»';\nGRANT SELECT ON ALL TABLES IN SCHEMA public TO reporting;\n"
          "ALTER USER app_admin IDENTIFIED BY '«pw2»';\nINSERT INTO payment_cards (holder, pan, expiry) VALUES ('«name»', '«card»', '«card_exp»');\n"
          "INSERT INTO logins (user_email, ip, at) VALUES ('«email@1»', '«ip@1»', now());\n", p, ps[1], pw2=S(password(rng)))
    return f"sql/admin/setup_{i}.sql", d


def shell(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("#!/usr/bin/env bash\n# backup.sh — nächtliches Backup\n# Author: «name» <«email»>\nset -euo pipefail\n\n"
          "export PGPASSWORD='«password»'\npg_dump -h db.intern -U backup shop > /var/backups/shop.sql\n\n"
          "export AWS_ACCESS_KEY_ID=«akid»\nexport AWS_SECRET_ACCESS_KEY=«aksec»\naws s3 cp /var/backups/shop.sql s3://shop-backups/\n\n"
          "mysql -u root -p'«pw2»' -e 'FLUSH LOGS'\ncurl -u «user»:«pw3» https://nexus.shop-intern.de/repository/backups/\n"
          "scp /var/backups/shop.sql «user»@«ip»:/srv/backup/\n", p,
          akid=S(aws_key_id(rng)), aksec=S(aws_secret(rng)), pw2=S(password(rng, True)), pw3=S(password(rng, True)))
    return f"shell/backup_{i}.sh", d


def shell_git(rng, ps, i):
    d = Doc()
    d.add("#!/bin/sh\n# setup-dev.sh\n")
    for p in ps:
        d.add("git config --global user.name \"«name»\"\ngit config --global user.email \"«email»\"\n", p)
    d.add("export GITHUB_TOKEN=«gh»\nssh-copy-id deploy@«ip»\n", ps[0], gh=S(secret_token(rng, "github")))
    return f"shell/setup-dev_{i}.sh", d


def dotenv(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("APP_ENV=production\nAPP_KEY=base64:«appkey»\nDB_HOST=db-prod.intern\nDB_USERNAME=shop\nDB_PASSWORD=«password»\n"
          "DATABASE_URL=postgres://shop:«pw_url»@db-prod.intern:5432/shop\nREDIS_URL=redis://:«redis»@cache.intern:6379/0\n"
          "AWS_ACCESS_KEY_ID=«akid»\nAWS_SECRET_ACCESS_KEY=«aksec»\nSTRIPE_SECRET_KEY=«stripe»\nMAIL_FROM_ADDRESS=«email»\n"
          "ADMIN_NAME=\"«name»\"\nADMIN_PHONE=«mobile»\n", p,
          appkey=S(rand(rng, ALNUM + "+/", 43) + "="), redis=S(password(rng, True)), akid=S(aws_key_id(rng)),
          aksec=S(aws_secret(rng)), stripe=S(secret_token(rng, "stripe")))
    return f"env/prod_{i}.env", d


def yaml_compose(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("# docker-compose.yml — maintained by «name» <«email»>\nservices:\n  db:\n    image: postgres:16\n    environment:\n"
          "      POSTGRES_USER: app\n      POSTGRES_PASSWORD: «password»\n  api:\n    image: registry.shop-intern.de/api:1.4.2\n"
          "    environment:\n      DATABASE_URL: \"postgresql://app:«pw_url»@db:5432/app\"\n      OPENAI_API_KEY: «oa»\n"
          "      ADMIN_EMAIL: «email@1»\n", p, ps[1], oa=S(secret_token(rng, "openai")))
    return f"yaml/docker-compose_{i}.yml", d


def yaml_spring(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("spring:\n  datasource:\n    url: jdbc:mysql://mysql-prod:3306/crm\n    username: crm\n    password: «password»\n  mail:\n"
          "    username: «email»\n    password: '«pw2»'\napp:\n  support:\n    name: «name»\n    phone: \"«phone»\"\n", p, pw2=S(password(rng)))
    return f"yaml/application-prod_{i}.yml", d


def yaml_fixture(rng, ps, i):
    d = Doc()
    d.add("# test/fixtures/users.yml\n")
    for p in ps:
        d.add("«user»:\n  name: «name»\n  email: «email»\n  phone: \"«mobile»\"\n  iban: «iban»\n  born_on: «birth_iso»\n"
              "  address: «street», «city»\n  last_sign_in_ip: «ip»\n  website: «url»\n\n", p)
    return f"yaml/test/fixtures/users_{i}.yml", d


def yaml_k8s(rng, ps, i):
    d = Doc()
    d.add("apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-secrets\n  annotations:\n    owner: \"«name»\"\ntype: Opaque\nstringData:\n"
          "  DB_PASSWORD: \"«password»\"\n  JWT_SECRET: «jwt»\n  SLACK_TOKEN: «slack»\n", ps[0],
          jwt=S(secret_token(rng, "hex")), slack=S(secret_token(rng, "slack")))
    return f"yaml/k8s/secret_{i}.yaml", d


def toml_cfg(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("[package]\nname = \"invoice-tool\"\nversion = \"0.3.1\"\nauthors = [\"«name» <«email»>\", \"«name@1» <«email@1»>\"]\n"
          "edition = \"2021\"\n\n[package.metadata.deploy]\ndb_password = \"«password»\"\napi_token = \"«tok»\"\n", p, ps[1], tok=S(secret_token(rng)))
    return f"toml/Cargo_{i}.toml", d


def toml_app(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("# config.toml\n[server]\nport = 8080\n\n[database]\nurl = \"postgres://app:«pw_url»@pg.intern/app\"\nDB_PASSWORD = \"«password»\"\n\n"
          "[owner]\nname = \"«name»\"\nemail = \"«email»\"\nphone = \"«phone»\"\n\n[smtp]\npassword = '«pw2»'\n", p, pw2=S(password(rng)))
    return f"toml/config_{i}.toml", d


def pyproject(rng, ps, i):
    d = Doc()
    d.add("[project]\nname = \"kundenportal\"\nversion = \"1.2.0\"\nauthors = [\n")
    for p in ps:
        d.add("  { name = \"«name»\", email = \"«email»\" },\n", p)
    d.add("]\nrequires-python = \">=3.10\"\n")
    return f"toml/pyproject_{i}.toml", d


def package_json(rng, ps, i):
    d = Doc()
    d.add("{\n  \"name\": \"@shop/checkout\",\n  \"version\": \"2.1.0\",\n  \"author\": \"«name» <«email»> («url»)\",\n  \"contributors\": [\n", ps[0])
    for k, p in enumerate(ps[1:]):
        d.add("    { \"name\": \"«name»\", \"email\": \"«email»\" }" + (",\n" if k < len(ps) - 2 else "\n"), p)
    d.add("  ],\n  \"license\": \"MIT\"\n}\n")
    return f"json/package_{i}.json", d


def json_fixture(rng, ps, i):
    d = Doc()
    d.add("[\n")
    for k, p in enumerate(ps):
        d.add("  {\n    \"vorname\": \"«first»\",\n    \"nachname\": \"«last»\",\n    \"email\": \"«email»\",\n    \"telefon\": \"«phone»\",\n"
              "    \"iban\": \"«iban_print»\",\n    \"geburtsdatum\": \"«birth_de»\",\n    \"anschrift\": {\"strasse\": \"«street»\", \"plz\": \"«plz»\", \"ort\": \"«town»\"},\n"
              "    \"steuerId\": \"«steuer_id»\",\n    \"kreditkarte\": \"«card_fmt»\"\n  }" + (",\n" if k < len(ps) - 1 else "\n"), p)
    d.add("]\n")
    return f"json/fixtures/kunden_{i}.json", d


def csv_semicolon(rng, ps, i):
    d = Doc()
    d.add("Kundennr;Vorname;Nachname;Straße;PLZ;Ort;IBAN;Geburtsdatum;Telefon;E-Mail\n")
    for p in ps:
        d.add("«id»;«first»;«last»;«street»;«plz»;«town»;«iban»;«birth_de»;«phone»;«email»\n", p)
    return f"csv/kunden_export_{i}.csv", d


def csv_comma(rng, ps, i):
    d = Doc()
    d.add("id,full_name,email,mobile,iban,date_of_birth,address\n")
    for p in ps:
        d.add("«id»,«name»,«email»,«mobile»,«iban_print»,«birth_iso»,\"«street», «city»\"\n", p)
    return f"csv/members_{i}.csv", d


def csv_payroll(rng, ps, i):
    d = Doc()
    d.add("personalnr;name;sv_nummer;steuer_id;iban;eintritt\n")
    for p in ps:
        d.add("«id»;«name_rev»;«svnr»;«steuer_id»;«iban»;«eintritt»\n", p,
              eintritt=(f"{rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.{rng.randint(2005, 2023)}", "DATE"))
    return f"csv/lohn_{i}.csv", d


def log_app(rng, ps, i):
    d = Doc()
    day = (rng.randint(1, 12), rng.randint(1, 28))
    for p in ps:
        d.add("«t1» INFO  [auth] login user=«email» ip=«ip» name=\"«name»\"\n", p, t1=ts(rng, day))
        d.add("«t2» WARN  [billing] payment failed for «email» iban=«iban» amount=49.90\n", p, t2=ts(rng, day))
        d.add("«t3» DEBUG [profile] updated phone=«mobile» street=«street» city=«town»\n", p, t3=ts(rng, day))
    return f"logs/app_{i}.log", d


def log_nginx(rng, ps, i):
    d = Doc()
    for p in ps:
        d.add("«ip» - «user» [12/Mar/2024:10:1«k»:07 +0100] \"POST /api/login HTTP/1.1\" 200 512 \"-\" \"Mozilla/5.0\"\n", p, k=str(rng.randint(0, 9)))
        d.add("«ip6» - - [12/Mar/2024:10:2«k»:33 +0100] \"GET /kunden/«id» HTTP/2.0\" 200 1432 \"-\" \"curl/8.4.0\"\n", p, k=str(rng.randint(0, 9)))
    d.add("«t» sshd[2211]: Failed password for invalid user admin from «ip» port 52144 ssh2\n", ps[0], t=f"Mar 12 10:{rng.randint(10, 59)}:01")
    return f"logs/access_{i}.log", d


def log_json(rng, ps, i):
    d = Doc()
    for p in ps:
        d.add("{\"ts\":\"«t»\",\"level\":\"info\",\"msg\":\"order created\",\"customer\":\"«name»\",\"email\":\"«email»\",\"client_ip\":\"«ip»\",\"card\":\"«card»\"}\n",
              p, t=ts(rng).replace(" ", "T") + "Z")
    return f"logs/orders_{i}.jsonl", d


def log_java(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("«t» ERROR 4242 --- [nio-8080-exec-3] d.s.c.CustomerController : Validation failed for customer «name» <«email»>\n"
          "java.lang.IllegalArgumentException: invalid IBAN «iban_print» for «name»\n\tat de.shop.customer.IbanValidator.check(IbanValidator.java:42)\n"
          "\tat de.shop.customer.CustomerService.save(CustomerService.java:88)\n«t2» INFO 4242 --- [nio-8080-exec-4] d.s.a.AuthFilter : user «email@1» from «ip@1» authenticated\n",
          p, ps[1], t=ts(rng), t2=ts(rng))
    return f"logs/spring_{i}.log", d


def markdown(rng, ps, i):
    p = ps[0]
    d = Doc()
    d.add("# Kundenportal API\n\n## Beispiel\n\nEin Kunde wird so angelegt:\n\n```bash\ncurl -X POST https://api.kundenportal-intern.de/v1/kunden \\\n"
          "  -H 'Authorization: Bearer «tok»' \\\n  -d '{\"name\": \"«name»\", \"email\": \"«email»\", \"iban\": \"«iban»\"}'\n```\n\n"
          "Antwort:\n\n```json\n{\"id\": «id», \"name\": \"«name»\", \"telefon\": \"«phone»\"}\n```\n\n## Kontakt\n\n"
          "Maintainer: «name@1» (<«email@1»>), Tel. «mobile@1», Profil: «url@1»\n", p, ps[1], tok=S(secret_token(rng, "jwt")))
    return f"md/README_{i}.md", d


def markdown_py(rng, ps, i):
    d = Doc()
    d.add("## Reproduktion von Ticket #%d\n\nDer Fehler tritt bei Kundin «name» auf (geb. «birth_de»):\n\n```python\n"
          "customer = Customer(name=\"«name»\", email=\"«email»\", iban=\"«iban»\")\ncustomer.address = \"«street», «city»\"\n"
          "billing.charge(customer, card=\"«card»\")\n```\n\n```sql\nSELECT * FROM customers WHERE email = '«email»';\n```\n\nGemeldet von «name@1», «date_rep».\n" % rng.randint(100, 999),
          ps[0], ps[1], date_rep=(f"{rng.randint(1, 28)}. {rng.choice(['Januar', 'März', 'Mai', 'Juli', 'Oktober'])} 2024", "DATE"))
    return f"md/tickets/ticket_{i}.md", d


def changelog(rng, ps, i):
    d = Doc()
    d.add("# Changelog\n\n")
    for k, p in enumerate(ps):
        d.add("## [1.%d.0] - 2024-0%d-1%d\n\n- Fix: IBAN-Prüfung (danke an «name», «email»)\n\n" % (9 - k, rng.randint(1, 9), rng.randint(0, 9)), p)
    return f"md/CHANGELOG_{i}.md", d


TEMPLATES = [
    # (function, files, people per file)
    (py_fixture, 4, (2, 3)),
    (py_dataclass, 3, (1, 2)),
    (py_django_seed, 3, (1, 2)),
    (py_settings, 4, (2, 2)),
    (py_comments, 3, (2, 2)),
    (py_unittest, 3, (1, 2)),
    (py_sv, 3, (2, 3)),
    (js_users, 4, (2, 3)),
    (js_jest, 4, (1, 1)),
    (js_config, 4, (1, 1)),
    (ts_fixture, 4, (1, 2)),
    (ts_env, 4, (2, 2)),
    (ts_spec, 3, (1, 2)),
    (java_test, 4, (2, 2)),
    (java_builder, 3, (2, 3)),
    (java_ctor, 3, (1, 2)),
    (properties, 3, (1, 1)),
    (go_test, 4, (2, 3)),
    (go_config, 4, (1, 1)),
    (go_struct, 3, (1, 2)),
    (rust_test, 4, (2, 2)),
    (rust_const, 4, (2, 2)),
    (csharp, 3, (2, 3)),
    (appsettings, 3, (1, 1)),
    (php, 3, (2, 2)),
    (php_seeder, 3, (1, 2)),
    (sql_insert, 3, (2, 3)),
    (sql_single, 3, (1, 2)),
    (sql_user, 3, (2, 2)),
    (shell, 4, (1, 1)),
    (shell_git, 4, (1, 1)),
    (dotenv, 4, (1, 1)),
    (yaml_compose, 3, (2, 2)),
    (yaml_spring, 4, (1, 1)),
    (yaml_fixture, 3, (1, 2)),
    (yaml_k8s, 3, (1, 1)),
    (toml_cfg, 3, (2, 2)),
    (toml_app, 3, (1, 1)),
    (pyproject, 3, (1, 2)),
    (package_json, 3, (2, 3)),
    (json_fixture, 3, (1, 2)),
    (csv_semicolon, 3, (2, 3)),
    (csv_comma, 3, (2, 3)),
    (csv_payroll, 3, (2, 3)),
    (log_app, 4, (1, 2)),
    (log_nginx, 3, (1, 3)),
    (log_json, 3, (2, 3)),
    (log_java, 3, (2, 2)),
    (markdown, 4, (2, 2)),
    (markdown_py, 3, (2, 2)),
    (changelog, 3, (1, 3)),
]


def kind_of(fn):
    return fn.__name__


def generate(dst_dir):
    rng = random.Random(SEED)
    files = []
    for fn, count, (lo, hi) in TEMPLATES:
        for i in range(count):
            ps = [make_person(rng) for _ in range(rng.randint(lo, hi))]
            rel, doc = fn(rng, ps, i)
            text = doc.text()
            path = os.path.join(dst_dir, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            files.append({"path": path, "kind": kind_of(fn), "text": text, "values": list(doc.values)})
    return files


if __name__ == "__main__":
    import collections
    import sys
    import tempfile

    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    fs = generate(out)
    types = collections.Counter(t for f in fs for _, _, t in f["values"])
    print(f"{len(fs)} files, {sum(types.values())} values in {out}: {dict(types)}")
