//! Terminal escape sequences and control characters in the matching view (docs/entities.md
//! §1.2): shell output carries colour codes (`ESC [ 1 m`), `grep --color` highlighting inside a
//! word, window titles and hyperlinks (`ESC ] … BEL`); a reader at a terminal sees none of
//! them, so they read as nothing and a value they split reads whole.
//!
//! The grammar is ECMA-48's (§5.3, §5.4), read strictly: a sequence that does not end as the
//! grammar says loses only its introducer, so the bytes after it stay readable. Parameters may
//! not hold a digit run longer than any real terminal parameter: otherwise the digits of a
//! value written as parameters (`ESC [ 4111111111111111 m`) would read as nothing while the
//! model still reads them. The text of a string control (an OSC title or link) is text the
//! model reads: only its opener and terminator read as nothing.

/// At most this many parameter and intermediate bytes in one control sequence.
const MAX_PARAMETERS: usize = 32;

/// The longest digit run a parameter has in practice (colours, cursor positions, modes).
const MAX_DIGIT_RUN: usize = 5;

/// The end of what reads as nothing from the ESC byte at `p`.
pub(super) fn escape_end(b: &[u8], p: usize) -> usize {
    let lone = p + 1;
    match b.get(lone) {
        Some(b'[') => control_sequence_end(b, p + 2).unwrap_or(lone),
        Some(b']') => osc_opener_end(b, p + 2),
        // Character set designations (`ESC ( B`, written by `tput sgr0`) and the other
        // sequences with intermediates.
        Some(0x21..=0x2F) => {
            let from = p + 1;
            let n = b
                .get(from..)
                .unwrap_or_default()
                .iter()
                .take(3)
                .take_while(|c| (0x21..=0x2F).contains(*c))
                .count();
            match b.get(from + n) {
                Some(0x30..=0x7E) if n <= 2 => from + n + 1,
                _ => lone,
            }
        }
        // Save and restore cursor, keypad modes, string terminator, privacy and application
        // strings' openers. After any other byte only ESC vanishes: a letter or digit it might
        // introduce stays, over-reading one letter is safer than hiding one.
        Some(b'7' | b'8' | b'=' | b'>' | b'\\' | b'^' | b'_') => p + 2,
        _ => lone,
    }
}

/// The end of what reads as nothing from the C1 control `c` at `p` (two bytes in UTF-8):
/// the 8-bit forms of a control sequence and an OSC opener, or the control alone.
pub(super) fn c1_end(b: &[u8], p: usize, c: char) -> usize {
    let after = p + c.len_utf8();
    match c {
        '\u{9B}' => control_sequence_end(b, after).unwrap_or(after),
        '\u{9D}' => osc_opener_end(b, after),
        _ => after,
    }
}

/// A control sequence's parameters, intermediates and final byte from `from` (just past
/// `ESC [` or U+009B); `None` when they do not end as ECMA-48 says within the bounds.
fn control_sequence_end(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let mut run = 0;
    while let Some(&c) = b.get(i).filter(|c| (0x30..=0x3F).contains(*c)) {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        if run > MAX_DIGIT_RUN {
            return None;
        }
        i += 1;
    }
    while b.get(i).is_some_and(|c| (0x20..=0x2F).contains(c)) {
        i += 1;
    }
    if i - from > MAX_PARAMETERS {
        return None;
    }
    b.get(i)
        .filter(|c| (0x40..=0x7E).contains(*c))
        .map(|_| i + 1)
}

/// An OSC opener from `from` (just past `ESC ]` or U+009D): its command number and `;` read as
/// nothing with it; the string after them is text.
fn osc_opener_end(b: &[u8], from: usize) -> usize {
    let digits = b
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take(5)
        .take_while(|c| c.is_ascii_digit())
        .count();
    match b.get(from + digits) {
        Some(b';') if (1..=4).contains(&digits) => from + digits + 1,
        _ => from,
    }
}

/// What the control character `c` reads as when an escape or reference wrote it (`\u0000`,
/// `&#127;`): the same as written raw. `None` for every other character, tab, line feed,
/// carriage return and NEL included (they are separators).
pub(super) fn control_fold(c: char) -> Option<&'static str> {
    match c {
        '\t' | '\n' | '\r' | '\u{85}' => None,
        '\0'..='\u{1F}' => u8::try_from(c).ok().map(c0_fold),
        '\u{7F}'..='\u{9F}' => Some(""),
        _ => None,
    }
}

/// What the C0 control byte `c` (or DEL) reads as: vertical tab and form feed separate lines;
/// every other control is invisible. Tab, line feed and carriage return never get here (they
/// are not special: they read as themselves, separators).
pub(super) fn c0_fold(c: u8) -> &'static str {
    match c {
        0x0B | 0x0C => "\n",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_end_where_ecma_48_says() {
        for (s, end) in [
            ("\x1b[1mX", 4),
            ("\x1b[01;31m\x1b[K", 8),
            ("\x1b[38;2;255;255;255mX", 19),
            ("\x1b[mX", 3),
            ("\x1b(BX", 3),
            ("\x1b]0;TitelX", 4),
            ("\x1b]8;;https://x", 4),
            ("\x1b]Titel", 2),
            ("\x1b\\X", 2),
            ("\x1b7X", 2),
            // Only ESC: malformed, too long a digit run, a letter or a digit after it.
            ("\x1b[4111111111111111m", 1),
            ("\x1b[1 4111 1111m", 1),
            ("\x1b[1", 1),
            ("\x1bMax", 1),
            ("\x1b4111", 1),
            ("\x1b 4111", 1),
            ("\x1b", 1),
        ] {
            assert_eq!(escape_end(s.as_bytes(), 0), end, "{s:?}");
        }
    }

    #[test]
    fn eight_bit_controls() {
        let s = "\u{9b}1m4111";
        assert_eq!(c1_end(s.as_bytes(), 0, '\u{9b}'), 4);
        let s = "\u{9b}742719.";
        assert_eq!(c1_end(s.as_bytes(), 0, '\u{9b}'), 2);
        assert_eq!(c1_end("\u{9d}0;x".as_bytes(), 0, '\u{9d}'), 4);
        assert_eq!(c1_end("\u{80}x".as_bytes(), 0, '\u{80}'), 2);
    }
}
