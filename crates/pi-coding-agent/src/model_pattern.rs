//! Pi's model patterns: an exact reference (`id` or `provider/id`, any case), else a part of
//! an id or name (an alias such as `claude-sonnet-4-5` preferred over a dated id such as
//! `claude-sonnet-4-5-20250929`), with an optional `:level` suffix; and for `--models`
//! scopes, glob patterns (`anthropic/*`, `*sonnet*:high`).

use globset::GlobBuilder;

use crate::collation;
use crate::model::Model;
use crate::thinking_level::ThinkingLevel;

/// The model of a pattern and the level its suffix names.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternMatch<'a> {
    /// The model found, if any.
    pub model: Option<&'a Model>,
    /// The level of a `:level` suffix.
    pub thinking_level: Option<ThinkingLevel>,
    /// A suffix that names no level, in a scope pattern.
    pub warning: Option<String>,
}

impl PatternMatch<'_> {
    fn none() -> Self {
        Self {
            model: None,
            thinking_level: None,
            warning: None,
        }
    }
}

/// The one model `reference` names exactly (`provider/id` or a bare `id`, any case), or
/// `None` when none or several do.
pub fn find_exact_reference<'a>(reference: &str, models: &[&'a Model]) -> Option<&'a Model> {
    let reference = reference.trim();
    if reference.is_empty() {
        return None;
    }
    let lower = reference.to_lowercase();
    let canonical: Vec<_> = models
        .iter()
        .filter(|model| model.reference().to_lowercase() == lower)
        .collect();
    match canonical.as_slice() {
        [only] => return Some(only),
        [] => {}
        _ => return None,
    }
    if let Some((provider, id)) = reference.split_once('/') {
        let (provider, id) = (provider.trim().to_lowercase(), id.trim().to_lowercase());
        if !provider.is_empty() && !id.is_empty() {
            let by_provider: Vec<_> = models
                .iter()
                .filter(|model| {
                    model.provider.to_lowercase() == provider && model.id.to_lowercase() == id
                })
                .collect();
            match by_provider.as_slice() {
                [only] => return Some(only),
                [] => {}
                _ => return None,
            }
        }
    }
    let by_id: Vec<_> = models
        .iter()
        .filter(|model| model.id.to_lowercase() == lower)
        .collect();
    match by_id.as_slice() {
        [only] => Some(only),
        _ => None,
    }
}

/// Whether `id` reads as an alias: ends in `-latest`, or not in a `-YYYYMMDD` date.
fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let tail: Vec<char> = id.chars().rev().take(9).collect();
    let dated = tail.len() == 9
        && tail.iter().take(8).all(char::is_ascii_digit)
        && tail.last() == Some(&'-');
    !dated
}

/// An exact reference, else the best model whose id or name contains `pattern`.
fn match_one<'a>(pattern: &str, models: &[&'a Model]) -> Option<&'a Model> {
    if let Some(exact) = find_exact_reference(pattern, models) {
        return Some(exact);
    }
    let lower = pattern.to_lowercase();
    let matching: Vec<&'a Model> = models
        .iter()
        .copied()
        .filter(|model| {
            model.id.to_lowercase().contains(&lower) || model.name.to_lowercase().contains(&lower)
        })
        .collect();
    let (aliases, dated): (Vec<&'a Model>, Vec<&'a Model>) =
        matching.into_iter().partition(|model| is_alias(&model.id));
    let pool = if aliases.is_empty() { dated } else { aliases };
    // The id that sorts last wins (the newest version); the first of equals, as Pi's stable sort.
    pool.into_iter().reduce(|best, next| {
        if collation::compare(&next.id, &best.id).is_gt() {
            next
        } else {
            best
        }
    })
}

