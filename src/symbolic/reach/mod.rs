//! The RHS reachability algorithm of seed 001 Figure 3 over BDDs: path edges per CFG vertex,
//! summary edges per call site, a FIFO worklist of vertices, and frontier propagation (a vertex
//! passes on only the path edges it gained since it was last processed).
//!
//! Every batch of new path edges is logged with a *stamp* (its index in the log). A batch is
//! derived only from batches with smaller stamps, which is what the counterexample generator
//! (`symbolic::trace`) walks back along (the rings of seed 001 §3.2).

use super::bdd::Bdds;
use super::mod_ref::{self, GlobalSet};
use super::model::{self, Bits, Encoder, Layout};
use super::SymbolicOptions;
use crate::runtime::Machine;
use crate::search;
use crate::search::Limit;
use std::collections::VecDeque;
use zingrs_lang::ir::{Pc, ProcId, Stmt};

mod xfer;

pub use xfer::{CallSite, Xfer, XferKey};

/// No index.
pub const NONE: u32 = u32::MAX;

/// Per-procedure data.
pub struct ProcInfo<B: Bdds> {
    pub base: u32,
    /// The globals the procedure or its callees read or write (MOD/REF).
    pub touched: GlobalSet,
    pub live: Vec<Bits>,
    /// `E = C` over the slots in scope at the entry.
    pub selfloop: B::F,
    /// The fixed initial values of non-formal locals (current copies).
    pub entry_init: B::F,
    /// Locals' current copies and non-formal locals' entry copies.
    pub exit_cube: B::F,
    /// The union of the exit relations found so far.
    pub exits: B::F,
    pub callsites: Vec<u32>,
    pub returns: Vec<u32>,
    /// Whether some call statement calls the procedure. Path edges of a procedure nobody
    /// calls (`main`, usually) need no entry copy: they are sets of states.
    pub called: bool,
}

/// An error the search found, before it is turned into a path.
#[derive(Clone, Copy, Debug)]
pub enum Found {
    Assertion { v: u32 },
    Target { v: u32, target: u32 },
}

/// The whole search state.
pub struct Engine<'m, 'p, B: Bdds> {
    pub m: &'m Machine<'p>,
    pub bdd: B,
    pub sym: SymbolicOptions,
    pub g: u32,
    pub nslots: u32,
    pub layout: Layout,
    pub main: ProcId,
    pub procs: Vec<ProcInfo<B>>,
    pub proc_of: Vec<ProcId>,
    pub succ_start: Vec<u32>,
    pub succ: Vec<u32>,
    /// The `enforce` invariant of the vertices that have one (most have none: a map, not a
    /// function handle per vertex).
    pub inv: ahash::AHashMap<u32, B::F>,
    pub target: Vec<u32>,
    /// The transfer relation of each vertex, built when the vertex is first processed
    /// (shared between vertices with equal [`XferKey`]s).
    pub xfer: Vec<Option<std::rc::Rc<Xfer<B>>>>,
    pub callsite_of: Vec<u32>,
    pub callsites: Vec<CallSite<B>>,
    pub reached: Vec<B::F>,
    pub delta: Vec<B::F>,
    pub queued: Vec<bool>,
    /// The last log entry of each vertex.
    pub head: Vec<u32>,
    /// Batches of new path edges: the edges and the previous batch of the same vertex.
    pub log: Vec<(B::F, u32)>,
    pub queue: VecDeque<u32>,
    /// With [`Engine::ordered`]: the queued vertices, lowest first.
    pub by_index: std::collections::BTreeSet<u32>,
    /// Process the lowest queued vertex first instead of the oldest (the product states of
    /// [`super::contexts`] number their contexts in order, so each context is complete
    /// before the next starts, and every vertex is processed about once).
    pub ordered: bool,
    /// Per vertex (empty: none): a vertex whose path edges subsume this one's, or [`NONE`].
    /// A state already reached at `shadow[w]` is not added at `w` (see
    /// [`super::contexts`]' product states, where a node's shadow is the same node two
    /// contexts earlier).
    pub shadow: Vec<u32>,
    pub found: Vec<Found>,
    /// The cube of every entry and current copy (call sites cut their seed cubes from it).
    pub all_ec: B::F,
    pub seen_targets: Vec<bool>,
    pub target_names: Vec<String>,
    pub seen_asserts: ahash::AHashSet<u32>,
    pub steps: u64,
    pub summaries: u64,
    pub peak_nodes: usize,
    /// Transfer relations already built, by what they depend on.
    pub xfer_cache: ahash::AHashMap<XferKey<'p>, std::rc::Rc<Xfer<B>>>,
    /// The scopes the counterexample walk has needed (see [`Engine::scope_of`]).
    scopes: std::cell::RefCell<Scopes>,
}

