//! Phase 2, signatures: a closing line (`Viele Grüße`, `Best regards`) followed by a line
//! that is only a name, or a name on the closing line itself (`LG Tom`).

use std::sync::OnceLock;

use ahash::AHashSet;

use super::facts::{Mode, NameContext};
use super::scores::{push, Found, ANCHORED_STRONG};

/// A necessary condition for the closing test below, from a line's first and last bytes: a line
/// that is a closing, starts with one or ends with one shares its first or its last two or three
/// bytes with a closing (each closing keyed by up to three). Most short lines (a system prompt,
/// a one-line question) share neither, and skip the comparisons with every closing.
fn may_hold_closing(tl: &str, closings: &[&'static str]) -> bool {
    type Ends = Option<(AHashSet<&'static [u8]>, AHashSet<&'static [u8]>)>;
    static ENDS: OnceLock<Ends> = OnceLock::new();
    let ends = ENDS.get_or_init(|| {
        let mut heads = AHashSet::new();
        let mut tails = AHashSet::new();
        for c in closings {
            let b = c.as_bytes();
            // A closing shorter than two bytes: no test (`None`), every line is compared.
            let k = b.len().min(3);
            if k < 2 {
                return None;
            }
            heads.insert(b.get(..k)?);
            tails.insert(b.get(b.len() - k..)?);
        }
        Some((heads, tails))
    });
    let Some((heads, tails)) = ends else {
        return true;
    };
    let b = tl.as_bytes();
    if b.len() < 3 {
        return true;
    }
    (2..=3).any(|k| {
        b.get(..k).is_some_and(|h| heads.contains(h))
            || b.get(b.len() - k..).is_some_and(|t| tails.contains(t))
    })
}

/// Appends the signature names of `cx` to `found`.
pub(super) fn find(cx: &NameContext<'_>, found: &mut Found) {
    let s = cx.text;
    let words = cx.words;
    let closings = &cx.lex.lists.closings;
    // 2. Signatures: a closing line followed by a line that is only a name.
    let mut line_start = 0usize;
    for line in s.split_inclusive('\n') {
        let ls = line_start;
        line_start += line.len();
        let t = line.trim().trim_end_matches([',', '.', '!']).trim();
        if t.len() > 60 || t.is_empty() || !t.starts_with(|c: char| c.is_alphabetic()) {
            continue;
        }
        let tl = t.to_lowercase();
        if t.len() > 60 || t.is_empty() || !may_hold_closing(&tl, closings) {
            continue;
        }
        let Some(closing) = closings.iter().find(|c| {
            tl == **c
                || tl.strip_suffix(**c).is_some_and(|p| p.ends_with(' '))
                || tl
                    .strip_prefix(**c)
                    .is_some_and(|r| r.starts_with([' ', ',']))
        }) else {
            continue;
        };
        // Same line: `Viele Grüße, Anna` / `LG Tom`.
        let mut candidates_lines: Vec<(usize, usize)> = Vec::new();
        if tl.starts_with(closing) && tl.len() > closing.len() {
            let off =
                line.find(|c: char| !c.is_whitespace()).unwrap_or(0) + t.len().min(closing.len());
            candidates_lines.push((ls + off, ls + line.trim_end().len()));
        } else {
            let mut pos = line_start;
            let mut taken = 0;
            for next in s[line_start..].split_inclusive('\n') {
                let start = pos;
                pos += next.len();
                if next.trim().is_empty() {
                    continue;
                }
                candidates_lines.push((start, start + next.trim_end().len()));
                taken += 1;
                if taken == 2 {
                    break;
                }
            }
        }
        for (a, b) in candidates_lines.into_iter().take(1) {
            let wi = words.partition_point(|w| w.start < a);
            let wj = words.partition_point(|w| w.start < b);
            if wi >= wj {
                continue;
            }
            let k = cx.skip_titles(wi);
            // `i. A.` / `i.V.` / `ppa.` / `gez.`
            let mut k = k;
            while k < wj
                && matches!(cx.low(k), "i" | "a" | "v" | "ppa" | "gez")
                && cx.words[k].end - cx.words[k].start <= 3
                && cx.word_info[k].dot_after
            {
                k += 1;
            }
            if k >= wj {
                continue;
            }
            if let Some(j) = cx.extend(k, Mode::Anchored, 4) {
                // The rest of the line may hold only a title/degree after a comma.
                let rest = s[cx.words[j].end..b].trim();
                let clean = rest.is_empty()
                    || rest.starts_with(',')
                    || rest.starts_with('(')
                    || rest.starts_with('|')
                    || rest.starts_with('-');
                if clean && j < wj && !cx.followed_by_org(j) && !cx.word_info[k].stop {
                    push(found, k, j, ANCHORED_STRONG);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::names;

    #[test]
    fn a_name_under_a_closing_line() {
        assert_eq!(
            names("Danke!\n\nViele Grüße\nMaria Keller"),
            vec!["Maria Keller"]
        );
        assert_eq!(names("Viele Grüße\nIhr Team"), Vec::<String>::new());
    }
}
