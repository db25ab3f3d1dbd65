//! A key that is never printed: `Debug` and `Display` show a mask, so a key held in a struct
//! that is logged, traced or put into an error message does not leak.

use std::fmt;

/// An API key or another credential value. The only way to read it is [`Secret::expose`],
/// which a wire calls when it builds the request.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself, for the request header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the value is empty (an empty key counts as none, as in Pi).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Read from a JSON string (a models.json `apiKey` or header value).
impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neither_debug_nor_display_shows_the_value() {
        let secret = Secret::new("sk-live-123");
        assert_eq!(format!("{secret:?}"), "Secret(***)");
        assert_eq!(format!("{secret}"), "***");
        assert_eq!(
            format!("{:?}", Some(vec![secret.clone()])),
            "Some([Secret(***)])"
        );
        assert_eq!(secret.expose(), "sk-live-123");
    }
}
