//! SECRET: credentials pasted into a prompt — the most common leak in real LLM traffic.
//!
//! Found from one case-insensitive Aho-Corasick automaton run over the view (in four parts at
//! once, [`triggers`]) that finds *triggers* (no full-text regex): published key prefixes
//! (OpenAI/Anthropic `sk-`, Stripe `sk_live_` …, AWS `AKIA`/`ASIA`, GitHub `ghp_` …/`github_pat_`,
//! GitLab `glpat-`, Slack `xox?-`, Google `AIza`, JWTs `eyJ`), PEM private key blocks, `://`
//! (credentials in URLs and connection strings), `Bearer`, and the stems of field names (`pass`,
//! `pwd`, `kennwort`, `secret`, `token`, `key`, `pin`). Each trigger is then checked in code:
//!
//! - A key prefix must match case-exactly, start a token (not after a letter, digit or other
//!   base64 byte) and be followed by a body of its alphabet and length that ends a token; random
//!   bodies must be *mixed* (upper, lower, digit), so hyphenated prose (`sk-learn-…`), hashes
//!   (hex: no upper case), UUIDs and data inside base64 images (no token start) never match.
//! - `scheme://user:password@host`: only the password is the secret (decision: the model still
//!   sees user, host and database, which it needs to help; the password it never needs).
//! - A field whose name ends in a secret word (`password`, `Passwort`, `passwd`, `pwd`,
//!   `secret`, `token`, `api_key`, `accessToken`, `client_secret` …) followed by `:`, `=`, `=>`
//!   or `>` (XML) gives its value, quoted or bare; `max_tokens`, `token_count`, `password_hash`
//!   do not end in one. Placeholders (`****`, `${VAR}`, `null`) are not secrets. For `Passwort`
//!   prose (`Das Passwort lautet Sommer2024!`) the value must hold a digit or symbol.
//! - After an AWS access key id, a 40-character secret access key within 256 bytes.

mod triggers;

use super::cand;
use crate::lexicon::Lexicon;
use crate::validate::secret::{base64_byte, jwt, mixed, placeholder};
use crate::{Candidate, EntityType, Recognizer, Text};

/// What a trigger starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A key with a published prefix: its body alphabet and length bounds, and whether the body
    /// must be [`mixed`].
    Key {
        body: Alphabet,
        min: usize,
        max: usize,
        mixed: bool,
    },
    /// AWS access key id (`AKIA`/`ASIA` + 16 upper-case letters/digits).
    AwsKeyId,
    /// `eyJ` — a JWT (`{"` base64url-encoded).
    Jwt,
    /// `-----BEGIN` — a PEM block.
    Pem,
    /// `://` — userinfo with a password.
    Url,
    /// `bearer ` — an HTTP bearer token.
    Bearer,
    /// The stem of a field name.
    Field,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Alphabet {
    /// `[A-Za-z0-9]`
    Alnum,
    /// `[A-Za-z0-9_]`
    Underscore,
    /// `[A-Za-z0-9_-]`
    UrlSafe,
}

impl Alphabet {
    fn has(self, b: u8) -> bool {
        b.is_ascii_alphanumeric()
            || match self {
                Alphabet::Alnum => false,
                Alphabet::Underscore => b == b'_',
                Alphabet::UrlSafe => b == b'_' || b == b'-',
            }
    }
}

const fn key(body: Alphabet, min: usize, max: usize, mixed: bool) -> Kind {
    Kind::Key {
        body,
        min,
        max,
        mixed,
    }
}

