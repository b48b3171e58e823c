//! Static independence facts for the explicit search's reductions: which steps touch only the
//! running thread's own variables, and where the loops are.
//!
//! A node is *private* when its step reads and writes only the running thread's own variables
//! (its frame's locals, its copies of `thread_local` globals, the arguments and results of
//! calls between its own frames), cannot block, and neither starts nor ends a thread or an
//! atomic region. Such a step is independent of every step of every other thread and stays
//! enabled whatever they do (a both-mover in the sense of Lipton's reduction), so a state in
//! which some thread is at a private node may be expanded by that thread alone: a persistent
//! set of one thread.
//!
//! Taking private steps alone must not postpone the other threads forever (the cycle
//! proviso). A thread that is not at a private node never moves in a state expanded by one
//! thread, so a cycle of such states would need a cycle of private nodes in some control-flow
//! graph. Every cycle of a graph holds a back edge of any depth-first search of it, so the
//! targets of the back edges of the private nodes' subgraph are made *eligible* for no
//! reduction: every cycle of the reduced state graph then passes a fully expanded state,
//! which is the strong cycle proviso (Godefroid; Peled), and deadlocks, assertion violations
//! and reached labels are all preserved.
//!
//! The same depth-first search over all nodes gives the loop heads, where a search that does
//! not store states inside atomic regions still stores them, so that it terminates.

use super::guarded::{self, Protected};
use super::locks::{self, class_of, Mover};
use super::state::State;
use super::Machine;
use zingrs_lang::ir::{Expr, Glue, LValue, Layout, Proc, Program, Stmt};

/// Per procedure and node: which steps may be taken alone, the lock movers, and the loop heads.
#[derive(Debug, Default)]
pub struct Independence {
    /// The node is private and not the target of a back edge among private nodes and releases.
    alone: Vec<Vec<bool>>,
    /// The node's mover class; a release that is the target of a back edge among private
    /// nodes and releases is [`Mover::None`] (a transaction must not run around a loop).
    mover: Vec<Vec<Mover>>,
    /// The node is the target of a back edge of the procedure's control-flow graph.
    loop_head: Vec<Vec<bool>>,
    /// Every node of the procedure, and of every procedure it calls, is private: a call of it
    /// is a sequence of both-movers, one transaction whatever the other threads do.
    private_call: Vec<bool>,
    /// A thread that has just run may be left here under a context bound (see
    /// [`Machine::switch_point`]).
    switch_point: Vec<Vec<bool>>,
}

