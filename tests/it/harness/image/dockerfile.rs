//! A reader for the subset of Dockerfile syntax the image check needs: stages, `COPY`/`ADD`,
//! `WORKDIR`, `ENV`, `RUN`, `USER`, `EXPOSE`, `HEALTHCHECK`, `ENTRYPOINT` and `CMD`.
//!
//! Anything it cannot simulate faithfully (variable substitution, `COPY --parents`, remote `ADD`
//! sources, a custom escape character) is an error, so that the check fails loudly instead of
//! checking a different image than the one `docker build` makes.

use std::fmt;

/// Why a Dockerfile could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DockerfileError {
    #[error("Dockerfile line {line}: {message}")]
    Syntax { line: usize, message: String },
}

fn syntax(line: usize, message: impl Into<String>) -> DockerfileError {
    DockerfileError::Syntax {
        line,
        message: message.into(),
    }
}

/// A parsed Dockerfile: its stages in order (the last one is the image).
#[derive(Debug)]
pub struct Dockerfile {
    pub stages: Vec<Stage>,
}

/// One `FROM` and the instructions up to the next one.
#[derive(Debug)]
pub struct Stage {
    pub base: String,
    pub name: Option<String>,
    pub instructions: Vec<Instruction>,
}

/// `ENTRYPOINT`/`CMD`/`RUN` in exec (JSON) or shell form.
#[derive(Debug, Clone, PartialEq)]
pub enum CommandForm {
    Exec(Vec<String>),
    Shell(String),
}

/// A `COPY` (or local `ADD`): sources (context paths, or paths in stage `from`) and a destination.
#[derive(Debug, Clone, PartialEq)]
pub struct CopySpec {
    pub from: Option<String>,
    pub sources: Vec<String>,
    pub dest: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Instruction {
    Copy(CopySpec),
    Workdir(String),
    Env(Vec<(String, String)>),
    Run(CommandForm),
    User(String),
    Expose(Vec<String>),
    Healthcheck(String),
    Entrypoint(CommandForm),
    Cmd(CommandForm),
    /// LABEL, ARG (only without use), STOPSIGNAL, …: recorded, not simulated.
    Other(String),
}

impl fmt::Display for CommandForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandForm::Exec(v) => write!(f, "{v:?}"),
            CommandForm::Shell(s) => f.write_str(s),
        }
    }
}

impl Dockerfile {
    pub fn parse(text: &str) -> Result<Dockerfile, DockerfileError> {
        let mut stages: Vec<Stage> = Vec::new();
        for (line, logical) in logical_lines(text)? {
            let (keyword, rest) = match logical.split_once(char::is_whitespace) {
                Some((k, r)) => (k.to_ascii_uppercase(), r.trim().to_owned()),
                None => (logical.to_ascii_uppercase(), String::new()),
            };
            if keyword == "FROM" {
                stages.push(parse_from(line, &rest)?);
                continue;
            }
            let Some(stage) = stages.last_mut() else {
                if keyword == "ARG" {
                    continue; // ARGs before FROM only parameterise FROM lines
                }
                return Err(syntax(line, format!("{keyword} before the first FROM")));
            };
            if rest.contains("${") || (keyword != "RUN" && rest.contains('$')) {
                return Err(syntax(line, "variable substitution is not simulated"));
            }
            let instruction = match keyword.as_str() {
                "COPY" => Instruction::Copy(parse_copy(line, &rest, false)?),
                "ADD" => Instruction::Copy(parse_copy(line, &rest, true)?),
                "WORKDIR" => Instruction::Workdir(rest),
                "ENV" => Instruction::Env(parse_env(line, &rest)?),
                "RUN" => Instruction::Run(parse_command(line, &rest)?),
                "USER" => Instruction::User(rest),
                "EXPOSE" => {
                    Instruction::Expose(rest.split_whitespace().map(str::to_owned).collect())
                }
                "HEALTHCHECK" => Instruction::Healthcheck(rest),
                "ENTRYPOINT" => Instruction::Entrypoint(parse_command(line, &rest)?),
                "CMD" => Instruction::Cmd(parse_command(line, &rest)?),
                "ONBUILD" | "SHELL" | "VOLUME" => {
                    return Err(syntax(line, format!("{keyword} is not simulated")))
                }
                _ => Instruction::Other(keyword),
            };
            stage.instructions.push(instruction);
        }
        if stages.is_empty() {
            return Err(syntax(0, "no FROM"));
        }
        Ok(Dockerfile { stages })
    }

    /// The stage that `COPY --from=<name>` or a later `FROM <name>` means (a name or an index).
    pub fn stage_index(&self, name: &str) -> Option<usize> {
        self.stages
            .iter()
            .position(|s| s.name.as_deref() == Some(name))
            .or_else(|| name.parse().ok().filter(|&i| i < self.stages.len()))
    }

    /// The image: the last stage.
    pub fn image(&self) -> &Stage {
        &self.stages[self.stages.len() - 1]
    }
}

