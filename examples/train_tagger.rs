//! Trains the name tagger (`src/detect/tagger/`) and measures it, deterministically.
//!
//! ```bash
//! # rebuild crates/detect/data/tagger/weights.bin from every corpus plus the synthetic prompts
//! cargo run --release --example train_tagger -- train
//! # GermEval's dev split held out (the tagger trained on everything else, as `train`), PERSON
//! # per source and LOCATION; `--write` also writes the weights file
//! cargo run --release --example train_tagger -- heldout [--write]
//! # cross-validated PERSON on GermEval's dev split: rules, tagger, rules + tagger per fold
//! cargo run --release --example train_tagger -- cv [FOLDS]
//! # the same, and every false negative/positive of rules + tagger with its class in FILE
//! cargo run --release --example train_tagger -- cv 5 --misses FILE
//! # save the fold models, then measure decode-time and combination variants without training
//! TAGGER_SAVE_FOLDS=DIR cargo run --release --example train_tagger -- cv 5
//! TAGGER_LOAD_FOLDS=DIR TAGGER_DECODE_BIAS=10,10 cargo run --release --example train_tagger -- cv 5
//! # PERSON and LOCATION overlap on dev.jsonl with the weights file as it is now on disk (no
//! # rebuild between training variants); `TAGGER_SHOW=1` lists the false positives and misses,
//! # `TAGGER_WEIGHTS=FILE` reads another weights file (a fold's, saved by `cv`)
//! cargo run --release --example train_tagger -- dev [CORPUS]
//! ```
//!
//! Material: `../shared/data/ner/` (see its README; `TARNKAPPE_NER_DIR` overrides the path) and
//! sentences generated from `crates/detect/data/tagger/templates.txt` with the gazetteers in `crates/detect/data/`.

use std::sync::Arc;

use tarnkappe::detect::tagger::model::{Model, B_PER, I_PER};
use tarnkappe::detect::tagger::train::{
    fill_template, parse_columns, train, Columns, Config, Document, Kind,
};
use tarnkappe::detect::tagger::Tagger;
use tarnkappe::detect::{registry, Detector, EntityType, Text};

#[path = "../benches/support/prose.rs"]
#[allow(dead_code)] // shared with the benches; this example uses only `prose()`
mod prose;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn read_bytes(path: &str) -> Res<Vec<u8>> {
    std::fs::read(path).map_err(|e| format!("{path}: {e}").into())
}

/// `TAGGER_DECODE_BIAS=B,I` adds B to every open word's `B-PER` score and I to its `I-PER`
/// score of a trained model, on top of the biases `train` bakes in (`TAGGER_PERSON_BIAS`,
/// `TAGGER_INSIDE_BIAS`): a sweep over saved fold models without retraining.
fn decode_bias(model: &mut Model) -> Res<()> {
    if let Ok(v) = std::env::var("TAGGER_DECODE_BIAS") {
        let (b, i) = v.split_once(',').ok_or("TAGGER_DECODE_BIAS=B,I")?;
        model.shift_label(B_PER, b.trim().parse()?);
        model.shift_label(I_PER, i.trim().parse()?);
    }
    Ok(())
}

fn read(path: &str) -> Res<String> {
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}").into())
}

fn cols(token: usize, tag: usize, from_end: bool, max: usize) -> Columns {
    Columns {
        token,
        tag,
        tag_from_end: from_end,
        max_tokens: max,
    }
}

/// GermEval 2014's dev split: held out, it measures (`heldout`, `cv`) and is never trained on
/// by `train`.
fn germeval(dir: &str) -> Res<Vec<Document>> {
    Ok(parse_columns(
        &read(&format!("{dir}/germeval2014-dev.tsv"))?,
        cols(1, 2, false, 0),
    ))
}

/// GermEval 2014's train split; `TAGGER_GE_TRAIN_KEEP` per mille of its sentences (every n-th,
/// for short runs while exploring).
fn germeval_train(dir: &str) -> Res<Vec<Document>> {
    let keep = env_num("TAGGER_GE_TRAIN_KEEP", 1000)?;
    Ok(parse_columns(
        &read(&format!("{dir}/germeval2014-train.bio.tsv"))?,
        cols(0, 1, false, 0),
    )
    .into_iter()
    .enumerate()
    .filter(|(i, _)| keep >= 1000 || (i * keep) % 1000 + keep >= 1000)
    .map(|(_, d)| d)
    .collect())
}

