//! Pushdown LTL on the BDD engine (`check --engine bdd --ltl FORMULA`): whether a sequential
//! boolean program, recursion and all, has a run that the Büchi automaton of the negated
//! formula accepts, decided without a depth bound by the *repeating heads* of Esparza,
//! Hansel, Rossmanith and Schwoon (CAV 2000), the construction Moped implements.
//!
//! The product of the program with the automaton is a pushdown system whose control is the
//! globals and the automaton state and whose stack symbols are frames. Its *heads* (a vertex,
//! the globals, the automaton state and the top frame's locals) are the nodes of the *head
//! graph*: an edge is one step that pops nothing (a statement; a call entering its callee)
//! or a whole call that returns (a summary edge), and it is *accepting* when an accepting
//! automaton state is entered on the way (inside the call, for a summary edge). A run of the
//! product that never pops below some frame is a path of this graph and conversely, so an
//! accepting run exists iff a reachable head lies on a path through infinitely many
//! accepting edges: the repeating heads, `νZ. μY. preA(Z) ∪ pre(Y)` (Emerson–Lei).
//!
//! The steps: (1) the RHS fixpoint of [`super::reach`]'s kind over the product, path edges
//! from a procedure's entry carrying one more bit, "an accepting automaton state was entered
//! since the entry", so that the summaries say whether a call passed one; (2) the head graph
//! from the vertices' relations, the call sites' entry relations and the summaries; (3) the
//! fixpoint above. Relations here frame every slot (no live ranges or MOD/REF): simple, and
//! linear in the program for a fixed number of variables per procedure.
//!
//! A run that ends (`main` returns, or a false `assume` blocks) is its last state repeated
//! (the stutter extension of [`crate::ltl`]): such a state has a stutter edge to itself that
//! moves only the automaton. The counterexample is built on the interpreter
//! (`witness.rs`): a stem to a repeating head, then a cycle back to the same head, on top of
//! the frames it started on and possibly of new ones (a *pushdown lasso*, which
//! [`crate::search::lasso::check`] verifies).

mod relations;
mod witness;

use super::bdd::{self, Bdds};
use super::model::{self, Encoder, Layout};
use crate::ltl::atoms::Atom;
use crate::ltl::Ltl;
use crate::runtime::Machine;
use crate::search::{self, Limit, SearchResult, SearchStats};
use std::collections::VecDeque;
use std::time::Instant;
use zingrs_lang::ir::{Expr, LValue, Pc, ProcId, Program, Stmt};

type F = <bdd::Oxidd as Bdds>::F;

/// Which copy of a slot a relation reads.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Copy {
    E,
    C,
    N,
}

/// Whether the engine can check `--ltl` on `program`; `Err` says why not.
pub fn applies(program: &Program, ltl: &Ltl) -> Result<(), String> {
    super::applies(program)?;
    let main = program.activations[0];
    for (q, proc) in program.procs.iter().enumerate() {
        for (pc, node) in proc.nodes.iter().enumerate() {
            if node.invariant.is_some() {
                return Err(format!(
                    "the bdd engine's --ltl does not handle `enforce` invariants (at line {}); use --engine explicit",
                    program.line_of(q as u32, pc as u32)
                ));
            }
            if let Stmt::Call { callee, .. } = node.stmt {
                if callee == main {
                    return Err(format!(
                        "the bdd engine's --ltl needs `{}`, where runs start, not to be called (line {}); use --engine explicit",
                        program.procs[main as usize].name,
                        program.line_of(q as u32, pc as u32)
                    ));
                }
            }
        }
    }
    for a in ltl.atoms() {
        if let Atom::Expr(e) = a {
            if !model::is_boolean(e) {
                return Err("the bdd engine's --ltl handles boolean propositions only".into());
            }
        }
    }
    Ok(())
}

