//! Context bounding over product states, for either layout when no thread recurses
//! (issue 15; the published lock-free programs are of this kind).
//!
//! §5's path edges keep the globals at every switch so far, and on programs whose threads
//! interleave richly those histories multiply (SafeStack: sevenfold per context). When a
//! thread does not recurse, its calls can be inlined ([`flat`]) and its whole state is its
//! pc and the locals of its instances, so the concurrent program
//! can be written as one sequential procedure over the product of the threads' states: each
//! thread's locals and pc become globals, and context c of thread t runs copy c of its code.
//! A switch before node v (at [`Machine::switch_point`]s only, with `atomic` false, or where
//! the thread ends) stores v in the thread's pc, gives the locals dead at v any value, and
//! jumps to a dispatch tree of copy c + 1 that tests another thread's pc bit by bit and
//! resumes it there. The sequential engine then runs unchanged, lowest vertex first
//! ([`Engine::ordered`]): the copies are numbered in context order, so each context is
//! complete before the next starts. No history is kept: a path edge holds the states of all
//! threads at once, so its size follows the number of distinct states, not of schedules.
//!
//! A state reached at a statement where a thread is resumed, in context c − 2, is not added
//! at the same statement of context c ([`Engine::shadow`]): it reaches from there everything
//! it would reach here, with two switches to spare. Two contexts back, not one: with two
//! threads the thread that runs in context c ran in c − 2, and on fib-bp 9 at K = 16 the
//! states of c − 1 never held one of c's, while subtracting them made the path edges larger
//! (2.6 s against 1.5 s without any subtraction, 0.5 s with c − 2's). Only there: every
//! state of a context arrives at such a statement (resumed) or follows from one that did by
//! the thread's own steps, so a state pruned there takes its successors with it. Pruning
//! at every node as well costs a subtraction per node and catches only states that two
//! different states step to (fib-bp 9 at K = 16: 0.52 s against 0.45 s; SafeStack at K =
//! 3 / 4: 3.5 / 15.5 s against 3.7 / 14.4 s). The program's globals come in
//! [`order::globals`]' order, as its statements relate them.
//!
//! The standard layout's threads (slots, [`super::standard`]) start differently: context 0
//! is `main`'s; a switch into a created slot first assumes its `%started` flag; the creation
//! writes the slot's first locals directly (its `%arg` globals are those locals here); and
//! a thread that ends releases `%atomic`.
//!
//! Counterexamples are the sequential engine's own (walked back from the path edges and
//! matched against `runtime::step` on the product program), then run again on the original
//! program, each step of a thread matched against the next product state.

mod complete;
mod flat;
mod trace;

use complete::{cut, saturated};
use trace::counterexample;

use super::standard::bool_global as var;
use super::{bits_for, context_label, thread_label, Shape, Tids};
use crate::runtime::Machine;
use crate::search::{self, Replayed, SearchResult, SearchStats};
use crate::symbolic::bdd::Bdds;
use crate::symbolic::model::{live_locals, Bits};
use crate::symbolic::reach::{Engine, Found, NONE};
use crate::symbolic::{order, SymbolicOptions};
use std::time::Instant;
use zingrs_lang::ir::{
    BinOp, Const, Expr, Init, LValue, Layout, Node, Pc, Proc, ProcId, Program, Stmt, UnOp,
};

/// Where a procedure's variables go in the product program.
struct Map<'a> {
    globals: &'a [u32],
    /// The global each local becomes.
    locals: &'a [u32],
}

