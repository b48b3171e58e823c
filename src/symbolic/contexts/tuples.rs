//! §5's search (seed 002): the sequential engine on the program augmented with the context
//! number, the thread of each context and the globals at each switch, with the two switch
//! rules run between its fixpoints, once per context ([`super`] explains the encoding). Taken
//! where threads recurse, and under `--context-tuples`.

use super::{bits_for, context_label, counterexample_or_report, interleave, remap};
use super::{thread_label, Shape};
use crate::runtime::Machine;
use crate::search;
use crate::search::{SearchResult, SearchStats};
use crate::symbolic::bdd::Bdds;
use crate::symbolic::reach::Engine;
use crate::symbolic::SymbolicOptions;
use std::time::Instant;
use zingrs_lang::ir::{Const, Expr, Init, Layout, Program, Stmt, Type, Var};

/// Where the added globals are (indices into the augmented program's globals).
pub(super) struct Extra {
    /// The new index of each of the program's globals.
    pub(super) own: Vec<u32>,
    pub(super) phase: u32,
    pub(super) cs: Vec<u32>,
    /// `t[i]`: the bits of the thread of context i.
    pub(super) t: Vec<Vec<u32>>,
    /// `gs[i - 1]`: the copy of the globals at switch i.
    pub(super) gs: Vec<Vec<u32>>,
    /// The copy of the globals where `init` created the threads (Getafix layout), kept only
    /// where a thread's `enforce` at its first node reads a global (empty otherwise): the
    /// locals a thread has when it first runs are those it was created with, which satisfy
    /// that `enforce` with these globals, not with the current ones.
    pub(super) created: Vec<u32>,
}

/// The augmented program: the added globals and the entry procedure: in the Getafix layout
/// `init`, stopped at `endinit` (its states there start the threads); in the standard one
/// slot 0's (`main`'s), which runs context 0 from the initial states.
///
/// The variable order is copy-major, in the order the switches happen: `phase`, `cs`, t_0,
/// then per switch i the copy g_i and t_i, and the program's own globals last. A path edge
/// holds the whole history of the switches so far; read in this order it is an automaton
/// over the switches whose width is the number of distinct states at a switch, where an
/// order with each global beside its copies had to keep every copy's partial value at once
/// (fib-bp: the nodes doubled per context). The relations `globals = g_i` are never built
/// whole (they would be exponential in the number of globals here): they are conjoined one
/// bit at a time ([`Contexts::conj_eq`]).
fn augment(shape: &Shape, k: u32) -> (Program, Extra) {
    let threads = shape.starts.len();
    let mut p = shape.pre.clone();
    let g = p.globals.len() as u32;
    let template = |name: String, fixed: Option<bool>| Var {
        name,
        ty: Type::Bool,
        init: fixed.map_or(Init::Any, |b| Init::Value(Const::Bool(b))),
        thread_local: false,
        span: Default::default(),
    };
    let own = std::mem::take(&mut p.globals);
    let add = |p: &mut Program, name: String, fixed: Option<bool>| {
        p.globals.push(template(name, fixed));
        p.globals.len() as u32 - 1
    };
    // the standard layout starts in context 0 of thread 0 (the initial states are its seeds)
    let standard = shape.init.is_none();
    let phase = add(&mut p, "%phase".into(), Some(standard));
    let cs = (0..bits_for(k as u64 + 1))
        .map(|b| add(&mut p, format!("%cs{b}"), Some(false)))
        .collect();
    let created_kept = shape.init.is_some()
        && shape.starts.iter().any(|&(q, pc)| {
            shape.pre.procs[q as usize].nodes[pc as usize]
                .invariant
                .as_ref()
                .is_some_and(crate::symbolic::model::reads_global)
        });
    let created = if created_kept {
        own.iter()
            .map(|v| add(&mut p, format!("%g0.{}", v.name), None))
            .collect()
    } else {
        Vec::new()
    };
    let tb = if threads > 1 {
        bits_for(threads as u64)
    } else {
        0
    };
    let mut t: Vec<Vec<u32>> = Vec::new();
    let mut gs: Vec<Vec<u32>> = Vec::new();
    for i in 0..=k {
        if i > 0 {
            gs.push(
                own.iter()
                    .map(|v| add(&mut p, format!("%g{i}.{}", v.name), None))
                    .collect(),
            );
        }
        t.push(
            (0..tb)
                .map(|b| {
                    add(
                        &mut p,
                        format!("%t{i}.{b}"),
                        (standard && i == 0).then_some(false),
                    )
                })
                .collect(),
        );
    }
    // the program's own globals last: global x moves to base + x
    let base = p.globals.len() as u32;
    let map: Vec<u32> = (0..g).map(|x| base + x).collect();
    p.globals.extend(own);
    remap::remap_program(&mut p, &map);
    match shape.init {
        Some((init, endinit)) => {
            p.procs[init as usize].nodes[endinit as usize].stmt = Stmt::Assume {
                cond: Expr::Const(Const::Bool(false)),
            };
            p.activations = vec![init];
        }
        None => p.activations = vec![shape.starts[0].0],
    }
    p.layout = Layout::Standard;
    (
        p,
        Extra {
            own: map,
            phase,
            cs,
            t,
            gs,
            created,
        },
    )
}

