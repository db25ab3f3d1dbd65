//! A call stopped between its two steps: looked up and parsed, not yet run. An agent loop puts
//! its hooks, its approval and its time limit here; [`crate::call`] makes and runs it.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};

use arcstr::ArcStr;
use serde_json::Value;

use crate::failure::{failure_message, invalid_message, panic_message, pretty};
use crate::model_text::Wording;
use crate::registered::{ErasedParams, Parsed};
use crate::{CallFailure, FailureKind, RegisteredTool};

/// A call whose tool exists and whose arguments passed validation; nothing has run yet.
///
/// It owns what it needs, so [`PreparedCall::run`] can be spawned on another task.
pub struct PreparedCall {
    pub(crate) id: ArcStr,
    pub(crate) name: ArcStr,
    pub(crate) tool: RegisteredTool,
    pub(crate) params: ErasedParams,
    /// Whether the tool's repair step mended the arguments before they passed.
    pub(crate) repaired: bool,
    pub(crate) wording: Wording,
}

impl std::fmt::Debug for PreparedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedCall")
            .field("id", &self.id)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl PreparedCall {
    /// Parses `arguments` for `tool` (repairing them only if the schema refuses them), with
    /// panics contained; `Err` is the typed failure with its paired result.
    pub(crate) fn parse(
        id: ArcStr,
        name: ArcStr,
        tool: &RegisteredTool,
        arguments: &Value,
        wording: Wording,
    ) -> Result<Self, CallFailure> {
        match catch_unwind(AssertUnwindSafe(|| tool.parse(arguments))) {
            Ok(Ok(Parsed { params, repaired })) => Ok(Self {
                id,
                name,
                tool: tool.clone(),
                params,
                repaired,
                wording,
            }),
            Ok(Err(invalid)) => Err(CallFailure::new(
                FailureKind::InvalidArguments,
                invalid_message(id, name, wording, &invalid, || pretty(arguments)),
            )),
            Err(panic) => Err(CallFailure::new(
                FailureKind::Panic,
                failure_message(id, name, wording, &panic_message(panic.as_ref())),
            )),
        }
    }

    /// The tool that will run.
    pub fn tool(&self) -> &RegisteredTool {
        &self.tool
    }

    /// The arguments as the tool sees them, as JSON: repaired (when they needed it),
    /// undeclared fields dropped, defaults filled in. `arguments` are the call's original
    /// arguments. For hooks and logs; the hot path never builds this.
    pub fn validated_arguments(&self, arguments: &Value) -> Value {
        let repaired = match self.repaired {
            true => self.tool.repair(arguments).map(Cow::Owned),
            false => None,
        };
        let seen = repaired.unwrap_or(Cow::Borrowed(arguments));
        match self.tool.json_schema() {
            Some(schema) => match crate::schema::drop_undeclared(schema, &seen) {
                Ok(mut filtered) => {
                    if let Some(defaults) = self.tool.defaults() {
                        defaults.fill(&mut filtered);
                    }
                    filtered
                }
                Err(_) => seen.into_owned(),
            },
            None => seen.into_owned(),
        }
    }

    /// The same call with other arguments (a hook's rewrite), validated again.
    pub fn with_arguments(self, arguments: &Value) -> Result<Self, CallFailure> {
        Self::parse(self.id, self.name, &self.tool, arguments, self.wording)
    }
}
