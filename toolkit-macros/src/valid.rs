//! Checks on a parsed `#[tool]`, each error spanned on the tokens at fault.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{FnArg, GenericArgument, GenericParam, LitStr, PathArguments, ReturnType, Type};

use crate::ast::{ContextUse, Input, Param, context_use};
use crate::attr::{ToolAttr, combine, flag};

/// Longest tool name providers accept.
const NAME_LIMIT: usize = 64;

/// Longest tool title, in characters (`toolkit::limits::TOOL_TITLE_LIMIT`).
const TITLE_LIMIT: usize = 100;

/// Everything checked; `Err` holds all errors found.
/// Whether the tool has a description: doc text, text that only the compiler reads
/// (`#[doc = include_str!("..")]`), or `description = ".."`.
fn described(attr: &ToolAttr, input: &Input) -> bool {
    input.docs.iter().any(|line| !line.trim().is_empty())
        || input
            .doc_values
            .iter()
            .any(|value| !matches!(value, syn::Expr::Lit(_)))
        || attr
            .description
            .as_ref()
            .is_some_and(|text| !text.value().trim().is_empty())
        // Given with a wrong value: that is the one error.
        || attr.invalid.contains(&"description")
}

/// The tool's name, its preview tool's name and its group, each by the providers' rule.
fn check_names(attr: &ToolAttr, sig: &syn::Signature, errors: &mut Option<syn::Error>) {
    if let Some(name) = &attr.name {
        if let Err(problem) = check_name(&name.value()) {
            combine(
                errors,
                syn::Error::new_spanned(name, format!("invalid tool name: {problem}")),
            );
        }
    } else if let Err(problem) = check_name(&unraw(&sig.ident)) {
        combine(
            errors,
            syn::Error::new_spanned(
                &sig.ident,
                format!("invalid tool name: {problem}; give one with #[tool(name = \"...\")]"),
            ),
        );
    }
    if let Some(preview) = &attr.preview {
        if let Err(problem) = check_name(&preview.value()) {
            combine(
                errors,
                syn::Error::new_spanned(preview, format!("invalid preview tool name: {problem}")),
            );
        } else if !flag(attr.requires_approval, false)
            && !attr.invalid.contains(&"requires_approval")
        {
            combine(
                errors,
                syn::Error::new_spanned(
                    preview,
                    "this tool requires no approval, so no run stops to show a preview: add \
                     `requires_approval` or remove `preview`",
                ),
            );
        } else if attr
            .name
            .as_ref()
            .map_or_else(|| unraw(&sig.ident), LitStr::value)
            == preview.value()
        {
            combine(
                errors,
                syn::Error::new_spanned(
                    preview,
                    "a tool cannot preview itself: a preview runs before anyone approves, so it \
                     must be another tool, one that only reads",
                ),
            );
        }
    }
    if let Some(group) = &attr.group
        && let Err(problem) = check_name(&group.value())
    {
        combine(
            errors,
            syn::Error::new_spanned(group, format!("invalid tool group: {problem}")),
        );
    }
}

