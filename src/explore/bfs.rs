//! The breadth-first searches: shortest counterexamples (`--bfs`) and ZING's order
//! (`--search zing`), level by level over a queue of states.

use super::*;

/// A node of the breadth-first search tree: an initial state (by its valuation's index), or
/// the successor of a node by a choice.
enum Link {
    Root(u32),
    Child(u32, Choice),
}

/// A successor on its way into the queue: of tree node `parent` by `choice`, to be queued
/// `cost` levels after `level`.
struct Arrival {
    state: State,
    ctx: Ctx,
    canon: Option<Canon>,
    parent: u32,
    choice: Choice,
    interior: bool,
    level: u64,
    cost: u64,
}

impl Explorer<'_, '_> {
    /// Stores an arriving successor (unless it is interior), links it into the search tree
    /// and queues it; `false` where the search ends (a finding or a limit).
    fn take_arrival(
        &mut self,
        a: Arrival,
        tree: &mut Vec<Link>,
        queue: &mut Levels<Queued>,
        path: &dyn Fn(&[Link], u32) -> Path,
    ) -> bool {
        if a.interior {
            // inside a transaction: not stored, the search runs on
            self.interior_skipped += 1;
        } else if !self.visit_keyed(&a.state, a.ctx, a.canon.as_ref()) {
            return true;
        } else {
            self.count_zing(&a.state, a.ctx, false);
        }
        if let Some(l) = self.watch.check(self.visited.len() as u64) {
            self.result.limit = Some(l);
            return false;
        }
        tree.push(Link::Child(a.parent, a.choice));
        let child = tree.len() as u32 - 1;
        match self.arrive(&a.state, || path(tree, child)) {
            Arrive::Stop => return false,
            Arrive::Skip => {}
            Arrive::Expand => {
                let next = a.level + a.cost;
                let item = Queued::Node(a.state, a.ctx, child, next, a.canon);
                queue.push(next, item, a.cost == 0);
            }
        }
        true
    }

