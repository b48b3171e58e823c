//! The one forward *must* analysis over a procedure's nodes that the static analyses of
//! threads share (the locks a thread surely holds, the objects it surely has to itself): facts
//! are sets, intersected where paths meet, propagated with a work list to a fixpoint.

use zingrs_lang::ir::{Proc, Stmt};

/// The nodes where control starts with nothing known: the entry (first), every exception
/// handler, and the first node of every thread started by `start_thread goto`.
pub(super) fn roots(p: &Proc) -> Vec<usize> {
    let mut roots = vec![0usize];
    roots.extend(
        p.tries
            .iter()
            .flat_map(|t| t.handlers.iter().map(|h| h.1 as usize)),
    );
    for node in &p.nodes {
        if let Stmt::StartThreadGoto = node.stmt {
            roots.extend(node.succ.get(1).map(|&s| s as usize));
        }
    }
    roots
}

/// The facts before each node (`None`: unreachable from `start`). `start` gives each starting
/// node its facts; `transfer` turns the facts before a node into those after it; `follows(pc,
/// s)` says whether the edge from `pc` to `s` carries facts (an edge into a node that starts
/// with nothing known carries none).
pub(super) fn must_forward<K: PartialEq + Clone>(
    p: &Proc,
    start: &[(usize, Vec<K>)],
    mut transfer: impl FnMut(usize, &mut Vec<K>),
    follows: impl Fn(usize, usize) -> bool,
) -> Vec<Option<Vec<K>>> {
    let n = p.nodes.len();
    let mut before: Vec<Option<Vec<K>>> = vec![None; n];
    let mut work = Vec::new();
    let meet = |slot: &mut Option<Vec<K>>, facts: &[K]| -> bool {
        match slot {
            None => {
                *slot = Some(facts.to_vec());
                true
            }
            Some(old) => {
                let len = old.len();
                old.retain(|k| facts.contains(k));
                old.len() != len
            }
        }
    };
    for (r, facts) in start {
        if *r < n && meet(&mut before[*r], facts) {
            work.push(*r);
        }
    }
    while let Some(pc) = work.pop() {
        let mut facts = before[pc].clone().unwrap_or_default();
        transfer(pc, &mut facts);
        for &s in &p.nodes[pc].succ {
            let s = s as usize;
            if s < n && follows(pc, s) && meet(&mut before[s], &facts) {
                work.push(s);
            }
        }
    }
    before
}
