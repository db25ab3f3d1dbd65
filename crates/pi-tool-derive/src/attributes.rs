//! What the attributes on a derived type say: `#[param(...)]` constraints, the serde renames
//! that set JSON names, and doc comments that become descriptions.

use syn::{Attribute, Expr, ExprArray, Lit, LitInt, LitStr, meta::ParseNestedMeta};

use crate::rename::Rule;

/// The constraints of one field, as written.
#[derive(Default)]
pub(crate) struct Constraints {
    pub(crate) min: Option<Expr>,
    pub(crate) max: Option<Expr>,
    pub(crate) exclusive_min: Option<Expr>,
    pub(crate) exclusive_max: Option<Expr>,
    pub(crate) min_length: Option<LitInt>,
    pub(crate) max_length: Option<LitInt>,
    pub(crate) pattern: Option<LitStr>,
    pub(crate) min_items: Option<LitInt>,
    pub(crate) max_items: Option<LitInt>,
    pub(crate) one_of: Option<Vec<LitStr>>,
    pub(crate) default: Option<Expr>,
    /// The constraints on each item of a `Vec`, from `items(...)`.
    pub(crate) items: Option<Box<Constraints>>,
}

const PARAM_KEYS: &str = "min, max, exclusive_min, exclusive_max, min_length, max_length, \
                          pattern, min_items, max_items, one_of, default, items(...)";

/// A field's `#[param(...)]` attributes.
pub(crate) fn constraints(attributes: &[Attribute]) -> syn::Result<Constraints> {
    let mut found = Constraints::default();
    for attribute in attributes.iter().filter(|a| a.path().is_ident("param")) {
        attribute.parse_nested_meta(|meta| constraint(&meta, &mut found))?;
    }
    Ok(found)
}

/// One `key = value` (or `items(...)`) of a `#[param(...)]` list, into `found`.
fn constraint(meta: &ParseNestedMeta<'_>, found: &mut Constraints) -> syn::Result<()> {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    match key.as_str() {
        "min" => set(meta, &mut found.min, meta.value()?.parse()?),
        "max" => set(meta, &mut found.max, meta.value()?.parse()?),
        "exclusive_min" => set(meta, &mut found.exclusive_min, meta.value()?.parse()?),
        "exclusive_max" => set(meta, &mut found.exclusive_max, meta.value()?.parse()?),
        "min_length" => set(meta, &mut found.min_length, meta.value()?.parse()?),
        "max_length" => set(meta, &mut found.max_length, meta.value()?.parse()?),
        "min_items" => set(meta, &mut found.min_items, meta.value()?.parse()?),
        "max_items" => set(meta, &mut found.max_items, meta.value()?.parse()?),
        "default" => set(meta, &mut found.default, meta.value()?.parse()?),
        "items" => {
            let mut items = Constraints::default();
            meta.parse_nested_meta(|inner| constraint(&inner, &mut items))?;
            if let Some(default) = &items.default {
                return Err(syn::Error::new_spanned(
                    default,
                    "items of an array cannot have a default: give the field one instead",
                ));
            }
            set(meta, &mut found.items, Box::new(items))
        }
        "pattern" => {
            let pattern: LitStr = meta.value()?.parse()?;
            // Checked here, with the parser the `regex` crate uses, so a bad pattern is a
            // compile error rather than a tool that refuses everything.
            if let Err(error) = regex_syntax::Parser::new().parse(&pattern.value()) {
                return Err(syn::Error::new_spanned(
                    &pattern,
                    format!("this pattern is not a valid regular expression: {error}"),
                ));
            }
            set(meta, &mut found.pattern, pattern)
        }
        "one_of" => {
            let list: ExprArray = meta.value()?.parse()?;
            let mut names = Vec::new();
            for element in &list.elems {
                match element {
                    Expr::Lit(literal) => match &literal.lit {
                        Lit::Str(name) => names.push(name.clone()),
                        _ => {
                            return Err(syn::Error::new_spanned(
                                element,
                                "one_of takes string literals",
                            ));
                        }
                    },
                    _ => {
                        return Err(syn::Error::new_spanned(
                            element,
                            "one_of takes string literals",
                        ));
                    }
                }
            }
            if names.is_empty() {
                return Err(syn::Error::new_spanned(
                    list,
                    "one_of needs at least one string",
                ));
            }
            set(meta, &mut found.one_of, names)
        }
        _ => Err(meta.error(format!(
            "unknown #[param] attribute `{}`; expected one of: {PARAM_KEYS}",
            path_text(meta)
        ))),
    }
}

fn path_text(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

fn set<T>(meta: &ParseNestedMeta<'_>, slot: &mut Option<T>, value: T) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("`{}` is given twice", path_text(meta))));
    }
    *slot = Some(value);
    Ok(())
}

/// The `rename_all` rule of a container's `#[serde(...)]`, if any.
pub(crate) fn rename_all(attributes: &[Attribute]) -> syn::Result<Option<Rule>> {
    let mut rule = None;
    serde_keys(attributes, |key, meta| {
        if key == "rename_all" {
            let literal: LitStr = meta.value()?.parse()?;
            rule = Some(Rule::parse(&literal)?);
        }
        Ok(())
    })?;
    Ok(rule)
}

/// The `rename` of a field's or variant's `#[serde(...)]`, if any.
pub(crate) fn rename(attributes: &[Attribute]) -> syn::Result<Option<String>> {
    let mut name = None;
    serde_keys(attributes, |key, meta| {
        if key == "rename" {
            let literal: LitStr = meta.value()?.parse()?;
            name = Some(literal.value());
        }
        Ok(())
    })?;
    Ok(name)
}

/// Walks `#[serde(...)]` keys: those that change how a value is read (and that this derive
/// cannot honour the same way) are refused; the rest are serde's own business.
fn serde_keys(
    attributes: &[Attribute],
    mut visit: impl FnMut(&str, &ParseNestedMeta<'_>) -> syn::Result<()>,
) -> syn::Result<()> {
    for attribute in attributes.iter().filter(|a| a.path().is_ident("serde")) {
        attribute.parse_nested_meta(|meta| {
            let key = path_text(&meta);
            match key.as_str() {
                "rename" | "rename_all" => visit(&key, &meta),
                "default" | "flatten" | "alias" | "skip" | "skip_deserializing"
                | "deserialize_with" | "with" | "untagged" | "tag" | "content" => {
                    Err(meta.error(format!(
                        "ToolParams reads the arguments itself and does not honour \
                         #[serde({key})]; use #[param(default = ...)] for a default"
                    )))
                }
                // Serialization-only keys and the like: consume any value, keep going.
                _ => {
                    if meta.input.peek(syn::Token![=]) {
                        let _: Expr = meta.value()?.parse()?;
                    } else if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|_| Ok(()))?;
                    }
                    Ok(())
                }
            }
        })?;
    }
    Ok(())
}

/// The doc comment lines of an item.
pub(crate) fn docs(attributes: &[Attribute]) -> Vec<LitStr> {
    attributes
        .iter()
        .filter(|attribute| attribute.path().is_ident("doc"))
        .filter_map(|attribute| match &attribute.meta {
            syn::Meta::NameValue(pair) => match &pair.value {
                Expr::Lit(literal) => match &literal.lit {
                    Lit::Str(line) => Some(line.clone()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect()
}
