//! Boolean programs in the standard layout (threads started by `start_thread` or an `ASYNC_`
//! call) as a fixed set of thread *slots* for the context-bounded search (issue 15).
//!
//! §5's construction needs the threads up front. When every creation statement runs a bounded
//! number of times per run (none in a loop, under recursion, or in a thread that starts its
//! own kind), the threads are: slot 0, `main`, and one slot per execution of each creation
//! site. Each slot runs on its own copy of its bottom procedure, so the returns of that copy
//! are exactly where the thread ends. The program the search runs on (`Shape::pre`) writes
//! what a creation does into added globals: `%started{s}` (slot s exists) and `%arg{s}.{j}`
//! (its first frame's parameter j, or local j for `start_thread goto`). A creation site that
//! runs n times fills its n slots in order. The first switch into a slot needs its
//! `%started` flag and starts the slot's copy with those values. `atomic_begin`/`atomic_end`
//! set and clear a global `%atomic`; no context ends while it is set, except where the thread
//! ends, which releases it. `end_thread` becomes a statement with no successor at which the
//! thread may be left for good.

use super::Shape;
use petgraph::graph::DiGraph;
use zingrs_lang::ir::{
    BinOp, Const, Expr, Init, LValue, Pc, ProcId, Program, Span, Stmt, Type, UnOp, Var,
};

/// The most threads (main included) the translation makes.
pub const MAX_SLOTS: usize = 16;

/// Unbounded (a count that can grow without bound).
const INF: u64 = u64::MAX;

/// Why the translation refuses a program: the message and the statement it is about.
pub struct Refusal {
    pub message: String,
    pub at: Option<Span>,
}

impl Refusal {
    /// The message with the statement's `file:line:col`, source line and caret.
    pub fn render(&self, program: &Program) -> String {
        let Some(span) = self.at else {
            return self.message.clone();
        };
        let d = zingrs_lang::diag::Diagnostic::error(span, self.message.clone())
            .with_label("this creation".to_string());
        let text = zingrs_lang::diag::render(&program.source, &[d]);
        text.strip_prefix("error: ")
            .unwrap_or(&text)
            .trim_end()
            .to_string()
    }
}

fn plain(message: &str) -> Refusal {
    Refusal {
        message: message.into(),
        at: None,
    }
}

/// Per procedure, per node: whether the node lies on a cycle of the procedure's control flow.
fn on_cycle(p: &Program, q: ProcId) -> Vec<bool> {
    let proc = &p.procs[q as usize];
    let mut g = DiGraph::<(), ()>::new();
    let ix: Vec<_> = (0..proc.nodes.len()).map(|_| g.add_node(())).collect();
    let mut out = vec![false; proc.nodes.len()];
    for (pc, n) in proc.nodes.iter().enumerate() {
        for &s in &super::super::model::successors(p, q, pc as Pc) {
            if s as usize == pc && !matches!(n.stmt, Stmt::EndThread) {
                out[pc] = true;
            }
            if let Some(&t) = ix.get(s as usize) {
                g.add_edge(ix[pc], t, ());
            }
        }
    }
    for scc in petgraph::algo::tarjan_scc(&g) {
        if scc.len() > 1 {
            for n in scc {
                out[n.index()] = true;
            }
        }
    }
    out
}

/// The procedure a creation at `(q, pc)` starts (its own for `start_thread goto`), and the pc.
fn started(p: &Program, q: ProcId, pc: Pc) -> Option<(ProcId, Pc)> {
    let n = &p.procs[q as usize].nodes[pc as usize];
    match n.stmt {
        Stmt::StartThread { callee, .. } => Some((callee, 0)),
        Stmt::StartThreadGoto => Some((q, *n.succ.get(1)?)),
        _ => None,
    }
}

