//! Code generation: the arguments struct, the `Tool` impl, the spec and the link-time entry.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Item, ReturnType};

use crate::ast::{Input, Param};
use crate::attr::{ToolAttr, combine, flag};
use crate::valid::{unraw, validate};

/// The whole pipeline: parse, validate, expand. On error the function comes back, its parameter
/// attributes removed, beside every error found, so one mistake gives one error.
pub fn tool(args: TokenStream, item: &TokenStream) -> TokenStream {
    let item: Item = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(error) => return with_errors(item, &error),
    };
    let Item::Fn(func) = item else {
        let error = syn::Error::new_spanned(
            &item,
            "#[tool] goes on a free `fn` or `async fn` with a doc comment",
        );
        return with_errors(&quote!(#item), &error);
    };
    let mut errors = None;
    let attr = ToolAttr::parse(args).unwrap_or_else(|error| {
        combine(&mut errors, error);
        ToolAttr::default()
    });
    let (input, input_errors) = Input::from_syn(func);
    if let Some(error) = input_errors {
        combine(&mut errors, error);
    }
    if let Err(error) = validate(&attr, &input) {
        combine(&mut errors, error);
    }
    match errors {
        None => expand(&attr, &input),
        Some(error) => {
            let func = &input.func;
            with_errors(&quote!(#func), &error)
        }
    }
}

/// Doc lines as prose: lines of a paragraph joined by spaces, paragraphs by a blank line.
fn description(lines: &[String]) -> String {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in lines.iter().map(|line| line.trim()) {
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    paragraphs.join("\n\n")
}

fn with_errors(item: &TokenStream, error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote! {
        #errors
        #item
    }
}

/// The fields of the arguments struct, the default functions they name, and the arguments of the
/// call of the user's function, in its parameter order.
fn arguments(input: &Input) -> (Vec<TokenStream>, Vec<TokenStream>, Vec<TokenStream>) {
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    let mut call_args = Vec::new();
    for (index, param) in input.params.iter().enumerate() {
        match param {
            Param::Context(_) => call_args.push(quote!(context)),
            Param::Arg(arg) => {
                let ident = &arg.ident;
                let ty = &arg.ty;
                let docs = &arg.docs;
                let passthrough = &arg.passthrough;
                let default_attr = arg.default.as_ref().map(|default| {
                    let default_fn = format_ident!("__toolkit_default_{}", index);
                    let value = &default.value;
                    let path = default_fn.to_string();
                    defaults.push(quote_spanned! {value.span()=>
                        fn #default_fn() -> #ty { #value }
                    });
                    quote!(#[serde(default = #path)])
                });
                fields.push(quote! {
                    #(#docs)*
                    #default_attr
                    #(#passthrough)*
                    #ident: #ty,
                });
                call_args.push(quote!(arguments.#ident));
            }
            Param::Unsupported(_) => unreachable!("rejected by validation"),
        }
    }
    (fields, defaults, call_args)
}

fn expand(attr: &ToolAttr, input: &Input) -> TokenStream {
    let func = &input.func;
    let fn_name = &func.sig.ident;
    let name = attr
        .name
        .as_ref()
        .map_or_else(|| unraw(fn_name), syn::LitStr::value);
    let group = attr
        .group
        .as_ref()
        .map_or_else(|| "default".to_owned(), syn::LitStr::value);
    let description = description(&input.docs);
    let requires_approval = flag(attr.requires_approval, false);
    let requires_admin = flag(attr.requires_admin, false);
    let enabled_by_default = flag(attr.enabled_by_default, true);
    let remote = flag(attr.remote, false);

    let (fields, defaults, call_args) = arguments(input);
    let result_span = match &func.sig.output {
        ReturnType::Default => fn_name.span(),
        ReturnType::Type(_, ty) => ty.span(),
    };
    let call = quote!(#fn_name(#(#call_args),*));
    let into_result = |value: TokenStream| {
        quote_spanned! {result_span=>
            ::toolkit::__private::IntoToolResult::into_tool_result(#value)
        }
    };
    let run = if func.sig.asyncness.is_some() {
        let result = into_result(quote!(#call.await));
        quote! {
            ::toolkit::ToolFuture::Pending(::std::boxed::Box::pin(async move {
                ::core::result::Result::Ok(#result)
            }))
        }
    } else {
        let result = into_result(call);
        quote!(::toolkit::ToolFuture::Ready(::core::result::Result::Ok(#result)))
    };

    quote! {
        // Parameters are values decoded from JSON for this call: taking them by value is the
        // contract, not a choice clippy should question.
        #[allow(clippy::needless_pass_by_value)]
        #func

        const _: () = {
            #[derive(::toolkit::__private::serde::Deserialize, ::toolkit::__private::schemars::JsonSchema)]
            #[serde(crate = "::toolkit::__private::serde", deny_unknown_fields, expecting = "an object of named arguments")]
            #[schemars(crate = "::toolkit::__private::schemars")]
            struct __ToolkitArguments {
                #(#fields)*
            }

            #(#defaults)*

            struct __ToolkitTool;

            #[automatically_derived]
            impl ::toolkit::Tool for __ToolkitTool {
                fn spec(&self) -> &::toolkit::ToolSpec {
                    static SPEC: ::std::sync::OnceLock<::toolkit::ToolSpec> = ::std::sync::OnceLock::new();
                    SPEC.get_or_init(|| {
                        ::toolkit::__private::spec::<__ToolkitArguments>(
                            #name,
                            #description,
                            #group,
                            ::toolkit::ToolFlags {
                                requires_approval: #requires_approval,
                                requires_admin: #requires_admin,
                                enabled_by_default: #enabled_by_default,
                                remote: #remote,
                            },
                            ::core::concat!(::core::module_path!(), " (", ::core::file!(), ":", ::core::line!(), ")"),
                        )
                    })
                }

                fn execute<'a>(
                    &'a self,
                    arguments: &'a str,
                    context: &'a ::toolkit::ToolContext,
                ) -> ::toolkit::ToolFuture<'a> {
                    let _ = context;
                    let arguments: __ToolkitArguments = match ::toolkit::__private::parse_arguments(arguments) {
                        ::core::result::Result::Ok(arguments) => arguments,
                        ::core::result::Result::Err(error) => {
                            return ::toolkit::ToolFuture::Ready(::core::result::Result::Err(error));
                        }
                    };
                    #run
                }
            }

            #[::toolkit::__private::linkme::distributed_slice(::toolkit::__private::TOOLS)]
            #[linkme(crate = ::toolkit::__private::linkme)]
            static __TOOLKIT_REGISTRATION: &'static dyn ::toolkit::Tool = &__ToolkitTool;
        };
    }
}
