//! What building a run's system prompt costs: a repository 30 directories deep with an
//! `AGENTS.md` every fifth level, an agent directory with its own `AGENTS.md` and 50 skills.
//! `prompt_build make-tree DIR` writes the tree (for Pi's side of `scripts/prompt-build-bench.sh`
//! to read too); `prompt_build time DIR [ROUNDS]` prints the median milliseconds of
//! `RunPrompt::build` over it, the product's own call (the one every run makes once).

use std::path::{Path, PathBuf};
use std::time::Instant;

use pi_coding_agent::{OfferedTool, PromptOptions, RunPrompt};

/// How deep the working directory is below the repository.
const DEPTH: usize = 30;
/// How many skills the agent directory holds.
const SKILLS: usize = 50;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["make-tree", dir] => {
            make_tree(Path::new(dir))?;
            println!("{}", work_dir(Path::new(dir)).display());
        }
        ["time", dir, rest @ ..] => {
            let rounds = rest.first().map_or(Ok(50), |n| n.parse())?;
            println!("{:.3}", median_ms(Path::new(dir), rounds));
        }
        _ => return Err("usage: prompt_build make-tree DIR | time DIR [ROUNDS]".into()),
    }
    Ok(())
}

/// The deepest directory: where the run works.
fn work_dir(root: &Path) -> PathBuf {
    (1..=DEPTH).fold(root.join("repo"), |dir, level| {
        dir.join(format!("d{level:02}"))
    })
}

fn make_tree(root: &Path) -> std::io::Result<()> {
    let agent = root.join("agent");
    std::fs::create_dir_all(agent.join("skills"))?;
    std::fs::write(agent.join("AGENTS.md"), "Global rules: be brief.\n")?;
    for n in 0..SKILLS {
        let skill = agent.join(format!("skills/skill-{n:02}"));
        std::fs::create_dir_all(&skill)?;
        std::fs::write(
            skill.join("SKILL.md"),
            format!(
                "---\nname: skill-{n:02}\ndescription: Does task number {n} of the benchmark; use it when asked for task {n}.\n---\n\n# Skill {n}\n\nSteps...\n"
            ),
        )?;
    }
    let repo = root.join("repo");
    std::fs::create_dir_all(repo.join(".git"))?;
    let mut dir = repo.clone();
    for level in 1..=DEPTH {
        dir = dir.join(format!("d{level:02}"));
        std::fs::create_dir_all(&dir)?;
        if level % 5 == 0 {
            std::fs::write(dir.join("AGENTS.md"), format!("Rules of level {level}.\n"))?;
        }
    }
    std::fs::write(repo.join("AGENTS.md"), "Project rules.\n")
}

/// The median of `rounds` builds, in milliseconds.
fn median_ms(root: &Path, rounds: usize) -> f64 {
    let mut options = PromptOptions::new(work_dir(root));
    options.agent_dir = Some(root.join("agent"));
    options.home_dir = None;
    options.today = "2026-12-07".to_owned();
    options.tools = ["read", "bash", "edit", "write"]
        .map(|name| OfferedTool::new(name, "A coding tool."))
        .to_vec();
    let mut times: Vec<f64> = (0..rounds.max(1))
        .map(|_| {
            let started = Instant::now();
            let prompt = RunPrompt::build(&options);
            let took = started.elapsed().as_secs_f64() * 1000.0;
            assert!(prompt.text.contains("skill-49"), "every skill is listed");
            took
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied().unwrap_or_default()
}
