//! How each coding tool becomes a registered tool: Pi's name, description and parameters, and
//! its work done where it cannot stall other tasks. Every coding tool repairs numbers and
//! booleans a model sent as strings (`"offset": "2"`), as upstream Pi's do.

use std::path::Path;

use pi_tool::schema::ObjectParams;
use pi_tool::{FnTool, RegisteredTool, ToolContext, ToolError, ToolOutput};
use serde_json::Value;

use crate::Workspace;
use crate::blocking::blocking;
use crate::sandbox::files::{Access, run_confined};

/// What a tool's work gives back.
pub(crate) type Outcome = Result<ToolOutput, ToolError>;

/// Pi's description of the tool `name`.
pub(crate) fn description_of(name: &str) -> &'static str {
    crate::params::TOOL_SCHEMAS
        .iter()
        .find(|schema| schema.name == name)
        .map_or("", |schema| schema.description)
}

/// A tool that reads: `work` runs where it cannot stall other tasks, confined to the roots.
/// `one_file`: the tool reads the one file its `path` names (`read`), and keeps its place in a
/// batch among the writes of that file. `prepare` repairs arguments first.
pub(crate) fn reading_tool<P>(
    workspace: &Workspace,
    name: &'static str,
    one_file: bool,
    work: fn(&Workspace, &P, &ToolContext) -> Outcome,
    prepare: Option<fn(&Value) -> Option<Value>>,
) -> RegisteredTool
where
    P: ObjectParams + Send + 'static,
{
    let tool = FnTool::new(name, description_of(name), P::object_schema(), {
        let workspace = workspace.clone();
        move |params: P, context: ToolContext| {
            let workspace = workspace.clone();
            async move {
                let roots = workspace.roots().map(<[_]>::to_vec);
                on_file_thread(roots, Access::Read, move || {
                    work(&workspace, &params, &context)
                })
                .await?
            }
        }
    })
    .with_scalar_string_repair()
    .with_annotations(pi_tool::ToolAnnotations::read_only());
    let tool = match prepare {
        Some(prepare) => tool.with_prepare_arguments(prepare),
        None => tool,
    };
    RegisteredTool::new(match one_file {
        // A read of a file keeps its place among the batch's writes of that file.
        true => tool.with_ordering_key(file_key(workspace)),
        false => tool,
    })
}

/// `arguments` with a number sent for one of the text `fields` made that number's text
/// (`"pattern": 123` is `"123"`), as upstream's validator coerces it; `None` when there was
/// none.
pub(crate) fn numbers_as_text(arguments: &Value, fields: &[&str]) -> Option<Value> {
    let object = arguments.as_object()?;
    let numbers: Vec<(&str, String)> = fields
        .iter()
        .filter_map(|field| match object.get(*field) {
            Some(Value::Number(number)) => Some((*field, number.to_string())),
            _ => None,
        })
        .collect();
    if numbers.is_empty() {
        return None;
    }
    let mut repaired = object.clone();
    for (field, text) in numbers {
        repaired.insert(field.to_owned(), Value::String(text));
    }
    Some(Value::Object(repaired))
}

/// The ordering key of a call on the one file its `path` argument names: the same for every
/// spelling of the file (`a`, `./a`, a link to `a`), as the write queue's.
fn file_key(workspace: &Workspace) -> impl Fn(&Value) -> Option<String> + Send + Sync + 'static {
    let workspace = workspace.clone();
    move |arguments: &Value| {
        let path = arguments.get("path")?.as_str()?;
        Some(workspace.queue_key_of(path).to_string())
    }
}

/// A tool that changes the one file `path_of` its parameters names: it waits for the file's
/// write queue, then `work` runs where it cannot stall other tasks, confined to the roots. `prepare` repairs arguments first.
pub(crate) fn changing_tool<P>(
    workspace: &Workspace,
    name: &'static str,
    path_of: fn(&P) -> &str,
    work: fn(&Path, &P) -> Outcome,
    prepare: Option<fn(&Value) -> Option<Value>>,
) -> RegisteredTool
where
    P: ObjectParams + Send + 'static,
{
    let key = file_key(workspace);
    let workspace = workspace.clone();
    let tool = FnTool::new(
        name,
        description_of(name),
        P::object_schema(),
        move |params: P, _context: ToolContext| {
            let workspace = workspace.clone();
            async move {
                let path = workspace.confined_path(path_of(&params))?;
                let _queue = workspace.lock_for_writing(&path).await;
                let roots = workspace.roots().map(<[_]>::to_vec);
                on_file_thread(roots, Access::Write, move || work(&path, &params)).await?
            }
        },
    );
    let tool = tool
        .with_scalar_string_repair()
        .with_ordering_key(key)
        .with_annotations(pi_tool::ToolAnnotations::destructive());
    RegisteredTool::new(match prepare {
        Some(prepare) => tool.with_prepare_arguments(prepare),
        None => tool,
    })
}

/// Runs a file tool's work off the async executor: on a thread the kernel confines to `roots`
/// when the workspace is confined, on the blocking pool when it is not.
async fn on_file_thread<T: Send + 'static>(
    roots: Option<Vec<std::path::PathBuf>>,
    access: Access,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ToolError> {
    match roots {
        Some(roots) => run_confined(roots, access, work).await,
        None => blocking(work).await,
    }
}
