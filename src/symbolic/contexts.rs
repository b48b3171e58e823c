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
//! Counterexamples are walked back from the stored path edges, thread by thread
//! ([`interleave`]), and run on the interpreter before they are reported.

mod interleave;

use super::bdd::Bdds;
use super::reach::Engine;
use super::SymbolicOptions;
use crate::explore::{self, SearchResult, SearchStats};
use crate::runtime::Machine;
use std::time::Instant;
use zingrs_lang::ir::{Const, Expr, Init, LValue, Layout, Program, Stmt, Type, Var};

/// Whether the context-bounded BDD search applies to `program`; `Err` says why not.
pub fn applies(program: &Program) -> Result<(), String> {
    let Layout::Getafix { .. } = program.layout else {
        return Err(
            "the bdd engine checks concurrent programs in the Getafix layout only (init + thread \
             procedures); this one starts threads with start_thread or ASYNC_"
                .into(),
        );
    };
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
    super::sequential_parts_apply(program)
}

/// Where the added globals are (indices into the augmented program's globals).
struct Extra {
    /// The new index of each of the program's globals.
    own: Vec<u32>,
    phase: u32,
    cs: Vec<u32>,
    /// `t[i]`: the bits of the thread of context i.
    t: Vec<Vec<u32>>,
    /// `gs[i - 1]`: the copy of the globals at switch i.
    gs: Vec<Vec<u32>>,
}

fn bits_for(n: u64) -> u32 {
    (64 - n.saturating_sub(1).leading_zeros()).max(1)
}

/// Renames the globals an expression mentions.
fn remap_expr(e: &mut Expr, map: &[u32]) {
    zingrs_lang::deep::grow(|| remap_expr_here(e, map))
}

fn remap_expr_here(e: &mut Expr, map: &[u32]) {
    match e {
        Expr::Global(i) | Expr::PrimedGlobal(i) => *i = map[*i as usize],
        Expr::Unary(_, a)
        | Expr::Field(a, _)
        | Expr::Neg(_, a)
        | Expr::BitNot(_, a)
        | Expr::Convert(_, a)
        | Expr::Size(a, _)
        | Expr::ClassIs(a, _) => remap_expr(a, map),
        Expr::Binary(_, a, b)
        | Expr::Schoose(a, b)
        | Expr::Arith(_, _, a, b)
        | Expr::Cmp(_, a, b)
        | Expr::Elem(a, b, _)
        | Expr::In(a, b) => {
            remap_expr(a, map);
            remap_expr(b, map);
        }
        Expr::Ite(c, a, b) => {
            remap_expr(c, map);
            remap_expr(a, map);
            remap_expr(b, map);
        }
        Expr::Call(_, args) => args.iter_mut().for_each(|a| remap_expr(a, map)),
        Expr::Const(_)
        | Expr::Local(_)
        | Expr::PrimedLocal(_)
        | Expr::PassiveLocal(_)
        | Expr::PrimedPassiveLocal(_)
        | Expr::Nondet
        | Expr::SelfId => {}
    }
}

fn remap_lvalue(lv: &mut LValue, map: &[u32]) {
    match lv {
        LValue::Global(i) => *i = map[*i as usize],
        LValue::Local(_) | LValue::PassiveLocal(_) => {}
        LValue::Field(e, _) => remap_expr(e, map),
        LValue::Elem(a, b, _) => {
            remap_expr(a, map);
            remap_expr(b, map);
        }
    }
}