pub fn validate(attr: &ToolAttr, input: &Input) -> Result<(), syn::Error> {
    let mut errors = None;
    let sig = &input.func.sig;

    check_names(attr, sig, &mut errors);
    if let Some(title) = &attr.title
        && let Err(problem) = check_title(&title.value())
    {
        combine(&mut errors, syn::Error::new_spanned(title, problem));
    }
    if !described(attr, input) {
        combine(
            &mut errors,
            syn::Error::new_spanned(
                &sig.ident,
                "a #[tool] function needs a doc comment (or `description = \"..\"`): it is the tool's description for the model",
            ),
        );
    }
    if let Some(error) = inline_on_async(attr, sig) {
        combine(&mut errors, error);
    }
    if let Some(constness) = &sig.constness {
        combine(
            &mut errors,
            syn::Error::new_spanned(constness, "a #[tool] function cannot be `const`"),
        );
    }
    if let Some(unsafety) = &sig.unsafety {
        combine(
            &mut errors,
            syn::Error::new_spanned(unsafety, "a #[tool] function cannot be `unsafe`"),
        );
    }
    if let Some(abi) = &sig.abi {
        combine(
            &mut errors,
            syn::Error::new_spanned(abi, "a #[tool] function cannot have an `extern` ABI"),
        );
    }
    if let Some(variadic) = &sig.variadic {
        combine(
            &mut errors,
            syn::Error::new_spanned(variadic, "a #[tool] function cannot be variadic"),
        );
    }
    // Lifetime parameters alone are harmless; a parameter type that uses one is reported on the
    // lifetime, below.
    let generic = sig
        .generics
        .params
        .iter()
        .any(|param| !matches!(param, GenericParam::Lifetime(_)));
    let generics: Option<&dyn ToTokens> = if generic {
        Some(&sig.generics)
    } else {
        sig.generics.where_clause.as_ref().map(|clause| clause as _)
    };
    if let Some(generics) = generics {
        combine(
            &mut errors,
            syn::Error::new_spanned(
                generics,
                "a #[tool] function cannot be generic: its arguments are decoded from JSON into concrete types",
            ),
        );
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Some(impl_trait) = impl_trait_in(ty)
    {
        combine(
            &mut errors,
            syn::Error::new_spanned(
                impl_trait,
                "a #[tool] function must name its return type (`ToolResult`, `String` or `Result<_, E: Display>`), not an `impl Trait`",
            ),
        );
    }

    let mut context_seen = false;
    for param in &input.params {
        if let Err(error) = check_param(param, input.method, &mut context_seen) {
            combine(&mut errors, error);
        }
    }
    errors.map_or(Ok(()), Err)
}

/// Why a receiver cannot be a tool's, and the fix.
fn receiver_error(receiver: &syn::Receiver, method: bool) -> &'static str {
    if !method {
        "a #[tool] function with `self` is a method: mark its impl block `#[toolkit::tools]` (and \
         take `&self`: every call shares the one registered instance)"
    } else if receiver.reference.is_some() && receiver.mutability.is_some() {
        "a #[tool] method takes `&self`, not `&mut self`: every call shares the one registered \
         instance, so none may hold it exclusively; keep what changes behind a `Mutex` or an \
         atomic inside the type"
    } else {
        "a #[tool] method takes `&self`: every call shares the one registered instance, so none \
         may take it by value"
    }
}

fn check_param(param: &Param, method: bool, context_seen: &mut bool) -> Result<(), syn::Error> {
    match param {
        Param::State(state) => match &state.ty {
            Type::Reference(reference) if reference.mutability.is_none() => {
                if let Some(lifetime) = &reference.lifetime {
                    return Err(syn::Error::new_spanned(
                        lifetime,
                        "a #[state] parameter borrows from the context for the call: write `&T`, without a lifetime",
                    ));
                }
                Ok(())
            }
            Type::Reference(reference) => Err(syn::Error::new_spanned(
                reference,
                "a #[state] parameter is shared by every call: take it as `&T`, never `&mut T` (use a `Mutex` inside for changes)",
            )),
            other => Err(syn::Error::new_spanned(
                other,
                "a #[state] parameter is borrowed from the context: write `&T` for a state of type `T`",
            )),
        },
        Param::Receiver => Ok(()),
        Param::Unsupported(input) => match &**input {
            FnArg::Receiver(receiver) => Err(syn::Error::new_spanned(
                receiver,
                receiver_error(receiver, method),
            )),
            FnArg::Typed(typed) => Err(syn::Error::new_spanned(
                &typed.pat,
                "a #[tool] parameter must be a plain name (its name is the argument's name); destructure inside the body",
            )),
        },
        Param::Context(ty) => match context_use(ty) {
            ContextUse::Shared if *context_seen => Err(syn::Error::new_spanned(
                ty,
                "a #[tool] function takes at most one `&ToolContext` parameter",
            )),
            ContextUse::Shared => {
                *context_seen = true;
                Ok(())
            }
            ContextUse::Mutable => Err(syn::Error::new_spanned(
                ty,
                "a #[tool] function takes the context as `&ToolContext`: the seam lends it shared, never `&mut`",
            )),
            ContextUse::Owned | ContextUse::None => Err(syn::Error::new_spanned(
                ty,
                "a #[tool] function takes the context by reference, as `&ToolContext`: the seam lends it to the tool",
            )),
        },
        Param::Arg(arg) => {
            if let Some((tokens, what, why)) = unnamed_part(&arg.ty) {
                return Err(syn::Error::new_spanned(
                    tokens,
                    format!("a #[tool] parameter cannot be {what}: {why}"),
                ));
            }
            if let Some(default) = &arg.default
                && is_option(&arg.ty)
            {
                return Err(syn::Error::new_spanned(
                    &default.key,
                    "an `Option` parameter is already optional (missing means `None`); remove `default` or use the inner type",
                ));
            }
            Ok(())
        }
    }
}

