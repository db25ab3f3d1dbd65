//! A struct with named fields: its `ObjectParams` (schema and parse) and its `ParamType` (so it
//! can nest in other parameters).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DataStruct, DeriveInput, Fields, GenericArgument, PathArguments, Type};

use crate::attributes::{self, Constraints};

/// One field, ready to generate code for.
struct Field {
    ident: syn::Ident,
    ty: Type,
    json_name: String,
    docs: Vec<syn::LitStr>,
    validator: TokenStream,
}

pub(crate) fn expand(input: &DeriveInput, data: &DataStruct) -> syn::Result<TokenStream> {
    if let Some(param) = input
        .generics
        .params
        .iter()
        .find(|param| !matches!(param, syn::GenericParam::Type(_)))
    {
        return Err(syn::Error::new_spanned(
            param,
            "ToolParams takes type parameters only: parameters are owned values (no lifetimes) \
             and const parameters have no JSON Schema",
        ));
    }
    let Fields::Named(named) = &data.fields else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "ToolParams takes a struct with named fields: each field is a JSON property",
        ));
    };
    let rule = attributes::rename_all(&input.attrs)?;
    let mut fields = Vec::new();
    for field in &named.named {
        let Some(ident) = field.ident.clone() else {
            continue;
        };
        let rust_name = ident.to_string();
        let rust_name = rust_name.strip_prefix("r#").unwrap_or(&rust_name);
        let json_name = match attributes::rename(&field.attrs)? {
            Some(name) => name,
            None => rule.map_or_else(|| rust_name.to_owned(), |rule| rule.field(rust_name)),
        };
        let constraints = attributes::constraints(&field.attrs)?;
        fields.push(Field {
            validator: validator(&field.ty, &constraints)?,
            ident,
            ty: field.ty.clone(),
            json_name,
            docs: attributes::docs(&field.attrs),
        });
    }
    Ok(generate(&input.ident, &input.generics, &fields))
}

/// `T` when `ty` is `Wrapper<T>` (by the last segment's name, as serde does).
fn generic_inner<'a>(ty: &'a Type, wrapper: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != wrapper {
        return None;
    }
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    match arguments.args.first() {
        Some(GenericArgument::Type(inner)) if arguments.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// `T` when `ty` is `Vec<T>`.
fn vec_inner(ty: &Type) -> Option<&Type> {
    generic_inner(ty, "Vec")
}

/// `T` when `ty` is `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    generic_inner(ty, "Option")
}

/// Whether `ty` is written `u64`.
fn is_u64(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.path.is_ident("u64"))
}

