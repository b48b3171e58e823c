//! Live local variables (Bebop's live ranges, seed 001 §3.3).
//!
//! A local is *live* at a node if some path from that node reads it before writing it. A local
//! that is dead at a procedure's entry cannot influence anything the procedure does, so its
//! arbitrary initial value need not be enumerated: engines fix it instead, which removes a
//! factor of two per dead local from every call without changing any verdict.

use crate::ir::{Const, Expr, LValue, Pc, Proc, Stmt};

/// Marks the locals an expression reads. `targets` are the locals written by the same
/// statement: a primed name of a target is the new value, not a read.
fn uses(e: &Expr, targets: &[u32], out: &mut [bool]) {
    crate::deep::grow(|| uses_here(e, targets, out))
}

fn uses_here(e: &Expr, targets: &[u32], out: &mut [bool]) {
    match e {
        Expr::Local(i) => out[*i as usize] = true,
        Expr::PrimedLocal(i) => {
            if !targets.contains(i) {
                out[*i as usize] = true;
            }
        }
        // another thread's locals: see `passive_reads` for what they mean to this analysis
        Expr::PassiveLocal(_) | Expr::PrimedPassiveLocal(_) => {}
        Expr::Const(_) | Expr::Global(_) | Expr::PrimedGlobal(_) | Expr::Nondet => {}
        Expr::Unary(_, a) => uses(a, targets, out),
        Expr::Binary(_, a, b) | Expr::Schoose(a, b) => {
            uses(a, targets, out);
            uses(b, targets, out);
        }
        Expr::Ite(c, a, b) => {
            uses(c, targets, out);
            uses(a, targets, out);
            uses(b, targets, out);
        }
        Expr::Field(a, _) | Expr::Neg(_, a) | Expr::BitNot(_, a) | Expr::Convert(_, a) => {
            uses(a, targets, out)
        }
        Expr::Arith(_, _, a, b) | Expr::Cmp(_, a, b) | Expr::Elem(a, b, _) | Expr::In(a, b) => {
            uses(a, targets, out);
            uses(b, targets, out);
        }
        Expr::Size(a, _) | Expr::ClassIs(a, _) => uses(a, targets, out),
        Expr::SelfId => {}
        Expr::Call(_, args) => {
            for a in args {
                uses(a, targets, out);
            }
        }
    }
}

/// Marks the locals an lvalue reads (the object expression of a field) and returns the local
/// it overwrites, if it is a local.
fn lvalue(lv: &LValue, out: &mut [bool]) -> Option<u32> {
    match lv {
        LValue::Local(i) => Some(*i),
        // a broadcast writes the other threads' copies, not this frame's
        LValue::Global(_) | LValue::PassiveLocal(_) => None,
        LValue::Field(e, _) => {
            uses(e, &[], out);
            None
        }
        LValue::Elem(e, i, _) => {
            uses(e, &[], out);
            uses(i, &[], out);
            None
        }
    }
}

fn local_targets<'a>(lvs: impl Iterator<Item = &'a LValue>) -> Vec<u32> {
    lvs.filter_map(|l| match l {
        LValue::Local(i) => Some(*i),
        LValue::Global(_) | LValue::PassiveLocal(_) | LValue::Field(..) | LValue::Elem(..) => None,
    })
    .collect()
}