/// `inline` on an `async fn`, which runs on the calling task anyway.
fn inline_on_async(attr: &ToolAttr, sig: &syn::Signature) -> Option<syn::Error> {
    let inline = attr.inline.filter(|inline| inline.value)?;
    sig.asyncness?;
    Some(syn::Error::new(
        inline.span,
        "`inline` is for a plain `fn` whose work is tiny; an `async fn` already runs on the calling task",
    ))
}

/// `[A-Za-z0-9_-]{1,64}`, or what is wrong: the rule `toolkit::spec::check_tool_name` applies at run
/// time, checked here at compile time (a test below proves the two agree).
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("it is empty; use 1 to 64 of A-Z, a-z, 0-9, `_` and `-`".to_owned());
    }
    if name.len() > NAME_LIMIT {
        return Err(format!(
            "it is {} bytes long; the limit is {NAME_LIMIT}",
            name.len()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "{bad:?} is not allowed; use A-Z, a-z, 0-9, `_` and `-`"
        ));
    }
    Ok(())
}

/// One line of 1 to 100 characters, not all whitespace, or what is wrong and the fix: the rule
/// `toolkit::spec::check_tool_title` applies at run time (a test below proves the two agree).
fn check_title(title: &str) -> Result<(), String> {
    if title.trim().is_empty() {
        return Err("the title is empty: give a short label people read \
             (`title = \"Read a file\"`), or remove `title` and the description's first \
             sentence is the title"
            .to_owned());
    }
    if title.contains(['\n', '\r']) {
        return Err(
            "a title is one line: keep it a short label (`title = \"Read a file\"`) \
             and put the details in the doc comment, which is the description"
                .to_owned(),
        );
    }
    let length = title.chars().count();
    if length > TITLE_LIMIT {
        return Err(format!(
            "the title is {length} characters long; the limit is {TITLE_LIMIT}: keep it a short \
             label and put the details in the doc comment, which is the description"
        ));
    }
    Ok(())
}

/// The function's name without a raw-identifier prefix.
pub fn unraw(ident: &syn::Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#")
        .map_or_else(|| name.clone(), str::to_owned)
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|segment| segment.ident == "Option"))
}

/// Why an argument cannot borrow.
const OWNED: &str = "arguments are decoded from JSON into owned values (use `String` for text)";
/// Why a reference is not an argument, and the two references a tool may take.
const REFERENCE: &str = "arguments are decoded from JSON into owned values (use `String` for text); the only references a tool takes are the context, written `&ToolContext` by that name (not an alias), and a state, `#[state] name: &T`";
/// Why an argument needs a named type.
const CONCRETE: &str = "an argument is decoded from JSON into one concrete type";

