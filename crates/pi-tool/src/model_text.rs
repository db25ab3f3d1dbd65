//! Every text a model reads about a failed call is produced here, and only here.
//!
//! The spec pins the basic texts (`Tool echo failed: 必须是 string`, `未知工具`); this module
//! keeps them exact and writes the rest in the same voice: which field, what was expected, what
//! arrived, so that the model can fix its call in one go.

use crate::schema::{Issue, Received, ValidationError};

/// The reason given when the requested tool is not in the registry.
pub const UNKNOWN_TOOL: &str = "未知工具";

/// The text of a failed call: `Tool <name> failed: <reason>`; `Tool call failed: <reason>`
/// when the call named no tool at all (a malformed call).
///
/// ```
/// use pi_tool::model_text::failure_text;
///
/// assert_eq!(failure_text("echo", "exploded"), "Tool echo failed: exploded");
/// assert_eq!(failure_text("", "not JSON"), "Tool call failed: not JSON");
/// ```
pub fn failure_text(tool_name: &str, reason: &str) -> String {
    if tool_name.is_empty() {
        format!("Tool call failed: {reason}")
    } else {
        format!("Tool {tool_name} failed: {reason}")
    }
}

/// What a value must be: `必须是 <what>`, the spec's wording.
pub fn must_be(what: &str) -> String {
    format!("必须是 {what}")
}

/// `必须 >= 1`, `必须 < 10`: a bound on a number.
pub fn must_compare(operator: &str, limit: impl std::fmt::Display) -> String {
    format!("必须 {operator} {limit}")
}

/// `长度必须 >= 3`: a bound on a string's length in characters.
pub fn length_must_compare(operator: &str, limit: impl std::fmt::Display) -> String {
    format!("长度必须 {operator} {limit}")
}

/// `项数必须 >= 1`: a bound on an array's length.
pub fn items_must_compare(operator: &str, limit: impl std::fmt::Display) -> String {
    format!("项数必须 {operator} {limit}")
}

/// `必须匹配 pattern ^a`.
pub fn must_match(pattern: &str) -> String {
    format!("必须匹配 pattern {pattern}")
}

/// `必须是以下之一："a", "b"`: an enum; `options` are JSON values.
pub fn must_be_one_of<'a>(options: impl IntoIterator<Item = &'a serde_json::Value>) -> String {
    let listed: Vec<String> = options.into_iter().map(ToString::to_string).collect();
    format!("必须是以下之一：{}", listed.join(", "))
}

/// `必须等于 "x"`: a constant.
pub fn must_equal(value: &serde_json::Value) -> String {
    format!("必须等于 {value}")
}

/// A required field whose type is unknown is simply required.
pub const REQUIRED: &str = "必须提供";

/// The arguments (or a recursive schema) nest deeper than the limit.
pub fn too_deep(limit: usize) -> String {
    format!("嵌套不能超过 {limit} 层")
}

/// Arguments whose raw text is not JSON at all.
pub fn invalid_json(error: &serde_json::Error) -> String {
    format!("参数不是有效的 JSON：{error}")
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

/// Renders a validation error for the model.
///
/// One issue at the only field of a one-field schema reads exactly as the spec writes it
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
        [only] if only.path().len() == 1 && error.from_sole_property() => only.message().to_owned(),
        [only] => {
            let mut text = String::new();
            write_issue_line(&mut text, only);
            text
        }
        issues => {
            let mut text = format!("参数有 {} 处错误：", issues.len());
            for issue in issues {
                text.push_str("\n- ");
                write_issue_line(&mut text, issue);
            }
            text
        }
    }
}

/// `path: message，收到 value` (or `，但缺失`), written onto `text`: one buffer for the whole
/// report rather than a string per part.
fn write_issue_line(text: &mut String, issue: &Issue) {
    let path = issue.path_string();
    if !path.is_empty() {
        text.push_str(&path);
        text.push_str(": ");
    }
    text.push_str(issue.message());
    match issue.received() {
        Received::Missing => text.push_str("，但缺失"),
        Received::Value(description) => {
            text.push_str("，收到 ");
            text.push_str(description);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::PathSegment;
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