/// Scopes computed once per vertex and shared between the vertices that have equal ones.
#[derive(Default)]
struct Scopes {
    /// The index in `table` of each vertex's scope (`NONE`: not computed yet).
    id: Vec<u32>,
    table: Vec<std::rc::Rc<[u32]>>,
    index: ahash::AHashMap<std::rc::Rc<[u32]>, u32>,
}

impl<'m, 'p, B: Bdds> Engine<'m, 'p, B> {
    /// Lays out the program and prepares the per-procedure data.
    pub fn new(
        m: &'m Machine<'p>,
        bdd: B,
        sym: SymbolicOptions,
        targets: &[String],
    ) -> Engine<'m, 'p, B> {
        let p = m.program;
        let g = p.globals.len() as u32;
        let nslots = g + max_frame(p);
        let main = p.activations[0];
        let touched = if sym.mod_ref {
            mod_ref::touched_globals(p)
        } else {
            vec![GlobalSet::All(g); p.procs.len()]
        };
        let mut procs = Vec::with_capacity(p.procs.len());
        let mut proc_of = Vec::new();
        let mut succ_start = Vec::new();
        let mut succ = Vec::new();
        let mut target = Vec::new();
        let mut base = 0u32;
        for (q, proc) in p.procs.iter().enumerate() {
            let q = q as ProcId;
            let live = if sym.live_variables {
                model::live_locals(p, q)
            } else {
                vec![Bits::full(proc.locals.len()); proc.nodes.len()]
            };
            for (pc, node) in proc.nodes.iter().enumerate() {
                proc_of.push(q);
                succ_start.push(succ.len() as u32);
                succ.extend(
                    model::successors(p, q, pc as Pc)
                        .into_iter()
                        .map(|s| base + s),
                );
                target.push(
                    targets
                        .iter()
                        .position(|t| node.labels.iter().any(|l| l == t))
                        .map_or(NONE, |i| i as u32),
                );
            }
            procs.push(ProcInfo {
                base,
                touched: touched[q as usize].clone(),
                live,
                selfloop: bdd.constant(true),
                entry_init: bdd.constant(true),
                exit_cube: bdd.constant(true),
                exits: bdd.constant(false),
                callsites: Vec::new(),
                returns: Vec::new(),
                called: false,
            });
            base += proc.nodes.len() as u32;
        }
        succ_start.push(succ.len() as u32);
        for proc in &p.procs {
            for node in &proc.nodes {
                if let Stmt::Call { callee, .. } = node.stmt {
                    procs[callee as usize].called = true;
                }
            }
        }
        let n = base as usize;
        let mut e = Engine {
            m,
            sym,
            g,
            nslots,
            layout: Layout { g, l: nslots - g },
            main,
            proc_of,
            succ_start,
            succ,
            inv: Default::default(),
            target,
            xfer: (0..n).map(|_| None).collect(),
            callsite_of: vec![NONE; n],
            callsites: Vec::new(),
            reached: vec![bdd.constant(false); n],
            delta: vec![bdd.constant(false); n],
            queued: vec![false; n],
            head: vec![NONE; n],
            log: Vec::new(),
            queue: VecDeque::new(),
            by_index: Default::default(),
            ordered: false,
            shadow: Vec::new(),
            found: Vec::new(),
            all_ec: bdd.constant(true),
            seen_targets: vec![false; targets.len()],
            target_names: targets.to_vec(),
            seen_asserts: Default::default(),
            steps: 0,
            summaries: 0,
            peak_nodes: 0,
            xfer_cache: Default::default(),
            scopes: Default::default(),
            procs,
            bdd,
        };
        let all: Vec<u32> = (0..nslots)
            .flat_map(|s| [e.layout.ev(s), e.layout.cv(s)])
            .collect();
        e.all_ec = e.bdd.cube(&all);
        e.prepare_vertices();
        e
    }

    /// The states (over current copies) where `cond`, over the program's variables, can be
    /// true.
    pub fn can_hold(&self, cond: &zingrs_lang::ir::Expr) -> B::F {
        let enc = self.enc();
        enc.sets(cond, &enc.unprimed()).t
    }

