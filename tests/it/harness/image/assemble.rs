//! Builds what a Dockerfile builds, without a container engine: every stage the image needs gets
//! a folder standing for its filesystem root, `COPY` fills it from the build context (after
//! `.dockerignore`) or from an earlier stage, and the build commands of its `RUN` lines — `cargo`,
//! and scripts of the build context (`scripts/pgo/build`) — are handed to a runner. Other `RUN`
//! commands (package installs, `rustup`, `useradd`, `strip`) change nothing the check looks at
//! and are skipped; the list of skipped commands is kept for the report.
//!
//! Copies keep the modification time of their source, and the folders have fixed paths, so that
//! cargo sees unchanged sources on the next run and rebuilds nothing.

use std::path::{Component, Path, PathBuf};
use std::process::Command;

use super::dockerfile::{
    shell_words, CommandForm, CopySpec, Dockerfile, DockerfileError, Instruction,
};
use super::ignore::{pattern_regex, DockerIgnore, IgnoreError};

/// Why the image could not be assembled, built or started.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error(transparent)]
    Dockerfile(#[from] DockerfileError),
    #[error(transparent)]
    Ignore(#[from] IgnoreError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "COPY source {0:?} is not in the build context (missing, or left out by .dockerignore)"
    )]
    NotInContext(String),
    #[error("COPY --from={stage}: {path:?} does not exist in that stage")]
    NotInStage { stage: String, path: String },
    #[error("{0}")]
    Unsupported(String),
    #[error("`{command}` in stage {stage} failed ({status}):\n{output}")]
    RunFailed {
        stage: usize,
        command: String,
        status: String,
        output: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ImageError + '_ {
    move |source| ImageError::Io {
        path: path.to_owned(),
        source,
    }
}

/// One build command of a `RUN` line (`cargo …`, or a script copied into the stage), to run in
/// `cwd` (inside the stage folder `root`).
#[derive(Debug, Clone)]
pub struct RunStep {
    pub stage: usize,
    pub argv: Vec<String>,
    pub cwd: PathBuf,
}

/// A Dockerfile with the context it builds from.
pub struct ImageBuild {
    pub dockerfile: Dockerfile,
    ignore: DockerIgnore,
    context: PathBuf,
}

/// The outcome of [`ImageBuild::assemble`]: the image's filesystem folder.
pub struct Assembled {
    pub root: PathBuf,
    pub skipped_runs: Vec<String>,
}

