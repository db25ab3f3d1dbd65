//! Number types besides `i64`, `u64` and `f64` as tool parameters: `i8`..`i32`, `isize`,
//! `u8`..`u32`, `usize` and `f32`.
//!
//! Each shows the model its range where the range is narrower than JSON's (`i32` gets
//! `minimum` and `maximum`, `u32` `minimum: 0` and `maximum`, `usize` `minimum: 0` as `u64`
//! does), so a model learns the limit before it sends a number that does not fit, and a
//! number that does not fit is refused with the bound it crossed, in the course's words.

use serde_json::{Map, Value};

use super::{Issue, NumberBound, ParamType, ValidationError, Validator};
use crate::model_text::{must_be, must_compare};

/// A JSON number with no fraction, as an `i128` (which holds every `i64` and `u64`); `2.0`
/// counts as whole, as in JSON Schema.
fn whole(value: &Value) -> Option<i128> {
    let number = value.as_number()?;
    if let Some(signed) = number.as_i64() {
        return Some(signed.into());
    }
    if let Some(unsigned) = number.as_u64() {
        return Some(unsigned.into());
    }
    let float = number.as_f64()?;
    // 2^64: beyond it no integer type here can hold the value anyway.
    const LIMIT: f64 = 18_446_744_073_709_551_616.0;
    let in_range = float.fract() == 0.0 && (-LIMIT..LIMIT).contains(&float);
    #[expect(
        clippy::cast_possible_truncation,
        reason = "range and fraction checked"
    )]
    in_range.then_some(float as i128)
}

/// An integer type's validator: its JSON Schema shows `minimum` / `maximum` when asked.
fn integer_in<T>(min: i128, max: i128, show_min: bool, show_max: bool) -> Validator<T>
where
    T: TryFrom<i128> + Send + Sync + 'static,
{
    let mut schema = Map::new();
    schema.insert("type".into(), "integer".into());
    if show_min {
        schema.insert("minimum".into(), bound_json(min));
    }
    if show_max {
        schema.insert("maximum".into(), bound_json(max));
    }
    Validator::new(Some(Value::Object(schema)), move |value| {
        let Some(number) = value.and_then(whole) else {
            return Err(ValidationError::single(Issue::new(
                must_be("integer"),
                value,
            )));
        };
        let crossed = if number < min {
            Some(must_compare(">=", min))
        } else if number > max {
            Some(must_compare("<=", max))
        } else {
            None
        };
        match (crossed, T::try_from(number)) {
            (None, Ok(fits)) => Ok(fits),
            (Some(message), _) => Err(ValidationError::single(Issue::new(message, value))),
            // Unreachable with the bounds of T itself; kept as a refusal, not a panic.
            (None, Err(_)) => Err(ValidationError::single(Issue::new(
                must_compare("<=", max),
                value,
            ))),
        }
    })
}

fn bound_json(bound: i128) -> Value {
    i64::try_from(bound)
        .map(Value::from)
        .or_else(|_| u64::try_from(bound).map(Value::from))
        .unwrap_or_else(|_| Value::from(bound.to_string()))
}

macro_rules! narrow_integers {
    ($($ty:ty => show_min: $show_min:expr, show_max: $show_max:expr;)*) => {$(
        impl ParamType for $ty {
            fn validator() -> Validator<Self> {
                integer_in(<$ty>::MIN as i128, <$ty>::MAX as i128, $show_min, $show_max)
            }
        }

        impl NumberBound for $ty {
            fn to_json(self) -> Value {
                self.into()
            }
        }
    )*};
}

// `isize` and `usize` are `i64` and `u64` on every target this crate builds for (64-bit), so
// they show what those show: nothing for `isize`, `minimum: 0` for `usize`.
narrow_integers! {
    i8 => show_min: true, show_max: true;
    i16 => show_min: true, show_max: true;
    i32 => show_min: true, show_max: true;
    isize => show_min: false, show_max: false;
    u8 => show_min: true, show_max: true;
    u16 => show_min: true, show_max: true;
    u32 => show_min: true, show_max: true;
    usize => show_min: true, show_max: false;
}

/// A JSON number that an `f32` holds: `{"type":"number"}`; beyond `f32`'s range it is refused
/// with the bound it crossed (it would become infinite).
fn single_precision() -> Validator<f32> {
    let max = f64::from(f32::MAX);
    Validator::new(Some(serde_json::json!({"type": "number"})), move |value| {
        let Some(number) = value.and_then(Value::as_f64) else {
            return Err(ValidationError::single(Issue::new(
                must_be("number"),
                value,
            )));
        };
        if number > max {
            return Err(ValidationError::single(Issue::new(
                must_compare("<=", f32::MAX),
                value,
            )));
        }
        if number < -max {
            return Err(ValidationError::single(Issue::new(
                must_compare(">=", -f32::MAX),
                value,
            )));
        }
        #[expect(
            clippy::cast_possible_truncation,
            reason = "range checked; precision is f32's"
        )]
        Ok(number as f32)
    })
}

impl ParamType for f32 {
    fn validator() -> Validator<Self> {
        single_precision()
    }
}

impl NumberBound for f32 {
    fn to_json(self) -> Value {
        // Through the shortest decimal that reads back as this f32 (`0.1`, not
        // `0.10000000149011612`), then shown as an f64 bound is.
        self.to_string()
            .parse::<f64>()
            .map_or_else(|_| f64::from(self).to_json(), NumberBound::to_json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(error: ValidationError) -> String {
        error.to_string()
    }

    #[test]
    fn narrow_integers_show_their_range_and_refuse_what_does_not_fit() {
        let v = i32::validator();
        assert_eq!(
            v.json_schema().unwrap(),
            &json!({"type": "integer", "minimum": -2147483648i64, "maximum": 2147483647})
        );
        assert_eq!(v.check(Some(&json!(-5))).unwrap(), -5);
        assert_eq!(v.check(Some(&json!(7.0))).unwrap(), 7);
        assert_eq!(
            text(v.check(Some(&json!(3_000_000_000u64))).unwrap_err()),
            "必须 <= 2147483647，收到 number 3000000000"
        );
        assert!(
            text(v.check(Some(&json!(1.5))).unwrap_err()).starts_with("必须是 integer"),
            "a fraction is not an integer"
        );
        let u = u8::validator();
        assert_eq!(
            u.json_schema().unwrap(),
            &json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        assert_eq!(
            text(u.check(Some(&json!(-1))).unwrap_err()),
            "必须 >= 0，收到 number -1"
        );
        assert_eq!(
            usize::validator().json_schema().unwrap(),
            &json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            isize::validator().json_schema().unwrap(),
            &json!({"type": "integer"})
        );
        assert_eq!(
            usize::validator().check(Some(&json!(u64::MAX))).unwrap(),
            usize::MAX
        );
    }

    #[test]
    fn single_precision_numbers_refuse_what_would_be_infinite() {
        let v = f32::validator();
        assert_eq!(v.check(Some(&json!(0.25))).unwrap(), 0.25);
        assert!(text(v.check(Some(&json!(1e39))).unwrap_err()).starts_with("必须 <= "));
        assert_eq!(0.1f32.to_json(), json!(0.1));
        assert_eq!(3.0f32.to_json(), json!(3));
    }
}
