//! Numbers as JSON Schema and serde see them, made to agree. JSON Schema's `integer` is any whole
//! number (`1.0`, `1e2`, `-0`), which serde's integer types refuse, and a Rust integer or `f32`
//! has bounds that schemars does not always write: the schema gets the bounds of the type, and
//! arguments that did not decode are read once more with whole numbers written as integers.

use serde_json::{Map, Value};

/// The bounds of a number with this schemars `format`: the Rust type's range (the bounds JSON
/// carries exactly), and for `f32` the largest value that does not round to infinity.
pub(crate) fn bounds(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" | "uint" => (0.into(), u64::MAX.into()),
        // `f32::MAX` as Rust writes it (3.4028235e38): serde reads every number up to there
        // as a finite `f32`.
        "float" => ((-3.402_823_5e38_f64).into(), 3.402_823_5e38_f64.into()),
        _ => return None,
    })
}

/// What a keyword of a schema object holds, for a walk through the schema: the schemas under
/// `properties`, `$defs` and their kind are named, so a name (an argument called `default` or
/// `pattern`) is never read as a keyword; and `default`, `examples`, `const` and `enum` hold
/// values, which are data whatever they contain.
pub(crate) enum Holds {
    /// A schema, or an array of them (`items`, `anyOf`, ...).
    Schema,
    /// An object from names to schemas.
    Named,
    /// Values, not schemas.
    Data,
}

impl Holds {
    /// What the keyword `key` of a schema object holds.
    pub(crate) fn under(key: &str) -> Self {
        match key {
            "properties" | "patternProperties" | "dependentSchemas" | "$defs" | "definitions" => {
                Self::Named
            }
            "default" | "examples" | "const" | "enum" => Self::Data,
            _ => Self::Schema,
        }
    }
}

