//! Liveness under weak fairness (`--fairness weak`, SPIN's `-f`): only runs in which every
//! process that stays enabled from some point on keeps moving count; a cycle that starves a
//! process enabled all along it is no violation.
//!
//! The nested search cannot see this (a cycle it closes may be unfair while a fair one through
//! the same accepting node exists), so this search builds the product graph of
//! [`super::cycles`] (nodes: a state and the property's bit; edges with the choice taken)
//! and splits it into strongly connected components. A component with an edge inside holds
//! a fair accepting cycle exactly when it has an accepting node and, for every process, a node
//! where that process cannot move or an edge where it moves: the cycle that passes every node
//! and edge of the component is then fair, and if some process is enabled at every node and
//! moves on no edge, no cycle inside is. The counterexample walks from the initial state to the
//! component's accepting node, then round the component through a witness for each process
//! and back. States are kept only on the exploring stack (nodes keep their key, parent,
//! enabled processes and edges), so memory is the graph's, not the states'.

use super::cycles::{path_of, Cycles, Frame, NodeKey, Stop, STUTTER};
use super::*;

/// The product graph as explored.
#[derive(Default)]
struct ProductGraph {
    ids: ahash::AHashMap<NodeKey, u32>,
    /// Per node: how the search first reached it (the root has none), its initial valuation's
    /// index, whether it accepts, the processes that can move there (a bit each, the first 64).
    parent: Vec<Option<(u32, Choice)>>,
    root: Vec<u32>,
    accepting: Vec<bool>,
    enabled: Vec<u64>,
    edges: Vec<Vec<(u32, Choice)>>,
}

impl Cycles {
    /// The fair search: the whole product graph, then its components (see the module's
    /// documentation).
    pub(super) fn run_fair(&mut self, ex: &mut Explorer) -> Result<(), Stop> {
        let m = ex.m;
        let mut g = ProductGraph::default();
        let mut inits: Vec<Vec<Value>> = Vec::new();
        let mut bits = Vec::new();
        for (init, s0) in InitialStates::new(m) {
            if !ex.visit(&s0, Ctx::START) {
                continue;
            }
            ex.result.stats.initial_states += 1;
            match ex.arrive(&s0, || path_of(&init, &[], None)) {
                Arrive::Stop => return Err(Stop),
                Arrive::Skip => continue,
                Arrive::Expand => {}
            }
            inits.push(init);
            let root = (inits.len() - 1) as u32;
            self.graph.initial(m, &s0, &mut bits);
            for &bit in &bits.clone() {
                let key = self.key(ex, &s0, Ctx::START, bit);
                if g.ids.contains_key(&key) {
                    continue;
                }
                let id = g.add(key.clone(), None, root, self.graph.accepting(bit));
                let frame = Frame::new(s0.clone(), Ctx::START, key, None);
                self.explore(ex, &inits[root as usize], frame, id, &mut g)?;
            }
        }
        ex.result
            .stats
            .counters
            .push(("product nodes", g.parent.len() as u64));
        if let Some((stem_end, cycle)) = fair_cycle(&g) {
            let mut choices = Vec::new();
            let mut n = stem_end;
            while let Some((p, c)) = g.parent[n as usize] {
                choices.push(c);
                n = p;
            }
            choices.reverse();
            let init = inits[g.root[n as usize] as usize].clone();
            let cycle_start = choices.iter().filter(|&&c| c != STUTTER).count();
            choices.extend(cycle);
            let path = Path {
                init,
                choices: choices.into_iter().filter(|&c| c != STUTTER).collect(),
            };
            let f = Finding::Cycle {
                property: self.graph.property,
                path,
                cycle_start,
                ltl: self.graph.ltl.clone(),
                fair: true,
            };
            if ex.found(f, (4, self.graph.property as u32, 1)) {
                return Err(Stop);
            }
        }
        Ok(())
    }

    /// Explores the product graph depth-first from `root`, node `id`.
    fn explore(
        &mut self,
        ex: &mut Explorer,
        init: &[Value],
        root: Frame,
        id: u32,
        g: &mut ProductGraph,
    ) -> Result<(), Stop> {
        let mut stack = vec![root];
        let mut ids = vec![id];
        let succs = self.successors(ex, &stack, true, init)?;
        g.enabled[id as usize] = self.enabled;
        stack[0].set_successors(succs);
        while let Some(top) = stack.last_mut() {
            let id = *ids.last().expect("an id per frame");
            let Some((choice, bit, state, ctx)) = top.take_next() else {
                stack.pop();
                ids.pop();
                continue;
            };
            let key = self.key(ex, &state, ctx, bit);
            if let Some(&to) = g.ids.get(&key) {
                g.edges[id as usize].push((to, choice));
                continue;
            }
            if choice != STUTTER {
                ex.visit(&state, ctx);
                if let Some(l) = ex.watch.check(ex.visited.len() as u64) {
                    ex.result.limit = Some(l);
                    return Err(Stop);
                }
                match ex.arrive(&state, || path_of(init, &[&stack], Some(choice))) {
                    Arrive::Stop => return Err(Stop),
                    Arrive::Skip => continue,
                    Arrive::Expand => {}
                }
            }
            let root = g.root[id as usize];
            let to = g.add(
                key.clone(),
                Some((id, choice)),
                root,
                self.graph.accepting(bit),
            );
            g.edges[id as usize].push((to, choice));
            stack.push(Frame::new(state, ctx, key, Some(choice)));
            ids.push(to);
            let succs = self.successors(ex, &stack, true, init)?;
            g.enabled[to as usize] = self.enabled;
            stack.last_mut().expect("pushed").set_successors(succs);
            let depth = stack.len() as u64;
            ex.result.stats.max_path = ex.result.stats.max_path.max(depth);
            ex.watch.depth = depth;
        }
        Ok(())
    }
}

