//! Every text a model reads about a failed call is produced here, and only here.
//!
//! The course pins the basic texts (`Tool echo failed: 必须是 string`, `未知工具`); this module
//! keeps them exact and writes the rest in the same voice: which field, what was expected, what
//! arrived, so that the model can fix its call in one go.

use crate::{Issue, Received, ValidationError};

/// The reason given when the requested tool is not in the registry.
pub const UNKNOWN_TOOL: &str = "未知工具";

/// The text of a failed call: `Tool <name> failed: <reason>`; `Tool call failed: <reason>`
/// when the call named no tool at all (a malformed call).
///
/// ```
/// use pi_schema::model_text::failure_text;
///
/// assert_eq!(failure_text("echo", "exploded"), "Tool echo failed: exploded");
/// assert_eq!(failure_text("", "not JSON"), "Tool call failed: not JSON");
/// ```
pub fn failure_text(tool_name: &str, reason: &str) -> String {
    // Pushed into a buffer sized once: `format!` grows its buffer as it goes, and a refusal's
    // reason may be a long report.
    let mut text = String::with_capacity(tool_name.len() + reason.len() + 20);
    if tool_name.is_empty() {
        text.push_str("Tool call failed: ");
    } else {
        text.push_str("Tool ");
        text.push_str(tool_name);
        text.push_str(" failed: ");
    }
    text.push_str(reason);
    text
}

/// Which words the model reads about a failed call.
///
/// The library's default is the course's (Chinese) texts, which the course's examples pin
/// (`Tool echo failed: 必须是 string`, `未知工具`); [`Wording::Pi`] is upstream Pi's English
/// (`Tool read not found`, `Validation failed for tool "read":` with one line per violation and
/// the arguments received), what a model prompted in English should read. A registry carries
/// its wording (`pi_tool::ToolRegistry::with_wording`) and every failure it answers uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Wording {
    /// The course's texts, as its examples write them (Chinese).
    #[default]
    Course,
    /// Upstream Pi's texts (English).
    Pi,
}

/// What a value was expected to be, as a validator found it: rendered in either wording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// Of this JSON type (`string`), or one of these types (`["string", "null"]`).
    Type(Vec<String>),
    /// A whole number at least this (a `u64` field with a lower bound).
    IntegerAtLeast(u64),
    /// A number in this relation (`>=`, `<=`, `>`, `<`) to the limit.
    Compare {
        /// The relation.
        operator: &'static str,
        /// The limit, as written in the schema.
        limit: String,
    },
    /// A string whose length in characters is in this relation to the limit.
    Length {
        /// The relation.
        operator: &'static str,
        /// The limit.
        limit: String,
    },
    /// An array whose number of items is in this relation to the limit.
    Items {
        /// The relation.
        operator: &'static str,
        /// The limit.
        limit: String,
    },
    /// A string matching this pattern.
    Pattern(String),
    /// One of these values.
    OneOf(Vec<serde_json::Value>),
    /// Exactly this value.
    Equal(serde_json::Value),
    /// Present (its type unknown).
    Required,
    /// Nested no deeper than this many levels.
    NestedAtMost(usize),
    /// A rule of the tool's own, in its own words (the same in every wording).
    Other(String),
}

impl Expected {
    /// The text in `wording`.
    pub fn render(&self, wording: Wording) -> String {
        match wording {
            Wording::Course => self.course(),
            Wording::Pi => self.english(),
        }
    }

    fn course(&self) -> String {
        let mut text = String::new();
        self.write_course(&mut text);
        text
    }

