//! A typed view of the function under `#[tool]`.

use syn::{Attribute, Expr, FnArg, Ident, ItemFn, Pat, Type};

use crate::attr::combine;

/// The function, its documentation and its parameters.
pub struct Input {
    /// The function as it will be emitted: parameter attributes removed.
    pub func: ItemFn,
    /// Lines of the function's doc comment, where they are literal text.
    pub docs: Vec<String>,
    /// The value of each `#[doc = ..]` in order: literal text, or a macro such as
    /// `include_str!`, read when the crate compiles.
    pub doc_values: Vec<Expr>,
    pub params: Vec<Param>,
    /// A method of a `#[tools]` impl block.
    pub method: bool,
}

pub enum Param {
    /// `&self` of a method in a `#[tools]` impl: the registered instance.
    Receiver,
    /// `&ToolContext`, injected by the seam.
    Context(Box<Type>),
    /// `#[state] name: &T`: a `T` read from the context, declared in the spec.
    State(Box<State>),
    /// An argument the model fills in.
    Arg(Box<Arg>),
    /// A receiver or a pattern: reported by validation.
    Unsupported(Box<FnArg>),
}

pub struct State {
    /// The parameter's type as written (`&T` when valid).
    pub ty: Type,
}

pub struct Arg {
    pub ident: Ident,
    pub ty: Type,
    /// `#[doc]` attributes, for the schema's description.
    pub docs: Vec<Attribute>,
    /// `#[serde(..)]` attributes, passed on to the arguments and the schema structs.
    pub serde: Vec<Attribute>,
    /// `#[schemars(..)]` attributes, passed on to the schema struct.
    pub schemars: Vec<Attribute>,
    /// `#[arg(default = EXPR)]`.
    pub default: Option<ArgDefault>,
}

pub struct ArgDefault {
    /// The `default` key, for errors.
    pub key: Ident,
    pub value: Expr,
}

/// What a parameter's type is to the seam.
pub enum ContextUse {
    /// `&ToolContext`
    Shared,
    /// `&mut ToolContext`
    Mutable,
    /// `ToolContext` by value
    Owned,
    /// Not the context at all.
    None,
}

/// The value of each `#[doc = ..]`, in order.
fn doc_values(attrs: &[Attribute]) -> Vec<Expr> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(name_value) => Some(name_value.value.clone()),
            _ => None,
        })
        .collect()
}

impl Input {
    /// Reads the function, with every error in parameter attributes found on the way. A method
    /// of a `#[tools]` impl (`method`) may take `&self`.
    pub fn from_syn(mut func: ItemFn, method: bool) -> (Self, Option<syn::Error>) {
        let docs = doc_lines(&func.attrs);
        let doc_values = doc_values(&func.attrs);
        let mut params = Vec::new();
        let mut errors = None;
        for input in &mut func.sig.inputs {
            let FnArg::Typed(typed) = input else {
                let shared_self = matches!(input, FnArg::Receiver(receiver)
                    if receiver.reference.is_some() && receiver.mutability.is_none() && receiver.colon_token.is_none());
                if method && shared_self {
                    params.push(Param::Receiver);
                } else {
                    params.push(Param::Unsupported(Box::new(input.clone())));
                }
                continue;
            };
            let mut attrs = std::mem::take(&mut typed.attrs);
            if let Some(position) = attrs.iter().position(|attr| attr.path().is_ident("state")) {
                let key = attrs.remove(position);
                if !matches!(key.meta, syn::Meta::Path(_)) {
                    combine(
                        &mut errors,
                        syn::Error::new_spanned(
                            &key.meta,
                            "`#[state]` takes nothing: the parameter's type `&T` says which state it reads",
                        ),
                    );
                }
                // Doc comments may say what the state is for; nothing else applies to it.
                for attr in attrs.iter().filter(|attr| !attr.path().is_ident("doc")) {
                    combine(
                        &mut errors,
                        syn::Error::new_spanned(
                            attr.path(),
                            "a #[state] parameter is read from the context, not decoded from the arguments: only doc comments go with it",
                        ),
                    );
                }
                params.push(Param::State(Box::new(State {
                    ty: (*typed.ty).clone(),
                })));
                continue;
            }
            if !matches!(context_use(&typed.ty), ContextUse::None) {
                params.push(Param::Context(typed.ty.clone()));
                continue;
            }
            let Pat::Ident(pat) = &*typed.pat else {
                params.push(Param::Unsupported(Box::new(FnArg::Typed(typed.clone()))));
                continue;
            };
            let mut arg = Arg {
                ident: pat.ident.clone(),
                ty: (*typed.ty).clone(),
                docs: Vec::new(),
                serde: Vec::new(),
                schemars: Vec::new(),
                default: None,
            };
            for attr in attrs {
                if attr.path().is_ident("doc") {
                    arg.docs.push(attr);
                } else if attr.path().is_ident("serde") {
                    match check_serde_attr(&attr) {
                        Ok(()) => arg.serde.push(attr),
                        Err(error) => combine(&mut errors, error),
                    }
                } else if attr.path().is_ident("schemars") {
                    arg.schemars.push(attr);
                } else if attr.path().is_ident("arg") {
                    if let Err(error) = parse_arg_attr(&attr, &mut arg) {
                        combine(&mut errors, error);
                    }
                } else {
                    combine(
                        &mut errors,
                        syn::Error::new_spanned(
                            attr.path(),
                            "unsupported attribute on a tool parameter; expected a doc comment, `#[state]`, `#[arg(default = ...)]`, `#[serde(...)]` or `#[schemars(...)]`",
                        ),
                    );
                }
            }
            params.push(Param::Arg(Box::new(arg)));
        }
        (
            Input {
                func,
                docs,
                doc_values,
                params,
                method,
            },
            errors,
        )
    }
}