impl Independence {
    pub(super) fn new(m: &Machine) -> Independence {
        let program = m.program;
        // an `enforce` invariant may read anything, after any step: no step is private; nor
        // where broadcasts write other threads' locals, which every step may read
        let enforced = program.has_passive()
            || program
                .procs
                .iter()
                .any(|p| p.nodes.iter().any(|n| n.invariant.is_some()));
        let discipline = locks::analyze(m);
        // shared data only one lock's holder, or only the initial thread, touches
        let protected = guarded::analyze(program, &discipline);
        let mut mover = discipline.mover;
        let results_private = results_private(program, &protected);
        let mut alone = Vec::with_capacity(program.procs.len());
        let mut loop_head = Vec::with_capacity(program.procs.len());
        let mut private_call = Vec::with_capacity(program.procs.len());
        let mut switch_point = Vec::with_capacity(program.procs.len());
        for (i, p) in program.procs.iter().enumerate() {
            let private: Vec<bool> = (0..p.nodes.len())
                .map(|pc| {
                    !enforced
                        && !m.atomic_proc[i]
                        && private_node(m, &protected, i as u32, p, pc, results_private[i])
                })
                .collect();
            switch_point.push(switch_points(p, &private));
            // a transaction runs on through private steps and releases: every cycle of those
            // must hold a node where it stops
            private_call.push(private.iter().all(|&x| x));
            let heads_private =
                back_edge_targets(p, |pc| private[pc] || mover[i][pc] == Mover::Release);
            for (pc, &h) in heads_private.iter().enumerate() {
                if h && mover[i][pc] == Mover::Release {
                    mover[i][pc] = Mover::None;
                }
            }
            alone.push(
                private
                    .iter()
                    .zip(&heads_private)
                    .map(|(&p, &h)| p && !h)
                    .collect(),
            );
            loop_head.push(back_edge_targets(p, |_| true));
        }
        // a call is private only if its callees' calls are (a greatest fixpoint: recursion
        // among private procedures stays private)
        loop {
            let mut changed = false;
            for (i, p) in program.procs.iter().enumerate() {
                let calls_other = private_call[i]
                    && p.nodes.iter().any(|n| match &n.stmt {
                        Stmt::Call { callee, .. } => !private_call[*callee as usize],
                        _ => false,
                    });
                if calls_other {
                    private_call[i] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Independence {
            alone,
            mover,
            loop_head,
            private_call,
            switch_point,
        }
    }
}

impl Machine<'_> {
    /// Whether thread `tid` of `s` may be expanded alone (a persistent set of one thread): its
    /// next step is private, not at a loop of private steps, and does not remove the thread.
    /// The search must still check that the step has a successor.
    pub fn may_run_alone(&self, s: &State, tid: usize) -> bool {
        let Some(t) = s.threads.get(tid) else {
            return false;
        };
        let Some(f) = t.stack.top() else {
            return false;
        };
        self.may_run_alone_at(f.proc, f.pc, t.stack.depth())
    }

    fn independence(&self) -> &Independence {
        self.independence.get_or_init(|| Independence::new(self))
    }

    /// [`Machine::may_run_alone`] for a thread at `pc` of `proc` with `depth` frames.
    pub fn may_run_alone_at(&self, proc: u32, pc: u32, depth: u32) -> bool {
        if !self.independence().alone[proc as usize][pc as usize] {
            return false;
        }
        // the bottom frame's return ends the thread: a boolean program's thread leaves the
        // thread list (the others' indices change); a Zing process stays, completed, and its
        // end touches nothing another process can see
        let returns = matches!(self.program.node(proc, pc).stmt, Stmt::Return { .. });
        !returns || depth > 1 || self.program.keep_completed
    }

    /// What the step at `pc` of `proc` is to the transaction reduction (see `runtime::locks`).
    pub fn mover(&self, proc: u32, pc: u32) -> Mover {
        self.independence().mover[proc as usize][pc as usize]
    }

    /// Whether a call of `proc` runs only private steps, in it and in every procedure it calls:
    /// the whole call is one transaction of both-movers, which the summary engine may summarize
    /// with other threads around.
    pub fn private_call(&self, proc: u32) -> bool {
        self.independence().private_call[proc as usize]
    }

    /// Whether `pc` of `proc` is a loop head (the target of a back edge).
    pub fn loop_head(&self, proc: u32, pc: u32) -> bool {
        self.independence().loop_head[proc as usize][pc as usize]
    }

    /// Whether a context may end with the running thread at `pc` of `proc`: the thread got
    /// here by a step that is not private (or by a call, a return, an exception), or this is
    /// where a procedure starts. A context that ends elsewhere, after private steps since
    /// the last such point, has the same effect on the other threads as one that ends at that
    /// point with the private steps taken when the thread runs again (they touch only its own
    /// variables and stay enabled; if it never runs again, what they reach it reached before
    /// the switch). So a search under a context bound loses nothing, and takes no more
    /// switches, by leaving a thread only at these points.
    pub fn switch_point(&self, proc: u32, pc: u32) -> bool {
        self.independence().switch_point[proc as usize][pc as usize]
    }
}

/// [`Machine::switch_point`] for the nodes of `p`, given which of them are private.
fn switch_points(p: &Proc, private: &[bool]) -> Vec<bool> {
    let mut point = vec![false; p.nodes.len()];
    if let Some(entry) = point.first_mut() {
        *entry = true;
    }
    for (pc, n) in p.nodes.iter().enumerate() {
        // the step after a call returns from the callee (whose return may write anything)
        let left_by_return = matches!(n.stmt, Stmt::Call { .. });
        if !private[pc] || left_by_return {
            for &s in &n.succ {
                point[s as usize] = true;
            }
        }
    }
    for t in &p.tries {
        for &(_, h) in &t.handlers {
            point[h as usize] = true;
        }
    }
    point
}

/// Per procedure: every call of it stores its results in the caller's own variables.
fn results_private(program: &Program, protected: &Protected) -> Vec<bool> {
    let mut ok = vec![true; program.procs.len()];
    for (i, p) in program.procs.iter().enumerate() {
        let at = |pc| At {
            program,
            protected,
            proc: i as u32,
            p,
            pc,
        };
        for (pc, n) in p.nodes.iter().enumerate() {
            if let Stmt::Call {
                callee, results, ..
            } = &n.stmt
            {
                if !results.iter().flatten().all(|lv| at(pc).lvalue(lv)) {
                    ok[*callee as usize] = false;
                }
            }
        }
    }
    ok
}

fn private_node(
    m: &Machine,
    protected: &Protected,
    proc: u32,
    p: &Proc,
    pc: usize,
    results_private: bool,
) -> bool {
    let program = m.program;
    let node = &p.nodes[pc];
    // Zing's step granularity: a glued step runs on into its neighbours
    let glued = node.glue != Glue::No
        || node
            .succ
            .iter()
            .any(|&s| p.nodes[s as usize].glue != Glue::No);
    if glued {
        return false;
    }
    if let Layout::Getafix { init, endinit, .. } = program.layout {
        if proc == init && pc as u32 == endinit {
            return false;
        }
    }
    let at = At {
        program,
        protected,
        proc,
        p,
        pc,
    };
    let e = |x: &Expr| at.expr(x);
    let lv = |x: &LValue| at.lvalue(x);
    match &node.stmt {
        Stmt::Skip | Stmt::Goto | Stmt::Yield => true,
        Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => e(cond),
        Stmt::Assign {
            targets,
            values,
            constrain,
        } => {
            targets.iter().flatten().all(lv)
                && values.iter().all(e)
                && constrain.as_ref().is_none_or(e)
        }
        Stmt::Havoc { targets } => targets.iter().all(lv),
        Stmt::Choose { target, .. } => lv(target),
        Stmt::Call { args, callee, .. } => !m.atomic_proc[*callee as usize] && args.iter().all(e),
        Stmt::Return { values } => {
            results_private && values.as_ref().is_none_or(|v| v.iter().all(e))
        }
        Stmt::Constrain { .. }
        | Stmt::StartThread { .. }
        | Stmt::StartThreadGoto
        | Stmt::EndThread
        | Stmt::AtomicBegin
        | Stmt::AtomicEnd
        | Stmt::New { .. }
        | Stmt::NewArray { .. }
        | Stmt::Select { .. }
        | Stmt::SetUpdate { .. }
        | Stmt::Send { .. }
        | Stmt::ChooseElem { .. }
        | Stmt::Raise { .. } => false,
    }
}

/// A node, for judging what its step touches.
#[derive(Clone, Copy)]
struct At<'a> {
    program: &'a Program,
    protected: &'a Protected,
    proc: u32,
    p: &'a Proc,
    pc: usize,
}

impl At<'_> {
    /// Whether writing `lv` touches only the thread's own variables, protected data or a
    /// fresh object.
    fn lvalue(self, lv: &LValue) -> bool {
        match lv {
            LValue::Local(_) => true,
            // another thread's local
            LValue::PassiveLocal(_) => false,
            LValue::Global(g) => self.global(*g),
            LValue::Field(base, f) => self.field(base, *f) && self.expr(base),
            LValue::Elem(..) => false,
        }
    }