/// Modern and historical German with person and place labels beyond GermEval: SmartData (news,
/// tweets, traffic), BIOfid (biodiversity literature), DER STURM letters, HIPE-2022 ajmc
/// (classical commentaries). `TAGGER_NOMORE` leaves them out.
fn more(dir: &str) -> Res<Vec<Document>> {
    let mut out = Vec::new();
    if std::env::var("TAGGER_NOMORE").is_ok() {
        return Ok(out);
    }
    out.extend(parse_columns(
        &read(&format!("{dir}/smartdata-v1.conll"))?,
        cols(0, 1, false, 0),
    ));
    for f in ["dev", "test"] {
        out.extend(parse_columns(
            &read(&format!("{dir}/biofid/{f}.conll"))?,
            cols(0, 0, true, 0),
        ));
    }
    out.extend(parse_columns(
        &read(&format!("{dir}/neiss-sturm.conll"))?,
        cols(0, 1, false, 0),
    ));
    for f in ["train", "dev", "test"] {
        out.extend(parse_columns(
            &read(&format!(
                "{dir}/hipe2022-ajmc-de/HIPE-2022-v2.1-ajmc-{f}-de.conll"
            ))?,
            cols(0, 1, false, 0),
        ));
    }
    Ok(out)
}

/// Every corpus but GermEval.
fn others(dir: &str) -> Res<Vec<Document>> {
    let mut out = Vec::new();
    let historical = std::env::var("TAGGER_NOHIST").is_err();
    // Per mille of the HIPE documents kept (every n-th), and Europeana on or off.
    let keep = env_num("TAGGER_HIST_KEEP", 250)?;
    let europeana = std::env::var("TAGGER_NOEURO").is_err();
    for f in [
        "hipe2022-newseye-de-dev.tsv",
        "hipe2022-newseye-de-test.tsv",
        "hipe2022-sonar-de-dev.tsv",
        "hipe2022-sonar-de-test.tsv",
    ]
    .into_iter()
    .filter(|_| historical)
    {
        let docs = parse_columns(&read(&format!("{dir}/{f}"))?, cols(0, 1, false, 60));
        out.extend(
            docs.into_iter()
                .enumerate()
                .filter(|(i, _)| (i * keep) % 1000 + keep >= 1000 || keep >= 1000)
                .map(|(_, d)| d),
        );
    }
    for f in [
        "europeana-de-lft.bio",
        "europeana-de-onb.bio",
        "europeana-de-sbb.bio",
    ]
    .into_iter()
    .filter(|_| europeana)
    {
        out.extend(parse_columns(
            &read(&format!("{dir}/{f}"))?,
            cols(0, 1, false, 40),
        ));
    }
    for f in ["train", "dev", "test"] {
        out.extend(parse_columns(
            &read(&format!("{dir}/mobie/{f}.conll2003"))?,
            cols(0, 0, true, 0),
        ));
    }
    Ok(out)
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x % n.max(1) as u64) as usize
    }
}

fn gazetteer(path: &str) -> Res<Vec<String>> {
    Ok(read(path)?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.contains(' '))
        .map(str::to_owned)
        .collect())
}

/// Where a name may be cut for [`invent`]: after a vowel followed by a consonant, away from
/// both ends (character offsets).
fn cuts(name: &str) -> Vec<usize> {
    let cs: Vec<char> = name.chars().collect();
    let vowel = |c: char| "aeiouyäöüéèáàíóúąęı".contains(c.to_lowercase().next().unwrap_or(c));
    (2..cs.len().saturating_sub(1))
        .filter(|&i| vowel(cs[i - 1]) && !vowel(cs[i]))
        .collect()
}

