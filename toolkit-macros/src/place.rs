//! Where a `#[tool]` function sits. The attribute sees only the function, never the `impl`
//! block around it, so a `#[tool]` on an associated function of a plain `impl` would fail in the
//! generated code (which calls it as a free function) with rustc's "cannot find function". To say
//! the fix instead, the macro reads the source file of an indented function and looks for it in
//! an impl block. For diagnostics only: any doubt (no file, a file that does not parse, no such
//! function found) answers "not in an impl block", and the macro goes on as before.

use quote::ToTokens;
use syn::{ImplItem, Item, ItemFn};

/// Whether `func` is a `#[tool]` function of an `impl` block.
pub fn in_impl_block(func: &ItemFn) -> bool {
    // Outside a compiler's macro expansion (a unit test) spans have no file.
    if !proc_macro::is_available() {
        return false;
    }
    let Some(first) = func.to_token_stream().into_iter().next() else {
        return false;
    };
    let span = first.span().unwrap();
    // A function that starts a line at its first column is at the top of its file: the
    // usual case, decided without reading anything.
    if span.column() <= 1 {
        return false;
    }
    let Some(path) = span.local_file() else {
        return false;
    };
    let Ok(source) = std::fs::read_to_string(path) else {
        return false;
    };
    let Ok(file) = syn::parse_file(&source) else {
        return false;
    };
    let name = func.sig.ident.to_string();
    file.items.iter().any(|item| holds_tool(item, &name))
}

/// Whether `item` is, or has inside, an impl block not marked `#[tools]` (whose marks that
/// attribute takes off before `#[tool]` could run) with a `#[tool]` function named `name`.
fn holds_tool(item: &Item, name: &str) -> bool {
    match item {
        Item::Impl(block) if !block.attrs.iter().any(|attr| ends_in(attr, "tools")) => {
            block.items.iter().any(|item| {
                matches!(item, ImplItem::Fn(method)
                    if method.sig.ident == name
                        && method.attrs.iter().any(|attr| ends_in(attr, "tool")))
            })
        }
        Item::Mod(module) => module
            .content
            .as_ref()
            .is_some_and(|(_, items)| items.iter().any(|item| holds_tool(item, name))),
        _ => false,
    }
}

/// Whether an attribute's path is `name` or ends in it (`toolkit::tool`).
fn ends_in(attr: &syn::Attribute, name: &str) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == name)
}
