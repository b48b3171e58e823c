//! Which thread creations can repeat without bound: a creation that can run again after itself
//! (in a loop, through recursion, or in a thread that starts its own kind) can make the number
//! of threads grow forever, which a depth-first search follows before it schedules any of them.

use crate::ir::{Pc, Program, Stmt};

/// Whether some thread creation (`start_thread`, `ASYNC_` call, Zing `async`) lies on a cycle
/// of the program's control flow, where call and creation edges lead to the callee's entry. An
/// over-approximation (a call's return is taken as its own successor, so every cycle found
/// through calls is a real path of control points, but a cycle may be cut by the data).
pub fn unbounded_creation(p: &Program) -> bool {
    let base: Vec<usize> = p
        .procs
        .iter()
        .scan(0, |n, proc| {
            let b = *n;
            *n += proc.nodes.len();
            Some(b)
        })
        .collect();
    let total: usize = p.procs.iter().map(|q| q.nodes.len()).sum();
    let succ = |proc: usize, pc: Pc| -> Vec<usize> {
        let node = &p.procs[proc].nodes[pc as usize];
        let mut out: Vec<usize> = node.succ.iter().map(|&s| base[proc] + s as usize).collect();
        if let Stmt::Call { callee, .. } | Stmt::StartThread { callee, .. } = node.stmt {
            if !p.procs[callee as usize].nodes.is_empty() {
                out.push(base[callee as usize]);
            }
        }
        out
    };
    let at = |v: usize| -> (usize, Pc) {
        let proc = base.partition_point(|&b| b <= v) - 1;
        (proc, (v - base[proc]) as Pc)
    };
    // a call inside a loop to a procedure that creates threads (itself, through its callees
    // or through the threads it starts) creates them again at each iteration; the walk below
    // follows no return back to a caller, so it would not see that cycle
    let creates = creators(p);
    for (proc, q) in p.procs.iter().enumerate() {
        for (pc, n) in q.nodes.iter().enumerate() {
            if let Stmt::Call { callee, .. } | Stmt::StartThread { callee, .. } = n.stmt {
                if creates[callee as usize] && on_local_cycle(p, proc, pc as Pc) {
                    return true;
                }
            }
            if !matches!(n.stmt, Stmt::StartThread { .. } | Stmt::StartThreadGoto) {
                continue;
            }
            let start = base[proc] + pc;
            let mut seen = vec![false; total];
            let mut todo = succ(proc, pc as Pc);
            while let Some(v) = todo.pop() {
                if v == start {
                    return true;
                }
                if std::mem::replace(&mut seen[v], true) {
                    continue;
                }
                let (vp, vpc) = at(v);
                todo.extend(succ(vp, vpc));
            }
        }
    }
    false
}

