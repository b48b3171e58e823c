//! Bounded context switching for concurrent boolean programs in the Getafix layout (seed 002
//! §5, issue 15), on top of the sequential engine of [`super::reach`].
//!
//! §5's predicate Reach(ū, v̄, ecs, cs, ḡ, t̄) is the sequential engine's path edges over an
//! augmented program whose globals are the program's plus `phase` (false while `init` runs
//! alone), the context number `cs` (binary), the thread `t_i` of each context i ≤ K and the
//! globals `g_i` at each switch i ≥ 1. Statements never write the added globals, so the
//! sequential rules are §5's internal, call and return rules: `ecs` is the entry copy of `cs`,
//! and a summary applies only with the same ḡ and t̄ and a `cs` that grew from the caller's.
//! The two switch rules run between fixpoints of the worklist, once per context: context
//! c + 1's seeds come from contexts 0..=c only, so after the fixpoint that follows context
//! c's seeds, context c is complete and its switches are found once:
//!
//! * out of context c: the states of thread t_c at cs = c where a switch may happen (the
//!   global `atomic` false, not inside a `__VERIFIER_atomic…` procedure; a thread at the
//!   return of its procedure is ending and may always be left), whose globals become g_{c+1};
//! * into thread T ≠ t_c as context c + 1: its first context (T is none of t_0..t_c) starts at
//!   its entry with globals g_{c+1}; otherwise, for the last context c'' < c + 1 of T, every
//!   switch-out state of T at cs = c'' whose globals were g_{c''+1} goes on at cs = c + 1 with
//!   its locals and entry copies and globals g_{c+1}.
//!
//! `init` runs first with `phase` false; its states at `endinit` start context 0 of any thread.
//! `tuples` is this search. Counterexamples are walked back from the stored path edges,
//! thread by thread (`interleave`), and run on the interpreter before they are reported.
//! This module finds the program's `Shape` (either layout) and picks the search.
//!
//! Where no thread recurses (either layout), `product` searches the product of the
//! threads' states instead (no history of switches), unless [`SymbolicOptions::tuples`] asks
//! for §5.

mod interleave;
mod product;
mod remap;
mod standard;
mod tuples;

use super::SymbolicOptions;
use crate::runtime::Machine;
use crate::search;
use crate::search::SearchResult;
use std::time::Instant;
use zingrs_lang::ir::{Expr, LValue, Layout, Pc, ProcId, Program, Stmt};

/// Whether the context-bounded BDD search applies to `program`; `Err` says why not.
pub fn applies(program: &Program) -> Result<(), String> {
    refusal(program).map_or(Ok(()), Err)
}

/// Whether the search over product states (`product`) checks `program` under a bound
/// (otherwise §5's tuples do, or nothing does).
pub fn product_applies(program: &Program) -> bool {
    shape(program).is_ok_and(|s| product::applies(&s))
}

/// Why the context-bounded search does not check `program` (rendered with the statement's
/// `file:line:col` and a caret where there is one), or `None` if it does.
pub fn refusal(program: &Program) -> Option<String> {
    shape(program).err()
}

/// The threads of the context-bounded search: where each starts, how it is created, where
/// it ends and what keeps it from being left.
struct Shape {
    /// The program the search runs on, before the context copies are added: the Getafix
    /// program as written, or a standard-layout program translated by [`standard`].
    pre: Program,
    /// Per thread slot: the procedure (of `pre`) and pc where the thread starts.
    starts: Vec<(ProcId, Pc)>,
    /// Per slot: the global of `pre` that says the thread was created (`None`: it exists
    /// once the search reaches the threads).
    created: Vec<Option<u32>>,
    /// Per slot: (local, global) pairs: the thread's first frame's locals come from globals.
    copies: Vec<Vec<(u32, u32)>>,
    /// Where a thread ends (it may be left there whatever the lock).
    ending: Vec<(ProcId, Pc)>,
    /// The global that keeps the running thread from being left while it is true.
    atomic: Option<u32>,
    /// Whether a thread that ends releases `atomic` (the standard layout's sections).
    release_on_end: bool,
    /// Per procedure: no context ends inside it (Getafix's `__VERIFIER_atomic…`).
    unswitchable: Vec<bool>,
    /// Getafix: `init` and its `endinit`, which start every thread's first context.
    init: Option<(ProcId, Pc)>,
    /// The procedure of the original program each procedure of `pre` copies.
    orig: Vec<ProcId>,
    /// The number of the original program's globals (the first ones of `pre`).
    own_globals: u32,
    /// The creation sites of `pre` and the slots each fills, in order.
    sites: Vec<((ProcId, Pc), Vec<usize>)>,
}

