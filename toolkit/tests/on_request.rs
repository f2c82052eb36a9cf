//! A crate that offers its tools on request: linking it leaves `ToolRegistry::linked` as it
//! was, and `add_crate` adds them.

use toolkit::registry::RegistryError;
use toolkit::{ToolRegistry, ToolResult, tool};

toolkit::tools_on_request!();

/// Offered only when asked for.
#[tool]
fn asked_for() -> ToolResult {
    ToolResult::text("here")
}

#[test]
fn linked_leaves_out_a_crate_that_offers_on_request_and_add_crate_adds_it() {
    let mut registry = ToolRegistry::linked().expect("no duplicate names");
    assert!(registry.is_empty());

    registry
        .add_crate("on_request")
        .expect("this crate's tools");
    assert_eq!(
        registry
            .specs()
            .map(toolkit::ToolSpec::name)
            .collect::<Vec<_>>(),
        ["asked_for"]
    );

    // Twice: the name is taken, and the registry is as it was.
    assert!(matches!(
        registry.add_crate("on_request"),
        Err(RegistryError::Duplicate(_))
    ));
    assert_eq!(registry.len(), 1);
}

#[test]
fn add_crate_of_a_crate_with_no_linked_tool_names_the_fix() {
    let error = ToolRegistry::new().add_crate("no_such_crate").unwrap_err();
    assert_eq!(
        error.to_string(),
        "no tool of crate `no_such_crate` is linked: reference the crate from the binary \
         (`use no_such_crate as _;`), or enable the features that give its tools"
    );
}