/// Checks the formula of `opts.ltl` on `m`'s program (see the module's documentation), or,
/// with `opts.liveness` [`search::Liveness::Terminates`], whether some run goes on for ever
/// (the same search with the automaton of every run and no stutter: a run that ends is no
/// violation). Safety comes first, as in the explicit cycle search: an assertion that can
/// fail is reported as such.
pub fn search(m: &Machine, opts: &search::Options) -> Result<SearchResult, search::NotApplicable> {
    let not = |reason: String| search::NotApplicable {
        engine: "bdd",
        reason,
    };
    let property = opts.liveness.unwrap_or(search::Liveness::Ltl);
    let ltl = match property {
        search::Liveness::Ltl => opts
            .ltl
            .clone()
            .ok_or_else(|| not("--ltl needs a formula".into()))?,
        // `false` is violated by every run: its negation's automaton accepts them all
        search::Liveness::Terminates => {
            std::sync::Arc::new(Ltl::compile("false", m.program).map_err(|e| not(e.message))?)
        }
        other => {
            return Err(not(format!(
                "the bdd engine checks --ltl and --liveness terminates, not --liveness {}",
                other.cycle_name()
            )))
        }
    };
    let stutter = property == search::Liveness::Ltl;
    applies(m.program, &ltl).map_err(not)?;
    let start = Instant::now();
    // safety first: the assertions (and targets) with the plain engine
    let safety = search::Options {
        liveness: None,
        ltl: None,
        ..opts.clone()
    };
    let (first, _) = super::search(m, &safety, &super::SymbolicOptions::default())?;
    if !first.findings.is_empty() || first.limit.is_some() {
        return Ok(first);
    }
    let p = m.program;
    let g = p.globals.len() as u32;
    let nq = ltl.automaton.labels.len() as u32;
    let k = (32 - nq.max(2).saturating_sub(1).leading_zeros()).max(1);
    let l = super::reach::max_frame(p);
    let slots = g + k + 1 + l;
    let nodes: usize = p.procs.iter().map(|q| q.nodes.len()).sum();
    let memory = opts.limits.memory.unwrap_or(8 << 30);
    let manager = bdd::Oxidd::new(
        3 * slots,
        (memory / 40).clamp(1 << 20, 1 << 30) as usize,
        nodes.next_power_of_two().clamp(1 << 14, 1 << 22),
    );
    let _gc = manager.manager_guard();
    let mut e = Pd::new(m, manager, &ltl, k, stutter);
    let mut result = SearchResult::default();
    let limit = e.reach(opts);
    if limit.is_some() {
        result.limit = limit;
        result.stats = e.stats(start);
        return Ok(result);
    }
    let z = match e.repeating(opts) {
        Ok(z) => z,
        Err(l) => {
            result.limit = Some(l);
            result.stats = e.stats(start);
            return Ok(result);
        }
    };
    let violated = z.iter().any(|f| !e.b.is_false(f));
    if violated {
        match witness::lasso(&e, &z, &ltl, opts) {
            Ok((path, cycle_start)) => result.findings.push(search::Finding::Cycle {
                property,
                path,
                cycle_start,
                ltl: stutter.then(|| ltl.clone()),
                fair: false,
            }),
            Err(witness::NoLasso::Limit(l)) => result.limit = Some(l),
            Err(witness::NoLasso::Bug(why)) => {
                // a bug of ours: report a lasso that will fail its check (exit 5)
                eprintln!(
                    "internal error: the bdd engine could not build a lasso for a violation it found: {why}"
                );
                result.findings.push(search::Finding::Cycle {
                    property,
                    path: search::Path {
                        init: Vec::new(),
                        choices: Vec::new(),
                    },
                    cycle_start: 0,
                    ltl: stutter.then(|| ltl.clone()),
                    fair: false,
                });
            }
        }
    }
    result.stats = e.stats(start);
    let heads: f64 = z
        .iter()
        .enumerate()
        .map(|(v, f)| e.b.count(f, e.node_vars(v as u32)))
        .sum();
    result
        .stats
        .counters
        .push(("repeating_heads", super::sat_u64(heads)));
    Ok(result)
}

/// One edge of the head graph from a vertex: its target and its relation over the current
/// and next copies (the accepting bit included: the edge is accepting where it is entered
/// with the bit clear and leaves with it set).
struct Edge {
    to: u32,
    rel: F,
}

/// One call site: the relation that enters the callee (current copies of the caller, next
/// copies of the callee's first frame), the ones that apply an exit of the callee, and the
/// summary found so far.
struct Site {
    c: u32,
    w: u32,
    callee: ProcId,
    push: F,
    /// The caller's current copies → the callee's entry (entry copies of the globals, the
    /// automaton state and the formals).
    link: F,
    /// The global receivers (their callee values are overwritten).
    global_recv: F,
    /// Results (next copies of local slots), exit automaton state and bit → entry copies.
    park: bdd::Renaming,
    park_cube: F,
    /// The caller's current copies and the parked callee values → the caller's next copies.
    ret: F,
    sum: F,
}

