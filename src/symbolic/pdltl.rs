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
//! ([`witness`]): a stem to a repeating head, then a cycle back to the same head, on top of
//! the frames it started on and possibly of new ones (a *pushdown lasso*, which
//! [`crate::search::lasso::check`] verifies).

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

    fn var(&self, s: u32, c: Copy) -> u32 {
        match c {
            Copy::E => self.lay.ev(s),
            Copy::C => self.lay.cv(s),
            Copy::N => self.lay.nv(s),
        }
    }

    fn acc(&self) -> u32 {
        self.g + self.k
    }

    fn local(&self, j: u32) -> u32 {
        self.g + self.k + 1 + j
    }

    /// The number of variables of a head-graph node's set (globals, automaton state,
    /// locals: current copies).
    pub(crate) fn node_vars(&self, _v: u32) -> u32 {
        self.g + self.k + self.l
    }

    /// The program's slots (globals and locals, not the automaton's).
    fn prog_slots(&self) -> impl Iterator<Item = u32> {
        let (g, k, l) = (self.g, self.k, self.l);
        (0..g).chain(g + k + 1..g + k + 1 + l)
    }

    fn atoms(&mut self) {
        let enc = Encoder {
            bdd: &self.b,
            layout: self.lay,
        };
        let un = enc.unprimed();
        let to = |c: Copy| {
            let pairs: Vec<(u32, u32)> = (0..self.g)
                .map(|i| (self.lay.cv(i), self.var(i, c)))
                .collect();
            self.b.renaming(&pairs)
        };
        let (rn, re) = (to(Copy::N), to(Copy::E));
        for a in self.ltl.atoms() {
            match a {
                Atom::Expr(x) => {
                    let t = enc.sets(x, &un).t;
                    self.atom_n.push(Some(self.b.rename(&t, &rn)));
                    self.atom_e.push(Some(self.b.rename(&t, &re)));
                    self.atom_c.push(Some(t));
                }
                Atom::At(_) => {
                    self.atom_c.push(None);
                    self.atom_n.push(None);
                    self.atom_e.push(None);
                }
            }
        }
    }

    /// The location atoms that hold at vertex `v` (`done`: none), one bit each.
    fn loc_mask(&self, v: u32) -> u64 {
        if v == self.done {
            return 0;
        }
        let q = self.proc_of[v as usize];
        let pc = v - self.base[q as usize];
        self.ltl
            .atoms()
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(a, Atom::At(pts) if pts.contains(&(q, pc as Pc))))
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// `copy` holds automaton state `q`.
    fn qis(&self, q: u32, c: Copy) -> F {
        let lits: Vec<(u32, bool)> = (0..self.k)
            .map(|i| (self.var(self.g + i, c), q >> i & 1 == 1))
            .collect();
        self.b.literals(&lits)
    }

    /// The automaton is in an accepting state in `copy`.
    fn fin(&self, c: Copy) -> F {
        let mut f = self.b.constant(false);
        for q in 0..self.ltl.automaton.labels.len() as u32 {
            if self.ltl.accepting(q) {
                f = self.b.or(&f, &self.qis(q, c));
            }
        }
        f
    }

    /// The automaton's move from state `from` to `to` into a model state at a vertex whose
    /// location atoms are `mask`, its globals in copy `gl`.
    fn aut(&mut self, mask: u64, from: Copy, to: Copy, gl: Copy) -> F {
        if let Some(f) = self.aut_cache.get(&(mask, from, to, gl)) {
            return f.clone();
        }
        let b = &self.b;
        let atoms = match gl {
            Copy::C => &self.atom_c,
            Copy::N => &self.atom_n,
            Copy::E => &self.atom_e,
        };
        let nq = self.ltl.automaton.labels.len() as u32;
        let label = |q: u32| {
            let lab = self.ltl.automaton.labels[q as usize];
            let mut f = b.constant(true);
            for (i, a) in atoms.iter().enumerate() {
                let (pos, neg) = (lab.pos >> i & 1 == 1, lab.neg >> i & 1 == 1);
                if !pos && !neg {
                    continue;
                }
                let holds = match a {
                    Some(x) => x.clone(),
                    None => b.constant(mask >> i & 1 == 1),
                };
                f = b.and(&f, &if pos { holds } else { b.not(&holds) });
            }
            f
        };
        let labels: Vec<F> = (0..nq).map(label).collect();
        let mut rel = b.constant(false);
        for q in 0..nq {
            let mut tos = b.constant(false);
            for &r in &self.ltl.automaton.succ[q as usize] {
                tos = b.or(&tos, &b.and(&self.qis(r, to), &labels[r as usize]));
            }
            rel = b.or(&rel, &b.and(&self.qis(q, from), &tos));
        }
        self.aut_cache.insert((mask, from, to, gl), rel.clone());
        rel
    }

    /// A step into vertex `w`: the automaton moves reading the next copies, and the bit is
    /// set if it enters an accepting state.
    fn step_into(&mut self, w: u32) -> F {
        let mask = self.loc_mask(w);
        let a = self.aut(mask, Copy::C, Copy::N, Copy::N);
        let b = &self.b;
        let acc = self.acc();
        let bit = b.equiv(
            &b.var(self.lay.nv(acc)),
            &b.or(&b.var(self.lay.cv(acc)), &self.fin(Copy::N)),
        );
        b.and(&a, &bit)
    }

    /// `N = C` on `slots`.
    fn same(&self, slots: impl Iterator<Item = u32>) -> F {
        let mut s: Vec<u32> = slots.collect();
        s.sort_by_key(|&x| std::cmp::Reverse(self.lay.cv(x)));
        let mut f = self.b.constant(true);
        for x in s {
            let eq = self
                .b
                .equiv(&self.b.var(self.lay.nv(x)), &self.b.var(self.lay.cv(x)));
            f = self.b.and(&eq, &f);
        }
        f
    }

    fn slot(&self, lv: &LValue) -> u32 {
        match lv {
            LValue::Global(i) => *i,
            LValue::Local(j) => self.local(*j),
            _ => unreachable!("applies() rejects non-boolean lvalues"),
        }
    }

    /// The relations of every vertex and call site.
    fn build(&mut self) {
        let p = self.m.program;
        let enc_lay = self.lay;
        let un = move |gl: bool, i: u32| {
            if gl {
                enc_lay.cv(i)
            } else {
                enc_lay.cv(enc_lay.g + i)
            }
        };
        let main = p.activations[0];
        let prog_n: Vec<u32> = {
            let mut v: Vec<u32> = self.prog_slots().map(|s| self.lay.nv(s)).collect();
            v.sort_unstable();
            v
        };
        let cube_prog_n = self.b.cube(&prog_n);
        for (q, proc) in p.procs.iter().enumerate() {
            let q = q as ProcId;
            for (pc, node) in proc.nodes.iter().enumerate() {
                let v = self.base[q as usize] + pc as u32;
                let succs: Vec<u32> = model::successors(p, q, pc as Pc)
                    .into_iter()
                    .map(|s| self.base[q as usize] + s)
                    .collect();
                let enc = Encoder {
                    bdd: &self.b,
                    layout: self.lay,
                };
                let mut prog: Vec<(u32, F)> = Vec::new();
                match &node.stmt {
                    Stmt::Skip | Stmt::Goto => {
                        let id = self.same(self.prog_slots());
                        prog.extend(succs.iter().map(|&w| (w, id.clone())));
                    }
                    Stmt::Branch { cond } => {
                        let s = enc.sets(cond, &un);
                        let id = self.same(self.prog_slots());
                        prog.push((succs[0], self.b.and(&s.t, &id)));
                        prog.push((succs[1], self.b.and(&s.f, &id)));
                    }
                    Stmt::Assume { cond } | Stmt::Assert { cond } => {
                        // a checked assertion cannot fail here: safety was checked first
                        let s = enc.sets(cond, &un);
                        let id = self.same(self.prog_slots());
                        prog.push((succs[0], self.b.and(&s.t, &id)));
                    }
                    Stmt::Assign {
                        targets,
                        values,
                        constrain,
                    } => {
                        let mut tslots: Vec<u32> = Vec::new();
                        let mut rel = self.b.constant(true);
                        for (i, t) in targets.iter().enumerate().rev() {
                            let Some(t) = t else { continue };
                            let s = self.slot(t);
                            if tslots.contains(&s) {
                                continue;
                            }
                            tslots.push(s);
                            rel = self
                                .b
                                .and(&rel, &enc.takes(self.lay.nv(s), &values[i], &un));
                        }
                        if let Some(c) = constrain {
                            let primed = |gl: bool, i: u32| {
                                let s = if gl { i } else { self.local(i) };
                                if tslots.contains(&s) {
                                    self.lay.nv(s)
                                } else {
                                    self.lay.cv(s)
                                }
                            };
                            rel = self.b.and(&rel, &enc.sets(c, &primed).t);
                        }
                        let id = self.same(self.prog_slots().filter(|s| !tslots.contains(s)));
                        prog.push((succs[0], self.b.and(&rel, &id)));
                    }
                    Stmt::Havoc { targets } => {
                        let ts: Vec<u32> = targets.iter().map(|t| self.slot(t)).collect();
                        let id = self.same(self.prog_slots().filter(|s| !ts.contains(s)));
                        prog.push((succs[0], id));
                    }
                    Stmt::Constrain { expr } => {
                        let nloc = proc.locals.len() as u32;
                        let primed = |gl: bool, i: u32| {
                            if gl {
                                self.lay.nv(i)
                            } else {
                                self.lay.nv(self.local(i))
                            }
                        };
                        let rel = enc.sets(expr, &primed).t;
                        let (g, lo) = (self.g, self.local(nloc));
                        let id = self.same(self.prog_slots().filter(|&s| s >= g && s >= lo));
                        prog.push((succs[0], self.b.and(&rel, &id)));
                    }
                    Stmt::Call {
                        callee,
                        args,
                        results,
                    } => {
                        let site = self.site(v, succs[0], *callee, args, results);
                        self.site_of[v as usize] = self.sites.len() as u32;
                        self.sites_of[*callee as usize].push(self.sites.len() as u32);
                        self.sites.push(site);
                        continue;
                    }
                    Stmt::Return { .. } if q == main => {
                        // the run ends: the thread has no frame left
                        let mut rel = self.same(0..self.g);
                        let lits: Vec<(u32, bool)> = (0..self.l)
                            .map(|j| (self.lay.nv(self.local(j)), false))
                            .collect();
                        rel = self.b.and(&rel, &self.b.literals(&lits));
                        prog.push((self.done, rel));
                    }
                    Stmt::Return { .. } => continue,
                    _ => unreachable!("applies() rejects concurrent and non-boolean programs"),
                }
                // where no statement outcome exists, the run ends: a stutter edge
                let mut en = self.b.constant(false);
                for (_, r) in &prog {
                    en = self.b.or(&en, &self.b.exists(r, &cube_prog_n));
                }
                let stuck = self.b.not(&en);
                if self.stutter && !self.b.is_false(&stuck) {
                    let id = self.same(self.prog_slots());
                    prog.push((v, self.b.and(&stuck, &id)));
                }
                for (w, r) in prog {
                    let st = self.step_into(w);
                    let rel = self.b.and(&r, &st);
                    self.edges[v as usize].push(Edge { to: w, rel });
                }
            }
        }
        // the finished run stutters
        let id = self.same(self.prog_slots());
        let st = self.step_into(self.done);
        let rel = self.b.and(&id, &st);
        if self.stutter {
            self.edges[self.done as usize].push(Edge { to: self.done, rel });
        }
    }

    fn site(
        &mut self,
        c: u32,
        w: u32,
        callee: ProcId,
        args: &[Expr],
        results: &[Option<LValue>],
    ) -> Site {
        let p = self.m.program;
        let qp = &p.procs[callee as usize];
        let lay = self.lay;
        let un = move |gl: bool, i: u32| {
            if gl {
                lay.cv(i)
            } else {
                lay.cv(lay.g + i)
            }
        };
        let entry = self.base[callee as usize];
        let mask_entry = self.loc_mask(entry);
        let mask_w = self.loc_mask(w);
        let a_push = self.aut(mask_entry, Copy::C, Copy::N, Copy::N);
        let a_link = self.aut(mask_entry, Copy::C, Copy::E, Copy::E);
        let a_ret = self.aut(mask_w, Copy::E, Copy::N, Copy::N);
        let fin_n = self.fin(Copy::N);
        let b = &self.b;
        let enc = Encoder {
            bdd: b,
            layout: lay,
        };
        let acc = self.acc();
        // entering: globals kept, formals bound, other locals initialised
        let mut push = self.same(0..self.g);
        let mut link = b.constant(true);
        for j in (0..self.g).rev() {
            link = b.and(&b.equiv(&b.var(lay.ev(j)), &b.var(lay.cv(j))), &link);
        }
        for (j, a) in args.iter().enumerate().rev() {
            let s = self.local(j as u32);
            push = b.and(&enc.takes(lay.nv(s), a, &un), &push);
            link = b.and(&enc.takes(lay.ev(s), a, &un), &link);
        }
        let mut init = Vec::new();
        for j in qp.params..self.l {
            let fixed = match qp.locals.get(j as usize) {
                Some(v) => model::fixed_init(v.init),
                None => Some(false),
            };
            if let Some(val) = fixed {
                init.push((lay.nv(self.local(j)), val));
            }
        }
        push = b.and(&push, &b.literals(&init));
        push = b.and(&push, &a_push);
        push = b.and(&push, &b.equiv(&b.var(lay.nv(acc)), &fin_n));
        link = b.and(&link, &a_link);
        // returning: result k sits in the next copy of local slot k
        let nret = qp.returns.len() as u32;
        let mut recv: Vec<Option<u32>> = (0..nret)
            .map(|i| {
                results
                    .get(i as usize)
                    .and_then(|r| r.as_ref())
                    .map(|lv| self.slot(lv))
            })
            .collect();
        for i in (0..recv.len()).rev() {
            if let Some(s) = recv[i] {
                if recv[i + 1..].contains(&Some(s)) {
                    recv[i] = None;
                }
            }
        }
        let global_recv: Vec<u32> = recv
            .iter()
            .flatten()
            .filter(|&&s| s < self.g)
            .map(|&s| lay.nv(s))
            .collect();
        let mut park: Vec<(u32, u32)> = (0..nret)
            .map(|i| (lay.nv(self.local(i)), lay.ev(self.local(i))))
            .collect();
        for i in self.g..=acc {
            park.push((lay.nv(i), lay.ev(i)));
        }
        let mut park_cube: Vec<u32> = park.iter().map(|x| x.1).collect();
        park_cube.sort_unstable();
        let recv_slots: Vec<u32> = recv.iter().flatten().copied().collect();
        let mut ret = self.same(
            (0..self.l)
                .map(|j| self.local(j))
                .filter(|s| !recv_slots.contains(s)),
        );
        for (i, r) in recv.iter().enumerate() {
            if let Some(s) = r {
                let eq = b.equiv(&b.var(lay.nv(*s)), &b.var(lay.ev(self.local(i as u32))));
                ret = b.and(&ret, &eq);
            }
        }
        ret = b.and(&ret, &a_ret);
        let bit = b.or(&b.or(&b.var(lay.cv(acc)), &b.var(lay.ev(acc))), &fin_n);
        ret = b.and(&ret, &b.equiv(&b.var(lay.nv(acc)), &bit));
        Site {
            c,
            w,
            callee,
            push,
            link,
            global_recv: b.cube(&{
                let mut v = global_recv;
                v.sort_unstable();
                v
            }),
            park: b.renaming(&park),
            park_cube: b.cube(&park_cube),
            ret,
            sum: b.constant(false),
        }
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
            let lab = self.ltl.automaton.labels[q as usize];
            let mut f = self.qis(q, Copy::C);
            for (i, a) in self.atom_c.iter().enumerate() {
                let (pos, neg) = (lab.pos >> i & 1 == 1, lab.neg >> i & 1 == 1);
                if !pos && !neg {
                    continue;
                }
                let holds = match a {
                    Some(x) => x.clone(),
                    None => b.constant(mask >> i & 1 == 1),
                };
                f = b.and(&f, &if pos { holds } else { b.not(&holds) });
            }
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
