//! The documentation stays navigable and true to the code: every relative link in `README.md`,
//! `docs/*.md` and `benches/RESULTS.md` names an existing file (and, with `#anchor`, an existing
//! heading of it); the README stays a front door that reaches every document; and
//! `docs/configuration.md` names every key and environment variable the configuration reads.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The Markdown files whose links are checked.
fn documents() -> Vec<PathBuf> {
    let root = repo();
    let mut files = vec![root.join("README.md"), root.join("benches/RESULTS.md")];
    let docs = std::fs::read_dir(root.join("docs")).expect("docs/");
    let mut in_docs: Vec<PathBuf> = docs
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    in_docs.sort();
    files.extend(in_docs);
    files
}

/// The lines of `text` outside fenced code blocks, with inline code spans blanked out, so that
/// `[a](b)` inside code is not taken for a link.
fn prose_lines(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        let blanked: String = line
            .chars()
            .map(|c| {
                if c == '`' {
                    in_code = !in_code;
                    ' '
                } else if in_code {
                    ' '
                } else {
                    c
                }
            })
            .collect();
        out.push(blanked);
    }
    out
}

/// Targets of inline links `[text](target)` in `text`, outside code.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].trim().to_owned());
            rest = &after[end..];
        }
    }
    targets
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of every heading of a Markdown text (a repeated heading gets `-1`, `-2`, …).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// Why a relative link of the document at `from` (text `text`) does not resolve, if it does not.
fn broken(from: &Path, text: &str, target: &str) -> Option<String> {
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().expect("a folder").join(path)
    };
    if !file.exists() {
        return Some(format!("{target}: no file {}", file.display()));
    }
    let anchor = anchor?;
    let heading_text = if path.is_empty() {
        text.to_owned()
    } else if file.extension().is_some_and(|e| e == "md") {
        read(&file)
    } else {
        return Some(format!(
            "{target}: an anchor into a file that is not Markdown"
        ));
    };
    (!anchors(&heading_text).contains(anchor)).then(|| format!("{target}: no heading #{anchor}"))
}

/// Every broken relative link of the document at `from` with the text `text`.
fn broken_links(from: &Path, text: &str) -> Vec<String> {
    link_targets(text)
        .iter()
        .filter(|t| !t.contains("://") && !t.starts_with("mailto:"))
        .filter_map(|t| broken(from, text, t))
        .collect()
}

#[test]
fn every_relative_link_in_the_documentation_resolves() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = read(&doc);
        checked += link_targets(&text).len();
        for p in broken_links(&doc, &text) {
            problems.push(format!("{}: {p}", doc.display()));
        }
    }
    assert!(
        checked > 50,
        "only {checked} links found: is the parser broken?"
    );
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_link_check_reports_missing_files_and_headings() {
    let from = repo().join("docs/README.md");
    let text = "# Top\n\n## Two words\n\n[ok](#two-words) [self](#top) [f](configuration.md) \
                [code `x`](api.md#errors)\n`[in code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n\
                [gone](nowhere.md) [bad](#three) [bad2](api.md#no-such-heading) \
                [web](https://example.org/x.md)\n";
    let found = broken_links(&from, text);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].starts_with("nowhere.md: no file"), "{found:?}");
    assert!(found[1].contains("no heading #three"), "{found:?}");
    assert!(
        found[2].contains("no heading #no-such-heading"),
        "{found:?}"
    );
    assert_eq!(slug("`[policies.<name>]`"), "policiesname");
    assert_eq!(
        slug("Added entity types (after the contract's 13)"),
        "added-entity-types-after-the-contracts-13"
    );
}

#[test]
fn the_readme_is_a_front_door_to_every_document() {
    let root = repo();
    let readme = read(&root.join("README.md"));
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines (at most 300)");
    for command in ["scripts/run", "scripts/test"] {
        assert!(
            readme.contains(command),
            "README.md does not name {command}"
        );
        assert!(root.join(command).is_file(), "{command} is missing");
    }
    let ci = read(&root.join(".ci/run"));
    let last = ci
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert_eq!(
        last.trim(),
        "bash scripts/test",
        "CI runs the README's test command last"
    );

    // Every document is reachable: linked from the README or from the docs index it links.
    let index = read(&root.join("docs/README.md"));
    assert!(link_targets(&readme).iter().any(|t| t == "docs/README.md"));
    let mut reachable: BTreeSet<PathBuf> = BTreeSet::new();
    for (from, text) in [
        (root.join("README.md"), &readme),
        (root.join("docs/README.md"), &index),
    ] {
        for t in link_targets(text) {
            let path = t.split('#').next().unwrap_or("");
            if !path.is_empty() && !t.contains("://") {
                let joined = from.parent().expect("a folder").join(path);
                reachable.insert(joined.canonicalize().unwrap_or(joined));
            }
        }
    }
    for doc in documents() {
        let doc = doc.canonicalize().expect("exists");
        if doc != root.join("README.md").canonicalize().expect("exists") {
            assert!(
                reachable.contains(&doc),
                "{} is linked neither from README.md nor from docs/README.md",
                doc.display()
            );
        }
    }
}

/// The string literals `TARNKAPPE_…` in `text`.
fn variables(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("\"TARNKAPPE_") {
        let name: String = rest[at + 1..]
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || *c == '_' || c.is_ascii_digit())
            .collect();
        out.insert(name);
        rest = &rest[at + 1..];
    }
    out
}