/// The search state.
pub(crate) struct Pd<'m, 'p> {
    pub(crate) m: &'m Machine<'p>,
    pub(crate) b: bdd::Oxidd,
    lay: Layout,
    /// Program globals; the automaton state's bits are slots `g..g + k`, the bit slot
    /// `g + k`, local `j` slot `g + k + 1 + j`.
    pub(crate) g: u32,
    pub(crate) k: u32,
    pub(crate) l: u32,
    ltl: &'m Ltl,
    /// A state without a step repeats (LTL's stutter extension; not for `terminates`, where
    /// a run that ends is no violation).
    pub(crate) stutter: bool,
    /// The expression atoms over the current and the next copies of the globals (`None`
    /// for a location).
    atom_c: Vec<Option<F>>,
    atom_n: Vec<Option<F>>,
    atom_e: Vec<Option<F>>,
    pub(crate) base: Vec<u32>,
    pub(crate) proc_of: Vec<ProcId>,
    /// The vertex of a finished run (after `main` returns).
    pub(crate) done: u32,
    edges: Vec<Vec<Edge>>,
    site_of: Vec<u32>,
    sites: Vec<Site>,
    /// The call sites of each procedure.
    sites_of: Vec<Vec<u32>>,
    exits: Vec<F>,
    pub(crate) reached: Vec<F>,
    delta: Vec<F>,
    queued: Vec<bool>,
    queue: VecDeque<u32>,
    ren_nc: bdd::Renaming,
    ren_cn: bdd::Renaming,
    cube_c: F,
    cube_n: F,
    cube_e: F,
    cube_e_acc: F,
    selfloop: F,
    aut_cache: ahash::AHashMap<(u64, Copy, Copy, Copy), F>,
    steps: u64,
    peak: usize,
}

impl<'m, 'p> Pd<'m, 'p> {
    fn new(m: &'m Machine<'p>, b: bdd::Oxidd, ltl: &'m Ltl, k: u32, stutter: bool) -> Pd<'m, 'p> {
        let p = m.program;
        let g = p.globals.len() as u32;
        let l = super::reach::max_frame(p);
        let lay = Layout { g: g + k + 1, l };
        let mut base = Vec::new();
        let mut proc_of = Vec::new();
        let mut n = 0u32;
        for (q, proc) in p.procs.iter().enumerate() {
            base.push(n);
            n += proc.nodes.len() as u32;
            proc_of.extend(std::iter::repeat_n(q as ProcId, proc.nodes.len()));
        }
        let all = g + k + 1 + l;
        let pairs = |from: fn(Layout, u32) -> u32, to: fn(Layout, u32) -> u32| {
            (0..all)
                .map(|s| (from(lay, s), to(lay, s)))
                .collect::<Vec<_>>()
        };
        let ren_nc = b.renaming(&pairs(Layout::nv, Layout::cv));
        let ren_cn = b.renaming(&pairs(Layout::cv, Layout::nv));
        let mut cv: Vec<u32> = (0..all).map(|s| lay.cv(s)).collect();
        cv.sort_unstable();
        let mut nv: Vec<u32> = (0..all).map(|s| lay.nv(s)).collect();
        nv.sort_unstable();
        let mut ev: Vec<u32> = (0..all).map(|s| lay.ev(s)).collect();
        ev.sort_unstable();
        let mut ev_acc = ev.clone();
        ev_acc.push(lay.cv(g + k));
        ev_acc.sort_unstable();
        let (cube_c, cube_n, cube_e, cube_e_acc) =
            (b.cube(&cv), b.cube(&nv), b.cube(&ev), b.cube(&ev_acc));
        let nv_total = n as usize + 1;
        let f = b.constant(false);
        let mut e = Pd {
            m,
            lay,
            g,
            k,
            l,
            ltl,
            stutter,
            atom_c: Vec::new(),
            atom_n: Vec::new(),
            atom_e: Vec::new(),
            base,
            proc_of,
            done: n,
            edges: (0..nv_total).map(|_| Vec::new()).collect(),
            site_of: vec![u32::MAX; nv_total],
            sites: Vec::new(),
            sites_of: vec![Vec::new(); p.procs.len()],
            exits: vec![f.clone(); p.procs.len()],
            reached: vec![f.clone(); nv_total],
            delta: vec![f.clone(); nv_total],
            queued: vec![false; nv_total],
            queue: VecDeque::new(),
            ren_nc,
            ren_cn,
            cube_c,
            cube_n,
            cube_e,
            cube_e_acc,
            selfloop: f,
            aut_cache: Default::default(),
            steps: 0,
            peak: 0,
            b,
        };
        e.atoms();
        let mut sl: Vec<u32> = (0..g + k).chain(g + k + 1..all).collect();
        sl.sort_by_key(|&s| std::cmp::Reverse(e.lay.cv(s)));
        let mut selfloop = e.b.constant(true);
        for s in sl {
            let eq = e.b.equiv(&e.b.var(e.lay.ev(s)), &e.b.var(e.lay.cv(s)));
            selfloop = e.b.and(&eq, &selfloop);
        }
        e.selfloop = selfloop;
        e.build();
        e
    }

