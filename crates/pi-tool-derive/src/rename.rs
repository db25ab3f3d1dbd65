//! serde's `rename_all` rules, applied to Rust names as serde applies them.

use syn::LitStr;

/// A `rename_all` rule.
#[derive(Clone, Copy)]
pub(crate) enum Rule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Rule {
    /// The rule serde names `text`, or an error on the literal.
    pub(crate) fn parse(literal: &LitStr) -> syn::Result<Self> {
        Ok(match literal.value().as_str() {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            other => {
                return Err(syn::Error::new_spanned(
                    literal,
                    format!(
                        "unknown rename_all rule {other:?}; serde's rules are lowercase, UPPERCASE, \
                         PascalCase, camelCase, snake_case, SCREAMING_SNAKE_CASE, kebab-case, \
                         SCREAMING-KEBAB-CASE"
                    ),
                ));
            }
        })
    }

    /// A field's name (snake_case in Rust) under this rule.
    pub(crate) fn field(self, name: &str) -> String {
        match self {
            Self::Lower | Self::Snake => name.to_owned(),
            Self::Upper | Self::ScreamingSnake => name.to_ascii_uppercase(),
            Self::Pascal => pascal(name),
            Self::Camel => {
                let pascal = pascal(name);
                let mut chars = pascal.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_lowercase().to_string() + chars.as_str()
                })
            }
            Self::Kebab => name.replace('_', "-"),
            Self::ScreamingKebab => name.replace('_', "-").to_ascii_uppercase(),
        }
    }

    /// A variant's name (PascalCase in Rust) under this rule.
    pub(crate) fn variant(self, name: &str) -> String {
        match self {
            Self::Pascal => name.to_owned(),
            Self::Lower => name.to_ascii_lowercase(),
            Self::Upper => name.to_ascii_uppercase(),
            Self::Camel => {
                let mut chars = name.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_lowercase().to_string() + chars.as_str()
                })
            }
            Self::Snake => snake(name),
            Self::ScreamingSnake => snake(name).to_ascii_uppercase(),
            Self::Kebab => snake(name).replace('_', "-"),
            Self::ScreamingKebab => snake(name).replace('_', "-").to_ascii_uppercase(),
        }
    }
}

fn pascal(snake_name: &str) -> String {
    snake_name
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

fn snake(pascal_name: &str) -> String {
    let mut out = String::new();
    for (index, ch) in pascal_name.char_indices() {
        if ch.is_uppercase() && index > 0 {
            out.push('_');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_variants_follow_serde() {
        assert_eq!(Rule::Camel.field("old_text"), "oldText");
        assert_eq!(Rule::Pascal.field("old_text"), "OldText");
        assert_eq!(Rule::Kebab.field("ignore_case"), "ignore-case");
        assert_eq!(Rule::ScreamingSnake.field("a_b"), "A_B");
        assert_eq!(Rule::Snake.variant("VeryFast"), "very_fast");
        assert_eq!(Rule::Camel.variant("VeryFast"), "veryFast");
        assert_eq!(Rule::Lower.variant("VeryFast"), "veryfast");
        assert_eq!(Rule::Kebab.variant("VeryFast"), "very-fast");
    }
}