fn parse_arg_attr(attr: &Attribute, arg: &mut Arg) -> Result<(), syn::Error> {
    attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("default") {
            let key = meta
                .path
                .get_ident()
                .cloned()
                .expect("checked to be an ident");
            if arg.default.is_some() {
                return Err(meta.error("duplicate `default` for this parameter"));
            }
            let value: Expr = meta.value()?.parse()?;
            arg.default = Some(ArgDefault { key, value });
            Ok(())
        } else {
            Err(meta.error("unknown #[arg] key; expected `default = ...`"))
        }
    })
}

/// Rejects the `#[serde]` keys that would change how a parameter is decoded: the macro decodes
/// each argument itself (so that a type which is not `Deserialize` fails once, on the type), a
/// missing argument is `None` for an `Option` or `#[arg(default = ...)]`, nothing else, and the
/// decoder takes no name the schema does not show (an `alias`).
fn check_serde_attr(attr: &Attribute) -> Result<(), syn::Error> {
    attr.parse_nested_meta(|meta| {
        let message = if ["default", "skip", "skip_deserializing"]
            .iter()
            .any(|key| meta.path.is_ident(key))
        {
            Some("give a tool parameter its default with `#[arg(default = ...)]`")
        } else if meta.path.is_ident("alias") {
            Some(
                "the schema cannot list an alias, so the model would never be told of it; name the \
                 parameter as the model calls it, or use `#[serde(rename = \"..\")]`",
            )
        } else if ["with", "deserialize_with"]
            .iter()
            .any(|key| meta.path.is_ident(key))
        {
            Some(
                "a tool parameter is decoded by its type's `Deserialize`; wrap custom decoding in a type",
            )
        } else {
            None
        };
        // Step over the value so that the keys after it are read too.
        if meta.input.peek(syn::Token![=]) {
            let _: Expr = meta.value()?.parse()?;
        } else if meta.input.peek(syn::token::Paren) {
            let _: proc_macro2::Group = meta.input.parse()?;
        }
        match message {
            Some(message) => Err(syn::Error::new_spanned(
                &meta.path,
                format!("`#[serde({})]` is not supported on a #[tool] parameter: {message}", path_text(&meta.path)),
            )),
            None => Ok(()),
        }
    })
}

fn path_text(path: &syn::Path) -> String {
    path.get_ident()
        .map_or_else(String::new, ToString::to_string)
}

/// Whether a type is the tool context, and how it is taken.
pub fn context_use(ty: &Type) -> ContextUse {
    match ty {
        Type::Reference(reference) if names_context(&reference.elem) => {
            if reference.mutability.is_some() {
                ContextUse::Mutable
            } else {
                ContextUse::Shared
            }
        }
        other if names_context(other) => ContextUse::Owned,
        _ => ContextUse::None,
    }
}

fn names_context(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "ToolContext"),
        Type::Paren(inner) => names_context(&inner.elem),
        Type::Group(inner) => names_context(&inner.elem),
        _ => false,
    }
}

/// The text of `#[doc = "..."]` attributes, one entry per line.
pub fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(name_value) = &attr.meta
            && let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) = &name_value.value
        {
            let text = text.value();
            // A bare `///` is `#[doc = ""]`, which has no lines but separates paragraphs.
            if text.is_empty() {
                lines.push(String::new());
            }
            for line in text.lines() {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    lines
}
