//! The tools of a crate that renames toolkit run like any other.

use renamed_dependency::{Greeter, Volume};
use tk::{Seam, ToolContext, ToolRegistry};

#[tokio::test]
async fn tools_of_a_crate_that_renames_toolkit_register_and_run() {
    let mut registry = ToolRegistry::linked().expect("no duplicates");
    registry
        .register_instance(Greeter {
            words: "Hello".to_owned(),
        })
        .expect("a new name");
    let names: Vec<&str> = registry.specs().map(tk::ToolSpec::name).collect();
    assert_eq!(names, ["add", "greet"]);
    let service = Seam::new(registry);
    let scope = service
        .scope(ToolContext::new().with_extension(Volume(2)))
        .expect("the volume is given");
    let sum = service.invoke(&scope, "add", r#"{"a": 40}"#).await;
    assert_eq!(sum.content().as_str(), "42 (admin: false)");
    let greeting = service.invoke(&scope, "greet", r#"{"name": "Ada"}"#).await;
    assert_eq!(greeting.content().as_str(), "Hello, Ada!!");
}
