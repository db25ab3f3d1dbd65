//! What loading reads of an entry line without building it: the tree fields (`type`, `id`,
//! `parentId`, `timestamp`), a message's `role`, and whether each field the entry's type
//! requires is there with the right JSON type. Everything else is walked and checked as JSON
//! but not kept: the line itself is the entry.
//!
//! The walk goes through `deserialize_any` for every value, the same path a
//! [`serde_json::Value`] parse takes, so a line passes here exactly when it would parse as a
//! `Value`: strings are decoded (a lone surrogate escape is refused), numbers are read (`1e400`
//! is refused) and nesting deeper than serde_json's limit is refused. serde's `IgnoredAny` is
//! not used because serde_json skips what it ignores without those checks.
//!
//! (Over 500 lines only because each serde visitor lists every kind of JSON value.)

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The role of a `message` entry's message, as far as building a context cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// `user`.
    User,
    /// `assistant`.
    Assistant,
    /// `toolResult`.
    ToolResult,
    /// Any other string (`bashExecution`, `custom`, ...).
    Other,
}

impl Role {
    /// The role a message's `role` string names.
    pub(crate) fn named(role: &str) -> Self {
        match role {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "toolResult" => Role::ToolResult,
            _ => Role::Other,
        }
    }
}

/// Required fields of the known entry types, one bit each: set when the field is present with
/// the JSON type [`crate::Entry::kind`] needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Present(u8);

impl Present {
    /// `message` is an object.
    pub(crate) const MESSAGE: u8 = 1;
    /// `provider` is a string.
    pub(crate) const PROVIDER: u8 = 1 << 1;
    /// `modelId` is a string.
    pub(crate) const MODEL_ID: u8 = 1 << 2;
    /// `thinkingLevel` is a string.
    pub(crate) const THINKING_LEVEL: u8 = 1 << 3;
    /// `summary` is a string.
    pub(crate) const SUMMARY: u8 = 1 << 4;
    /// `customType` is a string.
    pub(crate) const CUSTOM_TYPE: u8 = 1 << 5;
    /// `targetId` is a string.
    pub(crate) const TARGET_ID: u8 = 1 << 6;

    /// Whether the field `bit` is present and well typed.
    pub(crate) fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// The bit of a top-level key some known type requires to be a string.
    pub(crate) fn bit_of(key: &str) -> Option<u8> {
        Some(match key {
            "provider" => Self::PROVIDER,
            "modelId" => Self::MODEL_ID,
            "thinkingLevel" => Self::THINKING_LEVEL,
            "summary" => Self::SUMMARY,
            "customType" => Self::CUSTOM_TYPE,
            "targetId" => Self::TARGET_ID,
            _ => return None,
        })
    }

    /// Records the last occurrence of a field (a repeated key's last value wins, as in a map).
    pub(crate) fn set(&mut self, bit: u8, present: bool) {
        if present {
            self.0 |= bit;
        } else {
            self.0 &= !bit;
        }
    }
}

/// The facts of one JSON object line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// `type`, when a string.
    pub(crate) entry_type: Option<String>,
    /// `id`, when a string.
    pub(crate) id: Option<String>,
    /// `parentId`, when a string (anything else makes a root).
    pub(crate) parent_id: Option<String>,
    /// `timestamp`, when a string.
    pub(crate) timestamp: Option<String>,
    /// `message.role`, when `message` is an object with a string role.
    pub(crate) role: Option<Role>,
    /// Which required fields are there.
    pub(crate) present: Present,
}

/// A line: a JSON object and its facts, or some other JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scanned {
    /// A JSON object.
    Object(Facts),
    /// Valid JSON that is not an object.
    NotAnObject,
}

/// Reads `line`, which must be one JSON value and nothing but whitespace after it.
pub(crate) fn scan(line: &str) -> Result<Scanned, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(line);
    let scanned = TopLevel.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(scanned)
}

/// The same facts from an object already in memory (an entry being built, not read).
pub(crate) fn scan_value(value: &serde_json::Value) -> Scanned {
    // Walking a `Value` cannot fail: it is JSON already.
    TopLevel.deserialize(value).unwrap_or(Scanned::NotAnObject)
}

