//! The decoder for the arguments nearly every call has: one flat JSON object whose values are
//! numbers without fraction or exponent, plain strings, booleans and nulls.
//!
//! It reads the text once and hands each key and value to the arguments type as `serde_json`
//! would, call for call (the same `visit_*` method with the same value), and gives up on
//! anything else: an escape, a control character in a string, a fraction, an exponent, a number
//! past 64 bits, `-0`, a nested value, trailing text, or any error the type reports (a missing,
//! unknown or repeated field, a wrong type). Giving up costs nothing but the time spent: the
//! caller then decodes with `serde_json`, whose result and error messages are the ones users
//! see. So what this decoder accepts is a subset of what `serde_json` accepts, with equal values,
//! and it never makes an error of its own.
//!
//! That contract is checked three ways: the property tests below compare it with `serde_json` on
//! generated arguments, `toolkit/fuzz` (cargo-fuzz) does the same on whatever libFuzzer finds,
//! and `scripts/mutants` mutates this file. The `flat-decoder` feature (on by default) is the
//! only way in: without it every call decodes with `serde_json` alone, for a bisect.
//!
//! Numbers reach a type only through the typed methods (`deserialize_i64`, `deserialize_f64`,
//! ...), which `serde_json` answers alike whatever its features; a number asked for through
//! `deserialize_any` (whose answer `arbitrary_precision` changes) is given up on.

use std::fmt;

use serde::de::{self, DeserializeSeed, Visitor};

/// The decoded arguments, or `None` when `text` is not of the flat shape or the type refused
/// it: decode with `serde_json` then.
#[inline]
pub(crate) fn decode<'de, T: de::Deserialize<'de>>(text: &'de str) -> Option<T> {
    let mut flat = Flat {
        bytes: text.as_bytes(),
        text,
        at: 0,
    };
    if flat.peek() != Some(b'{') {
        return None;
    }
    flat.at = 1;
    let value = T::deserialize(&mut flat).ok()?;
    flat.skip_whitespace();
    (flat.at == flat.bytes.len()).then_some(value)
}

/// Why the flat decoder gave up; never shown to anyone.
#[derive(Debug)]
pub(crate) struct GaveUp;

impl fmt::Display for GaveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not flat arguments")
    }
}

impl std::error::Error for GaveUp {}

impl de::Error for GaveUp {
    fn custom<M: fmt::Display>(_message: M) -> Self {
        GaveUp
    }
}

/// The text, and how far it has been read.
struct Flat<'de> {
    text: &'de str,
    bytes: &'de [u8],
    at: usize,
}

/// One value of the object.
#[derive(Clone, Copy)]
enum Scalar<'de> {
    Unsigned(u64),
    Signed(i64),
    Bool(bool),
    Null,
    Text(&'de str),
}

impl<'de> Flat<'de> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// JSON's whitespace, as `serde_json` skips it.
    #[inline]
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    #[inline]
    fn expect(&mut self, byte: u8) -> Result<(), GaveUp> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(GaveUp)
        }
    }

    /// A string without escapes or control characters, its opening quote already read.
    #[inline]
    fn plain_string(&mut self) -> Result<&'de str, GaveUp> {
        let start = self.at;
        let length = self.bytes[start..]
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
            .ok_or(GaveUp)?;
        let end = start + length;
        if self.bytes[end] != b'"' {
            return Err(GaveUp);
        }
        self.at = end + 1;
        // Both ends are ASCII bytes, so both are character boundaries.
        Ok(&self.text[start..end])
    }

    /// The next key, or `None` at the end of the object.
    #[inline]
    fn key(&mut self, first: bool) -> Result<Option<&'de str>, GaveUp> {
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(None);
        }
        if !first {
            self.expect(b',')?;
            self.skip_whitespace();
        }
        self.expect(b'"')?;
        let key = self.plain_string()?;
        self.skip_whitespace();
        self.expect(b':')?;
        Ok(Some(key))
    }

    /// The next value.
    #[inline]
    fn scalar(&mut self) -> Result<Scalar<'de>, GaveUp> {
        self.skip_whitespace();
        match self.peek().ok_or(GaveUp)? {
            b'"' => {
                self.at += 1;
                self.plain_string().map(Scalar::Text)
            }
            b't' => self.word(b"true", Scalar::Bool(true)),
            b'f' => self.word(b"false", Scalar::Bool(false)),
            b'n' => self.word(b"null", Scalar::Null),
            b'-' => {
                self.at += 1;
                let magnitude = self.digits()?;
                // As `serde_json` does: `-0` and what does not fit an `i64` become floats.
                #[allow(clippy::cast_possible_wrap)]
                let negative = (magnitude as i64).wrapping_neg();
                if negative >= 0 {
                    return Err(GaveUp);
                }
                Ok(Scalar::Signed(negative))
            }
            b'0'..=b'9' => self.digits().map(Scalar::Unsigned),
            _ => Err(GaveUp),
        }
    }

    /// A literal; what follows it is checked by whoever reads on (a `,`, a `}` or whitespace).
    fn word(&mut self, word: &[u8], scalar: Scalar<'de>) -> Result<Scalar<'de>, GaveUp> {
        if self.bytes[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(scalar)
        } else {
            Err(GaveUp)
        }
    }

    /// The digits of an integer that fits a `u64`. A leading zero, a fraction or an exponent is
    /// left unread, for the object to give up on.
    #[inline]
    fn digits(&mut self) -> Result<u64, GaveUp> {
        let Some(first @ b'0'..=b'9') = self.peek() else {
            return Err(GaveUp);
        };
        self.at += 1;
        let mut value = u64::from(first - b'0');
        if first != b'0' {
            while let Some(digit @ b'0'..=b'9') = self.peek() {
                value = value
                    .checked_mul(10)
                    .and_then(|value| value.checked_add(u64::from(digit - b'0')))
                    .ok_or(GaveUp)?;
                self.at += 1;
            }
        }
        // A leading zero, a fraction or an exponent leaves a digit, `.`, `e` or `E` next, where
        // the object needs `,` or `}`: the decoder gives up there.
        Ok(value)
    }
}

