//! The paired failure results: what a call answers when it cannot succeed (unknown tool,
//! invalid arguments, a tool's error or panic). Every text comes from [`crate::model_text`].

use std::any::Any;

use arcstr::ArcStr;
use serde_json::{Value, json};

use crate::model_text::{
    PANIC_WITHOUT_MESSAGE, Wording, failure_text_in, invalid_arguments_text, validation_text,
};
use crate::schema::ValidationError;
use crate::{ToolCall, ToolResultMessage, now_millis, text};

/// The paired failure for `call` in the course's wording: content
/// `Tool <name> failed: <reason>`, details `{"error": reason}`, `isError: true`.
pub fn failed_result(call: &ToolCall, reason: &str) -> ToolResultMessage {
    failed_result_in(Wording::Course, call, reason)
}

/// The paired failure for `call` in `wording` (see [`crate::model_text::failure_text_in`]).
pub fn failed_result_in(wording: Wording, call: &ToolCall, reason: &str) -> ToolResultMessage {
    failure_message(call.id.clone(), call.name.clone(), wording, reason)
}

/// [`failed_result_in`] from an id and a name already owned.
pub(crate) fn failure_message(
    id: ArcStr,
    name: ArcStr,
    wording: Wording,
    reason: &str,
) -> ToolResultMessage {
    let content = failure_text_in(wording, &name, reason);
    message_of(id, name, content, reason.to_owned())
}

/// The paired refusal of invalid arguments; `arguments` renders what arrived (for Pi's words).
pub(crate) fn invalid_message(
    id: ArcStr,
    name: ArcStr,
    wording: Wording,
    invalid: &ValidationError,
    arguments: impl FnOnce() -> String,
) -> ToolResultMessage {
    match wording {
        // The report is rendered once: it is both the reason and the content's tail.
        Wording::Course => {
            let reason = validation_text(invalid);
            let content = failure_text_in(wording, &name, &reason);
            message_of(id, name, content, reason)
        }
        Wording::Pi => {
            let content = invalid_arguments_text(wording, &name, invalid, arguments);
            message_of(id, name, content.clone(), content)
        }
    }
}

fn message_of(id: ArcStr, name: ArcStr, content: String, reason: String) -> ToolResultMessage {
    ToolResultMessage {
        content: vec![text(content)],
        tool_call_id: id,
        tool_name: name,
        details: Some(json!({ "error": reason })),
        is_error: true,
        timestamp: now_millis(),
    }
}

/// Arguments as a person reads them (Pi shows them pretty-printed).
pub(crate) fn pretty(arguments: &Value) -> String {
    serde_json::to_string_pretty(arguments).unwrap_or_else(|_| arguments.to_string())
}

/// The message of a caught panic, as `panic!` formatted it (a fixed text for other payloads).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        PANIC_WITHOUT_MESSAGE.to_owned()
    }
}