impl Map<'_> {
    fn expr(&self, e: &mut Expr) {
        zingrs_lang::deep::grow(|| self.expr_here(e))
    }
    fn expr_here(&self, e: &mut Expr) {
        match e {
            Expr::Global(i) | Expr::PrimedGlobal(i) => *i = self.globals[*i as usize],
            Expr::Local(i) => *e = Expr::Global(self.locals[*i as usize]),
            Expr::PrimedLocal(i) => *e = Expr::PrimedGlobal(self.locals[*i as usize]),
            e => e.for_each_child_mut(|c| self.expr(c)),
        }
    }
    fn lv(&self, lv: &mut LValue) {
        match lv {
            LValue::Global(i) => *i = self.globals[*i as usize],
            LValue::Local(i) => *lv = LValue::Global(self.locals[*i as usize]),
            LValue::PassiveLocal(_) | LValue::Field(..) | LValue::Elem(..) => {}
        }
    }
    /// Rewrites the statements [`crate::symbolic::sequential_parts_apply`] admits.
    fn node(&self, n: &mut Node) {
        if let Some(i) = &mut n.invariant {
            self.expr(i);
        }
        match &mut n.stmt {
            Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => {
                self.expr(cond)
            }
            // `contexts::shape` made every stand-alone constrain an assignment of the
            // variables its procedure sees (here, it would also change the added globals)
            Stmt::Constrain { .. } => unreachable!("a stand-alone constrain left in the shape"),
            Stmt::Assign {
                targets,
                values,
                constrain,
            } => {
                targets.iter_mut().flatten().for_each(|t| self.lv(t));
                values.iter_mut().for_each(|v| self.expr(v));
                if let Some(c) = constrain {
                    self.expr(c);
                }
            }
            Stmt::Havoc { targets } => targets.iter_mut().for_each(|t| self.lv(t)),
            Stmt::Call { args, results, .. } => {
                args.iter_mut().for_each(|a| self.expr(a));
                results.iter_mut().flatten().for_each(|t| self.lv(t));
            }
            Stmt::Return { values } => values.iter_mut().flatten().for_each(|v| self.expr(v)),
            _ => {}
        }
    }
}

fn node(stmt: Stmt, succ: Vec<Pc>) -> Node {
    Node {
        stmt,
        succ,
        span: Default::default(),
        labels: Vec::new(),
        invariant: None,
        glue: Default::default(),
    }
}

fn not(a: Expr) -> Expr {
    Expr::Unary(UnOp::Not, Box::new(a))
}

fn tt(b: bool) -> Expr {
    Expr::Const(Const::Bool(b))
}

/// What a node of the product procedure stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// The scheduling around the threads' code: choices, switches, dispatch.
    Aux,
    /// `init`'s node at the same pc.
    Init,
    /// Thread `thread` is at its node `v` (a choice between running it and a switch, or a
    /// return, where the thread ends).
    At { thread: usize, v: Pc },
    /// Thread `thread` runs its node `v`.
    Runs { thread: usize, v: Pc },
}

/// The product program and what its nodes stand for.
struct Product {
    program: Program,
    /// The product procedure.
    proc: ProcId,
    role: Vec<Role>,
    /// Per node of the product procedure: its context, for a thread's node.
    layer: Vec<Option<u32>>,
    /// Per node of the product procedure: for a statement where a thread is resumed, the
    /// same statement two contexts earlier; else [`NONE`] (see [`Engine::shadow`]).
    shadow: Vec<u32>,
    /// The product global of each global of the program.
    gmap: Vec<u32>,
    /// Per thread: its code, calls inlined.
    flats: Vec<flat::Flat>,
    /// The product global of each of `init`'s locals.
    imap: Vec<u32>,
    /// Per thread: the bits of its pc (the code past its last node: "ended").
    pcbits: Vec<Vec<u32>>,
    /// Per procedure (of the threads): the locals live before each of its nodes.
    live: Vec<Vec<Bits>>,
    /// The nodes of the last context where a switch would happen under a larger bound:
    /// (node, thread, whether the thread ends there).
    last: Vec<(u32, usize, bool)>,
    /// Per context and thread: the first of the dispatch leaves, one per node of the thread
    /// (the leaf for node v leads to the statement where the thread is resumed at v).
    leaves: Vec<Vec<u32>>,
}

/// The nodes of the product procedure, built in context order.
struct Builder {
    nodes: Vec<Node>,
    role: Vec<Role>,
    layer: Vec<Option<u32>>,
}