/// Per procedure and node: whether a second thread may exist while some thread is there, the
/// places where `x$` (another thread's copy of a local) can mean something. A node qualifies
/// when a created thread can run it (from the entry of a procedure started as a thread, or from
/// a `start_thread goto` target, through calls; in the Getafix layout the `thread` procedures
/// and `init` from `endinit` on), or when the thread that created one can run it afterwards
/// (after a creation, or after a call to a procedure that can create one, through calls). An
/// over-approximation of a may-property: returns to callers are followed only through the
/// call sites of procedures that create threads. Nodes that no thread can reach at all (code
/// after a `return`, say) qualify too: they never run, so they deserve no error.
pub fn thread_context(p: &Program) -> Vec<Vec<bool>> {
    let mut ctx: Vec<Vec<bool>> = p.procs.iter().map(|q| vec![false; q.nodes.len()]).collect();
    let mut todo: Vec<(usize, Pc)> = Vec::new();
    let creates = creators(p);
    if let crate::ir::Layout::Getafix {
        init,
        endinit,
        threads,
    } = &p.layout
    {
        todo.push((*init as usize, *endinit));
        todo.extend(threads.iter().map(|&t| (t as usize, 0)));
    }
    for (proc, q) in p.procs.iter().enumerate() {
        for n in &q.nodes {
            match n.stmt {
                Stmt::StartThread { callee, .. } => {
                    todo.push((callee as usize, 0));
                    todo.extend(n.succ.iter().map(|&s| (proc, s)));
                }
                // the creator goes on at `succ[0]`, the new thread at `succ[1]`
                Stmt::StartThreadGoto => todo.extend(n.succ.iter().map(|&s| (proc, s))),
                Stmt::Call { callee, .. } if creates[callee as usize] => {
                    todo.extend(n.succ.iter().map(|&s| (proc, s)));
                }
                _ => {}
            }
        }
    }
    reach(p, &mut ctx, todo);
    // what the first thread can run at all, from the program's entry
    let mut lone: Vec<Vec<bool>> = p.procs.iter().map(|q| vec![false; q.nodes.len()]).collect();
    let roots = match &p.layout {
        crate::ir::Layout::Getafix { init, .. } => vec![(*init as usize, 0)],
        _ => p.activations.iter().map(|&a| (a as usize, 0)).collect(),
    };
    reach(p, &mut lone, roots);
    for (c, l) in ctx.iter_mut().zip(&lone) {
        for (c, &l) in c.iter_mut().zip(l) {
            *c |= !l;
        }
    }
    ctx
}

/// Marks in `seen` every node reachable from `todo` through control flow and call entries.
fn reach(p: &Program, seen: &mut [Vec<bool>], mut todo: Vec<(usize, Pc)>) {
    while let Some((proc, pc)) = todo.pop() {
        let Some(mark) = seen.get_mut(proc).and_then(|c| c.get_mut(pc as usize)) else {
            continue;
        };
        if std::mem::replace(mark, true) {
            continue;
        }
        let n = &p.procs[proc].nodes[pc as usize];
        todo.extend(n.succ.iter().map(|&s| (proc, s)));
        if let Stmt::Call { callee, .. } | Stmt::StartThread { callee, .. } = n.stmt {
            todo.push((callee as usize, 0));
        }
    }
}

