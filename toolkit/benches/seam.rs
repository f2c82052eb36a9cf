//! Cost of the seam: one trivial call end to end, and both bounds at 100 KB and 100 MB.
//!
//! Bounding is measured on borrowed input (`cut_content`, `cut_artifacts`: exactly what the seam
//! calls); freeing the tool's oversized output afterwards is the allocator's O(size) work for any
//! design and is left out of the timing.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolkit::bound::{cut_artifacts, cut_content};
use toolkit::{Table, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, tool};

const KB_100: usize = 100 * 1024;
const MB_100: usize = 100 * 1024 * 1024;

/// Adds two integers.
#[tool]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

fn invoke(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    let scope = service
        .scope(ToolContext::new())
        .expect("no tool reads state");
    let check = runtime.block_on(service.invoke(&scope, "add", r#"{"a": 2, "b": 3}"#));
    assert_eq!(check.content().as_str(), "5");

    let mut group = c.benchmark_group("invoke");
    group.bench_function("block_on_only", |b| {
        b.iter(|| runtime.block_on(async { black_box(2i64) }));
    });
    group.bench_function("hand_written_in_block_on", |b| {
        b.iter(|| {
            runtime.block_on(async { black_box(black_box(2i64) + black_box(3i64)).to_string() })
        });
    });
    group.bench_function("trivial_tool_by_name", |b| {
        b.iter(|| {
            let result = runtime.block_on(service.invoke(
                &scope,
                black_box("add"),
                black_box(r#"{"a": 2, "b": 3}"#),
            ));
            black_box(result)
        });
    });
    group.finish();
}

fn text_of(bytes: usize) -> String {
    "lorem ipsum dolor sit amet, consectetur adipiscing elit ".repeat(bytes / 56 + 1)[..bytes]
        .to_owned()
}

fn table_of(bytes: usize) -> Table {
    // Rows of about 100 bytes of JSON each.
    let rows = bytes / 100;
    Table::from_rows(
        ["id", "name", "note"],
        (0..rows).map(|id| {
            [
                format!("{id:08}"),
                format!("name number {id:012}"),
                "x".repeat(48),
            ]
        }),
    )
    .expect("three cells per row")
}

fn bound(c: &mut Criterion) {
    let mut group = c.benchmark_group("bound");
    group.sample_size(50);
    for (size, label) in [(KB_100, "100KB"), (MB_100, "100MB")] {
        let content = text_of(size);
        group.bench_function(format!("content_{label}"), |b| {
            b.iter(|| black_box(cut_content(black_box(&content))));
        });
        let texts = vec![ToolArtifact::text("log", content.clone())];
        group.bench_function(format!("text_artifact_{label}"), |b| {
            b.iter(|| black_box(cut_artifacts(black_box(&texts))));
        });
        drop(texts);
        drop(content);
        let tables = vec![ToolArtifact::table("rows", table_of(size))];
        group.bench_function(format!("table_artifact_{label}"), |b| {
            b.iter(|| black_box(cut_artifacts(black_box(&tables))));
        });
    }
    group.finish();
}

criterion_group!(benches, invoke, bound);
criterion_main!(benches);
