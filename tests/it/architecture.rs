//! The shape of the code: layers that point one way, no import cycle between files, no file over
//! 700 lines and no function over 100 — in the service crate (`src/`) and in the detection crate (`crates/detect/src/`).
//!
//! Every file of a library is parsed with `syn`. Each path it names (`use` trees and paths in
//! code, test modules left out) is followed to the file that *defines* the named item: a `pub use`
//! in a parent module is followed to where the item lives, so a `mod.rs` that only re-exports is
//! a facade, not a dependency of its children. A file depends on another when it names an item
//! defined there (or the module itself). The dependency graph must be acyclic; a failure prints
//! each cycle as a chain of files. Between the service's top-level modules the dependencies must
//! point down [`LAYERS`]; the detection crate sits below them all, which the compiler enforces
//! (it is a crate of its own that does not depend on the service).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

const MAX_LINES: usize = 700;
/// Longest function, in lines from `fn` to its closing brace.
const MAX_FN_LINES: usize = 100;

/// Module path (`["detect", "recognizers"]`) of one library file.
type ModPath = Vec<String>;

struct FileInfo {
    path: PathBuf,
    /// Items defined at the top level of the file.
    defs: BTreeSet<String>,
    /// Names brought in by `use` (alias → path as written).
    imports: BTreeMap<String, Vec<String>>,
    /// `use path::*` prefixes.
    globs: Vec<Vec<String>>,
    /// Every path the file's (non-test) code names.
    named: Vec<Vec<String>>,
}

/// The service crate's top-level modules, top layer first. A module may use modules of lower
/// layers only; modules of one layer do not use each other.
const LAYERS: &[&[&str]] = &[
    // The pingora server and the process around it.
    &["server"],
    // The one `ProxyHttp`: hands each request to its door.
    &["gateway"],
    // The doors: the LLM proxy and the REST API (which serves the page at `/` too).
    &["proxy", "api"],
    // The page itself: its document and the reply that carries the tenant cookie.
    &["web"],
    // The state every door shares, built once at start.
    &["app"],
    // Shared services.
    &["access", "slow_clients"],
    &["http"],
    &["ratelimit", "telemetry", "vault"],
    &[
        "tokens",
        "policy",
        "redis_client",
        "endpoints",
        "detection_cache",
    ],
    // Plain data: configuration and the JSON tree.
    &["config", "json"],
];

/// The library source folders of the workspace: the service, then the detection engine.
fn crate_roots() -> [PathBuf; 2] {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    [top.join("src"), top.join("crates/detect/src")]
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn module_path(root: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(root).expect("file under its crate root");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Flattens a `use` tree into (alias, full path) pairs; a glob has alias `*`.
fn flatten_use(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(String, Vec<String>)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                if let Some(last) = prefix.last() {
                    out.push((last.clone(), prefix.clone()));
                }
            } else {
                let mut full = prefix.clone();
                full.push(name.clone());
                out.push((name, full));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            let orig = r.ident.to_string();
            if orig != "self" {
                full.push(orig);
            }
            out.push((r.rename.to_string(), full));
        }
        syn::UseTree::Glob(_) => out.push(("*".to_string(), prefix.clone())),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, out);
            }
        }
    }
}

/// Collects the paths named by non-test code.
#[derive(Default)]
struct Collector {
    named: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            _ => &[],
        };
        if is_cfg_test(attrs) {
            return;
        }
        if let syn::Item::Use(u) = item {
            let mut out = Vec::new();
            flatten_use(&u.tree, &mut Vec::new(), &mut out);
            self.named.extend(out.into_iter().map(|(_, p)| p));
            return;
        }
        syn::visit::visit_item(self, item);
    }

    // `pub(super)`, `pub(in crate::x)`: visibility, not a dependency.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 && path.leading_colon.is_none() {
            self.named
                .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Paths inside macro bodies (`format!`, `vec!`, ...): look for `crate :: a :: b` runs.
        let toks: Vec<String> = mac
            .tokens
            .clone()
            .into_iter()
            .map(|t| t.to_string())
            .collect();
        let mut i = 0;
        while i < toks.len() {
            if matches!(toks[i].as_str(), "crate" | "super") {
                let mut path = vec![toks[i].clone()];
                let mut j = i + 1;
                while j + 2 < toks.len() + 1
                    && toks.get(j).is_some_and(|t| t == ":")
                    && toks.get(j + 1).is_some_and(|t| t == ":")
                {
                    match toks.get(j + 2) {
                        Some(t) if t.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                            path.push(t.clone());
                            j += 3;
                        }
                        _ => break,
                    }
                }
                if path.len() > 1 {
                    self.named.push(path);
                }
                i = j;
            } else {
                i += 1;
            }
        }
        syn::visit::visit_macro(self, mac);
    }
}