impl Builder {
    fn push(&mut self, n: Node, role: Role, layer: Option<u32>) -> u32 {
        self.nodes.push(n);
        self.role.push(role);
        self.layer.push(layer);
        self.nodes.len() as u32 - 1
    }
    fn reserve(&mut self, k: u32, role: Role, layer: Option<u32>) -> u32 {
        let at = self.nodes.len() as u32;
        for _ in 0..k {
            self.push(node(Stmt::Skip, vec![]), role, layer);
        }
        at
    }
    /// A binary tree testing `bits` (most significant first) down to `leaf0 + code`, or
    /// `dead` past the last code.
    fn tree(
        &mut self,
        bits: &[u32],
        depth: usize,
        prefix: u64,
        n: u64,
        to: (u32, u32),
        c: u32,
    ) -> u32 {
        let (leaf0, dead) = to;
        let nb = bits.len();
        if depth == nb {
            return if prefix < n {
                leaf0 + prefix as u32
            } else {
                dead
            };
        }
        if prefix << (nb - depth) >= n {
            return dead;
        }
        let one = self.tree(bits, depth + 1, prefix << 1 | 1, n, to, c);
        let zero = self.tree(bits, depth + 1, prefix << 1, n, to, c);
        let cond = Expr::Global(bits[nb - 1 - depth]);
        // a side that leads only to `dead` is cut here, so that the states of threads that
        // ended are not gathered at `dead` for nothing
        let stmt = match (one == dead, zero == dead) {
            (false, false) => Stmt::Branch { cond },
            (false, true) => Stmt::Assume { cond },
            (true, false) => Stmt::Assume { cond: not(cond) },
            (true, true) => return dead,
        };
        let succ = match stmt {
            Stmt::Branch { .. } => vec![one, zero],
            _ => vec![if one == dead { zero } else { one }],
        };
        self.push(node(stmt, succ), Role::Aux, Some(c))
    }
}

/// Whether thread code `f` ends at its node `v`: its own return, or the standard layout's
/// `end_thread`.
fn ends_at(shape: &Shape, f: &flat::Flat, v: usize) -> bool {
    let (inst, pc) = f.at[v];
    let q = f.insts[inst as usize].proc;
    // (a callee's returns are not its caller's end: the flat code made them assignments)
    matches!(f.nodes[v].stmt, Stmt::Return { .. })
        || (shape.ending.contains(&(q, pc))
            && !matches!(
                shape.pre.procs[q as usize].nodes[pc as usize].stmt,
                Stmt::Return { .. }
            ))
}

/// Whether the product search applies: no thread recurses.
pub(super) fn applies(shape: &Shape) -> bool {
    (0..shape.starts.len()).all(|j| {
        let (q, _) = shape.starts[j];
        let gmap: Vec<u32> = (0..shape.pre.globals.len() as u32).collect();
        flat::flatten(
            &shape.pre,
            q,
            j,
            &gmap,
            &shape.unswitchable,
            &mut Vec::new(),
        )
        .is_some()
    })
}

