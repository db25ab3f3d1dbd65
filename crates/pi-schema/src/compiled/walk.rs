//! The walk: a parsed value read under compiled [`Node`]s, filtered as the generic filter
//! would, with every broken rule noted as a doubt instead of stopping the walk.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::{Native, Node, Types};
use crate::filter::drop_undeclared;

/// Integers beyond this magnitude are not compared with `f64` bounds here.
const EXACT_IN_F64: f64 = 9_007_199_254_740_992.0;

/// What a walk made of a value: the value filtered as the generic path's filter would (undeclared
/// properties dropped), and whether any rule doubted it. A doubted value
/// goes to `jsonschema` for the verdict and the full report.
pub(crate) struct Walked {
    pub(crate) value: Value,
    pub(crate) doubted: bool,
}

/// Checks and filters an already parsed value against `node` in one walk.
pub(crate) fn check(node: &Node, value: &Value) -> Option<Walked> {
    let doubts = Cell::new(false);
    let value = NodeSeed {
        node,
        doubts: &doubts,
    }
    .deserialize(value)
    .ok()?;
    Some(Walked {
        value,
        doubted: doubts.get(),
    })
}

/// Stops the walk: what is left for the generic path to say (a value too deep to filter).
fn give_up<E: de::Error>() -> E {
    E::custom("too deep")
}

struct NodeSeed<'n, 'd> {
    node: &'n Node,
    doubts: &'d Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_, '_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        match self.node {
            Node::Any => de::Deserialize::deserialize(deserializer),
            Node::Native(rules) => deserializer.deserialize_any(NativeVisitor {
                rules,
                doubts: self.doubts,
            }),
            Node::Delegated(delegated) => {
                let value: Value = de::Deserialize::deserialize(deserializer)?;
                let filtered = drop_undeclared(&delegated.schema, &value).map_err(|_| give_up())?;
                if !delegated.validator.is_valid(&filtered) {
                    self.doubts.set(true);
                }
                Ok(filtered)
            }
        }
    }
}

/// Reads one value under a natively checked node. A broken rule is noted, not fatal: the walk
/// goes on filtering, so that a rejected call's report needs no second parse.
struct NativeVisitor<'n, 'd> {
    rules: &'n Native,
    doubts: &'d Cell<bool>,
}

impl NativeVisitor<'_, '_> {
    fn unless(&self, accepted: bool) {
        if !accepted {
            self.doubts.set(true);
        }
    }

    fn child<'n>(&self, node: &'n Node) -> NodeSeed<'n, '_> {
        NodeSeed {
            node,
            doubts: self.doubts,
        }
    }

    fn number(&self, as_f64: f64, whole: bool, value: Number) -> Value {
        let rules = self.rules;
        let bounded = rules.minimum.is_some()
            || rules.maximum.is_some()
            || rules.exclusive_minimum.is_some()
            || rules.exclusive_maximum.is_some();
        let in_bounds = rules.minimum.is_none_or(|min| as_f64 >= min)
            && rules.maximum.is_none_or(|max| as_f64 <= max)
            && rules.exclusive_minimum.is_none_or(|min| as_f64 > min)
            && rules.exclusive_maximum.is_none_or(|max| as_f64 < max);
        // Beyond 2^53 an `f64` comparison may be wrong: `jsonschema` decides.
        let exact = !bounded || as_f64.abs() < EXACT_IN_F64;
        self.unless(
            rules.types.allows_number(whole) && rules.strings.is_none() && in_bounds && exact,
        );
        Value::Number(value)
    }
}

