//! The BDD engine (`--engine bdd`): Bebop's symbolic interprocedural reachability for pure
//! sequential boolean programs (seed 001 §3).
//!
//! * [`bdd`]: the BDD package behind our own small trait (oxidd underneath).
//! * [`model`]: the slot layout (globals plus the largest frame, three interleaved copies
//!   entry/current/next), value-set encoding of expressions, live locals and MOD/REF.
//! * [`reach`]: path edges per vertex, summary edges per call site, the worklist (Figure 3).
//! * [`contexts`]: bounded context switching for the Getafix layout (seed 002 §5) on top of
//!   [`reach`], with the switch rules between fixpoints of its worklist, or over product
//!   states where no thread recurses.
//! * `trace`: shortest-first hierarchical counterexamples (§3.2), expanded through summaries
//!   into interpreter choices that [`crate::search::replay`] re-executes.
//!
//! The engine decides recursion exactly: there is no depth bound, and a program whose only
//! executions recurse forever passes.

pub mod bdd;
pub mod contexts;
pub mod mod_ref;
pub mod model;
pub mod order;
pub mod pdltl;
pub mod reach;
mod trace;

use crate::runtime::Machine;
use crate::search;
use crate::search::{SearchResult, SearchStats};
use std::time::Instant;
use zingrs_lang::ir::{Program, Type};

/// Options of the BDD engine (the CLI sets them; the defaults are the fast configuration).
#[derive(Clone, Copy, Debug)]
pub struct SymbolicOptions {
    /// Quantify locals out of path edges where they are dead (seed 001 §3.3, live ranges).
    pub live_variables: bool,
    /// Keep out of a procedure's path edges the globals that neither it nor its callees read or
    /// write (seed 001 §3.3, MOD/REF).
    pub mod_ref: bool,
    /// Count what costs a pass over every vertex at the end (path and summary edges, the BDD
    /// nodes per context and per thread under `--contexts`): only where the statistics are
    /// shown (on fib-bp 9 at K = 16 the node counts were a sixth of the run).
    pub measure: bool,
    /// Under `--contexts`: always seed 002 §5's tuples of the globals at each switch, also
    /// where the product states of [`contexts`] apply (`--context-tuples`).
    pub tuples: bool,
}

impl Default for SymbolicOptions {
    fn default() -> Self {
        SymbolicOptions {
            live_variables: true,
            mod_ref: true,
            measure: true,
            tuples: false,
        }
    }
}

/// Whether the BDD engine can check `program`; `Err` says why not.
pub fn applies(program: &Program) -> Result<(), String> {
    if program.is_concurrent() {
        return Err(
            "the bdd engine checks sequential boolean programs only; this program uses threads \
             (or the Getafix concurrent layout)"
                .into(),
        );
    }
    if program.activations.len() != 1 {
        return Err("the bdd engine needs exactly one entry procedure".into());
    }
    sequential_parts_apply(program)
}

/// The checks of [`applies`] that do not concern threads: boolean variables, results,
/// statements and invariants only.
pub(crate) fn sequential_parts_apply(program: &Program) -> Result<(), String> {
    let all_bool = |ty: &Type| matches!(ty, Type::Bool);
    let mut vars = program
        .globals
        .iter()
        .chain(program.procs.iter().flat_map(|p| p.locals.iter()));
    if let Some(v) = vars.find(|v| !all_bool(&v.ty)) {
        return Err(format!(
            "the bdd engine handles boolean variables only; `{}` has another type",
            v.name
        ));
    }
    if let Some(p) = program
        .procs
        .iter()
        .find(|p| !p.returns.iter().all(all_bool))
    {
        return Err(format!(
            "the bdd engine handles boolean results only; `{}` returns another type",
            p.name
        ));
    }
    for (q, p) in program.procs.iter().enumerate() {
        for (pc, node) in p.nodes.iter().enumerate() {
            let inv_ok = node.invariant.as_ref().is_none_or(model::is_boolean);
            if !inv_ok || !model::is_boolean_stmt(&node.stmt) {
                return Err(format!(
                    "the bdd engine handles pure boolean programs only; `{}` at line {} is not one",
                    program.describe(q as u32, pc as u32),
                    program.line_of(q as u32, pc as u32)
                ));
            }
        }
    }
    Ok(())
}

