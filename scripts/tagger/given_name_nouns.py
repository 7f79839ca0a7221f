#!/usr/bin/env python3
"""Drop listed given names that are mostly names from the common-noun table.

german-nouns lists `Anna`, `Eva`, `Hans`, `Horst`, `Dirk`, `Charlotte` as common nouns too (a
coin, a lockpick, a nest), so a lone `Anna` mid-sentence counted as a noun: closed for the name
tagger and vetoed for the rules. Whether a word is mostly a name is read from its word cluster:
a given name of crates/detect/data/first_names.txt leaves crates/detect/data/tagger/nouns.txt when at least GIVEN_SHARE of
the capitalised words in its cluster (crates/detect/data/tagger/clusters.tsv) are listed given names (`Anna`,
`Hans`: 0.18 and 0.30), and stays when its cluster is one of nouns or months (`Juni` 0.10,
`Rose` 0.01, `Gabel` 0.001). Run after scripts/tagger/derive_tables.py, from the repository root:

    python3 scripts/tagger/given_name_nouns.py
"""
import collections

GIVEN_SHARE = 0.15


def words(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f]


def main():
    clusters = {}
    for line in words("crates/detect/data/tagger/clusters.tsv"):
        parts = line.split("\t")
        if len(parts) == 2 and not line.startswith("#"):
            clusters[parts[0]] = int(parts[1])
    first = {w.strip() for w in words("crates/detect/data/first_names.txt") if w.strip() and not w.startswith("#")}
    total, given = collections.Counter(), collections.Counter()
    for w, c in clusters.items():
        if w[:1].isupper():
            total[c] += 1
            given[c] += w in first
    lines = words("crates/detect/data/tagger/nouns.txt")
    kept, dropped = [], []
    for line in lines:
        c = clusters.get(line)
        if line in first and c is not None and given[c] >= GIVEN_SHARE * total[c]:
            dropped.append(line)
        else:
            kept.append(line)
    with open("crates/detect/data/tagger/nouns.txt", "w", encoding="utf-8") as f:
        f.write("\n".join(kept) + "\n")
    print(f"dropped {len(dropped)} given names: {' '.join(dropped[:40])} ...")


if __name__ == "__main__":
    main()
