//! `#[tools]` on an impl block: its `#[tool]` methods become tools sharing one registered
//! instance, taken as `&self`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Attribute, Ident, ImplItem, ImplItemFn, ItemFn, ItemImpl, LitStr, Type};

use crate::ast::Input;
use crate::attr::{ToolAttr, combine, flag};
use crate::expand::tool_items;
use crate::valid::{unraw, validate};

/// Whether an attribute is `#[tool]` or `#[toolkit::tool]`.
fn is_tool(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "tool")
}

/// The impl block with its `#[tool]` attributes taken off, and a `ToolSet` impl making one tool
/// per marked method. Errors come back beside the impl block, so one mistake gives one error.
pub fn tools(args: &TokenStream, item: &TokenStream) -> TokenStream {
    let mut block: ItemImpl = match syn::parse2(item.clone()) {
        Ok(block) => block,
        Err(error) => {
            let error = syn::Error::new(
                error.span(),
                "#[tools] goes on an inherent impl block whose `#[tool]` methods become tools",
            );
            return with_errors(item, &error);
        }
    };
    let mut errors = None;
    // Only `crate = ".."` applies to the whole block; every other key belongs to a method.
    let (block_attr, block_errors) = ToolAttr::parse(args.clone());
    if let Some(error) = block_errors {
        combine(&mut errors, error);
    }
    if !args.is_empty() && block_attr.krate.is_none() {
        combine(
            &mut errors,
            syn::Error::new_spanned(
                args,
                "#[tools] takes only `crate = \"..\"`; give each method's keys in its #[tool(..)]",
            ),
        );
    }
    let toolkit = block_attr.toolkit();
    if let Some((_, path, _)) = &block.trait_ {
        combine(
            &mut errors,
            syn::Error::new_spanned(
                path,
                "#[tools] goes on an inherent impl block, not a trait impl",
            ),
        );
    }
    if !block.generics.params.is_empty() || block.generics.where_clause.is_some() {
        combine(
            &mut errors,
            syn::Error::new_spanned(
                &block.generics,
                "a #[tools] impl block cannot be generic: its tools are registered for one concrete type",
            ),
        );
    }
    let self_ty = block.self_ty.clone();
    let mut makers = Vec::new();
    let mut generated = Vec::new();
    let mut marked = Vec::new();
    for item in &mut block.items {
        if let ImplItem::Fn(method) = item
            && let Some((make_fn, tokens, tool)) =
                method_tool(method, &self_ty, block_attr.krate.as_ref(), &mut errors)
        {
            generated.push(tokens);
            makers.push(make_fn);
            marked.push(tool);
        }
    }
    check_previews(&marked, &mut errors);
    if makers.is_empty() && errors.is_none() {
        combine(
            &mut errors,
            syn::Error::new_spanned(
                &block.self_ty,
                "a #[tools] impl block needs at least one method marked #[tool]",
            ),
        );
    }
    if let Some(error) = errors {
        return with_errors(&quote!(#block), &error);
    }
    let written = crate::expand::written(&self_ty);
    quote! {
        // Parameters are values decoded from JSON for this call: taking them by value is the
        // contract, not a choice clippy should question.
        #[allow(clippy::needless_pass_by_value)]
        #block

        const _: () = {
            #(#generated)*

            // Linked with the block, so that a type never registered is reported by name.
            #[#toolkit::__private::linkme::distributed_slice(#toolkit::__private::TOOL_SETS)]
            #[linkme(crate = #toolkit::__private::linkme)]
            static __TOOLKIT_SET: #toolkit::__private::ToolSetEntry = #toolkit::__private::ToolSetEntry {
                type_id: ::core::any::TypeId::of::<#self_ty>,
                written: #written,
                place: ::core::concat!(::core::module_path!(), " (", ::core::file!(), ":", ::core::line!(), ")"),
            };

            #[automatically_derived]
            impl #toolkit::spec::ToolSet for #self_ty {
                fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #toolkit::Tool>> {
                    ::std::vec![#(#makers(::std::sync::Arc::clone(&self))),*]
                }
            }
        };
    }
}

