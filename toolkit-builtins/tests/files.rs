//! The files group against a real temporary workspace, through the seam.

mod workspace_fixture;

use std::fmt::Write as _;

use serde_json::json;
use toolkit_builtins as _;
use workspace_fixture::{FILES, Fixture, MODIFIED, assert_escapes_refused};

fn size(path: &str) -> usize {
    FILES
        .iter()
        .find(|(relative, _)| *relative == path)
        .map(|(_, content)| content.len())
        .expect("a fixture file")
}

fn strings<const N: usize>(cells: [&str; N]) -> Vec<String> {
    cells.iter().map(|cell| (*cell).to_owned()).collect()
}

#[tokio::test]
async fn list_directory_lists_entries_in_content_and_table() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call("list_directory", json!({"path": "data"}))
        .await;
    let (csv, json) = (size("data/people.csv"), size("data/config.json"));
    assert_eq!(
        outcome.content,
        format!(
            "2 entries in \"data\":\n- config.json (file, {json} bytes)\n- people.csv (file, {csv} bytes)"
        )
    );
    assert_eq!(outcome.label(), "Directory listing");
    let (columns, rows) = outcome.table();
    assert_eq!(columns, strings(["name", "type", "size", "modified"]));
    assert_eq!(
        rows,
        vec![
            vec![
                "config.json".to_owned(),
                "file".to_owned(),
                json.to_string(),
                MODIFIED.to_owned()
            ],
            vec![
                "people.csv".to_owned(),
                "file".to_owned(),
                csv.to_string(),
                MODIFIED.to_owned()
            ],
        ]
    );
}

#[tokio::test]
async fn list_directory_of_the_root_shows_dot_files_and_links_without_following_them() {
    let fixture = Fixture::new();
    let outcome = fixture.call("list_directory", json!({})).await;
    let (_, rows) = outcome.table();
    let names_and_types: Vec<(String, String)> = rows
        .iter()
        .map(|row| (row[0].clone(), row[1].clone()))
        .collect();
    let mut expected = vec![
        (".gitignore", "file"),
        ("README.md", "file"),
        ("build", "folder"),
        ("data", "folder"),
        ("empty", "folder"),
        ("ignored.txt", "file"),
    ];
    if cfg!(unix) {
        expected.extend([("inside_link", "symlink"), ("leak.txt", "symlink")]);
    }
    expected.extend([
        ("logs", "folder"),
        ("nested", "folder"),
        ("notes.txt", "file"),
    ]);
    if cfg!(unix) {
        expected.extend([("outside_link", "symlink"), ("rel_leak.txt", "symlink")]);
    }
    let expected: Vec<(String, String)> = expected
        .into_iter()
        .map(|(name, kind)| (name.to_owned(), kind.to_owned()))
        .collect();
    assert_eq!(names_and_types, expected);
    assert!(outcome.content.starts_with(&format!("{} entries in \".\":\n- .gitignore (file, 19 bytes)\n- README.md (file, 28 bytes)\n- build/ (folder)", expected.len())));
    // A link's own size is not reported, and nothing behind it is read.
    assert!(!outcome.content.contains("TOP SECRET"));
}

#[tokio::test]
async fn list_directory_refuses_a_file_and_reports_an_empty_folder_and_a_missing_one() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture
            .call("list_directory", json!({"path": "notes.txt"}))
            .await
            .error(),
        "\"notes.txt\" is not a folder; give the path of a folder (file_info says what this one is)."
    );
    assert_eq!(
        fixture
            .call("list_directory", json!({"path": "empty"}))
            .await
            .text(),
        "The folder \"empty\" is empty."
    );
    assert_eq!(
        fixture
            .call("list_directory", json!({"path": "missing"}))
            .await
            .error(),
        "No file or folder at \"missing\" in the workspace; list_directory shows what is there."
    );
}