/// A name no gazetteer lists: the head of one listed name joined to the tail of another
/// (`Kowal` + `ierski`). The tagger must learn names from their context and form, not only
/// from the lexicon classes, or it misses every name the lists lack (`Gegen Ribéry …`).
fn invent(
    rng: &mut Rng,
    list: &[String],
    known: &std::collections::HashSet<String>,
) -> Option<String> {
    for _ in 0..8 {
        let (a, b) = (&list[rng.below(list.len())], &list[rng.below(list.len())]);
        let (ca, cb) = (cuts(a), cuts(b));
        if ca.is_empty() || cb.is_empty() {
            continue;
        }
        let i = ca[rng.below(ca.len())];
        let j = cb[rng.below(cb.len())];
        let head: String = a.chars().take(i).collect();
        let tail: String = b.chars().skip(j).collect();
        let name = format!("{head}{tail}");
        if name.chars().count() >= 4 && !known.contains(&name.to_lowercase()) {
            return Some(name);
        }
    }
    None
}

/// Names and places the templates are filled from, and the set of every listed word (so that an
/// invented name is one no list holds).
struct Fill {
    first: Vec<String>,
    last: Vec<String>,
    towns: Vec<String>,
    world: Vec<String>,
    known: std::collections::HashSet<String>,
}

impl Fill {
    fn load() -> Res<Fill> {
        let first = gazetteer("crates/detect/data/first_names.txt")?;
        let last = gazetteer("crates/detect/data/last_names.txt")?;
        let towns = gazetteer("crates/detect/data/towns_dach.txt")?;
        let world = gazetteer("crates/detect/data/places_world.txt")?;
        let known = [&first, &last, &towns, &world]
            .into_iter()
            .flatten()
            .map(|w| w.to_lowercase())
            .collect();
        Ok(Fill {
            first,
            last,
            towns,
            world,
            known,
        })
    }
}

fn templates(path: &str) -> Res<Vec<String>> {
    Ok(read(path)?
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.replace("\\n", "\n"))
        .collect())
}

/// `rounds` passes over the templates of `path`, placeholders filled from the gazetteers or
/// (`{L}` one time in two, `{F}` one in four; `TAGGER_INVENT` per mille of `{L}`) with invented
/// names no list holds. `{F}` given name, `{L}` surname (both PER; a surname right after a given
/// name continues its mention), `{T}` town and `{W}` place elsewhere (LOC); `<o>…</o>` marks one
/// organisation or work (OTH), placeholders inside it are no mentions of their own.
fn synthetic(path: &str, rounds: usize, seed: u64, invent_places: usize) -> Res<Vec<Document>> {
    let fill = Fill::load()?;
    let templates = templates(path)?;
    let mut rng = Rng(seed);
    // Per mille of surnames invented (given names: half as often).
    let invent_l = env_num("TAGGER_INVENT", 500)?;
    let invent_f = invent_l / 2;
    let mut out = Vec::new();
    for _ in 0..rounds {
        for t in &templates {
            out.push(fill_template(t, |key| {
                let (list, kind) = match key {
                    "F" => (&fill.first, Kind::Person),
                    "L" => (&fill.last, Kind::Person),
                    "T" => (&fill.towns, Kind::Location),
                    "W" => (&fill.world, Kind::Location),
                    _ => return None,
                };
                let invented = match key {
                    "F" if rng.below(1000) < invent_f => invent(&mut rng, list, &fill.known),
                    "L" if rng.below(1000) < invent_l => invent(&mut rng, list, &fill.known),
                    "T" | "W" if invent_places > 0 && rng.below(1000) < invent_places => {
                        invent(&mut rng, list, &fill.known)
                    }
                    _ => None,
                };
                Some((
                    invented.unwrap_or_else(|| list[rng.below(list.len())].clone()),
                    kind,
                ))
            }));
        }
    }
    Ok(out)
}

fn config() -> Res<Config> {
    let mut cfg = Config::default();
    if let Ok(e) = std::env::var("TAGGER_EPOCHS") {
        cfg.epochs = e.parse()?;
    }
    if let Ok(b) = std::env::var("TAGGER_PERSON_BIAS") {
        cfg.person_bias = b.parse()?;
    }
    if let Ok(b) = std::env::var("TAGGER_INSIDE_BIAS") {
        cfg.inside_bias = b.parse()?;
    }
    if let Ok(b) = std::env::var("TAGGER_SHARE") {
        cfg.share = b.parse()?;
    }
    cfg.log2 = env_num("TAGGER_LOG2", cfg.log2 as usize)? as u32;
    cfg.dropout = env_num("TAGGER_DROPOUT", cfg.dropout as usize)? as u32;
    Ok(cfg)
}

