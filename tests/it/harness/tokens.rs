//! Canonical tokens (`[[EMAIL_1]]`) as the tests look for them in what the proxy sent on.

/// Canonical tokens in `text`, in order of first appearance.
pub fn tokens_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(p) = text[i..].find("[[") {
        let s = i + p;
        let mut j = s + 2;
        while j < b.len() && (b[j].is_ascii_uppercase() || b[j] == b'_' || b[j].is_ascii_digit()) {
            j += 1;
        }
        if text[j..].starts_with("]]") && j > s + 2 {
            let t = &text[s..j + 2];
            if t.contains('_') && !out.iter().any(|o| o == t) {
                out.push(t.to_owned());
            }
            i = j + 2;
        } else {
            i = s + 2;
        }
    }
    out
}

/// Whether `text` contains anything that looks like a canonical token.
pub fn has_token(text: &str) -> bool {
    !tokens_in(text).is_empty()
}