/// Triggers and what they start. Key prefixes are matched case-exactly after the
/// (case-insensitive) automaton found them.
const TRIGGERS: &[(&str, Kind)] = &[
    // OpenAI (`sk-`, `sk-proj-`, `sk-svcacct-`) and Anthropic (`sk-ant-api03-`).
    ("sk-", key(Alphabet::UrlSafe, 20, 300, true)),
    // Stripe secret, restricted and publishable keys, live and test.
    ("sk_live_", key(Alphabet::Alnum, 16, 255, false)),
    ("rk_live_", key(Alphabet::Alnum, 16, 255, false)),
    ("pk_live_", key(Alphabet::Alnum, 16, 255, false)),
    ("sk_test_", key(Alphabet::Alnum, 16, 255, false)),
    ("rk_test_", key(Alphabet::Alnum, 16, 255, false)),
    ("pk_test_", key(Alphabet::Alnum, 16, 255, false)),
    ("AKIA", Kind::AwsKeyId),
    ("ASIA", Kind::AwsKeyId),
    // GitHub personal, OAuth, server, user-to-server and refresh tokens (36 characters today).
    ("ghp_", key(Alphabet::Alnum, 30, 255, false)),
    ("gho_", key(Alphabet::Alnum, 30, 255, false)),
    ("ghs_", key(Alphabet::Alnum, 30, 255, false)),
    ("ghu_", key(Alphabet::Alnum, 30, 255, false)),
    ("ghr_", key(Alphabet::Alnum, 30, 255, false)),
    ("github_pat_", key(Alphabet::Underscore, 22, 255, false)),
    ("glpat-", key(Alphabet::UrlSafe, 20, 255, false)),
    // Slack bot, app, user, refresh and legacy tokens (digits and hyphens inside).
    ("xoxb-", key(Alphabet::UrlSafe, 10, 255, false)),
    ("xoxa-", key(Alphabet::UrlSafe, 10, 255, false)),
    ("xoxp-", key(Alphabet::UrlSafe, 10, 255, false)),
    ("xoxr-", key(Alphabet::UrlSafe, 10, 255, false)),
    ("xoxs-", key(Alphabet::UrlSafe, 10, 255, false)),
    // Google API keys: `AIza` + 35 characters.
    ("AIza", key(Alphabet::UrlSafe, 35, 35, false)),
    ("eyJ", Kind::Jwt),
    ("-----BEGIN", Kind::Pem),
    ("://", Kind::Url),
    ("bearer ", Kind::Bearer),
    ("pass", Kind::Field),
    ("pwd", Kind::Field),
    ("pw", Kind::Field),
    ("kennwort", Kind::Field),
    ("secret", Kind::Field),
    ("token", Kind::Field),
    ("key", Kind::Field),
    ("pin", Kind::Field),
];

/// Scores: a published key shape is near certain; a field value depends on the name.
const KEY_SCORE: f32 = 0.95;
const PEM_SCORE: f32 = 0.99;
const URL_PASSWORD_SCORE: f32 = 0.9;
const FIELD_SCORE: f32 = 0.85;

/// Longest value taken from a field (longer ones are cut here: still masked, never leaked whole
/// in the common case).
const MAX_VALUE: usize = 1024;

pub struct SecretRecognizer {
    triggers: triggers::TriggerScan,
}

impl SecretRecognizer {
    pub fn new() -> Self {
        let triggers = triggers::TriggerScan::new(TRIGGERS.iter().map(|(p, _)| p))
            .expect("static secret triggers");
        SecretRecognizer { triggers }
    }
}

impl Recognizer for SecretRecognizer {
    fn entity_type(&self) -> EntityType {
        EntityType::Secret
    }

