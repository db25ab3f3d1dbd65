//! `peer CONTENDER WORKLOAD.json [--reps N] [--rep-ms MS] [--warmup-ms MS]`: one contender of
//! the peer table (`bench/peers/run.sh`) on one workload, in the protocol every peer's harness
//! follows: check every call against the workload's `expect`, warm up, then `reps` timed runs
//! of at least `rep-ms` each over all the calls; print one JSON line with the median and best
//! nanoseconds per call.
//!
//! Contenders: `serde` (the plain-serde baseline), `ours` (typed), `ours-dynamic` (the
//! workload's JSON Schemas), `jsonschema` (the jsonschema crate).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use pi_bench::baseline::{Baseline, Layer};
use pi_bench::jsonschema_peer::JsonschemaPeer;
use pi_bench::measure::median;
use pi_bench::workload::{Workload, check};
use pi_bench::{dynamic, typed};
use pi_tool::ToolResultMessage;

struct Options {
    contender: String,
    workload: String,
    reps: usize,
    rep: Duration,
    warmup: Duration,
}

fn options() -> anyhow::Result<Options> {
    let mut args = std::env::args().skip(1);
    let contender = args.next().context("name a contender")?;
    let workload = args.next().context("give a WORKLOAD.json")?;
    let mut options = Options {
        contender,
        workload,
        reps: 7,
        rep: Duration::from_millis(150),
        warmup: Duration::from_millis(300),
    };
    while let Some(flag) = args.next() {
        let value: u64 = args.next().context("a flag needs a number")?.parse()?;
        match flag.as_str() {
            "--reps" => options.reps = usize::try_from(value)?.max(1),
            "--rep-ms" => options.rep = Duration::from_millis(value),
            "--warmup-ms" => options.warmup = Duration::from_millis(value),
            other => bail!("unknown flag {other}"),
        }
    }
    Ok(options)
}

fn run(options: &Options) -> anyhow::Result<()> {
    let workload = Workload::load(std::path::Path::new(&options.workload))?;
    let baseline = Baseline::default();
    let typed_tools = typed::registry();
    let dynamic_tools = dynamic::registry(&workload)?;
    let jsonschema = JsonschemaPeer::new(&workload)?;
    let one: Box<dyn Fn(&pi_bench::workload::WorkloadCall) -> ToolResultMessage> = match options
        .contender
        .as_str()
    {
        "serde" => Box::new(|call| call.run_baseline(&baseline, Layer::Bare)),
        "ours" => Box::new(|call| call.run(&typed_tools)),
        "ours-dynamic" => Box::new(|call| call.run(&dynamic_tools)),
        "jsonschema" => Box::new(|call| jsonschema.execute(&call.id, &call.name, &call.arguments)),
        other => bail!("unknown contender {other}"),
    };
    for call in &workload.calls {
        let result = one(call);
        if options.contender == "ours" || options.contender == "ours-dynamic" {
            check(call, &result)?;
        } else if result.is_error == call.expect.ok
            || (call.expect.ok && call.expect.text.as_deref() != Some(result.text().as_str()))
        {
            bail!(
                "{}: {} answered {:?}",
                call.id,
                options.contender,
                result.text()
            );
        }
    }
    let mut run_all = || {
        for call in &workload.calls {
            std::hint::black_box(one(call));
        }
        workload.calls.len()
    };
    let sample = |run_all: &mut dyn FnMut() -> usize, length: Duration| {
        let started = Instant::now();
        let mut calls = 0usize;
        while started.elapsed() < length {
            calls += run_all();
        }
        started.elapsed().as_secs_f64() * 1e9 / calls.max(1) as f64
    };
    sample(&mut run_all, options.warmup);
    let times: Vec<f64> = (0..options.reps)
        .map(|_| sample(&mut run_all, options.rep))
        .collect();
    let best = times.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "{}",
        serde_json::json!({
            "peer": options.contender,
            "workload": workload.name,
            "ns_median": median(times),
            "ns_best": best,
            "calls": workload.calls.len(),
        })
    );
    Ok(())
}

fn main() -> ExitCode {
    match options().and_then(|options| run(&options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("peer: {error:#}");
            ExitCode::FAILURE
        }
    }
}
