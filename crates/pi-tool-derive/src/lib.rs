//! `#[derive(ToolParams)]` for [`pi-tool`](https://docs.rs/pi-tool): one Rust type gives both
//! the JSON Schema a model is shown and the parser that checks what it sent.
//!
//! Why a proc-macro crate of its own: Rust requires derives to live in a `proc-macro` crate.
//! Everything it generates calls `pi_tool`'s public (or `__private`) runtime, so the rules, the
//! schemas and the error texts are those of the hand-written validators.
//!
//! See `pi_tool::ToolParams` for the attributes and an example.

mod attributes;
mod enums;
mod rename;
mod structs;

use proc_macro::TokenStream;
use syn::{Data, DeriveInput, parse_macro_input};

/// Derives `pi_tool::schema::ObjectParams` and `pi_tool::schema::ParamType` for a struct with named fields
/// (its parameters schema and parser), or `pi_tool::schema::StringEnum` and
/// `pi_tool::schema::ParamType` for an enum of unit variants (a string enum).
#[proc_macro_derive(ToolParams, attributes(param, serde))]
pub fn derive_tool_params(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let expanded = match &input.data {
        Data::Struct(data) => structs::expand(&input, data),
        Data::Enum(data) => enums::expand(&input, data),
        Data::Union(_) => Err(syn::Error::new_spanned(
            &input.ident,
            "ToolParams takes a struct with named fields or an enum of unit variants, not a union",
        )),
    };
    expanded
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