impl ImageBuild {
    /// Reads `Dockerfile` and `.dockerignore` (absent: no rules) of `context`.
    pub fn load(context: &Path) -> Result<ImageBuild, ImageError> {
        let dockerfile_path = context.join("Dockerfile");
        let dockerfile = std::fs::read_to_string(&dockerfile_path).map_err(io(&dockerfile_path))?;
        let ignore_path = context.join(".dockerignore");
        let ignore = match std::fs::read_to_string(&ignore_path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(&ignore_path)(e)),
        };
        ImageBuild::from_texts(&dockerfile, &ignore, context)
    }

    pub fn from_texts(
        dockerfile: &str,
        dockerignore: &str,
        context: &Path,
    ) -> Result<ImageBuild, ImageError> {
        Ok(ImageBuild {
            dockerfile: Dockerfile::parse(dockerfile)?,
            ignore: DockerIgnore::parse(dockerignore)?,
            context: context.to_owned(),
        })
    }

    /// The build commands ([`is_build_command`]) of every `RUN` line, without assembling: a
    /// script counts when the context holds it at the path the line names (the Dockerfile
    /// copies it there).
    pub fn build_commands(&self) -> Result<Vec<Vec<String>>, ImageError> {
        let mut out = Vec::new();
        for instruction in self.dockerfile.stages.iter().flat_map(|s| &s.instructions) {
            if let Instruction::Run(command) = instruction {
                out.extend(
                    run_commands(command)?
                        .into_iter()
                        .filter(|argv| is_build_command(argv, &self.context)),
                );
            }
        }
        Ok(out)
    }

    /// Assembles every stage the image needs under `work/stages/<index>` (emptied first),
    /// passing each build command ([`is_build_command`]) to `run`.
    pub fn assemble(
        &self,
        work: &Path,
        mut run: impl FnMut(&RunStep) -> Result<(), ImageError>,
    ) -> Result<Assembled, ImageError> {
        let stages_dir = work.join("stages");
        if stages_dir.exists() {
            std::fs::remove_dir_all(&stages_dir).map_err(io(&stages_dir))?;
        }
        let needed = self.needed_stages()?;
        let roots: Vec<PathBuf> = (0..self.dockerfile.stages.len())
            .map(|i| stages_dir.join(i.to_string()))
            .collect();
        let mut skipped_runs = Vec::new();
        for (index, stage) in self.dockerfile.stages.iter().enumerate() {
            if !needed[index] {
                continue;
            }
            let root = &roots[index];
            std::fs::create_dir_all(root).map_err(io(root))?;
            let mut workdir = PathBuf::from("/");
            for instruction in &stage.instructions {
                match instruction {
                    Instruction::Workdir(w) => {
                        workdir = workdir.join(w);
                        let dir = in_root(root, &workdir);
                        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
                    }
                    Instruction::Copy(spec) => {
                        self.copy(spec, root, &workdir, &roots)?;
                    }
                    Instruction::Run(command) => {
                        let cwd = in_root(root, &workdir);
                        for argv in run_commands(command)? {
                            if is_build_command(&argv, &cwd) {
                                run(&RunStep {
                                    stage: index,
                                    argv,
                                    cwd: cwd.clone(),
                                })?;
                            } else {
                                skipped_runs.push(argv.join(" "));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(Assembled {
            root: roots[roots.len() - 1].clone(),
            skipped_runs,
        })
    }

    /// The image and every stage it copies from, directly or not.
    fn needed_stages(&self) -> Result<Vec<bool>, ImageError> {
        let stages = &self.dockerfile.stages;
        let mut needed = vec![false; stages.len()];
        needed[stages.len() - 1] = true;
        for index in (0..stages.len()).rev() {
            if !needed[index] {
                continue;
            }
            if self.dockerfile.stage_index(&stages[index].base).is_some() {
                return Err(ImageError::Unsupported(format!(
                    "FROM {} (a stage built on another stage) is not simulated",
                    stages[index].base
                )));
            }
            for instruction in &stages[index].instructions {
                if let Instruction::Copy(CopySpec {
                    from: Some(from), ..
                }) = instruction
                {
                    match self.dockerfile.stage_index(from) {
                        Some(i) if i < index => needed[i] = true,
                        _ => {
                            return Err(ImageError::Unsupported(format!(
                                "COPY --from={from}: not an earlier stage of this Dockerfile"
                            )))
                        }
                    }
                }
            }
        }
        Ok(needed)
    }

    fn copy(
        &self,
        spec: &CopySpec,
        root: &Path,
        workdir: &Path,
        roots: &[PathBuf],
    ) -> Result<(), ImageError> {
        // (path inside the source tree, path on disk)
        let mut sources: Vec<(String, PathBuf)> = Vec::new();
        for source in &spec.sources {
            let rel = relative(source)?;
            match &spec.from {
                None => {
                    let found = self.expand_in_context(&rel)?;
                    if found.is_empty() {
                        return Err(ImageError::NotInContext(source.clone()));
                    }
                    sources.extend(found.into_iter().map(|r| {
                        let disk = self.context.join(&r);
                        (r, disk)
                    }));
                }
                Some(stage) => {
                    let index = self.dockerfile.stage_index(stage).unwrap_or_default();
                    let disk = roots[index].join(&rel);
                    if !disk.exists() {
                        return Err(ImageError::NotInStage {
                            stage: stage.clone(),
                            path: source.clone(),
                        });
                    }
                    sources.push((rel, disk));
                }
            }
        }
        let dest = in_root(root, &workdir.join(&spec.dest));
        let dest_is_dir = spec.dest.ends_with('/')
            || spec.dest == "."
            || spec.dest.ends_with("/.")
            || dest.is_dir();
        if sources.len() > 1 && !dest_is_dir {
            return Err(ImageError::Unsupported(format!(
                "COPY of several sources needs a destination ending in '/', not {:?}",
                spec.dest
            )));
        }
        for (rel, disk) in sources {
            if disk.is_dir() {
                // a directory's contents go into the destination
                let ignore = spec.from.is_none().then_some(&self.ignore);
                copy_tree(&disk, &rel, &dest, ignore)?;
            } else if dest_is_dir {
                let name = disk.file_name().unwrap_or_default();
                copy_file(&disk, &dest.join(name))?;
            } else {
                copy_file(&disk, &dest)?;
            }
        }
        Ok(())
    }

    /// The context paths a COPY source names (wildcards expanded), leaving out what
    /// `.dockerignore` drops.
    fn expand_in_context(&self, rel: &str) -> Result<Vec<String>, ImageError> {
        if rel.is_empty() {
            return Ok(vec![String::new()]); // `COPY . …`: the context root itself
        }
        let mut found = vec![String::new()];
        for segment in rel.split('/').filter(|s| !s.is_empty()) {
            let mut next = Vec::new();
            for base in &found {
                let join = |name: &str| {
                    if base.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{base}/{name}")
                    }
                };
                if segment.contains(['*', '?', '[']) {
                    let re = pattern_regex(segment).map_err(|e| {
                        ImageError::Unsupported(format!("COPY source pattern {rel:?}: {e}"))
                    })?;
                    let dir = self.context.join(base);
                    let Ok(entries) = std::fs::read_dir(&dir) else {
                        continue;
                    };
                    let mut names: Vec<String> = entries
                        .flatten()
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .filter(|n| re.is_match(n))
                        .collect();
                    names.sort();
                    next.extend(names.iter().map(|n| join(n)));
                } else if self.context.join(join(segment)).exists() {
                    next.push(join(segment));
                }
            }
            found = next;
        }
        found.retain(|p| !self.ignore.excludes(p));
        Ok(found)
    }
}

/// The commands of a RUN line, split at `&&` and `;`.
fn run_commands(command: &CommandForm) -> Result<Vec<Vec<String>>, ImageError> {
    match command {
        CommandForm::Exec(argv) => Ok(vec![argv.clone()]),
        CommandForm::Shell(line) => {
            let mut out = Vec::new();
            for part in line.split("&&").flat_map(|p| p.split(';')) {
                let words = shell_words(0, part)?;
                if !words.is_empty() {
                    out.push(words);
                }
            }
            Ok(out)
        }
    }
}

/// True for `cargo …` and for a relative path to a file of the stage (`scripts/pgo/build`, which
/// the Dockerfile copied from the context): what builds the binary. Package installs and
/// `strip` name programs of the base image.
fn is_build_command(argv: &[String], cwd: &Path) -> bool {
    match argv.first() {
        Some(program) if program == "cargo" => true,
        Some(program) => Path::new(program).is_relative() && cwd.join(program).is_file(),
        None => false,
    }
}

/// A context-relative source path without `./`; `..` leaving the context is refused.
fn relative(source: &str) -> Result<String, ImageError> {
    let mut parts = Vec::new();
    for c in Path::new(source).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::ParentDir if parts.pop().is_none() => {
                return Err(ImageError::Unsupported(format!(
                    "COPY source {source:?} leaves the build context"
                )));
            }
            _ => {}
        }
    }
    Ok(parts.join("/"))
}

/// `path` (absolute inside the stage) as a path below the stage folder `root`.
pub fn in_root(root: &Path, path: &Path) -> PathBuf {
    let mut out = root.to_owned();
    for c in path.components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::ParentDir if out != root => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// Copies the files below `dir` (context path `rel`) into `dest`, skipping what `ignore` drops.
fn copy_tree(
    dir: &Path,
    rel: &str,
    dest: &Path,
    ignore: Option<&DockerIgnore>,
) -> Result<(), ImageError> {
    std::fs::create_dir_all(dest).map_err(io(dest))?;
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .collect::<Result<_, _>>()
        .map_err(io(dir))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let child_rel = if rel.is_empty() {
            name.to_string_lossy().into_owned()
        } else {
            format!("{rel}/{}", name.to_string_lossy())
        };
        let path = entry.path();
        let excluded = ignore.is_some_and(|i| i.excludes(&child_rel));
        if path.is_dir() {
            if excluded && !ignore.is_some_and(DockerIgnore::has_exceptions) {
                continue; // nothing below can come back
            }
            copy_tree(&path, &child_rel, &dest.join(&name), ignore)?;
        } else if !excluded {
            copy_file(&path, &dest.join(&name))?;
        }
    }
    Ok(())
}

/// Copies one file, keeping its modification time (so that cargo sees it unchanged).
fn copy_file(from: &Path, to: &Path) -> Result<(), ImageError> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    std::fs::copy(from, to).map_err(io(from))?;
    let modified = std::fs::metadata(from)
        .and_then(|m| m.modified())
        .map_err(io(from))?;
    std::fs::File::options()
        .write(true)
        .open(to)
        .and_then(|f| f.set_modified(modified))
        .map_err(io(to))
}

/// A runner for [`ImageBuild::assemble`] that runs each build command offline (the registry
/// cache of `CARGO_HOME` is reused: `--offline` for `cargo`, `CARGO_NET_OFFLINE` for a script),
/// with the cargo of this test run and `target_dir` as `CARGO_TARGET_DIR`. The stage's own
/// `target` folder becomes a link to `target_dir`, so that later `COPY --from` lines find the
/// binaries where the container build leaves them, and a script's `--target-dir target/…`
/// builds stay between runs too. `env` is set for every command besides.
pub fn build_runner<'a>(
    target_dir: &'a Path,
    env: &'a [(&'a str, &'a str)],
) -> impl FnMut(&RunStep) -> Result<(), ImageError> + 'a {
    move |step: &RunStep| {
        std::fs::create_dir_all(target_dir).map_err(io(target_dir))?;
        let link = step.cwd.join("target");
        if !link.exists() {
            std::os::unix::fs::symlink(target_dir, &link).map_err(io(&link))?;
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut cmd = if step.argv[0] == "cargo" {
            let mut cmd = Command::new(&cargo);
            cmd.args(&step.argv[1..]).arg("--offline");
            cmd
        } else {
            let mut cmd = Command::new(step.cwd.join(&step.argv[0]));
            cmd.args(&step.argv[1..]).env("CARGO_NET_OFFLINE", "true");
            cmd
        };
        cmd.current_dir(&step.cwd)
            .env("CARGO_TARGET_DIR", target_dir)
            .envs(env.iter().copied());
        // What `cargo test` sets for the test binary describes this crate, not the context.
        for (key, _) in std::env::vars() {
            if key.starts_with("CARGO_PKG_")
                || key.starts_with("CARGO_BIN_")
                || key == "CARGO_MANIFEST_DIR"
                || key == "CARGO_MANIFEST_PATH"
                || key == "CARGO_CRATE_NAME"
                || key == "CARGO_PRIMARY_PACKAGE"
            {
                cmd.env_remove(key);
            }
        }
        let output = cmd.output().map_err(io(&step.cwd))?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        // the end of cargo's output holds the error
        let tail: Vec<&str> = stderr.lines().rev().take(40).collect();
        Err(ImageError::RunFailed {
            stage: step.stage,
            command: step.argv.join(" "),
            status: output.status.to_string(),
            output: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small project: the files a Rust build of it needs, and some it does not.
    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("Cargo.toml", "[package]\n"),
            ("Cargo.lock", "# lock\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("data/names.txt", "Anna\n"),
            ("data/tagger/weights.bin", "w"),
            ("README.md", "# x\n"),
            ("target/debug/big", "x"),
            ("tests/a.rs", ""),
        ] {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    const DOCKERFILE: &str = "FROM rust AS build\nWORKDIR /src\n\
        COPY Cargo.toml Cargo.lock ./\nCOPY src ./src\nCOPY data ./data\n\
        RUN apt-get update && cargo build --release --locked && strip target/release/app\n\
        FROM debian\nCOPY --from=build /src/target/release/app /usr/local/bin/app\n\
        COPY data/names.txt /etc/app/\nCMD [\"/usr/local/bin/app\"]\n";

    /// Assembles with a runner that records the build commands and leaves a fake binary.
    fn assemble(
        project: &Path,
        dockerfile: &str,
        ignore: &str,
    ) -> (Result<Assembled, ImageError>, Vec<RunStep>, PathBuf) {
        let build = ImageBuild::from_texts(dockerfile, ignore, project).unwrap();
        let work = project.join("target/image-check");
        let mut steps = Vec::new();
        let result = build.assemble(&work, |step| {
            steps.push(step.clone());
            let bin = step.cwd.join("target/release/app");
            std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
            std::fs::write(bin, "binary").unwrap();
            Ok(())
        });
        (result, steps, work.join("stages/0"))
    }

    #[test]
    fn copies_what_the_dockerfile_names_and_runs_only_cargo() {
        let p = project();
        let (result, steps, build_root) = assemble(p.path(), DOCKERFILE, "target\n*.md\n");
        let image = result.unwrap();
        for f in ["Cargo.toml", "Cargo.lock", "src/main.rs", "data/names.txt"] {
            assert!(build_root.join("src").join(f).is_file(), "{f} missing");
        }
        assert!(build_root.join("src/data/tagger/weights.bin").is_file());
        assert!(!build_root.join("src/README.md").exists());
        assert!(!build_root.join("src/tests").exists());
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].argv, ["cargo", "build", "--release", "--locked"]);
        assert_eq!(steps[0].cwd, build_root.join("src"));
        assert_eq!(
            image.skipped_runs,
            vec!["apt-get update", "strip target/release/app"]
        );
        assert_eq!(
            std::fs::read_to_string(image.root.join("usr/local/bin/app")).unwrap(),
            "binary"
        );
        assert!(image.root.join("etc/app/names.txt").is_file());
    }

    #[test]
    fn a_script_of_the_context_is_a_build_step_and_a_missing_one_is_skipped() {
        let p = project();
        std::fs::create_dir_all(p.path().join("scripts")).unwrap();
        std::fs::write(p.path().join("scripts/build"), "#!/bin/sh\n").unwrap();
        let dockerfile = DOCKERFILE.replace(
            "RUN apt-get update && cargo build --release --locked",
            "COPY scripts ./scripts\nRUN apt-get update && scripts/build --fast && scripts/gone",
        );
        let (result, steps, build_root) = assemble(p.path(), &dockerfile, "");
        let image = result.unwrap();
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].argv, ["scripts/build", "--fast"]);
        assert_eq!(steps[0].cwd, build_root.join("src"));
        // not copied into the stage: a program of the base image, as far as the check can tell
        assert!(image.skipped_runs.contains(&"scripts/gone".to_owned()));
    }

    #[test]
    fn a_missing_copy_leaves_the_data_out() {
        let p = project();
        let without_data = DOCKERFILE.replace("COPY data ./data\n", "");
        let (result, _, build_root) = assemble(p.path(), &without_data, "");
        result.unwrap();
        assert!(build_root.join("src/src/main.rs").is_file());
        assert!(!build_root.join("src/data").exists());
    }

    #[test]
    fn dockerignore_drops_files_from_copied_folders() {
        let p = project();
        let (result, _, build_root) = assemble(p.path(), DOCKERFILE, "data/*.txt\n");
        // the image's own COPY of data/names.txt now fails like `docker build` does
        assert!(
            matches!(result, Err(ImageError::NotInContext(ref s)) if s == "data/names.txt"),
            "{:?}",
            result.err()
        );
        assert!(!build_root.join("src/data/names.txt").exists());
        assert!(build_root.join("src/data/tagger/weights.bin").is_file());
    }

    #[test]
    fn an_ignored_source_is_not_found() {
        let p = project();
        let (result, _, _) = assemble(p.path(), DOCKERFILE, "data\n");
        assert!(matches!(result, Err(ImageError::NotInContext(ref s)) if s == "data"));
        let (result, _, _) = assemble(p.path(), "FROM a\nCOPY nothere /x\n", "");
        assert!(matches!(result, Err(ImageError::NotInContext(_))));
    }

    #[test]
    fn wildcards_and_single_file_destinations() {
        let p = project();
        let df =
            "FROM a\nWORKDIR /w\nCOPY Cargo.* ./\nCOPY src/main.rs /bin/entry.rs\nCOPY . /all/\n";
        let (result, _, root) = assemble(p.path(), df, "target\ntests\n");
        result.unwrap();
        assert!(root.join("w/Cargo.toml").is_file());
        assert!(root.join("w/Cargo.lock").is_file());
        assert!(root.join("bin/entry.rs").is_file());
        assert!(root.join("all/data/names.txt").is_file());
        assert!(!root.join("all/target").exists());
        assert!(!root.join("all/tests").exists());
    }

    #[test]
    fn copies_keep_modification_times() {
        let p = project();
        let src = p.path().join("src/main.rs");
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        std::fs::File::options()
            .write(true)
            .open(&src)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let (result, _, build_root) = assemble(p.path(), DOCKERFILE, "");
        result.unwrap();
        let copied = std::fs::metadata(build_root.join("src/src/main.rs")).unwrap();
        assert_eq!(copied.modified().unwrap(), old);
    }

    #[test]
    fn copy_from_an_unknown_stage_or_missing_path_fails() {
        let p = project();
        let (result, _, _) = assemble(p.path(), "FROM a\nCOPY --from=nginx /x /y\n", "");
        assert!(matches!(result, Err(ImageError::Unsupported(_))));
        let df = "FROM a AS b\nRUN true\nFROM c\nCOPY --from=b /nothing /y\n";
        let (result, _, _) = assemble(p.path(), df, "");
        assert!(matches!(result, Err(ImageError::NotInStage { .. })));
    }
}
