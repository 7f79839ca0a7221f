//! Code is not prose (issue 50), over real HTTP through the proxy: a Claude Code-style
//! `tool_result` with a source file (line-number gutter) and a diff, and a Codex
//! `function_call_output` with test output, go upstream with the code untouched except for the
//! values planted in it; the model's edit that quotes the code comes back restored byte for byte.

use serde_json::{json, Value};

use crate::harness::http::post_json;
use crate::harness::tokens::tokens_in;
use crate::harness::upstream::echo::responses_object;
use crate::harness::upstream::says::{said, says};
use crate::harness::upstream::{FakeUpstream, Recorded, Reply};

const MAIL: &str = "jana.krueger@posteo.de";
const SURNAME: &str = "Brückner";
const PASSWORD: &str = "Sommer2024!prod";

/// A file as an agent's read tool returns it: six-wide line numbers, an arrow, the line.
fn with_gutter(source: &str) -> String {
    source
        .lines()
        .enumerate()
        .map(|(i, line)| format!("{:>6}→{line}\n", i + 1))
        .collect()
}

fn source_file() -> String {
    format!(
        "import getpass\n\
         \n\
         def login(prompt, stream=None):\n    \
             passwd = fallback_getpass(prompt, stream)\n    \
             if not passwd:\n        \
                 return None\n    \
             elif len(passwd) < 8:\n        \
                 raise ValueError(\"too short\")\n    \
             pw = pw[:-1]\n    \
             return Session(self.encoding)\n\
         \n\
         DB_PASSWORD = \"{PASSWORD}\"\n\
         ADMIN = {{\"email\": \"{MAIL}\"}}\n\
         user.setLastName(\"{SURNAME}\")\n"
    )
}

fn diff() -> String {
    format!(
        "diff --git a/app/auth.py b/app/auth.py\n\
         --- a/app/auth.py\n\
         +++ b/app/auth.py\n\
         @@ -3,6 +3,7 @@ def login(prompt, stream=None):\n     \
             passwd = fallback_getpass(prompt, stream)\n     \
             if not passwd:\n         \
                 return None\n\
         -    elif len(passwd) < 8:\n\
         +    elif len(passwd) < 12:\n\
         +        log.info(\"short password for {MAIL}\")\n         \
                 raise ValueError(\"too short\")\n"
    )
}

/// Every line of `original` without a planted value reached the upstream as it was written;
/// no planted value did.
fn assert_code_untouched(original: &str, upstream: &str) {
    for value in [MAIL, SURNAME, PASSWORD] {
        assert!(
            !upstream.contains(value),
            "{value} went upstream: {upstream}"
        );
    }
    for line in original.lines() {
        if [MAIL, SURNAME, PASSWORD].iter().all(|v| !line.contains(v)) {
            assert!(
                upstream.contains(line),
                "line changed upstream: {line:?}\n{upstream}"
            );
        }
    }
    let tokens = tokens_in(upstream);
    let planted = [MAIL, SURNAME, PASSWORD]
        .iter()
        .filter(|v| original.contains(*v))
        .count();
    let mut distinct = tokens.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        planted,
        "one token per planted value: {tokens:?}"
    );
}

/// The text of the first `tool_result` (Anthropic) or `function_call_output` (Responses).
fn tool_output(body: &Value) -> String {
    let anthropic = body["messages"][1]["content"][1]["content"].as_str();
    let responses = body["input"][1]["output"].as_str();
    anthropic.or(responses).unwrap_or_default().to_owned()
}

/// An upstream whose reply quotes the tool output it received, as a model's edit does.
fn quoting(r: &Recorded) -> Reply {
    let body = r.json();
    let quoted = format!("Änderung:\n{}", tool_output(&body));
    if r.path.starts_with("/v1/responses") {
        Reply::json(&responses_object(&quoted, "{}", &body))
    } else {
        says(r, &quoted)
    }
}

#[test]
fn a_source_file_and_a_diff_in_a_tool_result_keep_their_code() {
    let up = FakeUpstream::start(quoting);
    let server = up.proxy(&[]);
    for (name, code) in [("file", with_gutter(&source_file())), ("diff", diff())] {
        for stream in [false, true] {
            let body = json!({
                "model": "claude", "max_tokens": 100, "stream": stream,
                "messages": [
                    {"role": "user", "content": "Add a comment to the elif branch."},
                    {"role": "user", "content": [
                        {"type": "text", "text": "Here is the file."},
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": code}]}]
            });
            let (status, reply) = post_json(&server, "/v1/messages", &body);
            assert_eq!(status, 200, "{name}: {reply}");
            let sent = up.last().json();
            assert_eq!(
                sent["messages"][0]["content"], "Add a comment to the elif branch.",
                "{name}: the instruction is prose without a value"
            );
            assert_code_untouched(&code, &tool_output(&sent));
            assert_eq!(
                said(&reply),
                format!("Änderung:\n{code}"),
                "{name}, stream {stream}"
            );
        }
    }
}

#[test]
fn test_output_in_a_function_call_output_keeps_its_code() {
    let up = FakeUpstream::start(quoting);
    let server = up.proxy(&[]);
    let output = format!(
        "============================= test session starts ==============================\n\
         collected 3 items\n\
         \n\
         tests/test_auth.py::test_login PASSED\n\
         tests/test_auth.py::test_elif_branch FAILED\n\
         \n\
         =================================== FAILURES ===================================\n\
         ___________________________ test_elif_branch ___________________________\n\
         \n    \
             def test_elif_branch():\n        \
                 user = make_user(email=\"{MAIL}\")\n        \
                 user.setLastName(\"{SURNAME}\")\n\
         >       assert login(user.prompt, stream=None) == user.session\n\
         E       AssertionError: assert None == Session(self.encoding)\n\
         \n\
         tests/test_auth.py:14: AssertionError\n\
         ========================= 1 failed, 1 passed in 0.12s =========================\n"
    );
    let body = json!({
        "model": "gpt-5", "input": [
            {"type": "function_call", "call_id": "call_1", "name": "shell",
             "arguments": "{\"command\":[\"pytest\"]}"},
            {"type": "function_call_output", "call_id": "call_1", "output": output}]
    });
    let (status, reply) = post_json(&server, "/v1/responses", &body);
    assert_eq!(status, 200, "{reply}");
    let sent = up.last().json();
    assert_code_untouched(&output, &tool_output(&sent));
    assert_eq!(said(&reply), format!("Änderung:\n{output}"));
}