/// Everything `train` learns from: every corpus but GermEval's dev split (GermEval's train
/// split counting `TAGGER_GE_WEIGHT` times) and the synthetic sentences.
fn material(dir: &str) -> Res<Vec<Document>> {
    let mut docs = others(dir)?;
    docs.extend(more(dir)?);
    docs.extend(weighted(&germeval_train(dir)?)?);
    docs.extend(synthetic(
        "crates/detect/data/tagger/templates.txt",
        env_num("TAGGER_SYNTH", 40)?,
        0x5eed_7a67,
        0,
    )?);
    // News- and encyclopedia-style sentences: lone surnames, roles, parties, quotes.
    docs.extend(synthetic(
        "crates/detect/data/tagger/news_templates.txt",
        env_num("TAGGER_NEWS", 10)?,
        0x6e65_7773,
        env_num("TAGGER_INVENT_PLACE", 500)?,
    )?);
    Ok(docs)
}

fn env_num(key: &str, default: usize) -> Res<usize> {
    Ok(match std::env::var(key) {
        Ok(v) => v.parse()?,
        Err(_) => default,
    })
}

/// GermEval (the domain the figures are measured on) counts `TAGGER_GE_WEIGHT` times.
fn weighted(ge: &[Document]) -> Res<Vec<Document>> {
    let w = env_num("TAGGER_GE_WEIGHT", 1)?;
    Ok((0..w).flat_map(|_| ge.iter().cloned()).collect())
}

/// Overlap counts as `score.py` makes them: (predictions overlapping gold, gold overlapped,
/// predictions, gold).
#[derive(Default, Clone, Copy)]
struct Counts {
    tp_p: usize,
    tp_r: usize,
    pred: usize,
    gold: usize,
}

impl Counts {
    fn add(&mut self, pred: &[(usize, usize)], gold: &[(usize, usize)]) {
        let ov = |a: (usize, usize), b: (usize, usize)| a.0 < b.1 && b.0 < a.1;
        self.tp_p += pred
            .iter()
            .filter(|p| gold.iter().any(|g| ov(**p, *g)))
            .count();
        self.tp_r += gold
            .iter()
            .filter(|g| pred.iter().any(|p| ov(*p, **g)))
            .count();
        self.pred += pred.len();
        self.gold += gold.len();
    }
    fn merge(&mut self, o: Counts) {
        self.tp_p += o.tp_p;
        self.tp_r += o.tp_r;
        self.pred += o.pred;
        self.gold += o.gold;
    }
    fn show(&self) -> String {
        let p = self.tp_p as f64 / self.pred.max(1) as f64;
        let r = self.tp_r as f64 / self.gold.max(1) as f64;
        let f = if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
        format!("P {p:.3} R {r:.3} F1 {f:.3}")
    }
}

fn char_span(s: &str, a: usize, b: usize) -> (usize, usize) {
    (s[..a].chars().count(), s[..b].chars().count())
}

fn persons(detector: &Detector, s: &str) -> Vec<(usize, usize)> {
    found(detector, s, EntityType::Person)
}

fn found(detector: &Detector, s: &str, t: EntityType) -> Vec<(usize, usize)> {
    detector
        .detect(s)
        .iter()
        .filter(|f| f.entity_type == t)
        .map(|f| (f.start, f.end))
        .collect()
}

/// Error classes of one CV run (`cv … --misses FILE`): each false negative and false positive
/// of rules + tagger with the reason, written to FILE, counted per class on stdout.
#[derive(Default)]
struct Misses {
    lines: Vec<String>,
    classes: std::collections::BTreeMap<String, usize>,
}

impl Misses {
    fn add(&mut self, kind: &str, class: String, fold: usize, value: &str, s: &str) {
        self.lines
            .push(format!("{kind}\t{class}\t{}\t{value}\t{s}", fold + 1));
        *self.classes.entry(format!("{kind} {class}")).or_default() += 1;
    }

