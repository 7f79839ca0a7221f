#!/usr/bin/env python3
"""Detection on code: findings per 1,000 lines of real code, and recall on values planted in code.

Tuning figures only: the code read here is the machine's own (the Python standard library, the
cargo registry, npm packages, the JDK's sources) and the planted templates are ours, so neither
is held out. docs/detection.md#code-is-not-prose gives the figures and what they mean.

    cargo build --release -p tarnkappe-detect --example code_scan
    python3 scripts/eval/code_eval.py corpus            # file lists under target/eval/code/
    python3 scripts/eval/code_eval.py scan [--show N]   # findings per 1,000 lines, per language
    python3 scripts/eval/code_eval.py planted [--show N]  # recall and leak on planted values

`scan` counts every finding; `--show` prints the most frequent values per type so that a reader
can tell the false ones (identifiers, keywords, expressions) from real ones (author e-mails).
"""
import argparse, collections, glob, json, os, random, subprocess, sys, sysconfig, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "target", "eval", "code")
SCAN = os.path.join(ROOT, "target", "release", "examples", "code_scan")
NPM_DIR = os.environ.get("CODE_EVAL_NPM", "/tmp/npmc/node_modules")
LINES_PER_LANGUAGE = 40_000


def sample(paths, seed):
    """Files in a fixed random order until the language has enough lines."""
    paths = sorted(set(paths))
    random.Random(seed).shuffle(paths)
    chosen, lines = [], 0
    for p in paths:
        try:
            n = sum(1 for _ in open(p, encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
        if n < 20 or n > 4000:
            continue
        chosen.append(p)
        lines += n
        if lines >= LINES_PER_LANGUAGE:
            break
    return chosen


def java_sources():
    jdk = sorted(p for p in glob.glob("/usr/lib/jvm/*/lib/src.zip") if os.path.isfile(p))
    if not jdk:
        return []
    dst = os.path.join(OUT, "jdk")
    if not os.path.isdir(dst):
        with zipfile.ZipFile(jdk[0]) as z:
            names = [n for n in z.namelist() if n.startswith("java.base/java/util/") and n.endswith(".java")]
            z.extractall(dst, names)
    return glob.glob(os.path.join(dst, "**", "*.java"), recursive=True)


def corpus(_args):
    os.makedirs(OUT, exist_ok=True)
    stdlib = sysconfig.get_paths()["stdlib"]
    sources = {
        "python": glob.glob(os.path.join(stdlib, "*.py")) + glob.glob(os.path.join(stdlib, "*", "*.py")),
        "rust": glob.glob(os.path.expanduser("~/.cargo/registry/src/*/*/src/**/*.rs"), recursive=True),
        "javascript": [p for p in glob.glob(os.path.join(NPM_DIR, "**", "*.js"), recursive=True) if ".min." not in p],
        "typescript": [p for p in glob.glob(os.path.join(NPM_DIR, "**", "*.ts"), recursive=True) if not p.endswith(".d.ts")],
        "java": java_sources(),
        "shell": glob.glob("/usr/share/**/*.sh", recursive=True) + glob.glob("/etc/**/*.sh", recursive=True),
    }
    for lang, paths in sources.items():
        chosen = sample(paths, lang)
        with open(os.path.join(OUT, lang + ".list"), "w") as f:
            f.write("".join(p + "\n" for p in chosen))
        print(f"{lang}: {len(chosen)} files")


def run_scan(paths):
    proc = subprocess.run([SCAN], input="".join(p + "\n" for p in paths), capture_output=True, text=True, check=True)
    return [json.loads(l) for l in proc.stdout.splitlines()]


def scan(args):
    total_lines = total_findings = 0
    for lst in sorted(glob.glob(os.path.join(OUT, "*.list"))):
        lang = os.path.basename(lst)[:-5]
        rows = run_scan(open(lst).read().split())
        lines = sum({r["path"]: r["lines"] for r in rows}.values())
        found = [r for r in rows if "type" in r]
        total_lines += lines
        total_findings += len(found)
        by_type = collections.Counter(r["type"] for r in found)
        print(f"{lang:11} {lines:6} lines {len(found):5} findings {1000 * len(found) / max(lines, 1):6.2f}/1k  {dict(by_type)}")
        if args.show:
            for t in by_type:
                top = collections.Counter(r["value"] for r in found if r["type"] == t).most_common(args.show)
                print(f"    {t}: {top}")
    print(f"{'all':11} {total_lines:6} lines {total_findings:5} findings {1000 * total_findings / max(total_lines, 1):6.2f}/1k")


def planted(args):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import code_plants

    dst = os.path.join(OUT, "planted")
    os.makedirs(dst, exist_ok=True)
    files = code_plants.generate(dst)
    rows = run_scan([f["path"] for f in files])
    spans = collections.defaultdict(list)
    for r in rows:
        if "type" in r:
            spans[r["path"]].append((r["start"], r["end"], r["type"]))
    counts = collections.Counter()
    misses = []
    for f in files:
        found = spans[f["path"]]
        for start, end, want in f["values"]:
            covering = [t for s, e, t in found if s <= start and e >= end]
            touched = [t for s, e, t in found if s < end and e > start]
            counts["values"] += 1
            if want in covering:
                counts["recalled"] += 1
            if not touched:
                counts["leaked"] += 1
                misses.append((f["kind"], want, f["text"].encode()[start:end].decode()))
    n = counts["values"]
    print(f"planted values {n}: recall {counts['recalled'] / n:.3f}, leak {counts['leaked'] / n:.3%}")
    for kind, want, value in misses[: args.show or 0]:
        print(f"    leaked {kind} {want}: {value!r}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("corpus").set_defaults(run=corpus)
    for name, run in (("scan", scan), ("planted", planted)):
        s = sub.add_parser(name)
        s.add_argument("--show", type=int, default=0)
        s.set_defaults(run=run)
    args = p.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