    fn recognize(&self, text: &Text<'_>, out: &mut Vec<Candidate>) {
        let s = text.view();
        let b = s.as_bytes();
        // Bytes before this are covered by a field already handled (one field, many stems).
        let mut done = 0;
        for m in self.triggers.leftmost_longest(b) {
            let Some(&(pattern, kind)) = TRIGGERS.get(m.pattern) else {
                continue;
            };
            let (start, end) = (m.start, m.end);
            match kind {
                // A key prefix counts written case-exactly and at the start of a token only.
                Kind::Key { .. } | Kind::AwsKeyId | Kind::Jwt
                    if &b[start..end] != pattern.as_bytes() || !token_start(b, start) =>
                {
                    continue;
                }
                Kind::Key {
                    body,
                    min,
                    max,
                    mixed: need_mixed,
                } => {
                    let stop = run(b, end, |c| body.has(c));
                    let n = stop - end;
                    if (min..=max).contains(&n)
                        && token_end(b, stop)
                        && (!need_mixed || mixed(&b[end..stop]))
                        && b[end..stop].iter().any(u8::is_ascii_digit)
                    {
                        out.push(cand(EntityType::Secret, start, stop, KEY_SCORE, false));
                    }
                }
                Kind::AwsKeyId => {
                    let stop = run(b, end, |c| c.is_ascii_uppercase() || c.is_ascii_digit());
                    if stop - end == 16
                        && token_end(b, stop)
                        && b[end..stop].iter().any(u8::is_ascii_digit)
                    {
                        out.push(cand(EntityType::Secret, start, stop, KEY_SCORE, false));
                        aws_secret_near(s, start, stop, out);
                    }
                }
                Kind::Jwt => {
                    if let Some(stop) = jwt_end(s, start) {
                        out.push(cand(EntityType::Secret, start, stop, KEY_SCORE, false));
                    }
                }
                Kind::Pem => {
                    if let Some(stop) = pem_block(s, start) {
                        out.push(cand(EntityType::Secret, start, stop, PEM_SCORE, false));
                    }
                }
                Kind::Url => {
                    if let Some((a, e)) = url_password(s, start) {
                        out.push(cand(EntityType::Secret, a, e, URL_PASSWORD_SCORE, false));
                    }
                }
                Kind::Bearer => {
                    if let Some(stop) = bearer_token_end(s, start, end) {
                        out.push(cand(EntityType::Secret, end, stop, KEY_SCORE, false));
                    }
                }
                Kind::Field => {
                    if start < done {
                        continue;
                    }
                    let (name_start, name_end) = identifier(b, start, end);
                    done = name_end;
                    if let Some((a, e)) = field_value(s, name_start, name_end) {
                        out.push(cand(EntityType::Secret, a, e, FIELD_SCORE, false));
                        done = e;
                    }
                }
            }
        }
    }
}

/// The end of the JWT whose `eyJ` starts at `start`, when the token there is one.
fn jwt_end(s: &str, start: usize) -> Option<usize> {
    let b = s.as_bytes();
    let stop = run(b, start, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')
    });
    let stop = if b.get(stop.wrapping_sub(1)) == Some(&b'.') && stop > start {
        // A trailing dot is a sentence end unless the token is `alg: none`
        // (empty signature): try both.
        if jwt(&s[start..stop]) {
            stop
        } else {
            stop - 1
        }
    } else {
        stop
    };
    (token_end(b, stop) && jwt(&s[start..stop])).then_some(stop)
}

/// The end of the token after `Bearer ` (`start..end` the trigger): at least 16 bytes of the
/// token alphabet, padding included, and no placeholder.
fn bearer_token_end(s: &str, start: usize, end: usize) -> Option<usize> {
    let b = s.as_bytes();
    if !token_start(b, start) {
        return None;
    }
    let stop = run(b, end, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'~' | b'+' | b'/')
    });
    let stop = run(b, stop, |c| c == b'=');
    (stop - end >= 16 && token_end(b, stop) && !placeholder(&s[end..stop])).then_some(stop)
}

/// First index at or after `i` whose byte `keep` refuses.
fn run(b: &[u8], i: usize, keep: impl Fn(u8) -> bool) -> usize {
    b.get(i..)
        .and_then(|r| r.iter().position(|&c| !keep(c)))
        .map_or(b.len(), |p| i + p)
}

/// A key may start here: nothing of a longer token or base64 blob directly before.
fn token_start(b: &[u8], i: usize) -> bool {
    i == 0 || !(base64_byte(b[i - 1]) || b[i - 1] == b'.' || b[i - 1] >= 0x80) || b[i - 1] == b'='
}