/// The locals a node reads (`used`) and those it certainly overwrites (`defs`), marked in
/// buffers of one flag per local that the caller has cleared.
fn use_def(p: &Proc, pc: usize, used: &mut [bool], defs: &mut [bool]) {
    let n = p.locals.len();
    let node = &p.nodes[pc];
    if let Some(inv) = &node.invariant {
        uses(inv, &[], used);
    }
    match &node.stmt {
        Stmt::Skip
        | Stmt::Goto
        | Stmt::EndThread
        | Stmt::AtomicBegin
        | Stmt::AtomicEnd
        | Stmt::Yield => {}
        Stmt::New { target, .. } | Stmt::Choose { target, .. } => {
            if let Some(i) = lvalue(target, used) {
                defs[i as usize] = true;
            }
        }
        Stmt::Select {
            guards, receives, ..
        } => {
            for g in guards {
                uses(g, &[], used);
            }
            for r in receives.iter().flatten() {
                uses(&r.chan, &[], used);
                for t in &r.targets {
                    lvalue(t, used);
                }
            }
        }
        Stmt::NewArray { target, len, .. } => {
            uses(len, &[], used);
            if let Some(i) = lvalue(target, used) {
                defs[i as usize] = true;
            }
        }
        Stmt::SetUpdate { set, operand, .. } => {
            uses(set, &[], used);
            uses(operand, &[], used);
        }
        Stmt::Send { chan, values } => {
            uses(chan, &[], used);
            for v in values {
                uses(v, &[], used);
            }
        }
        Stmt::ChooseElem { targets, from } => {
            uses(from, &[], used);
            for t in targets {
                if let Some(i) = lvalue(t, used) {
                    defs[i as usize] = true;
                }
            }
        }
        // a handler may run in this frame with any local as it is now
        Stmt::Raise { .. } => used.iter_mut().for_each(|u| *u = true),
        Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => {
            uses(cond, &[], used)
        }
        Stmt::Assign {
            targets,
            values,
            constrain,
        } => {
            let t = local_targets(targets.iter().flatten());
            for lv in targets.iter().flatten() {
                lvalue(lv, used);
            }
            for v in values {
                uses(v, &t, used);
            }
            if let Some(c) = constrain {
                uses(c, &t, used);
            }
            for i in t {
                defs[i as usize] = true;
            }
        }
        Stmt::Havoc { targets } => {
            for i in local_targets(targets.iter()) {
                defs[i as usize] = true;
            }
        }
        Stmt::Constrain { expr } => {
            // every visible variable gets a new value; primed names are new values
            let all: Vec<u32> = (0..n as u32).collect();
            uses(expr, &all, used);
            defs.iter_mut().for_each(|d| *d = true);
        }
        Stmt::Call { args, results, .. } => {
            // results are written when the call returns, at the node after the call; field
            // receivers read their object then
            for a in args {
                uses(a, &[], used);
            }
            for lv in results.iter().flatten() {
                lvalue(lv, used);
            }
        }
        Stmt::StartThread { args, .. } => {
            for a in args {
                uses(a, &[], used);
            }
        }
        Stmt::Return { values } => {
            for v in values.iter().flatten() {
                uses(v, &[], used);
            }
        }
        // the new thread gets a copy of the whole frame
        Stmt::StartThreadGoto => used.iter_mut().for_each(|u| *u = true),
    }
}

/// The slots of `p` that some broadcast assignment of `p` reads as passive variables (`x$`,
/// or `'x$` where `x$` is not a target: its new value is the old one).
fn passive_reads(p: &Proc) -> Vec<bool> {
    let mut out = vec![false; p.locals.len()];
    for node in &p.nodes {
        if let Stmt::Assign {
            targets,
            values,
            constrain,
        } = &node.stmt
        {
            let written: Vec<u32> = targets
                .iter()
                .flatten()
                .filter_map(|t| match t {
                    LValue::PassiveLocal(i) => Some(*i),
                    _ => None,
                })
                .collect();
            let mut mark = |i: u32| out[i as usize] = true;
            for v in values {
                v.passive_reads(&[], &mut mark);
            }
            if let Some(c) = constrain {
                c.passive_reads(&written, &mut mark);
            }
        }
    }
    out
}

/// The nodes control can reach from node `pc` of `p`: none after `assume(F)` or `assert(F)`,
/// which end every path (C translations cut off the cases they do not cover that way, and a
/// variable read only past such a cut is not read), and one branch of a constant test.
pub(crate) fn successors(p: &Proc, pc: usize) -> &[Pc] {
    let node = &p.nodes[pc];
    match &node.stmt {
        Stmt::Assume {
            cond: Expr::Const(Const::Bool(false)),
        }
        | Stmt::Assert {
            cond: Expr::Const(Const::Bool(false)),
        } => &[],
        // `while (T)`: its exit is never taken
        Stmt::Branch {
            cond: Expr::Const(Const::Bool(b)),
        } if node.succ.len() == 2 => {
            if *b {
                &node.succ[..1]
            } else {
                &node.succ[1..]
            }
        }
        _ => &node.succ,
    }
}

