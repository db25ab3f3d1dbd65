//! An enum of unit variants: a string enum (`{"type":"string","enum":[...]}`), each variant by
//! its JSON name.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DataEnum, DeriveInput, Fields};

use crate::attributes;

pub(crate) fn expand(input: &DeriveInput, data: &DataEnum) -> syn::Result<TokenStream> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "ToolParams does not take generic enums",
        ));
    }
    if data.variants.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "a ToolParams enum needs at least one variant: a model must be able to send something",
        ));
    }
    let rule = attributes::rename_all(&input.attrs)?;
    let mut variants = Vec::new();
    let mut names = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            return Err(syn::Error::new_spanned(
                &variant.fields,
                "a ToolParams enum is a string enum: its variants carry no data",
            ));
        }
        let rust_name = variant.ident.to_string();
        names.push(match attributes::rename(&variant.attrs)? {
            Some(name) => name,
            None => rule.map_or_else(|| rust_name.clone(), |rule| rule.variant(&rust_name)),
        });
        variants.push(&variant.ident);
    }
    let name = &input.ident;
    Ok(quote! {
        impl ::pi_tool::schema::StringEnum for #name {
            const NAMES: &'static [&'static str] = &[#(#names),*];

            fn from_name(name: &str) -> ::std::option::Option<Self> {
                match name {
                    #( #names => ::std::option::Option::Some(Self::#variants), )*
                    _ => ::std::option::Option::None,
                }
            }

            fn name(&self) -> &'static str {
                match self {
                    #( Self::#variants => #names, )*
                }
            }
        }

        impl ::pi_tool::schema::ParamType for #name {
            fn validator() -> ::pi_tool::schema::Validator<Self> {
                ::pi_tool::schema::enum_value::<Self>()
            }
        }
    })
}
