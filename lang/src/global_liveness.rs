//! Live globals across procedures (live ranges for globals, seed 001 §3.3).
//!
//! A global is *live* before a node if some execution from there may read it before writing
//! it. A nondeterministic value given to a global that is dead where it gets it (an initial
//! value, a `*` assigned to it) is never observed, so engines give it one value instead of
//! every value: a loop that havocs 14 globals nobody reads makes one state per loop head, not
//! 2^14.
//!
//! Sequential programs (one activation, no thread creation) get a flow-sensitive,
//! context-insensitive analysis: a call reads what its callee may read from its entry, and a
//! procedure's exit reads what may be read after any of its call sites. Concurrent programs get
//! the flow-insensitive one: another thread may read a global at any time, so a global is live
//! everywhere if any statement reads it. Statements the analysis does not model (Zing's heap
//! statements, `constrain`, `raise`, threads, method calls in expressions) read every global.

use crate::ir::{LValue, Layout, Pc, Program, Stmt};
use crate::liveness::{global_use_def, global_uses};

/// The largest analysis (nodes × words of globals) kept per node; beyond it the
/// flow-insensitive answer, which is sound too, is used for every node.
const MAX_WORDS: usize = 1 << 22;

/// The live globals before every node of a program.
#[derive(Clone, Debug, Default)]
pub struct GlobalLive {
    words: usize,
    /// Per procedure, one run of `words` words per node; empty when `anywhere` decides.
    per_node: Vec<Vec<u64>>,
    /// The globals some statement reads: live everywhere when `per_node` is empty.
    anywhere: Vec<u64>,
}

/// What one node reads and certainly writes, as bit sets, and how control leaves it.
struct Effect {
    used: Vec<u64>,
    defs: Vec<u64>,
}

fn pack(flags: &[bool]) -> Vec<u64> {
    let mut w = vec![0u64; flags.len().div_ceil(64)];
    for (i, &f) in flags.iter().enumerate() {
        if f {
            w[i / 64] |= 1 << (i % 64);
        }
    }
    w
}

/// The globals `lvs` overwrite, and the globals their object and index expressions read
/// (into `used`); false if one of those may read globals it does not name.
fn lvalues(lvs: &[Option<LValue>], used: &mut [bool], defs: &mut [bool]) -> bool {
    let mut exact = true;
    for lv in lvs.iter().flatten() {
        match lv {
            LValue::Global(i) => defs[*i as usize] = true,
            LValue::Local(_) | LValue::PassiveLocal(_) => {}
            LValue::Field(e, _) => exact &= global_uses(e, &[], used),
            LValue::Elem(e, i, _) => exact &= global_uses(e, &[], used) & global_uses(i, &[], used),
        }
    }
    exact
}

/// The node's own reads and writes; a call's are its arguments' reads and, on its return, its
/// receivers' writes (what the callee reads is added by the caller of this function).
fn effect(program: &Program, proc: usize, pc: usize) -> Effect {
    let n = program.globals.len();
    let p = &program.procs[proc];
    let (mut used, mut defs) = (vec![false; n], vec![false; n]);
    match &p.nodes[pc].stmt {
        Stmt::Call { args, results, .. } => {
            let mut exact = true;
            if let Some(inv) = &p.nodes[pc].invariant {
                exact &= global_uses(inv, &[], &mut used);
            }
            for a in args {
                exact &= global_uses(a, &[], &mut used);
            }
            exact &= lvalues(results, &mut used, &mut defs);
            if !exact {
                used.fill(true);
            }
        }
        // a new thread reads its arguments; what it reads later is in its own nodes
        Stmt::StartThread { args, .. } => {
            let mut exact = true;
            if let Some(inv) = &p.nodes[pc].invariant {
                exact &= global_uses(inv, &[], &mut used);
            }
            for a in args {
                exact &= global_uses(a, &[], &mut used);
            }
            if !exact {
                used.fill(true);
            }
        }
        Stmt::StartThreadGoto => {
            if let Some(inv) = &p.nodes[pc].invariant {
                if !global_uses(inv, &[], &mut used) {
                    used.fill(true);
                }
            }
        }
        _ => global_use_def(p, pc, &mut used, &mut defs),
    }
    Effect {
        used: pack(&used),
        defs: pack(&defs),
    }
}

