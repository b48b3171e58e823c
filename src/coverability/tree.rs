//! The Karp–Miller tree over counter states: a shared valuation, the thread that owns the
//! atomic section (if any), and how many threads are in each thread-local state, a count
//! that may be ω ("as many as wanted").
//!
//! A node's successor is accelerated against its ancestors: when an ancestor with the same
//! shared valuation and owner has counts no larger than the successor's, the steps between
//! them can be repeated (a thread's step depends only on the globals and its own state, so
//! more threads never disable a step), and every count that grew becomes ω. A node whose
//! counts are covered by a node already expanded (same globals and owner, counts no larger)
//! is not expanded: whatever it reaches, the larger node reaches. Both trees are finite
//! (Karp and Miller's argument: an infinite branch would hold a growing pair), and each node
//! stands for reachable states with counts as large as wanted where it says ω, so an error
//! step enabled at a node is coverable, and one enabled at no node is not.

use super::local::{Effect, GId, LId, Table, Trans};
use crate::runtime::{State, Value, Violation};
use crate::search::{Limit, Watch};
use ahash::AHashMap;
use std::collections::VecDeque;

/// A count that stands for "any number".
pub const OMEGA: u32 = u32::MAX;

/// A counter state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Marking {
    pub g: GId,
    /// The thread that owns the atomic section: only it moves.
    pub owner: Option<LId>,
    /// Threads per local state, sorted by local state, counts above 0 (or [`OMEGA`]).
    pub counts: Vec<(LId, u32)>,
}

impl Marking {
    fn add(&mut self, l: LId) {
        match self.counts.binary_search_by_key(&l, |e| e.0) {
            Ok(i) => {
                let c = &mut self.counts[i].1;
                if *c != OMEGA {
                    // a finite count never reaches OMEGA: a program with 4 billion threads
                    // would run out of memory long before
                    *c = (*c + 1).min(OMEGA - 1);
                }
            }
            Err(i) => self.counts.insert(i, (l, 1)),
        }
    }

    fn remove(&mut self, l: LId) {
        if let Ok(i) = self.counts.binary_search_by_key(&l, |e| e.0) {
            let c = &mut self.counts[i].1;
            if *c == OMEGA {
                return;
            }
            *c -= 1;
            if *c == 0 {
                self.counts.remove(i);
            }
        }
    }

    fn count(&self, l: LId) -> u32 {
        self.counts
            .binary_search_by_key(&l, |e| e.0)
            .map_or(0, |i| self.counts[i].1)
    }

    /// Whether `self` is covered by `other`: the same globals and owner, and no count larger.
    pub fn covered_by(&self, other: &Marking) -> bool {
        self.g == other.g
            && self.owner == other.owner
            && self.counts.iter().all(|&(l, c)| other.count(l) >= c)
    }

    /// Places a thread in local state `l`: the owner's slot if it is atomic, a count otherwise.
    fn place(&mut self, table: &Table, l: LId) {
        if table.is_atomic(l) {
            debug_assert!(self.owner.is_none(), "two threads own the atomic section");
            self.owner = Some(l);
        } else {
            self.add(l);
        }
    }

    /// The local states whose threads may move, each once.
    fn movers(&self) -> Vec<LId> {
        match self.owner {
            Some(o) => vec![o],
            None => self.counts.iter().map(|e| e.0).collect(),
        }
    }
}

/// A node of the tree: its marking, and how it was reached from its parent.
struct Node {
    mark: Marking,
    parent: Option<u32>,
    /// The local state of the thread that moved and the outcome it took.
    via: (LId, u32),
    /// The index of the initial valuation the branch starts from.
    root: u32,
    /// The number of steps from the root.
    depth: u32,
    /// The closest ancestor this node's marking was accelerated against: the steps from it
    /// to here can be repeated.
    pump: Option<u32>,
}

/// An error found in the tree: the initial valuation, the steps from it (local state of the
/// mover, outcome index), and what it is.
#[derive(Clone, Debug)]
pub struct Reached {
    pub init: Vec<Value>,
    pub steps: Vec<(LId, u32)>,
    pub what: What,
    /// Whether some count on the way was ω (the steps alone may not replay).
    pub accelerated: bool,
    /// The repeatable segments of `steps`, as (start, end) step indices: after step
    /// `end - 1`, the steps `start..end` can run again (the marking grew along them).
    pub pumps: Vec<(usize, usize)>,
}