#[tokio::test]
async fn read_file_numbers_the_lines_of_a_window() {
    let fixture = Fixture::new();
    // The model gets numbered lines; people get the same lines as they are, as a text.
    let read = |content: &str, label: &str, text: &str, outcome: &workspace_fixture::Outcome| {
        assert_eq!(outcome.content, content);
        assert!(!outcome.is_error);
        assert_eq!(outcome.label(), label);
        assert_eq!(outcome.artifacts[0].as_text(), Some(text));
    };
    let outcome = fixture
        .call(
            "read_file",
            json!({"path": "notes.txt", "from_line": 2, "lines": 2}),
        )
        .await;
    read(
        "\"notes.txt\", lines 2-3 of 5:\n2: beta\n3: gamma",
        "\"notes.txt\", lines 2-3",
        "beta\ngamma",
        &outcome,
    );
    let outcome = fixture
        .call("read_file", json!({"path": "./notes.txt"}))
        .await;
    read(
        "\"notes.txt\", lines 1-5 of 5:\n1: alpha\n2: beta\n3: gamma\n4: delta\n5: epsilon",
        "\"notes.txt\", lines 1-5",
        "alpha\nbeta\ngamma\ndelta\nepsilon",
        &outcome,
    );
    let outcome = fixture
        .call("read_file", json!({"path": "notes.txt", "from_line": 9}))
        .await;
    assert_eq!(
        outcome.error(),
        "\"notes.txt\" has 5 lines; from_line 9 is past the end. Give a from_line from 1 to 5."
    );
    // Through a link that stays inside the root.
    if cfg!(unix) {
        let outcome = fixture
            .call(
                "read_file",
                json!({"path": "inside_link/deep/needle.txt", "lines": 1}),
            )
            .await;
        read(
            "\"inside_link/deep/needle.txt\", lines 1-1 of 3:\n1: a needle here",
            "\"inside_link/deep/needle.txt\", lines 1-1",
            "a needle here",
            &outcome,
        );
    }
}

#[tokio::test]
async fn read_file_validates_its_ranges() {
    let fixture = Fixture::new();
    let call = |arguments| fixture.call("read_file", arguments);
    assert_eq!(
        call(json!({"path": "notes.txt", "lines": 201}))
            .await
            .error(),
        "Error: lines must be between 1 and 200, not 201."
    );
    assert_eq!(
        call(json!({"path": "notes.txt", "lines": 0})).await.error(),
        "Error: lines must be between 1 and 200, not 0."
    );
    assert_eq!(
        call(json!({"path": "notes.txt", "from_line": 0}))
            .await
            .error(),
        "Error: from_line must be 1 or more, not 0."
    );
    assert_eq!(
        call(json!({"path": "notes.txt", "lines": -1}))
            .await
            .error(),
        "Error: invalid arguments for tool \"read_file\" at \"lines\": invalid value: integer `-1`, expected usize."
    );
}

#[tokio::test]
async fn read_file_shows_the_model_an_image_whole_and_refuses_one_past_the_budget() {
    use toolkit::limits::MEDIA_BUDGET;
    use toolkit_testing::media::PNG;
    let fixture = Fixture::new();
    std::fs::write(fixture.root.join("chart.png"), PNG).expect("write");
    let read = |path: &str| {
        let arguments = json!({ "path": path }).to_string();
        let (service, scope) = (&fixture.service, &fixture.scope);
        async move { service.invoke(scope, "read_file", &arguments).await }
    };
    let result = read("chart.png").await;
    assert!(!result.is_error());
    assert_eq!(
        result.content(),
        "\"chart.png\" is an image (image/png, 69 bytes):"
    );
    let shown: Vec<(&str, usize)> = result
        .wire()
        .media()
        .iter()
        .map(|part| (part.mime_type(), part.len()))
        .collect();
    assert_eq!(shown, [("image/png", 69)]);
    assert!(result.artifacts().is_empty());

    // A JPEG named .txt is an image all the same: its bytes say what it is.
    std::fs::write(
        fixture.root.join("photo.txt"),
        b"\xff\xd8\xff\xe0 and the rest",
    )
    .expect("write");
    assert_eq!(
        read("photo.txt").await.wire().media()[0].mime_type(),
        "image/jpeg"
    );

    // One byte past what a result may show: refused, whole, with no bytes read into it.
    let mut big = PNG.to_vec();
    big.resize(MEDIA_BUDGET + 1, 0);
    std::fs::write(fixture.root.join("big.png"), big).expect("write");
    let result = read("big.png").await;
    assert!(result.is_error() && result.wire().media().is_empty());
    assert_eq!(
        result.content(),
        "\"big.png\" is an image (image/png) larger than the 3932160 bytes a tool result may show \
         the model; file_info describes it."
    );
}