    /// Classifies the misses of one sentence.
    #[allow(clippy::too_many_arguments)]
    fn sentence(
        &mut self,
        fold: usize,
        s: &str,
        d: &Document,
        gold: &[(usize, usize)],
        rules: &[(usize, usize)],
        got: &[(usize, usize)],
        text: &Text<'_>,
        tagging: &tarnkappe::detect::tagger::Tagging,
    ) {
        use tarnkappe::detect::tagger::features::closed_reason;
        let ov = |a: (usize, usize), b: (usize, usize)| a.0 < b.1 && b.0 < a.1;
        let v = text.view();
        let value = |(a, b): (usize, usize)| -> String { s.chars().skip(a).take(b - a).collect() };
        let words: Vec<(usize, usize)> = text
            .words()
            .iter()
            .map(|w| char_span(v, w.start, w.end))
            .collect();
        let mentions: Vec<((usize, usize), Kind)> = tagging
            .mentions
            .iter()
            .map(|m| (char_span(v, m.start, m.end), m.kind))
            .collect();
        let tagged =
            |g: (usize, usize), k: Kind| mentions.iter().any(|&(m, mk)| mk == k && ov(m, g));
        for &g in gold.iter().filter(|&&g| !got.iter().any(|&p| ov(p, g))) {
            let inside: Vec<usize> = (0..words.len()).filter(|&k| ov(words[k], g)).collect();
            let class = if inside.iter().all(|&k| !tagging.open[k]) {
                let mut why: Vec<&str> = inside
                    .iter()
                    .filter_map(|&k| closed_reason(text, k))
                    .collect();
                why.sort_unstable();
                why.dedup();
                format!("closed:{}", why.join("+"))
            } else if tagged(g, Kind::Person) {
                "tagger PER, dropped by combine".into()
            } else if rules.iter().any(|&p| ov(p, g)) {
                "rules found, vetoed".into()
            } else if tagged(g, Kind::Location) {
                "open, tagger LOC".into()
            } else if tagged(g, Kind::Other) {
                "open, tagger OTH".into()
            } else {
                "open, tagger O".into()
            };
            self.add("FN", class, fold, &value(g), s);
        }
        for &p in got.iter().filter(|&&p| !gold.iter().any(|&g| ov(p, g))) {
            let by_rules = rules.iter().any(|&r| ov(r, p));
            let by_tagger = tagged(p, Kind::Person);
            let source = match (by_rules, by_tagger) {
                (true, true) => "both",
                (true, false) => "rules",
                (false, true) => "tagger",
                (false, false) => "combine",
            };
            let gold_kind = d
                .spans
                .iter()
                .map(|x| (char_span(s, x.0, x.1), x.2))
                .find(|&(g, _)| ov(g, p))
                .map_or("O", |(_, k)| match k {
                    Kind::Location => "LOC",
                    Kind::Other => "OTH",
                    Kind::Person => "PER",
                });
            self.add(
                "FP",
                format!("{source}, gold {gold_kind}"),
                fold,
                &value(p),
                s,
            );
        }
    }
}