/// The validator expression of a field of type `ty` under `constraints`: the type's own
/// validator, the constraints in a fixed order, then `optional`/`with_default` around it.
fn validator(ty: &Type, constraints: &Constraints) -> syn::Result<TokenStream> {
    let (inner, optional) = match option_inner(ty) {
        Some(inner) => (inner, true),
        None => (ty, false),
    };
    if optional && let Some(default) = &constraints.default {
        return Err(syn::Error::new_spanned(
            default,
            "a field with a default is not an Option: give it the plain type (the default fills it in)",
        ));
    }
    let span = inner.span();
    let mut expression = match (&constraints.items, &constraints.one_of, &constraints.min) {
        (Some(items), _, _) => {
            let Some(item) = vec_inner(inner) else {
                return Err(syn::Error::new(
                    span,
                    "items(...) constrains the items of a Vec: this field is not one",
                ));
            };
            let item = validator(item, items)?;
            quote_spanned! {span=> ::pi_tool::schema::array(#item) }
        }
        (None, Some(names), _) => quote_spanned! {span=>
            ::pi_tool::__private::one_of::<#inner>(&[#(#names),*])
        },
        // `u64` with a lower bound reads as the course's `integer 且 >= N`, one rule.
        (None, None, Some(min)) if is_u64(inner) => quote_spanned! {span=>
            ::pi_tool::schema::integer_at_least(#min)
        },
        _ => quote_spanned! {span=> <#inner as ::pi_tool::schema::ParamType>::validator() },
    };
    // Each rule is a method of the validator: one that does not exist for the field's type is a
    // compile error at the attribute.
    let minimum = constraints.min.as_ref().filter(|_| !is_u64(inner));
    let rules: [(&str, Option<&dyn quote::ToTokens>); 8] = [
        ("minimum", minimum.map(|v| v as _)),
        ("maximum", constraints.max.as_ref().map(|v| v as _)),
        (
            "exclusive_minimum",
            constraints.exclusive_min.as_ref().map(|v| v as _),
        ),
        (
            "exclusive_maximum",
            constraints.exclusive_max.as_ref().map(|v| v as _),
        ),
        (
            "min_length",
            constraints.min_length.as_ref().map(|v| v as _),
        ),
        (
            "max_length",
            constraints.max_length.as_ref().map(|v| v as _),
        ),
        ("min_items", constraints.min_items.as_ref().map(|v| v as _)),
        ("max_items", constraints.max_items.as_ref().map(|v| v as _)),
    ];
    for (method, argument) in rules {
        if let Some(argument) = argument {
            let method = format_ident!("{}", method, span = argument.span());
            expression = quote! { #expression.#method(#argument) };
        }
    }
    if let Some(pattern) = &constraints.pattern {
        expression = quote_spanned! {pattern.span()=>
            ::pi_tool::__private::pattern(#expression, #pattern)
        };
    }
    if optional {
        expression = quote! { ::pi_tool::schema::optional(#expression) };
    }
    if let Some(default) = &constraints.default {
        // A string literal becomes the field's `String`; anything else is typed as the field.
        let value = match default {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(_),
                ..
            }) => quote_spanned! {default.span()=> ::std::convert::Into::<#inner>::into(#default) },
            _ => quote_spanned! {default.span()=> { let value: #inner = #default; value } },
        };
        expression = quote_spanned! {default.span()=>
            ::pi_tool::schema::with_default(#expression, #value)
        };
    }
    Ok(expression)
}

fn generate(name: &syn::Ident, generics: &syn::Generics, fields: &[Field]) -> TokenStream {
    let idents: Vec<&syn::Ident> = fields.iter().map(|field| &field.ident).collect();
    let types: Vec<&Type> = fields.iter().map(|field| &field.ty).collect();
    let json_names: Vec<&String> = fields.iter().map(|field| &field.json_name).collect();
    let validators: Vec<&TokenStream> = fields.iter().map(|field| &field.validator).collect();
    let docs: Vec<&Vec<syn::LitStr>> = fields.iter().map(|field| &field.docs).collect();
    // Every type parameter must itself be a parameter type, as serde asks `T: Deserialize`.
    let mut generics = generics.clone();
    let params: Vec<syn::Ident> = generics
        .type_params()
        .map(|param| param.ident.clone())
        .collect();
    for param in &params {
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#param: ::pi_tool::schema::ParamType));
    }
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let generic = !params.is_empty();
    let turbofish = type_generics.as_turbofish();
    let build_schema = quote! {
        let validators = __PiToolValidators #turbofish { #( #idents: #validators, )* __marker: ::std::marker::PhantomData };
        let fields = ::std::vec![
            #( ::pi_tool::__private::FieldSpec::new(#json_names, &validators.#idents, &[#(#docs),*]), )*
        ];
        ::pi_tool::schema::ObjectSchema::new(fields, move |object| {
            let mut walker = ::pi_tool::__private::ObjectFields::new(object);
            #( let #idents = walker.field(#json_names, &validators.#idents); )*
            #[allow(unreachable_patterns)]
            match ( #( #idents, )* ) {
                ( #( ::std::option::Option::Some(#idents), )* ) => {
                    ::std::result::Result::Ok(#name { #( #idents, )* })
                }
                _ => ::std::result::Result::Err(walker.finish()),
            }
        })
    };
    // Built once per concrete type: a `static` for a plain struct; a generic one cannot hold a
    // static of its own (statics do not take type parameters), so it asks the runtime's
    // per-type store.
    let schema_once = if generic {
        quote! {
            ::pi_tool::__private::per_type::<::pi_tool::schema::ObjectSchema<Self>>(|| { #build_schema })
        }
    } else {
        quote! {
            static SCHEMA: ::std::sync::OnceLock<::pi_tool::schema::ObjectSchema<#name>> =
                ::std::sync::OnceLock::new();
            SCHEMA.get_or_init(|| { #build_schema })
        }
    };
    let marker = if generic {
        quote! { ::std::marker::PhantomData<fn() -> (#(#params,)*)> }
    } else {
        quote! { ::std::marker::PhantomData<()> }
    };
    quote! {
        const _: () = {
            struct __PiToolValidators #impl_generics #where_clause {
                #( #idents: ::pi_tool::schema::Validator<#types>, )*
                __marker: #marker,
            }

            impl #impl_generics ::pi_tool::schema::ObjectParams for #name #type_generics #where_clause {
                fn object_schema() -> &'static ::pi_tool::schema::ObjectSchema<Self> {
                    #schema_once
                }
            }

            impl #impl_generics ::pi_tool::schema::ParamType for #name #type_generics #where_clause {
                fn validator() -> ::pi_tool::schema::Validator<Self> {
                    ::pi_tool::schema::object::<Self>()
                }
            }
        };
    }
}
