//! The models Ctrl+P cycles through, as Pi keeps them: the `--models` patterns (else the
//! settings' `enabledModels`) resolved once at start, changed for the session by
//! `/scoped-models`, each with the thinking level its pattern named (`sonnet:high`). An empty
//! scope cycles through every model with a key.

use crate::model::Model;
use crate::model_pattern::resolve_scope;
use crate::model_registry::ModelRegistry;
use crate::thinking_level::ThinkingLevel;

/// A model of the scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeEntry {
    /// Its provider.
    pub provider: String,
    /// Its id.
    pub id: String,
    /// The level its pattern named; `None` keeps the session's level when cycling to it.
    pub thinking_level: Option<ThinkingLevel>,
}

impl ScopeEntry {
    /// `provider/id`, as `enabledModels` saves it.
    pub fn reference(&self) -> String {
        format!("{}/{}", self.provider, self.id)
    }

    fn is(&self, provider: &str, id: &str) -> bool {
        self.provider == provider && self.id == id
    }
}

/// Which way to cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CycleDirection {
    /// To the next model (Ctrl+P).
    Forward,
    /// To the previous model (Shift+Ctrl+P).
    Backward,
}

/// The models to cycle through, in cycling order; empty: every model with a key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelScope {
    entries: Vec<ScopeEntry>,
}

impl ModelScope {
    /// The models `patterns` name among those of `registry` with a key (Pi resolves the scope
    /// over those), and a warning for each pattern that names none.
    pub fn resolve(patterns: &[String], registry: &ModelRegistry) -> (Self, Vec<String>) {
        let available = registry.available();
        let (scoped, warnings) = resolve_scope(patterns, &available);
        let entries = scoped
            .into_iter()
            .map(|scoped| ScopeEntry {
                provider: scoped.model.provider.clone(),
                id: scoped.model.id.clone(),
                thinking_level: scoped.thinking_level,
            })
            .collect();
        (Self { entries }, warnings)
    }

    /// The models of the scope, in cycling order.
    pub fn entries(&self) -> &[ScopeEntry] {
        &self.entries
    }

    /// Whether the scope is empty (cycling goes through every model with a key).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `provider`/`id` is cycled to: in the scope, or any model when it is empty.
    pub fn includes(&self, provider: &str, id: &str) -> bool {
        self.is_empty() || self.entries.iter().any(|entry| entry.is(provider, id))
    }

    /// `/scoped-models` turning one of `all` (the models with a key) on or off: an empty
    /// scope (all on) becomes all but this one; a model turned on goes last in the cycle.
    /// Every model on, or none, is no scope, as Pi's selector has it.
    pub fn toggle(&mut self, provider: &str, id: &str, all: &[&Model]) {
        if self.is_empty() {
            self.entries = all
                .iter()
                .map(|model| ScopeEntry {
                    provider: model.provider.clone(),
                    id: model.id.clone(),
                    thinking_level: None,
                })
                .collect();
        }
        let before = self.entries.len();
        self.entries.retain(|entry| !entry.is(provider, id));
        if self.entries.len() == before {
            self.entries.push(ScopeEntry {
                provider: provider.to_owned(),
                id: id.to_owned(),
                thinking_level: None,
            });
        }
        let every_one = all.iter().all(|model| {
            self.entries
                .iter()
                .any(|entry| entry.is(&model.provider, &model.id))
        });
        if every_one {
            self.entries.clear();
        }
    }

    /// The entry after (or before) `provider`/`id` among those `usable` accepts (Pi: those
    /// whose provider has a key), wrapping around; a current model outside the scope counts
    /// as its first, as Pi's does. `None` when fewer than two are usable.
    pub fn next(
        &self,
        provider: &str,
        id: &str,
        direction: CycleDirection,
        usable: impl Fn(&ScopeEntry) -> bool,
    ) -> Option<&ScopeEntry> {
        let usable: Vec<&ScopeEntry> = self.entries.iter().filter(|entry| usable(entry)).collect();
        let count = usable.len();
        if count < 2 {
            return None;
        }
        let current = usable
            .iter()
            .position(|entry| entry.is(provider, id))
            .unwrap_or(0);
        let next = match direction {
            CycleDirection::Forward => (current + 1) % count,
            CycleDirection::Backward => (current + count - 1) % count,
        };
        usable.get(next).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> ScopeEntry {
        ScopeEntry {
            provider: "p".into(),
            id: id.into(),
            thinking_level: None,
        }
    }

    fn scope(ids: &[&str]) -> ModelScope {
        ModelScope {
            entries: ids.iter().map(|id| entry(id)).collect(),
        }
    }

    fn model(id: &str) -> Model {
        Model {
            provider: "p".to_owned(),
            id: id.to_owned(),
            name: id.to_owned(),
            api: crate::model_api::ModelApi::OpenAiCompletions,
            base_url: "http://x".to_owned(),
            reasoning: false,
            thinking_level_map: Default::default(),
            input: vec![crate::model::InputKind::Text],
            cost: crate::model::ModelCost::default(),
            context_window: 1,
            max_tokens: 1,
            headers: Default::default(),
            compat: None,
        }
    }

    #[test]
    fn cycles_both_ways_and_wraps() {
        let scope = scope(&["a", "b", "c"]);
        let all = |_: &ScopeEntry| true;
        let next = |id: &str, direction| scope.next("p", id, direction, all).map(|e| e.id.clone());
        assert_eq!(next("a", CycleDirection::Forward).as_deref(), Some("b"));
        assert_eq!(next("c", CycleDirection::Forward).as_deref(), Some("a"));
        assert_eq!(next("a", CycleDirection::Backward).as_deref(), Some("c"));
        // Outside the scope: counted as the first, as Pi's.
        assert_eq!(next("z", CycleDirection::Forward).as_deref(), Some("b"));
    }

    #[test]
    fn models_without_a_key_are_skipped_and_one_left_is_no_cycle() {
        let scope = scope(&["a", "b", "c"]);
        let next = scope.next("p", "a", CycleDirection::Forward, |entry| entry.id != "b");
        assert_eq!(next.map(|entry| entry.id.as_str()), Some("c"));
        assert!(
            scope
                .next("p", "a", CycleDirection::Forward, |entry| entry.id == "a")
                .is_none()
        );
    }

    #[test]
    fn toggling_from_all_and_back_to_all() {
        let models = [model("a"), model("b"), model("c")];
        let all: Vec<&Model> = models.iter().collect();
        let mut scope = ModelScope::default();
        assert!(scope.includes("p", "b"));
        scope.toggle("p", "b", &all);
        assert_eq!(scope, self::scope(&["a", "c"]));
        assert!(!scope.includes("p", "b"));
        scope.toggle("p", "a", &all);
        assert_eq!(scope, self::scope(&["c"]));
        scope.toggle("p", "a", &all);
        assert_eq!(scope, self::scope(&["c", "a"]));
        scope.toggle("p", "b", &all);
        assert!(scope.is_empty(), "every model on is no scope");
    }
}
