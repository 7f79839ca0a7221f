//! The Python tools the suite drives (schemathesis, kubernetes-validate, pii-leak-benchmark, the
//! official SDKs), pinned in `scripts/requirements-test.txt`. A missing tool fails the test that
//! needs it, with the command that installs it; nothing is skipped.

use std::path::Path;
use std::process::Command;

/// What to run when a tool is missing.
pub const INSTALL: &str =
    "run `python3 -m pip install -r scripts/requirements-test.txt` (scripts/setup does)";

/// The executable `name` of a pip-installed tool: on PATH, or in pip's user folder
/// (`~/.local/bin`, where `pip --user` puts it without root).
pub fn pip_tool(name: &str) -> Command {
    let on_path = Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if on_path {
        return Command::new(name);
    }
    if let Ok(home) = std::env::var("HOME") {
        let user_bin = format!("{home}/.local/bin/{name}");
        if Path::new(&user_bin).exists() {
            return Command::new(user_bin);
        }
    }
    panic!("{name} is not installed: {INSTALL}");
}
