//! The `#[tool]` and `#[tools]` attributes of toolkit. Depend on `toolkit`, which re-exports them
//! as `toolkit::tool` and `toolkit::tools`; its documentation describes the attributes.
//!
//! The pipeline (private modules, named for readers of the source): parse the attribute and the
//! function into a typed view (`ast`, `attr`), check it (`valid`), then generate the tool
//! (`expand`; `methods` for `#[tools]`). Any error becomes a
//! `compile_error!` spanned on the offending tokens, emitted beside the function itself (its
//! parameter attributes removed) so one mistake gives one error.

use proc_macro::TokenStream;

mod ast;
mod attr;
mod expand;
mod methods;
mod valid;

/// (Defined in `toolkit-macros`; depend on `toolkit` and write `#[toolkit::tool]`.)
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let args = proc_macro2::TokenStream::from(args);
    let item = proc_macro2::TokenStream::from(item);
    expand::tool(args, &item).into()
}

/// (Defined in `toolkit-macros`; depend on `toolkit` and write `#[toolkit::tools]`.)
#[proc_macro_attribute]
pub fn tools(args: TokenStream, item: TokenStream) -> TokenStream {
    let args = proc_macro2::TokenStream::from(args);
    let item = proc_macro2::TokenStream::from(item);
    methods::tools(&args, &item).into()
}
