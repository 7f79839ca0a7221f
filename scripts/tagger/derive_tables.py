#!/usr/bin/env python3
"""Derive the name tagger's compact feature tables from two PyPI packages.

Run in a throwaway virtual environment (the packages are not dependencies of the project):

    python3 -m venv /tmp/tagvenv
    /tmp/tagvenv/bin/pip install spacy-lookups-data==1.0.5 german-nouns==1.2.5
    /tmp/tagvenv/bin/python scripts/tagger/derive_tables.py crates/detect/data/tagger

Writes
  clusters.tsv  `word<TAB>cluster`: the Brown-style cluster (an integer whose binary digits are the
                path in the cluster tree) of the frequent German words, from spacy-lookups-data's
                `de_lexeme_cluster` (MIT). Kept: capitalised words among the CAPITALISED most
                probable words (names, towns, nouns: what the tagger decides) and the LOWER most
                probable other words (the context around them). Words in cluster 0 (unclustered)
                are dropped.
  nouns.txt     common-noun forms (all cases, singular and plural) from german-nouns (CC BY-SA
                4.0), entries that are only common nouns (no given name, surname, toponym or proper
                name reading), restricted to forms in the top NOUN_VOCAB words by probability so the
                table stays small.
The output is deterministic (sorted).
"""
import csv
import gzip
import json
import os
import sys

import german_nouns
import spacy_lookups_data

CAPITALISED = 1_000_001  # all of them: 200,000 gave GermEval CV F1 0.812, 400,000 0.821, all 0.835
LOWER = 30_000
NOUN_VOCAB = 600_000
PROPER = {"Vorname", "Nachname", "Toponym", "Eigenname", "Straßenname", "Abkürzung"}


def main(out_dir):
    data = os.path.join(list(spacy_lookups_data.__path__)[0], "data")
    clusters = json.load(gzip.open(os.path.join(data, "de_lexeme_cluster.json.gz")))
    prob = json.load(gzip.open(os.path.join(data, "de_lexeme_prob.json.gz")))
    by_prob = sorted(clusters, key=lambda w: (-prob.get(w, -100.0), w))
    keep = {}
    for w in by_prob[:CAPITALISED]:
        if clusters[w] and w[:1].isupper() and "\t" not in w:
            keep[w] = clusters[w]
    for w in by_prob[:LOWER]:
        if clusters[w] and not w[:1].isupper() and "\t" not in w:
            keep[w] = clusters[w]
    with open(os.path.join(out_dir, "clusters.tsv"), "w", encoding="utf-8") as f:
        f.write("# derived from spacy-lookups-data 1.0.5 de_lexeme_cluster (MIT); "
                "see scripts/tagger/derive_tables.py\n")
        for w in sorted(keep):
            f.write(f"{w}\t{keep[w]}\n")

    vocab = set(by_prob[:NOUN_VOCAB])
    path = os.path.join(list(german_nouns.__path__)[0], "nouns.csv")
    forms = set()
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            pos = set(row["pos"].split(","))
            if "Substantiv" not in pos or pos & PROPER:
                continue
            for k, v in row.items():
                if k in ("lemma", "pos") or k.startswith("genus") or not v:
                    continue
                if v[:1].isupper() and " " not in v and v in vocab:
                    forms.add(v)
    with open(os.path.join(out_dir, "nouns.txt"), "w", encoding="utf-8") as f:
        f.write("# derived from german-nouns 1.2.5 (CC BY-SA 4.0); "
                "see scripts/tagger/derive_tables.py\n")
        for w in sorted(forms):
            f.write(w + "\n")
    print(f"clusters: {len(keep)} words, nouns: {len(forms)} forms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "crates/detect/data/tagger")