/// Renames the globals of every statement and invariant (the statements [`applies`] admits).
fn remap_program(p: &mut Program, map: &[u32]) {
    for q in &mut p.procs {
        for n in &mut q.nodes {
            if let Some(inv) = &mut n.invariant {
                remap_expr(inv, map);
            }
            match &mut n.stmt {
                Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => {
                    remap_expr(cond, map)
                }
                Stmt::Constrain { expr } => remap_expr(expr, map),
                Stmt::Assign {
                    targets,
                    values,
                    constrain,
                } => {
                    targets
                        .iter_mut()
                        .flatten()
                        .for_each(|t| remap_lvalue(t, map));
                    values.iter_mut().for_each(|v| remap_expr(v, map));
                    if let Some(c) = constrain {
                        remap_expr(c, map);
                    }
                }
                Stmt::Havoc { targets } => targets.iter_mut().for_each(|t| remap_lvalue(t, map)),
                Stmt::Call { args, results, .. } => {
                    args.iter_mut().for_each(|a| remap_expr(a, map));
                    results
                        .iter_mut()
                        .flatten()
                        .for_each(|t| remap_lvalue(t, map));
                }
                Stmt::Return { values } => {
                    values.iter_mut().flatten().for_each(|v| remap_expr(v, map));
                }
                _ => {}
            }
        }
    }
}

/// The augmented program: the added globals, `init` stopped at `endinit` (its states there
/// start the threads), and `init` as the entry procedure. Each global is followed by its
/// copies g_1..g_k in the variable order (the relations `globals = g_i` stay linear).
fn augment(program: &Program, k: u32, threads: usize) -> (Program, Extra) {
    let mut p = program.clone();
    let g = p.globals.len() as u32;
    let template = |name: String, fixed: Option<bool>| Var {
        name,
        ty: Type::Bool,
        init: fixed.map_or(Init::Any, |b| Init::Value(Const::Bool(b))),
        thread_local: false,
        span: Default::default(),
    };
    // global x moves to x * (k + 1); its copy for switch i to x * (k + 1) + i
    let stride = k + 1;
    let map: Vec<u32> = (0..g).map(|x| x * stride).collect();
    let own = std::mem::take(&mut p.globals);
    for (x, v) in own.into_iter().enumerate() {
        let name = v.name.clone();
        p.globals.push(v);
        for i in 1..=k {
            p.globals.push(template(format!("%g{i}.{name}"), None));
        }
        debug_assert_eq!(p.globals.len() as u32, (x as u32 + 1) * stride);
    }
    remap_program(&mut p, &map);
    let gs: Vec<Vec<u32>> = (1..=k)
        .map(|i| (0..g).map(|x| x * stride + i).collect())
        .collect();
    let mut next = g * stride;
    let mut add = |p: &mut Program, name: String, fixed: Option<bool>| {
        p.globals.push(template(name, fixed));
        next += 1;
        next - 1
    };
    let phase = add(&mut p, "%phase".into(), Some(false));
    let cs = (0..bits_for(k as u64 + 1))
        .map(|b| add(&mut p, format!("%cs{b}"), Some(false)))
        .collect();
    let tb = if threads > 1 {
        bits_for(threads as u64)
    } else {
        0
    };
    let t = (0..=k)
        .map(|i| {
            (0..tb)
                .map(|b| add(&mut p, format!("%t{i}.{b}"), None))
                .collect()
        })
        .collect();
    let Layout::Getafix { init, endinit, .. } = program.layout else {
        unreachable!("applies() checked the layout");
    };
    p.procs[init as usize].nodes[endinit as usize].stmt = Stmt::Assume {
        cond: Expr::Const(Const::Bool(false)),
    };
    p.layout = Layout::Standard;
    p.activations = vec![init];
    (
        p,
        Extra {
            own: map,
            phase,
            cs,
            t,
            gs,
        },
    )
}