/// The model `pattern` names among `models`, by Pi's rule: the whole pattern first; else,
/// split at the last `:`, a level suffix applies to what the rest names. An unknown suffix
/// fails in `strict` mode (`--model`) and is warned about otherwise (scopes).
pub fn parse_model_pattern<'a>(
    pattern: &str,
    models: &[&'a Model],
    strict: bool,
) -> PatternMatch<'a> {
    if let Some(model) = match_one(pattern, models) {
        return PatternMatch {
            model: Some(model),
            thinking_level: None,
            warning: None,
        };
    }
    let Some((prefix, suffix)) = pattern.rsplit_once(':') else {
        return PatternMatch::none();
    };
    match suffix.parse::<ThinkingLevel>() {
        Ok(level) => {
            let inner = parse_model_pattern(prefix, models, strict);
            if inner.model.is_none() {
                return inner;
            }
            PatternMatch {
                thinking_level: if inner.warning.is_some() {
                    None
                } else {
                    Some(level)
                },
                ..inner
            }
        }
        Err(_) if strict => PatternMatch::none(),
        Err(_) => {
            let inner = parse_model_pattern(prefix, models, strict);
            if inner.model.is_none() {
                return inner;
            }
            PatternMatch {
                thinking_level: None,
                warning: Some(format!(
                    "Invalid thinking level \"{suffix}\" in pattern \"{pattern}\". Using default instead."
                )),
                ..inner
            }
        }
    }
}

/// A model of a scope, with the level its pattern named.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopedModel<'a> {
    /// The model.
    pub model: &'a Model,
    /// The level of a `:level` suffix.
    pub thinking_level: Option<ThinkingLevel>,
}

/// The models `patterns` (of `--models` or `enabledModels`) name among `available`, in
/// pattern order without repeats, and a warning per pattern that names none.
pub fn resolve_scope<'a>(
    patterns: &[String],
    available: &[&'a Model],
) -> (Vec<ScopedModel<'a>>, Vec<String>) {
    let mut scoped: Vec<ScopedModel<'a>> = Vec::new();
    let mut warnings = Vec::new();
    let add = |model: &'a Model, thinking_level, scoped: &mut Vec<ScopedModel<'a>>| {
        if !scoped.iter().any(|entry| std::ptr::eq(entry.model, model)) {
            scoped.push(ScopedModel {
                model,
                thinking_level,
            });
        }
    };
    for pattern in patterns {
        if pattern.contains(['*', '?', '[']) {
            let (glob, thinking_level) = match pattern.rsplit_once(':') {
                Some((glob, suffix)) => match suffix.parse::<ThinkingLevel>() {
                    Ok(level) => (glob, Some(level)),
                    Err(_) => (pattern.as_str(), None),
                },
                None => (pattern.as_str(), None),
            };
            let matcher = GlobBuilder::new(glob)
                .case_insensitive(true)
                .literal_separator(true)
                .build()
                .map(|glob| glob.compile_matcher());
            let matching: Vec<&'a Model> = match &matcher {
                Ok(matcher) => available
                    .iter()
                    .copied()
                    .filter(|model| {
                        matcher.is_match(model.reference()) || matcher.is_match(&model.id)
                    })
                    .collect(),
                Err(_) => Vec::new(),
            };
            if matching.is_empty() {
                warnings.push(format!("No models match pattern \"{pattern}\""));
            }
            for model in matching {
                add(model, thinking_level, &mut scoped);
            }
            continue;
        }
        let found = parse_model_pattern(pattern, available, false);
        warnings.extend(found.warning);
        match found.model {
            Some(model) => add(model, found.thinking_level, &mut scoped),
            None => warnings.push(format!("No models match pattern \"{pattern}\"")),
        }
    }
    (scoped, warnings)
}

