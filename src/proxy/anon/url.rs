//! Addresses the provider fetches (`image_url`, `source.url`): no value is looked for in them,
//! but every value found elsewhere in the body is replaced in them, as written or
//! percent-encoded (`?email=max%40example.de`). A `data:` URL is an embedded image, never
//! touched: its base64 may hold a value's letters by chance.

/// Whether `url` is a `data:` URL.
pub(super) fn is_data(url: &str) -> bool {
    url.get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case("data:"))
}

/// An address with its percent-escapes decoded, and where each byte of the decoded text
/// lies in the address as written.
pub(super) struct Decoded {
    pub text: String,
    /// Per byte of `text`, and one for its end: the offset in the address.
    pub at: Vec<usize>,
}

impl Decoded {
    /// `url` decoded, or `None` when it holds no escape (it is then its own view). A run of
    /// escapes is decoded when its bytes form UTF-8, and kept as written otherwise.
    pub fn of(url: &str) -> Option<Decoded> {
        let b = url.as_bytes();
        memchr::memchr(b'%', b)?;
        let mut text = Vec::with_capacity(b.len());
        let mut at = Vec::with_capacity(b.len() + 1);
        let mut i = 0;
        while i < b.len() {
            let mut run = Vec::new();
            let mut j = i;
            while let Some(byte) = escape(b, j) {
                run.push(byte);
                j += 3;
            }
            if run.is_empty() {
                text.push(b[i]);
                at.push(i);
                i += 1;
                continue;
            }
            if std::str::from_utf8(&run).is_ok() {
                text.extend_from_slice(&run);
                at.extend((0..run.len()).map(|k| i + 3 * k));
            } else {
                text.extend_from_slice(&b[i..j]);
                at.extend(i..j);
            }
            i = j;
        }
        at.push(b.len());
        let text = String::from_utf8(text).ok()?;
        Some(Decoded { text, at })
    }
}

/// The byte a `%XX` escape at `i` stands for.
fn escape(b: &[u8], i: usize) -> Option<u8> {
    let hex = |c: u8| (c as char).to_digit(16);
    match b.get(i..i + 3)? {
        [b'%', h, l] => Some((hex(*h)? * 16 + hex(*l)?) as u8),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_decoded_with_their_offsets() {
        assert!(Decoded::of("https://a.example/?m=x@y.de").is_none());
        let d = Decoded::of("?m=max%40y.de&n=M%C3%BCller").unwrap();
        assert_eq!(d.text, "?m=max@y.de&n=Müller");
        let at = d.text.find('@').unwrap();
        assert_eq!(d.at[at], 6);
        assert_eq!(d.at[at + 1], 9, "the escape is cut whole");
        let u = d.text.find('ü').unwrap();
        assert_eq!((d.at[u], d.at[u + 2]), (17, 23));
        assert_eq!(*d.at.last().unwrap(), 27);
    }

    #[test]
    fn what_is_no_utf8_or_no_escape_stays_as_written() {
        let d = Decoded::of("a%FFb%4x%").unwrap();
        assert_eq!(d.text, "a%FFb%4x%");
        assert_eq!(d.at, (0..=9).collect::<Vec<_>>());
        assert!(is_data("DATA:image/png;base64,AAAA"));
        assert!(!is_data("https://x"));
    }
}
