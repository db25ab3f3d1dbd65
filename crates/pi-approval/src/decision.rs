//! What the policy says about one call, in the shape `pi-tool policy check` prints and the
//! audit trail records: `{"decision","rule","source","commands"}`, plus why and the
//! fingerprint of the arguments decided on.

use serde::Serialize;

use crate::{Fingerprint, Source, Verdict};

/// The decision on one call.
///
/// ```
/// use pi_approval::{LocalPaths, Mode, Policy, RuleSet};
/// use pi_tool::ToolAnnotations;
/// use serde_json::json;
///
/// let policy = Policy::new(Mode::Ask, RuleSet::default(), LocalPaths::new("/repo"));
/// let decision = policy.decide("bash", ToolAnnotations::open(), &json!({"command": "git status && rm -rf ~"}));
/// let json = serde_json::to_value(&decision).unwrap();
/// assert_eq!(json["decision"], "ask");
/// assert_eq!(json["rule"], serde_json::Value::Null);
/// assert_eq!(json["source"], "mode");
/// assert_eq!(json["commands"], json!(["git status", "rm -rf ~"]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// Allow, ask or deny.
    pub decision: Verdict,
    /// The rule that decided, as written; `None` when the mode or a built-in check did.
    pub rule: Option<String>,
    /// Where the deciding rule comes from, or `mode` / `builtin`.
    pub source: Source,
    /// For `bash`: the simple commands the line runs, as matched.
    pub commands: Vec<String>,
    /// Why, in a sentence, when a rule's name alone does not say it (what the splitter
    /// could not prove, which mode decided).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The fingerprint of the arguments decided on (see [`Fingerprint::check`]).
    pub fingerprint: Fingerprint,
}