    /// The successors through `rel` (over current and next copies) of `s`, as current copies.
    fn image(&self, s: &F, rel: &F) -> F {
        self.b.and_exists_rename(s, rel, &self.cube_c, &self.ren_nc)
    }

    fn propagate(&mut self, w: u32, s: F) {
        let b = &self.b;
        let new = b.and_not(&s, &self.reached[w as usize]);
        if b.is_false(&new) {
            return;
        }
        self.reached[w as usize] = b.or(&self.reached[w as usize], &new);
        self.delta[w as usize] = b.or(&self.delta[w as usize], &new);
        if !self.queued[w as usize] {
            self.queued[w as usize] = true;
            self.queue.push_back(w);
        }
    }

    /// The initial states of the product: `main`'s entry, the automaton's initial states
    /// that admit it, the bit set if one accepts.
    fn initial(&mut self) -> F {
        let p = self.m.program;
        let main = p.activations[0];
        let mut lits = Vec::new();
        for (i, gv) in p.globals.iter().enumerate() {
            if let Some(v) = model::fixed_init(gv.init) {
                lits.push((self.lay.cv(i as u32), v));
            }
        }
        let locals = &p.procs[main as usize].locals;
        for j in 0..self.l {
            let fixed = match locals.get(j as usize) {
                Some(v) => model::fixed_init(v.init),
                None => Some(false),
            };
            if let Some(v) = fixed {
                lits.push((self.lay.cv(self.local(j)), v));
            }
        }
        let mask = self.loc_mask(self.base[main as usize]);
        // the initial automaton states that admit the state: a move from a virtual state
        // whose successors are the initial ones
        let b = &self.b;
        let mut q0 = b.constant(false);
        for &q in &self.ltl.automaton.initial {
            let f = b.and(&self.qis(q, Copy::C), &self.label(q, &self.atom_c, mask));
            q0 = b.or(&q0, &f);
        }
        let bit = b.equiv(&b.var(self.lay.cv(self.acc())), &self.fin(Copy::C));
        b.and(&b.and(&b.literals(&lits), &q0), &bit)
    }

    /// The RHS fixpoint over the product.
    fn reach(&mut self, opts: &search::Options) -> Option<Limit> {
        let clock = search::Clock::start(&opts.limits);
        let main = self.m.program.activations[0];
        let init = self.initial();
        self.propagate(self.base[main as usize], init);
        let mut tick = 0u32;
        while let Some(v) = self.queue.pop_front() {
            self.queued[v as usize] = false;
            let d = std::mem::replace(&mut self.delta[v as usize], self.b.constant(false));
            self.steps += 1;
            self.process(v, d);
            tick += 1;
            if tick & 63 == 0 {
                if let Some(l) = self.limit(opts, &clock) {
                    return Some(l);
                }
            }
        }
        self.peak = self.peak.max(self.b.live_nodes());
        self.b.out_of_memory().then_some(Limit::Memory)
    }

    fn limit(&mut self, opts: &search::Options, clock: &search::Clock) -> Option<Limit> {
        self.peak = self.peak.max(self.b.live_nodes());
        if self.b.out_of_memory() {
            return Some(Limit::Memory);
        }
        if let Some(l) = search::watchdog::stopped() {
            return Some(l);
        }
        if opts
            .limits
            .cancel
            .as_ref()
            .is_some_and(|c| c.is_cancelled())
        {
            return Some(Limit::Interrupted);
        }
        clock.expired(&opts.limits).then_some(Limit::Time)
    }

