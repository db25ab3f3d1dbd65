//! Lenient reads for the one pass of `#[derive(ToolParams)]`: a field of another JSON type
//! than its own is kept as the JSON that arrived, for the field's rules to judge and report
//! in the JSON path's words, instead of failing the pass (a refused call is then reported
//! from one read of its text).

use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::ParamType;

/// What a lenient read of one field found.
#[doc(hidden)]
#[derive(Debug)]
pub enum Lenient<T> {
    /// A `T`, with the JSON that arrived when keeping it costs nothing (a number, a boolean);
    /// `None`: [`ParamType::into_json`] rebuilds it if the field's typed rules refuse the value.
    Typed(T, Option<Value>),
    /// Not a `T`: the JSON that arrived, for the field's rules to judge.
    Other(Value),
}

/// Reads a `T` (a string, a number or a boolean) from the primitive the text held, through
/// the same visitor call as reading it strictly; a number or a boolean is kept as JSON too (no
/// allocation), a string only when it is not a `T`. Any other JSON is kept as it arrived.
pub(crate) fn scalar_lenient<'de, T: ParamType, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Lenient<T>, D::Error> {
    deserializer.deserialize_any(ScalarOrOther(PhantomData))
}

struct ScalarOrOther<T>(PhantomData<T>);

impl<T: ParamType> ScalarOrOther<T> {
    fn read<'de, P>(primitive: P, arrived: Value) -> Lenient<T>
    where
        P: IntoDeserializer<'de, serde::de::value::Error>,
    {
        match T::deserialize_fast(primitive.into_deserializer()) {
            Ok(value) => Lenient::Typed(value, Some(arrived)),
            Err(_) => Lenient::Other(arrived),
        }
    }
}

impl<'de, T: ParamType> Visitor<'de> for ScalarOrOther<T> {
    type Value = Lenient<T>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("JSON")
    }

    fn visit_bool<E: serde::de::Error>(self, flag: bool) -> Result<Self::Value, E> {
        Ok(Self::read(flag, Value::Bool(flag)))
    }

    fn visit_i64<E: serde::de::Error>(self, number: i64) -> Result<Self::Value, E> {
        Ok(Self::read(number, Value::from(number)))
    }

    fn visit_u64<E: serde::de::Error>(self, number: u64) -> Result<Self::Value, E> {
        Ok(Self::read(number, Value::from(number)))
    }

    fn visit_f64<E: serde::de::Error>(self, number: f64) -> Result<Self::Value, E> {
        Ok(Self::read(number, Value::from(number)))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        // A text that is a `T` (a `String` field) is not copied into JSON as well: the
        // field's rules rebuild it with `into_json` only if they refuse it.
        let typed: Result<T, serde::de::value::Error> =
            T::deserialize_fast(text.into_deserializer());
        Ok(match typed {
            Ok(value) => Lenient::Typed(value, None),
            Err(_) => Lenient::Other(Value::String(text.to_owned())),
        })
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Lenient::Other(Value::Null))
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Lenient::Other(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(items)).map(Lenient::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(Lenient::Other)
    }
}

/// Reads a `T` with [`ParamType::deserialize_lenient`], as a serde seed.
#[doc(hidden)]
#[derive(Debug)]
pub struct LenientSeed<T>(PhantomData<T>);

impl<T> LenientSeed<T> {
    /// The seed.
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T> Default for LenientSeed<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'de, T: ParamType> DeserializeSeed<'de> for LenientSeed<T> {
    type Value = Lenient<T>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Lenient<T>, D::Error> {
        T::deserialize_lenient(deserializer)
    }
}
