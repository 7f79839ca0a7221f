//! The container image, checked without a container engine: the build context is assembled from
//! the Dockerfile's `COPY` lines and `.dockerignore`, built with the Dockerfile's own build
//! command (`scripts/pgo/build`, offline: the instrumented build, its training run on
//! `scripts/pgo/texts/`, the profile merge and the build with the profile), and the binary is
//! started the way the image starts it — its `ENTRYPOINT`, `CMD` and `ENV`, with the
//! `proxy.toml` the image ships — and must answer `/api/v1/health`. A `COPY` that is missing, a
//! `.dockerignore` rule that drops what the build needs, a build step that fails or a default
//! command that does not start fails this test.
//!
//! Two deviations from the image: the port of `TARNKAPPE_LISTEN` becomes 0 (the host stays), so
//! that the test never collides with something on port 8080 of the machine; and the script runs
//! with `TARNKAPPE_PGO_PROFILE=image-check`, the unoptimised profile, so that proving its steps
//! does not cost two optimised builds (docs/development.md#the-image-check says what that leaves
//! unproven). The builds go to `target/image-check/target`, kept between runs: a run with the
//! same sources rebuilds nothing, and a documentation edit is not in the build context.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use crate::harness;
use crate::harness::http::client;
use crate::harness::image::{
    build_runner, in_root, repo_image, repo_root, CommandForm, ImageBuild,
};
use crate::harness::server::TestServer;

/// What the image check sets for the Dockerfile's build script: its cheap cargo profile.
const CHECK_PROFILE: &[(&str, &str)] = &[("TARNKAPPE_PGO_PROFILE", "image-check")];

/// The image's filesystem, built once per test run.
struct Image {
    build: ImageBuild,
    root: PathBuf,
    /// Held while this test binary runs: another run must not rebuild the folder meanwhile.
    _lock: File,
}

fn image() -> &'static Image {
    static IMAGE: OnceLock<Result<Image, String>> = OnceLock::new();
    let built = IMAGE.get_or_init(|| {
        let work = repo_root().join("target/image-check");
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        let lock = File::create(work.join(".lock")).map_err(|e| e.to_string())?;
        lock.lock().map_err(|e| e.to_string())?;
        let build = repo_image();
        let started = Instant::now();
        let target = work.join("target");
        let assembled = build
            .assemble(&work, build_runner(&target, CHECK_PROFILE))
            .map_err(|e| e.to_string())?;
        eprintln!(
            "image assembled and built in {:.1} s (skipped RUN commands: {:?})",
            started.elapsed().as_secs_f64(),
            assembled.skipped_runs
        );
        Ok(Image {
            build,
            root: assembled.root,
            _lock: lock,
        })
    });
    built
        .as_ref()
        .unwrap_or_else(|e| panic!("the image does not build: {e}"))
}

/// Exec-form arguments of ENTRYPOINT/CMD; the shell form would make `/bin/sh` PID 1, and
/// SIGTERM (graceful shutdown) would never reach the service.
fn exec_form(what: &str, form: Option<CommandForm>) -> Vec<String> {
    match form {
        None => Vec::new(),
        Some(CommandForm::Exec(v)) => v,
        Some(CommandForm::Shell(s)) => panic!("{what} must use the exec form, not `{s}`"),
    }
}

/// The image's default command (`ENTRYPOINT` + `cmd`), absolute paths resolved inside the
/// image's folder, with the image's `ENV` (listen port 0) and working folder.
fn image_command(image: &Image, cmd: &[String]) -> Command {
    let stage = image.build.dockerfile.image();
    let mut argv = exec_form("ENTRYPOINT", stage.entrypoint());
    argv.extend(cmd.iter().cloned());
    assert!(!argv.is_empty(), "the image has neither ENTRYPOINT nor CMD");
    let resolve = |a: &String| -> String {
        if a.starts_with('/') {
            in_root(&image.root, Path::new(a)).display().to_string()
        } else {
            a.clone()
        }
    };
    assert!(
        argv[0].starts_with('/'),
        "the program is not an absolute path: {argv:?}"
    );
    let mut command = Command::new(resolve(&argv[0]));
    command.args(argv[1..].iter().map(resolve));
    command.env_clear();
    if let Ok(path) = std::env::var("PATH") {
        command.env("PATH", path);
    }
    for (key, value) in stage.env() {
        command.env(&key, listen_on_port_zero(&key, &value));
    }
    command.current_dir(in_root(&image.root, &stage.workdir()));
    command
}

fn listen_on_port_zero(key: &str, value: &str) -> String {
    match (key, value.rsplit_once(':')) {
        ("TARNKAPPE_LISTEN", Some((host, _port))) => format!("{host}:0"),
        _ => value.to_owned(),
    }
}

fn default_cmd(image: &Image) -> Vec<String> {
    exec_form("CMD", image.build.dockerfile.image().cmd())
}

/// Paths other than stdio and `/tmp` that process `pid` holds open for writing.
fn files_open_for_writing(pid: u32) -> Vec<String> {
    let mut out = Vec::new();
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).expect("read /proc/PID/fd");
    for fd in fds.flatten() {
        let name = fd.file_name().to_string_lossy().into_owned();
        if ["0", "1", "2"].contains(&name.as_str()) {
            continue; // stdio is what the container runtime hands over
        }
        let Ok(target) = std::fs::read_link(fd.path()) else {
            continue;
        };
        let target = target.to_string_lossy().into_owned();
        if !target.starts_with('/') || target.starts_with("/tmp/") || target.starts_with("/dev/") {
            continue; // sockets, pipes, anonymous inodes, devices, /tmp
        }
        let info =
            std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{name}")).unwrap_or_default();
        let flags = info
            .lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .unwrap_or(0);
        if flags & 0o3 != 0 {
            out.push(target); // O_WRONLY or O_RDWR
        }
    }
    out
}