/// How many times each procedure may be entered per run (saturating; [`INF`] for without
/// bound), from `roots` entered once each, along calls and, with `creations`, thread
/// creations; `cyc` from [`on_cycle`].
fn activations(p: &Program, roots: &[ProcId], creations: bool, cyc: &[Vec<bool>]) -> Vec<u64> {
    let n = p.procs.len();
    // edges q → callee with their multiplicity
    let mut g = DiGraph::<(), u64>::new();
    let ix: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
    for (q, proc) in p.procs.iter().enumerate() {
        for (pc, node) in proc.nodes.iter().enumerate() {
            // a `start_thread goto` thread runs on in the same procedure: no edge (a site
            // it can reach again is unbounded, see [`sites`])
            let to = match node.stmt {
                Stmt::Call { callee, .. } => Some(callee),
                Stmt::StartThread { callee, .. } if creations => Some(callee),
                _ => None,
            };
            if let Some(t) = to {
                let mult = if cyc[q][pc] { INF } else { 1 };
                g.add_edge(ix[q], ix[t as usize], mult);
            }
        }
    }
    let mut count = vec![0u64; n];
    for &r in roots {
        count[r as usize] = count[r as usize].saturating_add(1);
    }
    // strongly connected components in reverse topological order: callers come first when
    // the list is reversed
    let sccs = petgraph::algo::tarjan_scc(&g);
    for scc in sccs.iter().rev() {
        let cyclic = scc.len() > 1 || g.find_edge(scc[0], scc[0]).is_some();
        let inflow: u64 = scc
            .iter()
            .map(|i| count[i.index()])
            .fold(0, u64::saturating_add);
        if cyclic && inflow > 0 {
            for i in scc {
                count[i.index()] = INF;
            }
        }
        for &i in scc {
            let c = count[i.index()];
            if c == 0 {
                continue;
            }
            for e in g.edges(i) {
                use petgraph::visit::EdgeRef;
                let t = e.target().index();
                if scc.contains(&e.target()) {
                    continue;
                }
                let add = if *e.weight() == INF { INF } else { c };
                count[t] = count[t].saturating_add(add);
            }
        }
    }
    count
}

/// Whether `to` can be reached from `from` in procedure `q`'s control flow.
fn reaches(p: &Program, q: ProcId, from: Pc, to: Pc) -> bool {
    let mut seen = vec![false; p.procs[q as usize].nodes.len()];
    let mut todo = vec![from];
    while let Some(pc) = todo.pop() {
        if pc == to {
            return true;
        }
        if std::mem::replace(&mut seen[pc as usize], true) {
            continue;
        }
        todo.extend(super::super::model::successors(p, q, pc));
    }
    false
}

/// The creation sites of `p` that run and how many times each may run: those reachable in
/// their procedure from where it is entered (its entry when something calls it or when it
/// is a root started at 0, the start of a root that starts elsewhere).
fn sites(
    p: &Program,
    count: &[u64],
    cyc: &[Vec<bool>],
    roots: &[(ProcId, Pc)],
) -> Vec<((ProcId, Pc), u64)> {
    let mut called = vec![false; p.procs.len()];
    for proc in &p.procs {
        for n in &proc.nodes {
            if let Stmt::Call { callee, .. } | Stmt::StartThread { callee, .. } = n.stmt {
                called[callee as usize] = true;
            }
        }
    }
    let mut out = Vec::new();
    for (q, proc) in p.procs.iter().enumerate() {
        if count[q] == 0 {
            continue;
        }
        let mut entries: Vec<Pc> = roots
            .iter()
            .filter(|r| r.0 == q as ProcId)
            .map(|r| r.1)
            .collect();
        if called[q] {
            entries.push(0);
        }
        for pc in 0..proc.nodes.len() {
            let pc = pc as Pc;
            let Some((_, at)) = started(p, q as ProcId, pc) else {
                continue;
            };
            if !entries.iter().any(|&e| reaches(p, q as ProcId, e, pc)) {
                continue;
            }
            let goto = matches!(proc.nodes[pc as usize].stmt, Stmt::StartThreadGoto);
            let again = goto && reaches(p, q as ProcId, at, pc);
            let n = if cyc[q][pc as usize] || again {
                INF
            } else {
                count[q]
            };
            out.push(((q as ProcId, pc), n));
        }
    }
    out
}