#[tokio::test]
async fn read_file_refuses_folders_binary_files_and_missing_files() {
    let fixture = Fixture::new();
    std::fs::write(fixture.root.join("blob.bin"), b"\x00\x01\x02binary").expect("write");
    assert_eq!(
        fixture
            .call("read_file", json!({"path": "blob.bin"}))
            .await
            .error(),
        "\"blob.bin\" looks like a binary file; read_file shows text only, and images (PNG, JPEG, GIF, WebP) to the model (file_info and file_hash describe any file)."
    );
    assert_eq!(
        fixture
            .call("read_file", json!({"path": "data"}))
            .await
            .error(),
        "\"data\" is a folder, not a file; list_directory shows the files in it."
    );
    assert_eq!(
        fixture
            .call("read_file", json!({"path": "nope.txt"}))
            .await
            .error(),
        "No file or folder at \"nope.txt\" in the workspace; list_directory shows what is there."
    );
    std::fs::write(fixture.root.join("blank.txt"), b"").expect("write");
    assert_eq!(
        fixture
            .call("read_file", json!({"path": "blank.txt"}))
            .await
            .text(),
        "\"blank.txt\" is empty."
    );
}

#[tokio::test]
async fn file_info_describes_a_file_in_content_and_table() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call("file_info", json!({"path": "notes.txt"}))
        .await;
    let permissions = if cfg!(unix) {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(fixture.root.join("notes.txt"))
            .expect("stat")
            .permissions()
            .mode();
        format!("{:o}", mode & 0o7777)
    } else {
        "read-write".to_owned()
    };
    let rows = vec![
        vec!["path".to_owned(), "notes.txt".to_owned()],
        vec!["type".to_owned(), "file".to_owned()],
        vec!["size".to_owned(), "31 bytes".to_owned()],
        vec!["modified".to_owned(), MODIFIED.to_owned()],
        vec!["permissions".to_owned(), permissions.clone()],
        vec!["lines".to_owned(), "5".to_owned()],
    ];
    assert_eq!(
        outcome.content,
        format!(
            "path: notes.txt\ntype: file\nsize: 31 bytes\nmodified: {MODIFIED}\npermissions: {permissions}\nlines: 5"
        )
    );
    assert_eq!(outcome.label(), "File information");
    assert_eq!(outcome.table(), (strings(["field", "value"]), rows));
}

#[cfg(unix)]
#[tokio::test]
async fn file_info_names_the_target_of_a_link_inside() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call("file_info", json!({"path": "inside_link"}))
        .await;
    assert!(
        outcome
            .content
            .starts_with("path: inside_link\ntype: folder\nlink to: nested\nmodified: "),
        "{}",
        outcome.content
    );
}

#[tokio::test]
async fn find_files_matches_names_and_paths_and_honours_gitignore() {
    let fixture = Fixture::new();
    // `ignored.txt` and `build/out.txt` are ignored; links are listed, not followed.
    let outcome = fixture
        .call("find_files", json!({"pattern": "*.txt"}))
        .await;
    if cfg!(unix) {
        assert_eq!(
            outcome.content,
            "4 matches for \"*.txt\" in \".\":\n- leak.txt (symlink)\n- nested/deep/needle.txt (36 bytes)\n- notes.txt (31 bytes)\n- rel_leak.txt (symlink)"
        );
        assert_eq!(
            outcome.table(),
            (
                strings(["path", "type", "size"]),
                vec![
                    strings(["leak.txt", "symlink", ""]),
                    strings(["nested/deep/needle.txt", "file", "36"]),
                    strings(["notes.txt", "file", "31"]),
                    strings(["rel_leak.txt", "symlink", ""]),
                ]
            )
        );
    }
    assert_eq!(outcome.label(), "Files found");
    let outcome = fixture
        .call("find_files", json!({"pattern": "n*.txt"}))
        .await;
    assert_eq!(
        outcome.content,
        "2 matches for \"n*.txt\" in \".\":\n- nested/deep/needle.txt (36 bytes)\n- notes.txt (31 bytes)"
    );
    assert_eq!(
        outcome.table(),
        (
            strings(["path", "type", "size"]),
            vec![
                strings(["nested/deep/needle.txt", "file", "36"]),
                strings(["notes.txt", "file", "31"]),
            ]
        )
    );
    let outcome = fixture
        .call(
            "find_files",
            json!({"pattern": "deep/*.txt", "path": "nested"}),
        )
        .await;
    assert_eq!(
        outcome.content,
        "1 match for \"deep/*.txt\" in \"nested\":\n- nested/deep/needle.txt (36 bytes)"
    );
    let outcome = fixture
        .call(
            "find_files",
            json!({"pattern": "*", "path": "data", "max_results": 1}),
        )
        .await;
    assert_eq!(
        outcome.content,
        format!(
            "1 match (the limit) for \"*\" in \"data\":\n- data/config.json ({} bytes)",
            size("data/config.json")
        )
    );
    assert_eq!(
        fixture
            .call("find_files", json!({"pattern": "*.xml"}))
            .await
            .text(),
        "Nothing matches \"*.xml\" in \".\"."
    );
}

