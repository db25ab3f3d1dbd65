//! What a tool author writes: closures returning plain text or content, repair steps, errors
//! converted with `?`.

use pi_tool::{
    CallContext, FnTool, ToolCall, ToolError, ToolOutput, ToolParams, ToolRegistry,
    execute_tool_call, image, text,
};
use serde_json::{Value, json};

#[derive(ToolParams)]
struct Path {
    path: String,
}

fn run(tools: &ToolRegistry, name: &str, arguments: Value) -> pi_tool::ToolResultMessage {
    let call = ToolCall::new("call-1", name, arguments);
    futures::executor::block_on(execute_tool_call(&call, tools, CallContext::default()))
}

#[test]
fn closures_return_text_content_or_outputs() {
    // Four closures, four types: the builder takes them one by one.
    let tools = ToolRegistry::builder()
        .tool(FnTool::typed("string", "", |p: Path, _cx| async move {
            Ok(format!("read {}", p.path))
        }))
        .tool(FnTool::typed("str", "", |_: Path, _cx| async move {
            Ok("fixed")
        }))
        .tool(FnTool::typed("blocks", "", |p: Path, _cx| async move {
            Ok(vec![text(p.path), image("AAAA", "image/png")])
        }))
        .tool(FnTool::typed("block", "", |p: Path, _cx| async move {
            Ok(text(p.path))
        }))
        .build()
        .unwrap();
    let arguments = json!({"path": "a.txt"});
    assert_eq!(
        run(&tools, "string", arguments.clone()).text(),
        "read a.txt"
    );
    assert_eq!(run(&tools, "str", arguments.clone()).text(), "fixed");
    let blocks = run(&tools, "blocks", arguments.clone());
    assert_eq!(
        blocks.content,
        vec![text("a.txt"), image("AAAA", "image/png")]
    );
    assert!(!blocks.is_error);
    assert_eq!(run(&tools, "block", arguments).content, vec![text("a.txt")]);
}

#[test]
fn any_error_converts_with_question_mark_and_keeps_its_source() {
    let tools = ToolRegistry::new([FnTool::typed("read", "", |p: Path, _cx| async move {
        let body = std::fs::read_to_string(&p.path)?;
        Ok(body)
    })])
    .unwrap();
    let result = run(&tools, "read", json!({"path": "/definitely/not/here"}));
    assert!(result.is_error);
    assert!(
        result.text().starts_with("Tool read failed: No such file"),
        "{}",
        result.text()
    );

    let error: ToolError = std::io::Error::other("disk on fire").into();
    assert_eq!(error.message(), "disk on fire");
    assert!(error.source().is_some());
}

#[test]
fn anyhow_errors_and_strings_convert_with_question_mark_keeping_the_chain() {
    use anyhow::Context as _;
    fn load(path: &str) -> anyhow::Result<String> {
        std::fs::read_to_string(path).with_context(|| format!("loading {path}"))
    }
    let tools = ToolRegistry::builder()
        .tool(FnTool::typed("load", "", |p: Path, _cx| async move {
            Ok(load(&p.path)?)
        }))
        .tool(FnTool::typed("refuse", "", |p: Path, _cx| async move {
            if p.path.is_empty() {
                return Err(format!("empty path {:?}", p.path).into());
            }
            let refused: Result<String, &str> = Err("always refused");
            Ok(refused?)
        }))
        .build()
        .unwrap();
    // The model reads the reason, not only the outermost context.
    assert_eq!(
        run(&tools, "load", json!({"path": "/definitely/not/here"})).text(),
        "Tool load failed: loading /definitely/not/here: No such file or directory (os error 2)"
    );
    assert_eq!(
        run(&tools, "refuse", json!({"path": ""})).text(),
        "Tool refuse failed: empty path \"\""
    );
    assert_eq!(
        run(&tools, "refuse", json!({"path": "x"})).text(),
        "Tool refuse failed: always refused"
    );

    // The anyhow error's chain stays whole behind the message, each cause once.
    let error = ToolError::from(load("/definitely/not/here").unwrap_err());
    assert_eq!(
        error.message(),
        "loading /definitely/not/here: No such file or directory (os error 2)"
    );
    let top = error.source().unwrap();
    assert_eq!(top.to_string(), "loading /definitely/not/here");
    let cause = top.source().unwrap();
    assert_eq!(
        cause.downcast_ref::<std::io::Error>().unwrap().kind(),
        std::io::ErrorKind::NotFound
    );
    assert!(cause.source().is_none());
}