/// The product program for bound `k`; `point(q, pc)`: may a context end before `pc` of `q`.
fn sequentialize(shape: &Shape, k: u32, point: &dyn Fn(ProcId, Pc) -> bool) -> Option<Product> {
    let pre = &shape.pre;
    let threads = shape.starts.len();
    // the order: the threads' pcs, their locals, the program's globals, init's locals. The
    // pcs' widths depend on the inlined code, so each thread is inlined once to count its
    // nodes and once more with the final numbering
    let g = pre.globals.len() as u32;
    let same: Vec<u32> = (0..g).collect();
    let mut globals = Vec::new();
    let mut pcbits: Vec<Vec<u32>> = Vec::new();
    let mut nlocals = Vec::new();
    for (j, &(q, pc)) in shape.starts.iter().enumerate() {
        let mut locals = Vec::new();
        let counted = flat::flatten(pre, q, j, &same, &shape.unswitchable, &mut locals)?;
        nlocals.push(locals.len() as u32);
        let n = counted.nodes.len() as u64;
        let bits = (0..bits_for(n + 1))
            .map(|b| {
                let start = Init::Value(Const::Bool(pc as u64 >> b & 1 == 1));
                globals.push(var(format!("%pc{j}.{b}"), start));
                globals.len() as u32 - 1
            })
            .collect();
        pcbits.push(bits);
    }
    // each thread's locals, its first instance's first (see `flat::instance`)
    let first_local: Vec<u32> = nlocals
        .iter()
        .scan(globals.len() as u32, |at, &n| {
            let first = *at;
            *at += n;
            Some(first)
        })
        .collect();
    let gbase = globals.len() as u32 + nlocals.iter().sum::<u32>();
    // the program's globals in the order its statements relate them
    let rank = order::globals(pre);
    let mut gmap: Vec<u32> = rank.iter().map(|&r| gbase + r).collect();
    // the standard layout's creations write a new thread's first locals into globals, which
    // the thread copies when it first runs: here the creation writes the locals themselves
    // (the thread's locals are globals, which no one else touches before it runs, and each
    // slot has globals of its own)
    for (j, copies) in shape.copies.iter().enumerate() {
        for &(l, x) in copies {
            gmap[x as usize] = first_local[j] + l;
        }
    }
    let mut flats = Vec::new();
    for (j, &(q, _)) in shape.starts.iter().enumerate() {
        flats.push(flat::flatten(
            pre,
            q,
            j,
            &gmap,
            &shape.unswitchable,
            &mut globals,
        )?);
    }
    debug_assert_eq!(globals.len() as u32, gbase);
    debug_assert!(shape.copies.iter().enumerate().all(|(j, c)| c
        .iter()
        .all(|&(l, _)| flats[j].insts[0].locals[l as usize] == first_local[j] + l)));
    let mut ordered = pre.globals.clone();
    for (x, v) in pre.globals.iter().enumerate() {
        ordered[rank[x] as usize] = v.clone();
    }
    globals.extend(ordered);
    let imap: Vec<u32> = shape
        .init
        .map_or(&[][..], |(init, _)| &pre.procs[init as usize].locals[..])
        .iter()
        .map(|l| {
            globals.push(var(format!("%init.{}", l.name), l.init));
            globals.len() as u32 - 1
        })
        .collect();
    let live: Vec<Vec<Bits>> = (0..pre.procs.len() as ProcId)
        .map(|q| {
            let used = flats.iter().any(|f| f.insts.iter().any(|i| i.proc == q));
            if used {
                live_locals(pre, q)
            } else {
                Vec::new()
            }
        })
        .collect();
    let atomic = shape.atomic.map(|a| gmap[a as usize]);

    let mut b = Builder {
        nodes: Vec::new(),
        role: Vec::new(),
        layer: Vec::new(),
    };
    // the program's start: `init`'s nodes (Getafix), or one that starts `main` (standard)
    match shape.init {
        Some((init, _)) => b.reserve(
            pre.procs[init as usize].nodes.len() as u32,
            Role::Init,
            None,
        ),
        None => b.push(node(Stmt::Goto, vec![]), Role::Aux, None),
    };
    let dead = b.push(
        node(Stmt::Assume { cond: tt(false) }, vec![]),
        Role::Aux,
        None,
    );
    b.nodes[dead as usize].succ = vec![dead];
    let mut roots: Vec<Vec<u32>> = Vec::new();
    // per context: (switch node, thread) to be sent to the next context's dispatch
    let mut outs: Vec<Vec<(u32, usize)>> = Vec::new();
    let mut dispatch: Vec<Vec<u32>> = Vec::new();
    let mut last = Vec::new();
    // per context and thread: the statement each node moves to where the thread is resumed
    // there (or NONE), whose shadow is the same statement two contexts earlier (see
    // `Product::shadow`)
    let mut moved_at: Vec<Vec<Vec<u32>>> = Vec::new();
    let mut shadow = Vec::new();
    let mut leaves = Vec::new();
    for c in 0..=k {
        let mut layer_leaves = Vec::new();
        let mut layer_roots = Vec::new();
        let mut layer_outs = Vec::new();
        let mut dispatch_c = Vec::new();
        let mut layer_moved = Vec::new();
        for (j, f) in flats.iter().enumerate() {
            let n = f.nodes.len() as u32;
            // resuming: the tree, then a leaf per node that forgets the pc
            let leaf0 = b.reserve(n, Role::Aux, Some(c));
            layer_leaves.push(leaf0);
            let tree = b.tree(&pcbits[j], 0, 0, n as u64, (leaf0, dead), c);
            // a thread the standard layout creates runs once it is created
            layer_roots.push(match shape.created[j] {
                Some(x) => {
                    let cond = Expr::Global(gmap[x as usize]);
                    b.push(node(Stmt::Assume { cond }, vec![tree]), Role::Aux, Some(c))
                }
                None => tree,
            });
            let nb = b.reserve(n, Role::Aux, Some(c));
            let mut moved_j = vec![NONE; n as usize];
            let forget: Vec<LValue> = pcbits[j].iter().map(|&x| LValue::Global(x)).collect();
            for v in 0..n {
                b.nodes[(leaf0 + v) as usize] = node(
                    Stmt::Havoc {
                        targets: forget.clone(),
                    },
                    vec![nb + v],
                );
            }
            for (v, orig) in f.nodes.iter().enumerate() {
                let v = v as Pc;
                let at = (nb + v) as usize;
                let mut nn = orig.clone();
                let (inst, pc) = f.at[v as usize];
                let inst = &f.insts[inst as usize];
                let ending = ends_at(shape, f, v as usize);
                if ending {
                    // the thread ends here: it is only left
                    nn.stmt = Stmt::Goto;
                    nn.succ = vec![];
                    b.role[at] = Role::At { thread: j, v };
                } else {
                    nn.succ = orig.succ.iter().map(|&s| nb + s).collect();
                    b.role[at] = Role::Runs { thread: j, v };
                }
                b.nodes[at] = nn;
                if inst.atomic || !(ending || point(inst.proc, pc)) {
                    continue;
                }
                // where a thread may be left, and resumed: the node becomes a choice between
                // its statement (moved) and a switch. `enforce` is checked where the thread's
                // own step arrives (the choice), never on resuming (the moved statement):
                // only the thread that moves is checked (bp-language §5.7)
                // (the labels stay on both: a thread resumed at a label, or started at one,
                // is there)
                if !ending {
                    // (moved, not cloned: the statements of fib-bp are large expressions)
                    let mut body = std::mem::replace(&mut b.nodes[at], node(Stmt::Goto, vec![]));
                    let invariant = body.invariant.take();
                    let labels = body.labels.clone();
                    let moved = b.push(body, Role::Runs { thread: j, v }, Some(c));
                    moved_j[v as usize] = moved;
                    if c >= 2 {
                        shadow.push((moved, moved_at[c as usize - 2][j][v as usize]));
                    }
                    let choice = &mut b.nodes[at];
                    choice.succ = vec![moved];
                    choice.labels = labels;
                    choice.invariant = invariant;
                    b.role[at] = Role::At { thread: j, v };
                    b.nodes[(leaf0 + v) as usize].succ = vec![moved];
                }
                if c == k {
                    last.push((at as u32, j, ending));
                    continue;
                }
                // a switch before v: assume the lock is free, store v (or "ended") in the
                // pc, forget the dead locals (and release the lock where the standard
                // layout's thread ends), go to the next context's dispatch
                let cond = match (atomic, ending) {
                    (Some(a), false) => not(Expr::Global(a)),
                    _ => tt(true),
                };
                let code = if ending { n as u64 } else { v as u64 };
                let mut targets: Vec<Option<LValue>> = Vec::new();
                let mut values = Vec::new();
                for (i, &x) in pcbits[j].iter().enumerate() {
                    targets.push(Some(LValue::Global(x)));
                    values.push(tt(code >> i & 1 == 1));
                }
                for (l, &x) in inst.locals.iter().enumerate() {
                    if ending || !live[inst.proc as usize][pc as usize].contains(l as u32) {
                        targets.push(Some(LValue::Global(x)));
                        values.push(Expr::Nondet);
                    }
                }
                if let (Some(a), true, true) = (atomic, ending, shape.release_on_end) {
                    targets.push(Some(LValue::Global(a)));
                    values.push(tt(false));
                }
                let store = Stmt::Assign {
                    targets,
                    values,
                    constrain: None,
                };
                let xb = b.push(node(store, vec![]), Role::Aux, Some(c));
                let xa = b.push(node(Stmt::Assume { cond }, vec![xb]), Role::Aux, Some(c));
                layer_outs.push((xb, j));
                b.nodes[at].succ.push(xa);
            }
            layer_moved.push(moved_j);
        }
        // the dispatch out of context c comes right after its code
        for _ in &flats {
            dispatch_c.push(b.push(node(Stmt::Goto, vec![]), Role::Aux, Some(c)));
        }
        moved_at.push(layer_moved);
        leaves.push(layer_leaves);
        dispatch.push(dispatch_c);
        roots.push(layer_roots);
        outs.push(layer_outs);
    }
    for c in 0..k as usize {
        for &(xb, j) in &outs[c] {
            b.nodes[xb as usize].succ = vec![dispatch[c][j]];
        }
        for (j, &d) in dispatch[c].iter().enumerate() {
            let others = (0..threads).filter(|&u| u != j).map(|u| roots[c + 1][u]);
            b.nodes[d as usize].succ = others.collect();
        }
    }
    // the threads start only where every one's `enforce` at its first node may hold, as
    // the interpreter creates them (in the standard layout, only `main`'s can be under one:
    // `standard::shape` refuses the rest)
    let starts_hold = flats
        .iter()
        .zip(&shape.starts)
        .filter_map(|(f, &(_, pc))| f.nodes[pc as usize].invariant.clone())
        .reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b)));
    // context 0: any thread after `init` (Getafix), `main` (standard)
    let first = match shape.init {
        Some(_) => roots[0].clone(),
        None => vec![roots[0][0]],
    };
    let to_threads = match starts_hold {
        // (an `assume` has one successor: the choice of the first thread comes after it)
        Some(cond) => {
            let choose = b.push(node(Stmt::Goto, first), Role::Aux, None);
            vec![b.push(node(Stmt::Assume { cond }, vec![choose]), Role::Aux, None)]
        }
        None => first,
    };
    match shape.init {
        // init, whose `endinit` starts the threads
        Some((init, endinit)) => {
            let m = Map {
                globals: &gmap,
                locals: &imap,
            };
            for (pc, n) in pre.procs[init as usize].nodes.iter().enumerate() {
                let mut nn = n.clone();
                if pc as Pc == endinit {
                    nn.stmt = Stmt::Goto;
                    nn.succ = to_threads.clone();
                } else {
                    m.node(&mut nn);
                }
                b.nodes[pc] = nn;
            }
        }
        None => b.nodes[0].succ = to_threads,
    }
    let mut program = pre.clone();
    program.globals = globals;
    // the procedures `init` calls run as they are, over the new globals
    super::remap::remap_program(&mut program, &gmap);
    let proc = program.procs.len() as ProcId;
    program.procs.push(Proc {
        name: "%product".into(),
        params: 0,
        locals: Vec::new(),
        returns: Vec::new(),
        atomic: false,
        nodes: b.nodes,
        span: Default::default(),
        tries: Vec::new(),
    });
    program.activations = vec![proc];
    program.layout = Layout::Standard;
    Some(Product {
        program,
        proc,
        shadow: {
            let mut by = vec![NONE; b.role.len()];
            for (x, y) in shadow {
                by[x as usize] = y;
            }
            by
        },
        role: b.role,
        layer: b.layer,
        gmap,
        flats,
        imap,
        pcbits,
        live,
        last,
        leaves,
    })
}