/// Per procedure: whether running it can create a thread (a creation in it, or in a procedure
/// it calls or starts as a thread).
fn creators(p: &Program) -> Vec<bool> {
    let mut creates: Vec<bool> = p
        .procs
        .iter()
        .map(|q| {
            q.nodes
                .iter()
                .any(|n| matches!(n.stmt, Stmt::StartThread { .. } | Stmt::StartThreadGoto))
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (i, q) in p.procs.iter().enumerate() {
            if creates[i] {
                continue;
            }
            let calls_creator = q
                .nodes
                .iter()
                .any(|n| matches!(n.stmt, Stmt::Call { callee, .. } if creates[callee as usize]));
            if calls_creator {
                creates[i] = true;
                changed = true;
            }
        }
    }
    creates
}

/// Whether node `pc` of procedure `proc` lies on a cycle of that procedure's own control flow
/// (a call node's successors are its return points).
fn on_local_cycle(p: &Program, proc: usize, pc: Pc) -> bool {
    let nodes = &p.procs[proc].nodes;
    let mut seen = vec![false; nodes.len()];
    let mut todo: Vec<Pc> = nodes[pc as usize].succ.to_vec();
    while let Some(v) = todo.pop() {
        if v == pc {
            return true;
        }
        if !std::mem::replace(&mut seen[v as usize], true) {
            todo.extend(nodes[v as usize].succ.iter().copied());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::unbounded_creation;

    fn unbounded(text: &str) -> bool {
        let c = crate::compile("t.bp", text, crate::Lang::Bp).expect("compiles");
        unbounded_creation(&c.program)
    }

    const W: &str = "decl x;\nvoid w() begin x := T; end\n";

    #[test]
    fn creations_that_cannot_repeat_are_bounded() {
        assert!(!unbounded(&format!(
            "{W}void main() begin start_thread w(); start_thread w(); end\n"
        )));
        // a procedure that starts a thread, called twice: its return is not an edge back
        assert!(!unbounded(&format!(
            "{W}void s() begin start_thread w(); end\nvoid main() begin s(); s(); end\n"
        )));
        assert!(!unbounded("void main() begin skip; end\n"));
    }

    #[test]
    fn creations_that_can_repeat_are_unbounded() {
        // in a loop
        assert!(unbounded(&format!(
            "{W}void main() begin L: start_thread w(); goto L; end\n"
        )));
        assert!(unbounded(&format!(
            "{W}void main() begin while (*) do start_thread w(); od end\n"
        )));
        // a thread that starts its own kind
        assert!(unbounded(
            "void w() begin start_thread w(); end\nvoid main() begin start_thread w(); end\n"
        ));
        // through recursion
        assert!(unbounded(&format!(
            "{W}void r() begin start_thread w(); if (*) then r(); fi end\n\
             void main() begin r(); end\n"
        )));
        // a procedure that starts a thread, called in a loop (directly or through another)
        assert!(unbounded(&format!(
            "{W}void s() begin start_thread w(); end\n\
             void main() begin while (*) do s(); od end\n"
        )));
        assert!(unbounded(&format!(
            "{W}void s() begin start_thread w(); end\nvoid t() begin s(); end\n\
             void main() begin L: t(); goto L; end\n"
        )));
        // start_thread goto back to before itself
        assert!(unbounded(
            "void main() begin L: skip; start_thread goto L; end_thread; end\n"
        ));
    }

    /// The procedure names and, per node, whether [`super::thread_context`] holds there, of
    /// the nodes whose statement is an assignment (the places a broadcast could be).
    fn contexts(text: &str) -> Vec<(String, Vec<bool>)> {
        let c = crate::compile("t.bp", text, crate::Lang::Bp).expect("compiles");
        let ctx = super::thread_context(&c.program);
        c.program
            .procs
            .iter()
            .zip(ctx)
            .map(|(q, flags)| {
                let assigns = q
                    .nodes
                    .iter()
                    .zip(flags)
                    .filter(|(n, _)| matches!(n.stmt, crate::ir::Stmt::Assign { .. }))
                    .map(|(_, f)| f)
                    .collect();
                (q.name.clone(), assigns)
            })
            .collect()
    }

    #[test]
    fn thread_context_is_per_statement() {
        let got = contexts(
            "decl g;\nvoid f() begin g := T; end\nvoid h() begin g := F; end\n\
             void w() begin h(); end\n\
             void main() begin g := F; f(); start_thread w(); g := T; end\n",
        );
        let named = |n: &str| got.iter().find(|(p, _)| p == n).unwrap().1.clone();
        // main before its start_thread, and f (called only there): no other thread yet
        assert_eq!(named("main"), [false, true]);
        assert_eq!(named("f"), [false]);
        // h is called by the created thread
        assert_eq!(named("h"), [true]);
        // start_thread goto: the new thread and its creator go on in main
        let got =
            contexts("decl g;\nvoid main() begin g := F; start_thread goto L; L: g := T; end\n");
        assert_eq!(got[0].1, [false, true]);
        // Getafix: init before endinit has one thread; the thread procedures have more
        let got = contexts(
            "decl g;\nvoid init() begin g := F; endinit: g := T; end\n\
             void thread1() begin g := F; end\nvoid thread2() begin g := T; end\n",
        );
        assert_eq!(got[0].1, [false, true]);
        assert_eq!(got[1].1, [true]);
        // no creation at all: nowhere
        assert_eq!(
            contexts("decl g;\nvoid main() begin g := T; end\n")[0].1,
            [false]
        );
        // code that never runs (after a return) is left alone
        let got = contexts("decl g;\nvoid main() begin g := T; return; g := F; end\n");
        assert_eq!(got[0].1, [false, true]);
    }
}