    fn enc(&self) -> Encoder<'_, B> {
        Encoder {
            bdd: &self.bdd,
            layout: self.layout,
        }
    }

    /// Invariants and the per-procedure relations.
    fn prepare_vertices(&mut self) {
        let p = self.m.program;
        let mut invs = ahash::AHashMap::new();
        let mut invs_at = 0u32;
        for (q, proc) in p.procs.iter().enumerate() {
            let info = &self.procs[q];
            let nloc = proc.locals.len() as u32;
            for node in &proc.nodes {
                let enc = self.enc();
                let unprimed = enc.unprimed();
                if let Some(i) = &node.invariant {
                    invs.insert(invs_at, enc.sets(i, &unprimed).t);
                }
                invs_at += 1;
            }
            // E = C over the touched globals and the locals live at the entry
            let b = &self.bdd;
            let mut selfloop = b.constant(true);
            let mut entry_vars: Vec<u32> = if info.called {
                info.touched.iter().collect()
            } else {
                Vec::new()
            };
            if info.called {
                entry_vars.extend(info.live[0].iter().map(|j| self.g + j));
            }
            entry_vars.sort_unstable();
            for &s in entry_vars.iter().rev() {
                let eq = b.equiv(&b.var(self.layout.ev(s)), &b.var(self.layout.cv(s)));
                selfloop = b.and(&eq, &selfloop);
            }
            let mut init = Vec::new();
            for (j, v) in proc.locals.iter().enumerate().skip(proc.params as usize) {
                if !info.live[0].contains(j as u32) {
                    continue;
                }
                if let Some(val) = model::fixed_init(v.init) {
                    init.push((self.layout.cv(self.g + j as u32), val));
                }
            }
            let entry_init = b.literals(&init);
            let mut ex: Vec<u32> = (0..nloc).map(|j| self.layout.cv(self.g + j)).collect();
            ex.extend((proc.params..nloc).map(|j| self.layout.ev(self.g + j)));
            let exit_cube = b.cube(&ex);
            let returns = proc
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| matches!(n.stmt, Stmt::Return { .. }))
                .map(|(pc, _)| info.base + pc as u32)
                .collect();
            let info = &mut self.procs[q];
            info.selfloop = selfloop;
            info.entry_init = entry_init;
            info.exit_cube = exit_cube;
            info.returns = returns;
        }
        self.inv = invs;
    }

    /// Whether slot `s` is in scope at vertex `w` (globals always are; locals when live).
    pub fn lives_at(&self, w: u32, s: u32) -> bool {
        if s < self.g {
            return true;
        }
        let q = self.proc_of[w as usize] as usize;
        self.procs[q].live[self.pc(w) as usize].contains(s - self.g)
    }

    /// The current copies of the locals live at `v` but not at its successor `w`, except
    /// the slots in `except`.
    pub fn dying(&self, v: u32, w: u32, except: &[u32]) -> Vec<u32> {
        let q = self.proc_of[v as usize] as usize;
        let live = &self.procs[q].live;
        let (lv, lw) = (&live[self.pc(v) as usize], &live[self.pc(w) as usize]);
        lv.iter()
            .filter(|&j| !lw.contains(j) && !except.contains(&(self.g + j)))
            .map(|j| self.layout.cv(self.g + j))
            .collect()
    }

    /// The vertex of the entry of procedure `q`.
    pub fn entry(&self, q: ProcId) -> u32 {
        self.procs[q as usize].base
    }

    /// The pc of vertex `v`.
    pub fn pc(&self, v: u32) -> Pc {
        v - self.procs[self.proc_of[v as usize] as usize].base
    }

    /// The successors of vertex `v`.
    pub fn succs(&self, v: u32) -> &[u32] {
        &self.succ[self.succ_start[v as usize] as usize..self.succ_start[v as usize + 1] as usize]
    }

    /// The initial path edges of `main`: `E = C`, fixed initial values, main's invariant.
    pub fn initial(&self) -> B::F {
        let p = self.m.program;
        let mut lits = Vec::new();
        let touched = &self.procs[self.main as usize].touched;
        for (i, gv) in p.globals.iter().enumerate() {
            if !touched.contains(i as u32) {
                continue;
            }
            if let Some(b) = model::fixed_init(gv.init) {
                lits.push((self.layout.cv(i as u32), b));
            }
        }
        let live = &self.procs[self.main as usize].live[0];
        for (j, lv) in p.procs[self.main as usize].locals.iter().enumerate() {
            if !live.contains(j as u32) {
                continue;
            }
            if let Some(b) = model::fixed_init(lv.init) {
                lits.push((self.layout.cv(self.g + j as u32), b));
            }
        }
        self.bdd.literals(&lits)
    }

    /// Adds path edges `s` at `w` (after the invariant and, for a callee's entry, the
    /// self-loop). The transfer relations have already dropped the locals dead at `w`.
    pub fn propagate(&mut self, w: u32, s: B::F, entry: bool) {
        self.propagate_checked(w, s, entry, true)
    }

    /// [`Engine::propagate`], with the `enforce` invariant at `w` applied only if `check`
    /// (a thread resumed at `w` by a context switch did not move: bp-language §5.7 checks
    /// only the thread that moves).
    pub fn propagate_checked(&mut self, w: u32, s: B::F, entry: bool, check: bool) {
        let b = &self.bdd;
        if b.is_false(&s) {
            return;
        }
        let mut s = s;
        if let Some(inv) = (check && !self.inv.is_empty())
            .then(|| self.inv.get(&w))
            .flatten()
        {
            s = b.and(&s, inv);
        }
        if entry {
            s = b.and(&s, &self.procs[self.proc_of[w as usize] as usize].selfloop);
        }
        let wi = w as usize;
        let mut new = b.and_not(&s, &self.reached[wi]);
        if let Some(&by) = self.shadow.get(wi).filter(|&&by| by != NONE) {
            new = b.and_not(&new, &self.reached[by as usize]);
        }
        if b.is_false(&new) {
            return;
        }
        // a vertex not yet processed since it was first reached has all its states pending
        // (`delta` = `reached`, the common case in an ordered search): one union for both
        let pending_all = self.delta[wi] == self.reached[wi];
        self.reached[wi] = b.or(&self.reached[wi], &new);
        self.delta[wi] = if pending_all {
            self.reached[wi].clone()
        } else {
            b.or(&self.delta[wi], &new)
        };
        self.log.push((new, self.head[wi]));
        self.head[wi] = self.log.len() as u32 - 1;
        let t = self.target[wi];
        if t != NONE && !self.seen_targets[t as usize] {
            self.seen_targets[t as usize] = true;
            self.found.push(Found::Target { v: w, target: t });
        }
        if !self.queued[wi] {
            self.queued[wi] = true;
            if self.ordered {
                self.by_index.insert(w);
            } else {
                self.queue.push_back(w);
            }
        }
    }

    /// The finding `f` is, with the path that leads to it.
    pub fn finding_of(&self, f: Found, path: search::Path) -> search::Finding {
        match f {
            Found::Assertion { .. } => search::Finding::Assertion { path },
            Found::Target { target, .. } => search::Finding::Target {
                label: self.target_names[target as usize].clone(),
                path,
            },
        }
    }

    /// Runs the worklist to its fixpoint, or to the first error (without `keep_going`), or to
    /// a limit.
    pub fn run(&mut self, opts: &search::Options) -> Option<Limit> {
        let clock = search::Clock::start(&opts.limits);
        let init = self.initial();
        self.propagate(self.entry(self.main), init, true);
        let mut tick = 0u32;
        let mut gc_at = 1usize << 20;
        while let Some(v) = if self.ordered {
            self.by_index.pop_first()
        } else {
            self.queue.pop_front()
        } {
            if !opts.keep_going && !self.found.is_empty() {
                break;
            }
            self.queued[v as usize] = false;
            let d = std::mem::replace(&mut self.delta[v as usize], self.bdd.constant(false));
            self.steps += 1;
            self.process(v, d);
            tick += 1;
            if tick & 255 == 0 {
                let live = self.bdd.live_nodes();
                self.peak_nodes = self.peak_nodes.max(live);
                if live > gc_at {
                    let after = live.saturating_sub(self.bdd.collect_garbage());
                    gc_at = (2 * after).max(1 << 20);
                }
                if self.bdd.out_of_memory() {
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
                if tick & 4095 == 0 {
                    if clock.expired(&opts.limits) {
                        return Some(Limit::Time);
                    }
                    if let Some(mem) = opts.limits.memory {
                        if search::resident_bytes().is_some_and(|r| r > mem) {
                            return Some(Limit::Memory);
                        }
                    }
                }
            }
        }
        self.peak_nodes = self.peak_nodes.max(self.bdd.live_nodes());
        if self.bdd.out_of_memory() {
            return Some(Limit::Memory);
        }
        None
    }

    fn process(&mut self, v: u32, d: B::F) {
        if self.xfer[v as usize].is_none() {
            let x = match self.xfer_key(v) {
                Some(k) => match self.xfer_cache.get(&k) {
                    Some(x) => x.clone(),
                    None => {
                        let x = std::rc::Rc::new(self.build_xfer(v));
                        self.xfer_cache.insert(k, x.clone());
                        x
                    }
                },
                None => std::rc::Rc::new(self.build_xfer(v)),
            };
            self.xfer[v as usize] = Some(x);
        }
        let x = self.xfer[v as usize].as_deref().expect("built");
        let b = &self.bdd;
        let s0 = self.succ_start[v as usize] as usize;
        let s1 = self.succ_start[v as usize + 1] as usize;
        match x {
            Xfer::Jump { kill } if kill.len() == 1 => {
                let p = b.exists(&d, &kill[0]);
                self.propagate(self.succ[s0], p, false);
            }
            Xfer::Jump { kill } => {
                let outs: Vec<B::F> = kill.iter().map(|k| b.exists(&d, k)).collect();
                for (i, p) in (s0..s1).zip(outs) {
                    let w = self.succ[i];
                    self.propagate(w, p, false);
                }
            }
            Xfer::Branch { t, f, kt, kf } => {
                let (pt, pf) = (b.and_exists(&d, t, kt), b.and_exists(&d, f, kf));
                let (wt, wf) = (self.succ[s0], self.succ[s0 + 1]);
                self.propagate(wt, pt, false);
                self.propagate(wf, pf, false);
            }
            Xfer::Assume { t, kill } => {
                let p = b.and_exists(&d, t, kill);
                self.propagate(self.succ[s0], p, false);
            }
            Xfer::Assert { t, bad, kill } => {
                let p = b.and_exists(&d, t, kill);
                if !b.is_false(&b.and(&d, bad)) && self.seen_asserts.insert(v) {
                    self.found.push(Found::Assertion { v });
                }
                self.propagate(self.succ[s0], p, false);
            }
            Xfer::Update { rel, cube, ren, .. } => {
                let p = b.and_exists_rename(&d, rel, cube, ren);
                self.propagate(self.succ[s0], p, false);
            }
            Xfer::Call(i) => {
                let i = *i as usize;
                let cs = &self.callsites[i];
                let q = cs.callee;
                let mut x = match &cs.seed_cube {
                    Some(cube) => b.and_exists(&d, &cs.argrel_n, cube),
                    None => b.project(&d, &cs.seed_keep),
                };
                x = b.rename(&x, &cs.formal_ren);
                x = b.and(&x, &self.procs[q as usize].entry_init);
                let img = if b.is_false(&cs.sum) {
                    None
                } else {
                    Some(b.and_exists_rename(&d, &cs.sum, &cs.ret_cube, &cs.ret_ren))
                };
                let w = cs.w;
                self.propagate(self.entry(q), x, true);
                if let Some(img) = img {
                    self.propagate(w, img, false);
                }
            }
            Xfer::Return { rel } => {
                let q = self.proc_of[v as usize] as usize;
                let ex = b.and_exists(&d, rel, &self.procs[q].exit_cube);
                let new = b.and_not(&ex, &self.procs[q].exits);
                if b.is_false(&new) {
                    return;
                }
                self.procs[q].exits = self.bdd.or(&self.procs[q].exits, &new);
                let sites = self.procs[q].callsites.clone();
                for i in sites {
                    self.apply_exit(i as usize, &new);
                }
            }
        }
    }

    /// Lifts new exit edges of a callee to call site `i` and applies the new summary edges.
    fn apply_exit(&mut self, i: usize, ex: &B::F) {
        let b = &self.bdd;
        let cs = &self.callsites[i];
        let lifted = b.rename(&b.exists(ex, &cs.lift_pre), &cs.lift_ren);
        let sd = b.and_exists(&lifted, &cs.argrel_e, &cs.formals_e);
        let new = b.and_not(&sd, &cs.sum);
        if b.is_false(&new) {
            return;
        }
        self.summaries += 1;
        let sum = b.or(&cs.sum, &new);
        let img = b.and_exists_rename(
            &self.reached[cs.c as usize],
            &new,
            &cs.ret_cube,
            &cs.ret_ren,
        );
        let w = cs.w;
        self.callsites[i].sum = sum;
        self.propagate(w, img, false);
    }

    /// The lifted summary of call site `cs` for exit relation `ex` (no argument binding yet).
    pub fn lift(&self, cs: &CallSite<B>, ex: &B::F) -> B::F {
        let b = &self.bdd;
        let lifted = b.rename(&b.exists(ex, &cs.lift_pre), &cs.lift_ren);
        b.and_exists(&lifted, &cs.argrel_e, &cs.formals_e)
    }

    /// The number of variables of [`Engine::scope_of`] (without building it).
    pub fn scope_len(&self, v: u32) -> u32 {
        let info = &self.procs[self.proc_of[v as usize] as usize];
        let mut n = info.touched.len() + info.live[self.pc(v) as usize].len();
        if info.called {
            n += info.touched.len() + info.live[0].len();
        }
        n
    }

    /// `Engine::scope_into`, computed once per vertex (the counterexample walk asks for the
    /// scopes of the same vertices again and again). The first time a procedure's vertex is
    /// asked for, the scopes of all its vertices are found: a vertex whose live locals are
    /// those of the vertex before has its scope (the usual case), the others are computed and
    /// shared through the table.
    pub fn scope_of(&self, v: u32) -> std::rc::Rc<[u32]> {
        let mut sc = self.scopes.borrow_mut();
        if sc.id.is_empty() {
            sc.id = vec![NONE; self.proc_of.len()];
        }
        let id = sc.id[v as usize];
        if id != NONE {
            return sc.table[id as usize].clone();
        }
        let q = self.proc_of[v as usize];
        let info = &self.procs[q as usize];
        let base = info.base;
        let mut vars = Vec::new();
        for pc in 0..info.live.len() {
            let u = base + pc as u32;
            if pc > 0 && info.live[pc] == info.live[pc - 1] {
                sc.id[u as usize] = sc.id[u as usize - 1];
                continue;
            }
            self.scope_into(u, &mut vars);
            let id = match sc.index.get(vars.as_slice()) {
                Some(&id) => id,
                None => {
                    let id = sc.table.len() as u32;
                    let s: std::rc::Rc<[u32]> = vars.as_slice().into();
                    sc.index.insert(s.clone(), id);
                    sc.table.push(s);
                    id
                }
            };
            sc.id[u as usize] = id;
        }
        let id = sc.id[v as usize];
        sc.table[id as usize].clone()
    }

    /// The variables a path edge at `v` can mention: touched globals (entry and current),
    /// locals live at the entry (entry copy) and at `v` (current copy); no entry copies in a
    /// procedure nobody calls.
    /// Written into `vars` (cleared first).
    fn scope_into(&self, v: u32, vars: &mut Vec<u32>) {
        vars.clear();
        let q = self.proc_of[v as usize] as usize;
        let info = &self.procs[q];
        let live = &info.live[self.pc(v) as usize];
        // in variable order: the local slots come first, then the globals, and each slot's
        // entry copy right before its current copy
        let entry = &info.live[0];
        for w in 0..entry.words().len().max(live.words().len()) {
            let e = if info.called {
                entry.words().get(w).copied().unwrap_or(0)
            } else {
                0
            };
            let c = live.words().get(w).copied().unwrap_or(0);
            let mut rest = e | c;
            while rest != 0 {
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                let j = w as u32 * 64 + b;
                if e & (1 << b) != 0 {
                    vars.push(self.layout.ev(self.g + j));
                }
                if c & (1 << b) != 0 {
                    vars.push(self.layout.cv(self.g + j));
                }
            }
        }
        for i in info.touched.iter() {
            if info.called {
                vars.push(self.layout.ev(i));
            }
            vars.push(self.layout.cv(i));
        }
        debug_assert!(vars.windows(2).all(|w| w[0] < w[1]));
    }
}

/// The largest frame: locals (formals included) or result temporaries.
pub fn max_frame(p: &zingrs_lang::ir::Program) -> u32 {
    p.procs
        .iter()
        .map(|q| q.locals.len().max(q.returns.len()) as u32)
        .max()
        .unwrap_or(0)
}