/// A key may end here: no letter, digit or other base64 byte follows.
fn token_end(b: &[u8], i: usize) -> bool {
    b.get(i)
        .is_none_or(|&c| !(base64_byte(c) || c >= 0x80) || c == b'=' && i + 1 == b.len())
}

/// The secret access key that an AWS access key id often comes with: a token of exactly 40
/// bytes of `[A-Za-z0-9/+]`, mixed, within 256 bytes after the id (or before it).
fn aws_secret_near(s: &str, id_start: usize, id_end: usize, out: &mut Vec<Candidate>) {
    let b = s.as_bytes();
    let from = super::floor_boundary(s, id_start.saturating_sub(256));
    let to = super::ceil_boundary(s, id_end.saturating_add(256));
    let body = |c: u8| c.is_ascii_alphanumeric() || c == b'/' || c == b'+';
    let mut i = from;
    while i < to {
        if !body(b[i]) {
            i += 1;
            continue;
        }
        let stop = run(b, i, body);
        let clean_left = i == 0 || !(base64_byte(b[i - 1]) || b[i - 1] >= 0x80);
        let clean_right = b.get(stop).is_none_or(|&c| !(base64_byte(c) || c >= 0x80));
        if stop - i == 40 && clean_left && clean_right && mixed(&b[i..stop]) {
            out.push(cand(EntityType::Secret, i, stop, 0.9, false));
        }
        i = stop;
    }
}

/// The end of a PEM private key block opened by `-----BEGIN` at `start`: after its
/// `-----END … -----` line, or, when that is missing (a truncated paste), after the last line of
/// base64 or header text that follows. `None` for blocks that hold no private key
/// (certificates, public keys).
fn pem_block(s: &str, start: usize) -> Option<usize> {
    let rest = s.get(start..)?;
    let line_end = rest.find('\n').unwrap_or(rest.len());
    let first = &rest[..line_end];
    if !first.starts_with("-----BEGIN ") || !first.contains("PRIVATE KEY") {
        return None;
    }
    const MAX_BLOCK: usize = 64 * 1024;
    let window = &rest[..super::floor_boundary(rest, MAX_BLOCK)];
    if let Some(end_marker) = window.find("-----END ") {
        let after = &window[end_marker + 9..];
        let close = after.find("-----")?;
        return Some(start + end_marker + 9 + close + 5);
    }
    // Truncated: take the following lines while they look like key material.
    let mut end = start + line_end;
    let mut pos = line_end;
    while pos < rest.len() {
        let line_start = pos + 1;
        let Some(tail) = rest.get(line_start..) else {
            break;
        };
        let len = tail.find('\n').unwrap_or(tail.len());
        let line = tail[..len].trim_end_matches('\r');
        let material = !line.is_empty()
            && (line.bytes().all(base64_byte)
                || line.starts_with("Proc-Type:")
                || line.starts_with("DEK-Info:"));
        if !material {
            break;
        }
        end = start + line_start + len;
        pos = line_start + len;
    }
    Some(end)
}

/// The password of `scheme://user:password@host` around the `://` at `sep`: the bytes between
/// the first `:` of the userinfo and its last `@`.
fn url_password(s: &str, sep: usize) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    // A scheme before: letters, digits, `+ . -`, starting with a letter.
    let scheme_start = (0..sep)
        .rev()
        .find(|&i| !(b[i].is_ascii_alphanumeric() || matches!(b[i], b'+' | b'.' | b'-')))
        .map_or(0, |i| i + 1);
    if scheme_start == sep || !b[scheme_start].is_ascii_alphabetic() {
        return None;
    }
    let auth_start = sep + 3;
    let auth_end = run(b, auth_start, |c| {
        !(c.is_ascii_whitespace() || matches!(c, b'/' | b'?' | b'"' | b'\'' | b'<' | b'>'))
    });
    let auth = &b[auth_start..auth_end];
    let at = auth.iter().rposition(|&c| c == b'@')?;
    let colon = auth[..at].iter().position(|&c| c == b':')?;
    let (a, e) = (auth_start + colon + 1, auth_start + at);
    let password = s.get(a..e)?;
    (a < e && !placeholder(password)).then_some((a, e))
}