impl Stage {
    /// Every `ENV` of this stage, later values winning.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = Vec::new();
        for i in &self.instructions {
            if let Instruction::Env(pairs) = i {
                for (k, v) in pairs {
                    env.retain(|(key, _)| key != k);
                    env.push((k.clone(), v.clone()));
                }
            }
        }
        env
    }

    /// The last instruction for which `pick` returns something (USER, CMD, ENTRYPOINT, …).
    pub fn last<T>(&self, pick: impl Fn(&Instruction) -> Option<T>) -> Option<T> {
        self.instructions.iter().rev().find_map(pick)
    }

    pub fn user(&self) -> Option<String> {
        self.last(|i| match i {
            Instruction::User(u) => Some(u.clone()),
            _ => None,
        })
    }

    pub fn entrypoint(&self) -> Option<CommandForm> {
        self.last(|i| match i {
            Instruction::Entrypoint(c) => Some(c.clone()),
            _ => None,
        })
    }

    pub fn cmd(&self) -> Option<CommandForm> {
        self.last(|i| match i {
            Instruction::Cmd(c) => Some(c.clone()),
            _ => None,
        })
    }

    /// The working folder of the stage's commands (`/` unless `WORKDIR` says otherwise).
    pub fn workdir(&self) -> std::path::PathBuf {
        let mut dir = std::path::PathBuf::from("/");
        for i in &self.instructions {
            if let Instruction::Workdir(w) = i {
                dir = dir.join(w);
            }
        }
        dir
    }

    pub fn exposed(&self) -> Vec<String> {
        self.instructions
            .iter()
            .filter_map(|i| match i {
                Instruction::Expose(p) => Some(p.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    pub fn has_healthcheck(&self) -> bool {
        self.instructions
            .iter()
            .any(|i| matches!(i, Instruction::Healthcheck(h) if !h.eq_ignore_ascii_case("NONE")))
    }
}

/// Joins continuation lines (trailing `\`) and drops comments and blank lines; each logical
/// line comes with the number of its first physical line.
fn logical_lines(text: &str) -> Result<Vec<(usize, String)>, DockerfileError> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (n, raw) in text.lines().enumerate() {
        let n = n + 1;
        let trimmed = raw.trim();
        if current.is_none() && trimmed.to_ascii_lowercase().starts_with("# escape") {
            return Err(syntax(n, "a custom escape character is not simulated"));
        }
        if trimmed.starts_with('#') || (trimmed.is_empty() && current.is_some()) {
            continue; // comments, also inside continuations
        }
        if trimmed.is_empty() {
            continue;
        }
        let (body, continues) = match trimmed.strip_suffix('\\') {
            Some(b) => (b.trim_end(), true),
            None => (trimmed, false),
        };
        let entry = current.get_or_insert_with(|| (n, String::new()));
        if !entry.1.is_empty() {
            entry.1.push(' ');
        }
        entry.1.push_str(body);
        if !continues {
            out.extend(current.take());
        }
    }
    if let Some((n, _)) = current {
        return Err(syntax(
            n,
            "the last instruction ends with a line continuation",
        ));
    }
    Ok(out)
}

fn parse_from(line: usize, rest: &str) -> Result<Stage, DockerfileError> {
    let words: Vec<&str> = rest
        .split_whitespace()
        .filter(|w| !w.starts_with("--platform="))
        .collect();
    match words.as_slice() {
        [base] => Ok(Stage {
            base: (*base).to_owned(),
            name: None,
            instructions: Vec::new(),
        }),
        [base, kw, name] if kw.eq_ignore_ascii_case("as") => Ok(Stage {
            base: (*base).to_owned(),
            name: Some((*name).to_owned()),
            instructions: Vec::new(),
        }),
        _ => Err(syntax(line, format!("cannot read FROM {rest}"))),
    }
}

fn parse_copy(line: usize, rest: &str, is_add: bool) -> Result<CopySpec, DockerfileError> {
    let mut from = None;
    let mut words = rest.trim();
    while let Some(flag_and_rest) = words.strip_prefix("--") {
        let (flag, after) = flag_and_rest
            .split_once(char::is_whitespace)
            .ok_or_else(|| syntax(line, "COPY without sources"))?;
        match flag.split_once('=') {
            Some(("from", stage)) => from = Some(stage.to_owned()),
            Some(("chown" | "chmod", _)) => {}
            None if flag == "link" => {}
            _ => return Err(syntax(line, format!("COPY --{flag} is not simulated"))),
        }
        words = after.trim_start();
    }
    let mut paths = if words.starts_with('[') {
        json_array(line, words)?
    } else {
        words.split_whitespace().map(str::to_owned).collect()
    };
    if paths.len() < 2 {
        return Err(syntax(line, "COPY needs a source and a destination"));
    }
    let dest = paths.pop().unwrap_or_default();
    if is_add
        && paths
            .iter()
            .any(|p| p.contains("://") || p.starts_with("git@"))
    {
        return Err(syntax(line, "remote ADD sources are not simulated"));
    }
    Ok(CopySpec {
        from,
        sources: paths,
        dest,
    })
}

fn parse_command(line: usize, rest: &str) -> Result<CommandForm, DockerfileError> {
    if rest.starts_with('[') {
        Ok(CommandForm::Exec(json_array(line, rest)?))
    } else {
        Ok(CommandForm::Shell(rest.to_owned()))
    }
}

fn json_array(line: usize, text: &str) -> Result<Vec<String>, DockerfileError> {
    serde_json::from_str(text).map_err(|e| syntax(line, format!("not a JSON string array: {e}")))
}

/// `ENV K=V K2="v 2"` or the legacy `ENV K value with spaces`.
fn parse_env(line: usize, rest: &str) -> Result<Vec<(String, String)>, DockerfileError> {
    let first = rest.split_whitespace().next().unwrap_or_default();
    if !first.contains('=') {
        let (k, v) = rest
            .split_once(char::is_whitespace)
            .ok_or_else(|| syntax(line, "ENV without a value"))?;
        return Ok(vec![(k.to_owned(), v.trim().to_owned())]);
    }
    let mut pairs = Vec::new();
    for word in shell_words(line, rest)? {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| syntax(line, format!("ENV item {word:?} is not KEY=VALUE")))?;
        pairs.push((k.to_owned(), v.to_owned()));
    }
    Ok(pairs)
}

/// Splits at unquoted whitespace, removing double/single quotes and backslash escapes.
pub fn shell_words(line: usize, text: &str) -> Result<Vec<String>, DockerfileError> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.get_or_insert_with(String::new).push(c),
            (_, '\\') => {
                let next = chars
                    .next()
                    .ok_or_else(|| syntax(line, "a trailing backslash"))?;
                word.get_or_insert_with(String::new).push(next);
            }
            (_, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return Err(syntax(line, "an unclosed quote"));
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
# syntax comment
FROM rust:1 AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY ["src", "./src"]
RUN apt-get update \
 # a comment inside a continuation
 && cargo build --release --locked
FROM debian:bookworm-slim
COPY --from=build --chown=1:1 /src/target/release/app /usr/local/bin/app
ENV A=1 B="two words"
ENV A 3
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/app"]
CMD ["serve", "--config", "/etc/app.toml"]
"#;

    #[test]
    fn reads_stages_copies_env_and_commands() {
        let d = Dockerfile::parse(SAMPLE).unwrap();
        assert_eq!(d.stages.len(), 2);
        assert_eq!(d.stage_index("build"), Some(0));
        assert_eq!(d.stage_index("1"), Some(1));
        let build = &d.stages[0];
        assert_eq!(
            build.instructions[1],
            Instruction::Copy(CopySpec {
                from: None,
                sources: vec!["Cargo.toml".into(), "Cargo.lock".into()],
                dest: "./".into()
            })
        );
        assert_eq!(
            build.instructions[3],
            Instruction::Run(CommandForm::Shell(
                "apt-get update && cargo build --release --locked".into()
            ))
        );
        let image = d.image();
        assert_eq!(
            image.env(),
            vec![("B".into(), "two words".into()), ("A".into(), "3".into())]
        );
        assert_eq!(image.user().as_deref(), Some("10001:10001"));
        assert_eq!(image.exposed(), vec!["8080".to_owned()]);
        assert!(!image.has_healthcheck());
        assert_eq!(
            image.cmd(),
            Some(CommandForm::Exec(vec![
                "serve".into(),
                "--config".into(),
                "/etc/app.toml".into()
            ]))
        );
        let Instruction::Copy(c) = &image.instructions[0] else {
            panic!("not a COPY")
        };
        assert_eq!(c.from.as_deref(), Some("build"));
    }

    #[test]
    fn refuses_what_it_cannot_simulate() {
        for bad in [
            "FROM a\nCOPY --parents src ./\n",
            "FROM a\nCOPY $DIR ./\n",
            "FROM a\nADD https://example.com/x /x\n",
            "COPY a b\n",
            "FROM a\nCOPY onlyone\n",
            "FROM a\nRUN x \\\n",
            "# escape=`\nFROM a\n",
        ] {
            assert!(Dockerfile::parse(bad).is_err(), "accepted: {bad:?}");
        }
    }

    #[test]
    fn healthcheck_none_is_no_healthcheck() {
        let d = Dockerfile::parse("FROM a\nHEALTHCHECK NONE\n").unwrap();
        assert!(!d.image().has_healthcheck());
        let d = Dockerfile::parse("FROM a\nHEALTHCHECK CMD curl -f http://x/\n").unwrap();
        assert!(d.image().has_healthcheck());
    }

    #[test]
    fn shell_words_handle_quotes_and_escapes() {
        assert_eq!(
            shell_words(1, r#"a "b c" 'd e' f\ g"#).unwrap(),
            vec!["a", "b c", "d e", "f g"]
        );
        assert!(shell_words(1, "\"open").is_err());
    }
}