/// Whether more than one thread may run: then every read may happen at any time.
fn concurrent(program: &Program) -> bool {
    matches!(program.layout, Layout::Getafix { .. })
        || program.activations.len() > 1
        || program.procs.iter().any(|p| {
            p.nodes
                .iter()
                .any(|n| matches!(n.stmt, Stmt::StartThread { .. } | Stmt::StartThreadGoto))
        })
}

fn or_into(into: &mut [u64], from: &[u64]) -> bool {
    let mut changed = false;
    for (a, &b) in into.iter_mut().zip(from) {
        let new = *a | b;
        changed |= new != *a;
        *a = new;
    }
    changed
}

impl GlobalLive {
    /// Computes the live globals of `program`.
    pub fn of(program: &Program) -> GlobalLive {
        let words = program.globals.len().div_ceil(64);
        let effects: Vec<Vec<Effect>> = (0..program.procs.len())
            .map(|q| {
                (0..program.procs[q].nodes.len())
                    .map(|pc| effect(program, q, pc))
                    .collect()
            })
            .collect();
        let mut anywhere = vec![0u64; words];
        for e in effects.iter().flatten() {
            or_into(&mut anywhere, &e.used);
        }
        let nodes: usize = program.procs.iter().map(|p| p.nodes.len()).sum();
        if words == 0 || concurrent(program) || nodes.saturating_mul(words) > MAX_WORDS {
            return GlobalLive {
                words,
                per_node: Vec::new(),
                anywhere,
            };
        }
        let procs = &program.procs;
        let mut live: Vec<Vec<u64>> = procs
            .iter()
            .map(|p| vec![0; p.nodes.len() * words])
            .collect();
        // what may be read after a procedure returns, over all its call sites
        let mut exit = vec![vec![0u64; words]; procs.len()];
        let mut out = vec![0u64; words];
        let mut changed = true;
        while changed {
            changed = false;
            for (q, p) in procs.iter().enumerate() {
                let mut inner = true;
                while inner {
                    inner = false;
                    for pc in (0..p.nodes.len()).rev() {
                        let node = &p.nodes[pc];
                        let e = &effects[q][pc];
                        out.fill(0);
                        match &node.stmt {
                            Stmt::Call { callee, .. }
                                if !procs[*callee as usize].nodes.is_empty() =>
                            {
                                // the callee's entry covers the rest, through its exit
                                out.copy_from_slice(&live[*callee as usize][..words]);
                            }
                            Stmt::Return { .. } => out.copy_from_slice(&exit[q]),
                            _ => {
                                for &s in crate::liveness::successors(p, pc) {
                                    let s = s as usize;
                                    or_into(&mut out, &live[q][s * words..(s + 1) * words]);
                                }
                                for (o, d) in out.iter_mut().zip(&e.defs) {
                                    *o &= !d;
                                }
                            }
                        }
                        for (o, u) in out.iter_mut().zip(&e.used) {
                            *o |= u;
                        }
                        if or_into(&mut live[q][pc * words..(pc + 1) * words], &out) {
                            inner = true;
                            changed = true;
                        }
                    }
                }
            }
            // a callee's exit reads what its callers may read after the call (less the
            // receivers the return writes, plus what their lvalues read)
            for (q, p) in procs.iter().enumerate() {
                for (pc, node) in p.nodes.iter().enumerate() {
                    let Stmt::Call { callee, .. } = &node.stmt else {
                        continue;
                    };
                    let e = &effects[q][pc];
                    out.fill(0);
                    for &s in &node.succ {
                        let s = s as usize;
                        or_into(&mut out, &live[q][s * words..(s + 1) * words]);
                    }
                    for ((o, d), u) in out.iter_mut().zip(&e.defs).zip(&e.used) {
                        *o = (*o & !d) | u;
                    }
                    changed |= or_into(&mut exit[*callee as usize], &out);
                }
            }
        }
        GlobalLive {
            words,
            per_node: live,
            anywhere,
        }
    }