/// For each node, the locals live just before it executes.
pub fn live_in(p: &Proc) -> Vec<Vec<bool>> {
    let n = p.locals.len();
    let live = live_words(p);
    let words = n.div_ceil(64);
    (0..p.nodes.len())
        .map(|pc| {
            (0..n)
                .map(|i| live[pc * words + i / 64] >> (i % 64) & 1 != 0)
                .collect()
        })
        .collect()
}

/// [`live_in`] as bit sets, one run of `locals.len().div_ceil(64)` words per node in one flat
/// vector (this runs for every procedure of every model: a few vectors per node made it a
/// visible share of the set-up time of large programs).
fn live_words(p: &Proc) -> Vec<u64> {
    let n = p.locals.len();
    if n == 0 {
        // no bits to compute, and no expression to walk for them (a product procedure of the
        // context-bounded search has thousands of nodes and only globals)
        return Vec::new();
    }
    let words = n.div_ceil(64);
    let len = p.nodes.len();
    let pack = |flags: &[bool], into: &mut [u64]| {
        for (i, &f) in flags.iter().enumerate() {
            if f {
                into[i / 64] |= 1 << (i % 64);
            }
        }
    };
    let mut used = vec![0u64; len * words];
    let mut defs = vec![0u64; len * words];
    // a call's receivers are written on return, before the node after the call runs: they
    // are killed on the way out of the call
    let mut kills = vec![0u64; len * words];
    let (mut u, mut d) = (vec![false; n], vec![false; n]);
    for pc in 0..len {
        u.fill(false);
        d.fill(false);
        use_def(p, pc, &mut u, &mut d);
        pack(&u, &mut used[pc * words..(pc + 1) * words]);
        pack(&d, &mut defs[pc * words..(pc + 1) * words]);
        if let Stmt::Call { results, .. } = &p.nodes[pc].stmt {
            for lv in results.iter().flatten() {
                if let LValue::Local(i) = lv {
                    kills[pc * words + *i as usize / 64] |= 1 << (*i % 64);
                }
            }
        }
    }
    // a local that another thread reads as `x$` may be read while this frame is at any node:
    // it is live everywhere (a broadcast's writes to `y$` are not this frame's definitions)
    let passive = passive_reads(p);
    if passive.iter().any(|&b| b) {
        let mut mask = vec![0u64; words];
        pack(&passive, &mut mask);
        for pc in 0..len {
            for (u, m) in used[pc * words..(pc + 1) * words].iter_mut().zip(&mask) {
                *u |= *m;
            }
        }
    }
    let mut live = vec![0u64; len * words];
    // one buffer for every node and round
    let mut out = vec![0u64; words];
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..len).rev() {
            out.fill(0);
            for &s in successors(p, pc) {
                let s = s as usize;
                for (o, l) in out.iter_mut().zip(&live[s * words..(s + 1) * words]) {
                    *o |= *l;
                }
            }
            for (w, &o) in out.iter().enumerate() {
                let k = pc * words + w;
                let new = used[k] | (o & !kills[k] & !defs[k]);
                if new != live[k] {
                    live[k] = new;
                    changed = true;
                }
            }
        }
    }
    live
}

/// Live locals before every node of a procedure, as bits: what the runtime asks while it
/// enumerates outcomes (a nondeterministic value for a local that no path reads before it is
/// written again is one value, not every value).
#[derive(Clone, Debug, Default)]
pub struct LiveBits {
    words: usize,
    bits: Vec<u64>,
}

impl LiveBits {
    /// The live locals of `p` before each of its nodes.
    pub fn of(p: &Proc) -> LiveBits {
        LiveBits {
            words: p.locals.len().div_ceil(64),
            bits: live_words(p),
        }
    }

