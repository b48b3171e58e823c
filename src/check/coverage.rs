//! `check --coverage`: the statements a complete check never ran, per procedure (SPIN's
//! "unreached in proctype"), from the [`Coverage`] the engines recorded into.

use crate::report::{CoverageReport, Unreached};
use crate::runtime::Coverage;
use std::collections::BTreeMap;
use zingrs_lang::ir::{Pc, ProcId, Program};

/// The statements of `program`: per procedure, its nodes grouped by where they start in the
/// source (a statement the front end lowered into several nodes ran if any of them did);
/// nodes without text of their own are left out, as are the procedures zingrs adds.
fn statements(program: &Program) -> Vec<(ProcId, u32, Vec<Pc>)> {
    let mut out = Vec::new();
    for (q, proc) in program.procs.iter().enumerate() {
        if proc.name.starts_with("__zingrs") || proc.name.starts_with("__ZingrsLtl") {
            continue;
        }
        let mut at: BTreeMap<u32, Vec<Pc>> = BTreeMap::new();
        for (pc, n) in proc.nodes.iter().enumerate() {
            if n.span.end > n.span.start {
                at.entry(n.span.start).or_default().push(pc as Pc);
            }
        }
        out.extend(at.into_iter().map(|(start, pcs)| (q as ProcId, start, pcs)));
    }
    out
}

/// The coverage section of a report: how many statements ran, and, when the check was
/// complete (`complete`: it ended without a limit or bound, and found every error it met),
/// those that never did.
pub(super) fn report(program: &Program, ran: &Coverage, complete: bool) -> CoverageReport {
    let all = statements(program);
    let mut reached = 0u64;
    let mut unreached = Vec::new();
    for (q, start, pcs) in &all {
        if pcs.iter().any(|&pc| ran.ran(*q, pc)) {
            reached += 1;
        } else if complete {
            let (line, column) = program.source.line_col(*start);
            let span = program.procs[*q as usize].nodes[pcs[0] as usize].span;
            unreached.push(Unreached {
                procedure: program.procs[*q as usize].name.clone(),
                line,
                column,
                statement: program.source.snippet(span).to_string(),
            });
        }
    }
    CoverageReport {
        complete,
        statements: all.len() as u64,
        reached,
        unreached,
    }
}
