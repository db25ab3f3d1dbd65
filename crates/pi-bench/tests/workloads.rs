//! Every call of every shipped workload gives the expected result, typed and dynamic.
#![allow(clippy::unwrap_used, missing_docs)]

use pi_bench::workload::{Workload, verify};
use pi_bench::{dynamic, typed};

#[test]
fn every_workload_call_meets_its_expectation() {
    let typed_tools = typed::registry();
    for workload in Workload::shipped().unwrap() {
        verify(&workload, &typed_tools).unwrap();
        verify(&workload, &dynamic::registry(&workload).unwrap()).unwrap();
    }
}
