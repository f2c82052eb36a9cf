//! The tools of a crate that renames toolkit run like any other.

use renamed_dependency::{Counter, Greeter, Volume};
use tk::{Seam, ToolContext, ToolRegistry};

#[tokio::test]
async fn tools_of_a_crate_that_renames_toolkit_register_and_run() {
    let mut registry = ToolRegistry::linked().expect("no duplicates");
    registry
        .register_instance(Greeter {
            words: "Hello".to_owned(),
        })
        .expect("a new name");
    registry
        .register_instance(Counter { start: 40 })
        .expect("a new name");
    let names: Vec<&str> = registry.specs().map(tk::ToolSpec::name).collect();
    assert_eq!(names, ["add", "shout", "greet", "count_on"]);
    let service = Seam::new(registry);
    let scope = service
        .scope(ToolContext::new().with_extension(Volume(2)))
        .expect("the volume is given");
    let sum = service.invoke(&scope, "add", r#"{"a": 40}"#).await;
    assert_eq!(sum.content(), "42 (admin: false)");
    let greeting = service.invoke(&scope, "greet", r#"{"name": "Ada"}"#).await;
    assert_eq!(greeting.content(), "Hello, Ada!!");
    let shouted = service.invoke(&scope, "shout", r#"{"text": "hi"}"#).await;
    assert_eq!(shouted.content(), "HI");
    let counted = service.invoke(&scope, "count_on", r#"{"by": 2}"#).await;
    assert_eq!(counted.content(), "42");
}