/// The object itself: a map (or a struct, which is one).
impl<'de> de::Deserializer<'de> for &mut Flat<'de> {
    type Error = GaveUp;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, GaveUp> {
        Err(GaveUp)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        let mut members = Members {
            flat: self,
            first: true,
            done: false,
        };
        let value = visitor.visit_map(&mut members)?;
        // A type that stopped before the end took less than `serde_json` would have read.
        if members.done { Ok(value) } else { Err(GaveUp) }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, GaveUp> {
        self.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct enum identifier ignored_any
    }
}

/// The members of the object, read as they are asked for.
struct Members<'a, 'de> {
    flat: &'a mut Flat<'de>,
    first: bool,
    done: bool,
}

impl<'de> de::MapAccess<'de> for &mut Members<'_, 'de> {
    type Error = GaveUp;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, GaveUp> {
        if self.done {
            return Ok(None);
        }
        let Some(key) = self.flat.key(self.first)? else {
            self.done = true;
            return Ok(None);
        };
        self.first = false;
        seed.deserialize(Key(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, GaveUp> {
        let scalar = self.flat.scalar()?;
        seed.deserialize(scalar)
    }
}

/// Methods that give up: `serde_json` has its own ways with them, so they go to it.
macro_rules! give_up {
    ($($method:ident($($argument:ident: $type:ty),*);)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($argument: $type,)* _visitor: V) -> Result<V::Value, GaveUp> {
                $(let _ = $argument;)*
                Err(GaveUp)
            }
        )*
    };
}

/// A key: a string, as `serde_json` gives an unescaped one to every method it forwards to
/// `deserialize_any`; the methods it answers otherwise (numbers, booleans, options, newtypes,
/// enums, bytes) give up.
struct Key<'de>(&'de str);

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = GaveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        visitor.visit_borrowed_str(self.0)
    }

    serde::forward_to_deserialize_any! {
        char str string unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }

    give_up! {
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_newtype_struct(name: &'static str);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }
}

/// A value, answered method by method as `serde_json` answers that token.
impl<'de> de::Deserializer<'de> for Scalar<'de> {
    type Error = GaveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        match self {
            Scalar::Text(text) => visitor.visit_borrowed_str(text),
            Scalar::Bool(value) => visitor.visit_bool(value),
            Scalar::Null => visitor.visit_unit(),
            // `arbitrary_precision` changes what `serde_json` gives here.
            Scalar::Unsigned(_) | Scalar::Signed(_) => Err(GaveUp),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        match self {
            Scalar::Bool(value) => visitor.visit_bool(value),
            _ => Err(GaveUp),
        }
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        match self {
            Scalar::Unsigned(value) => visitor.visit_u64(value),
            Scalar::Signed(value) => visitor.visit_i64(value),
            _ => Err(GaveUp),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        match self {
            Scalar::Text(text) => visitor.visit_borrowed_str(text),
            _ => Err(GaveUp),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_str(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        match self {
            Scalar::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        match self {
            Scalar::Null => visitor.visit_unit(),
            _ => Err(GaveUp),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, GaveUp> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GaveUp> {
        visitor.visit_unit()
    }

    // 128-bit numbers, bytes, newtypes (`RawValue` is one), enums and containers.
    give_up! {
        deserialize_i128();
        deserialize_u128();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};
    use std::fmt::Debug;

    use proptest::prelude::*;
    use serde::Deserialize;
    use serde::de::DeserializeOwned;

    use super::decode;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        a: i64,
        b: Option<String>,
        #[serde(default)]
        c: Option<bool>,
        #[serde(default)]
        d: f64,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    enum Kind {
        Alpha,
        Beta,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Wrapped(i32);

    /// Unknown fields ignored; types `serde_json` answers in its own ways (enums, newtypes,
    /// 128-bit numbers, `Value`, chars, units).
    #[derive(Debug, PartialEq, Deserialize)]
    struct Loose {
        a: Option<u8>,
        b: Option<serde_json::Value>,
        c: Option<char>,
        d: Option<Kind>,
        e: Option<Wrapped>,
        f: Option<i128>,
        g: Option<()>,
        h: Option<f32>,
        i: Option<Box<str>>,
        j: Option<u64>,
    }

    /// What `decode` gives must be what `serde_json` gives; when `serde_json` refuses the text,
    /// `decode` must have given up. Gives whether `decode` decoded.
    fn agrees<T: DeserializeOwned + PartialEq + Debug>(text: &str) -> Result<bool, TestCaseError> {
        let expected = serde_json::from_str::<T>(text);
        match decode::<T>(text) {
            Some(value) => {
                let expected = expected.map_err(|error| {
                    TestCaseError::fail(format!(
                        "decoded {text:?}, which serde_json refuses: {error}"
                    ))
                })?;
                prop_assert_eq!(value, expected, "{:?}", text);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn key() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            8 => prop::sample::select(vec![
                "\"a\"", "\"b\"", "\"c\"", "\"d\"", "\"e\"", "\"f\"", "\"g\"", "\"h\"", "\"i\"",
                "\"j\"", "\"other\"",
            ]),
            1 => prop::sample::select(vec![
                "\"\\u0061\"", "\"a\\n\"", "\"a\tb\"", "\"é\"", "\"\"", "a", "\"a", "'a'",
            ]),
        ]
    }

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => any::<i64>().prop_map(|number| number.to_string()),
            2 => any::<u64>().prop_map(|number| number.to_string()),
            2 => prop::sample::select(vec![
                "0", "-0", "01", "-01", "1.5", "1e3", "1E3", "-1.0e-3", "18446744073709551615",
                "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
                "340282366920938463463374607431768211456", "+1", "-", ".5", "1.", "0x10",
                "true", "false", "null", "tru", "nulll", "True", "truex",
                "\"alpha\"", "\"Alpha\"", "\"Beta\"", "\"x\"", "\"\"", "\"\\\"quoted\\\"\"",
                "\"\\u00e9\"", "\"tab\there\"", "\"line\nbreak\"", "\"ünïcödé 🐤\"", "\"open",
                "[1]", "{}", "{\"a\": 1}", "[]",
            ]).prop_map(str::to_owned),
            1 => "[ -~]{0,12}".prop_map(|text| format!("\"{}\"", text.replace(['"', '\\'], ""))),
            1 => any::<f64>().prop_map(|number| number.to_string()),
        ]
    }

    fn space() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "", "", "", " ", "\n", "\t", "\r\n ", "\u{a0}", "\u{feff}",
        ])
    }

    /// Objects of those keys and values, with JSON's whitespace and a few mistakes: a trailing
    /// comma, a missing colon, text after the object, an object that does not end.
    fn object() -> impl Strategy<Value = String> {
        let member = (space(), key(), space(), value(), space());
        (
            prop::collection::vec(member, 0..8),
            space(),
            prop::sample::select(vec!["}", "}", "}", "},", ",}", "} x", "", "}}"]),
            any::<bool>(),
        )
            .prop_map(|(members, before, end, colonless)| {
                let body: Vec<String> = members
                    .iter()
                    .enumerate()
                    .map(|(at, (a, key, b, value, c))| {
                        let colon = if colonless && at == 0 { "" } else { ":" };
                        format!("{a}{key}{b}{colon}{c}{value}")
                    })
                    .collect();
                format!("{{{before}{}{end}", body.join(","))
            })
    }

    /// Objects close to what a model sends for `Strict`: its keys (sometimes one twice, or one
    /// missing), values mostly of the right type, JSON's whitespace.
    fn typical() -> impl Strategy<Value = String> {
        let member = prop_oneof![
            3 => any::<i64>().prop_map(|number| format!("\"a\": {number}")),
            2 => "[ -~]{0,16}".prop_map(|text| format!("\"b\": \"{}\"", text.replace(['"', '\\'], ""))),
            1 => Just("\"b\": null".to_owned()),
            2 => any::<bool>().prop_map(|value| format!("\"c\": {value}")),
            2 => any::<u32>().prop_map(|number| format!("\"d\": {number}")),
            1 => (key(), value()).prop_map(|(key, value)| format!("{key}: {value}")),
        ];
        (prop::collection::vec(member, 1..6), space()).prop_map(|(members, space)| {
            format!("{{{space}{}{space}}}", members.join(&format!(",{space}")))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn what_it_decodes_serde_json_decodes_to_the_same_value(text in object()) {
            agrees::<Strict>(&text)?;
            agrees::<Loose>(&text)?;
            agrees::<HashMap<String, serde_json::Value>>(&text)?;
            agrees::<BTreeMap<String, i64>>(&text)?;
            agrees::<serde_json::Value>(&text)?;
        }

        #[test]
        fn what_it_decodes_of_typical_arguments_serde_json_decodes_to_the_same_value(
            text in typical()
        ) {
            agrees::<Strict>(&text)?;
            agrees::<Loose>(&text)?;
        }
    }

    #[test]
    fn a_unit_argument_given_null_is_decoded_here_and_given_anything_else_is_not() {
        #[derive(Debug, PartialEq, Deserialize)]
        struct Unit {
            a: i64,
            u: (),
        }
        assert!(agrees::<Unit>(r#"{"a": 1, "u": null}"#).unwrap());
        assert!(!agrees::<Unit>(r#"{"a": 1, "u": 0}"#).unwrap());
    }

    #[test]
    fn the_usual_arguments_are_decoded_here_and_the_rest_are_left_to_serde_json() {
        let decoded = [
            r#"{"a": 40, "b": "two"}"#,
            "{\n  \"a\": -9223372036854775808,\n  \"c\": true,\n  \"d\": 18446744073709551615\n}",
            r#"{"b":null,"a":0,"c":false,"d":7}"#,
            r#"{"a":1,"b":"ünïcödé 🐤"}"#,
        ];
        for text in decoded {
            assert!(agrees::<Strict>(text).unwrap(), "{text}");
        }
        let left = [
            // An escape, a control character, a fraction, an exponent, `-0`, 65 bits.
            r#"{"a": 1, "b": "say \"hi\""}"#,
            "{\"a\": 1, \"b\": \"tab\there\"}",
            r#"{"a": 1, "d": 1.5}"#,
            r#"{"a": 1, "d": 1e3}"#,
            r#"{"a": -0}"#,
            r#"{"a": 1, "d": 18446744073709551616}"#,
            // A missing field, an unknown one, a repeated one, a wrong type.
            r#"{"b": "x"}"#,
            r#"{"a": 1, "z": 2}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": "1"}"#,
            // Not an object of scalars, or not only one.
            r#"{"a": 1, "b": ["x"]}"#,
            r#"{"a": 1} {}"#,
            r#"{"a": 1,}"#,
            "[1, null]",
            "",
        ];
        for text in left {
            assert!(decode::<Strict>(text).is_none(), "{text}");
        }
        // Every method of a value that `serde_json` answers like any other: a char, a unit, an
        // `f32` from an integer, a boxed string, options, unknown fields skipped.
        let loose = r#"{"a": 7, "b": "s", "c": "x", "g": null, "h": 3, "i": "t", "j": 9, "z": 1}"#;
        assert!(agrees::<Loose>(loose).unwrap());
        // Numbers through `deserialize_any` are `serde_json`'s (its `arbitrary_precision` feature
        // changes them); strings, booleans and nulls through it are decoded here.
        assert!(decode::<Loose>(r#"{"b": 1}"#).is_none());
        assert!(
            agrees::<HashMap<String, serde_json::Value>>(r#"{"a": "x", "b": true, "c": null}"#)
                .unwrap()
        );
        // Enums, newtypes and 128-bit numbers are `serde_json`'s, and so is a whole `Value`.
        for text in [r#"{"d": "Alpha"}"#, r#"{"e": 1}"#, r#"{"f": 1}"#] {
            assert!(decode::<Loose>(text).is_none(), "{text}");
            assert!(serde_json::from_str::<Loose>(text).is_ok(), "{text}");
        }
        assert!(decode::<serde_json::Value>(r#"{"a": "x"}"#).is_none());
    }

    #[test]
    fn twenty_thousand_keys_are_read_once_and_twenty_thousand_repeats_are_left_to_serde_json() {
        let many: Vec<String> = (0..20_000)
            .map(|index| format!("\"k{index}\": {index}"))
            .collect();
        let text = format!("{{{}}}", many.join(", "));
        let decoded = decode::<BTreeMap<String, u64>>(&text).expect("flat");
        assert_eq!(decoded.len(), 20_000);
        assert_eq!(decoded["k19999"], 19_999);
        // Unknown keys ignored one by one, as the derive does.
        assert!(agrees::<Loose>(&text).unwrap());
        let repeated = format!("{{{}}}", vec!["\"a\": 1"; 20_000].join(","));
        assert!(decode::<Strict>(&repeated).is_none());
    }
}