fn analyse(path: &Path) -> FileInfo {
    let text = std::fs::read_to_string(path).expect("read source");
    let file =
        syn::parse_file(&text).unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
    let mut defs = BTreeSet::new();
    let mut imports = BTreeMap::new();
    let mut globs = Vec::new();
    for item in &file.items {
        let ident = match item {
            syn::Item::Fn(f) => Some(&f.sig.ident),
            syn::Item::Struct(s) => Some(&s.ident),
            syn::Item::Enum(e) => Some(&e.ident),
            syn::Item::Trait(t) => Some(&t.ident),
            syn::Item::Type(t) => Some(&t.ident),
            syn::Item::Const(c) => Some(&c.ident),
            syn::Item::Static(s) => Some(&s.ident),
            syn::Item::Union(u) => Some(&u.ident),
            syn::Item::Macro(m) => m.ident.as_ref(),
            syn::Item::Mod(m) if m.content.is_some() => Some(&m.ident),
            syn::Item::Use(u) => {
                let mut out = Vec::new();
                flatten_use(&u.tree, &mut Vec::new(), &mut out);
                for (alias, p) in out {
                    if alias == "*" {
                        globs.push(p);
                    } else {
                        imports.insert(alias, p);
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(i) = ident {
            defs.insert(i.to_string());
        }
    }
    let mut c = Collector::default();
    c.visit_file(&file);
    FileInfo {
        path: path.to_path_buf(),
        defs,
        imports,
        globs,
        named: c.named,
    }
}

struct Crate {
    files: BTreeMap<ModPath, FileInfo>,
}

impl Crate {
    /// Absolute segments of `path` as written in module `at`, or `None` for an outside path.
    fn absolute(&self, at: &ModPath, path: &[String]) -> Option<Vec<String>> {
        let first = path.first()?;
        let mut base = at.clone();
        let mut rest = path;
        match first.as_str() {
            "crate" => {
                base.clear();
                rest = &path[1..];
            }
            "self" | "super" => {
                while let Some(s) = rest.first() {
                    match s.as_str() {
                        "self" => {}
                        "super" => {
                            base.pop()?;
                        }
                        _ => break,
                    }
                    rest = &rest[1..];
                }
            }
            _ => {
                let mut child = at.clone();
                child.push(first.clone());
                if !self.files.contains_key(&child) {
                    // A name imported by this file (`use super::records;` then `records::x`).
                    let imported = self.files.get(at)?.imports.get(first)?;
                    if imported.first().map(String::as_str) == Some(first.as_str()) {
                        return None;
                    }
                    let mut full = self.absolute(at, imported)?;
                    full.extend_from_slice(&path[1..]);
                    return Some(full);
                }
            }
        }
        base.extend_from_slice(rest);
        Some(base)
    }

    /// The file that defines what the absolute path names.
    fn defining_file(&self, full: &[String], depth: usize) -> Option<ModPath> {
        let k = (0..=full.len())
            .rev()
            .find(|&k| self.files.contains_key(&full[..k]))?;
        let module: ModPath = full[..k].to_vec();
        let tail = &full[k..];
        let Some(name) = tail.first() else {
            return Some(module);
        };
        if depth > 16 {
            return Some(module);
        }
        let info = &self.files[&module];
        if info.defs.contains(name) {
            return Some(module);
        }
        if let Some(imported) = info.imports.get(name) {
            if let Some(mut abs) = self.absolute(&module, imported) {
                abs.extend_from_slice(&tail[1..]);
                return self.defining_file(&abs, depth + 1).or(Some(module));
            }
            return Some(module);
        }
        for glob in &info.globs {
            if let Some(mut abs) = self.absolute(&module, glob) {
                abs.push(name.clone());
                if let Some(found) = self.defining_file(&abs, depth + 1) {
                    if found != module && self.files[&found].defs.contains(name) {
                        return Some(found);
                    }
                }
            }
        }
        Some(module)
    }

    /// The paths written in `from` that name something defined in `to`.
    fn reasons(&self, from: &ModPath, to: &ModPath) -> BTreeSet<String> {
        self.files[from]
            .named
            .iter()
            .filter(|p| {
                self.absolute(from, p)
                    .and_then(|abs| self.defining_file(&abs, 0))
                    .is_some_and(|t| &t == to)
            })
            .map(|p| p.join("::"))
            .collect()
    }

    fn edges(&self) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
        let mut edges = BTreeMap::new();
        for (m, info) in &self.files {
            let mut out = BTreeSet::new();
            for p in &info.named {
                if let Some(abs) = self.absolute(m, p) {
                    if let Some(t) = self.defining_file(&abs, 0) {
                        if &t != m {
                            out.insert(t);
                        }
                    }
                }
            }
            edges.insert(m.clone(), out);
        }
        edges
    }
}

fn load(root: &Path) -> Crate {
    let mut paths = Vec::new();
    rust_files(root, &mut paths);
    let files = paths
        .iter()
        // main.rs is the binary: a crate of its own that can only reach the library.
        .filter(|p| p.file_name().is_some_and(|n| n != "main.rs"))
        .map(|p| (module_path(root, p), analyse(p)))
        .collect();
    Crate { files }
}

/// One cycle per strongly connected component with more than one file.
fn cycles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    let nodes: Vec<&ModPath> = edges.keys().collect();
    let index: BTreeMap<&ModPath, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges[*n]
                .iter()
                .filter_map(|t| index.get(t).copied())
                .collect()
        })
        .collect();
    // Tarjan, iteratively.
    let n = nodes.len();
    let (mut idx, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut comps, mut counter) = (Vec::new(), Vec::new(), 0);
    for start in 0..n {
        if idx[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            if *next == 0 && idx[v] == usize::MAX {
                idx[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = succ[v].get(*next) {
                *next += 1;
                if idx[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(idx[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == idx[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comps.push(comp);
                }
            }
        }
    }
    // A concrete cycle inside each component: breadth-first from its first node back to itself.
    comps
        .into_iter()
        .map(|comp| {
            let inside: BTreeSet<usize> = comp.iter().copied().collect();
            let start = *comp.iter().min().expect("non-empty component");
            let mut prev = vec![usize::MAX; n];
            let mut queue = std::collections::VecDeque::from([start]);
            let mut end = None;
            'search: while let Some(v) = queue.pop_front() {
                for &w in &succ[v] {
                    if !inside.contains(&w) {
                        continue;
                    }
                    if w == start {
                        end = Some(v);
                        break 'search;
                    }
                    if prev[w] == usize::MAX {
                        prev[w] = v;
                        queue.push_back(w);
                    }
                }
            }
            let mut chain = vec![start];
            let mut v = end.expect("a component has a cycle through each node");
            while v != start {
                chain.push(v);
                v = prev[v];
            }
            chain[1..].reverse();
            chain.push(start);
            chain.into_iter().map(|i| nodes[i].clone()).collect()
        })
        .collect()
}

fn show(c: &Crate, m: &ModPath) -> String {
    c.files[m]
        .path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

/// Each cycle of `krate` as a chain of files with the paths that close it.
fn cycle_report(krate: &Crate) -> Vec<String> {
    cycles(&krate.edges())
        .iter()
        .map(|cycle| {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|w| {
                    let why: Vec<String> = krate.reasons(&w[0], &w[1]).into_iter().collect();
                    format!(
                        "{} -> {} ({})",
                        show(krate, &w[0]),
                        show(krate, &w[1]),
                        why.join(", ")
                    )
                })
                .collect();
            steps.join("\n    ")
        })
        .collect()
}

#[test]
fn no_import_cycle_between_files() {
    for root in crate_roots() {
        let report = cycle_report(&load(&root));
        assert!(
            report.is_empty(),
            "import cycles between files of {}:\n  {}",
            root.display(),
            report.join("\n  ")
        );
    }
}

/// The layer of a top-level module, or `None` for one the table does not know.
fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// Every dependency between two top-level modules that does not point down [`LAYERS`], as
/// `file -> file (paths)`; a module missing from the table is reported too.
fn against_the_layers(krate: &Crate) -> Vec<String> {
    let mut wrong = Vec::new();
    for (from, targets) in krate.edges() {
        let Some(from_top) = from.first() else {
            continue; // lib.rs: the crate's table of contents
        };
        let Some(from_layer) = layer_of(from_top) else {
            wrong.push(format!(
                "{}: module `{from_top}` is in no layer",
                show(krate, &from)
            ));
            continue;
        };
        for to in targets {
            let Some(to_top) = to.first() else { continue };
            if to_top == from_top {
                continue;
            }
            if layer_of(to_top).is_none_or(|to_layer| to_layer <= from_layer) {
                let why: Vec<String> = krate.reasons(&from, &to).into_iter().collect();
                wrong.push(format!(
                    "{} -> {} ({})",
                    show(krate, &from),
                    show(krate, &to),
                    why.join(", ")
                ));
            }
        }
    }
    wrong
}

#[test]
fn dependencies_point_down_the_layers() {
    let [service, _] = crate_roots();
    let wrong = against_the_layers(&load(&service));
    assert!(
        wrong.is_empty(),
        "imports against the layers (entry points -> doors -> shared services -> core):\n  {}",
        wrong.join("\n  ")
    );
}

/// The detection engine is a pure library: no I/O, no network, no async runtime.
#[test]
fn detection_crate_does_no_io() {
    let [_, detect] = crate_roots();
    let mut paths = Vec::new();
    rust_files(&detect, &mut paths);
    // `std::net`'s address types parse IP addresses (recognizers/ip.rs); its sockets are I/O.
    let forbidden = [
        "std::fs",
        "std::process",
        "std::env",
        "tokio",
        "File::",
        "TcpStream",
        "TcpListener",
        "UdpSocket",
    ];
    let found: Vec<String> = paths
        .iter()
        .flat_map(|p| {
            let text = std::fs::read_to_string(p).expect("read source");
            forbidden
                .iter()
                .filter(|f| text.contains(**f))
                .map(|f| format!("{} names {f}", p.display()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(found.is_empty(), "I/O in the detection crate: {found:?}");
}

#[test]
fn no_file_over_700_lines() {
    let mut paths = Vec::new();
    for root in crate_roots() {
        rust_files(&root, &mut paths);
    }
    let long: Vec<String> = paths
        .iter()
        .filter_map(|p| {
            let lines = std::fs::read_to_string(p)
                .expect("read source")
                .lines()
                .count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}

/// Every function and method with a body, nested ones too, as (lines, name, line of its `fn`):
/// lines counted from the `fn` keyword to the closing brace, doc comments and attributes left
/// out — the count of `fn_lengths.py`. Test modules (`#[cfg(test)] mod`) are left out: a table
/// of cases may be long, code may not.
#[derive(Default)]
struct FnLengths {
    found: Vec<(usize, String, usize)>,
}

impl FnLengths {
    fn note(&mut self, sig: &syn::Signature, body: &syn::Block) {
        let first = sig.fn_token.span.start().line;
        let last = body.brace_token.span.close().start().line;
        self.found
            .push((last - first + 1, sig.ident.to_string(), first));
    }
}

impl<'ast> Visit<'ast> for FnLengths {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_cfg_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.note(&f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.note(&f.sig, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.note(&f.sig, body);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn fn_lengths(src: &str) -> Vec<(usize, String, usize)> {
    let file = syn::parse_file(src).expect("source parses");
    let mut lengths = FnLengths::default();
    lengths.visit_file(&file);
    lengths.found
}

#[test]
fn no_function_over_100_lines() {
    // Functions still to be split, one entry each (none at present). A listed function that has
    // become short fails the test too, so the list only shrinks.
    const NOT_YET_SPLIT: &[(&str, &str)] = &[];
    let mut still_long = Vec::new();
    let mut paths = Vec::new();
    for root in crate_roots() {
        rust_files(&root, &mut paths);
    }
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    for p in &paths {
        let src = std::fs::read_to_string(p).expect("read source");
        for (lines, name, line) in fn_lengths(&src) {
            if lines > MAX_FN_LINES {
                let at = p.strip_prefix(top).unwrap_or(p).display().to_string();
                if NOT_YET_SPLIT.contains(&(at.as_str(), name.as_str())) {
                    still_long.push((at, name));
                    continue;
                }
                long.push(format!("{at}:{line} {name} ({lines} lines)"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines (split each by job):\n{}",
        long.join("\n")
    );
    let split: Vec<_> = NOT_YET_SPLIT
        .iter()
        .filter(|(f, n)| !still_long.iter().any(|(sf, sn)| sf == f && sn == n))
        .collect();
    assert!(
        split.is_empty(),
        "split now, remove from NOT_YET_SPLIT: {split:?}"
    );
}

/// The counter measures from `fn` to the closing brace, finds methods, trait defaults and nested
/// functions, and leaves test modules out.
#[test]
fn function_lengths_are_counted_from_fn_to_closing_brace() {
    let body = |n: usize| "    let _ = 1;\n".repeat(n);
    // `free` starts on line 3 and ends on line 103; `method` takes lines 106 to 205.
    let src = format!(
        "/// Doc lines do not count.\n#[inline]\npub fn free(\n    a: u8,\n) {{\n{}}}\n\
         struct S;\nimpl S {{\n    fn method(&self) {{\n{}    }}\n}}\n\
         trait T {{\n    fn given(&self) {{\n        fn inner() {{}}\n    }}\n    fn bare(&self);\n}}\n\
         #[cfg(test)]\nmod tests {{\n    fn long_case() {{\n{}    }}\n}}\n",
        body(97),
        body(98),
        body(200),
    );
    let mut found = fn_lengths(&src);
    found.sort_by_key(|f| f.2);
    let got: Vec<(usize, &str, usize)> = found
        .iter()
        .map(|(lines, name, line)| (*lines, name.as_str(), *line))
        .collect();
    assert_eq!(
        got,
        [
            (101, "free", 3),
            (100, "method", 106),
            (3, "given", 208),
            (1, "inner", 209)
        ],
        "test modules and bodiless trait methods are left out"
    );
}

/// The checker itself finds a cycle and follows re-exports (built on a tiny in-memory crate).
#[test]
fn checker_reports_a_cycle_and_follows_reexports() {
    let parse = |src: &str, name: &str| {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join(name);
        std::fs::write(&p, src).expect("write");
        analyse(&p)
    };
    let mut files = BTreeMap::new();
    files.insert(
        vec![],
        parse("mod a; mod b; mod c; pub use c::Thing;", "lib.rs"),
    );
    files.insert(
        vec!["a".to_string()],
        parse("pub fn f() { crate::b::g() }", "a.rs"),
    );
    files.insert(
        vec!["b".to_string()],
        parse(
            "pub fn g() { super::a::f() }\npub fn h(_: crate::Thing) {}",
            "b.rs",
        ),
    );
    files.insert(
        vec!["c".to_string()],
        parse(
            "pub struct Thing;\n#[cfg(test)] mod tests { use crate::a::f; }",
            "c.rs",
        ),
    );
    let krate = Crate { files };
    let edges = krate.edges();
    let b = vec!["b".to_string()];
    let c = vec!["c".to_string()];
    assert!(edges[&b].contains(&c), "crate::Thing resolves to c.rs");
    assert!(edges[&c].is_empty(), "test modules are left out");
    let found = cycles(&edges);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].len(), 3, "a -> b -> a");
}

/// The layer check reports an import that points up (planted in a tiny in-memory crate) and
/// accepts the same import pointing down.
#[test]
fn layer_checker_reports_an_import_against_the_direction() {
    let dir = tempfile::tempdir().expect("tempdir");
    let parse = |src: &str, name: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, src).expect("write");
        analyse(&p)
    };
    let mut files = BTreeMap::new();
    files.insert(vec![], parse("mod config; mod proxy;", "lib.rs"));
    files.insert(
        vec!["config".to_string()],
        parse(
            "pub struct Config;\npub fn f() { crate::proxy::route() }",
            "config.rs",
        ),
    );
    files.insert(
        vec!["proxy".to_string()],
        parse(
            "pub fn route() -> crate::config::Config { todo() }",
            "proxy.rs",
        ),
    );
    let wrong = against_the_layers(&Crate { files });
    assert_eq!(wrong.len(), 1, "only config -> proxy points up: {wrong:?}");
    assert!(wrong[0].contains("crate::proxy::route"), "{wrong:?}");
}

/// The tagger's training code is behind the detection crate's `training` feature, which only the
/// tools (examples, as a dev-dependency) enable: the service's own dependency and the crate's
/// default features leave it out, so the service binary carries no training code.
#[test]
fn the_service_is_built_without_training_code() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| -> toml::Table {
        let text = std::fs::read_to_string(top.join(p)).expect("read manifest");
        text.parse().expect("manifest parses")
    };
    let service = read("Cargo.toml");
    let detect = read("crates/detect/Cargo.toml");
    let features_of = |section: &str| -> Vec<String> {
        service[section]["tarnkappe-detect"]
            .get("features")
            .and_then(|f| f.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(
        !features_of("dependencies").contains(&"training".to_owned()),
        "the service's dependency on the detection crate enables training"
    );
    assert!(
        features_of("dev-dependencies").contains(&"training".to_owned()),
        "the tools no longer get the training code"
    );
    let defaults = detect["features"]
        .get("default")
        .and_then(|d| d.as_array())
        .cloned()
        .unwrap_or_default();
    assert!(
        !defaults.iter().any(|f| f.as_str() == Some("training")),
        "training is a default feature of the detection crate"
    );
    assert!(detect["features"].get("training").is_some());
}
