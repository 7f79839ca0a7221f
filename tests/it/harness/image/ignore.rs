//! `.dockerignore` rules as container builds apply them: one pattern a line (`#` comments),
//! `*` and `?` within one path segment, `**` across segments, `!` re-includes, the last matching
//! rule wins, and a rule that matches a directory matches everything below it.

use regex::Regex;

/// Why a `.dockerignore` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum IgnoreError {
    #[error(".dockerignore line {line}: cannot read pattern {pattern:?}: {source}")]
    Pattern {
        line: usize,
        pattern: String,
        source: regex::Error,
    },
}

struct Rule {
    regex: Regex,
    include_again: bool,
}

/// The parsed rules of one `.dockerignore` (empty when the file does not exist).
pub struct DockerIgnore {
    rules: Vec<Rule>,
}

impl DockerIgnore {
    pub fn parse(text: &str) -> Result<DockerIgnore, IgnoreError> {
        let mut rules = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (include_again, pattern) = match line.strip_prefix('!') {
                Some(p) => (true, p.trim()),
                None => (false, line),
            };
            let pattern = clean(pattern);
            if pattern.is_empty() {
                continue;
            }
            let regex = pattern_regex(&pattern).map_err(|source| IgnoreError::Pattern {
                line: n + 1,
                pattern: pattern.clone(),
                source,
            })?;
            rules.push(Rule {
                regex,
                include_again,
            });
        }
        Ok(DockerIgnore { rules })
    }

    /// Whether `path` (relative to the context root, `/`-separated) is left out of the context.
    pub fn excludes(&self, path: &str) -> bool {
        let path = clean(path);
        // The path itself and every parent directory: `data` also leaves out `data/a.txt`.
        let candidates: Vec<&str> = path
            .match_indices('/')
            .map(|(i, _)| &path[..i])
            .chain(std::iter::once(path.as_str()))
            .collect();
        let mut excluded = false;
        for rule in &self.rules {
            if candidates.iter().any(|c| rule.regex.is_match(c)) {
                excluded = !rule.include_again;
            }
        }
        excluded
    }

    /// Whether no rule can bring back anything below an excluded directory (so a walk may skip it).
    pub fn has_exceptions(&self) -> bool {
        self.rules.iter().any(|r| r.include_again)
    }
}

/// Like Go's `filepath.Clean` for relative context paths: no leading `/` or `./`, no `//`,
/// no trailing `/`.
fn clean(path: &str) -> String {
    path.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// The regular expression of one pattern (anchored at both ends).
pub fn pattern_regex(pattern: &str) -> Result<Regex, regex::Error> {
    let mut re = String::from("^");
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 1;
                if chars.get(i + 1) == Some(&'/') {
                    i += 1;
                    re.push_str("(?:.*/)?"); // `**/`: any number of directories, also none
                } else {
                    re.push_str(".*");
                }
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            '[' => {
                // a character class, passed through (Go also negates with `^`)
                let end = chars[i..]
                    .iter()
                    .position(|&c| c == ']')
                    .map(|p| i + p)
                    .unwrap_or(chars.len() - 1);
                let class: String = chars[i..=end].iter().collect();
                re.push_str(&class.replace("[!", "[^"));
                i = end;
            }
            '\\' if i + 1 < chars.len() => {
                i += 1;
                re.push_str(&regex::escape(&chars[i].to_string()));
            }
            c => re.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    re.push('$');
    Regex::new(&re)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_rules_cover_their_contents_and_only_at_the_root() {
        let ig = DockerIgnore::parse("# comment\ntarget\n/fuzz/\n").unwrap();
        assert!(ig.excludes("target"));
        assert!(ig.excludes("target/release/tarnkappe"));
        assert!(ig.excludes("fuzz/Cargo.toml"));
        assert!(!ig.excludes("src/target.rs"));
        assert!(!ig.excludes("src/target/x.rs"), "only at the root");
    }

    #[test]
    fn stars_stay_within_a_segment_and_double_stars_cross() {
        let ig = DockerIgnore::parse("*.md\n**/__pycache__\ndata/**/*.bin\n").unwrap();
        assert!(ig.excludes("README.md"));
        assert!(!ig.excludes("data/README.md"));
        assert!(ig.excludes("__pycache__/x.pyc"));
        assert!(ig.excludes("scripts/gazetteer/__pycache__/x.pyc"));
        assert!(ig.excludes("data/a.bin"));
        assert!(ig.excludes("data/tagger/w.bin"));
        assert!(!ig.excludes("data/tagger/w.txt"));
    }

    #[test]
    fn the_last_matching_rule_wins() {
        let ig = DockerIgnore::parse("*.md\n!NOTICE.md\ndocs\n!docs/keep.txt\n").unwrap();
        assert!(ig.excludes("README.md"));
        assert!(!ig.excludes("NOTICE.md"));
        assert!(ig.excludes("docs/other.txt"));
        assert!(!ig.excludes("docs/keep.txt"));
        assert!(ig.has_exceptions());
    }

    #[test]
    fn a_rule_dropping_data_is_seen() {
        // The failure mode the image check exists for: the build needs these files.
        let ig = DockerIgnore::parse("data/*.txt\n").unwrap();
        assert!(ig.excludes("data/first_names.txt"));
        assert!(!ig.excludes("data/tagger/weights.bin"));
    }

    #[test]
    fn question_marks_and_classes() {
        let ig = DockerIgnore::parse("file?.txt\nlog[0-9]\n").unwrap();
        assert!(ig.excludes("file1.txt"));
        assert!(!ig.excludes("file10.txt"));
        assert!(ig.excludes("log7"));
        assert!(!ig.excludes("logx"));
    }
}