    fn global(self, g: u32) -> bool {
        self.program.globals[g as usize].thread_local || self.protected.global(g)
    }

    /// Whether field `f` of the object `base` refers to is protected data, or that object is
    /// fresh (reachable from this frame's local alone).
    fn field(self, base: &Expr, f: u32) -> bool {
        if let Expr::Local(x) = base {
            if self.protected.fresh(self.proc, self.pc, *x) {
                return true;
            }
        }
        class_of(self.program, self.p, base).is_some_and(|c| self.protected.field(c, f))
    }

    /// Whether evaluating `e` reads only the thread's own variables, protected data or fresh
    /// objects.
    fn expr(self, e: &Expr) -> bool {
        zingrs_lang::deep::grow(|| self.expr_here(e))
    }

    fn expr_here(self, e: &Expr) -> bool {
        let p = |x: &Expr| self.expr(x);
        match e {
            Expr::Const(_)
            | Expr::Local(_)
            | Expr::PrimedLocal(_)
            | Expr::Nondet
            | Expr::SelfId => true,
            Expr::Global(g) | Expr::PrimedGlobal(g) => self.global(*g),
            Expr::PassiveLocal(_) | Expr::PrimedPassiveLocal(_) => false,
            Expr::Unary(_, a) | Expr::Neg(_, a) | Expr::BitNot(_, a) | Expr::Convert(_, a) => p(a),
            Expr::Binary(_, a, b) | Expr::Arith(_, _, a, b) | Expr::Cmp(_, a, b) => p(a) && p(b),
            Expr::Schoose(a, b) => p(a) && p(b),
            Expr::Ite(c, a, b) => p(c) && p(a) && p(b),
            Expr::Field(base, f) => self.field(base, *f) && p(base),
            Expr::Elem(..) | Expr::Size(..) | Expr::In(..) | Expr::Call(..) | Expr::ClassIs(..) => {
                false
            }
        }
    }
}

