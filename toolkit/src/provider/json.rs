//! A request body written straight into its buffer: punctuation and keys as they are, text as
//! JSON strings escaped byte for byte as `serde_json` escapes them, declarations as the JSON
//! they already are. No serializer walks the message types, and keys cost a copy, not a scan.

/// A request body being written.
pub(crate) struct JsonBody(Vec<u8>);

impl JsonBody {
    /// An empty body with room for `capacity` bytes.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Self(Vec::with_capacity(capacity))
    }

    /// JSON text as it is: punctuation, keys with their quotes, a declaration.
    #[inline]
    pub(crate) fn raw(&mut self, json: &str) {
        self.0.extend_from_slice(json.as_bytes());
    }

    /// `text` as a JSON string: `"` and `\` escaped, and every control character, as `\n`, `\r`,
    /// `\t`, `\b`, `\f` or `\u00XX`; everything else (any other character, U+2028 too) as it is.
    pub(crate) fn string(&mut self, text: &str) {
        let mut rest = text.as_bytes();
        self.0.reserve(rest.len() + 2);
        self.0.push(b'"');
        while let Some(at) = rest
            .iter()
            .position(|&byte| byte < 0x20 || byte == b'"' || byte == b'\\')
        {
            self.0.extend_from_slice(&rest[..at]);
            self.escape(rest[at]);
            rest = &rest[at + 1..];
        }
        self.0.extend_from_slice(rest);
        self.0.push(b'"');
    }

    /// The escape of a byte that JSON does not take as it is.
    #[cold]
    fn escape(&mut self, byte: u8) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let short: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            _ => {
                let code = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(byte >> 4)],
                    HEX[usize::from(byte & 0xf)],
                ];
                self.0.extend_from_slice(&code);
                return;
            }
        };
        self.0.extend_from_slice(short);
    }

    /// A JSON array: `[`, each item written by `write`, separated by commas, `]`.
    pub(crate) fn array<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        mut write: impl FnMut(&mut Self, T),
    ) {
        self.raw("[");
        for (at, item) in items.into_iter().enumerate() {
            if at > 0 {
                self.raw(",");
            }
            write(self, item);
        }
        self.raw("]");
    }

    /// A number or any other value, as `serde_json` writes it.
    pub(crate) fn value(&mut self, value: &impl serde::Serialize) -> Result<(), serde_json::Error> {
        serde_json::to_writer(&mut self.0, value)
    }

    /// The body's bytes.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::JsonBody;

    fn written(text: &str) -> String {
        let mut body = JsonBody::with_capacity(0);
        body.string(text);
        String::from_utf8(body.into_bytes()).expect("UTF-8 in, UTF-8 out")
    }

    #[test]
    fn text_is_escaped_as_serde_json_escapes_it() {
        assert_eq!(written(""), r#""""#);
        assert_eq!(written("plain é ✓ 𝄞"), r#""plain é ✓ 𝄞""#);
        assert_eq!(
            written("\"\\\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}\u{2028}/"),
            "\"\\\"\\\\\\n\\r\\t\\b\\f\\u0000\\u001f\u{7f}\u{2028}/\""
        );
        for byte in 0..=0x7f_u8 {
            let text = char::from(byte).to_string();
            assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn any_text_is_written_as_serde_json_writes_it(
            text in prop::collection::vec(any::<char>(), 0..64).prop_map(String::from_iter)
        ) {
            prop_assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
        }
    }

    #[test]
    fn a_crafted_text_of_20_000_characters_that_all_need_care_is_written_as_serde_json_writes_it() {
        let hostile: String = [
            '"', '\\', '\u{0}', '\n', '\u{1f}', '\u{7f}', '\u{2028}', '𝄞', '/',
        ]
        .iter()
        .cycle()
        .take(20_000)
        .collect();
        assert_eq!(written(&hostile), serde_json::to_string(&hostile).unwrap());
        let read: String = serde_json::from_str(&written(&hostile)).unwrap();
        assert_eq!(read, hostile);
    }

    #[test]
    fn an_array_separates_its_items_with_commas() {
        let mut body = JsonBody::with_capacity(0);
        body.array(Vec::<&str>::new(), JsonBody::string);
        body.array(["a"], JsonBody::string);
        body.array(["a", "b", "c"], JsonBody::string);
        body.value(&0.25_f32).unwrap();
        body.value(&f32::NAN).unwrap();
        assert_eq!(
            String::from_utf8(body.into_bytes()).unwrap(),
            r#"[]["a"]["a","b","c"]0.25null"#
        );
    }
}
