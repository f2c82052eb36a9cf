//! The grammar of `#[tool(...)]`: `name = "..."`, `title = "..."`, `group = "..."`,
//! `description = "..."`, `preview = "..."`, `crate = "..."` (the path toolkit is reached by),
//! and the flags `requires_approval`, `requires_admin`, `enabled_by_default`, `remote`,
//! `read_only`, `idempotent`, `open_world`, `inline`, each bare (true) or `= true` / `= false`,
//! and `task`, bare or `= "optional"` / `= "required"`.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, ExprLit, Lit, LitStr};

/// The keys a `#[tool]` attribute accepts.
const KEYS: &str = "`name`, `title`, `group`, `description`, `preview`, `crate`, `requires_approval`, `requires_admin`, `enabled_by_default`, `remote`, `read_only`, `idempotent`, `open_world`, `inline`, `task`";

/// The keys, as [`KEYS`] lists them.
const KNOWN_KEYS: [&str; 15] = [
    "name",
    "title",
    "group",
    "description",
    "preview",
    "crate",
    "requires_approval",
    "requires_admin",
    "enabled_by_default",
    "remote",
    "read_only",
    "idempotent",
    "open_world",
    "inline",
    "task",
];

/// A flag's value as written, and where its key is.
#[derive(Clone, Copy)]
pub struct Flag {
    pub value: bool,
    pub span: proc_macro2::Span,
}

#[derive(Default)]
pub struct ToolAttr {
    pub name: Option<LitStr>,
    /// `title = "..."`: the label people read (checked by `valid`).
    pub title: Option<LitStr>,
    pub group: Option<LitStr>,
    pub description: Option<LitStr>,
    /// `preview = "tool"`: the read-only tool whose answer an operator sees before approving
    /// (checked when registered; inside one `#[tools]` block, when compiled).
    pub preview: Option<LitStr>,
    /// `crate = "path"`: where the generated code finds toolkit (a renamed dependency).
    pub krate: Option<syn::Path>,
    pub requires_approval: Option<Flag>,
    pub requires_admin: Option<Flag>,
    pub enabled_by_default: Option<Flag>,
    pub remote: Option<Flag>,
    pub read_only: Option<Flag>,
    pub idempotent: Option<Flag>,
    pub open_world: Option<Flag>,
    pub inline: Option<Flag>,
    /// `task` (bare or `= "optional"`), or `task = "required"`: whether the tool's calls may
    /// be answered as MCP tasks, and whether only so.
    pub task: Option<Task>,
    /// Keys given with a value that is wrong (reported once, at the value): later checks take
    /// them as given, so that one mistake is one error.
    pub invalid: Vec<&'static str>,
}

impl ToolAttr {
    /// Parses the attribute's arguments: the keys that are right, and every error at once.
    pub fn parse(args: TokenStream) -> (Self, Option<syn::Error>) {
        let mut attr = ToolAttr::default();
        let mut errors: Option<syn::Error> = None;
        let parser = syn::meta::parser(|meta| {
            if let Err(error) = attr.parse_key(&meta) {
                combine(&mut errors, error);
            }
            Ok(())
        });
        if let Err(error) = parser.parse2(args) {
            combine(&mut errors, error);
        }
        (attr, errors)
    }

    fn parse_key(&mut self, meta: &ParseNestedMeta<'_>) -> Result<(), syn::Error> {
        let Some(key) = meta.path.get_ident() else {
            return Err(meta.error(format!("unknown #[tool] key; expected one of {KEYS}")));
        };
        let name = key.to_string();
        let Some(&key) = KNOWN_KEYS.iter().find(|known| **known == name) else {
            return unknown_key(meta, &name);
        };
        let parsed = match key {
            "name" => set(&mut self.name, meta, key, string_value),
            "title" => set(&mut self.title, meta, key, string_value),
            "group" => set(&mut self.group, meta, key, string_value),
            "description" => set(&mut self.description, meta, key, description_value),
            "preview" => set(&mut self.preview, meta, key, string_value),
            "crate" => set(&mut self.krate, meta, key, path_value),
            "requires_approval" => set(&mut self.requires_approval, meta, key, flag_value),
            "requires_admin" => set(&mut self.requires_admin, meta, key, flag_value),
            "enabled_by_default" => set(&mut self.enabled_by_default, meta, key, flag_value),
            "remote" => set(&mut self.remote, meta, key, flag_value),
            "read_only" => set(&mut self.read_only, meta, key, flag_value),
            "idempotent" => set(&mut self.idempotent, meta, key, flag_value),
            "open_world" => set(&mut self.open_world, meta, key, flag_value),
            "task" => set(&mut self.task, meta, key, task_value),
            _ => set(&mut self.inline, meta, key, flag_value),
        };
        if parsed.is_err() {
            self.invalid.push(key);
        }
        parsed
    }
}

