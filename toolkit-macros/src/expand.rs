//! Code generation: the arguments and schema structs, the `Tool` impl, the spec and the link-time
//! entry.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Item, ReturnType};

use crate::ast::{Input, Param};
use crate::attr::{Task, ToolAttr, combine, flag};
use crate::valid::{unraw, validate};

/// Most parameters the thin expansion takes: `toolkit::__private::Slots` is implemented for
/// tuples of up to 12.
const THIN_PARAMETERS: usize = 12;

/// The whole pipeline: parse, validate, expand. On error the function comes back, its parameter
/// attributes removed, beside every error found, so one mistake gives one error.
pub fn tool(args: TokenStream, item: &TokenStream) -> TokenStream {
    let item: Item = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(error) => return with_errors(item, &error),
    };
    let Item::Fn(func) = item else {
        let (head, kind) = item_head(&item);
        let error = syn::Error::new_spanned(
            head,
            format!("#[tool] goes on a free `fn` or `async fn`, not on {kind}"),
        );
        return with_errors(&quote!(#item), &error);
    };
    let (attr, mut errors) = ToolAttr::parse(args);
    let (input, input_errors) = Input::from_syn(func, false);
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

/// The tokens that say what an item is (`struct Name`, `impl Type`, ...), and what it is.
fn item_head(item: &Item) -> (TokenStream, &'static str) {
    fn head(keyword: impl ToTokens, name: impl ToTokens) -> TokenStream {
        quote!(#keyword #name)
    }
    match item {
        Item::Struct(item) => (head(item.struct_token, &item.ident), "a struct"),
        Item::Enum(item) => (head(item.enum_token, &item.ident), "an enum"),
        Item::Union(item) => (head(item.union_token, &item.ident), "a union"),
        Item::Trait(item) => (head(item.trait_token, &item.ident), "a trait"),
        Item::Impl(item) => (head(item.impl_token, &item.self_ty), "an impl block"),
        Item::Mod(item) => (head(item.mod_token, &item.ident), "a module"),
        Item::Const(item) => (head(item.const_token, &item.ident), "a const"),
        Item::Static(item) => (head(item.static_token, &item.ident), "a static"),
        Item::Type(item) => (head(item.type_token, &item.ident), "a type alias"),
        other => (other.to_token_stream(), "this item"),
    }
}

/// Doc lines as prose: lines of a paragraph joined by spaces, paragraphs by a blank line.
/// The description as written: `description = ".."`, else every `#[doc]` value joined by line
/// breaks (`include_str!` included), for `toolkit::spec::describe::for_model` to clean when the spec
/// is built.
fn description(attr: &ToolAttr, input: &Input) -> TokenStream {
    if let Some(text) = &attr.description {
        return quote!(#text);
    }
    let values = &input.doc_values;
    quote!(::core::concat!(#(#values, "\n"),*))
}

fn with_errors(item: &TokenStream, error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote! {
        #errors
        #item
    }
}

/// What the parameters become, in their order.
#[derive(Default)]
struct Arguments {
    /// Fields of the struct the argument schema is derived from: the parameters' own types.
    schema_fields: Vec<TokenStream>,
    /// Fields of the struct the arguments are decoded into: one newtype per argument.
    fields: Vec<TokenStream>,
    /// The newtypes, their `Deserialize` impls and the default functions.
    items: Vec<TokenStream>,
    /// The arguments of the call of the user's function.
    call_args: Vec<TokenStream>,
    /// The thin expansion's schema: one `property` call per argument.
    properties: Vec<TokenStream>,
    /// The thin expansion's decoder: each argument's name as the arguments object spells it,
    /// its newtype, and the field it fills (settling a left-out one).
    names: Vec<String>,
    newtypes: Vec<syn::Ident>,
    settled: Vec<TokenStream>,
    /// Whether some argument carries `#[serde]` or `#[schemars]` attributes, which only the
    /// derives understand.
    attributed: bool,
    /// The state types read from the context, for the spec.
    states: Vec<TokenStream>,
    /// One `let` per state, read from the context before the call.
    state_reads: Vec<TokenStream>,
}

/// A type as its tokens write it, without the spaces between them that printing puts
/// (`db::Pool<u8>`, not `db :: Pool < u8 >`), for error messages that quote the code.
pub fn written(ty: &syn::Type) -> String {
    let printed = ty.to_token_stream().to_string();
    let mut text = String::with_capacity(printed.len());
    let mut previous = "";
    for token in printed.split(' ') {
        let glued = matches!(token, "::" | "<" | ">" | ">>" | "," | ";" | ")" | "]")
            || matches!(previous, "" | "::" | "<" | "&" | "(" | "[")
            // `Fn(u8)`: a parenthesis right after a name.
            || (token.starts_with('(') && previous.ends_with(|c: char| c.is_alphanumeric() || c == '_'));
        if !glued {
            text.push(' ');
        }
        text.push_str(token);
        previous = token;
    }
    text
}

/// A `#[state] name: &T` parameter: declared in the spec, read from the context before the call.
fn state_param(toolkit: &TokenStream, ty: &syn::Type, index: usize, out: &mut Arguments) {
    let syn::Type::Reference(reference) = ty else {
        unreachable!("rejected by validation")
    };
    let inner = &reference.elem;
    let binding = format_ident!("__toolkit_state_{}", index);
    // Spanned on the user's type: one that cannot be shared between calls fails there, once.
    let written = written(inner);
    out.states.push(quote_spanned! {inner.span()=>
        let spec = #toolkit::__private::declare_state::<#inner>(spec, #written);
    });
    out.state_reads.push(quote_spanned! {inner.span()=>
        let #binding: &#inner = match #toolkit::__private::state::<#inner>(context, self.spec()) {
            ::core::result::Result::Ok(state) => state,
            ::core::result::Result::Err(missing) => {
                return #toolkit::spec::ToolFuture::Ready(::core::result::Result::Ok(missing));
            }
        };
    });
    out.call_args.push(quote!(#binding));
}

fn arguments(toolkit: &TokenStream, input: &Input) -> Arguments {
    let mut out = Arguments::default();
    for (index, param) in input.params.iter().enumerate() {
        let arg = match param {
            Param::Receiver => {
                out.call_args.push(quote!(&*self.0));
                continue;
            }
            Param::Context(ty) => {
                // Through a trait only toolkit's `&ToolContext` has: a type of the user's that
                // is merely named `ToolContext` fails once, on itself, saying so.
                out.call_args.push(quote_spanned! {ty.span()=>
                    <#ty as #toolkit::__private::ContextParam<'_>>::from_context(context)
                });
                continue;
            }
            Param::State(state) => {
                state_param(toolkit, &state.ty, index, &mut out);
                continue;
            }
            Param::Arg(arg) => arg,
            Param::Unsupported(_) => unreachable!("rejected by validation"),
        };
        let ident = &arg.ident;
        let ty = &arg.ty;
        let docs = &arg.docs;
        let serde = &arg.serde;
        let schemars = &arg.schemars;
        let newtype = format_ident!("__ToolkitArgument{}", index);

        // An `#[arg(default = ...)]` is a function the schema shows and the decoder falls back to.
        let default_fn = arg.default.as_ref().map(|default| {
            let default_fn = format_ident!("__toolkit_default_{}", index);
            let value = &default.value;
            // The `let` names the parameter's type, so a value of another type is one error
            // on the value, "expected due to" the parameter's type (not a return type).
            out.items.push(quote_spanned! {value.span()=>
                fn #default_fn() -> #ty {
                    let value: #ty = #value;
                    value
                }
            });
            // The schema shows the default, which takes `Serialize`: say so at the `default`.
            let check = format_ident!("__toolkit_default_shown_{}", index);
            out.items.push(quote_spanned! {default.key.span()=>
                #[allow(dead_code)]
                fn #check() {
                    #toolkit::__private::default_is_shown::<#ty>();
                }
            });
            out.items.push(quote! {
                #[automatically_derived]
                impl ::core::default::Default for #newtype {
                    fn default() -> Self {
                        #newtype(#default_fn())
                    }
                }
            });
            default_fn
        });

        // The one place that needs `#ty: Deserialize`, spanned on the user's type: a type that is
        // not fails once, there, instead of once per use inside the derived code. A missing
        // argument still reaches `#ty`'s own `Deserialize`, so an `Option` decodes as `None`.
        let decode = match &default_fn {
            None => quote_spanned! {ty.span()=>
                <#ty as #toolkit::__private::DecodeArgument<'de>>::decode_argument(deserializer)
            },
            Some(default_fn) => quote_spanned! {ty.span()=>
                <#ty as #toolkit::__private::DecodeArgument<'de>>::decode_argument_or(deserializer, #default_fn)
            },
        };
        out.items.push(quote! {
            struct #newtype(#ty);

            #[automatically_derived]
            impl<'de> #toolkit::__private::serde::Deserialize<'de> for #newtype {
                fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
                where
                    D: #toolkit::__private::serde::Deserializer<'de>,
                {
                    ::core::result::Result::map(#decode, #newtype)
                }
            }
        });

        let (schema_default, default) = match &default_fn {
            None => (None, None),
            Some(default_fn) => {
                let path = default_fn.to_string();
                (
                    Some(quote!(#[serde(default = #path)])),
                    Some(quote!(#[serde(default)])),
                )
            }
        };
        out.schema_fields.push(quote! {
            #(#docs)*
            #schema_default
            #(#serde)*
            #(#schemars)*
            #ident: #ty,
        });
        out.attributed |= !serde.is_empty() || !schemars.is_empty();
        thin_argument(toolkit, arg, &newtype, default_fn.as_ref(), &mut out);
        out.fields.push(quote! {
            #default
            #(#serde)*
            #ident: #newtype,
        });
        out.call_args.push(quote!(arguments.#ident.0));
    }
    out
}

/// The thin expansion's part of one argument: its `property` call, its name and newtype, and
/// the field it fills (a left-out one settled: its default, `None`, or the "missing" error).
fn thin_argument(
    toolkit: &TokenStream,
    arg: &crate::ast::Arg,
    newtype: &syn::Ident,
    default_fn: Option<&syn::Ident>,
    out: &mut Arguments,
) {
    let ident = &arg.ident;
    let ty = &arg.ty;
    let name = unraw(ident);
    let doc = doc_text(&arg.docs);
    let (shown, settle) = match default_fn {
        None => (
            quote!(::core::option::Option::None),
            quote!(match #ident {
                ::core::option::Option::Some(value) => value,
                ::core::option::Option::None => #toolkit::__private::missing_argument::<#newtype, D::Error>(#name)?,
            }),
        ),
        // Shown when it serialises: a default that does not is reported once, by
        // `default_is_shown`, as the derive leaves it to.
        Some(default_fn) => (
            quote!(::core::option::Option::Some({
                #[allow(unused_imports)]
                use #toolkit::__private::NotShown as _;
                #toolkit::__private::MaybeShown(#default_fn()).shown()
            })),
            quote!(::core::option::Option::unwrap_or_default(#ident)),
        ),
    };
    // The type is named in the generated code, spanned on the user's type, as the derive
    // names it: a type without a schema is reported once, there.
    out.properties.push(quote_spanned! {ty.span()=>
        {
            #[allow(unused_imports)]
            use #toolkit::__private::NotOption as _;
            let is_option = #toolkit::__private::IsOption::<#ty>(::core::marker::PhantomData).is_option();
            let property = generator.subschema_for::<#ty>();
            #toolkit::__private::property(&mut schema, generator, #name, #doc, is_option, property, #shown);
        }
    });
    out.settled.push(quote!(#ident: #settle));
    out.names.push(name);
    out.newtypes.push(newtype.clone());
}

/// A parameter's doc comment as the schema derive reads it: each `#[doc]` value without its
/// first space, joined by newlines (a `concat!`, since a value may be a macro call).
fn doc_text(docs: &[syn::Attribute]) -> TokenStream {
    let mut parts = Vec::new();
    for (index, value) in docs
        .iter()
        .filter_map(|attr| attr.meta.require_name_value().ok())
        .map(|meta| &meta.value)
        .enumerate()
    {
        if index > 0 {
            parts.push(quote!("\n"));
        }
        match value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => {
                let text = text.value();
                let text = text.strip_prefix(' ').unwrap_or(&text).to_owned();
                parts.push(quote!(#text));
            }
            other => parts.push(quote!(#other)),
        }
    }
    quote!(::core::concat!(#(#parts),*))
}

/// The call of the user's function, its result made a `ToolResult`, as a `ToolFuture`.
fn run(
    toolkit: &TokenStream,
    sig: &syn::Signature,
    callee: &TokenStream,
    call_args: &[TokenStream],
) -> TokenStream {
    let fn_name = &sig.ident;
    // The conversion names the return type with the user's tokens, so an unsupported one is
    // reported once, on that type.
    let (result_ty, result_span) = match &sig.output {
        ReturnType::Default => (quote_spanned!(fn_name.span()=> ()), fn_name.span()),
        ReturnType::Type(_, ty) => (ty.to_token_stream(), ty.span()),
    };
    let call = quote!(#callee(#(#call_args),*));
    let into_result = |value: TokenStream| {
        quote_spanned! {result_span=>
            <#result_ty as #toolkit::__private::IntoToolResult>::into_tool_result(#value)
        }
    };
    if let Some(asyncness) = &sig.asyncness {
        let result = into_result(quote!(#call.await));
        // Spanned on the user's `async`: a future that is not `Send` is reported there (at the
        // coercion to the boxed `Send` future), with rustc's note on the `.await` that makes it so.
        quote_spanned! {asyncness.span=>
            #toolkit::spec::ToolFuture::Pending(::std::boxed::Box::pin(async move {
                ::core::result::Result::Ok(#result)
            }))
        }
    } else {
        let result = into_result(call);
        quote!(#toolkit::spec::ToolFuture::Ready(::core::result::Result::Ok(#result)))
    }
}

/// The spec's flags (as `with_*` calls on `ToolFlags::new()`, only those a key changes) and
/// where the tool runs: an `async fn` on the calling task, an `inline` one on the calling
/// thread, any other on a worker.
fn policy(attr: &ToolAttr, sig: &syn::Signature) -> (TokenStream, TokenStream) {
    let flags = [
        (
            "with_requires_approval",
            flag(attr.requires_approval, false),
            false,
        ),
        (
            "with_requires_admin",
            flag(attr.requires_admin, false),
            false,
        ),
        (
            "with_enabled_by_default",
            flag(attr.enabled_by_default, true),
            true,
        ),
        ("with_remote", flag(attr.remote, false), false),
        ("with_read_only", flag(attr.read_only, false), false),
        ("with_idempotent", flag(attr.idempotent, false), false),
        ("with_open_world", flag(attr.open_world, false), false),
    ]
    .into_iter()
    .filter(|(_, value, default)| value != default)
    .map(|(method, value, _)| {
        let method = format_ident!("{}", method);
        quote!(.#method(#value))
    });
    let task = attr.task.map(|task| {
        let toolkit = attr.toolkit();
        let support = match task {
            Task::Optional => format_ident!("Optional"),
            Task::Required => format_ident!("Required"),
        };
        quote!(.with_task_support(#toolkit::spec::TaskSupport::#support))
    });
    let execution = if sig.asyncness.is_some() {
        quote!(Async)
    } else if flag(attr.inline, false) {
        quote!(Inline)
    } else {
        quote!(Blocking)
    };
    (quote!(#(#flags)* #task), execution)
}

/// What the spec is given beyond its name, description and flags, when the attribute says it:
/// the preview tool and the title.
fn given(attr: &ToolAttr) -> TokenStream {
    let preview = attr
        .preview
        .as_ref()
        .map(|tool| quote!(let spec = spec.with_preview(#tool);));
    let title = attr
        .title
        .as_ref()
        .map(|title| quote!(let spec = spec.with_title(#title);));
    quote!(#preview #title)
}

/// The generated tool for one function: the schema and arguments structs, the argument
/// newtypes, `tool_struct` (named `__ToolkitTool`) and its `Tool` impl, which calls `callee`.
pub fn tool_items(
    attr: &ToolAttr,
    input: &Input,
    callee: &TokenStream,
    tool_struct: &TokenStream,
) -> TokenStream {
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
    let description = description(attr, input);
    let (flags, execution) = policy(attr, &func.sig);
    let toolkit = attr.toolkit();
    let given = given(attr);
    let serde_crate = format!("{}::__private::serde", path_text(&toolkit));
    let schemars_crate = format!("{}::__private::schemars", path_text(&toolkit));
    let Arguments {
        schema_fields,
        fields,
        items,
        call_args,
        properties,
        names,
        newtypes,
        settled,
        attributed,
        states,
        state_reads,
    } = arguments(&toolkit, input);
    let run = run(&toolkit, &func.sig, callee, &call_args);
    let schema_and_arguments = if attributed || names.len() > THIN_PARAMETERS {
        quote! {
            // Only described, never built: the schema is derived from the parameters' own types.
            #[allow(dead_code)]
            #[derive(#toolkit::__private::schemars::JsonSchema)]
            #[serde(deny_unknown_fields)]
            #[schemars(crate = #schemars_crate)]
            struct __ToolkitSchema {
                #(#schema_fields)*
            }

            #[derive(#toolkit::__private::serde::Deserialize)]
            #[serde(crate = #serde_crate, deny_unknown_fields, expecting = "an object of named arguments")]
            struct __ToolkitArguments {
                #(#fields)*
            }
        }
    } else {
        thin_schema_and_arguments(&toolkit, input, &properties, &names, &newtypes, &settled)
    };

    quote! {
        #schema_and_arguments

        #(#items)*

        #tool_struct

        #[automatically_derived]
        impl #toolkit::Tool for __ToolkitTool {
            fn spec(&self) -> &#toolkit::ToolSpec {
                static SPEC: ::std::sync::OnceLock<#toolkit::ToolSpec> = ::std::sync::OnceLock::new();
                #toolkit::__private::spec_once(&SPEC, || {
                    let spec = #toolkit::__private::spec(
                        #toolkit::__private::input_schema::<__ToolkitSchema>(),
                        #name,
                        #description,
                        #group,
                        #toolkit::spec::ToolFlags::new() #flags,
                        #toolkit::spec::Execution::#execution,
                        ::core::concat!(::core::module_path!(), " (", ::core::file!(), ":", ::core::line!(), ")"),
                    );
                    #(#states)*
                    #given
                    spec
                })
            }

            fn check_arguments(
                &self,
                arguments: &str,
            ) -> ::core::result::Result<(), #toolkit::spec::ArgumentError> {
                #toolkit::__private::parse_checked::<__ToolkitArguments>(arguments, self.spec()).map(::core::mem::drop)
            }

            fn execute<'a>(
                &'a self,
                arguments: &'a str,
                context: &'a #toolkit::ToolContext,
                _permit: &#toolkit::spec::ExecutePermit,
            ) -> #toolkit::spec::ToolFuture<'a> {
                let _ = context;
                let arguments: __ToolkitArguments = match #toolkit::__private::parse_checked(arguments, self.spec()) {
                    ::core::result::Result::Ok(arguments) => arguments,
                    ::core::result::Result::Err(error) => {
                        return #toolkit::spec::ToolFuture::Ready(::core::result::Result::Err(error));
                    }
                };
                #(#state_reads)*
                #run
            }
        }
    }
}

/// The schema and arguments types without the derives: a `JsonSchema` impl of `property` calls
/// and a `Deserialize` impl over `named_arguments`.
fn thin_schema_and_arguments(
    toolkit: &TokenStream,
    input: &Input,
    properties: &[TokenStream],
    names: &[String],
    newtypes: &[syn::Ident],
    settled: &[TokenStream],
) -> TokenStream {
    let positions = 0..names.len();
    let idents: Vec<_> = input
        .params
        .iter()
        .filter_map(|param| match param {
            Param::Arg(arg) => Some(&arg.ident),
            _ => None,
        })
        .collect();
    quote! {
        // What the schema and decoder derives would build, from generic helpers: the
        // parameters carry no attribute only the derives understand.
        struct __ToolkitSchema;

        #[automatically_derived]
        impl #toolkit::__private::schemars::JsonSchema for __ToolkitSchema {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed("__ToolkitSchema")
            }

            fn json_schema(
                generator: &mut #toolkit::__private::schemars::SchemaGenerator,
            ) -> #toolkit::__private::schemars::Schema {
                let mut schema = #toolkit::__private::object_schema();
                #(#properties)*
                schema
            }
        }

        struct __ToolkitArguments {
            #(#idents: #newtypes,)*
        }

        #[automatically_derived]
        impl<'de> #toolkit::__private::serde::Deserialize<'de> for __ToolkitArguments {
            #[inline]
            fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
            where
                D: #toolkit::__private::serde::Deserializer<'de>,
            {
                let (#(#idents,)*) = #toolkit::__private::named_arguments::<
                    D,
                    (#(::core::option::Option<#newtypes>,)*),
                    _,
                >(deserializer, &[#(#names),*], |key: &str| match key {
                    #(#names => ::core::option::Option::Some(#positions),)*
                    _ => ::core::option::Option::None,
                })?;
                ::core::result::Result::Ok(__ToolkitArguments { #(#settled,)* })
            }
        }
    }
}

/// A path as the string a `#[serde(crate = "..")]` takes.
fn path_text(path: &TokenStream) -> String {
    path.to_string().replace(' ', "")
}

/// A free function: itself, and its tool as a public handle (`NAME_TOOL`), linked into the
/// program.
fn expand(attr: &ToolAttr, input: &Input) -> TokenStream {
    let toolkit = attr.toolkit();
    let func = &input.func;
    let fn_name = &func.sig.ident;
    let vis = &func.vis;
    let handle = format_ident!("{}_TOOL", unraw(fn_name).to_uppercase());
    let doc = format!(
        "The tool made from [`{}`] by `#[tool]`: give it to `ToolRegistry::of` for a registry of chosen tools, or read its spec in a test.",
        unraw(fn_name)
    );
    let tool = tool_items(
        attr,
        input,
        &quote!(#fn_name),
        &quote!(
            struct __ToolkitTool;
        ),
    );
    quote! {
        // Parameters are values decoded from JSON for this call: taking them by value is the
        // contract, not a choice clippy should question.
        #[allow(clippy::needless_pass_by_value)]
        #func

        // A named const, also because an `impl` block takes named consts only: a `#[tool]` on an
        // associated function fails once (its name is not found as a free function), rather than
        // twice.
        #[doc = #doc]
        #[allow(dead_code)]
        #vis const #handle: &'static dyn #toolkit::Tool = {
            #tool

            #[#toolkit::__private::linkme::distributed_slice(#toolkit::__private::TOOLS)]
            #[linkme(crate = #toolkit::__private::linkme)]
            static __TOOLKIT_REGISTRATION: &'static dyn #toolkit::Tool = &__ToolkitTool;

            &__ToolkitTool
        };
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// What a user's crate compiles: generated code reaches schemars only through its public
    /// API (re-exported by toolkit), never through `_private` items that a 1.x release may
    /// change. The tool has what once needed them: a default, an `Option` and a doc heading.
    #[test]
    fn generated_code_uses_no_private_schemars_item() {
        let item = quote! {
            /// Counts.
            fn count(
                /// # How many
                ///
                /// At least one.
                #[arg(default = 2)]
                many: u32,
                /// A note.
                note: Option<String>,
            ) -> String {
                String::new()
            }
        };
        let expanded = super::tool(quote!(), &item).to_string().replace(' ', "");
        assert!(expanded.contains("schemars::"), "{expanded}");
        for private in ["schemars::_private", "_schemars_private", "_schemars"] {
            assert!(!expanded.contains(private), "{private} in {expanded}");
        }
    }

    #[test]
    fn a_type_is_written_as_code_writes_it() {
        for (source, expected) in [
            ("Db", "Db"),
            ("crate::db::Pool", "crate::db::Pool"),
            ("::std::sync::Mutex<Vec<u8>>", "::std::sync::Mutex<Vec<u8>>"),
            (
                "HashMap<String, (u8, [u16; 2])>",
                "HashMap<String, (u8, [u16; 2])>",
            ),
            (
                "Box<dyn Fn(u8) -> u8 + Send>",
                "Box<dyn Fn(u8) -> u8 + Send>",
            ),
        ] {
            let ty: syn::Type = syn::parse_str(source).expect(source);
            assert_eq!(super::written(&ty), expected, "{source}");
        }
    }
}