/// The targets of the back edges of a depth-first search of the subgraph of `p`'s nodes that
/// satisfy `keep` (from every such node not yet visited, so unreachable parts count too).
fn back_edge_targets(p: &Proc, keep: impl Fn(usize) -> bool) -> Vec<bool> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let n = p.nodes.len();
    let mut mark = vec![NEW; n];
    let mut heads = vec![false; n];
    for root in 0..n {
        if mark[root] != NEW || !keep(root) {
            continue;
        }
        // (node, index of the next successor to look at)
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        mark[root] = OPEN;
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            let succ = &p.nodes[v].succ;
            if *i < succ.len() {
                let w = succ[*i] as usize;
                *i += 1;
                if w >= n || !keep(w) {
                    continue;
                }
                match mark[w] {
                    NEW => {
                        mark[w] = OPEN;
                        stack.push((w, 0));
                    }
                    OPEN => heads[w] = true,
                    _ => {}
                }
            } else {
                mark[v] = DONE;
                stack.pop();
            }
        }
    }
    heads
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Semantics;
    use zingrs_lang::Lang;

    /// The lines of `proc`'s nodes where a context may end, in node order.
    fn switch_lines(text: &str, proc: &str) -> Vec<u32> {
        let program = zingrs_lang::compile("t.bp", text, Lang::Bp)
            .expect("the model compiles")
            .program;
        let m = Machine::new(&program, Semantics::default());
        let q = program.proc_by_name(proc).expect("the procedure");
        (0..program.procs[q as usize].nodes.len() as u32)
            .filter(|&pc| m.switch_point(q, pc))
            .map(|pc| program.line_of(q, pc))
            .collect()
    }

    #[test]
    fn a_context_ends_only_after_a_step_another_thread_can_see() {
        let text = "decl g;\n\
                    void init() begin g := F; endinit: skip; end\n\
                    void f() begin g := T; end\n\
                    void thread1()\n\
                    begin\n\
                    decl a, b;\n\
                    a := T;\n\
                    b := a;\n\
                    g := b;\n\
                    a := F;\n\
                    if (a) then b := F; fi\n\
                    f();\n\
                    b := T;\n\
                    a := b;\n\
                    end\n\
                    void thread2() begin skip; end\n";
        // line 7 is the entry; 8 follows a private step; 10 follows the write of g; 11 and
        // its branch follow private steps; 13 follows the call (the return may write
        // anything); 14 and the end follow private steps
        assert_eq!(switch_lines(text, "thread1"), vec![7, 10, 13]);
        // the callee's entry, and its end after the write of g
        assert_eq!(switch_lines(text, "f"), vec![3, 3]);
    }
}