    /// Whether local `i` may be read before written from node `pc` on.
    #[inline]
    pub fn live(&self, pc: Pc, i: usize) -> bool {
        self.bits
            .get(pc as usize * self.words + i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 != 0)
    }
}

/// The locals that may be read before written from the procedure's entry (formals count as
/// live: the caller supplies them).
pub fn live_at_entry(p: &Proc) -> Vec<bool> {
    let n = p.locals.len();
    let mut live = if p.nodes.is_empty() {
        vec![false; n]
    } else {
        let words = live_words(p);
        (0..n).map(|i| words[i / 64] >> (i % 64) & 1 != 0).collect()
    };
    for l in live.iter_mut().take(p.params as usize) {
        *l = true;
    }
    live
}

/// A set of globals being filled: a flag per global, or (global liveness) the list of the few
/// a node names, so that a node's reads cost what it names, not the number of globals.
pub(crate) trait Marks {
    /// Adds global `i`.
    fn mark(&mut self, i: u32);
    /// Adds every global.
    fn mark_all(&mut self);
}

impl Marks for [bool] {
    fn mark(&mut self, i: u32) {
        self[i as usize] = true;
    }
    fn mark_all(&mut self) {
        self.fill(true);
    }
}

impl Marks for Vec<bool> {
    fn mark(&mut self, i: u32) {
        self[i as usize] = true;
    }
    fn mark_all(&mut self) {
        self.fill(true);
    }
}

/// Marks the globals an expression reads; `targets` are the globals its statement writes (a
/// primed target is the new value). Returns false if the expression may read globals it does
/// not name (a method call), so every global must count as read.
pub(crate) fn global_uses<M: Marks + ?Sized>(e: &Expr, targets: &[u32], out: &mut M) -> bool {
    let mut exact = true;
    e.walk(&mut |e| match e {
        Expr::Global(i) => out.mark(*i),
        Expr::PrimedGlobal(i) if !targets.contains(i) => out.mark(*i),
        Expr::Call(..) => exact = false,
        _ => {}
    });
    exact
}

/// The globals a node of `p` reads (`used`) and those it certainly overwrites (`defs`). Calls
/// and every statement this analysis does not model read every global.
pub(crate) fn global_use_def<M: Marks + ?Sized>(p: &Proc, pc: usize, used: &mut M, defs: &mut M) {
    let node = &p.nodes[pc];
    let mut exact = true;
    if let Some(inv) = &node.invariant {
        exact &= global_uses(inv, &[], used);
    }
    let lvalue_reads = |lv: &LValue, used: &mut M| match lv {
        LValue::Local(_) | LValue::Global(_) | LValue::PassiveLocal(_) => true,
        LValue::Field(e, _) => global_uses(e, &[], used),
        LValue::Elem(e, i, _) => global_uses(e, &[], used) & global_uses(i, &[], used),
    };
    match &node.stmt {
        Stmt::Skip | Stmt::Goto | Stmt::EndThread | Stmt::AtomicBegin | Stmt::AtomicEnd => {}
        Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => {
            exact &= global_uses(cond, &[], used)
        }
        Stmt::Assign {
            targets,
            values,
            constrain,
        } => {
            let t: Vec<u32> = targets
                .iter()
                .flatten()
                .filter_map(|l| match l {
                    LValue::Global(i) => Some(*i),
                    _ => None,
                })
                .collect();
            for lv in targets.iter().flatten() {
                exact &= lvalue_reads(lv, used);
            }
            for v in values {
                exact &= global_uses(v, &t, used);
            }
            if let Some(c) = constrain {
                exact &= global_uses(c, &t, used);
            }
            for i in t {
                defs.mark(i);
            }
        }
        Stmt::Havoc { targets } => {
            for lv in targets {
                match lv {
                    LValue::Global(i) => defs.mark(*i),
                    other => exact &= lvalue_reads(other, used),
                }
            }
        }
        Stmt::Return { values } => {
            for v in values.iter().flatten() {
                exact &= global_uses(v, &[], used);
            }
        }
        // calls (whose callees may read any global), `constrain` (which may keep values),
        // threads, and Zing's statements: every global counts as read
        _ => exact = false,
    }
    if !exact {
        used.mark_all();
    }
}