struct TopLevel;

impl<'de> DeserializeSeed<'de> for TopLevel {
    type Value = Scanned;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Scanned, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopLevel {
    type Value = Scanned;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scanned, A::Error> {
        let mut facts = Facts::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Type => facts.entry_type = map.next_value::<Text>()?.0,
                Key::Id => facts.id = map.next_value::<Text>()?.0,
                Key::ParentId => facts.parent_id = map.next_value::<Text>()?.0,
                Key::Timestamp => facts.timestamp = map.next_value::<Text>()?.0,
                Key::Message => {
                    let message = map.next_value::<MessageShape>()?;
                    facts.present.set(Present::MESSAGE, message.is_object);
                    facts.role = message.role;
                }
                Key::Required(bit) => {
                    let is_string = map.next_value::<Text>()?.0.is_some();
                    facts.present.set(bit, is_string);
                }
                Key::Other => map.next_value::<Skip>().map(drop)?,
            }
        }
        Ok(Scanned::Object(facts))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scanned, A::Error> {
        Skip::drain_seq(seq)?;
        Ok(Scanned::NotAnObject)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Scanned, E> {
        Ok(Scanned::NotAnObject)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Scanned, E> {
        Ok(Scanned::NotAnObject)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Scanned, E> {
        Ok(Scanned::NotAnObject)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Scanned, E> {
        Ok(Scanned::NotAnObject)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Scanned, E> {
        Ok(Scanned::NotAnObject)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Scanned, E> {
        Ok(Scanned::NotAnObject)
    }
}

/// The keys whose values loading looks at; any other key's value is only checked.
enum Key {
    Type,
    Id,
    ParentId,
    Timestamp,
    Message,
    /// A field some known type requires to be a string, as its [`Present`] bit.
    Required(u8),
    Other,
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match key {
            "type" => Key::Type,
            "id" => Key::Id,
            "parentId" => Key::ParentId,
            "timestamp" => Key::Timestamp,
            "message" => Key::Message,
            other => Present::bit_of(other).map_or(Key::Other, Key::Required),
        })
    }
}

/// A value kept when it is a string; any other value is checked and dropped.
struct Text(Option<String>);

impl<'de> de::Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Text, E> {
        Ok(Text(Some(text.to_owned())))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Text, E> {
        Ok(Text(Some(text)))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text, A::Error> {
        Skip::drain_map(map)?;
        Ok(Text(None))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Text, A::Error> {
        Skip::drain_seq(seq)?;
        Ok(Text(None))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Text, E> {
        Ok(Text(None))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Text, E> {
        Ok(Text(None))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Text, E> {
        Ok(Text(None))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Text, E> {
        Ok(Text(None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
        Ok(Text(None))
    }
}

/// A `message` value: whether it is an object, and its string `role`.
struct MessageShape {
    is_object: bool,
    role: Option<Role>,
}

impl<'de> de::Deserialize<'de> for MessageShape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

struct MessageVisitor;

impl MessageVisitor {
    const NOT_AN_OBJECT: MessageShape = MessageShape {
        is_object: false,
        role: None,
    };
}

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = MessageShape;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MessageShape, A::Error> {
        let mut role = None;
        while let Some(key) = map.next_key::<RoleKey>()? {
            if key.0 {
                role = map.next_value::<RoleValue>()?.0;
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(MessageShape {
            is_object: true,
            role,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<MessageShape, A::Error> {
        Skip::drain_seq(seq)?;
        Ok(Self::NOT_AN_OBJECT)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<MessageShape, E> {
        Ok(Self::NOT_AN_OBJECT)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<MessageShape, E> {
        Ok(Self::NOT_AN_OBJECT)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<MessageShape, E> {
        Ok(Self::NOT_AN_OBJECT)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<MessageShape, E> {
        Ok(Self::NOT_AN_OBJECT)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<MessageShape, E> {
        Ok(Self::NOT_AN_OBJECT)
    }

    fn visit_unit<E: de::Error>(self) -> Result<MessageShape, E> {
        Ok(Self::NOT_AN_OBJECT)
    }
}

/// Whether a key inside a message is `role`.
struct RoleKey(bool);

impl<'de> de::Deserialize<'de> for RoleKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IsRole;
        impl Visitor<'_> for IsRole {
            type Value = RoleKey;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<RoleKey, E> {
                Ok(RoleKey(key == "role"))
            }
        }
        deserializer.deserialize_str(IsRole)
    }
}

/// A message's `role` value (not a string: no role).
struct RoleValue(Option<Role>);

impl<'de> de::Deserialize<'de> for RoleValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let Text(text) = Text::deserialize(deserializer)?;
        Ok(RoleValue(text.map(|role| Role::named(&role))))
    }
}

/// Any JSON value, checked as a `Value` parse would check it, and dropped. Recursion is bounded
/// by serde_json's nesting limit (the same one a `Value` parse meets).
struct Skip;

impl Skip {
    fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
        while map.next_key::<Skip>()?.is_some() {
            map.next_value::<Skip>()?;
        }
        Ok(())
    }

    fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(())
    }
}

impl<'de> de::Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Skip, A::Error> {
        Skip::drain_map(map)?;
        Ok(Skip)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Skip, A::Error> {
        Skip::drain_seq(seq)?;
        Ok(Skip)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// A line passes the scan exactly when it parses as a `Value`.
    #[test]
    fn the_scan_accepts_what_a_value_parse_accepts() {
        let deep = |depth: usize| {
            format!(
                r#"{{"type":"custom","id":"a","data":{}1{}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        let lines = [
            r#"{"type":"message","id":"a","message":{"role":"user","content":"\ud800"}}"#
                .to_owned(),
            r#"{"type":"message","id":"a","message":{"role":"user","content":"\ud83d\ude00"}}"#
                .to_owned(),
            r#"{"type":"custom","id":"a","n":1e400}"#.to_owned(),
            r#"{"type":"custom","id":"a","n":-1e-400}"#.to_owned(),
            r#"{"type":"custom","id":"a","s":"tab	inside"}"#.to_owned(),
            r#"{"type":"custom","id":"a","s":"\q"}"#.to_owned(),
            r#"{"type":"custom","id":"a"} x"#.to_owned(),
            r#"{"type":"custom","id":"a"}   "#.to_owned(),
            r#"{"type":"custom","id":"a",}"#.to_owned(),
            r#"{"type":"custom","id":"a","type":"x"}"#.to_owned(),
            "[1,2,{\"a\":null}]".to_owned(),
            "\"text\"".to_owned(),
            deep(125),
            deep(126),
            deep(127),
            deep(200),
        ];
        for line in &lines {
            let value = serde_json::from_str::<Value>(line);
            let scanned = scan(line);
            assert_eq!(scanned.is_ok(), value.is_ok(), "{line}");
            if let (Ok(scanned), Ok(value)) = (scanned, value) {
                assert_eq!(scanned, scan_value(&value), "{line}");
            }
        }
    }

    #[test]
    fn facts_are_the_last_occurrence_of_each_key() {
        let line = r#"{"type":"model_change","id":"a","provider":"p","modelId":"m","provider":1,"parentId":7}"#;
        let Scanned::Object(facts) = scan(line).unwrap() else {
            panic!("an object");
        };
        assert_eq!(facts.entry_type.as_deref(), Some("model_change"));
        assert_eq!(facts.parent_id, None);
        assert!(!facts.present.has(Present::PROVIDER));
        assert!(facts.present.has(Present::MODEL_ID));
    }

    #[test]
    fn a_message_role_is_read() {
        let line = r#"{"type":"message","id":"a","message":{"content":[{"role":"x"}],"role":"toolResult"}}"#;
        let Scanned::Object(facts) = scan(line).unwrap() else {
            panic!("an object");
        };
        assert_eq!(facts.role, Some(Role::ToolResult));
        assert!(facts.present.has(Present::MESSAGE));
    }
}
