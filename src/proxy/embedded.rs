//! Text that travels encoded inside a request string: base64 of a `text/plain` document
//! (Anthropic `source.type = "base64"`) and `data:` URLs of text files (Responses and chat
//! `file_data`). The request walk decodes such a string, anonymizes the text like any other and
//! encodes it again the same way; what cannot be decoded to UTF-8 text is refused, never
//! forwarded unread.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::walk::TextKind;

/// Why embedded content could not be read (no content in the message).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EmbeddedError {
    #[error("an embedded text document is not valid base64")]
    Base64,
    #[error("an embedded text document is not UTF-8 text")]
    NotUtf8,
    #[error("an embedded text file is not a base64 data: URL")]
    NotDataUrl,
}

/// A decoded string: the text, and how to put it back.
pub struct Embedded {
    /// For a `data:` URL: everything up to and including the comma; empty for bare base64.
    prefix: String,
    pub text: String,
}

impl Embedded {
    /// Decodes `s` as `kind` (only [`TextKind::Base64`] and [`TextKind::DataUrl`] are
    /// encoded kinds).
    pub fn decode(s: &str, kind: TextKind) -> Result<Embedded, EmbeddedError> {
        let (prefix, payload) = match kind {
            TextKind::DataUrl => {
                let comma = s.find(',').ok_or(EmbeddedError::NotDataUrl)?;
                let header = &s[..comma];
                let params = header.split(';').skip(1).map(str::trim);
                let mut base64 = false;
                for p in params {
                    if p.eq_ignore_ascii_case("base64") {
                        base64 = true;
                    } else if let Some(cs) = p.strip_prefix("charset=") {
                        let cs = cs.trim_matches('"');
                        if !cs.eq_ignore_ascii_case("utf-8") && !cs.eq_ignore_ascii_case("us-ascii")
                        {
                            return Err(EmbeddedError::NotUtf8);
                        }
                    }
                }
                if !base64 {
                    return Err(EmbeddedError::NotDataUrl);
                }
                (s[..=comma].to_owned(), &s[comma + 1..])
            }
            _ => (String::new(), s),
        };
        let compact: String = payload
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        let bytes = STANDARD
            .decode(compact.as_bytes())
            .map_err(|_| EmbeddedError::Base64)?;
        let text = String::from_utf8(bytes).map_err(|_| EmbeddedError::NotUtf8)?;
        Ok(Embedded { prefix, text })
    }

    /// The string again, carrying `text` instead of the decoded text.
    pub fn encode(&self, text: &str) -> String {
        let mut out = String::with_capacity(self.prefix.len() + text.len() * 4 / 3 + 4);
        out.push_str(&self.prefix);
        STANDARD.encode_string(text.as_bytes(), &mut out);
        out
    }
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
        ] {
            assert!(Embedded::decode(url, TextKind::DataUrl).is_err(), "{url}");
        }
    }
}
