//! A process whose tool is stuck for good still exits: the caller gets `failed` at the timeout,
//! and the worker thread holding the stuck tool keeps neither the runtime's shutdown nor the
//! process's exit waiting. This binary is both the test (started by `cargo test`) and the
//! process under test (started again with `TOOLKIT_TEST_STUCK=1`), so it has its own `main`.

use std::io::Read;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tool};

const CHILD: &str = "TOOLKIT_TEST_STUCK";

/// Never returns.
#[tool]
fn stuck() -> String {
    loop {
        std::thread::park();
    }
}

fn main() -> ExitCode {
    if std::env::var(CHILD).as_deref() == Ok("1") {
        return the_process_with_a_stuck_tool();
    }
    a_process_with_a_stuck_tool_still_exits();
    println!("test a_process_with_a_stuck_tool_still_exits ... ok");
    ExitCode::SUCCESS
}

fn the_process_with_a_stuck_tool() -> ExitCode {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let content = runtime.block_on(async {
        let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
        let scope = service
            .scope(ToolContext::new())
            .unwrap()
            .with_timeout(Duration::from_millis(200));
        service
            .invoke(&scope, "stuck", "{}")
            .await
            .content()
            .to_owned()
    });
    drop(runtime);
    println!("{content}");
    ExitCode::SUCCESS
}

fn a_process_with_a_stuck_tool_still_exits() {
    let mut child = Command::new(std::env::current_exe().expect("this binary"))
        .env(CHILD, "1")
        .stdout(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let deadline = Instant::now() + Duration::from_mins(1);
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the process with a stuck tool did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut output = String::new();
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut output)
        .expect("reads");
    assert!(status.success(), "{status}");
    assert_eq!(output, "Error: tool \"stuck\" failed.\n");
}
