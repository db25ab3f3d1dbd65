//! The end of a listing tool's text: Pi's closing notices (`[a. b]`) and the details that go
//! with them.

use pi_tool::ToolOutput;
use serde_json::{Map, Value, json};

use crate::truncate::{DEFAULT_MAX_BYTES, Truncation, format_size, truncate_head};

/// Notices and details gathered while a tool cuts its output.
#[derive(Default)]
pub(crate) struct Report {
    notices: Vec<String>,
    details: Map<String, Value>,
}

impl Report {
    /// A notice, with the detail `key: value` that says the same to a program.
    pub(crate) fn note(&mut self, notice: String, key: &str, value: Value) {
        self.notices.push(notice);
        self.details.insert(key.to_owned(), value);
    }

    /// `lines` joined, cut to Pi's byte limit (and said so).
    pub(crate) fn cut(&mut self, lines: &[String]) -> String {
        let cut: Truncation = truncate_head(&lines.join("\n"), usize::MAX, DEFAULT_MAX_BYTES);
        if cut.truncated {
            self.note(
                format!("{} limit reached", format_size(DEFAULT_MAX_BYTES)),
                "truncation",
                json!(cut),
            );
        }
        cut.content
    }

    /// The result: `text` and the notices after it, the details beside it.
    pub(crate) fn finish(self, mut text: String) -> ToolOutput {
        if !self.notices.is_empty() {
            text.push_str(&format!("\n\n[{}]", self.notices.join(". ")));
        }
        let output = ToolOutput::text(text);
        if self.details.is_empty() {
            output
        } else {
            output.with_details(Value::Object(self.details))
        }
    }
}
