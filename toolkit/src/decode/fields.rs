//! The thin expansion's decoder of a tool's arguments object: a tool whose parameters carry no
//! `#[serde]` or `#[schemars]` attribute (nearly every tool), and at most 12 of them (`Slots` is
//! implemented for tuples up to 12; `toolkit-macros` counts the same), decodes through these
//! generic helpers instead of a `Deserialize` derive of its own.
//!
//! Why by hand: compiled once for every tool rather than derived per tool, the expansion of a
//! `#[tool]` is about 160 lines instead of 360 (`compile-cost/` measures it). What it decodes,
//! and every error it gives, is what the derive gives: `toolkit/tests/expansion.rs` decodes the
//! same texts both ways.

/// How a `#[tool]` decodes each argument: the one place that needs the parameter's type to be
/// `Deserialize`, named on that type, so a type that is not gets one error, there.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the type of a #[tool] parameter: it is not `serde::Deserialize`",
    label = "not `serde::Deserialize`",
    note = "a parameter type needs both `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait DecodeArgument<'de>: Sized {
    fn decode_argument<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;

    /// An argument with `#[arg(default = ...)]`: `null` means the default, as a provider's
    /// strict mode sends for an argument the model leaves out.
    fn decode_argument_or<D: serde::Deserializer<'de>>(
        deserializer: D,
        default: fn() -> Self,
    ) -> Result<Self, D::Error> {
        let value: Option<Decoded<Self>> = serde::Deserialize::deserialize(deserializer)?;
        Ok(value.map_or_else(default, |Decoded(value)| value))
    }
}

impl<'de, T: serde::Deserialize<'de>> DecodeArgument<'de> for T {
    fn decode_argument<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer)
    }
}

/// A value decoded through [`DecodeArgument`].
struct Decoded<T>(T);

impl<'de, T: DecodeArgument<'de>> serde::Deserialize<'de> for Decoded<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::decode_argument(deserializer).map(Decoded)
    }
}

/// One slot per parameter, filled while the arguments object is read.
#[doc(hidden)]
pub trait Slots<'de>: Default {
    /// Reads the value of parameter `index` (named `names[index]`) into its slot; a second one
    /// for the same parameter is an error.
    fn fill<A: serde::de::MapAccess<'de>>(
        &mut self,
        index: usize,
        names: &'static [&'static str],
        map: &mut A,
    ) -> Result<(), A::Error>;
}

macro_rules! slots {
    ($($slot:ident $index:tt),*) => {
        impl<'de, $($slot: serde::Deserialize<'de>),*> Slots<'de> for ($(Option<$slot>,)*) {
            #[inline]
            fn fill<M: serde::de::MapAccess<'de>>(
                &mut self,
                index: usize,
                names: &'static [&'static str],
                map: &mut M,
            ) -> Result<(), M::Error> {
                match index {
                    $($index => {
                        if self.$index.is_some() {
                            return Err(<M::Error as serde::de::Error>::duplicate_field(names[$index]));
                        }
                        self.$index = Some(map.next_value()?);
                    })*
                    _ => unreachable!("a parameter index is below the number of names"),
                }
                Ok(())
            }
        }
    };
}

/// A tool without parameters: no key names one, so nothing is ever filled.
impl<'de> Slots<'de> for () {
    fn fill<M: serde::de::MapAccess<'de>>(
        &mut self,
        _index: usize,
        _names: &'static [&'static str],
        _map: &mut M,
    ) -> Result<(), M::Error> {
        unreachable!("no key names a parameter of a tool without parameters")
    }
}
slots!(T0 0);
slots!(T0 0, T1 1);
slots!(T0 0, T1 1, T2 2);
slots!(T0 0, T1 1, T2 2, T3 3);
slots!(T0 0, T1 1, T2 2, T3 3, T4 4);
slots!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5);
slots!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6);
slots!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7);
slots!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8);
slots!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9);
slots!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10);
slots!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11);

/// Reads a tool's arguments object into `S`'s slots: each key one of `names` (else an error
/// listing them), each at most once. `index` gives the position of a name (a `match` the macro
/// writes, as a derive would). Missing ones stay empty for the generated code to settle.
#[doc(hidden)]
#[inline]
pub fn named_arguments<'de, D, S, I>(
    deserializer: D,
    names: &'static [&'static str],
    index: I,
) -> Result<S, D::Error>
where
    D: serde::Deserializer<'de>,
    S: Slots<'de>,
    I: Fn(&str) -> Option<usize>,
{
    struct Arguments<S, I> {
        names: &'static [&'static str],
        index: I,
        slots: std::marker::PhantomData<S>,
    }

    impl<'de, S: Slots<'de>, I: Fn(&str) -> Option<usize>> serde::de::Visitor<'de> for Arguments<S, I> {
        type Value = S;

        fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            formatter.write_str("an object of named arguments")
        }

        #[inline]
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<S, A::Error> {
            let mut slots = S::default();
            while let Some(index) = map.next_key_seed(Name {
                names: self.names,
                index: &self.index,
            })? {
                slots.fill(index, self.names, &mut map)?;
            }
            Ok(slots)
        }
    }

    deserializer.deserialize_struct(
        "__ToolkitArguments",
        names,
        Arguments {
            names,
            index,
            slots: std::marker::PhantomData,
        },
    )
}