/// The shape of either layout, or why the search does not check the program.
fn shape(program: &Program) -> Result<Shape, String> {
    if program.has_passive() {
        return Err(
            "the bdd engine does not handle passive variables (`x$` broadcast assignments); \
             use the explicit engine"
                .into(),
        );
    }
    if let Some(v) = program.globals.iter().find(|g| g.thread_local) {
        return Err(format!(
            "the bdd engine does not handle thread_local globals yet (`{}`)",
            v.name
        ));
    }
    let mut shape = match program.layout {
        Layout::Getafix {
            init,
            endinit,
            ref threads,
        } => getafix_shape(program, init, endinit, threads)?,
        Layout::Standard => standard::shape(program).map_err(|r| r.render(program))?,
    };
    super::sequential_parts_apply(&shape.pre)?;
    constrain_visible_only(&mut shape.pre, shape.own_globals);
    Ok(shape)
}

/// A stand-alone `constrain` gives every variable visible in its procedure a new value
/// (bp-language §3.3.9): the program's own globals and the procedure's locals. Both searches
/// add globals (the threads' pcs and inlined locals, creation flags, the lock, the context
/// copies) that it must leave alone, so it becomes an assignment of exactly those with the
/// constraint.
fn constrain_visible_only(pre: &mut Program, own_globals: u32) {
    for q in &mut pre.procs {
        let nloc = q.locals.len() as u32;
        for n in &mut q.nodes {
            if let Stmt::Constrain { expr } = &n.stmt {
                let targets: Vec<Option<LValue>> = (0..own_globals)
                    .map(LValue::Global)
                    .chain((0..nloc).map(LValue::Local))
                    .map(Some)
                    .collect();
                n.stmt = Stmt::Assign {
                    values: vec![Expr::Nondet; targets.len()],
                    targets,
                    constrain: Some(expr.clone()),
                };
            }
        }
    }
}

fn getafix_shape(
    program: &Program,
    init: ProcId,
    endinit: Pc,
    threads: &[ProcId],
) -> Result<Shape, String> {
    for (q, p) in program.procs.iter().enumerate() {
        for (pc, n) in p.nodes.iter().enumerate() {
            if matches!(
                n.stmt,
                Stmt::AtomicBegin
                    | Stmt::AtomicEnd
                    | Stmt::EndThread
                    | Stmt::StartThread { .. }
                    | Stmt::StartThreadGoto
            ) {
                return Err(format!(
                    "the bdd engine does not handle `{}` at line {} in the Getafix layout yet",
                    program.describe(q as u32, pc as u32),
                    program.line_of(q as u32, pc as u32)
                ));
            }
        }
    }
    let mut ending = Vec::new();
    for &t in threads {
        for (pc, node) in program.procs[t as usize].nodes.iter().enumerate() {
            if matches!(node.stmt, Stmt::Return { .. }) {
                ending.push((t, pc as Pc));
            }
        }
    }
    Ok(Shape {
        pre: program.clone(),
        starts: threads.iter().map(|&t| (t, 0)).collect(),
        created: vec![None; threads.len()],
        copies: vec![Vec::new(); threads.len()],
        ending,
        atomic: program
            .globals
            .iter()
            .position(|v| v.name == "atomic")
            .map(|i| i as u32),
        release_on_end: false,
        unswitchable: program
            .procs
            .iter()
            .map(|q| q.name.starts_with("__VERIFIER_atomic"))
            .collect(),
        init: Some((init, endinit)),
        orig: (0..program.procs.len() as ProcId).collect(),
        own_globals: program.globals.len() as u32,
        sites: Vec::new(),
    })
}

/// The interpreter's thread of each slot while a counterexample is replayed (threads are
/// numbered by their place in the state's list, which creations append to and ends remove
/// from). Both searches' replays keep it.
struct Tids {
    tid: Vec<Option<usize>>,
    /// Per creation site: how many of its slots are filled.
    filled: Vec<usize>,
}

impl Tids {
    /// The standard layout: only `main` (slot 0, thread 0) exists at first.
    fn standard(sites: &[((ProcId, Pc), Vec<usize>)]) -> Tids {
        let slots = 1 + sites.iter().map(|s| s.1.len()).sum::<usize>();
        let mut tid = vec![None; slots];
        tid[0] = Some(0);
        Tids {
            tid,
            filled: vec![0; sites.len()],
        }
    }

    /// The Getafix layout: thread j is slot j (once `init` has created them all).
    fn getafix(threads: usize) -> Tids {
        Tids {
            tid: (0..threads).map(Some).collect(),
            filled: Vec::new(),
        }
    }

    fn of(&self, slot: usize) -> Result<usize, String> {
        self.tid[slot].ok_or_else(|| format!("thread slot {slot} runs before it is created"))
    }

    /// The slot the next run of creation site `site` fills.
    fn child(&self, sites: &[((ProcId, Pc), Vec<usize>)], site: usize) -> Option<usize> {
        sites[site].1.get(self.filled[site]).copied()
    }