/// Writes the bounds of each number's Rust type into `schema`, everywhere in it but in values
/// (see [`Holds`]): a `minimum` or `maximum` already there stays when it is within the type's (a
/// `#[schemars(range)]`).
pub(crate) fn bound_by_type(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some((low, high)) = map.get("format").and_then(Value::as_str).and_then(bounds) {
                tighten(map, "minimum", low, |bound, given| given < bound);
                tighten(map, "maximum", high, |bound, given| given > bound);
            }
            for (key, value) in map.iter_mut() {
                match Holds::under(key) {
                    Holds::Schema => bound_by_type(value),
                    Holds::Named => {
                        if let Value::Object(named) = value {
                            named.values_mut().for_each(bound_by_type);
                        }
                    }
                    Holds::Data => {}
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(bound_by_type),
        _ => {}
    }
}

/// Sets `key` to `bound` unless a value already there is within it (`outside(bound, given)` is
/// false).
fn tighten(map: &mut Map<String, Value>, key: &str, bound: Value, outside: fn(f64, f64) -> bool) {
    let within = map.get(key).and_then(Value::as_f64).is_some_and(|given| {
        bound
            .as_f64()
            .is_some_and(|bound_value| !outside(bound_value, given))
    });
    if !within {
        map.insert(key.to_owned(), bound);
    }
}

/// `text`, valid JSON, with each number written with a fraction, an exponent or as `-0` whose
/// value is whole and fits 64 bits written as that integer (`1.0` as `1`, `1e2` as `100`);
/// `None` when there is no such number. Strings are left as they are, and keys are never
/// merged, so a duplicate key stays one.
pub(crate) fn whole_numbers_as_integers(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut at, mut copied) = (0, 0);
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = super::locate::after_string(bytes, at),
            b'-' | b'0'..=b'9' => {
                let start = at;
                while at < bytes.len()
                    && matches!(bytes[at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    at += 1;
                }
                if let Some(integer) = whole(&text[start..at]) {
                    out.push_str(&text[copied..start]);
                    out.push_str(&integer);
                    copied = at;
                }
            }
            _ => at += 1,
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// A number written with a fraction, an exponent or as `-0`, as an integer when its value is
/// whole and fits `u64` or `i64`: worked out on its digits, never through a float, so that the
/// integer is exactly the number written (`9007199254740993.0` is `9007199254740993`, and
/// `1.00000000000000001` is not whole).
fn whole(number: &str) -> Option<String> {
    if !number.contains(['.', 'e', 'E']) && number != "-0" {
        return None;
    }
    let (negative, unsigned) = match number.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, number),
    };
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (unsigned, None),
    };
    let (integral, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{integral}{fraction}");
    let significant = digits.trim_start_matches('0');
    if significant.is_empty() {
        // Zero however it is written, `-0.0e5` included.
        return Some("0".to_owned());
    }
    // The value is `significant` times ten to `shift`: the written exponent less the digits of
    // the fraction. An exponent too large to count is far past 64 bits either way.
    let written: i64 = exponent.map_or(Some(0), |exponent| exponent.parse().ok())?;
    let shift = written.checked_sub(i64::try_from(fraction.len()).ok()?)?;
    let integer = if shift >= 0 {
        // Past 20 digits no integer fits 64 bits; no need to write them all.
        let zeros = usize::try_from(shift)
            .ok()
            .filter(|zeros| significant.len() + zeros <= 20)?;
        format!("{significant}{}", "0".repeat(zeros))
    } else {
        let cut = usize::try_from(shift.unsigned_abs()).ok()?;
        // A digit other than zero after the point: not whole.
        let (kept, dropped) = significant.split_at(significant.len().checked_sub(cut)?);
        if !dropped.bytes().all(|digit| digit == b'0') {
            return None;
        }
        kept.to_owned()
    };
    let magnitude: u128 = integer.parse().ok()?;
    let fits = if negative {
        magnitude <= 1 << 63
    } else {
        magnitude <= u128::from(u64::MAX)
    };
    fits.then(|| {
        if negative {
            format!("-{integer}")
        } else {
            integer
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{bound_by_type, whole_numbers_as_integers};

    #[test]
    fn whole_numbers_are_written_as_integers_and_nothing_else_changes() {
        for (text, expected) in [
            (r#"{"a": 1.0}"#, Some(r#"{"a": 1}"#)),
            (
                r#"{"a": 1e2, "b": -0, "c": -2.0E1}"#,
                Some(r#"{"a": 100, "b": 0, "c": -20}"#),
            ),
            (r#"{"a": 1e19}"#, Some(r#"{"a": 10000000000000000000}"#)),
            (
                r#"{"a": -9.223372036854775808e18}"#,
                Some(r#"{"a": -9223372036854775808}"#),
            ),
            // A duplicate key stays, and strings are not numbers.
            (
                r#"{"a": 1.0, "a": "2.0 \"3.0\""}"#,
                Some(r#"{"a": 1, "a": "2.0 \"3.0\""}"#),
            ),
            (r#"{"a": 1.5, "b": 1, "c": "1.0"}"#, None),
            // Past 64 bits: left for the decoder to refuse.
            (r#"{"a": 1.8446744073709552e19, "b": -1e19}"#, None),
            ("[0, -1, 10]", None),
            // Digits inside a string are text, wherever they start in it.
            (r#"{"a": "x 1.0"}"#, None),
            // A number that ends the text.
            ("2.0", Some("2")),
            // Exactly the number written, never a float's neighbour of it.
            ("9007199254740993.0", Some("9007199254740993")),
            ("9007199254740993e0", Some("9007199254740993")),
            ("12345678901234567.0", Some("12345678901234567")),
            ("-9007199254740993.0", Some("-9007199254740993")),
            ("18446744073709551615.0", Some("18446744073709551615")),
            ("1844674407370955161.5e1", Some("18446744073709551615")),
            ("18446744073709551616.0", None),
            ("-9223372036854775809.0", None),
            ("1.00000000000000001", None),
            ("0.9999999999999999999", None),
            ("-0.0e99999999999999999999", Some("0")),
            ("1e99999999999999999999", None),
            ("1e-99999999999999999999", None),
            ("100e-2", Some("1")),
            // Digits and the zeros the exponent adds count together (5 and 5, not 25).
            ("12345e5", Some("1234500000")),
            ("1234567890.0e10", Some("12345678900000000000")),
            ("1234567890.0e11", None),
            ("0.5", None),
        ] {
            assert_eq!(
                whole_numbers_as_integers(text).as_deref(),
                expected,
                "{text}"
            );
        }
    }

    #[test]
    fn each_number_gets_its_types_bounds_and_keeps_tighter_ones() {
        let mut schema = json!({
            "properties": {
                "count": {"type": "integer", "format": "uint32", "minimum": 0},
                "days": {"type": "integer", "format": "uint32", "minimum": 1, "maximum": 365},
                "loose": {"type": "integer", "format": "int8", "minimum": -1000, "maximum": 1000},
                "short": {"type": "integer", "format": "int16"},
                "byte": {"type": "integer", "format": "uint8"},
                "word": {"type": "integer", "format": "uint16"},
                "either": {"anyOf": [{"type": "integer", "format": "uint32"}, {"type": "null"}]},
                "ratio": {"type": "number", "format": "float"},
                "precise": {"type": "number", "format": "double"},
                "items": {"type": "array", "items": {"type": ["integer", "null"], "format": "uint64"}},
                "given": {
                    "type": "object",
                    "default": {"format": "uint8"},
                    "examples": [{"format": "int8"}],
                    "const": {"format": "uint16"},
                    "enum": [{"format": "int16"}]
                },
                // Arguments named like the keywords that hold values are schemas all the same.
                "default": {"type": "integer", "format": "uint8"},
                "enum": {"type": "integer", "format": "int8"}
            }
        });
        bound_by_type(&mut schema);
        assert_eq!(
            schema,
            json!({
                "properties": {
                    "count": {"type": "integer", "format": "uint32", "minimum": 0, "maximum": 4_294_967_295_u32},
                    "days": {"type": "integer", "format": "uint32", "minimum": 1, "maximum": 365},
                    "loose": {"type": "integer", "format": "int8", "minimum": -128, "maximum": 127},
                    "short": {"type": "integer", "format": "int16", "minimum": -32768, "maximum": 32767},
                    "byte": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                    "word": {"type": "integer", "format": "uint16", "minimum": 0, "maximum": 65535},
                    "either": {"anyOf": [{"type": "integer", "format": "uint32", "minimum": 0, "maximum": 4_294_967_295_u32}, {"type": "null"}]},
                    "ratio": {"type": "number", "format": "float", "minimum": -3.402_823_5e38, "maximum": 3.402_823_5e38},
                    "precise": {"type": "number", "format": "double"},
                    "items": {"type": "array", "items": {"type": ["integer", "null"], "format": "uint64", "minimum": 0, "maximum": u64::MAX}},
                    // Values are data: an object in them with a `format` is not a schema.
                    "given": {
                        "type": "object",
                        "default": {"format": "uint8"},
                        "examples": [{"format": "int8"}],
                        "const": {"format": "uint16"},
                        "enum": [{"format": "int16"}]
                    },
                    "default": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                    "enum": {"type": "integer", "format": "int8", "minimum": -128, "maximum": 127}
                }
            })
        );
    }
}
