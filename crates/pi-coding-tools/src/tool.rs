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

/// A tool's work later (through a [`crate::FileAccess`]).
pub(crate) type LaterOutcome = std::pin::Pin<Box<dyn std::future::Future<Output = Outcome> + Send>>;

/// A reading tool's work through the workspace's [`crate::FileAccess`].
pub(crate) type ReadThrough<P> = fn(Workspace, P, ToolContext) -> LaterOutcome;

/// A changing tool's work through the workspace's [`crate::FileAccess`], given the confined
/// path (its write queue already held).
pub(crate) type ChangeThrough<P> = fn(Workspace, std::path::PathBuf, P) -> LaterOutcome;

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
    through: Option<ReadThrough<P>>,
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
                if let Some(through) = through
                    && workspace.file_access().is_some()
                {
                    return through(workspace, params, context).await;
                }
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
/// write queue, then `work` runs where it cannot stall other tasks, confined to the roots; or,
/// when the workspace has a [`crate::FileAccess`], `through` runs instead. `prepare` repairs
/// arguments first.
pub(crate) fn changing_tool<P>(
    workspace: &Workspace,
    name: &'static str,
    path_of: fn(&P) -> &str,
    work: fn(&Path, &P) -> Outcome,
    through: ChangeThrough<P>,
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
                if workspace.file_access().is_some() {
                    return through(workspace.clone(), path, params).await;
                }
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

/// Runs a file tool's work off the async executor, confined to the workspace's roots as a
/// tool's own work is (`access`: what it may do there).
pub(crate) async fn on_workspace_thread<T: Send + 'static>(
    workspace: &Workspace,
    access: Access,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ToolError> {
    on_file_thread(workspace.roots().map(<[_]>::to_vec), access, work).await
}

/// What the disk holds at a path a tool was given, for a tool working through a
/// [`crate::FileAccess`]: an editor serves text, so images and binary files stay disk reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnDisk {
    /// Nothing (the editor may still have an unsaved buffer there).
    Missing,
    /// A FIFO, a device, a directory: no tool reads it.
    NotRegular,
    /// A regular file that reads as text.
    Text,
    /// A regular file that starts like an image or holds a NUL byte.
    Binary,
}

/// How many bytes of a file decide whether it is text.
const SNIFF_BYTES: usize = 8 * 1024;

/// What the disk holds at `path` (see [`OnDisk`]).
pub(crate) fn on_disk(path: &Path) -> std::io::Result<OnDisk> {
    let file = match crate::read::open_regular_file(path) {
        Ok(Some((file, _))) => file,
        Ok(None) => return Ok(OnDisk::NotRegular),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(OnDisk::Missing),
        Err(error) => return Err(error),
    };
    let mut start = Vec::with_capacity(SNIFF_BYTES);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, SNIFF_BYTES as u64),
        &mut start,
    )?;
    let binary = crate::image_file::sniff(&start).is_some() || memchr::memchr(0, &start).is_some();
    Ok(if binary { OnDisk::Binary } else { OnDisk::Text })
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