#[tokio::test]
async fn find_files_validates_its_arguments() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture
            .call("find_files", json!({"pattern": "*", "max_results": 501}))
            .await
            .error(),
        "Error: max_results must be between 1 and 500, not 501."
    );
    assert_eq!(
        fixture
            .call("find_files", json!({"pattern": ""}))
            .await
            .error(),
        "Error: the glob must not be empty."
    );
    let invalid = fixture.call("find_files", json!({"pattern": "[a"})).await;
    assert!(
        invalid.error().starts_with("Error: invalid glob \"[a\": "),
        "{}",
        invalid.content
    );
}

#[tokio::test]
async fn search_files_finds_literal_and_regex_matches_and_skips_ignored_and_outside_files() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call("search_files", json!({"query": "needle"}))
        .await;
    assert_eq!(
        outcome.content,
        "1 match for \"needle\" in 1 file:\nnested/deep/needle.txt:1: a needle here"
    );
    assert_eq!(outcome.label(), "Matches");
    assert_eq!(
        outcome.table(),
        (
            strings(["path", "line", "text"]),
            vec![strings(["nested/deep/needle.txt", "1", "a needle here"])]
        )
    );
    let outcome = fixture
        .call(
            "search_files",
            json!({"query": "needle", "case_insensitive": true}),
        )
        .await;
    assert_eq!(
        outcome.content,
        "2 matches for \"needle\" in 1 file:\nnested/deep/needle.txt:1: a needle here\nnested/deep/needle.txt:3: NEEDLE again"
    );
    let outcome = fixture
        .call(
            "search_files",
            json!({"query": "^[a-z]+$", "regex": true, "glob": "*.txt"}),
        )
        .await;
    assert_eq!(
        outcome.content,
        "5 matches for \"^[a-z]+$\" in 1 file:\nnotes.txt:1: alpha\nnotes.txt:2: beta\nnotes.txt:3: gamma\nnotes.txt:4: delta\nnotes.txt:5: epsilon"
    );
    let outcome = fixture
        .call("search_files", json!({"query": "a", "path": "notes.txt"}))
        .await;
    assert_eq!(
        outcome.error(),
        "\"notes.txt\" is not a folder; give the path of a folder (file_info says what this one is)."
    );
    assert_eq!(
        fixture
            .call("search_files", json!({"query": "a.b", "path": "data"}))
            .await
            .text(),
        "No match for \"a.b\" in \"data\"."
    );
}

#[tokio::test]
async fn search_files_stops_at_max_results_and_keeps_the_rest_out_of_content() {
    let fixture = Fixture::new();
    let text: String = (1..=25).fold(String::new(), |mut text, n| {
        text.push_str("hit ");
        text.push_str(&n.to_string());
        text.push('\n');
        text
    });
    std::fs::write(fixture.root.join("many.txt"), text).expect("write");
    let outcome = fixture
        .call("search_files", json!({"query": "hit", "max_results": 22}))
        .await;
    let mut expected =
        "22 matches (the limit) for \"hit\" in 1 file:\n(rows 1 to 20 of 22)".to_owned();
    for n in 1..=20 {
        let _ = write!(expected, "\nmany.txt:{n}: hit {n}");
    }
    expected.push_str("\n… 2 more: call again with offset 20 for the next page.");
    assert_eq!(outcome.content, expected);
    assert_eq!(outcome.table().1.len(), 22);
    assert_eq!(outcome.table().1[21], strings(["many.txt", "22", "hit 22"]));
    // The next page, as the content says: the model reads every match.
    let next = fixture
        .call(
            "search_files",
            json!({"query": "hit", "max_results": 22, "offset": 20}),
        )
        .await;
    let mut expected = "25 matches for \"hit\" in 1 file:\n(rows 21 to 25 of 25)".to_owned();
    for n in 21..=25 {
        let _ = write!(expected, "\nmany.txt:{n}: hit {n}");
    }
    assert_eq!(next.content, expected);
}