/// The first part of a type that borrows or hides its type: its tokens, a phrase for it, and why
/// a tool cannot take it.
fn unnamed_part(ty: &Type) -> Option<(TokenStream, &'static str, &'static str)> {
    match ty {
        Type::Reference(reference) => Some((reference.to_token_stream(), "a reference", REFERENCE)),
        Type::ImplTrait(impl_trait) => Some((
            impl_trait.to_token_stream(),
            "an `impl Trait` type",
            CONCRETE,
        )),
        Type::TraitObject(object) => Some((object.to_token_stream(), "a trait object", CONCRETE)),
        Type::Ptr(pointer) => Some((pointer.to_token_stream(), "a raw pointer", OWNED)),
        Type::BareFn(function) => {
            Some((function.to_token_stream(), "a function pointer", CONCRETE))
        }
        Type::Array(array) => unnamed_part(&array.elem),
        Type::Slice(slice) => unnamed_part(&slice.elem),
        Type::Paren(inner) => unnamed_part(&inner.elem),
        Type::Group(inner) => unnamed_part(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(unnamed_part),
        Type::Path(path) => {
            path.path
                .segments
                .iter()
                .find_map(|segment| match &segment.arguments {
                    PathArguments::AngleBracketed(args) => {
                        args.args.iter().find_map(|arg| match arg {
                            // `Cow<'static, str>` owns what it decodes; any other lifetime borrows.
                            GenericArgument::Lifetime(lifetime) if lifetime.ident != "static" => {
                                Some((lifetime.to_token_stream(), "a type with a lifetime", OWNED))
                            }
                            GenericArgument::Type(inner) => unnamed_part(inner),
                            _ => None,
                        })
                    }
                    _ => None,
                })
        }
        _ => None,
    }
}

/// The first `impl Trait` inside a type.
fn impl_trait_in(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Reference(reference) => impl_trait_in(&reference.elem),
        Type::Array(array) => impl_trait_in(&array.elem),
        Type::Slice(slice) => impl_trait_in(&slice.elem),
        Type::Paren(inner) => impl_trait_in(&inner.elem),
        Type::Group(inner) => impl_trait_in(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(impl_trait_in),
        Type::Path(path) => path.path.segments.iter().find_map(|segment| {
            let PathArguments::AngleBracketed(args) = &segment.arguments else {
                return None;
            };
            args.args.iter().find_map(|arg| match arg {
                GenericArgument::Type(inner) => impl_trait_in(inner),
                _ => None,
            })
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{check_name, check_title};

    /// Names at every edge of the rule: each ASCII character alone and inside a name, lengths
    /// around the limit, non-ASCII letters and digits, a raw identifier's prefix.
    fn corpus() -> Vec<String> {
        let mut names: Vec<String> = (0u8..=0x7f)
            .map(char::from)
            .flat_map(|c| [c.to_string(), format!("ab{c}cd")])
            .collect();
        for len in [0, 1, 2, 63, 64, 65, 200] {
            names.push("x".repeat(len));
            names.push("é".repeat(len / 2));
        }
        names.extend(
            [
                "read_file",
                "a-b_c9",
                "ünïcode",
                "٣",
                "ｆｕｌｌ",
                "r#type",
                "with space",
                "tab\t",
            ]
            .map(str::to_owned),
        );
        names
    }

    #[test]
    fn the_compile_time_rule_is_the_run_time_rule() {
        for name in corpus() {
            assert_eq!(
                check_name(&name).is_ok(),
                toolkit::spec::check_tool_name(&name).is_ok(),
                "{name:?}"
            );
        }
    }

    /// Titles at every edge of the rule: empty, whitespace, each line break, lengths around the
    /// limit in one-byte and two-byte characters.
    #[test]
    fn the_compile_time_title_rule_is_the_run_time_rule() {
        let mut titles: Vec<String> = [
            "",
            " ",
            "\t",
            "Read a file",
            "Read\na file",
            "Read a file\n",
            "Read\r\na",
            "\r",
            " padded ",
            "Tab\tinside",
            "ünïcode ✓",
        ]
        .map(str::to_owned)
        .to_vec();
        for len in [1, 99, 100, 101, 200] {
            titles.push("x".repeat(len));
            titles.push("é".repeat(len));
        }
        for title in titles {
            assert_eq!(
                check_title(&title).is_ok(),
                toolkit::spec::check_tool_title(&title).is_ok(),
                "{title:?}"
            );
        }
    }
}
