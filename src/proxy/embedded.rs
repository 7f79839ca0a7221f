//! Text that travels encoded inside a request string: base64 of a `text/plain` document
//! (Anthropic `source.type = "base64"`) and `data:` URLs of text files (Responses and chat
//! `file_data`). The request walk decodes such a string, anonymizes the text like any other and
//! encodes it again the same way; what cannot be decoded to text is refused, never forwarded
//! unread.
//!
//! Text files are UTF-8 or UTF-16 (Windows writes UTF-16LE, often without a byte order mark).
//! UTF-16 is read by its byte order mark, by a `charset` label (any case), or by its NUL
//! pattern: ASCII in UTF-16 is valid UTF-8 with a NUL beside every letter, which no UTF-8 text
//! has, so it is never read as UTF-8. The text goes back in the encoding it came in.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::walk::TextKind;

/// Why embedded content could not be read (no content in the message).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EmbeddedError {
    #[error("an embedded text document is not valid base64")]
    Base64,
    #[error("an embedded text document is not UTF-8 or UTF-16 text")]
    NotUtf8,
    #[error("an embedded text file is not a base64 data: URL")]
    NotDataUrl,
}

/// How the bytes of an embedded text are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16 { little: bool, bom: bool },
}

/// What a `data:` URL's `charset` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    None,
    Utf8,
    /// `UTF-16LE` / `UTF-16BE`, or `UTF-16` without the byte order (`None`).
    Utf16(Option<bool>),
}

/// A decoded string: the text, and how to put it back.
pub struct Embedded {
    /// For a `data:` URL: everything up to and including the comma; empty for bare base64.
    prefix: String,
    encoding: Encoding,
    pub text: String,
}

impl Embedded {
    /// Decodes `s` as `kind` (only [`TextKind::Base64`] and [`TextKind::DataUrl`] are
    /// encoded kinds).
    pub fn decode(s: &str, kind: TextKind) -> Result<Embedded, EmbeddedError> {
        let (prefix, payload, label) = match kind {
            TextKind::DataUrl => {
                let comma = s.find(',').ok_or(EmbeddedError::NotDataUrl)?;
                let label = data_url_label(&s[..comma])?;
                (s[..=comma].to_owned(), &s[comma + 1..], label)
            }
            _ => (String::new(), s, Label::None),
        };
        let compact: String = payload
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        let bytes = STANDARD
            .decode(compact.as_bytes())
            .map_err(|_| EmbeddedError::Base64)?;
        let encoding = encoding_of(&bytes, label);
        let text = match encoding {
            Encoding::Utf8 => String::from_utf8(bytes).map_err(|_| EmbeddedError::NotUtf8)?,
            Encoding::Utf16 { little, bom } => {
                utf16_text(&bytes[if bom { 2 } else { 0 }..], little)?
            }
        };
        Ok(Embedded {
            prefix,
            encoding,
            text,
        })
    }

    /// The string again, carrying `text` instead of the decoded text, in the same encoding.
    pub fn encode(&self, text: &str) -> String {
        let bytes = match self.encoding {
            Encoding::Utf8 => text.as_bytes().to_vec(),
            Encoding::Utf16 { little, bom } => {
                let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
                units
                    .flat_map(|u| {
                        if little {
                            u.to_le_bytes()
                        } else {
                            u.to_be_bytes()
                        }
                    })
                    .collect()
            }
        };
        let mut out = String::with_capacity(self.prefix.len() + bytes.len() * 4 / 3 + 4);
        out.push_str(&self.prefix);
        STANDARD.encode_string(&bytes, &mut out);
        out
    }
}

/// The charset a `data:` URL header (`data:text/plain;charset=UTF-16LE;base64`) names; an
/// error for a URL that is not base64 or a charset that is not UTF-8 or UTF-16.
fn data_url_label(header: &str) -> Result<Label, EmbeddedError> {
    let mut base64 = false;
    let mut label = Label::None;
    for p in header.split(';').skip(1).map(str::trim) {
        if p.eq_ignore_ascii_case("base64") {
            base64 = true;
            continue;
        }
        let Some((key, value)) = p.split_once('=') else {
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("charset") {
            continue;
        }
        let cs = value.trim().trim_matches('"').to_ascii_lowercase();
        label = match cs.as_str() {
            "utf-8" | "utf8" | "us-ascii" => Label::Utf8,
            "utf-16le" => Label::Utf16(Some(true)),
            "utf-16be" => Label::Utf16(Some(false)),
            "utf-16" => Label::Utf16(None),
            _ => return Err(EmbeddedError::NotUtf8),
        };
    }
    if !base64 {
        return Err(EmbeddedError::NotDataUrl);
    }
    Ok(label)
}

/// How `bytes` are encoded: a byte order mark decides first, then the label, then the NUL
/// pattern; `UTF-16` without either is big endian (RFC 2781).
fn encoding_of(bytes: &[u8], label: Label) -> Encoding {
    let bom = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => Some(true),
        Some([0xFE, 0xFF]) => Some(false),
        _ => None,
    };
    if let Some(little) = bom {
        return Encoding::Utf16 { little, bom: true };
    }
    let little = match label {
        Label::Utf16(Some(little)) => Some(little),
        Label::Utf8 => None,
        Label::Utf16(None) => Some(nul_pattern(bytes).unwrap_or(false)),
        Label::None => nul_pattern(bytes),
    };
    match little {
        Some(little) => Encoding::Utf16 { little, bom: false },
        None => Encoding::Utf8,
    }
}