/// The context-bounded search with bound `k`.
pub fn search(
    m: &Machine,
    opts: &explore::Options,
    sym: &SymbolicOptions,
    k: u32,
) -> Result<(SearchResult, Vec<Option<explore::Replayed>>), String> {
    applies(m.program)?;
    let start = Instant::now();
    let Layout::Getafix {
        init,
        endinit,
        ref threads,
    } = m.program.layout
    else {
        unreachable!("applies() checked the layout");
    };
    let threads = threads.clone();
    let (aug, x) = augment(m.program, k, threads.len());
    let am = Machine::new(&aug, m.semantics);
    let slots = aug.globals.len() as u32 + super::reach::max_frame(&aug);
    let memory = opts.limits.memory.unwrap_or(8 << 30);
    let bdd = super::bdd::Oxidd::new(
        3 * slots,
        (memory / 40).clamp(1 << 20, 1 << 30) as usize,
        1 << 16,
    );
    let _gc = bdd.manager_guard();
    // every procedure may be left and resumed at any point: all globals in every path edge
    let sym = SymbolicOptions {
        mod_ref: false,
        ..*sym
    };
    let mut e = Engine::new(&am, bdd, sym, &opts.targets);
    // the counterexample walk needs every path edge as it was logged
    let opts = &explore::Options {
        keep_going: false,
        ..opts.clone()
    };
    let mut ctx = Contexts::new(&e, &x, &threads, init, endinit, k);
    // `init` alone, then context 0 of every thread; each fixpoint completes one more context
    // (a context's seeds come from the contexts before it only), so the switches out of
    // context c are found once, after the fixpoint that completed it
    let mut limit = e.run(opts);
    let mut rounds = 0u64;
    let go = |limit: &Option<_>, e: &Engine<_>| limit.is_none() && e.found.is_empty();
    if go(&limit, &e) && ctx.start_threads(&mut e) {
        limit = e.run(opts);
        for c in 0..k {
            if !go(&limit, &e) {
                break;
            }
            rounds += 1;
            if !ctx.switch_from(&mut e, c, false) {
                break;
            }
            limit = e.run(opts);
        }
    }
    let context_cut = go(&limit, &e) && ctx.switch_from(&mut e, k, true);
    let mut result = SearchResult {
        limit,
        context_cut,
        ..Default::default()
    };
    let reached = e.reached.iter().filter(|f| !e.bdd.is_false(f)).count() as u64;
    let mut counters = vec![
        ("bdd_variables", e.bdd.num_vars() as u64),
        (
            "peak_live_nodes",
            e.peak_nodes.max(e.bdd.live_nodes()) as u64,
        ),
        ("vertices_reached", reached),
        ("worklist_steps", e.steps),
        ("summary_updates", e.summaries),
        ("switch_rounds", rounds),
    ];
    for (c, n) in ctx.nodes_per_context(&e).into_iter().enumerate() {
        counters.push((context_label(c), n as u64));
    }
    for (j, n) in ctx.nodes_per_thread(&e).into_iter().enumerate() {
        counters.push((thread_label(j), n as u64));
    }
    let mut replays = Vec::new();
    if let Some(&f) = e.found.first() {
        match interleave::counterexample(&e, &ctx, &x, m, f, !opts.verdict_only) {
            Ok((finding, replayed)) => {
                result.findings.push(finding);
                replays.push(Some(replayed));
            }
            Err(why) => {
                // a bug of ours: report a finding that will fail to replay (exit 5)
                eprintln!(
                    "internal error: the bdd engine could not build a counterexample under \
                     --contexts {k}: {why}"
                );
                result.findings.push(explore::Finding::Assertion {
                    path: explore::Path {
                        init: Vec::new(),
                        choices: Vec::new(),
                    },
                });
                replays.push(None);
            }
        }
        result.limit = None;
    }
    result.stats = SearchStats {
        states: reached,
        transitions: e.steps,
        initial_states: 1,
        elapsed: start.elapsed(),
        counters,
        ..Default::default()
    };
    Ok((result, replays))
}

/// `--stats` names for the BDD nodes of each context's path edges.
fn context_label(c: usize) -> &'static str {
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
fn thread_label(j: usize) -> &'static str {
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

