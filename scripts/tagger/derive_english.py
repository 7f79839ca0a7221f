#!/usr/bin/env python3
"""Derive the English common-word table from the PyPI package `wordfreq`.

Run in a throwaway virtual environment (the package is not a dependency of the project):

    python3 -m venv /tmp/wfvenv
    /tmp/wfvenv/bin/pip install wordfreq==3.1.1
    /tmp/wfvenv/bin/python scripts/tagger/derive_english.py crates/detect/data/english_words.tsv

Writes `word<TAB>en<TAB>de`: the lowercase English word and its Zipf frequency (log10 of
occurrences per billion words, times ten, rounded) in English and in German. Kept: the
MAX_WORDS most frequent English words of letters (an inner apostrophe or hyphen allowed) whose
English Zipf frequency is at least MIN_ZIPF. The detector reads it for two things: a capitalised
word that is a common English word (and no listed name) is no name without an anchor (`Firstly`,
`Hence`, `Member States`), and words much more frequent in English than in German tell English
text from German. The output is deterministic (sorted by word).
"""
import re
import sys

import wordfreq

MAX_WORDS = 50_000
MIN_ZIPF = 2.8
WORD = re.compile(r"^[a-z]+(?:['-][a-z]+)*$")


def main(out_path):
    rows = []
    for w in wordfreq.iter_wordlist("en", wordlist="best"):
        if len(rows) >= MAX_WORDS:
            break
        if not WORD.match(w):
            continue
        en = wordfreq.zipf_frequency(w, "en", wordlist="best")
        if en < MIN_ZIPF:
            break
        de = wordfreq.zipf_frequency(w, "de", wordlist="best")
        rows.append((w, round(en * 10), round(de * 10)))
    rows.sort()
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(
            "# English words from wordfreq 3.1.1 (data CC BY-SA 4.0): word, Zipf frequency "
            "x10 in English, in German. Derived by scripts/tagger/derive_english.py.\n"
        )
        for w, en, de in rows:
            f.write(f"{w}\t{en}\t{de}\n")
    print(f"{len(rows)} words", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