/// The field name around a stem hit `[start, end)`: the maximal run of ASCII letters, digits,
/// `_`, `-` and `.` (leading hyphens of `--password` excluded).
fn identifier(b: &[u8], start: usize, end: usize) -> (usize, usize) {
    let name = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.');
    let mut a = start;
    while a > 0 && name(b[a - 1]) {
        a -= 1;
    }
    while a < start && matches!(b[a], b'-' | b'.') {
        a += 1;
    }
    let mut e = run(b, end, name);
    while e > end && matches!(b[e - 1], b'-' | b'.') {
        e -= 1;
    }
    (a, e)
}

/// What a field name says about its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldKind {
    Password,
    Token,
}

/// Whether a field named `name` holds a secret (a password or a token), by [`classify`]: the
/// code reader's labelled literals ask the same question as this recognizer.
pub(crate) fn names_a_secret(name: &str) -> bool {
    classify(name.as_bytes()).is_some()
}

/// Splits a name into lower-case parts at `_ - .` and lower→upper case changes, and looks at
/// the last part (or the last two joined): `DB_PASSWORD`, `apiKey`, `client_secret`,
/// `aws_secret_access_key`, `Passwort`.
fn classify(name: &[u8]) -> Option<FieldKind> {
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut part_start = 0;
    for i in 0..name.len() {
        let c = name[i];
        if matches!(c, b'_' | b'-' | b'.') {
            if part_start < i {
                parts.push((part_start, i));
            }
            part_start = i + 1;
        } else if i > part_start && c.is_ascii_uppercase() && name[i - 1].is_ascii_lowercase() {
            parts.push((part_start, i));
            part_start = i;
        }
    }
    if part_start < name.len() {
        parts.push((part_start, name.len()));
    }
    let lower = |(a, e): (usize, usize)| -> String {
        String::from_utf8_lossy(&name[a..e]).to_ascii_lowercase()
    };
    let lists = &Lexicon::get().lists;
    let last = lower(*parts.last()?);
    if lists.secret_token_words.contains(&last.as_str()) {
        return Some(FieldKind::Token);
    }
    if parts.len() >= 2 {
        let two = lower(parts[parts.len() - 2]) + &last;
        if lists.secret_token_words.contains(&two.as_str()) {
            return Some(FieldKind::Token);
        }
    }
    // `PGPASSWORD`, `mysqlpasswort`: a long password word closing a name written as one word.
    if lists
        .secret_password_words
        .iter()
        .any(|w| w.len() >= 6 && last.len() > w.len() && last.ends_with(w))
    {
        return Some(FieldKind::Password);
    }
    // `Pass` alone is the German passport (`Pass: C01X00T47`); `db_pass`, `smtp.pass` are not.
    if last == "pass" && parts.len() < 2 {
        return None;
    }
    lists
        .secret_password_words
        .contains(&last.as_str())
        .then_some(FieldKind::Password)
}

/// The value of the field named `[name_start, name_end)` when the name ends in a secret word
/// and a separator follows: `name: v`, `"name": "v"`, `name = 'v'`, `name=v`, `name => v`,
/// `<name>v</name>`, and for passwords also `Passwort lautet v` / `password is v` (then `v`
/// must hold a digit or symbol) and a short label phrase before `:` (`Passwort für das WLAN:`).
fn field_value(s: &str, name_start: usize, name_end: usize) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    let name = &b[name_start..name_end];
    // Cheap filter before the split: most stems sit inside ordinary words (`passen`, `monkey`).
    let ends_in = |w: &str| {
        name.len() >= w.len() && name[name.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
    };
    if !Lexicon::get()
        .lists
        .secret_password_words
        .iter()
        .any(|w| ends_in(w))
        && !ends_in("token")
        && !ends_in("key")
    {
        return None;
    }
    let kind = classify(name)?;
    // The name itself must not be glued to other text (`compass` inside `compassword`).
    if name_start > 0 && (b[name_start - 1] >= 0x80 || b[name_start - 1].is_ascii_alphanumeric()) {
        return None;
    }
    let xml = name_start > 0 && b[name_start - 1] == b'<';
    let mut i = name_end;
    if xml {
        if b.get(i) != Some(&b'>') {
            return None;
        }
        i += 1;
        let stop = run(b, i, |c| c != b'<' && c != b'\n');
        return accept(s, kind, i, stop, false);
    }
    // Closing quote of a quoted key.
    if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let (value_start, prose) = after_separator(s, i, kind)?;
    value_at(s, kind, value_start, prose)
}