/// The switch rules, with the relations they reuse.
struct Contexts<B: Bdds> {
    /// The program's own globals (their indices in the augmented program).
    own: Vec<u32>,
    threads: Vec<u32>,
    /// Per vertex: may a context end here (not inside a `__VERIFIER_atomic…` procedure)?
    switchable: Vec<bool>,
    /// Per vertex: the return of a thread procedure (the thread ends; `atomic` is no bar).
    ending: Vec<bool>,
    /// `cs = c` for c = 0..=k.
    cs_is: Vec<B::F>,
    /// The current copies of `cs`.
    cs_cube: B::F,
    /// The current copies of the program's globals.
    g_cube: B::F,
    /// `t_i = thread j`, per i and j.
    t_is: Vec<Vec<B::F>>,
    /// The program's globals equal g_i (index i − 1).
    g_eq: Vec<B::F>,
    phase: B::F,
    unlocked: B::F,
    /// The global `atomic` (its index in the augmented program), if the program has one.
    atomic: Option<u32>,
    /// The variables of ḡ and t̄ (current copies), sorted.
    gt_vars: Vec<u32>,
    /// Entry constraints of each thread's procedure (fixed initial values of its locals).
    entry_init: Vec<B::F>,
    /// `init`'s `endinit` vertex.
    endinit: u32,
    /// Per context (complete ones only): [`Contexts::resumable`].
    resumable: Vec<Vec<(u32, B::F)>>,
}

impl<B: Bdds> Contexts<B> {
    fn new(
        e: &Engine<B>,
        x: &Extra,
        threads: &[u32],
        init: u32,
        endinit: u32,
        k: u32,
    ) -> Contexts<B> {
        let b = &e.bdd;
        let cv = |s: u32| e.layout.cv(s);
        let p = e.m.program;
        let n = e.proc_of.len();
        let atomic_proc: Vec<bool> = p
            .procs
            .iter()
            .map(|q| q.name.starts_with("__VERIFIER_atomic"))
            .collect();
        let switchable = (0..n)
            .map(|v| !atomic_proc[e.proc_of[v] as usize])
            .collect();
        let mut ending = vec![false; n];
        for &t in threads {
            for (pc, node) in p.procs[t as usize].nodes.iter().enumerate() {
                if matches!(node.stmt, Stmt::Return { .. }) {
                    ending[(e.entry(t) + pc as u32) as usize] = true;
                }
            }
        }
        let cs_is = (0..=k)
            .map(|c| {
                let lits: Vec<(u32, bool)> =
                    x.cs.iter()
                        .enumerate()
                        .map(|(bit, &s)| (cv(s), c >> bit & 1 == 1))
                        .collect();
                b.literals(&lits)
            })
            .collect();
        let cs_cube = b.cube(&x.cs.iter().map(|&s| cv(s)).collect::<Vec<_>>());
        let g_cube = b.cube(&x.own.iter().map(|&s| cv(s)).collect::<Vec<_>>());
        let t_is =
            x.t.iter()
                .map(|bits| {
                    (0..threads.len())
                        .map(|j| {
                            let lits: Vec<(u32, bool)> = bits
                                .iter()
                                .enumerate()
                                .map(|(bit, &s)| (cv(s), j >> bit & 1 == 1))
                                .collect();
                            b.literals(&lits)
                        })
                        .collect()
                })
                .collect();
        let g_eq =
            x.gs.iter()
                .map(|copy| {
                    let mut f = b.constant(true);
                    for (&o, &s) in x.own.iter().zip(copy) {
                        let eq = b.equiv(&b.var(cv(o)), &b.var(cv(s)));
                        f = b.and(&f, &eq);
                    }
                    f
                })
                .collect();
        let atomic = p
            .globals
            .iter()
            .position(|v| v.name == "atomic")
            .map(|i| i as u32);
        let unlocked = match atomic {
            Some(i) => b.not(&b.var(cv(i))),
            None => b.constant(true),
        };
        let mut gt_vars: Vec<u32> =
            x.t.iter()
                .flatten()
                .chain(x.gs.iter().flatten())
                .map(|&s| cv(s))
                .collect();
        gt_vars.sort_unstable();
        let entry_init = threads
            .iter()
            .map(|&t| e.procs[t as usize].entry_init.clone())
            .collect();
        Contexts {
            own: x.own.clone(),
            threads: threads.to_vec(),
            switchable,
            ending,
            cs_is,
            cs_cube,
            g_cube,
            t_is,
            g_eq,
            phase: b.var(cv(x.phase)),
            unlocked,
            atomic,
            gt_vars,
            entry_init,
            endinit: e.entry(init) + endinit,
            resumable: Vec::new(),
        }
    }

