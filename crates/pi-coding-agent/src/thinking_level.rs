//! Thinking levels: the one type the wires (`pi_ai::ThinkingLevel`) and the model registry
//! share, and the level a run thinks at when nothing chooses one.

pub use pi_ai::{ThinkingLevel, UnknownThinkingLevel};

/// The level of a reasoning model when neither the command line, the session nor the
/// settings' `defaultThinkingLevel` chooses one (Pi's default).
pub const DEFAULT_THINKING: ThinkingLevel = ThinkingLevel::Medium;
