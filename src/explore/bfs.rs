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
            // cooperative mode: the process of `s` that must go on (its run costs no level)
            let hold = ctx.hold;
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
                if self.how.zing_order {
                    // ZING runs a process's whole step before it takes the next process:
                    // an error that step ends in comes before a later process's error
                    for (f, key) in self.errors_ending_steps_first(&s, ctx, &succs) {
                        let mut path = path_to(&inits, &tree, node, Some(f.0));
                        let tail = Choice {
                            thread: f.0.thread,
                            outcome: 0,
                        };
                        path.choices.extend((0..f.2).map(|_| tail));
                        let finding = match f.1 {
                            Some(v) => self.violation_finding(v, tail, path),
                            None => Finding::Deadlock { path },
                        };
                        if self.found(finding, key) {
                            return;
                        }
                    }
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
                                    hold,
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
                                cost: self.cost(&s, hold, choice),
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

/// An error a process step of ZING's ends in ([`Explorer::errors_ending_steps_first`]): the
/// node's choice the step began with, the violation (`None`: the step ends in a deadlocked
/// state), and the steps after that choice, each its thread's lone outcome.
type StepError = (Choice, Option<Violation>, u32);

impl Explorer<'_, '_> {
    /// ZING's order takes a whole process step as one successor of a state: an atomic
    /// region, and in cooperative mode the process's run up to its next `yield`, choice,
    /// blocking or end (`StateImpl.RunProcess`), so the errors inside the step of an earlier
    /// process come before the error of a later one. Our search takes such a step one
    /// statement at a time, queueing the states inside it. Where a node's successors hold a
    /// violation (`succs` in the search's order), the lone outcomes of earlier processes that
    /// stand inside their process step are run on here to the step's end (one lone outcome
    /// after another, stopping at a choice): the errors they end in, with the key each is
    /// reported under, first in the order ZING meets them.
    fn errors_ending_steps_first(
        &mut self,
        s: &State,
        ctx: Ctx,
        succs: &[((Choice, Outcome), bool)],
    ) -> Vec<(StepError, (u8, u32, u32))> {
        let mut errors = Vec::new();
        // (`--keep-going` lists every error anyway; the bounds count another order)
        if self.opts.keep_going || self.how.bounding.is_some() || self.opts.contexts.is_some() {
            return errors;
        }
        let Some(at) = succs
            .iter()
            .position(|((_, o), _)| matches!(o, Outcome::Violation(_)))
        else {
            return errors;
        };
        let later = succs[at].0 .0.thread;
        let goes_on = |t: u32| {
            succs[..at]
                .iter()
                .filter(|((c, o), _)| c.thread == t && matches!(o, Outcome::Next { .. }))
                .count()
        };
        for ((c, o), _) in &succs[..at] {
            let Outcome::Next { state, kind } = o else {
                continue;
            };
            if c.thread == later || goes_on(c.thread) != 1 {
                continue;
            }
            if self.advance(s, ctx, *c, *kind).is_none() {
                continue;
            }
            if let Some((error, extra, start)) = self.step_ends_in_error(s, c.thread, state) {
                let key = match error {
                    Some(v) => {
                        let path = Path {
                            init: Vec::new(),
                            choices: Vec::new(),
                        };
                        Self::with_kind(start, &Finding::of_violation(v, path))
                    }
                    None => (3, 0, 0),
                };
                errors.push(((*c, error, extra), key));
            }
        }
        errors
    }

    /// Runs thread `tid` on from `first`, a successor of `parent` by one of its steps, while
    /// it stands inside its process step of ZING's (the atomic region's owner, or in
    /// cooperative mode a process that neither yielded nor blocked), one lone outcome after
    /// another: the violation the step ends in (`None` for a step that ends in a deadlocked
    /// state), the steps taken after `first` (the violating one included), and the node the
    /// last of them starts at. `None` if the step ends otherwise, or at a choice.
    fn step_ends_in_error(
        &self,
        parent: &State,
        tid: u32,
        first: &State,
    ) -> Option<(Option<Violation>, u32, (u32, u32))> {
        let m = self.m;
        let t = tid as usize;
        let yields = |s: &State| {
            s.threads[t]
                .stack
                .top()
                .is_some_and(|f| matches!(m.program.node(f.proc, f.pc).stmt, Stmt::Yield))
        };
        let inside = |s: &State, yielded: bool| {
            let alive = s.threads.get(t).is_some_and(|th| !th.stack.is_empty());
            s.atomic_owner() == Some(t)
                || (self.opts.cooperative && alive && !yielded && m.blocked(s, t).is_none())
        };
        let mut yielded = yields(parent);
        if !inside(first, yielded) {
            return None;
        }
        let mut cur = first.clone();
        let mut extra = 0u32;
        let mut out = Vec::new();
        loop {
            if !inside(&cur, yielded) {
                return self.deadlocked(&cur).then_some((None, extra, (0, 0)));
            }
            if m.alternatives(&cur, t) >= 2 {
                return None;
            }
            let start = Self::step_start(
                &cur,
                Choice {
                    thread: tid,
                    outcome: 0,
                },
            );
            yielded = yields(&cur);
            out.clear();
            m.step(&cur, t, &mut (), &mut out);
            match out.pop() {
                Some(Outcome::Violation(v)) if out.is_empty() => {
                    return Some((Some(v), extra + 1, start))
                }
                Some(Outcome::Next { state, .. }) if out.is_empty() => {
                    cur = state;
                    extra += 1;
                }
                _ => return None,
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
