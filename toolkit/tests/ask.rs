//! A tool's question to the person (`ToolContext::ask`): a caller that can ask runs the call in
//! rounds, each with the answers so far, blocking and async tools alike; a question's text is
//! masked as content is; where nobody can answer (a loop run, a plain invoke) the tool hears so
//! at once and the model reads what the tool makes of it.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolkit::ask::{Answer, Answers, Invoked};
use toolkit::provider::ScriptedProvider;
use toolkit::recording::RunStep;
use toolkit::seam::SecretFilter;
use toolkit::{RunRequest, Seam, ToolCall, ToolContext, ToolLoopService, ToolRegistry, tool};

#[derive(Deserialize, JsonSchema)]
struct Size {
    /// How many.
    count: u32,
}

#[derive(Deserialize, JsonSchema)]
struct Sure {
    /// Really?
    sure: bool,
}

/// Asks how many, then whether the person is sure, after a wait.
#[tool]
async fn orders(context: &ToolContext) -> Result<String, String> {
    let size: Size = context
        .ask("size", "How many? api_key=sk-live-0a1b2c3d4e5f60718293a4b5")
        .map_err(|unanswered| unanswered.to_string())?;
    tokio::task::yield_now().await;
    let sure: Sure = context
        .ask("sure", &format!("Order {}?", size.count))
        .map_err(|unanswered| unanswered.to_string())?;
    Ok(if sure.sure {
        format!("{} ordered", size.count)
    } else {
        "nothing ordered".to_owned()
    })
}

fn keys(invoked: &Invoked) -> Vec<(String, String)> {
    match invoked {
        Invoked::Asking { asked, .. } => asked
            .iter()
            .map(|asked| (asked.key().to_owned(), asked.message().to_owned()))
            .collect(),
        Invoked::Done(result) => panic!("done: {}", result.content()),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_call_runs_in_rounds_until_every_question_it_asks_is_answered() {
    let seam =
        Seam::new(ToolRegistry::linked().unwrap()).with_content_filter(Arc::new(SecretFilter));
    let scope = seam.scope(ToolContext::new()).unwrap();
    let call = ToolCall::new("call_1", "orders", "{}");

    let first = seam.invoke_answering(&scope, &call, Answers::new()).await;
    assert_eq!(
        keys(&first),
        [("size".to_owned(), "How many? api_key=[REDACTED]".to_owned())]
    );
    let Invoked::Asking { meanwhile, .. } = &first else {
        unreachable!()
    };
    assert_eq!(
        meanwhile.content(),
        "the question \"size\" waits for the person's answer"
    );

    let answers = Answers::new().with("size", Answer::accept(json!({"count": 3})));
    let second = seam.invoke_answering(&scope, &call, answers.clone()).await;
    assert_eq!(keys(&second), [("sure".to_owned(), "Order 3?".to_owned())]);

    let answers = answers.with("sure", Answer::accept(json!({"sure": true})));
    let Invoked::Done(done) = seam.invoke_answering(&scope, &call, answers).await else {
        panic!("every question is answered");
    };
    assert_eq!(done.content(), "3 ordered");

    // Dismissed: the tool hears it.
    let answers = Answers::new().with("size", Answer::Cancel);
    let Invoked::Done(dismissed) = seam.invoke_answering(&scope, &call, answers).await else {
        panic!("a dismissal is an answer the tool hears");
    };
    assert_eq!(
        dismissed.content(),
        "the person dismissed the question \"size\""
    );
}

#[tokio::test]
async fn in_a_loop_nobody_answers_and_the_model_reads_what_the_tool_makes_of_it() {
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let provider = ScriptedProvider::from_json(
        r#"{"turns": [{"tool_calls": [{"id": "c1", "name": "orders", "arguments": {}}]},
                      {"content": "done"}]}"#,
    )
    .unwrap();
    let result = service
        .run(&provider, RunRequest::new("order"))
        .await
        .unwrap();
    let tools: Vec<&str> = result
        .trace
        .steps()
        .iter()
        .filter_map(|step| match step {
            RunStep::Tool(invocation) => Some(invocation.content()),
            _ => None,
        })
        .collect();
    assert_eq!(
        tools,
        ["nobody can answer the question \"size\" here: this call runs where no person is asked"]
    );
}
