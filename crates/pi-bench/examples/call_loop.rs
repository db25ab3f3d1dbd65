//! Runs the calls of one workload many times through one contender, for
//! `valgrind --tool=callgrind`: instruction counts compare contenders without timing noise
//! (`scripts/instruction-counts.sh` prints the table).
//!
//! Usage: call_loop ours|dynamic|bare|contract|value|jsonschema WORKLOAD.json [all|valid|invalid] [ROUNDS]
//!
//! `jsonschema` is the jsonschema crate as a peer (parse into a `Value`, validate, collect every
//! violation; see `pi_bench::jsonschema_peer`).
//!
//! `value` is not a layer: it only parses each call's text into a `serde_json::Value` and drops
//! it, the floor of any layer that hands its tools JSON values (as dynamic schemas do).
#![allow(missing_docs)]

use std::hint::black_box;

use anyhow::{Context, bail};
use pi_bench::baseline::{Baseline, Layer};
use pi_bench::jsonschema_peer::JsonschemaPeer;
use pi_bench::workload::{Workload, WorkloadCall, verify};
use pi_bench::{dynamic, typed};
use pi_tool::ToolRegistry;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let contender = args
        .first()
        .context("name a contender: ours|dynamic|bare|contract|value|jsonschema")?;
    let workload = Workload::load(std::path::Path::new(
        args.get(1).context("give a WORKLOAD.json")?,
    ))?;
    let subset = args.get(2).map_or("all", String::as_str);
    let rounds: usize = args.get(3).map_or(Ok(10_000), |n| n.parse())?;
    let calls: Vec<&WorkloadCall> = workload
        .calls
        .iter()
        .filter(|call| match subset {
            "valid" => call.expect.ok,
            "invalid" => !call.expect.ok,
            _ => true,
        })
        .collect();
    let ours = |tools: &ToolRegistry| -> anyhow::Result<()> {
        verify(&workload, tools)?;
        for _ in 0..rounds {
            for call in &calls {
                black_box(call.run(tools));
            }
        }
        Ok(())
    };
    let serde = |layer: Layer| {
        let baseline = Baseline::default();
        for _ in 0..rounds {
            for call in &calls {
                black_box(call.run_baseline(&baseline, layer));
            }
        }
    };
    match contender.as_str() {
        "ours" => ours(&typed::registry())?,
        "dynamic" => ours(&dynamic::registry(&workload)?)?,
        "bare" => serde(Layer::Bare),
        "contract" => serde(Layer::Contract),
        "jsonschema" => {
            let peer = JsonschemaPeer::new(&workload)?;
            for _ in 0..rounds {
                for call in &calls {
                    black_box(peer.execute(&call.id, &call.name, &call.arguments));
                }
            }
        }
        "value" => {
            for _ in 0..rounds {
                for call in &calls {
                    black_box(serde_json::from_str::<serde_json::Value>(&call.arguments).ok());
                }
            }
        }
        other => bail!("unknown contender {other}"),
    }
    println!("calls {}", calls.len() * rounds);
    Ok(())
}