/// `--models a, b` split as Pi splits it: at commas, each trimmed, empty ones dropped.
pub fn split_patterns(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|pattern| !pattern.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    fn models() -> Vec<&'static Model> {
        Catalog::builtin().unwrap().models().collect()
    }

    fn reference(found: &PatternMatch<'_>) -> Option<String> {
        found.model.map(Model::reference)
    }

    #[test]
    fn exact_references_win_and_ambiguous_ids_do_not() {
        let models = models();
        let opus = find_exact_reference("Anthropic/Claude-Opus-4-8", &models).unwrap();
        assert_eq!(opus.reference(), "anthropic/claude-opus-4-8");
        // gpt-5.5 is served by several providers: a bare id is ambiguous.
        assert!(find_exact_reference("gpt-5.5", &models).is_none());
        assert!(find_exact_reference("  ", &models).is_none());
    }

    #[test]
    fn parts_prefer_aliases_and_then_the_last_sorting_id() {
        let models = models();
        let anthropic: Vec<_> = models
            .iter()
            .copied()
            .filter(|model| model.provider == "anthropic")
            .collect();
        let sonnet = parse_model_pattern("sonnet", &anthropic, true);
        assert_eq!(
            reference(&sonnet).as_deref(),
            Some("anthropic/claude-sonnet-5")
        );
        let dated = parse_model_pattern("20250929", &anthropic, true);
        assert_eq!(
            reference(&dated).as_deref(),
            Some("anthropic/claude-sonnet-4-5-20250929")
        );
        assert!(is_alias("claude-haiku-4-5") && is_alias("x-20250101-latest"));
        assert!(!is_alias("claude-haiku-4-5-20251001"));
    }

    #[test]
    fn a_level_suffix_is_split_off_only_when_the_whole_does_not_match() {
        let models = models();
        let anthropic: Vec<_> = models
            .iter()
            .copied()
            .filter(|model| model.provider == "anthropic")
            .collect();
        let high = parse_model_pattern("haiku-4-5:high", &anthropic, true);
        assert_eq!(
            reference(&high).as_deref(),
            Some("anthropic/claude-haiku-4-5")
        );
        assert_eq!(high.thinking_level, Some(ThinkingLevel::High));
        assert_eq!(
            parse_model_pattern("haiku-4-5:huge", &anthropic, true),
            PatternMatch::none()
        );
        let lenient = parse_model_pattern("haiku-4-5:huge", &anthropic, false);
        assert_eq!(
            reference(&lenient).as_deref(),
            Some("anthropic/claude-haiku-4-5")
        );
        assert!(
            lenient
                .warning
                .unwrap()
                .contains("Invalid thinking level \"huge\"")
        );
        // An id with a colon (OpenRouter's `:free` variants) is matched whole first.
        let openrouter: Vec<_> = models
            .iter()
            .copied()
            .filter(|model| model.provider == "openrouter")
            .collect();
        if let Some(colon) = openrouter.iter().find(|model| model.id.contains(':')) {
            let found = parse_model_pattern(&colon.reference(), &openrouter, true);
            assert_eq!(
                found.model.map(|model| model.id.as_str()),
                Some(colon.id.as_str())
            );
            assert_eq!(found.thinking_level, None);
        }
    }

    #[test]
    fn scopes_take_globs_fuzzy_patterns_and_levels() {
        let models = models();
        let patterns =
            split_patterns("anthropic/claude-opus-4-*:high, haiku-4-5 ,, nothing-like-this");
        let (scoped, warnings) = resolve_scope(&patterns, &models);
        let names: Vec<String> = scoped.iter().map(|entry| entry.model.reference()).collect();
        assert!(
            names.contains(&"anthropic/claude-opus-4-8".to_owned()),
            "{names:?}"
        );
        assert!(
            names
                .iter()
                .take(names.len() - 1)
                .all(|name| name.starts_with("anthropic/claude-opus-4-"))
        );
        assert!(
            scoped
                .iter()
                .take(names.len() - 1)
                .all(|entry| entry.thinking_level == Some(ThinkingLevel::High))
        );
        assert_eq!(warnings, ["No models match pattern \"nothing-like-this\""]);
        // `*` does not cross `/`, but a glob may match the bare id.
        let (by_id, _) = resolve_scope(&["claude-haiku*".to_owned()], &models);
        assert!(
            by_id
                .iter()
                .all(|entry| entry.model.id.starts_with("claude-haiku"))
        );
        assert!(!by_id.is_empty());
    }
}