    /// Creation site `site` filled slot `child` with thread `tid`.
    fn created(&mut self, site: usize, child: usize, tid: usize) {
        self.filled[site] += 1;
        self.tid[child] = Some(tid);
    }

    /// Thread `tid`, left where it ends inside an atomic section (standard layout), ends
    /// on `r`, releasing the section, before another thread runs.
    fn end_in_section(&mut self, r: &mut search::Replayer, tid: usize) -> Result<(), String> {
        let i = r
            .outcomes(tid as u32)?
            .iter()
            .position(|o| {
                matches!(
                    o,
                    crate::runtime::Outcome::Next {
                        kind: crate::runtime::Kind::ThreadEnd,
                        ..
                    }
                )
            })
            .ok_or("a thread is left inside an atomic section")?;
        r.take(i as u32)?;
        self.ended(tid);
        Ok(())
    }

    /// Thread `tid` ended: the threads after it move down.
    fn ended(&mut self, tid: usize) {
        for t in self.tid.iter_mut() {
            match *t {
                Some(x) if x == tid => *t = None,
                Some(x) if x > tid => *t = Some(x - 1),
                _ => {}
            }
        }
    }
}

/// The bits a number below `n` needs (at least one).
fn bits_for(n: u64) -> u32 {
    (64 - n.saturating_sub(1).leading_zeros()).max(1)
}

/// Whether [`search`](fn@search) takes the product states for `program` (no thread recursing, without
/// `--context-tuples`): that search completes each context before the next,
/// so one run at the largest bound also finds the smallest that reaches an error
/// ([`SearchResult::fewest_switches`]).
pub fn completes_contexts_in_order(program: &Program, tuples: bool) -> bool {
    !tuples && shape(program).is_ok_and(|s| product::applies(&s))
}

/// The context-bounded search with bound `k`.
pub fn search(
    m: &Machine,
    opts: &search::Options,
    sym: &SymbolicOptions,
    k: u32,
) -> Result<(SearchResult, Vec<Option<search::Replayed>>), String> {
    let shape = shape(m.program)?;
    if let Some(n) = m.semantics.thread_bound {
        return Err(format!(
            "the bdd engine does not take a bound on live threads (--threads {n}): under \
             --contexts it checks every thread the program starts"
        ));
    }
    let start = Instant::now();
    if !sym.tuples {
        if let Some(r) = product::search(m, &shape, opts, sym, k) {
            return Ok(r);
        }
    }
    tuples::search(m, &shape, opts, sym, k, start)
}

/// Records a counterexample in `result` (the search found something: no limit stands), or,
/// if it could not be built (a bug of ours), an empty finding that will fail to replay
/// (exit 5) after saying why. The replay, for the report.
fn counterexample_or_report(
    result: &mut SearchResult,
    built: Result<(search::Finding, search::Replayed), String>,
    k: u32,
) -> Option<search::Replayed> {
    result.limit = None;
    match built {
        Ok((finding, replayed)) => {
            result.findings.push(finding);
            Some(replayed)
        }
        Err(why) => {
            eprintln!(
                "internal error: the bdd engine could not build a counterexample under \
                 --contexts {k}: {why}"
            );
            result.findings.push(search::Finding::Assertion {
                path: search::Path {
                    init: Vec::new(),
                    choices: Vec::new(),
                },
            });
            None
        }
    }
}

/// `--stats` names for the BDD nodes of each context's path edges.
pub(super) fn context_label(c: usize) -> &'static str {
    const LABELS: [&str; 16] = [
        "bdd_nodes_context_0",
        "bdd_nodes_context_1",
        "bdd_nodes_context_2",
        "bdd_nodes_context_3",
        "bdd_nodes_context_4",
        "bdd_nodes_context_5",
        "bdd_nodes_context_6",
        "bdd_nodes_context_7",
        "bdd_nodes_context_8",
        "bdd_nodes_context_9",
        "bdd_nodes_context_10",
        "bdd_nodes_context_11",
        "bdd_nodes_context_12",
        "bdd_nodes_context_13",
        "bdd_nodes_context_14",
        "bdd_nodes_context_15",
    ];
    LABELS.get(c).copied().unwrap_or("bdd_nodes_context_16+")
}

/// `--stats` names for the BDD nodes of the path edges of each thread (by its position among
/// the thread procedures).
pub(super) fn thread_label(j: usize) -> &'static str {
    const LABELS: [&str; 8] = [
        "bdd_nodes_thread_0",
        "bdd_nodes_thread_1",
        "bdd_nodes_thread_2",
        "bdd_nodes_thread_3",
        "bdd_nodes_thread_4",
        "bdd_nodes_thread_5",
        "bdd_nodes_thread_6",
        "bdd_nodes_thread_7",
    ];
    LABELS.get(j).copied().unwrap_or("bdd_nodes_thread_8+")
}