    /// The course's words, written onto `text` (a report is one buffer, not a string per part).
    fn write_course(&self, text: &mut String) {
        use std::fmt::Write as _;
        // Writing to a `String` cannot fail.
        let _ = match self {
            Self::Type(types) => {
                text.push_str("必须是 ");
                for (index, name) in types.iter().enumerate() {
                    if index > 0 {
                        text.push_str(" 或 ");
                    }
                    text.push_str(name);
                }
                Ok(())
            }
            Self::IntegerAtLeast(minimum) => write!(text, "必须是 integer 且 >= {minimum}"),
            Self::Compare { operator, limit } => write!(text, "必须 {operator} {limit}"),
            Self::Length { operator, limit } => write!(text, "长度必须 {operator} {limit}"),
            Self::Items { operator, limit } => write!(text, "项数必须 {operator} {limit}"),
            Self::Pattern(pattern) => write!(text, "必须匹配 pattern {pattern}"),
            Self::OneOf(options) => write!(text, "必须是以下之一：{}", listed(options)),
            Self::Equal(value) => write!(text, "必须等于 {value}"),
            Self::Required => {
                text.push_str("必须提供");
                Ok(())
            }
            Self::NestedAtMost(limit) => write!(text, "嵌套不能超过 {limit} 层"),
            Self::Other(other) => {
                text.push_str(other);
                Ok(())
            }
        };
    }

    fn english(&self) -> String {
        match self {
            Self::Type(types) => format!("must be {}", types.join(" or ")),
            Self::IntegerAtLeast(minimum) => format!("must be an integer >= {minimum}"),
            Self::Compare { operator, limit } => format!("must be {operator} {limit}"),
            Self::Length { operator, limit } => {
                format!("must have {operator} {limit} characters")
            }
            Self::Items { operator, limit } => format!("must have {operator} {limit} items"),
            Self::Pattern(pattern) => format!("must match pattern \"{pattern}\""),
            Self::OneOf(options) => format!("must be one of: {}", listed(options)),
            Self::Equal(value) => format!("must be equal to {value}"),
            Self::Required => "is required".to_owned(),
            Self::NestedAtMost(limit) => format!("must not nest deeper than {limit} levels"),
            Self::Other(text) => text.clone(),
        }
    }
}

fn listed(options: &[serde_json::Value]) -> String {
    let listed: Vec<String> = options.iter().map(ToString::to_string).collect();
    listed.join(", ")
}

impl From<String> for Expected {
    fn from(text: String) -> Self {
        Self::Other(text)
    }
}

impl From<&str> for Expected {
    fn from(text: &str) -> Self {
        Self::Other(text.to_owned())
    }
}

impl std::fmt::Display for Expected {
    /// The course's wording (the library's default).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.course())
    }
}

/// What a value must be: `必须是 <what>`, the course's wording.
pub fn must_be(what: &str) -> Expected {
    Expected::Type(vec![what.to_owned()])
}

/// `必须 >= 1`, `必须 < 10`: a bound on a number.
pub fn must_compare(operator: &'static str, limit: impl std::fmt::Display) -> Expected {
    Expected::Compare {
        operator,
        limit: limit.to_string(),
    }
}

/// `长度必须 >= 3`: a bound on a string's length in characters.
pub fn length_must_compare(operator: &'static str, limit: impl std::fmt::Display) -> Expected {
    Expected::Length {
        operator,
        limit: limit.to_string(),
    }
}

/// `项数必须 >= 1`: a bound on an array's length.
pub fn items_must_compare(operator: &'static str, limit: impl std::fmt::Display) -> Expected {
    Expected::Items {
        operator,
        limit: limit.to_string(),
    }
}

/// `必须匹配 pattern ^a`.
pub fn must_match(pattern: &str) -> Expected {
    Expected::Pattern(pattern.to_owned())
}

/// `必须是以下之一："a", "b"`: an enum; `options` are JSON values.
pub fn must_be_one_of<'a>(options: impl IntoIterator<Item = &'a serde_json::Value>) -> Expected {
    Expected::OneOf(options.into_iter().cloned().collect())
}

/// `必须等于 "x"`: a constant.
pub fn must_equal(value: &serde_json::Value) -> Expected {
    Expected::Equal(value.clone())
}