/// What kind of error a tree node reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// The last step is a violation.
    Violation(Violation),
    /// The last state has a thread at target label number `.0`.
    Target(u32),
}

/// The tree's outcome and counters.
#[derive(Default)]
pub struct TreeResult {
    pub reached: Option<Reached>,
    pub limit: Option<Limit>,
    /// Nodes expanded.
    pub expanded: u64,
    /// Nodes built (expanded or covered).
    pub built: u64,
    /// Successors that some count was accelerated to ω in.
    pub accelerations: u64,
    /// Steps computed (transitions taken).
    pub transitions: u64,
    /// Initial states taken (all of them unless a limit or an error came first).
    pub initial: u64,
}

/// Builds the tree from the initial states `inits` (valuation and state), breadth-first, up
/// to the first error. The initial states are taken one at a time under the limits: there
/// may be 2^40 of them.
pub fn build(
    table: &mut Table,
    inits: impl IntoIterator<Item = (Vec<Value>, State)>,
    watch: &mut Watch,
) -> TreeResult {
    let mut res = TreeResult::default();
    let mut nodes: Vec<Node> = Vec::new();
    let mut valuations: Vec<Vec<Value>> = Vec::new();
    let mut queue: VecDeque<u32> = VecDeque::new();
    for (valuation, s) in inits {
        if let Some(l) = watch.check(res.expanded) {
            res.limit = Some(l);
            return res;
        }
        res.initial += 1;
        let g = table.global(&s.globals);
        let mut mark = Marking {
            g,
            owner: None,
            counts: Vec::new(),
        };
        let mut target = None;
        for t in s.threads.iter() {
            let l = table.local(t);
            target = target.or(table.target(l));
            mark.place(table, l);
        }
        let root = valuations.len() as u32;
        valuations.push(valuation);
        nodes.push(Node {
            mark,
            parent: None,
            via: (0, 0),
            root,
            depth: 0,
            pump: None,
        });
        let id = nodes.len() as u32 - 1;
        if let Some(t) = target {
            res.reached = Some(reached(&nodes, &valuations, id, None, What::Target(t)));
            return res;
        }
        queue.push_back(id);
    }
    // the expanded nodes by globals and owner, for the covering check
    let mut expanded: AHashMap<(GId, Option<LId>), Vec<u32>> = AHashMap::default();
    while let Some(n) = queue.pop_front() {
        let key = (nodes[n as usize].mark.g, nodes[n as usize].mark.owner);
        let peers = expanded.entry(key).or_default();
        if peers
            .iter()
            .any(|&p| nodes[n as usize].mark.covered_by(&nodes[p as usize].mark))
        {
            continue;
        }
        // the nodes this one covers need no longer be looked at for covering
        peers.retain(|&p| !nodes[p as usize].mark.covered_by(&nodes[n as usize].mark));
        peers.push(n);
        res.expanded += 1;
        if let Some(l) = watch.check(res.expanded) {
            res.limit = Some(l);
            return res;
        }
        let mark = nodes[n as usize].mark.clone();
        for l in mark.movers() {
            let trans = table.step(mark.g, l);
            for &Trans { outcome, g, effect } in trans.iter() {
                res.transitions += 1;
                let mut next = mark.clone();
                next.g = g;
                if next.owner == Some(l) {
                    next.owner = None;
                } else {
                    next.remove(l);
                }
                let mut target = None;
                match effect {
                    Effect::Error(v) => {
                        res.reached = Some(reached(
                            &nodes,
                            &valuations,
                            n,
                            Some((l, outcome)),
                            What::Violation(v),
                        ));
                        return res;
                    }
                    Effect::End => {}
                    Effect::Move(a) => {
                        target = table.target(a);
                        next.place(table, a);
                    }
                    Effect::Spawn(a, c) => {
                        target = table.target(a).or(table.target(c));
                        next.place(table, a);
                        next.place(table, c);
                    }
                }
                let pump = accelerate(&nodes, n, &mut next);
                if pump.is_some() {
                    res.accelerations += 1;
                }
                res.built += 1;
                nodes.push(Node {
                    mark: next,
                    parent: Some(n),
                    via: (l, outcome),
                    root: nodes[n as usize].root,
                    depth: nodes[n as usize].depth + 1,
                    pump,
                });
                let id = nodes.len() as u32 - 1;
                if let Some(t) = target {
                    res.reached = Some(reached(&nodes, &valuations, id, None, What::Target(t)));
                    return res;
                }
                queue.push_back(id);
            }
        }
    }
    res
}

