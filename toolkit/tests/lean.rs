//! The lean core: what `toolkit` costs with `default-features = false`, and what it refuses
//! rather than leave unchecked. `./scripts/test` runs this file a second time without the default
//! features, where the refusal tests apply.

/// The most crates the bare core may pull (`cargo tree -e normal`, unique names, toolkit
/// included): the seam, the registry, the wire types and the macro need serde, schemars, tokio
/// and their own dependencies, and nothing else.
const BARE_CORE_CRATES: usize = 40;

/// The unique crate names of `cargo tree -e normal` for toolkit with `features`.
fn crates(features: &[&str]) -> std::collections::BTreeSet<String> {
    toolkit_testing::tree::crates("toolkit", "normal", features)
}

#[test]
fn the_bare_core_pulls_at_most_forty_crates_and_no_validator() {
    let bare = crates(&[]);
    assert!(
        bare.len() <= BARE_CORE_CRATES,
        "{} crates, at most {BARE_CORE_CRATES}: {bare:?}",
        bare.len()
    );
    for heavy in ["jsonschema", "regex", "reqwest", "futures-util"] {
        assert!(
            !bare.iter().any(|name| name == heavy),
            "{heavy} in {bare:?}"
        );
    }
    let checked = crates(&["constraints"]);
    assert!(
        checked.iter().any(|name| name == "jsonschema"),
        "{checked:?}"
    );
}

#[cfg(not(feature = "constraints"))]
mod without_a_validator {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use toolkit::registry::RegistryError;
    use toolkit::{ToolRegistry, tool};

    /// Books a stay.
    #[tool]
    fn book(
        /// The guest.
        guest: String,
        /// Nights, 1 to 30.
        #[schemars(range(min = 1, max = 30))]
        nights: u32,
    ) -> String {
        format!("{guest}: {nights}")
    }

    /// A window of days.
    #[derive(Deserialize, JsonSchema)]
    struct Window {
        /// Days back, at most a year.
        #[schemars(range(max = 365))]
        days: u32,
    }

    /// Counts events in a window.
    #[tool]
    fn count_events(
        /// The window.
        window: Window,
    ) -> String {
        window.days.to_string()
    }

    /// Greets; its argument is named like a keyword and constrains nothing.
    #[tool]
    fn greet(
        /// A pattern of greeting.
        pattern: String,
    ) -> String {
        pattern
    }

    #[test]
    fn a_constrained_tool_is_refused_with_the_fix_and_a_free_one_registers() {
        let error = ToolRegistry::of([BOOK_TOOL]).unwrap_err();
        let place = BOOK_TOOL.spec().place().to_owned();
        assert!(
            matches!(&error, RegistryError::Unchecked { tool, keyword, path, .. }
                if tool == "book" && keyword == "maximum" && path == "nights"),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            format!(
                "tool \"book\" (defined at {place}) constrains its arguments (`maximum` at \
                 `nights`), which this build cannot check: enable toolkit's `constraints` \
                 feature (on by default)"
            )
        );
        let error = ToolRegistry::of([COUNT_EVENTS_TOOL]).unwrap_err();
        assert!(
            matches!(&error, RegistryError::Unchecked { keyword, path, .. }
                if keyword == "maximum" && path == "window.days"),
            "{error:?}"
        );
        assert!(ToolRegistry::of([GREET_TOOL]).is_ok());
    }

    #[test]
    fn a_constrained_tool_checked_without_a_registry_is_refused_not_run() {
        let error = BOOK_TOOL
            .check_arguments(r#"{"guest": "Ada", "nights": 3}"#)
            .unwrap_err();
        assert_eq!(error.path(), "nights");
        assert_eq!(
            error.message(),
            "the schema's `maximum` cannot be checked in this build: enable toolkit's \
             `constraints` feature (on by default)"
        );
        assert!(GREET_TOOL.check_arguments(r#"{"pattern": "hi"}"#).is_ok());
    }
}