/// A required field whose type is unknown is simply required.
pub const REQUIRED: Expected = Expected::Required;

/// The arguments (or a recursive schema) nest deeper than the limit.
pub fn too_deep(limit: usize) -> Expected {
    Expected::NestedAtMost(limit)
}

/// A call that never ran, or was stopped, because the run was cancelled.
pub const ABORTED: &str = "调用已中止：运行被取消";

/// A call stopped by its time limit.
pub fn timed_out(limit: std::time::Duration) -> String {
    format!("调用超时：{} 秒内未完成", limit.as_secs_f64())
}

/// A call a hook blocked without giving a reason.
pub const BLOCKED: &str = "Tool execution was blocked";

/// A call from a response cut off by the output token limit: upstream Pi's own words.
pub fn truncated_call(tool_name: &str) -> String {
    format!(
        "Tool call \"{tool_name}\" was not executed: the response hit the output token limit, \
         so its arguments may be truncated. Re-issue the tool call with complete arguments."
    )
}

/// A call beyond the number one response may make.
pub fn too_many_calls(limit: usize) -> String {
    format!(
        "Tool call was not executed: one response may make at most {limit} tool calls. \
         Make the remaining calls in your next response."
    )
}

/// A `before_tool_call` hook that failed (panicked): the call is blocked.
pub fn hook_failed(message: &str) -> String {
    format!("before_tool_call hook failed: {message}")
}

/// The reason given when a tool panicked without a readable message.
pub const PANIC_WITHOUT_MESSAGE: &str = "工具执行时崩溃 (panic)";

/// Renders a validation error for the model in the course's wording (what
/// `ValidationError`'s `Display` gives).
///
/// One issue at the only field of a one-field schema reads exactly as the course writes it
/// (`必须是 string`: echo's `value`). Any other shape (a schema with several fields, the
/// arguments themselves wrong, a nested field, several issues) names each place, what it must
/// be and what arrived, or that it is missing:
///
/// ```text
/// 参数有 2 处错误：
/// - value: 必须是 string，收到 number 1
/// - limit: 必须是 integer 且 >= 1，但缺失
/// ```
pub fn validation_text(error: &ValidationError) -> String {
    match error.issues() {
        [only] if only.path().len() == 1 && error.from_sole_property() => only.message(),
        [only] => {
            let mut text = String::with_capacity(LINE_CAPACITY);
            write_issue_line(&mut text, only);
            text
        }
        issues => {
            // Sized once for the usual report: growing a string copies it each time.
            let mut text = String::with_capacity(LINE_CAPACITY * (issues.len() + 1));
            text.push_str("参数有 ");
            text.push_str(&issues.len().to_string());
            text.push_str(" 处错误：");
            for issue in issues {
                text.push_str("\n- ");
                write_issue_line(&mut text, issue);
            }
            text
        }
    }
}

/// Room for one usual report line (path, rule, the value received: excerpts are bounded).
const LINE_CAPACITY: usize = 128;

/// `path: message，收到 value` (or `，但缺失`), written onto `text`: one buffer for the whole
/// report rather than a string per part.
fn write_issue_line(text: &mut String, issue: &Issue) {
    let path = issue.path_string();
    if !path.is_empty() {
        text.push_str(&path);
        text.push_str(": ");
    }
    issue.expected().write_course(text);
    match issue.received() {
        Received::Missing => text.push_str("，但缺失"),
        Received::Value(description) => {
            text.push_str("，收到 ");
            text.push_str(description);
        }
    }
}

