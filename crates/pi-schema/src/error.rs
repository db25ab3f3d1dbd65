//! Validation errors: every violation, each with where it is, what was expected and what arrived.
//!
//! A validator never stops at the first problem of an object: a model fixes its call faster when
//! it learns about every wrong field at once. The text the model reads is rendered in
//! [`crate::model_text`], not here.

use std::fmt;

use serde_json::Value;

use crate::model_text::{Expected, Wording};

/// One step of a path into the arguments: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    /// A property of an object.
    Key(String),
    /// An element of an array.
    Index(usize),
}

/// One violation found while parsing arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    path: Vec<PathSegment>,
    expected: Expected,
    received: Received,
}

/// What arrived where a violation was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    /// The field was absent.
    Missing,
    /// A short description of the value, e.g. `number 1` or `string "abc"`.
    Value(String),
}

impl Issue {
    /// A violation at the current position: `message` says what was expected (the course writes
    /// `必须是 string`), `received` is the value found there, `None` when the field was absent.
    pub fn new(message: impl Into<Expected>, received: Option<&Value>) -> Self {
        Self {
            path: Vec::new(),
            expected: message.into(),
            received: received.map_or(Received::Missing, |value| Received::Value(describe(value))),
        }
    }

    /// Places the violation at `path` (outermost segment first).
    pub(crate) fn set_path(&mut self, path: Vec<PathSegment>) {
        self.path = path;
    }

    /// Where the violation is, outermost segment first; empty for the arguments themselves.
    pub fn path(&self) -> &[PathSegment] {
        &self.path
    }

    /// What was expected, in the course's words (the library's default wording).
    pub fn message(&self) -> String {
        self.expected.render(Wording::Course)
    }

    /// What was expected, to be rendered in either wording.
    pub fn expected(&self) -> &Expected {
        &self.expected
    }

    /// What arrived instead.
    pub fn received(&self) -> &Received {
        &self.received
    }

    /// The path in the dotted form a model reads: `edits[0].oldText`; empty at the root.
    pub fn path_string(&self) -> String {
        let mut out = String::new();
        for segment in &self.path {
            match segment {
                PathSegment::Key(key) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                PathSegment::Index(index) => {
                    out.push('[');
                    out.push_str(&index.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

/// Everything wrong with one value: at least one [`Issue`].
///
/// `Display` gives the text the model reads (see [`crate::model_text::validation_text`]).
///
/// ```
/// use pi_schema::{Schema, string};
///
/// let error = string().parse(&serde_json::json!(1)).unwrap_err();
/// assert_eq!(error.issues().len(), 1);
/// assert_eq!(error.issues()[0].message(), "必须是 string");
/// // At the root there is no field name to go by, so the text says what arrived.
/// assert_eq!(error.to_string(), "必须是 string，收到 number 1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    issues: Vec<Issue>,
    /// Whether the object schema that found these declares exactly one property: the course's
    /// bare text (`必须是 string`) is kept for that shape only.
    sole_property: bool,
}

impl ValidationError {
    /// An error holding one issue.
    pub fn single(issue: Issue) -> Self {
        Self {
            issues: vec![issue],
            sole_property: false,
        }
    }

    /// An error from several issues; `None` when there are none.
    pub fn from_issues(issues: Vec<Issue>) -> Option<Self> {
        (!issues.is_empty()).then_some(Self {
            issues,
            sole_property: false,
        })
    }

    /// The violations, in the order they were found (declaration order for objects).
    pub fn issues(&self) -> &[Issue] {
        &self.issues
    }

    /// The violations, taken out of the error.
    pub fn into_issues(self) -> Vec<Issue> {
        self.issues
    }

    /// Moves every issue one level down, under `segment` (used by objects and arrays).
    pub fn under(mut self, segment: PathSegment) -> Self {
        // The last issue takes the segment itself: one issue (the usual case) clones nothing.
        if let Some((last, others)) = self.issues.split_last_mut() {
            for issue in others {
                issue.path.insert(0, segment.clone());
            }
            last.path.insert(0, segment);
        }
        self
    }

    /// Marks these as found by an object schema that declares `properties` properties at the
    /// top level (see [`crate::model_text::validation_text`] for why that matters).
    #[must_use]
    pub fn in_object_declaring(mut self, properties: usize) -> Self {
        self.sole_property = properties == 1;
        self
    }

    /// Whether the object schema that found these declares exactly one property.
    pub fn from_sole_property(&self) -> bool {
        self.sole_property
    }

    /// Adds the issues of `other` after these.
    pub fn extend(&mut self, other: ValidationError) {
        self.issues.extend(other.issues);
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::model_text::validation_text(self))
    }
}

impl std::error::Error for ValidationError {}

/// Longest string excerpt quoted back to the model.
const EXCERPT_CHARS: usize = 40;

/// A short, bounded description of a JSON value: its JSON type and, for scalars, the value.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => {
            let mut excerpt: String = s.chars().take(EXCERPT_CHARS).collect();
            if excerpt.len() < s.len() {
                excerpt.push('…');
            }
            format!("string {}", Value::String(excerpt))
        }
        Value::Array(items) if items.len() == 1 => "array of 1 item".to_owned(),
        Value::Array(items) => format!("array of {} items", items.len()),
        Value::Object(_) => "object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_render_with_dots_and_brackets() {
        let error = ValidationError::single(Issue::new("必须是 string", Some(&json!(1))))
            .under(PathSegment::Key("oldText".into()))
            .under(PathSegment::Index(0))
            .under(PathSegment::Key("edits".into()));
        assert_eq!(error.issues()[0].path_string(), "edits[0].oldText");
    }

    #[test]
    fn descriptions_are_short_and_typed() {
        assert_eq!(describe(&json!(1)), "number 1");
        assert_eq!(describe(&json!(null)), "null");
        assert_eq!(describe(&json!([1, 2])), "array of 2 items");
        assert_eq!(describe(&json!({"a": 1})), "object");
        assert_eq!(describe(&json!("a\"b")), r#"string "a\"b""#);
        let long = "é".repeat(100);
        let described = describe(&json!(long));
        assert_eq!(
            described.chars().count(),
            "string \"\"…".chars().count() + 40
        );
    }

    #[test]
    fn no_issues_is_no_error() {
        assert!(ValidationError::from_issues(Vec::new()).is_none());
    }
}
