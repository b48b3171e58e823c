//! The coverability engine (`--engine coverability`): a verdict for any number of threads in
//! boolean programs whose threads do not recurse (the shape SatAbs produces: threads started
//! in a loop).
//!
//! Every thread, `main` included, is counted: a state is the shared valuation, the thread that
//! owns the atomic section (kept apart: while it runs no other thread moves, which counts
//! alone would not respect), and how many threads are in each thread-local state (a whole
//! call stack, bounded because no procedure recurses, and the thread-local globals). An error
//! — a failed assertion, a `--target` label, a runtime error — is a thread in a local state
//! from which it errs, under some shared valuation: an upward-closed set, so reaching it is a
//! coverability question, decided by a Karp–Miller tree ([`tree`]). Forward, rather than
//! backward reachability as in BFC: the tree runs on `runtime::step` as it is (a backward
//! search needs pre-images, which the interpreter does not compute), and its branches are
//! interleavings, which is what a counterexample has to be.
//!
//! * [`local`]: local states and transitions, learnt by stepping a state holding one thread.
//! * [`tree`]: the Karp–Miller tree with ω-acceleration and covering.
//! * [`witness`]: a concrete interleaving for a reached error (the tree's branch with its
//!   accelerated segments repeated, or a breadth-first search from its initial valuation).
//!
//! `--engine auto` picks the engine for the programs `zingrs_lang::spawn::unbounded_creation`
//! names, unless `--threads` bounds them.
//!
//! Deadlocks are not checked: a deadlock (every thread stuck, e.g. at a false `assume`) is
//! not an upward-closed set of markings (one more thread that can move undoes it), so the tree
//! does not decide it. Where threads can get stuck, `cli::check` reports this engine's pass as
//! inconclusive unless `--no-deadlock` (`SearchResult::deadlocks_unchecked`).

pub mod local;
pub mod tree;
pub mod witness;

use crate::runtime::{InitialStates, Machine};
use crate::search;
use crate::search::{SearchResult, SearchStats, Watch};
use std::time::Instant;
use zingrs_lang::ir::{Layout, Program, Stmt};

/// Why the engine does not check a program: a message, and the statement it is about.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub message: String,
    /// The offending statement and a label for the caret.
    pub at: Option<(zingrs_lang::ir::Span, String)>,
}

impl Refusal {
    /// The message with the offending statement's `file:line:col`, source line and caret
    /// (what `zingrs check` prints after `error: `).
    pub fn render(&self, program: &Program) -> String {
        let Some((span, label)) = &self.at else {
            return self.message.clone();
        };
        let d = zingrs_lang::diag::Diagnostic::error(*span, self.message.clone())
            .with_label(label.clone());
        let text = zingrs_lang::diag::render(&program.source, &[d]);
        text.strip_prefix("error: ")
            .unwrap_or(&text)
            .trim_end()
            .to_string()
    }
}

/// Whether the coverability engine can check `program`; `Err` says why not.
pub fn applies(program: &Program) -> Result<(), String> {
    refusal(program).map_or(Ok(()), |r| Err(r.message))
}

/// Why the engine does not check `program`, if it does not.
pub fn refusal(program: &Program) -> Option<Refusal> {
    let plain = |message: &str| {
        Some(Refusal {
            message: message.into(),
            at: None,
        })
    };
    if program.keep_completed {
        return plain("the coverability engine checks boolean programs only, not Zing models");
    }
    if !matches!(program.layout, Layout::Standard) {
        return plain(
            "the coverability engine does not check the Getafix concurrent layout (use \
             --engine bdd --contexts K)",
        );
    }
    for (q, p) in program.procs.iter().enumerate() {
        for (pc, node) in p.nodes.iter().enumerate() {
            if node.stmt.is_broadcast() {
                return Some(Refusal {
                    message: "the coverability engine does not check broadcasts to passive \
                              variables (`x$`): use --engine explicit"
                        .into(),
                    at: Some((
                        node.span,
                        "writes other threads' locals, which thread counters do not follow".into(),
                    )),
                });
            }
            if !supported(&node.stmt) {
                return Some(Refusal {
                    message: format!(
                        "the coverability engine does not handle `{}`",
                        program.describe(q as u32, pc as u32)
                    ),
                    at: Some((node.span, "not handled by counters of thread states".into())),
                });
            }
        }
    }
    if let Some(cycle) = recursion(program) {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&(q, _)| program.procs[q as usize].name.as_str())
            .collect();
        let (q, pc) = cycle[cycle.len() - 1];
        return Some(Refusal {
            message: format!(
                "the coverability engine needs threads that do not recurse: {} → {}; use \
                 --engine explicit or summary, which bound the call stack",
                names.join(" → "),
                names[0]
            ),
            at: Some((
                program.node(q, pc).span,
                format!("this call makes `{}` recursive", names[0]),
            )),
        });
    }
    None
}

/// Whether the engine knows what a statement does to counters: every statement that touches
/// only the shared globals and the running thread (blocking, heap and Zing statements are
/// out). Every variant is listed, so a new statement must be decided on here.
fn supported(s: &Stmt) -> bool {
    match s {
        Stmt::Skip
        | Stmt::Goto
        | Stmt::Branch { .. }
        | Stmt::Assign { .. }
        | Stmt::Havoc { .. }
        | Stmt::Constrain { .. }
        | Stmt::Assume { .. }
        | Stmt::Assert { .. }
        | Stmt::Call { .. }
        | Stmt::Return { .. }
        | Stmt::StartThread { .. }
        | Stmt::StartThreadGoto
        | Stmt::EndThread
        | Stmt::AtomicBegin
        | Stmt::AtomicEnd
        | Stmt::Yield => true,
        Stmt::New { .. }
        | Stmt::Choose { .. }
        | Stmt::Select { .. }
        | Stmt::NewArray { .. }
        | Stmt::SetUpdate { .. }
        | Stmt::Send { .. }
        | Stmt::ChooseElem { .. }
        | Stmt::Raise { .. } => false,
    }
}