#[tokio::test]
async fn listings_page_by_offset_and_limit_and_say_how_to_get_the_next_page() {
    let fixture = Fixture::new();
    std::fs::create_dir(fixture.root.join("many")).expect("folder");
    for n in 0..7 {
        std::fs::create_dir(fixture.root.join(format!("many/d{n}"))).expect("folder");
    }
    let page = |offset: usize| {
        let fixture = &fixture;
        async move {
            fixture
                .call(
                    "list_directory",
                    json!({"path": "many", "offset": offset, "limit": 3}),
                )
                .await
                .content
        }
    };
    assert_eq!(
        page(0).await,
        "7 entries in \"many\":\n(rows 1 to 3 of 7)\n- d0/ (folder)\n- d1/ (folder)\n- d2/ (folder)\n… 4 more: call again with offset 3 for the next page."
    );
    assert_eq!(
        page(3).await,
        "7 entries in \"many\":\n(rows 4 to 6 of 7)\n- d3/ (folder)\n- d4/ (folder)\n- d5/ (folder)\n… 1 more: call again with offset 6 for the next page."
    );
    assert_eq!(
        page(6).await,
        "7 entries in \"many\":\n(rows 7 to 7 of 7)\n- d6/ (folder)"
    );
    assert_eq!(
        page(7).await,
        "7 entries in \"many\":\nNothing from offset 7: there are 7 rows."
    );
    assert_eq!(
        page(usize::MAX).await,
        format!(
            "7 entries in \"many\":\nNothing from offset {}: there are 7 rows.",
            usize::MAX
        )
    );
    // The table for people holds every entry whatever the page.
    let outcome = fixture
        .call(
            "list_directory",
            json!({"path": "many", "offset": 3, "limit": 3}),
        )
        .await;
    assert_eq!(outcome.table().1.len(), 7);
    assert_eq!(
        fixture
            .call("list_directory", json!({"path": "many", "limit": 0}))
            .await
            .content,
        "Error: limit must be between 1 and 200, not 0."
    );
    let files = fixture
        .call(
            "find_files",
            json!({"pattern": "d*", "path": "many", "offset": 5}),
        )
        .await;
    assert_eq!(
        files.content,
        "7 matches for \"d*\" in \"many\":\n(rows 6 to 7 of 7)\n- many/d5 (folder)\n- many/d6 (folder)"
    );
    // An offset at the end of usize: no overflow, nothing shown, the count still true.
    let far = fixture
        .call(
            "search_files",
            json!({"query": "d", "path": "many", "offset": usize::MAX}),
        )
        .await;
    assert!(far.content.starts_with("No match"), "{}", far.content);
}

#[tokio::test]
async fn search_files_validates_its_arguments() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture
            .call("search_files", json!({"query": ""}))
            .await
            .error(),
        "Error: query must not be empty."
    );
    assert_eq!(
        fixture
            .call("search_files", json!({"query": "x", "max_results": 101}))
            .await
            .error(),
        "Error: max_results must be between 1 and 100, not 101."
    );
    assert_eq!(
        fixture
            .call("search_files", json!({"query": "x", "max_results": 0}))
            .await
            .error(),
        "Error: max_results must be between 1 and 100, not 0."
    );
    let invalid = fixture
        .call("search_files", json!({"query": "(", "regex": true}))
        .await;
    assert!(
        invalid.error().starts_with("Error: invalid pattern: "),
        "{}",
        invalid.content
    );
    // A literal query with regex characters is fine.
    assert_eq!(
        fixture
            .call("search_files", json!({"query": "("}))
            .await
            .text(),
        "No match for \"(\" in \".\"."
    );
}

