//! A tool's question to the person (`ToolContext::ask`): a caller that can ask runs the call in
//! rounds, each with the answers so far, blocking and async tools alike; a question's text is
//! masked as content is; a loop run suspends on a question, sealed like an approval, and
//! resumes with its answer, and the model reads only the last round's result.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolkit::approval::Decision;
use toolkit::provider::ScriptedProvider;
use toolkit::recording::RunStep;
use toolkit::seam::SecretFilter;
use toolkit::talk::{Answer, Answers, Invoked};
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

/// Stamps a document; needs an operator's approval, and asks nothing.
#[tool(requires_approval)]
fn stamps() -> String {
    "stamped".to_owned()
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

/// The questions of the pending call `c1`: their keys and texts.
fn questions(result: &toolkit::ToolLoopResult) -> Vec<(String, String)> {
    let suspension = result.suspension.as_ref().expect("the run waits");
    assert_eq!(suspension.questions.len(), 1);
    assert_eq!(suspension.questions[0].call_id, "c1");
    suspension.questions[0]
        .asked
        .iter()
        .map(|asked| (asked.key().to_owned(), asked.message().to_owned()))
        .collect()
}

fn kinds(result: &toolkit::ToolLoopResult) -> Vec<&'static str> {
    result
        .trace
        .steps()
        .iter()
        .map(|step| step.kind().as_str())
        .collect()
}

/// The service of this file's tools, and the first run of `script`: the provider to resume
/// with, and how the run ended.
async fn first_run(script: &str) -> (ToolLoopService, ScriptedProvider, toolkit::ToolLoopResult) {
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let provider = ScriptedProvider::from_json(script).unwrap();
    let first = service.run(&provider, RunRequest::new("go")).await.unwrap();
    (service, provider, first)
}

const ORDERS: &str = r#"{"turns": [{"tool_calls": [{"id": "c1", "name": "orders", "arguments": {}}]},
                                   {"content": "done"}]}"#;

fn tool_contents(result: &toolkit::ToolLoopResult) -> Vec<String> {
    result
        .trace
        .steps()
        .iter()
        .filter_map(|step| match step {
            RunStep::Tool(invocation) => Some(invocation.content().to_owned()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_loop_run_suspends_on_a_question_and_resumes_with_its_answer() {
    let (service, provider, first) = first_run(ORDERS).await;
    assert_eq!(
        first.termination,
        toolkit::recording::Termination::Suspended
    );
    assert_eq!(
        questions(&first),
        [(
            "size".to_owned(),
            "How many? api_key=sk-live-0a1b2c3d4e5f60718293a4b5".to_owned()
        )]
    );
    // The round that asked is recorded as what it asked, not as a result: the model read
    // nothing of it.
    assert_eq!(kinds(&first), ["request", "llm", "asked", "suspended"]);
    assert!(tool_contents(&first).is_empty());
    assert!(
        !serde_json::to_string(&first.messages)
            .unwrap()
            .contains("waits")
    );
    let token = &first.suspension.as_ref().unwrap().token;

    // An approval is not an answer; the token is not spent by a wrong decision.
    let wrong = service
        .resume(
            &provider,
            token,
            &[Decision::approve("c1")],
            ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        wrong.to_string(),
        "the call \"c1\" cannot be decided so: it waits for the answers to its tool's questions: answer them, or deny it"
    );

    let size = Answers::new().with("size", Answer::accept(json!({"count": 2})));
    let second = service
        .resume(
            &provider,
            token,
            &[Decision::answer("c1", size)],
            ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        questions(&second),
        [("sure".to_owned(), "Order 2?".to_owned())]
    );
    let token = &second.suspension.as_ref().unwrap().token;

    let sure = Answers::new().with("sure", Answer::accept(json!({"sure": true})));
    let third = service
        .resume(
            &provider,
            token,
            &[Decision::answer("c1", sure)],
            ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(third.termination, toolkit::recording::Termination::Answered);
    assert_eq!(third.content, "done");
    assert_eq!(tool_contents(&third), ["2 ordered"]);
    assert_eq!(kinds(&second), ["resumed", "asked", "suspended"]);
    // The model read the call's one answer, the last round's.
    let messages = serde_json::to_string(&third.messages).unwrap();
    assert!(messages.contains("2 ordered") && !messages.contains("waits"));
    // Neither the questions nor the answers reached the model: they are the person's.
    for private in ["How many?", "Order 2?", "\"count\"", "\"sure\""] {
        assert!(!messages.contains(private), "{private} reached the model");
    }
}

#[tokio::test]
async fn a_denied_question_is_declined_and_a_call_that_asked_nothing_takes_no_answer() {
    let (service, provider, first) = first_run(ORDERS).await;
    let token = &first.suspension.as_ref().unwrap().token;
    let denied = service
        .resume(
            &provider,
            token,
            &[Decision::deny("c1")],
            ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        tool_contents(&denied),
        ["the person declined to answer the question \"size\""]
    );

    let script = r#"{"turns": [{"tool_calls": [{"id": "c2", "name": "stamps", "arguments": {}}]},
                               {"content": "done"}]}"#;
    let provider = ScriptedProvider::from_json(script).unwrap();
    let waiting = service
        .run(&provider, RunRequest::new("stamp"))
        .await
        .unwrap();
    let suspension = waiting.suspension.as_ref().expect("it waits for approval");
    assert!(suspension.questions.is_empty());
    let answer = Answers::new().with("size", Answer::Cancel);
    let wrong = service
        .resume(
            &provider,
            &suspension.token,
            &[Decision::answer("c2", answer)],
            ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        wrong.to_string(),
        "the call \"c2\" cannot be decided so: its tool asked no question: approve, approve it for the run, deny or edit it"
    );
}