    /// The states at `endinit` start context 0 of every thread. True if an edge was new.
    fn start_threads(&self, e: &mut Engine<B>) -> bool {
        let b = &e.bdd;
        let at = &e.reached[self.endinit as usize];
        if b.is_false(at) {
            return false;
        }
        let mut keep: Vec<u32> = self.own.iter().map(|&s| e.layout.cv(s)).collect();
        keep.sort_unstable();
        let globals = b.project(at, &keep);
        let mut seeds = Vec::new();
        for (j, &t) in self.threads.iter().enumerate() {
            let mut s = b.and(&globals, &self.t_is[0][j]);
            s = b.and(&s, &self.cs_is[0]);
            s = b.and(&s, &self.phase);
            s = b.and(&s, &self.entry_init[j]);
            seeds.push((e.entry(t), s, true));
        }
        self.feed(e, seeds)
    }

    /// Adds path edges; true if one was new.
    /// (`entry`: a thread starting at its procedure's entry, whose entry copies are set to
    /// the current values when something calls that procedure.)
    fn feed(&self, e: &mut Engine<B>, seeds: Vec<(u32, B::F, bool)>) -> bool {
        let before = e.log.len();
        for (w, s, entry) in seeds {
            e.propagate(w, s, entry);
        }
        e.log.len() > before
    }

    /// The states of context `c` that may be left, projected on their globals, ḡ and t̄.
    fn switch_out(&self, e: &Engine<B>, c: u32) -> B::F {
        let b = &e.bdd;
        let mut keep: Vec<u32> = self.own.iter().map(|&s| e.layout.cv(s)).collect();
        keep.extend_from_slice(&self.gt_vars);
        keep.sort_unstable();
        let here = b.and(&self.cs_is[c as usize], &self.phase);
        let mut out = b.constant(false);
        for (v, r) in e.reached.iter().enumerate() {
            if !self.switchable[v] || b.is_false(r) {
                continue;
            }
            let mut s = b.and(r, &here);
            if !self.ending[v] {
                s = b.and(&s, &self.unlocked);
            }
            if b.is_false(&s) {
                continue;
            }
            out = b.or(&out, &b.project(&s, &keep));
        }
        out
    }