/// The context-bounded search over product states, or `None` where it does not apply (see
/// [`applies`]): `m` runs the original program.
pub(super) fn search(
    m: &Machine,
    shape: &Shape,
    opts: &search::Options,
    sym: &SymbolicOptions,
    k: u32,
) -> Option<(SearchResult, Vec<Option<Replayed>>)> {
    let start = Instant::now();
    // (`pre`'s procedures copy the program's: the standard layout's threads run copies)
    let prod = sequentialize(shape, k, &|q, pc| {
        m.switch_point(shape.orig[q as usize], pc)
    })?;
    // (the product numbers nodes anew: `check --property` and `--coverage` refuse the bdd
    // engine under a context bound, so no selection is lost here)
    let pm = Machine::new(
        &prod.program,
        crate::runtime::Semantics {
            selection: None,
            coverage: None,
            ..m.semantics.clone()
        },
    );
    let nodes = prod.role.len();
    let bdd = crate::symbolic::manager_for(
        &prod.program,
        &opts.limits,
        nodes.next_power_of_two().clamp(1 << 18, 1 << 22),
    );
    let _gc = bdd.manager_guard();
    let mut e = Engine::new(&pm, bdd, *sym, &opts.targets);
    e.ordered = true;
    let base = e.entry(prod.proc);
    e.shadow = vec![NONE; e.reached.len()];
    for (n, &y) in prod.shadow.iter().enumerate() {
        if y != NONE {
            e.shadow[(base + n as u32) as usize] = base + y;
        }
    }
    let opts = &search::Options {
        keep_going: false,
        ..opts.clone()
    };
    let limit = e.run(opts);
    let context_cut =
        limit.is_none() && e.found.is_empty() && cut(&e, &prod, shape) && !saturated(&e, &prod, k);
    let mut result = SearchResult {
        limit,
        context_cut,
        ..Default::default()
    };
    let mut replays = Vec::new();
    if let Some(&f) = e.found.first() {
        // the contexts are completed in order and the search stops at its first finding: the
        // context it was found in is the fewest switches any error needs
        let (Found::Target { v, .. } | Found::Assertion { v }) = f;
        result.fewest_switches = Some(prod.layer[(v - base) as usize].unwrap_or(0));
        let built = counterexample(&e, &prod, shape, m, f);
        replays.push(super::counterexample_or_report(&mut result, built, k));
    }
    result.stats = stats(&e, &prod, shape, k, start);
    Some((result, replays))
}

