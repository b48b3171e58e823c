//! A thread's code with every call inlined, over the product program's globals: each call
//! site of the thread's call tree is an *instance* of its callee with locals of its own, the
//! call a parallel assignment of the formals (the other locals take any value, as a fresh
//! frame's do), the callee's return one of the call's receivers (its locals forgotten).
//! Each step of the original program is one node here, so a counterexample maps back step
//! by step. Recursive threads have no such form.

use super::{node, var, Map};
use zingrs_lang::ir::{Expr, Init, LValue, Node, Pc, ProcId, Program, Stmt, Var};

/// One call site's copy of a procedure.
pub(super) struct Instance {
    pub proc: ProcId,
    /// The product global of each of its locals.
    pub locals: Vec<u32>,
    /// No context ends inside it (a `__VERIFIER_atomic…` procedure, or called from one).
    pub atomic: bool,
}

/// A thread's inlined code.
pub(super) struct Flat {
    /// Statements over the product's globals; successors are indices into `nodes`. The
    /// thread's own returns stay `Return` (where it ends).
    pub nodes: Vec<Node>,
    /// Per node: its instance and its pc in the instance's procedure.
    pub at: Vec<(u32, Pc)>,
    pub insts: Vec<Instance>,
}

/// The most nodes a thread may have once inlined (a call tree that large gets §5's search).
const LIMIT: usize = 1 << 18;

/// Inlines thread `j`, which starts in procedure `q`; new globals (the instances' locals) go
/// to `globals`. `None` if the thread recurses or grows past [`LIMIT`].
pub(super) fn flatten(
    pre: &Program,
    q: ProcId,
    j: usize,
    gmap: &[u32],
    unswitchable: &[bool],
    globals: &mut Vec<Var>,
) -> Option<Flat> {
    let mut f = Flat {
        nodes: Vec::new(),
        at: Vec::new(),
        insts: Vec::new(),
    };
    let mut chain = Vec::new();
    instance(
        pre,
        q,
        j,
        gmap,
        unswitchable,
        false,
        &mut chain,
        globals,
        &mut f,
    )?;
    Some(f)
}

/// Adds an instance of `q` and, recursively, of its callees: its first node's index and
/// the indices of its returns.
#[allow(clippy::too_many_arguments)]
fn instance(
    pre: &Program,
    q: ProcId,
    j: usize,
    gmap: &[u32],
    unswitchable: &[bool],
    atomic: bool,
    chain: &mut Vec<ProcId>,
    globals: &mut Vec<Var>,
    f: &mut Flat,
) -> Option<(u32, Vec<u32>)> {
    if chain.contains(&q) {
        return None;
    }
    let proc = &pre.procs[q as usize];
    if f.nodes.len() + proc.nodes.len() > LIMIT {
        return None;
    }
    let id = f.insts.len() as u32;
    let locals: Vec<u32> = proc
        .locals
        .iter()
        .map(|l| {
            let name = if id == 0 {
                format!("%t{j}.{}", l.name)
            } else {
                format!("%t{j}.{}#{id}.{}", proc.name, l.name)
            };
            globals.push(var(name, l.init));
            globals.len() as u32 - 1
        })
        .collect();
    let atomic = atomic || unswitchable[q as usize];
    f.insts.push(Instance {
        proc: q,
        locals: locals.clone(),
        atomic,
    });
    let base = f.nodes.len() as u32;
    for pc in 0..proc.nodes.len() as Pc {
        f.nodes.push(node(Stmt::Skip, vec![]));
        f.at.push((id, pc));
    }
    let m = Map {
        globals: gmap,
        locals: &locals,
    };
    let mut returns = Vec::new();
    chain.push(q);
    for (pc, orig) in proc.nodes.iter().enumerate() {
        let at = base as usize + pc;
        let mut nn = orig.clone();
        nn.succ = orig.succ.iter().map(|&s| base + s).collect();
        if let Stmt::Call {
            callee,
            args,
            results,
        } = &orig.stmt
        {
            let cid = f.insts.len();
            let (entry, rets) = instance(
                pre,
                *callee,
                j,
                gmap,
                unswitchable,
                atomic,
                chain,
                globals,
                f,
            )?;
            let callee_proc = &pre.procs[*callee as usize];
            let callee_locals = f.insts[cid].locals.clone();
            // the call: formals from the arguments, the other locals their initial values
            // (anything, unless declared with one), as a fresh frame's
            let mut targets = Vec::new();
            let mut values = Vec::new();
            for (l, &x) in callee_locals.iter().enumerate() {
                targets.push(Some(LValue::Global(x)));
                values.push(match args.get(l) {
                    Some(a) if (l as u32) < callee_proc.params => {
                        let mut a = a.clone();
                        m.expr(&mut a);
                        a
                    }
                    _ => match callee_proc.locals[l].init {
                        Init::Value(c) => Expr::Const(c),
                        Init::Any => Expr::Nondet,
                    },
                });
            }
            nn.stmt = Stmt::Assign {
                targets,
                values,
                constrain: None,
            };
            nn.succ = vec![entry];
            if let Some(i) = &mut nn.invariant {
                m.expr(i);
            }
            // its returns: the receivers from the results, its locals forgotten
            let after = base + orig.succ[0];
            for r in rets {
                let Stmt::Return { values: rv } = &f.nodes[r as usize].stmt else {
                    unreachable!("a return");
                };
                let mut targets: Vec<Option<LValue>> = Vec::new();
                let mut values = Vec::new();
                for (i, t) in results.iter().enumerate() {
                    if let Some(t) = t {
                        let mut t = t.clone();
                        m.lv(&mut t);
                        targets.push(Some(t));
                        values.push(rv.as_ref().map_or(Expr::Nondet, |v| v[i].clone()));
                    }
                }
                for &x in &callee_locals {
                    targets.push(Some(LValue::Global(x)));
                    values.push(Expr::Nondet);
                }
                let rn = &mut f.nodes[r as usize];
                rn.stmt = Stmt::Assign {
                    targets,
                    values,
                    constrain: None,
                };
                rn.succ = vec![after];
            }
        } else {
            m.node(&mut nn);
            if matches!(orig.stmt, Stmt::Return { .. }) {
                returns.push(at as u32);
            }
        }
        f.nodes[at] = nn;
    }
    chain.pop();
    Some((base, returns))
}