/// `folds == 0`: GermEval's dev split held out whole, the tagger trained on `material` alone
/// (what `train` ships; `TAGGER_SAVE_FOLDS=DIR` keeps it as `DIR/fold1.bin`).
fn cv(dir: &str, folds: usize, misses_to: Option<&str>) -> Res<()> {
    let heldout = folds == 0;
    let folds = folds.max(1);
    let mut misses = Misses::default();
    let ge = germeval(dir)?;
    // `TAGGER_LOAD_FOLDS=DIR` reads the fold models a run with `TAGGER_SAVE_FOLDS=DIR` wrote
    // (decode-time and combination variants without retraining).
    let load = std::env::var("TAGGER_LOAD_FOLDS").ok();
    let base = match load {
        Some(_) => Vec::new(),
        None => material(dir)?,
    };
    // Never the compiled-in tagger: this runs before new weights are compiled in.
    let rules = Detector::with_recognizers(registry::all());
    let (mut tr, mut tt, mut tc) = (Counts::default(), Counts::default(), Counts::default());
    let (mut loc_t, mut loc_c) = (Counts::default(), Counts::default());
    println!("| fold | sentences | rules alone | tagger alone | rules + tagger |");
    println!("|---|---:|---|---|---|");
    for k in 0..folds {
        let (lo, hi) = (ge.len() * k / folds, ge.len() * (k + 1) / folds);
        let (lo, hi) = if heldout { (0, ge.len()) } else { (lo, hi) };
        let mut model = match &load {
            Some(from) => Model::from_bytes(&read_bytes(&format!("{from}/fold{}.bin", k + 1))?)?,
            None => {
                let mut docs = base.clone();
                docs.extend(weighted(&ge[..lo])?);
                docs.extend(weighted(&ge[hi..])?);
                let started = std::time::Instant::now();
                let m = train(&docs, config()?);
                eprintln!(
                    "fold {}: trained on {} documents in {:.1} s",
                    k + 1,
                    docs.len(),
                    started.elapsed().as_secs_f64()
                );
                m
            }
        };
        if let Ok(dir) = std::env::var("TAGGER_SAVE_FOLDS") {
            std::fs::write(format!("{dir}/fold{}.bin", k + 1), model.to_bytes())?;
        }
        decode_bias(&mut model)?;
        let tagger = Arc::new(Tagger::new(model));
        let combined =
            Detector::with_recognizers(registry::all()).with_tagger(Some(tagger.clone()));
        let (mut cr, mut ct, mut cc) = (Counts::default(), Counts::default(), Counts::default());
        let (mut lt, mut lc) = (Counts::default(), Counts::default());
        for d in &ge[lo..hi] {
            let s = d.text.as_str();
            let gold: Vec<(usize, usize)> = d
                .spans
                .iter()
                .filter(|x| x.2 == Kind::Person)
                .map(|x| char_span(s, x.0, x.1))
                .collect();
            cr.add(&persons(&rules, s), &gold);
            cc.add(&persons(&combined, s), &gold);
            let text = Text::new(s);
            let tagging = tagger.tag(&text);
            let gold_loc: Vec<(usize, usize)> = d
                .spans
                .iter()
                .filter(|x| x.2 == Kind::Location)
                .map(|x| char_span(s, x.0, x.1))
                .collect();
            let tagged_loc: Vec<(usize, usize)> = tagging
                .mentions
                .iter()
                .filter(|m| m.kind == Kind::Location)
                .map(|m| char_span(text.view(), m.start, m.end))
                .collect();
            lt.add(&tagged_loc, &gold_loc);
            lc.add(&found(&combined, s, EntityType::Location), &gold_loc);
            // Mentions are byte ranges of the view (same code points as `s`).
            let tagged: Vec<(usize, usize)> = tagging
                .mentions
                .iter()
                .filter(|m| m.kind == Kind::Person)
                .map(|m| char_span(text.view(), m.start, m.end))
                .collect();
            ct.add(&tagged, &gold);
            if misses_to.is_some() {
                let (r, got) = (persons(&rules, s), persons(&combined, s));
                misses.sentence(k, s, d, &gold, &r, &got, &text, &tagging);
            }
            if std::env::var("TAGGER_SHOW").is_ok() {
                let got = persons(&combined, s);
                let fmt = |v: &[(usize, usize)]| -> Vec<String> {
                    v.iter()
                        .map(|&(a, b)| s.chars().skip(a).take(b - a).collect())
                        .collect()
                };
                if got != gold {
                    eprintln!("{s}\n  gold {:?}\n  got  {:?}", fmt(&gold), fmt(&got));
                }
            }
        }
        println!(
            "| {} | {} | {} | {} | {} |",
            k + 1,
            hi - lo,
            cr.show(),
            ct.show(),
            cc.show()
        );
        tr.merge(cr);
        tt.merge(ct);
        tc.merge(cc);
        loc_t.merge(lt);
        loc_c.merge(lc);
    }
    println!(
        "LOCATION, all folds: tagger alone {}, rules + tagger {}",
        loc_t.show(),
        loc_c.show()
    );
    println!(
        "| all | {} | {} | {} | {} |",
        ge.len(),
        tr.show(),
        tt.show(),
        tc.show()
    );
    if let Some(path) = misses_to {
        std::fs::write(path, misses.lines.join("\n") + "\n")?;
        for (class, n) in &misses.classes {
            println!("{n:5} {class}");
        }
    }
    Ok(())
}

