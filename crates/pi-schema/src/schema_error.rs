//! Errors in a schema itself, found when it is built or registered, never at call time.

/// A schema that cannot be used: found when it is built, so that no model call ever meets it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// A `pattern` the regex engine cannot express (ECMA look-around, back-references).
    #[error("pattern {pattern:?} cannot be used")]
    Pattern {
        /// The pattern as written.
        pattern: String,
        /// What the regex engine said.
        #[source]
        source: regex::Error,
    },
    /// A JSON Schema that does not compile (bad keyword values, unresolvable `$ref`).
    #[error("invalid JSON Schema at {location}: {reason}")]
    InvalidJsonSchema {
        /// Where in the schema, as a JSON pointer (`/properties/limit/minimum`); empty at the root.
        location: String,
        /// What is wrong.
        reason: String,
    },
}