#[tokio::test]
async fn tree_draws_levels_and_honours_gitignore() {
    let fixture = Fixture::new();
    let outcome = fixture.call("tree", json!({"path": "nested"})).await;
    assert_eq!(
        outcome.content,
        "nested/\n  deep/\n    needle.txt\n1 folder, 1 file."
    );
    assert_eq!(outcome.label(), "Tree");
    assert_eq!(
        outcome.table(),
        (
            strings(["path", "type", "size"]),
            vec![
                strings(["nested/deep", "folder", ""]),
                strings(["nested/deep/needle.txt", "file", "36"]),
            ]
        )
    );
    let outcome = fixture.call("tree", json!({"depth": 1})).await;
    let mut expected = "./\n  .gitignore\n  README.md\n  data/\n  empty/".to_owned();
    if cfg!(unix) {
        expected.push_str("\n  inside_link (symlink)\n  leak.txt (symlink)");
    }
    expected.push_str("\n  logs/\n  nested/\n  notes.txt");
    if cfg!(unix) {
        expected.push_str(
            "\n  outside_link (symlink)\n  rel_leak.txt (symlink)\n4 folders, 3 files, 4 others.",
        );
    } else {
        expected.push_str("\n4 folders, 3 files.");
    }
    assert_eq!(outcome.content, expected);
}

#[tokio::test]
async fn tree_validates_depth() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture.call("tree", json!({"depth": 6})).await.error(),
        "Error: depth must be between 1 and 5, not 6."
    );
    assert_eq!(
        fixture.call("tree", json!({"depth": 0})).await.error(),
        "Error: depth must be between 1 and 5, not 0."
    );
}

#[tokio::test]
async fn file_hash_digests_the_bytes_of_a_file() {
    let fixture = Fixture::new();
    // `printf 'alpha\nbeta\ngamma\ndelta\nepsilon\n' | sha256sum`
    assert_eq!(
        fixture
            .call("file_hash", json!({"path": "notes.txt"}))
            .await
            .text(),
        "sha256:31d0cdeb90cb840ea8e3121874b8ed2a1d3cd1860d66228ed8742b2e758d5bcc \"notes.txt\" (31 bytes)"
    );
    let sha512 = fixture
        .call(
            "file_hash",
            json!({"path": "notes.txt", "algorithm": "sha512"}),
        )
        .await;
    assert!(sha512.text().starts_with("sha512:"));
    assert_eq!(
        sha512.text().len(),
        "sha512:".len() + 128 + " \"notes.txt\" (31 bytes)".len()
    );
}

#[tokio::test]
async fn every_file_tool_refuses_every_escape() {
    let fixture = Fixture::new();
    assert_escapes_refused(&fixture, "list_directory", |path| json!({"path": path})).await;
    assert_escapes_refused(&fixture, "read_file", |path| json!({"path": path})).await;
    assert_escapes_refused(&fixture, "file_info", |path| json!({"path": path})).await;
    assert_escapes_refused(
        &fixture,
        "find_files",
        |path| json!({"pattern": "*", "path": path}),
    )
    .await;
    assert_escapes_refused(
        &fixture,
        "search_files",
        |path| json!({"query": "SECRET", "path": path}),
    )
    .await;
    assert_escapes_refused(&fixture, "tree", |path| json!({"path": path})).await;
    assert_escapes_refused(&fixture, "file_hash", |path| json!({"path": path})).await;
}

#[cfg(unix)]
#[tokio::test]
async fn walks_never_follow_a_link_out_of_the_root() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture
            .call("search_files", json!({"query": "SECRET"}))
            .await
            .text(),
        "No match for \"SECRET\" in \".\"."
    );
    let found = fixture
        .call("find_files", json!({"pattern": "secret*"}))
        .await;
    assert_eq!(found.text(), "Nothing matches \"secret*\" in \".\".");
    let tree = fixture.call("tree", json!({"depth": 5})).await;
    assert!(!tree.content.contains("secret.txt"), "{}", tree.content);
}

#[tokio::test]
async fn file_tools_without_a_workspace_are_errors() {
    let fixture = Fixture::new();
    for (tool, arguments) in [
        ("list_directory", json!({})),
        ("read_file", json!({"path": "notes.txt"})),
        ("file_info", json!({"path": "notes.txt"})),
        ("find_files", json!({"pattern": "*"})),
        ("search_files", json!({"query": "x"})),
        ("tree", json!({})),
        ("file_hash", json!({"path": "notes.txt"})),
    ] {
        let outcome = fixture.call_without_workspace(tool, arguments).await;
        assert_eq!(
            outcome.error(),
            "Error: no workspace folder is configured for this run.",
            "{tool}"
        );
    }
}

mod confinement {
    use proptest::prelude::*;
    use serde_json::json;