#[test]
fn the_image_builds_and_its_default_command_answers_health() {
    let image = image();
    let cmd = default_cmd(image);
    let server = TestServer::try_start_command(image_command(image, &cmd))
        .unwrap_or_else(|e| panic!("the image's default command {cmd:?} does not start: {e}"));

    // The listener faces the container network, as the image's ENV asks.
    let stage = image.build.dockerfile.image();
    let listen = stage
        .env()
        .into_iter()
        .find(|(k, _)| k == "TARNKAPPE_LISTEN")
        .map(|(_, v)| v);
    let bound = harness::server::listening_socket(server.pid()).expect("a listening socket");
    if listen.is_some_and(|l| l.starts_with("0.0.0.0:")) {
        assert!(bound.ip().is_unspecified(), "bound {bound}");
    }

    let http = client();
    for path in ["/api/v1/health", "/api/v1/health/ready"] {
        let resp = http.get(server.url(path)).send().expect("request");
        assert_eq!(resp.status(), 200, "{path}; log:\n{}", server.log());
        let body: serde_json::Value = resp.json().expect("json");
        assert_eq!(body["status"], "ok", "{path}: {body}");
    }

    // A read-only root filesystem: nothing outside /tmp is held open for writing.
    let writing = files_open_for_writing(server.pid());
    assert!(writing.is_empty(), "writes outside /tmp: {writing:?}");
}

#[test]
fn a_default_command_that_cannot_start_fails_the_check() {
    let image = image();
    // The image's command, pointed at a configuration file the image does not contain.
    let mut cmd = default_cmd(image);
    let config = cmd
        .iter()
        .position(|a| a.starts_with('/'))
        .expect("the default command names its configuration file");
    cmd[config] = "/etc/tarnkappe/not-in-the-image.toml".to_owned();
    let result = TestServer::try_start_command(image_command(image, &cmd));
    let err = result
        .err()
        .expect("started without its configuration file");
    assert!(err.contains("exited early"), "{err}");
}

#[test]
fn the_image_runs_unprivileged_without_healthcheck_and_builds_with_the_lock_file() {
    let build = repo_image();
    let stage = build.dockerfile.image();
    let uid = harness::image::image_uid(stage).expect("USER with a numeric id");
    assert_ne!(uid, 0, "the image must not run as root");
    assert!(
        !stage.has_healthcheck(),
        "probes are the orchestrator's (GET /api/v1/health, /api/v1/health/ready); the slim image has no HTTP client"
    );
    let listen = stage
        .env()
        .into_iter()
        .find(|(k, _)| k == "TARNKAPPE_LISTEN")
        .map(|(_, v)| v)
        .expect("ENV TARNKAPPE_LISTEN");
    let port = listen.rsplit_once(':').map(|(_, p)| p.to_owned());
    assert!(
        stage
            .exposed()
            .iter()
            .any(|e| Some(e.trim_end_matches("/tcp")) == port.as_deref()),
        "EXPOSE {:?} does not match TARNKAPPE_LISTEN={listen}",
        stage.exposed()
    );
    // The cargo builds of the RUN lines and of the repository scripts they run (the image runs
    // scripts/pgo/build): each one held to Cargo.lock, each one the release profile — a script's
    // profile variable defaults to it (the image check alone sets another).
    let mut cargo_builds = Vec::new();
    for argv in build.build_commands().expect("the RUN lines") {
        if argv[0] == "cargo" {
            cargo_builds.push(argv.join(" "));
            continue;
        }
        let script = std::fs::read_to_string(repo_root().join(&argv[0]))
            .unwrap_or_else(|e| panic!("{}: {e}", argv[0]));
        let release_by_default = script.contains("cargo_profile=${TARNKAPPE_PGO_PROFILE:-release}");
        cargo_builds.extend(
            script
                .lines()
                .filter(|line| line.contains("cargo build"))
                .map(|line| match release_by_default {
                    true => line.replace("--profile \"$cargo_profile\"", "--release"),
                    false => line.to_owned(),
                }),
        );
    }
    assert!(
        !cargo_builds.is_empty(),
        "no cargo build in the RUN lines or their scripts"
    );
    for run in cargo_builds {
        assert!(
            run.contains("--locked") && run.contains("--release"),
            "{run}"
        );
    }
}

#[test]
fn the_build_stage_is_pinned_to_the_release_compiler_of_the_manifest() {
    let manifest = std::fs::read_to_string(repo_root().join("Cargo.toml")).expect("Cargo.toml");
    let release_rustc = manifest
        .lines()
        .find_map(|l| l.strip_prefix("release-rustc = "))
        .map(|v| v.trim().trim_matches('"').to_owned())
        .expect("Cargo.toml names release-rustc");
    let build = repo_image();
    let rust_base = build
        .dockerfile
        .stages
        .iter()
        .map(|stage| stage.base.as_str())
        .find(|base| base.starts_with("rust:"))
        .expect("a stage FROM rust:");
    let tag = rust_base.trim_start_matches("rust:");
    assert!(
        tag.starts_with(&format!("{release_rustc}-")) || tag == release_rustc,
        "the build stage's Rust image {rust_base} is not pinned to release-rustc {release_rustc}"
    );
}