    fn process(&mut self, v: u32, d: F) {
        let site = self.site_of[v as usize];
        if site != u32::MAX {
            let i = site as usize;
            let s = &self.sites[i];
            let callee = s.callee;
            let seed = self.b.and_exists_rename(
                &self.b.exists(&d, &self.cube_e),
                &s.push,
                &self.cube_c,
                &self.ren_nc,
            );
            let seed = self.b.and(&seed, &self.selfloop);
            let img = self.image(&d, &s.sum);
            let w = s.w;
            self.propagate(self.base[callee as usize], seed);
            self.propagate(w, img);
            return;
        }
        let (q, pc) = if v == self.done {
            (u32::MAX, 0)
        } else {
            let q = self.proc_of[v as usize];
            (q, v - self.base[q as usize])
        };
        if q != u32::MAX && self.edges[v as usize].is_empty() {
            if let Stmt::Return { values } = &self.m.program.node(q, pc).stmt {
                self.exit(q, &d, values.as_deref());
                return;
            }
        }
        let outs: Vec<(u32, F)> = self.edges[v as usize]
            .iter()
            .map(|e| (e.to, self.image(&d, &e.rel)))
            .collect();
        for (w, s) in outs {
            self.propagate(w, s);
        }
    }

    /// New path edges at a return of (called) procedure `q`: new exits, applied at every
    /// call site.
    fn exit(&mut self, q: ProcId, d: &F, values: Option<&[Expr]>) {
        let b = &self.b;
        let lay = self.lay;
        let un = move |gl: bool, i: u32| {
            if gl {
                lay.cv(i)
            } else {
                lay.cv(lay.g + i)
            }
        };
        let enc = Encoder {
            bdd: b,
            layout: lay,
        };
        let mut rel = self.same(0..self.acc() + 1);
        if let Some(vs) = values {
            for (i, e) in vs.iter().enumerate().rev() {
                rel = b.and(&enc.takes(lay.nv(self.local(i as u32)), e, &un), &rel);
            }
        }
        let x = b.and_exists(d, &rel, &self.cube_c);
        // the callee's own locals are not seen by the caller, its formals are
        let params = self.m.program.procs[q as usize].params;
        let mut drop: Vec<u32> = (params..self.l).map(|j| lay.ev(self.local(j))).collect();
        drop.sort_unstable();
        let x = b.exists(&x, &b.cube(&drop));
        let new = b.and_not(&x, &self.exits[q as usize]);
        if b.is_false(&new) {
            return;
        }
        self.exits[q as usize] = b.or(&self.exits[q as usize], &new);
        for i in self.sites_of[q as usize].clone() {
            self.apply_exit(i as usize, &new);
        }
    }

    fn apply_exit(&mut self, i: usize, ex: &F) {
        let b = &self.b;
        let s = &self.sites[i];
        let s1 = b.and_exists(&s.link, ex, &self.cube_e);
        let s1 = b.exists(&s1, &s.global_recv);
        let s1 = b.rename(&s1, &s.park);
        let sum = b.and_exists(&s1, &s.ret, &s.park_cube);
        let new = b.and_not(&sum, &s.sum);
        if b.is_false(&new) {
            return;
        }
        let all = b.or(&s.sum, &new);
        let (c, w) = (s.c, s.w);
        let img = self.image(&self.reached[c as usize], &new);
        self.sites[i].sum = all;
        self.propagate(w, img);
    }

    /// The head graph's edges out of `v`: (target, plain, accepting), each over the current
    /// copies of the source and the next copies of the target, the bit gone.
    fn head_edges(&self, v: u32) -> Vec<(u32, F, F)> {
        let b = &self.b;
        let acc = self.acc();
        let clear = b.literals(&[(self.lay.cv(acc), false)]);
        let nacc = b.cube(&[self.lay.nv(acc)]);
        let set = b.var(self.lay.nv(acc));
        let mut rels: Vec<(u32, F)> = Vec::new();
        let site = self.site_of[v as usize];
        if site != u32::MAX {
            let s = &self.sites[site as usize];
            rels.push((self.base[s.callee as usize], s.push.clone()));
            rels.push((s.w, s.sum.clone()));
        } else {
            rels.extend(self.edges[v as usize].iter().map(|e| (e.to, e.rel.clone())));
        }
        rels.into_iter()
            .map(|(w, r)| {
                let r0 = b.restrict(&r, &clear);
                let plain = b.exists(&r0, &nacc);
                let accepting = b.and_exists(&r0, &set, &nacc);
                (w, plain, accepting)
            })
            .collect()
    }