/// The shape of a standard-layout program, or why the bdd engine does not check it.
pub(super) fn shape(program: &Program) -> Result<Shape, Refusal> {
    if program.activations.len() != 1 {
        return Err(plain("the bdd engine needs exactly one entry procedure"));
    }
    let main = program.activations[0];
    let procs = program.procs.len() as ProcId;
    let cyc: Vec<Vec<bool>> = (0..procs).map(|q| on_cycle(program, q)).collect();
    // bounded creation, on the program as written
    let count = activations(program, &[main], true, &cyc);
    let mut total = 1u64;
    for ((q, pc), n) in sites(program, &count, &cyc, &[(main, 0)]) {
        let node = &program.procs[q as usize].nodes[pc as usize];
        if n == INF {
            return Err(Refusal {
                message: format!(
                    "the bdd engine checks programs whose threads are created a bounded number \
                     of times; `{}` may run without bound (in a loop, under recursion, or in a \
                     thread that starts its own kind): use --engine explicit --threads N or \
                     --engine coverability",
                    program.describe(q, pc)
                ),
                at: Some(node.span),
            });
        }
        total = total.saturating_add(n);
        if total > MAX_SLOTS as u64 {
            return Err(Refusal {
                message: format!(
                    "the bdd engine checks programs with at most {MAX_SLOTS} threads; with \
                     `{}` this one may start more: use --engine explicit",
                    program.describe(q, pc)
                ),
                at: Some(node.span),
            });
        }
        if let Some((t, at)) = started(program, q, pc) {
            if program.procs[t as usize].nodes[at as usize]
                .invariant
                .is_some()
            {
                return Err(Refusal {
                    message: "the bdd engine does not check a thread whose first statement is \
                              under `enforce` (the invariant is checked when the thread is \
                              created): use --engine explicit"
                        .into(),
                    at: Some(node.span),
                });
            }
        }
    }
    // the slots and their procedures' copies, until every site that runs has its slots
    let mut pre = program.clone();
    let mut orig: Vec<ProcId> = (0..procs).collect();
    let mut starts: Vec<(ProcId, Pc)> = Vec::new();
    let copy = |pre: &mut Program, orig: &mut Vec<ProcId>, q: ProcId| -> ProcId {
        let c = program.procs[orig[q as usize] as usize].clone();
        pre.procs.push(c);
        orig.push(orig[q as usize]);
        pre.procs.len() as ProcId - 1
    };
    let m0 = copy(&mut pre, &mut orig, main);
    starts.push((m0, 0));
    let mut site_slots: Vec<((ProcId, Pc), Vec<usize>)> = Vec::new();
    loop {
        let roots: Vec<ProcId> = starts.iter().map(|s| s.0).collect();
        let cyc: Vec<Vec<bool>> = (0..pre.procs.len() as ProcId)
            .map(|q| on_cycle(&pre, q))
            .collect();
        let count = activations(&pre, &roots, false, &cyc);
        let mut grew = false;
        for (at, n) in sites(&pre, &count, &cyc, &starts) {
            let i = match site_slots.iter().position(|s| s.0 == at) {
                Some(i) => i,
                None => {
                    site_slots.push((at, Vec::new()));
                    site_slots.len() - 1
                }
            };
            while (site_slots[i].1.len() as u64) < n {
                if starts.len() >= MAX_SLOTS {
                    return Err(plain(&format!(
                        "the bdd engine checks programs with at most {MAX_SLOTS} threads"
                    )));
                }
                let (t, pc) = started(&pre, at.0, at.1).expect("a creation");
                let c = copy(&mut pre, &mut orig, t);
                starts.push((c, pc));
                site_slots[i].1.push(starts.len() - 1);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    rewrite(pre, orig, starts, site_slots)
}

/// A boolean global of a program the search builds (no source of its own).
pub(super) fn bool_global(name: String, init: Init) -> Var {
    Var {
        name,
        ty: Type::Bool,
        init,
        thread_local: false,
        span: Default::default(),
    }
}

fn not(e: Expr) -> Expr {
    Expr::Unary(UnOp::Not, Box::new(e))
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

/// The thread statements of `pre` as statements over the added globals, and the shape.
fn rewrite(
    mut pre: Program,
    orig: Vec<ProcId>,
    starts: Vec<(ProcId, Pc)>,
    site_slots: Vec<((ProcId, Pc), Vec<usize>)>,
) -> Result<Shape, Refusal> {
    let own_globals = pre.globals.len() as u32;
    let uses_atomic = pre.procs.iter().any(|q| {
        q.nodes
            .iter()
            .any(|n| matches!(n.stmt, Stmt::AtomicBegin | Stmt::AtomicEnd))
    });
    let atomic = uses_atomic.then(|| {
        pre.globals.push(bool_global(
            "%atomic".into(),
            Init::Value(Const::Bool(false)),
        ));
        pre.globals.len() as u32 - 1
    });
    // per slot: its `%started` flag and the globals its first frame's locals come from
    let mut created = vec![None; starts.len()];
    let mut copies: Vec<Vec<(u32, u32)>> = vec![Vec::new(); starts.len()];
    for (s, &(q, pc)) in starts.iter().enumerate().skip(1) {
        pre.globals.push(bool_global(
            format!("%started{s}"),
            Init::Value(Const::Bool(false)),
        ));
        created[s] = Some(pre.globals.len() as u32 - 1);
        let proc = &pre.procs[q as usize];
        let n = if pc == 0 {
            proc.params
        } else {
            proc.locals.len() as u32
        };
        for j in 0..n {
            pre.globals
                .push(bool_global(format!("%arg{s}.{j}"), Init::Any));
            copies[s].push((j, pre.globals.len() as u32 - 1));
        }
    }
    for ((q, pc), slots) in &site_slots {
        let node = &pre.procs[*q as usize].nodes[*pc as usize];
        let values: Vec<Expr> = match &node.stmt {
            Stmt::StartThread { args, .. } => args.clone(),
            _ => (0..pre.procs[*q as usize].locals.len() as u32)
                .map(Expr::Local)
                .collect(),
        };
        let next = node.succ[0];
        let mut targets = Vec::new();
        let mut vals = Vec::new();
        for (i, &s) in slots.iter().enumerate() {
            let flag = created[s].expect("a created slot");
            let g = |x: u32| Expr::Global(x);
            let (set, free) = match i {
                0 => (Expr::Const(Const::Bool(true)), not(g(flag))),
                _ => {
                    let before = created[slots[i - 1]].expect("a created slot");
                    (
                        bin(BinOp::Or, g(flag), g(before)),
                        bin(BinOp::And, g(before), not(g(flag))),
                    )
                }
            };
            targets.push(Some(LValue::Global(flag)));
            vals.push(set);
            for (&(_, arg), v) in copies[s].iter().zip(&values) {
                targets.push(Some(LValue::Global(arg)));
                vals.push(if slots.len() == 1 {
                    v.clone()
                } else {
                    Expr::Ite(
                        Box::new(free.clone()),
                        Box::new(v.clone()),
                        Box::new(g(arg)),
                    )
                });
            }
        }
        let node = &mut pre.procs[*q as usize].nodes[*pc as usize];
        node.stmt = Stmt::Assign {
            targets,
            values: vals,
            constrain: None,
        };
        node.succ = vec![next];
    }
    let mut ending = Vec::new();
    for (q, proc) in pre.procs.iter_mut().enumerate() {
        for (pc, node) in proc.nodes.iter_mut().enumerate() {
            let set = |v: bool| Stmt::Assign {
                targets: vec![Some(LValue::Global(atomic.expect("uses atomic")))],
                values: vec![Expr::Const(Const::Bool(v))],
                constrain: None,
            };
            match node.stmt {
                Stmt::AtomicBegin => node.stmt = set(true),
                Stmt::AtomicEnd => node.stmt = set(false),
                Stmt::EndThread => {
                    node.stmt = Stmt::Assume {
                        cond: Expr::Const(Const::Bool(false)),
                    };
                    ending.push((q as ProcId, pc as Pc));
                }
                // a site that never runs (its procedure is never entered)
                Stmt::StartThread { .. } | Stmt::StartThreadGoto => {
                    node.stmt = Stmt::Assume {
                        cond: Expr::Const(Const::Bool(false)),
                    };
                    node.succ.truncate(1);
                }
                _ => {}
            }
        }
    }
    for &(q, _) in &starts {
        for (pc, node) in pre.procs[q as usize].nodes.iter().enumerate() {
            if matches!(node.stmt, Stmt::Return { .. }) {
                ending.push((q, pc as Pc));
            }
        }
    }
    let nprocs = pre.procs.len();
    pre.activations = vec![starts[0].0];
    Ok(Shape {
        pre,
        starts,
        created,
        copies,
        ending,
        atomic,
        release_on_end: true,
        unswitchable: vec![false; nprocs],
        init: None,
        orig,
        own_globals,
        sites: site_slots,
    })
}