#[test]
fn unit_details_mean_no_details_not_null() {
    let tools = ToolRegistry::builder()
        .tool(FnTool::typed("none", "", |p: Path, _cx| async move {
            Ok(ToolOutput::text(p.path).with_details(()))
        }))
        .tool(FnTool::typed("null", "", |p: Path, _cx| async move {
            Ok(ToolOutput::text(p.path).with_details(Value::Null))
        }))
        .build()
        .unwrap();
    let none = run(&tools, "none", json!({"path": "a"}));
    assert_eq!(none.details, None);
    assert!(
        serde_json::to_value(&none)
            .unwrap()
            .get("details")
            .is_none()
    );
    // An explicit JSON null is the author's choice and stays.
    assert_eq!(
        run(&tools, "null", json!({"path": "a"})).details,
        Some(Value::Null)
    );
}

#[test]
fn the_builder_reports_the_first_duplicate_and_keeps_the_wording() {
    let echo = || FnTool::typed("echo", "", |p: Path, _cx| async move { Ok(p.path) });
    let error = ToolRegistry::builder()
        .tool(echo())
        .tool(echo())
        .build()
        .unwrap_err();
    assert_eq!(error.to_string(), "Tool 已存在：echo");
    let tools = ToolRegistry::builder()
        .tool(echo())
        .wording(pi_tool::model_text::Wording::Pi)
        .build()
        .unwrap();
    assert_eq!(run(&tools, "nope", json!({})).text(), "Tool nope not found");
}

#[test]
fn a_repair_step_and_schema_repairs_run_in_order_before_validation() {
    // The closure renames `file` to `path`; the scalar repair then has nothing to do; the
    // result is validated as usual.
    let tool = FnTool::typed("read", "", |p: Path, _cx| async move { Ok(p.path) })
        .with_prepare_arguments(|arguments: &Value| {
            let file = arguments.get("file")?;
            Some(json!({"path": file}))
        })
        .with_scalar_string_repair();
    let tools = ToolRegistry::new([tool]).unwrap();
    assert_eq!(
        run(&tools, "read", json!({"file": "b.txt"})).text(),
        "b.txt"
    );
    assert_eq!(
        run(&tools, "read", json!({"path": "c.txt"})).text(),
        "c.txt"
    );
    let refused = run(&tools, "read", json!({"file": 7}));
    assert_eq!(refused.text(), "Tool read failed: 必须是 string");
}

#[test]
fn a_repair_step_sees_only_arguments_the_schema_refuses() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let repairs = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&repairs);
    let tool = FnTool::typed("read", "", |p: Path, _cx| async move { Ok(p.path) })
        .with_prepare_arguments(move |arguments: &Value| {
            seen.fetch_add(1, Ordering::SeqCst);
            Some(json!({"path": arguments.get("file")?}))
        });
    let tools = ToolRegistry::new([tool]).unwrap();
    // Valid arguments are never handed to the repair step.
    assert_eq!(run(&tools, "read", json!({"path": "a"})).text(), "a");
    assert_eq!(repairs.load(Ordering::SeqCst), 0);
    // Refused ones are, and the repair's result is validated.
    assert_eq!(run(&tools, "read", json!({"file": "c"})).text(), "c");
    assert_eq!(repairs.load(Ordering::SeqCst), 1);
    assert!(run(&tools, "read", json!({"file": 7})).is_error);
}