/// The keys of the configuration structs in `text`: `pub name:` fields, or the name a
/// `#[serde(rename = "…")]` above the field gives.
fn config_keys(text: &str) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut renamed: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(r) = line.strip_prefix("#[serde(rename = \"") {
            renamed = r.split('"').next().map(str::to_owned);
            continue;
        }
        let field = line
            .strip_prefix("pub ")
            .and_then(|l| l.split_once(':'))
            .map(|(name, _)| name.trim())
            .filter(|name| name.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        if let Some(name) = field {
            keys.insert(renamed.take().unwrap_or_else(|| name.to_owned()));
        } else if !line.starts_with("///") && !line.starts_with("#[") {
            renamed = None;
        }
    }
    keys
}

#[test]
fn the_configuration_page_names_every_key_and_variable() {
    let root = repo();
    let page = read(&root.join("docs/configuration.md"));
    // Every file of the configuration module, and the shipped proxy.toml (its routes name their
    // upstream variables).
    let mut sources = read(&root.join("proxy.toml"));
    for entry in std::fs::read_dir(root.join("src/config"))
        .expect("src/config")
        .flatten()
    {
        if entry.path().extension().is_some_and(|e| e == "rs") {
            sources.push_str(&read(&entry.path()));
        }
    }
    let vars = variables(&sources);
    assert!(vars.len() >= 15, "{vars:?}");
    let missing: Vec<_> = vars.iter().filter(|v| !page.contains(v.as_str())).collect();
    assert!(
        missing.is_empty(),
        "variables missing from docs/configuration.md: {missing:?}"
    );

    let mut keys = config_keys(&read(&root.join("src/config/sections.rs")));
    keys.extend(config_keys(&read(&root.join("src/config/policies.rs"))));
    assert!(keys.contains("listen") && keys.contains("type"), "{keys:?}");
    let missing: Vec<_> = keys
        .iter()
        .filter(|k| {
            !["`", " ", "."]
                .iter()
                .any(|p| page.contains(&format!("{p}{k}`")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "keys missing from docs/configuration.md: {missing:?}"
    );
}

/// The first fenced block of `lang` in `text`.
fn fenced_block(text: &str, lang: &str) -> Option<String> {
    let mut lines = text
        .lines()
        .skip_while(|l| l.trim() != format!("```{lang}"));
    lines.next()?;
    let block: Vec<&str> = lines.take_while(|l| l.trim() != "```").collect();
    Some(block.join("\n") + "\n")
}

#[test]
fn the_readmes_minimal_configuration_starts_and_its_key_works() {
    use sha2::{Digest, Sha256};
    let readme = read(&repo().join("README.md"));
    let toml = fenced_block(&readme, "toml").expect("a toml block in README.md");
    let key = "readme-example-key";
    let hash: String = Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    // The README's placeholders, each a quoted `<…>`, filled in as its comments say.
    let filled: String = toml
        .lines()
        .map(|line| match line.split_once("\"<") {
            Some((before, _)) if before.trim_start().starts_with("sha256") => {
                format!("{before}\"{hash}\"")
            }
            Some((before, rest)) => {
                let after = rest.split_once(">\"").map_or("", |(_, a)| a);
                format!("{before}\"{}\"{after}", "A".repeat(43) + "=")
            }
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!filled.contains('<'), "a placeholder is left: {filled}");
    let server = crate::harness::server::TestServer::start_with_config(&[], &filled);
    let resp = crate::harness::api::post(
        &server,
        "/api/v1/anonymize",
        Some(key),
        &serde_json::json!({ "text": "Mail an max@example.de" }),
    );
    assert_eq!(resp.status(), 200, "{}", server.log());
    let wrong = crate::harness::api::post(
        &server,
        "/api/v1/anonymize",
        Some("another-key"),
        &serde_json::json!({ "text": "x" }),
    );
    assert_eq!(wrong.status(), 401);
}

/// The table rows (`| `key` | …`) under the `## ` heading of `page` that names `[section]`.
fn rows_of_section<'a>(page: &'a str, section: &str) -> Vec<&'a str> {
    let heading = format!("`[{section}]`");
    let mut inside = false;
    let mut rows = Vec::new();
    for line in page.lines() {
        if line.starts_with("## ") {
            inside = line.contains(&heading);
        } else if inside && line.starts_with("| `") {
            rows.push(line);
        }
    }
    rows
}

#[test]
fn the_configuration_page_gives_the_shipped_defaults() {
    let root = repo();
    let page = read(&root.join("docs/configuration.md"));
    let shipped = read(&root.join("proxy.toml"));
    let mut section: Option<String> = None;
    let mut checked = 0;
    let mut wrong = Vec::new();
    for line in shipped.lines() {
        if line.starts_with("[[") {
            section = None;
        } else if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(name.to_owned());
        } else if let (Some(sec), Some((key, value))) = (&section, line.split_once(" = ")) {
            if key.starts_with('#') || key.contains(' ') {
                continue;
            }
            let (key, value) = (key.trim(), value.trim());
            let rows = rows_of_section(&page, sec);
            let documented = rows.iter().any(|r| {
                (r.starts_with(&format!("| `{key}`")) || r.starts_with(&format!("| `{sec}.{key}`")))
                    && r.contains(&format!("`{value}`"))
            });
            if !documented {
                wrong.push(format!("[{sec}] {key} = {value}"));
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 15,
        "only {checked} defaults read from proxy.toml"
    );
    assert!(
        wrong.is_empty(),
        "docs/configuration.md does not give these shipped defaults: {wrong:?}"
    );
}