/// UTF-16 told by its NULs: the zero high bytes of Latin text fall on odd offsets (little
/// endian) or even ones (big endian) in at least a quarter of the code units, and rarely on
/// the other side. `None` when there is no such pattern (no NUL at all, the common case).
fn nul_pattern(bytes: &[u8]) -> Option<bool> {
    if !bytes.len().is_multiple_of(2) || memchr::memchr(0, bytes).is_none() {
        return None;
    }
    let (mut even, mut odd) = (0usize, 0usize);
    for pair in bytes.chunks_exact(2) {
        even += usize::from(pair[0] == 0);
        odd += usize::from(pair[1] == 0);
    }
    let units = bytes.len() / 2;
    let side = |zeros: usize, other: usize| zeros * 4 >= units && zeros > other * 4;
    if side(odd, even) {
        Some(true)
    } else if side(even, odd) {
        Some(false)
    } else {
        None
    }
}

/// The text of UTF-16 `bytes`; an error for an odd length or an unpaired surrogate.
fn utf16_text(bytes: &[u8], little: bool) -> Result<String, EmbeddedError> {
    if !bytes.len().is_multiple_of(2) {
        return Err(EmbeddedError::NotUtf8);
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| {
            let pair = [c[0], c[1]];
            if little {
                u16::from_le_bytes(pair)
            } else {
                u16::from_be_bytes(pair)
            }
        })
        .collect();
    String::from_utf16(&units).map_err(|_| EmbeddedError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_data_urls_round_trip() {
        let b = Embedded::decode("SGFsbG8gTWF4", TextKind::Base64).unwrap();
        assert_eq!(b.text, "Hallo Max");
        assert_eq!(
            b.encode("Hallo [[NAME_1]]"),
            STANDARD.encode("Hallo [[NAME_1]]")
        );
        let d = Embedded::decode(
            "data:text/plain;charset=utf-8;base64,SGFs\nbG8=",
            TextKind::DataUrl,
        )
        .unwrap();
        assert_eq!(d.text, "Hallo");
        assert_eq!(d.encode("x"), "data:text/plain;charset=utf-8;base64,eA==");
    }

    #[test]
    fn what_is_not_text_is_an_error() {
        assert_eq!(
            Embedded::decode("not base64!", TextKind::Base64).err(),
            Some(EmbeddedError::Base64)
        );
        let latin1 = STANDARD.encode([0x48u8, 0xe4, 0x6c]);
        assert_eq!(
            Embedded::decode(&latin1, TextKind::Base64).err(),
            Some(EmbeddedError::NotUtf8)
        );
        for url in [
            "data:text/plain,Hallo%20Max",
            "data:text/plain;base64",
            "data:text/plain;charset=latin1;base64,SGFsbG8=",
            "data:text/plain;CHARSET=Latin1;base64,SGFsbG8=",
        ] {
            assert!(Embedded::decode(url, TextKind::DataUrl).is_err(), "{url}");
        }
        // An odd byte count or an unpaired surrogate is no UTF-16 text.
        let odd = STANDARD.encode([0xFF, 0xFE, 0x41, 0x00, 0x42]);
        let lone = STANDARD.encode([0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00]);
        for s in [odd, lone] {
            assert_eq!(
                Embedded::decode(&s, TextKind::Base64).err(),
                Some(EmbeddedError::NotUtf8)
            );
        }
    }

    fn utf16(text: &str, little: bool, bom: bool) -> Vec<u8> {
        Embedded {
            prefix: String::new(),
            encoding: Encoding::Utf16 { little, bom },
            text: String::new(),
        }
        .encode(text)
        .as_bytes()
        .to_vec()
    }

    #[test]
    fn utf16_is_read_by_mark_label_or_nuls_and_written_back_the_same_way() {
        let text = "Grüße an Max, max@example.de";
        for (header, little, bom) in [
            ("", true, false),
            ("", false, false),
            ("", true, true),
            ("", false, true),
            ("data:text/plain;CHARSET=UTF-16LE;base64,", true, false),
            (
                "data:text/plain; charset=\"utf-16be\";base64,",
                false,
                false,
            ),
            ("data:text/plain;charset=utf-16;base64,", false, true),
            ("data:text/plain;charset=UTF-16;base64,", false, false),
        ] {
            let b64 = String::from_utf8(utf16(text, little, bom)).unwrap();
            let kind = if header.is_empty() {
                TextKind::Base64
            } else {
                TextKind::DataUrl
            };
            let e = Embedded::decode(&format!("{header}{b64}"), kind).unwrap();
            assert_eq!(e.text, text, "{header} {little} {bom}");
            assert_eq!(e.encoding, Encoding::Utf16 { little, bom }, "{header}");
            let again = String::from_utf8(utf16("x [[EMAIL_1]]", little, bom)).unwrap();
            assert_eq!(e.encode("x [[EMAIL_1]]"), format!("{header}{again}"));
        }
        // UTF-8 text with a stray NUL stays UTF-8.
        let e = Embedded::decode(
            &STANDARD.encode("Hallo\0 Max, wie geht es?"),
            TextKind::Base64,
        );
        assert_eq!(e.map(|e| e.encoding).ok(), Some(Encoding::Utf8));
    }
}
