//! `pi-bench WORKLOAD.json... [--typed|--dynamic]`: every call of each workload as the agent
//! loop makes it (the argument text parsed into a `Value`, then `execute_tool_call`), each
//! result checked against the file's `expect`, then timed against the plain-serde baseline in
//! the same run. Prints one line per workload.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use pi_bench::baseline::{Baseline, Layer};
use pi_bench::measure::{Measured, compare};
use pi_bench::workload::{Workload, WorkloadCall, verify};
use pi_bench::{dynamic, typed};
use pi_tool::ToolRegistry;

struct Options {
    files: Vec<PathBuf>,
    dynamic: bool,
    repetitions: usize,
    min_run: Duration,
}

fn parse_options() -> anyhow::Result<Options> {
    let mut options = Options {
        files: Vec::new(),
        dynamic: false,
        repetitions: 31,
        min_run: Duration::from_millis(20),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--typed" => options.dynamic = false,
            "--dynamic" => options.dynamic = true,
            "--quick" => {
                options.repetitions = 3;
                options.min_run = Duration::from_millis(5);
            }
            "--repetitions" => {
                options.repetitions = args
                    .next()
                    .context("--repetitions needs a number")?
                    .parse()?;
            }
            "-h" | "--help" => {
                println!(
                    "usage: pi-bench WORKLOAD.json... [--typed|--dynamic] [--repetitions N] [--quick]"
                );
                std::process::exit(0);
            }
            file => options.files.push(PathBuf::from(file)),
        }
    }
    anyhow::ensure!(!options.files.is_empty(), "give at least one WORKLOAD.json");
    Ok(options)
}

fn bench(workload: &Workload, tools: &ToolRegistry, options: &Options) -> anyhow::Result<()> {
    // Correctness first: every call, its expectation; the baseline too.
    verify(workload, tools)?;
    let baseline = Baseline::default();
    let all: Vec<&WorkloadCall> = workload.calls.iter().collect();
    let valid: Vec<&WorkloadCall> = workload.calls.iter().filter(|c| c.expect.ok).collect();
    let invalid: Vec<&WorkloadCall> = workload.calls.iter().filter(|c| !c.expect.ok).collect();
    let mode = if options.dynamic { "dynamic" } else { "typed" };
    for (label, calls) in [("all", &all), ("valid", &valid), ("invalid", &invalid)] {
        if calls.is_empty() || (label != "all" && calls.len() == all.len()) {
            continue;
        }
        let [ours, bare, contract] = measure(calls, tools, &baseline, options);
        println!(
            "{:<16} {:<8} {:<8} calls {:>3}  {:>9.0} ns/call {:>10.0} calls/s | serde {:>8.0} ns/call ratio {:.2}x | serde+contract {:>8.0} ns/call ratio {:.2}x",
            workload.name,
            mode,
            label,
            calls.len(),
            ours.ns_per_call,
            1e9 / ours.ns_per_call,
            bare.ns_per_call,
            1.0 / bare.ratio_to_first,
            contract.ns_per_call,
            1.0 / contract.ratio_to_first,
        );
    }
    Ok(())
}

/// Ns per call of `calls` through our path, the bare serde layer and the serde layer with the
/// contract, measured in alternating rounds; ratios are ours over each, round by round.
fn measure(
    calls: &[&WorkloadCall],
    tools: &ToolRegistry,
    baseline: &Baseline,
    options: &Options,
) -> [Measured; 3] {
    let mut run_ours = || {
        for call in calls {
            std::hint::black_box(call.run(tools));
        }
        calls.len()
    };
    let serde_layer = |layer: Layer| {
        move || {
            for call in calls {
                std::hint::black_box(call.run_baseline(baseline, layer));
            }
            calls.len()
        }
    };
    let (mut run_bare, mut run_contract) = (serde_layer(Layer::Bare), serde_layer(Layer::Contract));
    let measured = compare(
        options.repetitions,
        options.min_run,
        &mut [&mut run_ours, &mut run_bare, &mut run_contract],
    );
    let mut measured = measured.into_iter();
    std::array::from_fn(|_| {
        measured.next().unwrap_or(Measured {
            ns_per_call: f64::NAN,
            ratio_to_first: f64::NAN,
        })
    })
}

fn main() -> ExitCode {
    let outcome = (|| -> anyhow::Result<()> {
        let options = parse_options()?;
        for file in &options.files {
            let workload = Workload::load(file)?;
            let tools = if options.dynamic {
                dynamic::registry(&workload)?
            } else {
                typed::registry()
            };
            bench(&workload, &tools, &options)
                .with_context(|| format!("workload {}", workload.name))?;
        }
        Ok(())
    })();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pi-bench: {error:#}");
            ExitCode::FAILURE
        }
    }
}
