//! Every field type the derive takes, end to end: the schema the model is shown, a valid call
//! read, and each refusal under its path.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::collections::{BTreeMap, HashMap};

use pi_tool::schema::{ObjectParams, Schema};
use pi_tool::{CallContext, FnTool, ToolCall, ToolParams, ToolRegistry, execute_tool_call};
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq, ToolParams)]
struct Limits {
    #[param(min = 1)]
    cpus: u8,
    memory_mb: u32,
}

#[derive(Debug, PartialEq, ToolParams)]
#[serde(rename_all = "camelCase")]
struct Job {
    #[param(min = -10, max = 10)]
    niceness: i32,
    retries: u16,
    batch_size: usize,
    offset: isize,
    ratio: f32,
    tags: Option<Vec<String>>,
    env: HashMap<String, String>,
    limits_by_host: BTreeMap<String, Limits>,
    #[serde(rename = "payload")]
    extra: Value,
    limits: Option<Limits>,
}

fn job_tool() -> ToolRegistry {
    ToolRegistry::new([FnTool::typed(
        "job",
        "Start a job",
        |job: Job, _cx| async move { Ok(format!("{job:?}")) },
    )])
    .unwrap()
}

fn run(arguments: Value) -> pi_tool::ToolResultMessage {
    let call = ToolCall::new("c1", "job", arguments);
    futures::executor::block_on(execute_tool_call(
        &call,
        &job_tool(),
        CallContext::default(),
    ))
}

fn valid() -> Value {
    json!({
        "niceness": -3, "retries": 2, "batchSize": 64, "offset": -1, "ratio": 0.5,
        "tags": ["a", "b"], "env": {"PATH": "/bin"},
        "limitsByHost": {"web": {"cpus": 2, "memory_mb": 512}},
        "payload": {"anything": [1, null, "x"]},
        "undeclared": "dropped"
    })
}

#[test]
fn the_schema_names_every_type_with_its_range() {
    let schema = Job::object_schema().json_schema().unwrap().clone();
    let properties = &schema["properties"];
    assert_eq!(
        properties["niceness"],
        json!({"type": "integer", "minimum": -10, "maximum": 10})
    );
    assert_eq!(
        properties["retries"],
        json!({"type": "integer", "minimum": 0, "maximum": 65535})
    );
    assert_eq!(
        properties["batchSize"],
        json!({"type": "integer", "minimum": 0})
    );
    assert_eq!(properties["offset"], json!({"type": "integer"}));
    assert_eq!(properties["ratio"], json!({"type": "number"}));
    assert_eq!(
        properties["tags"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(
        properties["env"],
        json!({"type": "object", "additionalProperties": {"type": "string"}})
    );
    assert_eq!(
        properties["limitsByHost"]["additionalProperties"]["properties"]["cpus"],
        json!({"type": "integer", "minimum": 1, "maximum": 255})
    );
    assert_eq!(properties["payload"], json!({}));
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        required,
        [
            "niceness",
            "retries",
            "batchSize",
            "offset",
            "ratio",
            "env",
            "limitsByHost",
            "payload"
        ]
    );
}

#[test]
fn a_valid_call_reads_every_field_type() {
    let result = run(valid());
    assert!(!result.is_error, "{}", result.text());
    let text = result.text();
    for expected in [
        "niceness: -3",
        "batch_size: 64",
        "ratio: 0.5",
        r#"tags: Some(["a", "b"])"#,
        r#"env: {"PATH": "/bin"}"#,
        r#"limits_by_host: {"web": Limits { cpus: 2, memory_mb: 512 }}"#,
        r#"extra: Object {"anything": Array [Number(1), Null, String("x")]}"#,
        "limits: None",
    ] {
        assert!(text.contains(expected), "{expected} missing from {text}");
    }
}

#[test]
fn each_refusal_names_its_path_and_bound() {
    let mut bad = valid();
    bad["niceness"] = json!(11);
    bad["retries"] = json!(70000);
    bad["env"] = json!({"PATH": 1});
    bad["limitsByHost"] = json!({"web": {"cpus": 0, "memory_mb": 1}});
    let result = run(bad.clone());
    assert!(result.is_error);
    let text = result.text();
    for expected in [
        "niceness: 必须 <= 10",
        "retries: 必须 <= 65535",
        "env.PATH: 必须是 string",
        "limitsByHost.web.cpus: 必须 >= 1",
    ] {
        assert!(text.contains(expected), "{expected} missing from {text}");
    }
}
