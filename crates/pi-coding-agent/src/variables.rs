//! Where `$VAR` in a configuration value is looked up: this process's environment, or a fixed
//! set (tests, embedders), never both. Values are never printed.

use std::collections::BTreeMap;
use std::fmt;

/// A source of environment variables.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Variables {
    /// `None`: this process's environment; `Some`: exactly these.
    fixed: Option<BTreeMap<String, String>>,
}

impl Variables {
    /// This process's environment, read at each lookup.
    pub fn process() -> Self {
        Self { fixed: None }
    }

    /// Exactly these variables, and no others.
    pub fn fixed<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        let vars = vars
            .into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .collect();
        Self { fixed: Some(vars) }
    }

    /// The value of `name`; an empty value counts as unset, as in Pi.
    pub fn get(&self, name: &str) -> Option<String> {
        let value = match &self.fixed {
            Some(vars) => vars.get(name).cloned(),
            None => std::env::var(name).ok(),
        };
        value.filter(|value| !value.is_empty())
    }

    /// Whether `name` is set to something.
    pub fn is_set(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The fixed variables, or `None` for this process's environment: what a started command
    /// gets.
    pub(crate) fn fixed_vars(&self) -> Option<&BTreeMap<String, String>> {
        self.fixed.as_ref()
    }
}

impl fmt::Debug for Variables {
    // Names only: the values are often keys.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.fixed {
            None => f.write_str("Variables(process)"),
            Some(vars) => f
                .debug_tuple("Variables")
                .field(&vars.keys().collect::<Vec<_>>())
                .finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_variables_hide_the_process_and_their_values() {
        let vars = Variables::fixed([("A_KEY", "sk-1"), ("EMPTY", "")]);
        assert_eq!(vars.get("A_KEY").as_deref(), Some("sk-1"));
        assert!(!vars.is_set("EMPTY"));
        assert!(!vars.is_set("PATH"));
        assert_eq!(format!("{vars:?}"), "Variables([\"A_KEY\", \"EMPTY\"])");
    }
}