/// Checks `m`'s program symbolically. Findings come with paths that replay on `m`, and with
/// those replays (`None` for a counterexample the engine failed to build): the engine matches
/// its trace to the interpreter's outcomes step by step, which is a replay already, so the
/// report need not run the path again. The replays keep only the last state (a trace is
/// built from the path as it is written). `Err` on a program the engine does not check
/// ([`applies`]; concurrent programs go to [`contexts::search`]).
pub fn search(
    m: &Machine,
    opts: &search::Options,
    sym: &SymbolicOptions,
) -> Result<(SearchResult, Vec<Option<search::Replayed>>), search::NotApplicable> {
    applies(m.program).map_err(|reason| search::NotApplicable {
        engine: "bdd",
        reason,
    })?;
    let start = Instant::now();
    let p = m.program;
    let nodes: usize = p.procs.iter().map(|q| q.nodes.len()).sum();
    // a direct-mapped apply cache; too small a cache makes operations on shared BDDs redo work
    // (one entry per vertex: four made the cache alone a tenth of the memory of bebop-t, whose
    // BDDs have a dozen variables). The floor is small: a cache is cleared when it is made, and
    // 2^18 entries (7.5 MB) took longer to set up than a small model takes to check.
    let cache = nodes.next_power_of_two().clamp(1 << 14, 1 << 22);
    let bdd = manager_for(p, &opts.limits, cache);
    // dropped after the engine and all its functions: see `Oxidd::manager_guard`
    let _gc = bdd.manager_guard();
    let mut e = reach::Engine::new(m, bdd, *sym, &opts.targets);
    let limit = e.run(opts);
    // `check --coverage`: a node with a reached path edge is one a thread stands at in a
    // reachable state, which its step starts from
    if let Some(c) = &m.semantics.coverage {
        use bdd::Bdds as _;
        for (v, f) in e.reached.iter().enumerate() {
            if !e.bdd.is_false(f) {
                c.mark(e.proc_of[v], e.pc(v as u32));
            }
        }
    }
    let mut result = SearchResult {
        limit,
        ..Default::default()
    };
    let mut replays = Vec::new();
    for f in e.found.clone() {
        match e.finding(f, false) {
            Ok((finding, replayed)) => {
                result.findings.push(finding);
                replays.push(Some(replayed));
            }
            Err(why) => {
                // a bug of ours: report a finding that will fail to replay (exit 5)
                eprintln!("internal error: the bdd engine could not build a counterexample: {why}");
                result.findings.push(search::Finding::Assertion {
                    path: search::Path {
                        init: Vec::new(),
                        choices: Vec::new(),
                    },
                });
                replays.push(None);
            }
        }
        if !opts.keep_going {
            break;
        }
    }
    // (under --keep-going the limit stays: the errors found are not all there may be)
    if limit.is_some() && !result.findings.is_empty() && !opts.keep_going {
        result.limit = None;
    }
    result.stats = stats(&e, start);
    Ok((result, replays))
}

fn stats<B: bdd::Bdds>(e: &reach::Engine<B>, start: Instant) -> SearchStats {
    let reached = e.reached.iter().filter(|f| !e.bdd.is_false(f)).count() as u64;
    let mut counters = vec![
        ("bdd_variables", e.bdd.num_vars() as u64),
        ("peak_live_nodes", e.peak_nodes as u64),
        ("vertices_reached", reached),
        ("worklist_steps", e.steps),
        ("summary_updates", e.summaries),
    ];
    let mut path_edges = 0.0f64;
    if e.sym.measure {
        let mut summary_edges = 0.0f64;
        for (v, f) in e.reached.iter().enumerate() {
            if !e.bdd.is_false(f) {
                path_edges += e.bdd.count(f, e.scope_len(v as u32));
            }
        }
        for cs in &e.callsites {
            // pairs of a valuation of what the callee reads of the caller (touched globals,
            // variables of the arguments) and of the values the call writes (next copies of
            // the touched globals and receivers); `sum` depends on no other variable
            summary_edges += e.bdd.count(&cs.sum, cs.inputs + cs.ret_slots.len() as u32);
        }
        counters.push(("path_edges", sat_u64(path_edges)));
        counters.push(("summary_edges", sat_u64(summary_edges)));
    }
    SearchStats {
        states: reached,
        transitions: e.steps,
        initial_states: 1,
        max_stack: 0,
        max_path: 0,
        elapsed: start.elapsed(),
        counters,
        ..Default::default()
    }
}

/// A BDD manager for the sequential engine on `p`: the entry, current and next copy of every
/// slot (globals, then the largest frame), room for as many nodes as the memory limit allows
/// (about 40 bytes each), and an apply cache of `cache` entries.
pub(crate) fn manager_for(
    p: &zingrs_lang::ir::Program,
    limits: &crate::search::Limits,
    cache: usize,
) -> bdd::Oxidd {
    let slots = p.globals.len() as u32 + reach::max_frame(p);
    let memory = limits.memory.unwrap_or(8 << 30);
    bdd::Oxidd::new(
        3 * slots,
        (memory / 40).clamp(1 << 20, 1 << 30) as usize,
        cache,
    )
}

pub(crate) fn sat_u64(x: f64) -> u64 {
    if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x.round() as u64
    }
}