/// §5's search with bound `k`, from the program's [`Shape`].
pub(super) fn search(
    m: &Machine,
    shape: &Shape,
    opts: &search::Options,
    sym: &SymbolicOptions,
    k: u32,
    start: Instant,
) -> Result<(SearchResult, Vec<Option<search::Replayed>>), String> {
    let (aug, x) = augment(shape, k);
    let am = Machine::new(
        &aug,
        crate::runtime::Semantics {
            selection: None,
            coverage: None,
            ..m.semantics.clone()
        },
    );
    let bdd = crate::symbolic::manager_for(&aug, &opts.limits, 1 << 16);
    let _gc = bdd.manager_guard();
    // every procedure may be left and resumed at any point: all globals in every path edge
    let sym = SymbolicOptions {
        mod_ref: false,
        ..*sym
    };
    let mut e = Engine::new(&am, bdd, sym, &opts.targets);
    // the counterexample walk needs every path edge as it was logged
    let opts = &search::Options {
        keep_going: false,
        ..opts.clone()
    };
    let mut ctx = Contexts::new(&e, &x, shape, k);
    // Getafix: `init` alone, then context 0 of every thread; standard: context 0 of `main`.
    // Each fixpoint completes one more context (a context's seeds come from the contexts
    // before it only), so the switches out of context c are found once, after the fixpoint
    // that completed it
    let mut limit = e.run(opts);
    let mut rounds = 0u64;
    let go = |limit: &Option<_>, e: &Engine<_>| limit.is_none() && e.found.is_empty();
    let started = match shape.init {
        Some(_) => {
            let s = go(&limit, &e) && ctx.start_threads(&mut e);
            if s {
                limit = e.run(opts);
            }
            s
        }
        None => true,
    };
    if started {
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
    if e.sym.measure {
        // a context or thread with no path edge has no line of its own
        let some = |&(_, n): &(usize, usize)| n > 0;
        for (c, n) in ctx
            .nodes_per_context(&e)
            .into_iter()
            .enumerate()
            .filter(some)
        {
            counters.push((context_label(c), n as u64));
        }
        for (j, n) in ctx
            .nodes_per_thread(&e)
            .into_iter()
            .enumerate()
            .filter(some)
        {
            counters.push((thread_label(j), n as u64));
        }
    }
    let mut replays = Vec::new();
    if let Some(&f) = e.found.first() {
        let built = interleave::counterexample(&e, &ctx, &x, shape, m, f, false);
        replays.push(counterexample_or_report(&mut result, built, k));
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

/// The switch rules, with the relations they reuse.
pub(super) struct Contexts<B: Bdds> {
    /// The program's own globals (their indices in the augmented program).
    pub(super) own: Vec<u32>,
    /// Per thread slot: the vertex where it starts.
    pub(super) starts: Vec<u32>,
    /// Per vertex: may a context end here (not inside a `__VERIFIER_atomic…` procedure)?
    pub(super) switchable: Vec<bool>,
    /// Per vertex: where a thread ends (`atomic` is no bar).
    pub(super) ending: Vec<bool>,
    /// Whether a thread that ends releases `atomic` (and is never resumed).
    pub(super) release_on_end: bool,
    /// `cs = c` for c = 0..=k.
    pub(super) cs_is: Vec<B::F>,
    /// The current copies of `cs`.
    pub(super) cs_cube: B::F,
    /// The current copies of the program's globals.
    pub(super) g_cube: B::F,
    /// `t_i = thread j`, per i and j.
    pub(super) t_is: Vec<Vec<B::F>>,
    /// The current copies of the program's globals, in order.
    pub(super) own_vars: Vec<u32>,
    /// `copies[i - 1]`: the current copies of g_i, in the order of `own_vars`.
    pub(super) copies: Vec<Vec<u32>>,
    /// Where a thread that ends releases `atomic`: its position in `own_vars`.
    pub(super) released: Option<usize>,
    /// `to_copy[i - 1]`: the renaming of the globals' current copies to g_i's.
    pub(super) to_copy: Vec<B::Renaming>,
    pub(super) phase: B::F,
    pub(super) unlocked: B::F,
    /// The lock global (its slot in the augmented program), if the program has one.
    pub(super) atomic: Option<u32>,
    /// Its current copy's variable.
    pub(super) atomic_var: Option<u32>,
    /// The variables of ḡ and t̄ and the globals where the threads were created (current
    /// copies), sorted: what a switch keeps besides the globals.
    pub(super) gt_vars: Vec<u32>,
    /// Per slot: what its first frame starts with (fixed initial values of its locals, its
    /// creation flag, the locals copied from the globals the creation wrote).
    pub(super) entry_init: Vec<B::F>,
    /// Per thread slot: the locals a thread created before its first context can have there:
    /// `entry_init` and, if it has an `enforce` at its first node, that `enforce` over the
    /// globals it was created with ([`Extra::created`]; the locals it admits, where it reads
    /// no global).
    pub(super) first_locals: Vec<B::F>,
    /// The globals equal their copy where the threads were created ([`Extra::created`];
    /// true if none is kept).
    pub(super) created_eq: B::F,
    /// Getafix: `init`'s `endinit` vertex.
    pub(super) endinit: Option<u32>,
    /// Per context (complete ones only): [`Contexts::resumable`].
    pub(super) resumable: Vec<Vec<(u32, B::F)>>,
}

impl<B: Bdds> Contexts<B> {
    fn new(e: &Engine<B>, x: &Extra, shape: &Shape, k: u32) -> Contexts<B> {
        let b = &e.bdd;
        let cv = |s: u32| e.layout.cv(s);
        let n = e.proc_of.len();
        let switchable = (0..n)
            .map(|v| !shape.unswitchable[e.proc_of[v] as usize])
            .collect();
        let mut ending = vec![false; n];
        for &(q, pc) in &shape.ending {
            ending[(e.entry(q) + pc) as usize] = true;
        }
        let starts: Vec<u32> = shape
            .starts
            .iter()
            .map(|&(q, pc)| e.entry(q) + pc)
            .collect();
        let threads = starts.len();
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
                    (0..threads)
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
        let atomic = shape.atomic.map(|g| x.own[g as usize]);
        let released = shape
            .atomic
            .filter(|_| shape.release_on_end)
            .map(|g| g as usize);
        let own_vars = x.own.iter().map(|&s| cv(s)).collect();
        let copies: Vec<Vec<u32>> =
            x.gs.iter()
                .map(|copy| copy.iter().map(|&s| cv(s)).collect())
                .collect();
        let to_copy = copies
            .iter()
            .map(|copy| {
                let pairs: Vec<(u32, u32)> = x
                    .own
                    .iter()
                    .map(|&o| cv(o))
                    .zip(copy.iter().copied())
                    .collect();
                b.renaming(&pairs)
            })
            .collect();
        let unlocked = match atomic {
            Some(i) => b.not(&b.var(cv(i))),
            None => b.constant(true),
        };
        let mut gt_vars: Vec<u32> =
            x.t.iter()
                .flatten()
                .chain(x.gs.iter().flatten())
                .chain(&x.created)
                .map(|&s| cv(s))
                .collect();
        gt_vars.sort_unstable();
        let entry_init = (0..threads)
            .map(|j| {
                let (q, pc) = shape.starts[j];
                let w = starts[j];
                let mut f = if pc == 0 {
                    e.procs[q as usize].entry_init.clone()
                } else {
                    b.constant(true)
                };
                if let Some(flag) = shape.created[j] {
                    f = b.and(&f, &b.var(cv(x.own[flag as usize])));
                }
                for &(local, g) in &shape.copies[j] {
                    let slot = e.g + local;
                    if e.lives_at(w, slot) {
                        let same = b.equiv(&b.var(cv(slot)), &b.var(cv(x.own[g as usize])));
                        f = b.and(&f, &same);
                    }
                }
                f
            })
            .collect();
        // the globals renamed to their copy where the threads were created, if kept
        let to_created = (!x.created.is_empty()).then(|| {
            let pairs: Vec<(u32, u32)> = x
                .own
                .iter()
                .zip(&x.created)
                .map(|(&o, &c)| (cv(o), cv(c)))
                .collect();
            b.renaming(&pairs)
        });
        let first_locals = starts
            .iter()
            .zip(&entry_init)
            .map(|(w, init)| match (e.inv.get(w), &to_created) {
                (Some(inv), Some(r)) => b.and(init, &b.rename(inv, r)),
                // an `enforce` that reads no global: the locals it admits
                (Some(inv), None) => b.and(init, &b.exists(&b.and(inv, init), &g_cube)),
                (None, _) => init.clone(),
            })
            .collect();
        let created_eq = x
            .own
            .iter()
            .zip(&x.created)
            .fold(b.constant(true), |f, (&o, &c)| {
                b.and(&f, &b.equiv(&b.var(cv(o)), &b.var(cv(c))))
            });
        Contexts {
            own: x.own.clone(),
            starts,
            switchable,
            ending,
            release_on_end: shape.release_on_end,
            cs_is,
            cs_cube,
            g_cube,
            t_is,
            own_vars,
            copies,
            released,
            to_copy,
            phase: b.var(cv(x.phase)),
            unlocked,
            atomic,
            atomic_var: atomic.map(cv),
            gt_vars,
            first_locals,
            created_eq,
            entry_init,
            endinit: shape.init.map(|(q, pc)| e.entry(q) + pc),
            resumable: Vec::new(),
        }
    }

    /// The states at vertex `v` in `s` as they are when the thread is left there: not inside
    /// an atomic section, unless the thread ends at `v` (which, in the standard layout,
    /// releases the section).
    fn leave(&self, b: &B, v: usize, s: &B::F) -> B::F {
        if !self.ending[v] {
            return b.and(s, &self.unlocked);
        }
        match (self.release_on_end, self.atomic_var) {
            (true, Some(a)) => b.and(&b.exists(s, &b.cube(&[a])), &self.unlocked),
            _ => s.clone(),
        }
    }

    /// The states at `endinit` start context 0 of every thread. True if an edge was new.
    fn start_threads(&self, e: &mut Engine<B>) -> bool {
        let b = &e.bdd;
        let Some(endinit) = self.endinit else {
            return false;
        };
        let at = &e.reached[endinit as usize];
        if b.is_false(at) {
            return false;
        }
        let mut keep: Vec<u32> = self.own.iter().map(|&s| e.layout.cv(s)).collect();
        keep.sort_unstable();
        let mut globals = b.and(&b.project(at, &keep), &self.created_eq);
        // `init` creates every thread at once, each where its `enforce` at its first node may
        // hold (as the interpreter does): the globals must admit locals for each, not only
        // for the thread that runs first
        for (j, w) in self.starts.iter().enumerate() {
            if let Some(inv) = e.inv.get(w) {
                let may = b.project(&b.and(inv, &self.entry_init[j]), &keep);
                globals = b.and(&globals, &may);
            }
        }
        let mut seeds = Vec::new();
        for (j, &w) in self.starts.iter().enumerate() {
            let mut s = b.and(&globals, &self.t_is[0][j]);
            s = b.and(&s, &self.cs_is[0]);
            s = b.and(&s, &self.phase);
            s = b.and(&s, &self.entry_init[j]);
            seeds.push((w, s, true, true));
        }
        self.feed(e, seeds)
    }

    /// Adds path edges; true if one was new. A seed is (vertex, states, `entry`, `check`):
    /// `entry`, a thread starting at its procedure's entry, whose entry copies are set to the
    /// current values when something calls that procedure; `check`, whether the `enforce` at
    /// the vertex is checked: only where the thread is created (bp-language §5.7: a thread
    /// that did not move is not checked again, whether resumed or running for the first
    /// time after the others changed the globals).
    fn feed(&self, e: &mut Engine<B>, seeds: Vec<(u32, B::F, bool, bool)>) -> bool {
        let before = e.log.len();
        for (w, s, entry, check) in seeds {
            e.propagate_checked(w, s, entry, check);
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
            let s = self.leave(b, v, &b.and(r, &here));
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
            // A_c(ḡ, t̄): a switch-out state of context c whose globals are g_{c+1} (for
            // the dry run past the last copy, any)
            let a = self.exists_eq(b, &out, c + 1);
            if b.is_false(&a) {
                return false;
            }
            // context c + 1 starts with globals g_{c + 1} (conjoined once here rather than
            // with each seed: it is the costly part of a switch)
            let a = b.and(&a, &self.phase);
            let a = match self.cs_is.get(c as usize + 1) {
                Some(cs) => self.conj_eq(b, &b.and(&a, cs), c + 1, false),
                None => a,
            };
            let t_next = self.t_is.get(c as usize + 1);
            for j in 0..self.starts.len() {
                let to_j = match t_next {
                    Some(t) => t[j].clone(),
                    None => b.constant(true),
                };
                let other = b.and(&to_j, &b.not(&self.t_is[c as usize][j]));
                let cond = b.and(&a, &other);
                if b.is_false(&cond) {
                    continue;
                }
                // first context of thread j
                let mut first = cond.clone();
                for i in 0..=c as usize {
                    first = b.and(&first, &b.not(&self.t_is[i][j]));
                }
                if !b.is_false(&first) {
                    // its `enforce` held where `init` created it, on locals it still has
                    // (`first_locals`), and is not checked again here
                    let s = b.and(&first, &self.first_locals[j]);
                    seeds.push((self.starts[j], s, true, false));
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
                        let s = b.and(s, &consec);
                        if !b.is_false(&s) {
                            seeds.push((*v, s, false, false));
                        }
                    }
                }
            }
        }
        if dry {
            return seeds.iter().any(|(_, s, _, _)| !e.bdd.is_false(s));
        }
        self.feed(e, seeds)
    }

    /// Per vertex, the states a thread may be left in at cs = `c2` whose globals are g_{c2+1}
    /// (any globals past the last copy), with the globals and `cs` quantified out.
    fn resumable(&self, e: &Engine<B>, c2: usize) -> Vec<(u32, B::F)> {
        let b = &e.bdd;
        let left = b.and(&self.cs_is[c2], &self.phase);
        let mut out = Vec::new();
        for (v, r) in e.reached.iter().enumerate() {
            // a thread that ended is not resumed (it would only end again)
            if !self.switchable[v] || b.is_false(r) || (self.release_on_end && self.ending[v]) {
                continue;
            }
            let s = self.leave(b, v, &b.and(r, &left));
            if b.is_false(&s) {
                continue;
            }
            let s = b.exists(&self.exists_eq(b, &s, c2 as u32 + 1), &self.cs_cube);
            if !b.is_false(&s) {
                out.push((v as u32, s));
            }
        }
        out
    }

    /// `f ∧ (globals = g_i)`, i ≥ 1, conjoined one bit at a time: with the program's globals
    /// below every copy in the order, the relation alone has a node per valuation of the
    /// globals, where `f` ∧ it has one per valuation `f` allows. With `end`, for a thread
    /// that ends: a released `atomic` is false in g_i and anything in the globals.
    pub(super) fn conj_eq(&self, b: &B, f: &B::F, i: u32, end: bool) -> B::F {
        let copy = &self.copies[i as usize - 1];
        let mut f = f.clone();
        for (k, (&o, &g)) in self.own_vars.iter().zip(copy).enumerate().rev() {
            let eq = if end && self.released == Some(k) {
                b.not(&b.var(g))
            } else {
                b.equiv(&b.var(o), &b.var(g))
            };
            f = b.and(&f, &eq);
            if b.is_false(&f) {
                break;
            }
        }
        f
    }

    /// `∃ globals. f ∧ (globals = g_i)` for an `f` of a context before i (which leaves g_i
    /// unconstrained: only a switch into context i sets it): the globals renamed to g_i;
    /// past the last copy, `∃ globals. f`.
    fn exists_eq(&self, b: &B, f: &B::F, i: u32) -> B::F {
        let Some(r) = self.to_copy.get(i as usize - 1) else {
            return b.exists(f, &self.g_cube);
        };
        debug_assert!({
            let copy = b.cube(&self.copies[i as usize - 1]);
            b.exists(f, &copy) == *f
        });
        b.rename(f, r)
    }

    /// The BDD nodes of the path edges where each thread runs (`t_cs` is the thread, summed
    /// over the vertices).
    fn nodes_per_thread(&self, e: &Engine<B>) -> Vec<usize> {
        let b = &e.bdd;
        (0..self.starts.len())
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