    use super::Fixture;

    /// Path pieces that, put together, try every way out: `..`, links out and in, `\`, NUL,
    /// absolute starts and drive letters.
    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "..",
            ".",
            "",
            "outside_link",
            "leak.txt",
            "rel_leak.txt",
            "inside_link",
            "nested",
            "deep",
            "secret.txt",
            "notes.txt",
            "outside",
            "\\",
            "\0",
            "C:",
            "/",
            "%2e%2e",
            "…",
        ])
    }

    fn path() -> impl Strategy<Value = String> {
        (
            prop::collection::vec(piece(), 1..6),
            prop::sample::select(vec!["/", "\\", "//"]),
        )
            .prop_map(|(pieces, separator)| pieces.join(separator))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the path, no file tool shows what lies outside the root.
        #[test]
        fn no_path_reaches_outside_the_root(path in path()) {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            let fixture = Fixture::new();
            for (tool, arguments) in [
                ("read_file", json!({"path": path})),
                ("file_info", json!({"path": path})),
                ("file_hash", json!({"path": path})),
                ("list_directory", json!({"path": path})),
                ("tree", json!({"path": path, "depth": 5})),
                ("search_files", json!({"query": "SECRET", "path": path})),
                ("find_files", json!({"pattern": "secret*", "path": path})),
            ] {
                let outcome = runtime.block_on(fixture.call(tool, arguments));
                prop_assert!(!outcome.content.contains("TOP SECRET"), "{tool} {path:?}: {}", outcome.content);
                // The digest of the secret file would give it away as well.
                prop_assert!(!outcome.content.contains("secret.txt\" ("), "{tool} {path:?}: {}", outcome.content);
                let artifacts = serde_json::to_string(&outcome.artifacts).expect("serialise");
                prop_assert!(!artifacts.contains("TOP SECRET") && !artifacts.contains("secret.txt"), "{tool} {path:?}");
                prop_assert!(!outcome.content.starts_with("Error: tool"), "{tool} {path:?} failed: {}", outcome.content);
            }
        }
    }
}

/// A model rebuilds a password from `search_files`' match / no-match answers, a character at a
/// time (`password=h`, `password=hu`, ...). With the run's secret filter on, lines are matched
/// as masked: it learns no character; without the filter (the control), it learns them all.
#[tokio::test]
async fn search_files_answers_no_pattern_about_a_masked_secret() {
    const PASSWORD: &str = "hunter2xk9";
    let fixture = Fixture::new();
    std::fs::write(
        fixture.root.join("settings.env"),
        format!("HOST=db.example\nDB_PASSWORD={PASSWORD}\n"),
    )
    .expect("a settings file");
    for filtered in [true, false] {
        let mut scope = fixture
            .service
            .scope_offering(fixture.scope.context().clone(), ["search_files"])
            .unwrap();
        if filtered {
            scope = scope.with_content_filter(std::sync::Arc::new(toolkit::seam::SecretFilter));
        }
        let mut learned = String::new();
        'next: while learned.len() < PASSWORD.len() {
            for candidate in "abcdefghijklmnopqrstuvwxyz0123456789".chars() {
                let pattern = format!("PASSWORD={learned}{candidate}");
                let arguments = json!({"query": pattern, "regex": true, "glob": "*.env"});
                let result = fixture
                    .service
                    .invoke(&scope, "search_files", &arguments.to_string())
                    .await;
                if result.content().starts_with("1 match") {
                    learned.push(candidate);
                    continue 'next;
                }
            }
            break;
        }
        if filtered {
            assert_eq!(learned, "", "learned from the filtered answers");
        } else {
            assert_eq!(learned, PASSWORD, "the control learns it");
        }
    }
    // The line itself still matches a pattern about what the filter leaves.
    let filtered = fixture
        .service
        .scope_offering(fixture.scope.context().clone(), ["search_files"])
        .unwrap()
        .with_content_filter(std::sync::Arc::new(toolkit::seam::SecretFilter));
    let found = fixture
        .service
        .invoke(
            &filtered,
            "search_files",
            &json!({"query": "DB_PASSWORD=", "glob": "*.env"}).to_string(),
        )
        .await;
    assert_eq!(
        found.content(),
        "1 match for \"DB_PASSWORD=\" in 1 file:\nsettings.env:2: DB_PASSWORD=[REDACTED]"
    );
}
