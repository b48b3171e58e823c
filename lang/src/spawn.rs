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
    for (proc, q) in p.procs.iter().enumerate() {
        for (pc, n) in q.nodes.iter().enumerate() {
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
        // start_thread goto back to before itself
        assert!(unbounded(
            "void main() begin L: skip; start_thread goto L; end_thread; end\n"
        ));
    }
}
