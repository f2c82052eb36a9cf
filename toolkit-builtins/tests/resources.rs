//! Which builtins need which resource: the lists servers use to leave out tools that would only
//! answer that a resource is missing.

use toolkit::{ToolContext, ToolLoopService};
use toolkit_builtins::{DATABASE_TOOLS, NO_DATABASE, NO_WORKSPACE, WORKSPACE_TOOLS};

#[test]
fn the_lists_name_registered_builtins_and_cover_their_groups() {
    let registry = toolkit_builtins::registry().expect("no duplicates");
    for name in DATABASE_TOOLS.iter().chain(WORKSPACE_TOOLS) {
        assert!(registry.get(name).is_some(), "{name} is not a builtin");
    }
    for spec in registry.specs() {
        match spec.group() {
            "records" => assert!(DATABASE_TOOLS.contains(&spec.name()), "{}", spec.name()),
            "files" => assert!(WORKSPACE_TOOLS.contains(&spec.name()), "{}", spec.name()),
            _ => {}
        }
    }
    let mut kept = toolkit_builtins::registry().expect("no duplicates");
    kept.retain(|spec| !DATABASE_TOOLS.contains(&spec.name()));
    assert_eq!(kept.len(), registry.len() - DATABASE_TOOLS.len());
    assert!(kept.get("query_sql").is_none());
    assert_eq!(
        kept.get("list_directory").map(|tool| tool.spec().name()),
        Some("list_directory")
    );
}

#[tokio::test]
async fn without_the_resource_they_can_only_say_it_is_missing() {
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicates"));
    let scope = service.scope(ToolContext::new()).unwrap();
    for (name, expected) in [
        ("list_tables", NO_DATABASE),
        ("describe_database", NO_DATABASE),
        ("list_directory", NO_WORKSPACE),
        ("tree", NO_WORKSPACE),
    ] {
        let result = service.invoke(&scope, name, "{}").await;
        assert_eq!(result.content(), expected, "{name}");
    }
}