    pub(super) fn bfs(&mut self) {
        let m = self.m;
        // no path node is re-executed here, so transaction summaries do not stop chunking
        self.chunk = crate::runtime::OUTCOME_WINDOW;
        let mut inits: Vec<Vec<Value>> = Vec::new();
        let mut tree: Vec<Link> = Vec::new();
        // each queued state keeps its canon (segmented fingerprints), so its successors are
        // fingerprinted from the parts their step changed, as in the depth-first search
        let mut queue: Levels<Queued> = Levels::default();
        let path_to = |inits: &[Vec<Value>], tree: &[Link], mut node: u32, last: Option<Choice>| {
            let mut choices: Vec<Choice> = last.into_iter().collect();
            loop {
                match tree[node as usize] {
                    Link::Root(i) => {
                        choices.reverse();
                        return Path {
                            init: inits[i as usize].clone(),
                            choices,
                        };
                    }
                    Link::Child(p, c) => {
                        choices.push(c);
                        node = p;
                    }
                }
            }
        };
        for (init, s0) in InitialStates::new(m) {
            if !self.visit(&s0, Ctx::START) {
                continue;
            }
            self.count_zing(&s0, Ctx::START, true);
            self.result.stats.initial_states += 1;
            inits.push(init);
            tree.push(Link::Root(inits.len() as u32 - 1));
            let node = tree.len() as u32 - 1;
            match self.arrive(&s0, || path_to(&inits, &tree, node, None)) {
                Arrive::Stop => return,
                Arrive::Skip => {}
                Arrive::Expand => {
                    let canon = self.canon_of(&s0);
                    queue.push(0, Queued::Node(s0, Ctx::START, node, 0, canon), false)
                }
            }
            if let Some(l) = self.watch.check(self.visited.len() as u64) {
                self.result.limit = Some(l);
                return;
            }
        }
        while let Some(item) = queue.pop() {
            // a level whose successors are all known stores nothing: look at the watchdog here
            if let Some(l) = watchdog::stopped() {
                self.result.limit = Some(l);
                return;
            }
            let (s, ctx, node, level, canon) = match item {
                Queued::Node(s, ctx, node, level, canon) => (s, ctx, node, level, canon),
                Queued::Run(mut run) if run.cost.before_last > 0 => {
                    // where a state inside the run would have been taken: the next one is
                    // queued at the end of the next level
                    run.cost.before_last -= 1;
                    run.level += 1;
                    self.result.stats.max_path = self.result.stats.max_path.max(run.level);
                    queue.push(run.level, Queued::Run(run), false);
                    continue;
                }
                Queued::Run(run) => {
                    // the state before the run's last: the step from it reaches that one
                    let Run {
                        state,
                        ctx,
                        parent,
                        choice,
                        level,
                        cost,
                        interior,
                    } = *run;
                    let arrival = Arrival {
                        canon: self.canon_of(&state),
                        state,
                        ctx,
                        parent,
                        choice,
                        interior,
                        level,
                        cost: cost.last,
                    };
                    let path = |t: &[Link], n: u32| path_to(&inits, t, n, None);
                    if !self.take_arrival(arrival, &mut tree, &mut queue, &path) {
                        return;
                    }
                    continue;
                }
            };
            self.result.stats.max_path = self.result.stats.max_path.max(level);
            self.watch.depth = level;
            // a wide step's outcomes come a window at a time, each stored as it comes
            let mut from = None;
            let mut wide = false;
            loop {
                self.run_costs.clear();
                let succs = self.successors_from(&s, ctx, from);
                self.interior_skipped += self.chained;
                let more = self.more.take();
                wide |= more.is_some();
                if self.result.limit.is_some() {
                    return;
                }
                // a wide step is a choice, whatever a chunk of it holds
                let interior: Vec<bool> = succs
                    .iter()
                    .zip(Self::branching(&succs))
                    .map(|((c, o), b)| self.interior(&s, ctx.hold, c.thread, o, b || wide))
                    .collect();
                let mut succs: Vec<_> = succs.into_iter().zip(interior).collect();
                // `--seed`: the level's order within a node's successors is permuted
                if let Some(mut rng) = self
                    .how
                    .swarm
                    .order(&[u64::from(node), from.map_or(0, |r: Resume| r.skip)])
                {
                    rng.shuffle(&mut succs);
                }
                for ((choice, outcome), interior) in succs {
                    match outcome {
                        Outcome::Pruned => {}
                        Outcome::Moved { .. } => unreachable!("successors() builds every state"),
                        Outcome::Violation(v) => {
                            if self.advance(&s, ctx, choice, Kind::Internal).is_none() {
                                continue;
                            }
                            let f = self.violation_finding(
                                v,
                                choice,
                                path_to(&inits, &tree, node, Some(choice)),
                            );
                            let key = Self::violation_key(&s, choice, &f);
                            if self.found(f, key) {
                                return;
                            }
                        }
                        Outcome::Next { state, kind } => {
                            self.result.stats.transitions += 1;
                            let Some(ctx) = self.advance(&s, ctx, choice, kind) else {
                                continue;
                            };
                            if let Some(&cost) =
                                self.run_costs.iter().find(|r| r.thread == choice.thread)
                            {
                                // a chained cooperative run: queued where its first state
                                // would have been, taken level by level as its states would
                                // have been, so that the search's order stays the same
                                let first = self.cost(
                                    &s,
                                    Choice {
                                        thread: choice.thread,
                                        outcome: 0,
                                    },
                                );
                                let run = Run {
                                    state,
                                    ctx,
                                    parent: node,
                                    choice,
                                    level: level + first,
                                    cost,
                                    interior,
                                };
                                queue.push(level + first, Queued::Run(Box::new(run)), first == 0);
                                continue;
                            }
                            let arrival = Arrival {
                                canon: canon.as_ref().map(|c| self.child_canon(&s, c, &state)),
                                cost: self.cost(&s, choice),
                                state,
                                ctx,
                                parent: node,
                                choice,
                                interior,
                                level,
                            };
                            let path = |t: &[Link], n: u32| path_to(&inits, t, n, None);
                            if !self.take_arrival(arrival, &mut tree, &mut queue, &path) {
                                return;
                            }
                        }
                    }
                }
                match more {
                    Some(r) => from = Some(r),
                    None => break,
                }
            }
        }
    }
}

/// An entry of the breadth-first queue.
enum Queued {
    /// A state to expand: its context bookkeeping, its node in the search tree, its level
    /// and its canon.
    Node(State, Ctx, u32, u64, Option<Canon>),
    /// A chained cooperative run (boxed: the queue holds many nodes and few runs).
    Run(Box<Run>),
}

/// A cooperative run that [`Explorer::chain`] ran on as one transition, waiting in the queue
/// where the search would have taken the states inside it, one level after another: its
/// last state is stored and queued when the state before it would have been taken (so that
/// other nodes store and queue their successors around it as before).
struct Run {
    /// The run's last state and its context bookkeeping.
    state: State,
    ctx: Ctx,
    /// The node the run started from, and the chained choice.
    parent: u32,
    choice: Choice,
    /// The level of the state inside the run this entry stands for.
    level: u64,
    /// The levels still to go.
    cost: reduce::RunCost,
    /// Whether the run's last state is itself one the search does not store.
    interior: bool,
}