impl ProductGraph {
    fn add(&mut self, key: NodeKey, parent: Option<(u32, Choice)>, root: u32, acc: bool) -> u32 {
        let id = self.parent.len() as u32;
        self.ids.insert(key, id);
        self.parent.push(parent);
        self.root.push(root);
        self.accepting.push(acc);
        self.enabled.push(0);
        self.edges.push(Vec::new());
        id
    }
}

/// A fair accepting cycle of the graph, if there is one: the accepting node it starts at and
/// its choices.
fn fair_cycle(g: &ProductGraph) -> Option<(u32, Vec<Choice>)> {
    let mut pg = petgraph::graph::DiGraph::<(), Choice>::with_capacity(g.parent.len(), 0);
    for _ in 0..g.parent.len() {
        pg.add_node(());
    }
    for (from, es) in g.edges.iter().enumerate() {
        for &(to, c) in es {
            pg.add_edge((from as u32).into(), to.into(), c);
        }
    }
    for scc in petgraph::algo::tarjan_scc(&pg) {
        let members: ahash::AHashSet<u32> = scc.iter().map(|n| n.index() as u32).collect();
        let internal = |n: u32| {
            g.edges[n as usize]
                .iter()
                .filter(|(to, _)| members.contains(to))
        };
        if !members.iter().any(|&n| internal(n).next().is_some()) {
            continue;
        }
        let Some(&acc) = members.iter().filter(|&&n| g.accepting[n as usize]).min() else {
            continue;
        };
        // per process among those that can move somewhere in it: a node where it cannot, or
        // an edge where it moves
        let threads = members.iter().fold(0u64, |m, &n| m | g.enabled[n as usize]);
        let mut witnesses: Vec<Witness> = Vec::new();
        let mut fair = true;
        for t in (0..64).filter(|t| threads >> t & 1 == 1) {
            let mut sorted: Vec<u32> = members.iter().copied().collect();
            sorted.sort_unstable();
            let off = sorted
                .iter()
                .find(|&&n| g.enabled[n as usize] >> t & 1 == 0)
                .map(|&n| Witness::Node(n));
            let moves = || {
                sorted.iter().find_map(|&n| {
                    internal(n)
                        .find(|(_, c)| c.thread == t)
                        .map(|&(to, c)| Witness::Edge(n, to, c))
                })
            };
            match off.or_else(moves) {
                Some(w) => witnesses.push(w),
                None => {
                    fair = false;
                    break;
                }
            }
        }
        if !fair {
            continue;
        }
        // round the component: to each witness, through it, and back
        let mut at = acc;
        let mut choices = Vec::new();
        for w in witnesses {
            match w {
                Witness::Node(n) => {
                    choices.extend(route(g, &members, at, n));
                    at = n;
                }
                Witness::Edge(from, to, c) => {
                    choices.extend(route(g, &members, at, from));
                    choices.push(c);
                    at = to;
                }
            }
        }
        if at != acc || choices.is_empty() {
            // back to the start, at least one step (the component has an edge inside)
            if at == acc {
                let (to, c) = *internal(acc)
                    .next()
                    .expect("an edge inside the component from each node");
                choices.push(c);
                at = to;
            }
            choices.extend(route(g, &members, at, acc));
        }
        return Some((acc, choices));
    }
    None
}

/// What shows a process treated fairly on a cycle.
enum Witness {
    /// A node where it cannot move.
    Node(u32),
    /// An edge where it moves: from, to, the choice.
    Edge(u32, u32, Choice),
}

/// The choices of a shortest path from `from` to `to` inside the component `members`.
fn route(g: &ProductGraph, members: &ahash::AHashSet<u32>, from: u32, to: u32) -> Vec<Choice> {
    if from == to {
        return Vec::new();
    }
    let mut prev: ahash::AHashMap<u32, (u32, Choice)> = ahash::AHashMap::default();
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(n) = queue.pop_front() {
        for &(m, c) in &g.edges[n as usize] {
            if !members.contains(&m) || m == from || prev.contains_key(&m) {
                continue;
            }
            prev.insert(m, (n, c));
            if m == to {
                let mut out = Vec::new();
                let mut k = to;
                while k != from {
                    let (p, c) = prev[&k];
                    out.push(c);
                    k = p;
                }
                out.reverse();
                return out;
            }
            queue.push_back(m);
        }
    }
    unreachable!("a strongly connected component connects its nodes")
}