impl<'de> Visitor<'de> for NativeVisitor<'_, '_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("JSON")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.unless(self.rules.types.allows(Types::NULL) && self.rules.strings.is_none());
        Ok(Value::Null)
    }

    fn visit_bool<E: de::Error>(self, flag: bool) -> Result<Value, E> {
        self.unless(self.rules.types.allows(Types::BOOLEAN) && self.rules.strings.is_none());
        Ok(Value::Bool(flag))
    }

    #[allow(clippy::cast_precision_loss)] // Large magnitudes are doubted as inexact.
    fn visit_u64<E: de::Error>(self, number: u64) -> Result<Value, E> {
        Ok(self.number(number as f64, true, Number::from(number)))
    }

    #[allow(clippy::cast_precision_loss)] // Large magnitudes are doubted as inexact.
    fn visit_i64<E: de::Error>(self, number: i64) -> Result<Value, E> {
        Ok(self.number(number as f64, true, Number::from(number)))
    }

    fn visit_f64<E: de::Error>(self, number: f64) -> Result<Value, E> {
        let whole = number.is_finite() && number.fract() == 0.0;
        // JSON has no NaN or infinity; `Value` would hold them as null.
        Ok(match Number::from_f64(number) {
            Some(json) => self.number(number, whole, json),
            None => {
                self.unless(false);
                Value::Null
            }
        })
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Value, E> {
        let rules = self.rules;
        self.unless(
            rules.types.allows(Types::STRING)
                && rules
                    .strings
                    .as_ref()
                    .is_none_or(|options| options.iter().any(|option| option == text))
                && (rules.min_length.is_none() && rules.max_length.is_none() || {
                    // JSON Schema counts code points.
                    let length = text.chars().count();
                    rules.min_length.is_none_or(|min| length >= min)
                        && rules.max_length.is_none_or(|max| length <= max)
                }),
        );
        Ok(Value::String(text.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut sequence: A) -> Result<Value, A::Error> {
        let rules = self.rules;
        self.unless(rules.types.allows(Types::ARRAY) && rules.strings.is_none());
        let mut items = Vec::with_capacity(sequence.size_hint().unwrap_or(0).min(64));
        loop {
            let next = match &rules.items {
                Some(node) => sequence.next_element_seed(self.child(node))?,
                None => sequence.next_element::<Value>()?,
            };
            match next {
                Some(item) => items.push(item),
                None => break,
            }
        }
        self.unless(
            rules.min_items.is_none_or(|min| items.len() >= min)
                && rules.max_items.is_none_or(|max| items.len() <= max),
        );
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let rules = self.rules;
        self.unless(rules.types.allows(Types::OBJECT) && rules.strings.is_none());
        let Some(object) = &rules.object else {
            // No `properties` here: nothing is filtered, as on the generic path.
            return de::Deserialize::deserialize(de::value::MapAccessDeserializer::new(map));
        };
        // Sized once: growing the map would rehash every key.
        let mut kept = Map::with_capacity(object.properties.len());
        let mut seen = Seen::new(object.properties.len());
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match object.properties.get_full(key.as_ref()) {
                Some((index, _, property)) => {
                    let value = map.next_value_seed(self.child(&property.node))?;
                    seen.mark(index);
                    kept.insert(key.into_owned(), value);
                }
                None if object.keep_extras => {
                    let value: Value = map.next_value()?;
                    kept.insert(key.into_owned(), value);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // `required` is met by what was sent only: defaults come after the verdict.
        for (index, property) in object.properties.values().enumerate() {
            if !seen.has(index) {
                self.unless(!property.required);
            }
        }
        self.unless(
            object
                .required_extras
                .iter()
                .all(|name| kept.contains_key(name)),
        );
        Ok(Value::Object(kept))
    }
}

/// Which declared properties arrived, by index; no allocation for up to 64.
enum Seen {
    Few(u64),
    Many(Vec<bool>),
}

impl Seen {
    fn new(count: usize) -> Self {
        if count <= 64 {
            Seen::Few(0)
        } else {
            Seen::Many(vec![false; count])
        }
    }

    fn mark(&mut self, index: usize) {
        match self {
            Seen::Few(bits) => *bits |= 1 << index,
            Seen::Many(flags) => {
                if let Some(flag) = flags.get_mut(index) {
                    *flag = true;
                }
            }
        }
    }

    fn has(&self, index: usize) -> bool {
        match self {
            Seen::Few(bits) => index < 64 && bits & (1 << index) != 0,
            Seen::Many(flags) => flags.get(index).copied().unwrap_or(false),
        }
    }
}

/// A map key, borrowed from the value.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }
}
