//! The runtime of `#[derive(ToolParams)]`: which validator each field type starts from.

use super::{Validator, array, boolean, integer, non_negative_integer, number, optional, string};

/// A type a `#[derive(ToolParams)]` field can have: `String`, `bool`, every integer type
/// (`i8`..`i64`, `isize`, `u8`..`u64`, `usize`), `f32`, `f64`, `Option<T>`, `Vec<T>`,
/// `HashMap<String, T>` and `BTreeMap<String, T>`, `serde_json::Value`, and every type that
/// itself derives `ToolParams` (a nested object, or a string enum).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    note = "use String, bool, an integer type, f32, f64, Option<T>, Vec<T>, HashMap<String, T>, BTreeMap<String, T>, serde_json::Value, or a type that derives ToolParams"
)]
pub trait ParamType: Sized + Send + Sync + 'static {
    /// The validator of a field of this type before any `#[param(...)]` constraint.
    fn validator() -> Validator<Self>;
}

macro_rules! scalar_param {
    ($($ty:ty => $validator:expr),* $(,)?) => {$(
        impl ParamType for $ty {
            fn validator() -> Validator<Self> {
                $validator
            }
        }
    )*};
}

scalar_param! {
    String => string(),
    bool => boolean(),
    i64 => integer(),
    u64 => non_negative_integer(),
    f64 => number(),
}

impl<T: ParamType> ParamType for Option<T> {
    fn validator() -> Validator<Self> {
        optional(T::validator())
    }
}

impl<T: ParamType> ParamType for Vec<T> {
    fn validator() -> Validator<Self> {
        array(T::validator())
    }
}

/// `#[param(one_of = [...])]`: a string field that takes only these values.
#[doc(hidden)]
pub fn one_of<T: OneOf>(names: &[&str]) -> Validator<T> {
    T::one_of(names)
}

/// Field types `one_of` applies to.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "#[param(one_of = ...)] takes a String field, not `{Self}`"
)]
pub trait OneOf: Sized {
    /// The validator.
    fn one_of(names: &[&str]) -> Validator<Self>;
}

impl OneOf for String {
    fn one_of(names: &[&str]) -> Validator<Self> {
        super::string_enum(names.iter().copied())
    }
}

/// `#[param(pattern = "...")]`. The derive has checked the pattern with the `regex` crate's own
/// parser; should the engine still refuse it, the field refuses every value and says why,
/// rather than dropping the rule.
#[doc(hidden)]
pub fn pattern(validator: Validator<String>, pattern: &str) -> Validator<String> {
    match validator.clone().pattern(pattern) {
        Ok(checked) => checked,
        Err(_) => {
            let message = format!("the pattern {pattern:?} of this field does not compile");
            validator.refine("pattern", serde_json::json!(pattern), move |_| {
                Some(message.clone())
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_of_is_the_string_enum() {
        let mode = one_of::<String>(&["fast", "safe"]);
        assert_eq!(
            mode.json_schema().cloned(),
            Some(json!({"type": "string", "enum": ["fast", "safe"]}))
        );
    }
}