    /// Whether global `g` may be read before it is written from node `pc` of `proc` on.
    #[inline]
    pub fn live(&self, proc: u32, pc: Pc, g: usize) -> bool {
        let w = match self.per_node.get(proc as usize) {
            Some(bits) => bits.get(pc as usize * self.words + g / 64),
            None => self.anywhere.get(g / 64),
        };
        w.is_some_and(|w| w >> (g % 64) & 1 != 0)
    }

    /// Whether some statement of the program may read global `g`.
    pub fn read_anywhere(&self, g: usize) -> bool {
        self.anywhere
            .get(g / 64)
            .is_some_and(|w| w >> (g % 64) & 1 != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live_of(src: &str) -> (Program, GlobalLive) {
        let c = crate::compile("t.bp", src, crate::Lang::Bp).expect("compiles");
        let l = GlobalLive::of(&c.program);
        (c.program, l)
    }

    /// The live globals after the first node of `proc` (its one successor).
    fn after_first(p: &Program, l: &GlobalLive, proc: &str) -> Vec<bool> {
        let q = p.proc_by_name(proc).unwrap();
        let next = p.procs[q as usize].nodes[0].succ[0];
        (0..p.globals.len()).map(|g| l.live(q, next, g)).collect()
    }

    #[test]
    fn globals_nobody_reads_are_dead_and_read_ones_live() {
        let (p, l) = live_of(
            "decl a, b, c; void main() begin a, b, c := *, *, *; b := F; assert(a | b); end",
        );
        // a is read; b is overwritten first; c is never read
        assert_eq!(after_first(&p, &l, "main"), vec![true, false, false]);
        assert!(l.read_anywhere(1) && !l.read_anywhere(2));
    }

    #[test]
    fn a_call_reads_what_its_callee_reads() {
        let (p, l) = live_of(
            "decl a, b; void f() begin assert(b); end void main() begin a, b := *, *; f(); end",
        );
        assert_eq!(after_first(&p, &l, "main"), vec![false, true]);
    }

    #[test]
    fn an_exit_reads_what_callers_read_after_the_call() {
        let (p, l) = live_of(
            "decl a, b; void f() begin a, b := *, *; end \
             void main() begin f(); assert(a); f(); end",
        );
        // a is read after the first call; b after neither
        assert_eq!(after_first(&p, &l, "f"), vec![true, false]);
    }

    #[test]
    fn a_call_result_kills_its_global() {
        let (p, l) = live_of(
            "decl a, b; bool t() begin return T; end \
             void main() begin a, b := *, *; a := t(); assert(a & b); end",
        );
        assert_eq!(after_first(&p, &l, "main"), vec![false, true]);
    }

    #[test]
    fn nothing_is_read_past_a_false_assumption() {
        let (p, l) = live_of(
            "decl a, b; void main() begin a, b := *, *; if (*) then a := T; else assume(F); fi \
             assert(a); end",
        );
        assert_eq!(after_first(&p, &l, "main"), vec![false, false]);
    }

    #[test]
    fn loops_keep_globals_live() {
        let (p, l) = live_of(
            "decl a, b; void main() begin a := *; while (*) do b := a; a := T; od assert(b); end",
        );
        assert_eq!(after_first(&p, &l, "main"), vec![true, true]);
    }

    #[test]
    fn threads_make_every_read_global_live_everywhere() {
        let (p, l) = live_of(
            "decl a, b, c; void r() begin assert(a); end \
             void main() begin start_thread r(); a, b, c := *, *, *; b := F; assert(b); end",
        );
        // b is overwritten before main reads it, but another thread might read between
        assert_eq!(after_first(&p, &l, "main"), vec![true, true, false]);
    }
}