/// The text of a call refused for invalid arguments, in `wording`. The course's:
/// `Tool <name> failed: <validation_text>`; Pi's: a header, one line per violation, and the
/// arguments received (made by `arguments` only for Pi's wording):
///
/// ```text
/// Validation failed for tool "read":
///   - path: must be string, but is missing
///   - limit: must be an integer >= 1, received string "ten"
///
/// Received arguments:
/// {
///   "limit": "ten"
/// }
/// ```
pub fn invalid_arguments_text(
    wording: Wording,
    tool_name: &str,
    error: &ValidationError,
    arguments: impl FnOnce() -> String,
) -> String {
    match wording {
        Wording::Course => failure_text(tool_name, &validation_text(error)),
        Wording::Pi => {
            let mut text = format!("Validation failed for tool \"{tool_name}\":");
            for issue in error.issues() {
                let path = issue.path_string();
                let path = if path.is_empty() { "root" } else { &path };
                text.push_str(&format!(
                    "\n  - {path}: {}",
                    issue.expected().render(Wording::Pi)
                ));
                match issue.received() {
                    Received::Missing => text.push_str(", but is missing"),
                    Received::Value(description) => {
                        text.push_str(", received ");
                        text.push_str(description);
                    }
                }
            }
            text.push_str("\n\nReceived arguments:\n");
            text.push_str(&arguments());
            text
        }
    }
}

/// The text of a failed call in `wording`: the course's `Tool <name> failed: <reason>`
/// ([`failure_text`]); Pi's gives the reason alone, as its loop reports a thrown error.
pub fn failure_text_in(wording: Wording, tool_name: &str, reason: &str) -> String {
    match wording {
        Wording::Course => failure_text(tool_name, reason),
        Wording::Pi => reason.to_owned(),
    }
}

/// Why a call was refused when its tool is not in the registry: the course's `未知工具`
/// (shown as `Tool <name> failed: 未知工具`), Pi's `Tool <name> not found`.
pub fn unknown_tool(wording: Wording, tool_name: &str) -> String {
    match wording {
        Wording::Course => UNKNOWN_TOOL.to_owned(),
        Wording::Pi => format!("Tool {tool_name} not found"),
    }
}

/// Why a call never ran, or was stopped, because the run was cancelled.
pub fn aborted(wording: Wording) -> &'static str {
    match wording {
        Wording::Course => ABORTED,
        Wording::Pi => "Operation aborted",
    }
}

/// Why a call was stopped by its time limit.
pub fn timed_out_in(wording: Wording, limit: std::time::Duration) -> String {
    match wording {
        Wording::Course => timed_out(limit),
        Wording::Pi => format!(
            "Tool call timed out: it did not finish within {} seconds",
            limit.as_secs_f64()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PathSegment;
    use serde_json::json;

    fn at(key: &str, issue: Issue) -> ValidationError {
        ValidationError::single(issue).under(PathSegment::Key(key.into()))
    }

    #[test]
    fn the_only_field_of_a_one_field_schema_keeps_the_spec_text() {
        let error = at("value", Issue::new(must_be("string"), Some(&json!(1))));
        assert_eq!(
            validation_text(&error.clone().in_object_declaring(1)),
            "必须是 string"
        );
        assert_eq!(
            validation_text(&error.in_object_declaring(3)),
            "value: 必须是 string，收到 number 1"
        );
        let missing = at("a", Issue::new(must_be("number"), None)).in_object_declaring(2);
        assert_eq!(validation_text(&missing), "a: 必须是 number，但缺失");
    }

    #[test]
    fn the_arguments_themselves_say_what_arrived() {
        let error = ValidationError::single(Issue::new(must_be("object"), Some(&json!([1]))));
        assert_eq!(
            validation_text(&error),
            "必须是 object，收到 array of 1 item"
        );
    }

    #[test]
    fn several_fields_are_listed_with_paths() {
        let mut error = at("value", Issue::new(must_be("string"), Some(&json!(1))));
        error.extend(at("limit", Issue::new("必须是 integer 且 >= 1", None)));
        assert_eq!(
            validation_text(&error),
            "参数有 2 处错误：\n- value: 必须是 string，收到 number 1\n- limit: 必须是 integer 且 >= 1，但缺失"
        );
    }
}