    /// Both switch rules out of context `c`, complete (with `dry`, for c = k, without adding
    /// anything: whether the bound cuts a switch). True if something was (or would be) new.
    /// The dry run is conservative: it counts a switch into a thread that could not move
    /// (blocked, or with no step left) as cut, so a pass under the bound may be reported as
    /// bounded (exit 8) where the explicit search says passed, never the other way round.
    fn switch_from(&mut self, e: &mut Engine<B>, c: u32, dry: bool) -> bool {
        // the states a thread may be left in at each context c2 ≤ c (complete by now)
        while self.resumable.len() <= c as usize {
            let r = self.resumable(e, self.resumable.len());
            self.resumable.push(r);
        }
        let out = self.switch_out(e, c);
        if e.bdd.is_false(&out) {
            return false;
        }
        let mut seeds = Vec::new();
        {
            let b = &e.bdd;
            let gi = |i: u32| -> B::F {
                // globals = g_i (i ≥ 1); for the dry run past the last copy, anything
                self.g_eq
                    .get(i as usize - 1)
                    .cloned()
                    .unwrap_or_else(|| b.constant(true))
            };
            // A_c(ḡ, t̄): a switch-out state of context c whose globals are g_{c+1}
            let a = b.and_exists(&out, &gi(c + 1), &self.g_cube);
            if b.is_false(&a) {
                return false;
            }
            let t_next = self.t_is.get(c as usize + 1);
            for j in 0..self.threads.len() {
                let to_j = match t_next {
                    Some(t) => t[j].clone(),
                    None => b.constant(true),
                };
                let other = b.and(&to_j, &b.not(&self.t_is[c as usize][j]));
                let cond = b.and(&a, &other);
                if b.is_false(&cond) {
                    continue;
                }
                let into = b.and(&gi(c + 1), &self.phase);
                let into = match self.cs_is.get(c as usize + 1) {
                    Some(cs) => b.and(&into, cs),
                    None => into,
                };
                // first context of thread j
                let mut first = cond.clone();
                for i in 0..=c as usize {
                    first = b.and(&first, &b.not(&self.t_is[i][j]));
                }
                if !b.is_false(&first) {
                    let t = self.threads[j];
                    let s = b.and(&b.and(&first, &into), &self.entry_init[j]);
                    seeds.push((e.entry(t), s, true));
                }
                // back to thread j, last active in context c2
                for c2 in (0..=c as usize).rev() {
                    let mut consec = b.and(&cond, &self.t_is[c2][j]);
                    for i in c2 + 1..=c as usize {
                        consec = b.and(&consec, &b.not(&self.t_is[i][j]));
                    }
                    if b.is_false(&consec) {
                        continue;
                    }
                    // its switch-out states at cs = c2, whose globals were g_{c2+1}
                    for (v, s) in &self.resumable[c2] {
                        let s = b.and(&b.and(s, &consec), &into);
                        if !b.is_false(&s) {
                            seeds.push((*v, s, false));
                        }
                    }
                }
            }
        }
        if dry {
            return seeds.iter().any(|(_, s, _)| !e.bdd.is_false(s));
        }
        self.feed(e, seeds)
    }

    /// Per vertex, the states a thread may be left in at cs = `c2` whose globals are g_{c2+1}
    /// (any globals past the last copy), with the globals and `cs` quantified out.
    fn resumable(&self, e: &Engine<B>, c2: usize) -> Vec<(u32, B::F)> {
        let b = &e.bdd;
        let mut left = b.and(&self.cs_is[c2], &self.phase);
        if let Some(g) = self.g_eq.get(c2) {
            left = b.and(&left, g);
        }
        let quant = b.and(&self.g_cube, &self.cs_cube);
        let mut out = Vec::new();
        for (v, r) in e.reached.iter().enumerate() {
            if !self.switchable[v] || b.is_false(r) {
                continue;
            }
            let mut s = b.and(r, &left);
            if !self.ending[v] {
                s = b.and(&s, &self.unlocked);
            }
            if !b.is_false(&s) {
                out.push((v as u32, b.exists(&s, &quant)));
            }
        }
        out
    }

    /// The BDD nodes of the path edges where each thread runs (`t_cs` is the thread, summed
    /// over the vertices).
    fn nodes_per_thread(&self, e: &Engine<B>) -> Vec<usize> {
        let b = &e.bdd;
        (0..self.threads.len())
            .map(|j| {
                let mut running = b.constant(false);
                for (cs, t) in self.cs_is.iter().zip(&self.t_is) {
                    running = b.or(&running, &b.and(cs, &t[j]));
                }
                e.reached
                    .iter()
                    .filter(|r| !b.is_false(r))
                    .map(|r| b.size(&b.and(r, &running)))
                    .sum()
            })
            .collect()
    }

    /// The BDD nodes of the path edges of each context (summed over the vertices).
    fn nodes_per_context(&self, e: &Engine<B>) -> Vec<usize> {
        let b = &e.bdd;
        self.cs_is
            .iter()
            .map(|cs| {
                e.reached
                    .iter()
                    .filter(|r| !b.is_false(r))
                    .map(|r| b.size(&b.and(r, cs)))
                    .sum()
            })
            .collect()
    }
}