/// The globals that may be read before written on some path from the entry of `p`, where
/// reaching node `stop` reads every global (the Getafix layout's `endinit`, after which the
/// threads see the globals `init` leaves). A global dead at `init`'s entry starts with one
/// value instead of both, exactly as a dead local does.
pub fn globals_live_at_entry(p: &Proc, globals: usize, stop: u32) -> Vec<bool> {
    let len = p.nodes.len();
    if len == 0 {
        return vec![false; globals];
    }
    let mut used = vec![vec![false; globals]; len];
    let mut defs = vec![vec![false; globals]; len];
    for pc in 0..len {
        if pc == stop as usize {
            used[pc].iter_mut().for_each(|u| *u = true);
        } else {
            global_use_def(p, pc, &mut used[pc], &mut defs[pc]);
        }
    }
    let mut live = vec![vec![false; globals]; len];
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..len).rev() {
            for g in 0..globals {
                if live[pc][g] {
                    continue;
                }
                let out = successors(p, pc).iter().any(|&s| live[s as usize][g]);
                if used[pc][g] || (out && !defs[pc][g]) {
                    live[pc][g] = true;
                    changed = true;
                }
            }
        }
    }
    live.swap_remove(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc_of(src: &str, name: &str) -> Proc {
        let c = crate::compile("t.bp", src, crate::Lang::Bp).expect("compiles");
        let id = c.program.proc_by_name(name).expect("proc");
        c.program.procs[id as usize].clone()
    }

    #[test]
    fn written_before_read_is_dead_at_entry() {
        let p = proc_of(
            "void main() begin decl a, b, c; a := T; if (a & b) then c := F; fi assert(c); end",
            "main",
        );
        // a is written first; b is read by the test; c is read by the assert on the path
        // that skips the branch
        assert_eq!(live_at_entry(&p), vec![false, true, true]);
    }

    #[test]
    fn nothing_is_read_past_a_false_assumption() {
        // the shape of a C array read translated to a boolean program: every index the
        // translation covers writes x, and the rest is cut off by assume(F)
        let p = proc_of(
            "void main() begin decl i, x; i := *; if (i) then x := T; else assume(F); fi \
             assert(x); end",
            "main",
        );
        assert_eq!(live_at_entry(&p), vec![false, false]);
        // nor past the exit of `while (T)`, which is never taken
        let p = proc_of(
            "void main() begin decl x; while (T) do skip; od assert(x); end",
            "main",
        );
        assert_eq!(live_at_entry(&p), vec![false]);
        let p = proc_of(
            "void main() begin decl x; while (F) do assert(x); od end",
            "main",
        );
        assert_eq!(live_at_entry(&p), vec![false]);
        let g = crate::compile(
            "t.bp",
            "decl g; void init() begin if (*) then g := T; else assume(F); fi endinit: skip; \
             end void thread1() begin skip; end",
            crate::Lang::Bp,
        )
        .expect("compiles");
        let init = g.program.proc_by_name("init").expect("init");
        let stop = g.program.procs[init as usize]
            .nodes
            .iter()
            .position(|n| n.labels.iter().any(|l| l == "endinit"))
            .expect("endinit") as u32;
        assert_eq!(
            globals_live_at_entry(&g.program.procs[init as usize], 1, stop),
            vec![false]
        );
    }

    #[test]
    fn receivers_are_written_by_the_call() {
        let p = proc_of(
            "bool f() begin return T; end void main() begin decl x; x := f(); assert(x); end",
            "main",
        );
        assert_eq!(live_at_entry(&p), vec![false]);
    }

    #[test]
    fn live_bits_per_node() {
        let p = proc_of(
            "void main() begin decl a, b; a, b := *, *; assert(a); b := T; assert(b); end",
            "main",
        );
        let bits = LiveBits::of(&p);
        // after the parallel assignment only a is read before written (b is overwritten)
        let after = p.nodes[0].succ[0];
        assert!(bits.live(after, 0));
        assert!(!bits.live(after, 1));
        // a formal that is never read is dead at entry, though live_at_entry counts it
        let f = proc_of(
            "void f(x, y) begin assert(y); end void main() begin f(*, *); end",
            "f",
        );
        let bits = LiveBits::of(&f);
        assert!(!bits.live(0, 0));
        assert!(bits.live(0, 1));
        assert_eq!(live_at_entry(&f), vec![true, true]);
    }

    #[test]
    fn passive_reads_are_live_everywhere_and_passive_writes_define_nothing() {
        // a is written before it is read in this frame, but another thread's broadcast reads
        // it as a$ at any moment: live at every node. b is written only as b$ (another
        // thread's b), so this frame's b stays dead up to its own write.
        let p = proc_of(
            "void w() begin decl a, b; a := T; b$ := a$; b := F; assert(a & b); end \
             void main() begin start_thread w(); end",
            "w",
        );
        let bits = LiveBits::of(&p);
        for pc in 0..p.nodes.len() as u32 {
            assert!(bits.live(pc, 0), "a dead at node {pc}");
        }
        assert!(!bits.live(0, 1));
        assert!(!bits.live(1, 1));
    }

    #[test]
    fn loops_keep_variables_live() {
        let p = proc_of(
            "void main() begin decl x, y; while (*) do y := x; x := T; od assert(y); end",
            "main",
        );
        assert_eq!(live_at_entry(&p), vec![true, true]);
    }

    #[test]
    fn invariants_and_thread_copies_read() {
        let p = proc_of("void main() begin decl x; enforce x; x := T; end", "main");
        assert_eq!(live_at_entry(&p), vec![true]);
        let p = proc_of(
            "void main() begin decl x; start_thread goto L; x := T; L: x := F; end",
            "main",
        );
        assert_eq!(live_at_entry(&p), vec![true]);
    }

    #[test]
    fn primed_target_is_not_a_read_but_primed_other_is() {
        let p = proc_of(
            "void main() begin decl x, y; x := * constrain 'x & 'y; assert(x); end",
            "main",
        );
        assert_eq!(live_at_entry(&p), vec![false, true]);
    }

    fn getafix_init(src: &str) -> Vec<bool> {
        let c = crate::compile("t.bp", src, crate::Lang::Bp).expect("compiles");
        let crate::ir::Layout::Getafix { init, endinit, .. } = c.program.layout else {
            panic!("not the Getafix layout");
        };
        let p = &c.program.procs[init as usize];
        globals_live_at_entry(p, c.program.globals.len(), endinit)
    }

    #[test]
    fn globals_written_by_init_before_read_are_dead() {
        let live = getafix_init(
            "decl atomic, a, b, c, d; \
             void init() begin atomic, c := F, F; b := a; a := F; if (d) then c := T; fi \
             endinit: skip; end \
             void thread1() begin skip; end void thread2() begin skip; end",
        );
        // atomic and c are written first; a is read (copied into b) before it is written;
        // b is written from a; d is tested
        assert_eq!(live, vec![false, true, false, false, true]);
    }

    #[test]
    fn globals_init_leaves_alone_and_calls_keep_globals_live() {
        let live = getafix_init(
            "decl atomic, g, h; void f() begin skip; end \
             void init() begin atomic := F; endinit: skip; end \
             void thread1() begin skip; end void thread2() begin skip; end",
        );
        assert_eq!(live, vec![false, true, true]);
        let live = getafix_init(
            "decl atomic, g; void f() begin skip; end \
             void init() begin f(); atomic, g := F, F; endinit: skip; end \
             void thread1() begin skip; end void thread2() begin skip; end",
        );
        assert_eq!(live, vec![true, true]);
    }
}