/// Raises to ω every count of `next` that grew since an ancestor (from `parent` up) that it
/// covers with the same globals and owner. Returns the closest ancestor that changed a count.
fn accelerate(nodes: &[Node], parent: u32, next: &mut Marking) -> Option<u32> {
    let mut pump = None;
    let mut cur = Some(parent);
    while let Some(a) = cur {
        let anc = &nodes[a as usize];
        if anc.mark.covered_by(next) && anc.mark != *next {
            for e in next.counts.iter_mut() {
                if e.1 != OMEGA && anc.mark.count(e.0) < e.1 {
                    e.1 = OMEGA;
                    pump = pump.or(Some(a));
                }
            }
        }
        cur = anc.parent;
    }
    pump
}

/// The error at node `n` (followed by the error step `last`, if any) as a path of local
/// states and outcomes from its initial valuation.
fn reached(
    nodes: &[Node],
    valuations: &[Vec<Value>],
    n: u32,
    last: Option<(LId, u32)>,
    what: What,
) -> Reached {
    let mut steps: Vec<(LId, u32)> = last.into_iter().collect();
    let mut accelerated = false;
    let mut pumps = Vec::new();
    let mut cur = n;
    loop {
        let node = &nodes[cur as usize];
        accelerated |= node.mark.counts.iter().any(|e| e.1 == OMEGA);
        if let Some(a) = node.pump {
            pumps.push((nodes[a as usize].depth as usize, node.depth as usize));
        }
        match node.parent {
            Some(p) => {
                steps.push(node.via);
                cur = p;
            }
            None => break,
        }
    }
    steps.reverse();
    Reached {
        init: valuations[nodes[cur as usize].root as usize].clone(),
        steps,
        what,
        accelerated,
        pumps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(counts: &[(LId, u32)]) -> Marking {
        Marking {
            g: 0,
            owner: None,
            counts: counts.to_vec(),
        }
    }

    #[test]
    fn covering_compares_every_count_and_the_control_state() {
        assert!(mark(&[(1, 1)]).covered_by(&mark(&[(1, 2), (3, 1)])));
        assert!(!mark(&[(1, 3)]).covered_by(&mark(&[(1, 2)])));
        assert!(mark(&[(1, 3)]).covered_by(&mark(&[(1, OMEGA)])));
        assert!(!mark(&[(2, 1)]).covered_by(&mark(&[(1, OMEGA)])));
        let mut other = mark(&[(1, 1)]);
        other.g = 1;
        assert!(!mark(&[(1, 1)]).covered_by(&other));
        other.g = 0;
        other.owner = Some(5);
        assert!(!mark(&[(1, 1)]).covered_by(&other));
    }

    #[test]
    fn counts_go_up_and_down_but_omega_stays() {
        let mut m = mark(&[]);
        m.add(4);
        m.add(2);
        m.add(4);
        assert_eq!(m.counts, vec![(2, 1), (4, 2)]);
        m.remove(2);
        assert_eq!(m.counts, vec![(4, 2)]);
        m.counts[0].1 = OMEGA;
        m.remove(4);
        m.add(4);
        assert_eq!(m.counts, vec![(4, OMEGA)]);
    }

    #[test]
    fn a_grown_count_is_accelerated_against_a_covered_ancestor() {
        let nodes = vec![Node {
            mark: mark(&[(1, 1)]),
            parent: None,
            via: (0, 0),
            root: 0,
            depth: 0,
            pump: None,
        }];
        let mut next = mark(&[(1, 1), (2, 1)]);
        assert_eq!(accelerate(&nodes, 0, &mut next), Some(0));
        assert_eq!(next.counts, vec![(1, 1), (2, OMEGA)]);
        // an ancestor with other globals does not count
        let mut next = mark(&[(1, 2)]);
        next.g = 7;
        assert_eq!(accelerate(&nodes, 0, &mut next), None);
        assert_eq!(next.counts, vec![(1, 2)]);
    }
}