/// A key of the arguments object, as the index of the parameter it names.
struct Name<'i, I> {
    names: &'static [&'static str],
    index: &'i I,
}

impl<'de, I: Fn(&str) -> Option<usize>> serde::de::DeserializeSeed<'de> for Name<'_, I> {
    type Value = usize;

    #[inline]
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<I: Fn(&str) -> Option<usize>> serde::de::Visitor<'_> for Name<'_, I> {
    type Value = usize;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("field identifier")
    }

    #[inline]
    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<usize, E> {
        (self.index)(key).ok_or_else(|| E::unknown_field(key, self.names))
    }

    fn visit_bytes<E: serde::de::Error>(self, key: &[u8]) -> Result<usize, E> {
        let key = String::from_utf8_lossy(key);
        (self.index)(&key).ok_or_else(|| E::unknown_field(&key, self.names))
    }
}

/// The value of parameter `name` left out of the arguments: `None` for an `Option`, else the
/// "missing field" error.
#[doc(hidden)]
pub fn missing_argument<'de, T, E>(name: &'static str) -> Result<T, E>
where
    T: serde::Deserialize<'de>,
    E: serde::de::Error,
{
    T::deserialize(Missing {
        name,
        error: std::marker::PhantomData,
    })
}

/// What a left-out parameter decodes from.
struct Missing<E> {
    name: &'static str,
    error: std::marker::PhantomData<E>,
}

impl<'de, E: serde::de::Error> serde::Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _visitor: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.name))
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde::de::IntoDeserializer;
    use serde::de::value::{BorrowedBytesDeserializer, Error, MapDeserializer};

    use super::*;

    const NAMES: &[&str] = &["a", "b"];

    fn index(key: &str) -> Option<usize> {
        NAMES.iter().position(|name| *name == key)
    }

    type Two = (Option<i64>, Option<i64>);

    /// Decoders other than JSON's reach what `parse_arguments` never lets JSON reach: keys given
    /// as bytes or numbers, and input that is not a map. Bytes and non-maps are answered as the
    /// derive answers them; a numbered key is refused (the derive takes a field's index), since
    /// arguments are named.
    #[test]
    fn keys_as_bytes_are_names_and_numbered_keys_and_non_maps_are_refused() {
        let bytes = |key: &'static [u8]| {
            MapDeserializer::<_, Error>::new(std::iter::once((
                BorrowedBytesDeserializer::<Error>::new(key),
                7_i64.into_deserializer(),
            )))
        };
        let two: Two = named_arguments(bytes(b"b"), NAMES, index).expect("decodes");
        assert_eq!(two, (None, Some(7)));
        let two: Two = named_arguments(bytes(b"a"), NAMES, index).expect("decodes");
        assert_eq!(two, (Some(7), None));
        let unknown = named_arguments::<_, Two, _>(bytes(b"c"), NAMES, index).unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "unknown field `c`, expected `a` or `b`"
        );

        let numbered = MapDeserializer::<_, Error>::new(std::iter::once((1_u64, 7_i64)));
        let refused = named_arguments::<_, Two, _>(numbered, NAMES, index).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "invalid type: integer `1`, expected field identifier"
        );

        let number: serde::de::value::I64Deserializer<Error> = 3_i64.into_deserializer();
        let not_a_map = named_arguments::<_, Two, _>(number, NAMES, index);
        assert_eq!(
            not_a_map.unwrap_err().to_string(),
            "invalid type: integer `3`, expected an object of named arguments"
        );
    }

    #[test]
    fn a_tool_without_parameters_takes_an_empty_object_and_names_no_field() {
        let empty = MapDeserializer::<_, Error>::new(std::iter::empty::<(&str, i64)>());
        let () = named_arguments(empty, &[], |_: &str| None).expect("decodes");
        let one = MapDeserializer::<_, Error>::new(std::iter::once(("x", 1_i64)));
        let refused = named_arguments::<_, (), _>(one, &[], |_: &str| None).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "unknown field `x`, there are no fields"
        );
    }
}