/// An unknown key: its value consumed, so the rest of the attribute still parses.
fn unknown_key(meta: &ParseNestedMeta<'_>, other: &str) -> Result<(), syn::Error> {
    if meta.input.peek(syn::Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Err(syn::Error::new_spanned(
        &meta.path,
        format!("unknown #[tool] key `{other}`; expected one of {KEYS}"),
    ))
}

fn set<T>(
    slot: &mut Option<T>,
    meta: &ParseNestedMeta<'_>,
    key: &str,
    value: fn(&ParseNestedMeta<'_>, &str) -> Result<T, syn::Error>,
) -> Result<(), syn::Error> {
    let parsed = value(meta, key)?;
    if slot.is_some() {
        return Err(syn::Error::new_spanned(
            &meta.path,
            format!("duplicate #[tool] key `{key}`"),
        ));
    }
    *slot = Some(parsed);
    Ok(())
}

// Each value is read as a whole expression and then checked, so a wrong one is reported on
// itself and the keys after it still parse.

fn string_value(meta: &ParseNestedMeta<'_>, key: &str) -> Result<LitStr, syn::Error> {
    string_or(meta, key, not_a_string)
}

/// A description: a string literal. A macro there (`include_str!`) cannot be read by the
/// attribute, but it can be the doc comment's value: say so.
fn description_value(meta: &ParseNestedMeta<'_>, key: &str) -> Result<LitStr, syn::Error> {
    string_or(meta, key, |other, key| match other {
        Expr::Macro(mac) => syn::Error::new_spanned(
            mac,
            "`description` takes a string literal, not a macro: for text from a file, write \
             `#[doc = include_str!(\"..\")]` above the function instead (it is the tool's \
             description, cleaned for the model)",
        ),
        other => not_a_string(other, key),
    })
}

/// `key = "..."`: the string literal, or the error `refuse` makes of any other value.
fn string_or(
    meta: &ParseNestedMeta<'_>,
    key: &str,
    refuse: fn(Expr, &str) -> syn::Error,
) -> Result<LitStr, syn::Error> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format!("expected `{key} = \"...\"`")));
    }
    match meta.value()?.parse()? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Ok(text),
        other => Err(refuse(other, key)),
    }
}

fn not_a_string(value: Expr, key: &str) -> syn::Error {
    syn::Error::new_spanned(
        value,
        format!("`{key}` takes a string literal: `{key} = \"...\"`"),
    )
}

fn path_value(meta: &ParseNestedMeta<'_>, key: &str) -> Result<syn::Path, syn::Error> {
    let text = string_value(meta, key)?;
    text.parse::<syn::Path>().map_err(|_| {
        syn::Error::new_spanned(
            &text,
            format!("`{key}` takes a path in a string: `{key} = \"my_toolkit\"` or `{key} = \"::deps::toolkit\"`"),
        )
    })
}

fn flag_value(meta: &ParseNestedMeta<'_>, key: &str) -> Result<Flag, syn::Error> {
    let span = syn::spanned::Spanned::span(&meta.path);
    if !meta.input.peek(syn::Token![=]) {
        return Ok(Flag { value: true, span });
    }
    match meta.value()?.parse()? {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(flag),
            ..
        }) => Ok(Flag {
            value: flag.value,
            span,
        }),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes `true` or `false`, or no value for `true`"),
        )),
    }
}

/// How a tool's calls may be answered as MCP tasks, as `task` says.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Task {
    Optional,
    Required,
}

/// `task` bare or `= "optional"` (a task when the call runs long), or `= "required"`.
fn task_value(meta: &ParseNestedMeta<'_>, key: &str) -> Result<Task, syn::Error> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(Task::Optional);
    }
    let value: Expr = meta.value()?.parse()?;
    match &value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) if text.value() == "optional" => Ok(Task::Optional),
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) if text.value() == "required" => Ok(Task::Required),
        _ => Err(syn::Error::new_spanned(
            value,
            format!(
                "`{key}` takes no value or `\"optional\"` (a task when a call runs long), or \
                 `\"required\"` (always a task)"
            ),
        )),
    }
}

/// Folds one more error into an accumulated one.
pub fn combine(errors: &mut Option<syn::Error>, error: syn::Error) {
    match errors {
        Some(existing) => existing.combine(error),
        None => *errors = Some(error),
    }
}

impl ToolAttr {
    /// The path the generated code reaches toolkit by: `crate = ".."`, else the name the
    /// crate's `Cargo.toml` gives the dependency when it renames it, else `::toolkit`.
    pub fn toolkit(&self) -> TokenStream {
        if let Some(path) = &self.krate {
            return quote::ToTokens::to_token_stream(path);
        }
        // Within toolkit's own package (its tests, its doc tests) the crate is `toolkit`; a
        // manifest that cannot be read leaves `::toolkit`, which at least errs clearly.
        match proc_macro_crate::crate_name("toolkit") {
            Ok(proc_macro_crate::FoundCrate::Name(name)) => syn::parse_str::<syn::Ident>(&name)
                .map_or_else(|_| quote::quote!(::toolkit), |name| quote::quote!(::#name)),
            Ok(proc_macro_crate::FoundCrate::Itself) | Err(_) => quote::quote!(::toolkit),
        }
    }
}

/// The value of a flag, or its default.
pub fn flag(flag: Option<Flag>, default: bool) -> bool {
    flag.map_or(default, |flag| flag.value)
}