/// PERSON and LOCATION overlap counts on an eval corpus (`score.py`'s format), with the tagger
/// read from `crates/detect/data/tagger/weights.bin` at run time.
fn dev(corpus: &str) -> Res<()> {
    let path = std::env::var("TAGGER_WEIGHTS")
        .unwrap_or_else(|_| "crates/detect/data/tagger/weights.bin".into());
    let mut model = Model::from_bytes(&read_bytes(&path)?)?;
    decode_bias(&mut model)?;
    let tagger = Tagger::new(model);
    let detector = Detector::with_recognizers(registry::all()).with_tagger(Some(Arc::new(tagger)));
    let show = std::env::var("TAGGER_SHOW").is_ok();
    let types = [EntityType::Person, EntityType::Location];
    let mut counts = [Counts::default(); 2];
    for line in read(corpus)?.lines().filter(|l| !l.trim().is_empty()) {
        let doc: serde_json::Value = serde_json::from_str(line)?;
        let text = doc["text"].as_str().unwrap_or_default();
        let found = detector.detect(text);
        for (t, c) in types.iter().zip(counts.iter_mut()) {
            let gold: Vec<(usize, usize)> = doc["spans"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|x| x["type"].as_str() == Some(t.name()))
                .filter_map(|x| Some((x["start"].as_u64()? as usize, x["end"].as_u64()? as usize)))
                .collect();
            let pred: Vec<(usize, usize)> = found
                .iter()
                .filter(|f| f.entity_type == *t)
                .map(|f| (f.start, f.end))
                .collect();
            c.add(&pred, &gold);
            if show {
                for &(a, b) in pred
                    .iter()
                    .filter(|p| !gold.iter().any(|g| p.0 < g.1 && g.0 < p.1))
                {
                    let v: String = text.chars().skip(a).take(b - a).collect();
                    eprintln!("false {}: {v:?}", t.name());
                }
                for &(a, b) in gold
                    .iter()
                    .filter(|g| !pred.iter().any(|p| p.0 < g.1 && g.0 < p.1))
                {
                    let v: String = text.chars().skip(a).take(b - a).collect();
                    let around: String = text
                        .chars()
                        .skip(a.saturating_sub(40))
                        .take(b - a + 80)
                        .collect();
                    eprintln!("missed {}: {v:?} in {around:?}", t.name());
                }
            }
        }
    }
    for (t, c) in types.iter().zip(counts) {
        println!(
            "{}: {} (pred {}, gold {})",
            t.name(),
            c.show(),
            c.pred,
            c.gold
        );
    }
    Ok(())
}