fn stats<B: Bdds>(
    e: &Engine<B>,
    prod: &Product,
    shape: &Shape,
    k: u32,
    start: Instant,
) -> SearchStats {
    let b = &e.bdd;
    let base = e.entry(prod.proc) as usize;
    let reached = e.reached.iter().filter(|f| !b.is_false(f)).count() as u64;
    let mut per_context = vec![0usize; k as usize + 1];
    let mut per_thread = vec![0usize; shape.starts.len()];
    let measured = if e.sym.measure { &prod.role[..] } else { &[] };
    for (n, role) in measured.iter().enumerate() {
        let r = &e.reached[base + n];
        if b.is_false(r) {
            continue;
        }
        let size = b.size(r);
        if let Some(c) = prod.layer[n] {
            per_context[c as usize] += size;
        }
        if let Role::At { thread, .. } | Role::Runs { thread, .. } = *role {
            per_thread[thread] += size;
        }
    }
    let mut counters = vec![
        ("bdd_variables", b.num_vars() as u64),
        ("peak_live_nodes", e.peak_nodes.max(b.live_nodes()) as u64),
        ("vertices_reached", reached),
        ("worklist_steps", e.steps),
    ];
    if e.sym.measure {
        // a path edge here is a state of every thread at once (with `init`'s entry)
        let mut edges = 0.0f64;
        for (v, f) in e.reached.iter().enumerate() {
            if !b.is_false(f) {
                edges += b.count(f, e.scope_len(v as u32));
            }
        }
        counters.push(("path_edges", crate::symbolic::sat_u64(edges)));
    }
    if e.sym.measure {
        // a context or thread with no path edge has no line of its own
        for (c, n) in per_context.into_iter().enumerate().filter(|&(_, n)| n > 0) {
            counters.push((context_label(c), n as u64));
        }
        for (j, n) in per_thread.into_iter().enumerate().filter(|&(_, n)| n > 0) {
            counters.push((thread_label(j), n as u64));
        }
    }
    SearchStats {
        states: reached,
        transitions: e.steps,
        initial_states: 1,
        elapsed: start.elapsed(),
        counters,
        ..Default::default()
    }
}
