//! Where in the arguments a decoding error is: the field path (`filters[0].value`, `.` for the
//! whole), read from the JSON text up to the position `serde_json` gives.
//!
//! Why not `serde_path_to_error`, which finds the same path by decoding again through a wrapper:
//! that wrapper is generic over each tool's arguments type, so every tool compiled a second
//! deserializer only to locate errors (in a crate of 12 tools, 21 % of the LLVM lines and most
//! of the gap to rig's build time). This reader is compiled once. `toolkit/tests/locate.rs`
//! checks it against `serde_path_to_error` on every error of a corpus of argument types and
//! texts.

/// The path to the value at which decoding `text` failed with `message`, given `serde_json`'s
/// 1-based `line` and `column` of the error: the keys and indices of the objects and arrays open
/// there, in `serde_path_to_error`'s notation. A key just read, whose value has not begun, is part
/// of the path only when it is the key that is unknown (a repeated key is the object's error),
/// and a variant named by a string is part of it when that variant is of the wrong kind.
pub(crate) fn error_path(text: &str, line: usize, column: usize, message: &str) -> String {
    let unknown_key = message.starts_with("unknown field");
    let wrong_variant = message.starts_with("invalid type: unit variant");
    let mut end = offset(text, line, column);
    if wrong_variant {
        // `serde_json` places an error its visitor raises (this one) after ending the object or
        // array the value closes, when that is all that follows it: the variant's string, then
        // maybe whitespace and one `}` or `]`, which the path must not see closed.
        let before = text.as_bytes()[..end].trim_ascii_end();
        if let [rest @ .., b'}' | b']'] = before {
            end = rest.len();
        }
    }
    let bytes = &text.as_bytes()[..end];
    let mut open: Vec<Frame> = Vec::new();
    // A string value just read, with nothing after it yet.
    let mut last_string = None;
    let mut at = 0;
    while at < bytes.len() {
        if !bytes[at].is_ascii_whitespace() {
            last_string = None;
        }
        match bytes[at] {
            b'{' => open.push(Frame::Object {
                key: None,
                in_value: false,
            }),
            b'[' => open.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                open.pop();
            }
            b',' => match open.last_mut() {
                Some(Frame::Object { in_value, .. }) => *in_value = false,
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
            b':' => {
                if let Some(Frame::Object { in_value, .. }) = open.last_mut() {
                    *in_value = true;
                }
            }
            b'"' => {
                let start = at;
                at = after_string(bytes, at);
                let string = text.get(start..at).map(unescape).unwrap_or_default();
                match open.last_mut() {
                    Some(Frame::Object {
                        key,
                        in_value: false,
                    }) => *key = Some(string),
                    _ => last_string = Some(string),
                }
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    let mut path = String::new();
    let push = |path: &mut String, key: &str| {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    };
    for frame in &open {
        match frame {
            Frame::Object {
                key: Some(key),
                in_value,
            } if *in_value || unknown_key => push(&mut path, key),
            Frame::Array { index } => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
            Frame::Object { .. } => break,
        }
    }
    if wrong_variant && let Some(variant) = last_string {
        push(&mut path, &variant);
    }
    if path.is_empty() {
        ".".to_owned()
    } else {
        path
    }
}

/// An object or array open at the error.
enum Frame {
    /// Its last key, and whether its value has begun (past the `:`).
    Object { key: Option<String>, in_value: bool },
    /// The position of its current item.
    Array { index: usize },
}

/// The byte offset of `serde_json`'s `line` and `column` in `text` (the whole text when past it).
fn offset(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(newline) => start += newline + 1,
            None => return text.len(),
        }
    }
    let mut end = (start + column).min(text.len());
    // serde_json counts bytes; a position inside a character (never given) would end before it.
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The position just past the string (or the text's end) that opens at `start`.
pub(crate) fn after_string(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < bytes.len() && bytes[at] != b'"' {
        at += if bytes[at] == b'\\' { 2 } else { 1 };
    }
    (at + 1).min(bytes.len())
}

/// A JSON string literal's text (quotes included, maybe cut short) as its value.
fn unescape(literal: &str) -> String {
    serde_json::from_str(literal).unwrap_or_else(|_| literal.trim_matches('"').to_owned())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::error_path;

    #[test]
    fn a_path_is_the_keys_and_indices_open_at_the_position() {
        let text = "{\"a\": [1, {\"b\\\"c\": \"é\"}],\n \"d\": 2}";
        assert_eq!(error_path(text, 1, 23, "invalid type"), "a[1].b\"c");
        assert_eq!(error_path(text, 2, 7, "invalid type"), "d");
        assert_eq!(error_path(text, 2, 4, "duplicate field `d`"), ".");
        assert_eq!(error_path(text, 2, 4, "unknown field `d`"), "d");
        assert_eq!(error_path(text, 9, 99, "missing field `e`"), ".");
        // A string value followed by anything else is no longer the variant just named.
        let variant = "invalid type: unit variant, expected struct variant";
        assert_eq!(error_path(r#"{"a":["x",1]}"#, 1, 11, variant), "a[1]");
        assert_eq!(error_path(r#"{"a":"x"}"#, 1, 8, variant), "a.x");
        // Where `serde_json` puts it when the variant ends an object or an array: past the end.
        assert_eq!(error_path(r#"{"a":"x"}"#, 1, 9, variant), "a.x");
        assert_eq!(error_path(r#"{"a":"x" }"#, 1, 10, variant), "a.x");
        assert_eq!(error_path(r#"{"a":["y","x"]}"#, 1, 14, variant), "a[1].x");
        // Other errors past an object's end are the object's.
        assert_eq!(
            error_path(r#"{"a":{"b":1}}"#, 1, 12, "missing field `c`"),
            "a"
        );
    }

    proptest! {
        /// Whatever the text and the position, a path and never a panic.
        #[test]
        fn any_text_and_position_give_a_path(
            text in "[\\{}\\[\\]\":,\\\\ a-cé\n0-9]{0,40}",
            line in 0_usize..4,
            column in 0_usize..50,
        ) {
            let path = error_path(&text, line, column, "unknown field `x`");
            prop_assert!(!path.is_empty());
        }
    }
}