/// What one method's tool says of previews: its name, its flags, the preview it names.
struct Marked {
    name: String,
    read_only: bool,
    requires_approval: bool,
    preview: Option<LitStr>,
}

/// Each preview that names a method of the same block is checked here, when compiled, as the
/// registry would check it: the preview tool must be read-only and need no approval. A preview
/// named elsewhere is checked when registered.
fn check_previews(marked: &[Marked], errors: &mut Option<syn::Error>) {
    for tool in marked {
        let Some(preview) = &tool.preview else {
            continue;
        };
        let Some(target) = marked.iter().find(|other| other.name == preview.value()) else {
            continue;
        };
        let problem = if !target.read_only {
            "is not marked read-only, and a preview runs before anyone approves: mark it \
             `#[tool(read_only)]` if it only reads, or name a tool that only reads"
        } else if target.requires_approval {
            "requires approval itself, and a preview runs before anyone approves"
        } else {
            continue;
        };
        combine(
            errors,
            syn::Error::new_spanned(preview, format!("preview tool `{}` {problem}", target.name)),
        );
    }
}

/// A method marked `#[tool]`: the mark and its parameter attributes taken off, a function
/// making its tool from the shared instance, and what it says of previews. `None` for a method
/// not marked, or with errors (added to `errors`).
fn method_tool(
    method: &mut ImplItemFn,
    self_ty: &Type,
    krate: Option<&syn::Path>,
    errors: &mut Option<syn::Error>,
) -> Option<(Ident, TokenStream, Marked)> {
    let position = method.attrs.iter().position(is_tool)?;
    let tool_attr = method.attrs.remove(position);
    let args = match &tool_attr.meta {
        syn::Meta::Path(_) => TokenStream::new(),
        syn::Meta::List(list) => list.tokens.clone(),
        syn::Meta::NameValue(value) => {
            combine(
                errors,
                syn::Error::new_spanned(value, "write #[tool] or #[tool(key = ..)]"),
            );
            return None;
        }
    };
    let (mut attr, attr_errors) = ToolAttr::parse(args);
    if let Some(error) = attr_errors {
        combine(errors, error);
    }
    if attr.krate.is_none() {
        attr.krate = krate.cloned();
    }
    let toolkit = attr.toolkit();
    let func = ItemFn {
        attrs: method.attrs.clone(),
        vis: method.vis.clone(),
        sig: method.sig.clone(),
        block: Box::new(method.block.clone()),
    };
    let (input, input_errors) = Input::from_syn(func, true);
    // The method goes back without its parameter attributes.
    method.sig = input.func.sig.clone();
    if let Some(error) = input_errors {
        combine(errors, error);
        return None;
    }
    if let Err(error) = validate(&attr, &input) {
        combine(errors, error);
        return None;
    }
    let fn_name = &input.func.sig.ident;
    let marked = Marked {
        name: attr
            .name
            .as_ref()
            .map_or_else(|| unraw(fn_name), LitStr::value),
        read_only: flag(attr.read_only, false),
        requires_approval: flag(attr.requires_approval, false),
        preview: attr.preview.clone(),
    };
    let make_fn = format_ident!("__toolkit_method_{}", fn_name);
    let tool = tool_items(
        &attr,
        &input,
        &quote!(<#self_ty>::#fn_name),
        &quote! {
            #[allow(dead_code)]
            struct __ToolkitTool(::std::sync::Arc<#self_ty>);
        },
    );
    let tokens = quote! {
        fn #make_fn(this: ::std::sync::Arc<#self_ty>) -> ::std::sync::Arc<dyn #toolkit::Tool> {
            #tool
            ::std::sync::Arc::new(__ToolkitTool(this))
        }
    };
    Some((make_fn, tokens, marked))
}

fn with_errors(item: &TokenStream, error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote! {
        #errors
        #item
    }
}