    /// The repeating heads, per vertex (current copies of globals, automaton state, locals):
    /// the reachable heads from which a path of the head graph passes accepting edges
    /// infinitely often.
    pub(crate) fn repeating(&mut self, opts: &search::Options) -> Result<Vec<F>, Limit> {
        let clock = search::Clock::start(&opts.limits);
        let n = self.reached.len();
        let r: Vec<F> = self
            .reached
            .iter()
            .map(|f| self.b.exists(f, &self.cube_e_acc))
            .collect();
        let edges: Vec<Vec<(u32, F, F)>> = (0..n as u32).map(|v| self.head_edges(v)).collect();
        let mut preds: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
        for (v, es) in edges.iter().enumerate() {
            for (i, (w, _, _)) in es.iter().enumerate() {
                preds[*w as usize].push((v as u32, i));
            }
        }
        let b = &self.b;
        let pre = |rel: &F, s: &F| b.and_exists(rel, &b.rename(s, &self.ren_cn), &self.cube_n);
        let mut z = r.clone();
        loop {
            // Y = μY. preA(Z) ∪ pre(Y), within the reachable heads
            let mut y: Vec<F> = (0..n)
                .map(|v| {
                    let mut f = b.constant(false);
                    if !b.is_false(&r[v]) {
                        for (w, _, a) in &edges[v] {
                            if !b.is_false(&z[*w as usize]) {
                                f = b.or(&f, &pre(a, &z[*w as usize]));
                            }
                        }
                    }
                    b.and(&f, &r[v])
                })
                .collect();
            let mut work: VecDeque<u32> = (0..n as u32)
                .filter(|&v| !b.is_false(&y[v as usize]))
                .collect();
            let mut queued: Vec<bool> = (0..n).map(|v| !b.is_false(&y[v])).collect();
            let mut tick = 0u32;
            while let Some(w) = work.pop_front() {
                queued[w as usize] = false;
                tick += 1;
                if tick & 63 == 0 {
                    if b.out_of_memory() {
                        return Err(Limit::Memory);
                    }
                    if let Some(l) = search::watchdog::stopped() {
                        return Err(l);
                    }
                    if clock.expired(&opts.limits) {
                        return Err(Limit::Time);
                    }
                }
                let yw = y[w as usize].clone();
                for &(v, i) in &preds[w as usize] {
                    let add = b.and(&pre(&edges[v as usize][i].1, &yw), &r[v as usize]);
                    let new = b.and_not(&add, &y[v as usize]);
                    if !b.is_false(&new) {
                        y[v as usize] = b.or(&y[v as usize], &new);
                        if !queued[v as usize] {
                            queued[v as usize] = true;
                            work.push_back(v);
                        }
                    }
                }
            }
            let y: Vec<F> = y.iter().zip(&z).map(|(a, c)| b.and(a, c)).collect();
            self.steps += 1;
            if y == z {
                return Ok(z);
            }
            z = y;
        }
    }

    fn stats(&self, start: Instant) -> SearchStats {
        let reached = self.reached.iter().filter(|f| !self.b.is_false(f)).count() as u64;
        SearchStats {
            states: reached,
            transitions: self.steps,
            initial_states: 1,
            elapsed: start.elapsed(),
            counters: vec![
                ("bdd_variables", self.b.num_vars() as u64),
                ("peak_live_nodes", self.peak as u64),
                ("vertices_reached", reached),
                ("worklist_steps", self.steps),
            ],
            ..Default::default()
        }
    }

    /// The valuation of a head as sorted literals over current copies: the globals, the
    /// automaton state `q` and the top frame's locals (slots past them false).
    pub(crate) fn head_literals(
        &self,
        globals: &[bool],
        q: u32,
        locals: &[bool],
    ) -> Vec<(u32, bool)> {
        let mut lits: Vec<(u32, bool)> = Vec::new();
        for (i, &v) in globals.iter().enumerate() {
            lits.push((self.lay.cv(i as u32), v));
        }
        for i in 0..self.k {
            lits.push((self.lay.cv(self.g + i), q >> i & 1 == 1));
        }
        for j in 0..self.l {
            let v = locals.get(j as usize).copied().unwrap_or(false);
            lits.push((self.lay.cv(self.local(j)), v));
        }
        lits.sort_unstable();
        lits
    }
}
