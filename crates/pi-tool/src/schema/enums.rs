//! String enums as Rust enums: [`enum_schema!`](crate::enum_schema) declares the enum and the
//! JSON names of its variants at once; [`enum_value`] is its validator.

use serde_json::{Value, json};

use super::error::{Issue, ValidationError};
use super::validator::Validator;
use crate::model_text::must_be_one_of;

/// A Rust enum whose variants travel as JSON strings. Implemented by
/// [`enum_schema!`](crate::enum_schema); write it by hand only for an enum that macro cannot
/// declare.
pub trait StringEnum: Sized + Send + Sync + 'static {
    /// The JSON names of the variants, in declaration order.
    const NAMES: &'static [&'static str];

    /// The variant named `name`, if any.
    fn from_name(name: &str) -> Option<Self>;

    /// This variant's JSON name.
    fn name(&self) -> &'static str;
}

/// One of the variants of `E`, by JSON name: `{"type":"string","enum":[...]}`. Fails with the
/// same message as [`string_enum`](crate::string_enum).
///
/// ```
/// use pi_tool::{enum_schema, enum_value};
/// use serde_json::json;
///
/// enum_schema! {
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Mode { Fast = "fast", Safe = "safe" }
/// }
///
/// let mode = enum_value::<Mode>();
/// assert_eq!(mode.check(Some(&json!("safe"))).unwrap(), Mode::Safe);
/// assert_eq!(mode.json_schema().unwrap(), &json!({"type": "string", "enum": ["fast", "safe"]}));
/// assert_eq!(
///     mode.check(Some(&json!("slow"))).unwrap_err().issues()[0].message(),
///     r#"必须是以下之一："fast", "safe""#
/// );
/// ```
pub fn enum_value<E: StringEnum>() -> Validator<E> {
    let listed: Vec<Value> = E::NAMES.iter().map(|name| json!(name)).collect();
    let message = must_be_one_of(&listed);
    Validator::new(
        Some(json!({"type": "string", "enum": listed})),
        move |value| match value.and_then(Value::as_str).and_then(E::from_name) {
            Some(variant) => Ok(variant),
            None => Err(ValidationError::single(Issue::new(message.clone(), value))),
        },
    )
    // A variant serde built is a declared one by construction.
    .with_typed_check(|_| true)
}

/// Declares a Rust enum of unit variants with the JSON string each travels as, and implements
/// [`StringEnum`], `serde::Serialize` and a `serde::Deserialize` that accepts exactly the
/// declared names (so the enum can be a field of an [`object_schema!`](crate::object_schema)
/// struct, checked by [`enum_value`]).
///
/// ```
/// use pi_tool::{ObjectParams, Schema, enum_schema, enum_value, object_schema, string_value};
/// use serde_json::json;
///
/// enum_schema! {
///     /// How a search matches.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum MatchMode {
///         Literal = "literal",
///         Regex = "regex",
///     }
/// }
///
/// object_schema! {
///     #[derive(Debug, PartialEq)]
///     pub struct Search {
///         pub pattern: String = string_value(),
///         pub mode: MatchMode = enum_value::<MatchMode>(),
///     }
/// }
///
/// let parsed = Search::object_schema().parse(&json!({"pattern": "fn", "mode": "regex"})).unwrap();
/// assert_eq!(parsed.mode, MatchMode::Regex);
/// assert_eq!(serde_json::to_value(MatchMode::Literal).unwrap(), json!("literal"));
/// ```
#[macro_export]
macro_rules! enum_schema {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$variant_attr:meta])*
                $variant:ident = $json:literal
            ),+ $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $(
                $(#[$variant_attr])*
                $variant,
            )+
        }

        impl $crate::StringEnum for $name {
            const NAMES: &'static [&'static str] = &[$($json),+];

            fn from_name(name: &str) -> ::std::option::Option<Self> {
                #[allow(unreachable_patterns)]
                match name {
                    $( $json => ::std::option::Option::Some(Self::$variant), )+
                    _ => ::std::option::Option::None,
                }
            }

            fn name(&self) -> &'static str {
                match self {
                    $( Self::$variant => $json, )+
                }
            }
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error>
            where
                S: $crate::__private::serde::Serializer,
            {
                serializer.serialize_str($crate::StringEnum::name(self))
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: $crate::__private::serde::Deserializer<'de>,
            {
                struct __PiToolEnumVisitor;

                impl<'de> $crate::__private::serde::de::Visitor<'de> for __PiToolEnumVisitor {
                    type Value = $name;

                    fn expecting(
                        &self,
                        formatter: &mut ::std::fmt::Formatter<'_>,
                    ) -> ::std::fmt::Result {
                        formatter.write_str(::std::stringify!($name))
                    }

                    fn visit_str<E>(self, name: &str) -> ::std::result::Result<$name, E>
                    where
                        E: $crate::__private::serde::de::Error,
                    {
                        <$name as $crate::StringEnum>::from_name(name).ok_or_else(|| {
                            E::unknown_variant(name, <$name as $crate::StringEnum>::NAMES)
                        })
                    }
                }

                deserializer.deserialize_str(__PiToolEnumVisitor)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ObjectParams, Schema, object_schema, optional};

    crate::enum_schema! {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Team {
            Core = "core",
            /// Variant docs are allowed.
            Machine = "ml",
        }
    }

    object_schema! {
        #[derive(Debug, PartialEq)]
        struct Member {
            team: Team = enum_value::<Team>(),
            backup: Option<Team> = optional(enum_value::<Team>()),
        }
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(Team::NAMES, ["core", "ml"]);
        assert_eq!(Team::from_name("ml"), Some(Team::Machine));
        assert_eq!(Team::from_name("ML"), None);
        assert_eq!(Team::Machine.name(), "ml");
        assert_eq!(
            serde_json::to_string(&Team::Core).ok().as_deref(),
            Some("\"core\"")
        );
        let parsed: Result<Team, _> = serde_json::from_str("\"ml\"");
        assert_eq!(parsed.ok(), Some(Team::Machine));
        let unknown: Result<Team, _> = serde_json::from_str("\"web\"");
        assert!(unknown.is_err());
    }

    #[test]
    fn the_json_path_and_the_text_path_agree() {
        let schema = Member::object_schema();
        for (text, expected) in [
            (
                r#"{"team":"ml"}"#,
                Some(Member {
                    team: Team::Machine,
                    backup: None,
                }),
            ),
            (
                r#"{"team":"core","backup":"ml","x":1}"#,
                Some(Member {
                    team: Team::Core,
                    backup: Some(Team::Machine),
                }),
            ),
            (r#"{"team":"web"}"#, None),
            (r#"{"team":"core","backup":null}"#, None),
            (r#"{"team":1}"#, None),
            (r#"{}"#, None),
        ] {
            let value: Value = serde_json::from_str(text).unwrap_or_default();
            assert_eq!(schema.parse(&value).ok(), expected, "{text}");
            assert_eq!(schema.parse_text(text), expected, "{text}");
        }
        let error = schema.parse(&json!({"team": "web"})).unwrap_err();
        assert_eq!(error.issues()[0].path_string(), "team");
    }
}