/// A cycle of calls (procedure and the pc of its call to the next), if some procedure can call
/// itself. Thread starts are not calls: a thread that starts another of its kind does not
/// deepen its own stack.
pub fn recursion(program: &Program) -> Option<Vec<(u32, u32)>> {
    let calls: Vec<Vec<(u32, u32)>> = program
        .procs
        .iter()
        .map(|p| {
            p.nodes
                .iter()
                .enumerate()
                .filter_map(|(pc, n)| match n.stmt {
                    Stmt::Call { callee, .. } => Some((pc as u32, callee)),
                    _ => None,
                })
                .collect()
        })
        .collect();
    // depth-first search with colours; the stack holds (proc, pc of the call taken)
    let n = calls.len();
    let mut colour = vec![0u8; n];
    for start in 0..n {
        if colour[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        colour[start] = 1;
        while let Some(&mut (p, ref mut i)) = stack.last_mut() {
            if *i == calls[p].len() {
                colour[p] = 2;
                stack.pop();
                continue;
            }
            let callee = calls[p][*i].1;
            *i += 1;
            let c = callee as usize;
            match colour[c] {
                0 => {
                    colour[c] = 1;
                    stack.push((c, 0));
                }
                1 => {
                    let from = stack.iter().position(|&(q, _)| q == c).unwrap_or(0);
                    let cycle = stack[from..]
                        .iter()
                        .map(|&(q, j)| {
                            // the call taken from q is the one before its cursor
                            (q as u32, calls[q][j.saturating_sub(1)].0)
                        })
                        .collect::<Vec<_>>();
                    return Some(cycle);
                }
                _ => {}
            }
        }
    }
    None
}

/// The states the first, shortest-counterexample search of [`witness`] may expand before the
/// tree's branch is repeated instead.
const WITNESS_BUDGET: u64 = 4096;

/// Checks `m`'s program for any number of threads. A finding's path replays on `m` (the
/// report replays and verifies it like every other engine's). Only the first error is
/// reported (`--keep-going` has no effect).
pub fn search(m: &Machine, opts: &search::Options) -> Result<SearchResult, Refusal> {
    if let Some(r) = refusal(m.program) {
        return Err(r);
    }
    // a bound on the interleavings would make a pass a bounded answer, which the tree cannot
    // tell apart from a proof
    if opts.contexts.is_some() || opts.cooperative {
        return Err(Refusal {
            message: "the coverability engine checks every interleaving; --contexts and \
                      --cooperative do not apply to it"
                .into(),
            at: None,
        });
    }
    // its pass is a proof for every number of threads and its counterexamples may need more
    // than a bound allows (`--engine all` runs it without the bound)
    if m.semantics.thread_bound.is_some() {
        return Err(Refusal {
            message: "the coverability engine checks every number of threads; --threads does \
                      not apply to it (--engine all compares it with the others under the bound)"
                .into(),
            at: None,
        });
    }
    let start = Instant::now();
    let mut watch = Watch::new(&opts.limits);
    let mut table = local::Table::new(m, &opts.targets);
    let tree = tree::build(&mut table, InitialStates::new(m), &mut watch);
    let initial_states = tree.initial;
    let mut result = SearchResult {
        limit: tree.limit,
        ..Default::default()
    };
    let mut witness_states = 0u64;
    let mut replayed_branch = 0u64;
    if let Some(r) = &tree.reached {
        let mut found = None;
        if !r.accelerated {
            found = witness::replay_pumped(m, &mut table, r).map(|p| (p, r.what));
            replayed_branch = u64::from(found.is_some());
        }
        // a shortest interleaving when one is near, the repeated branch otherwise
        let mut tries = [Some(WITNESS_BUDGET), None].into_iter();
        while found.is_none() {
            let Some(budget) = tries.next() else { break };
            let (init, w) = (r.init.clone(), &mut witness_states);
            match witness::search(m, &mut table, init, &mut watch, w, budget) {
                Ok(Some(f)) => found = Some(f),
                Ok(None) => break,
                Err(Some(limit)) => {
                    result.limit = Some(limit);
                    break;
                }
                Err(None) => {
                    found = witness::replay_pumped(m, &mut table, r).map(|p| (p, r.what));
                    replayed_branch = u64::from(found.is_some());
                }
            }
        }
        match found {
            Some((path, what)) => result
                .findings
                .push(witness::finding(what, path, &opts.targets)),
            None if result.limit.is_none() => {
                // a bug of ours: a finding that does not replay is exit 5
                eprintln!(
                    "internal error: the coverability tree reached an error that no \
                     interleaving from its initial state reaches"
                );
                result.findings.push(search::Finding::Assertion {
                    path: search::Path {
                        init: Vec::new(),
                        choices: Vec::new(),
                    },
                });
            }
            None => {}
        }
    }
    result.stats = SearchStats {
        states: tree.expanded,
        transitions: tree.transitions,
        initial_states,
        elapsed: start.elapsed(),
        counters: vec![
            ("tree_nodes", tree.built + initial_states),
            ("accelerations", tree.accelerations),
            ("local_states", table.locals_len() as u64),
            ("shared_valuations", table.globals_len() as u64),
            ("branch_replayed", replayed_branch),
            ("witness_states", witness_states),
        ],
        ..Default::default()
    };
    Ok(result)
}

#[cfg(test)]
mod tests;