/// Where `heldout` keeps its model: `TAGGER_SAVE_FOLDS` if set, else a fixed folder under the
/// system's temporary directory.
fn tempfile_dir() -> Res<String> {
    let dir = std::env::var("TAGGER_SAVE_FOLDS").unwrap_or_else(|_| {
        std::env::temp_dir()
            .join("tarnkappe-tagger-heldout")
            .to_string_lossy()
            .into_owned()
    });
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn main() -> Res<()> {
    // The main checkout sits next to `shared/`; a worktree under `wt/` one level deeper.
    let dir = std::env::var("TARNKAPPE_NER_DIR").unwrap_or_else(|_| {
        ["../shared/data/ner", "../../shared/data/ner"]
            .into_iter()
            .find(|d| std::path::Path::new(d).is_dir())
            .unwrap_or("../shared/data/ner")
            .into()
    });
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("train") => {
            let docs = material(&dir)?;
            let started = std::time::Instant::now();
            let model = train(&docs, config()?);
            let out = "crates/detect/data/tagger/weights.bin";
            std::fs::write(out, model.to_bytes())?;
            eprintln!(
                "trained on {} documents in {:.1} s, wrote {out}",
                docs.len(),
                started.elapsed().as_secs_f64()
            );
        }
        Some("cv") => {
            let rest: Vec<String> = args.collect();
            let misses = rest
                .iter()
                .position(|a| a == "--misses")
                .and_then(|i| rest.get(i + 1))
                .map(String::as_str);
            let folds = match rest.first().filter(|a| !a.starts_with("--")) {
                Some(f) => f.parse()?,
                None => 5,
            };
            cv(&dir, folds, misses)?;
        }
        Some("heldout") => {
            // GermEval's dev split held out; `--write` also writes the model to the weights
            // file (what `train` would write: the same material, the same seed).
            let write = args.any(|a| a == "--write");
            let save = tempfile_dir()?;
            std::env::set_var("TAGGER_SAVE_FOLDS", &save);
            cv(&dir, 0, None)?;
            if write {
                std::fs::copy(
                    format!("{save}/fold1.bin"),
                    "crates/detect/data/tagger/weights.bin",
                )?;
                eprintln!("wrote crates/detect/data/tagger/weights.bin");
            }
        }
        Some("dev") => {
            let corpus = args
                .next()
                .unwrap_or_else(|| dir.replace("data/ner", "eval/dev.jsonl"));
            dev(&corpus)?;
        }
        Some("probe") => {
            let tagger = Arc::new(Tagger::new(train(&material(&dir)?, config()?)));
            let d = Detector::with_recognizers(registry::all()).with_tagger(Some(tagger));
            for s in args {
                let got: Vec<String> = persons(&d, &s)
                    .iter()
                    .map(|&(a, b)| s.chars().skip(a).take(b - a).collect())
                    .collect();
                println!("{s} -> {got:?}");
            }
        }
        Some("scores") => {
            // Label scores of each open word, weights from `TAGGER_WEIGHTS` (a fold's model
            // saved by `cv` with `TAGGER_SAVE_FOLDS=DIR`) or the weights file.
            use tarnkappe::detect::tagger::{infer::emissions, model::Model};
            let path = std::env::var("TAGGER_WEIGHTS")
                .unwrap_or_else(|_| "crates/detect/data/tagger/weights.bin".into());
            let model = Model::from_bytes(&std::fs::read(&path)?)?;
            for s in args {
                let text = Text::new(&s);
                for (w, e) in text.words().iter().zip(emissions(&text, &model)) {
                    if let Some(e) = e {
                        let e: Vec<String> = e.iter().map(|x| format!("{x:7.1}")).collect();
                        println!("{:>16} {}", w.text(text.view()), e.join(" "));
                    }
                }
                println!();
            }
        }
        Some("cost") => {
            // Interleaved medians, rules alone vs rules + tagger, on the bench's prose.
            let text = prose::prose(100_000);
            let (rules, both) = (Detector::new().with_tagger(None), Detector::new());
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..60 {
                let t = std::time::Instant::now();
                std::hint::black_box(rules.detect(&text));
                a.push(t.elapsed().as_secs_f64() * 1e3);
                let t = std::time::Instant::now();
                std::hint::black_box(both.detect(&text));
                b.push(t.elapsed().as_secs_f64() * 1e3);
            }
            a.sort_by(f64::total_cmp);
            b.sort_by(f64::total_cmp);
            println!(
                "detect 100k: rules {:.2} ms, rules + tagger {:.2} ms",
                a[30], b[30]
            );
        }
        Some("diag") => {
            use tarnkappe::detect::tagger::features::{extract, Features};
            let ge = germeval(&dir)?;
            let (mut closed, mut total) = (0, 0);
            let mut f = Features::default();
            for d in &ge {
                let t = Text::new(&d.text);
                extract(&t, 1023, &mut f);
                for &(a, b, k) in &d.spans {
                    if k != Kind::Person {
                        continue;
                    }
                    total += 1;
                    let open = t
                        .words()
                        .iter()
                        .enumerate()
                        .any(|(i, w)| w.start >= a && w.start < b && f.of(i).is_some());
                    if !open {
                        closed += 1;
                        eprintln!("closed: {}", &d.text[a..b]);
                    }
                }
            }
            println!("{closed} of {total} gold persons have no open word");
            // In-sample fit (capacity check, not a figure to report).
            let tagger = Tagger::new(train(&ge, config()?));
            let mut c = Counts::default();
            for d in &ge {
                let s = d.text.as_str();
                let gold: Vec<(usize, usize)> = d
                    .spans
                    .iter()
                    .filter(|x| x.2 == Kind::Person)
                    .map(|x| char_span(s, x.0, x.1))
                    .collect();
                let text = Text::new(s);
                let tagged: Vec<(usize, usize)> = tagger
                    .tag(&text)
                    .mentions
                    .iter()
                    .filter(|m| m.kind == Kind::Person)
                    .map(|m| char_span(text.view(), m.start, m.end))
                    .collect();
                c.add(&tagged, &gold);
            }
            println!("in-sample tagger {}", c.show());
        }
        _ => return Err("usage: train_tagger train | cv [FOLDS]".into()),
    }
    Ok(())
}