/// Skips what follows a secret field's name from `i`: the separator (`:`, `:=`, `=`, `=>`) or,
/// for passwords, a verb of saying (`lautet`, `is`) or a short label phrase before `:`. Where the
/// value starts, and whether prose announced it.
fn after_separator(s: &str, i: usize, kind: FieldKind) -> Option<(usize, bool)> {
    let b = s.as_bytes();
    let mut i = run(b, i, |c| c == b' ' || c == b'\t');
    let mut prose = false;
    match b.get(i) {
        Some(b':') => {
            i += 1;
            if b.get(i) == Some(&b'=') {
                i += 1;
            }
        }
        Some(b'=') => {
            i += 1;
            if b.get(i) == Some(&b'>') {
                i += 1;
            }
        }
        _ if kind == FieldKind::Password => {
            // Prose: a verb of saying, or up to 40 bytes of words before a colon.
            let rest = s.get(i..)?;
            let verb = Lexicon::get().lists.secret_password_verbs.iter().find(|v| {
                rest.get(..v.len())
                    .is_some_and(|r| r.eq_ignore_ascii_case(v))
                    && rest.as_bytes().get(v.len()) == Some(&b' ')
            });
            if let Some(v) = verb {
                i += v.len();
                prose = true;
            } else {
                let label = run(b, i, |c| c.is_ascii_alphabetic() || c == b' ' || c >= 0x80);
                if label - i > 40 || b.get(label) != Some(&b':') {
                    return None;
                }
                i = label + 1;
            }
            if b.get(i) == Some(&b':') {
                i += 1;
            }
        }
        _ => return None,
    }
    Some((run(b, i, |c| c == b' ' || c == b'\t'), prose))
}

/// The value starting at `i`: a quoted string (escapes skipped, at most [`MAX_VALUE`] bytes), or
/// a bare run up to a delimiter without a sentence end.
fn value_at(s: &str, kind: FieldKind, i: usize, prose: bool) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    match b.get(i) {
        Some(&q @ (b'"' | b'\'' | b'`')) => {
            let a = i + 1;
            let mut e = a;
            while e < b.len() && e - a <= MAX_VALUE {
                match b[e] {
                    b'\\' => e += 2,
                    c if c == q || c == b'\n' => break,
                    _ => e += 1,
                }
            }
            let e = super::floor_boundary(s, e.min(b.len()));
            accept(s, kind, a, e, prose)
        }
        _ => {
            let stop = run(b, i, |c| {
                !(c.is_ascii_whitespace()
                    || matches!(
                        c,
                        b',' | b';' | b'&' | b')' | b'}' | b']' | b'"' | b'\'' | b'<'
                    ))
            });
            // A sentence end is not part of the value.
            let mut e = stop;
            while e > i && matches!(b[e - 1], b'.' | b',') {
                e -= 1;
            }
            accept(s, kind, i, e, prose)
        }
    }
}

