//! The test tree keeps its shape, in the service's `tests/` and in each workspace crate's: the
//! integration tests are one binary `tests/it/` (a new top-level `tests/*.rs` would be a binary
//! of its own that cannot share the harness without dead-code allowances), every file of
//! `tests/it/` is a declared module (a file without its `mod` line compiles nowhere and its tests
//! never run, silently), and no file allows dead code.

use std::path::{Path, PathBuf};

/// The service's `tests/` and every `crates/*/tests/`.
fn tests_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("tests")];
    let crates = std::fs::read_dir(root.join("crates")).expect("crates/");
    let mut in_crates: Vec<PathBuf> = crates
        .flatten()
        .map(|e| e.path().join("tests"))
        .filter(|p| p.is_dir())
        .collect();
    in_crates.sort();
    dirs.extend(in_crates);
    dirs
}

/// Every `.rs` file below `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The module name a file stands for and the file that must declare it: `a/b.rs` is `b`,
/// declared in `a/mod.rs` or `a/main.rs`; `a/b/mod.rs` is `b`, declared in `a`'s.
fn module_and_parent(file: &Path) -> (String, PathBuf) {
    let dir = file.parent().expect("a folder");
    let (name, parent_dir) = if file.file_name().is_some_and(|n| n == "mod.rs") {
        (dir.file_name(), dir.parent().expect("a folder"))
    } else {
        (file.file_stem(), dir)
    };
    let name = name.expect("a name").to_string_lossy().into_owned();
    let declaring = ["mod.rs", "main.rs"]
        .iter()
        .map(|f| parent_dir.join(f))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{} has no mod.rs or main.rs", parent_dir.display()));
    (name, declaring)
}

#[test]
fn integration_tests_are_one_binary() {
    let mut stray = Vec::new();
    let entries = tests_dirs()
        .into_iter()
        .flat_map(|d| std::fs::read_dir(d).expect("tests/").flatten());
    for entry in entries {
        let path = entry.path();
        let own_binary = if path.is_dir() {
            path.join("main.rs").is_file() && !path.ends_with("it")
        } else {
            path.extension().is_some_and(|e| e == "rs")
        };
        if own_binary {
            stray.push(path.display().to_string());
        }
    }
    assert!(
        stray.is_empty(),
        "integration tests belong in tests/it/ (a module there), not in their own binary: {stray:?}"
    );
}

#[test]
fn every_file_of_the_test_binary_is_a_declared_module() {
    let roots: Vec<PathBuf> = tests_dirs().iter().map(|d| d.join("it")).collect();
    let mut files = Vec::new();
    for root in &roots {
        rust_files(root, &mut files);
    }
    assert!(files.len() > 30, "found only {files:?}");
    let mut undeclared = Vec::new();
    let mains: Vec<PathBuf> = roots.iter().map(|r| r.join("main.rs")).collect();
    for file in files.iter().filter(|f| !mains.contains(f)) {
        let (name, declaring) = module_and_parent(file);
        let declared = read(&declaring).lines().any(|l| {
            let l = l.trim();
            l == format!("mod {name};") || l == format!("pub mod {name};")
        });
        if !declared {
            undeclared.push(format!(
                "{} (no `mod {name};` in {})",
                file.display(),
                declaring.display()
            ));
        }
    }
    assert!(
        undeclared.is_empty(),
        "files that never compile: {undeclared:#?}"
    );
}

#[test]
fn no_test_file_allows_dead_code() {
    // Spelled in two halves, so that this file does not match itself.
    let allowance = concat!("allow(dead", "_code)");
    let mut files = Vec::new();
    for dir in tests_dirs() {
        rust_files(&dir, &mut files);
    }
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| read(f).contains(allowance))
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "an unused helper is deleted, not allowed: {offenders:?}"
    );
}