/// Applies the value rules: not a placeholder; tokens at least 8 bytes; prose passwords hold a
/// digit or symbol.
fn accept(s: &str, kind: FieldKind, a: usize, e: usize, prose: bool) -> Option<(usize, usize)> {
    let e = e.min(a.saturating_add(MAX_VALUE)).min(s.len());
    let e = super::floor_boundary(s, e);
    let v = s.get(a..e)?;
    if v.is_empty() || placeholder(v) {
        return None;
    }
    let ok = match kind {
        FieldKind::Token => v.len() >= 8,
        FieldKind::Password if prose => v.bytes().any(|c| !c.is_ascii_alphabetic()),
        FieldKind::Password => true,
    };
    ok.then_some((a, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(s: &str) -> Vec<&str> {
        let text = Text::new(s);
        let mut out = Vec::new();
        SecretRecognizer::new().recognize(&text, &mut out);
        out.iter().map(|c| &s[c.start..c.end]).collect()
    }

    #[test]
    fn field_names_are_classified_by_their_last_part() {
        for (name, kind) in [
            ("password", Some(FieldKind::Password)),
            ("DB_PASSWORD", Some(FieldKind::Password)),
            ("Passwort", Some(FieldKind::Password)),
            ("client_secret", Some(FieldKind::Password)),
            ("apiKey", Some(FieldKind::Token)),
            ("api_key", Some(FieldKind::Token)),
            ("aws_secret_access_key", Some(FieldKind::Token)),
            ("access_token", Some(FieldKind::Token)),
            ("max_tokens", None),
            ("token_count", None),
            ("password_hash", None),
            ("keyboard", None),
            ("compass", None),
            ("Pass", None),
            ("DB_PASS", Some(FieldKind::Password)),
        ] {
            assert_eq!(classify(name.as_bytes()), kind, "{name}");
        }
    }

    #[test]
    fn fields_in_json_env_yaml_xml_and_prose() {
        assert_eq!(
            found(r#"{"password": "hunter2", "user": "anna"}"#),
            ["hunter2"]
        );
        assert_eq!(found("DB_PASSWORD=Xy7!kLm9 ./run"), ["Xy7!kLm9"]);
        assert_eq!(found("passwd: s3cr3t\nhost: db"), ["s3cr3t"]);
        assert_eq!(found("<password>Geheim#42</password>"), ["Geheim#42"]);
        assert_eq!(found("Mein Passwort: Sommer2024!"), ["Sommer2024!"]);
        assert_eq!(
            found("Das Passwort lautet Sommer2024! Danke."),
            ["Sommer2024!"]
        );
        assert_eq!(
            found("Passwort für das WLAN: blauerHimmel7."),
            ["blauerHimmel7"]
        );
        assert_eq!(
            found("Server=db;User Id=app;Password=p4ss;Encrypt=true"),
            ["p4ss"]
        );
        assert_eq!(found("api_key = 'a1b2c3d4e5f6'"), ["a1b2c3d4e5f6"]);
    }

    #[test]
    fn fields_that_are_not_secrets() {
        for s in [
            r#"{"max_tokens": 1024, "model": "x"}"#,
            "Das Passwort ist falsch.",
            "password: ****",
            "password=${DB_PASSWORD}",
            r#""token": null"#,
            "token: short",
            "Der Kompass zeigt: Norden",
            "password_hash: 5f4dcc3b5aa765d61d8327deb882cf99",
        ] {
            assert!(found(s).is_empty(), "{s}: {:?}", found(s));
        }
    }

    #[test]
    fn url_credentials_give_the_password_only() {
        assert_eq!(
            found("postgres://admin:Pa55w0rd@db.example.com:5432/app"),
            ["Pa55w0rd"]
        );
        assert_eq!(found("mongodb+srv://u:p@ss@cluster0/x"), ["p@ss"]);
        assert!(found("https://user@example.com/path").is_empty());
        assert!(found("https://example.com/a:b@c").is_empty());
    }

    #[test]
    fn pem_blocks_whole_or_truncated() {
        let block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nq83x\n-----END RSA PRIVATE KEY-----";
        assert_eq!(found(&format!("key:\n{block}\nthanks")), [block]);
        let cut = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAbc+/def=";
        assert_eq!(found(&format!("{cut}\n\nWhat now?")), [cut]);
        assert!(found("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----").is_empty());
    }
}
