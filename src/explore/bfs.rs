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

/// What became of an arriving successor.
enum Taken {
    /// The search ends (a finding or a limit).
    Stop,
    /// Known already, queued, or nothing to expand.
    Done,
    /// To expand at once, before the next successor of its parent (ZING's depth-first
    /// search goes straight on through a state it does not fingerprint): the state, its
    /// context, its node and level, and its canon.
    Now(State, Ctx, u32, u64, Option<Canon>),
}

/// A node's successors as a frame takes them: each outcome with whether it is interior.
type Items = std::vec::IntoIter<((Choice, Outcome), bool)>;

/// A node being expanded, one window of its successors at a time. In ZING's order a
/// successor that ZING does not fingerprint is expanded at once, as a frame above its
/// parent's, before the parent's next successor: the breadth-first search holds a
/// depth-first search below each queued state, as ZING's iterative deepening does.
struct Frame {
    s: State,
    ctx: Ctx,
    node: u32,
    level: u64,
    canon: Option<Canon>,
    items: Items,
    /// In ZING's order, the choices among the window's outcomes that wait for the level of
    /// ZING's choice state ([`Queued::Choice`]): how many outcomes come before each, and
    /// how many it has (in the order they come).
    choices: std::collections::VecDeque<(usize, usize)>,
    /// The outcomes taken so far from `items`.
    taken: usize,
    /// The chained cooperative runs among the window's outcomes.
    run_costs: Vec<reduce::RunCost>,
    /// Where the next window starts (a wide step), and whether a window was cut.
    more: Option<Resume>,
    wide: bool,
}

/// The choice among a node's outcomes that ZING takes at its choice state, one level after
/// the node (its process step comes first): queued there, the outcomes that ZING does not
/// fingerprint are expanded when it is taken, as ZING runs on below its choice state then.
struct Chosen {
    s: State,
    ctx: Ctx,
    node: u32,
    level: u64,
    canon: Option<Canon>,
    succs: Vec<((Choice, Outcome), bool)>,
    run_costs: Vec<reduce::RunCost>,
}

/// The path to tree node `node` of the search, then `last`.
fn path_to(inits: &[Vec<Value>], tree: &[Link], mut node: u32, last: Option<Choice>) -> Path {
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
}

impl Explorer<'_, '_> {
    /// Stores an arriving successor (unless it is interior), links it into the search tree
    /// and queues it, or with `dfs` (ZING's order) hands it back to expand at once where ZING
    /// does not fingerprint it.
    fn take_arrival(
        &mut self,
        a: Arrival,
        dfs: bool,
        tree: &mut Vec<Link>,
        queue: &mut Levels<Queued>,
        path: &dyn Fn(&[Link], u32) -> Path,
    ) -> Taken {
        if a.interior {
            // inside a transaction: not stored, the search runs on
            self.interior_skipped += 1;
        } else if !self.visit_keyed(&a.state, a.ctx, a.canon.as_ref()) {
            return Taken::Done;
        } else {
            self.count_zing(&a.state, a.ctx, false);
        }
        if let Some(l) = self.watch.check(self.visited.len() as u64) {
            self.result.limit = Some(l);
            return Taken::Stop;
        }
        tree.push(Link::Child(a.parent, a.choice));
        let child = tree.len() as u32 - 1;
        match self.arrive(&a.state, || path(tree, child)) {
            Arrive::Stop => Taken::Stop,
            Arrive::Skip => Taken::Done,
            Arrive::Expand => {
                let next = a.level + a.cost;
                if dfs && !self.zing_fingerprints(&a.state, a.ctx) {
                    return Taken::Now(a.state, a.ctx, child, next, a.canon);
                }
                let item = Queued::Node(a.state, a.ctx, child, next, a.canon);
                // (a successor at no cost goes first in its level where that level is being
                // taken; below ZING's depth-first search it never is, and its level keeps
                // the order the states were found in)
                queue.push(next, item, a.cost == 0 && !self.zing_dfs());
                Taken::Done
            }
        }
    }

    /// Whether the search follows ZING's depth-first search below the states it queues
    /// ([`Frame`]): in ZING's order, unless a bound counts another order.
    fn zing_dfs(&self) -> bool {
        self.how.zing_order && self.how.bounding.is_none() && self.opts.contexts.is_none()
    }

    /// Whether ZING fingerprints `s`, reached with `ctx` ([`zing_count::fingerprints`]).
    fn zing_fingerprints(&self, s: &State, ctx: Ctx) -> bool {
        let held = ((ctx.hold as usize) < s.threads.len()).then_some(ctx.hold as usize);
        if s.atomic_owner().or(held).is_none() {
            // between steps the process count decides: a state where no process can move
            // has no successors, so taking it at once or in its level changes nothing (and
            // asking whether a process can move evaluates its guards)
            return s.threads.len() >= 2;
        }
        zing_count::fingerprints(self.m, s, held)
    }

    /// The first window of `s`'s successors (or the next, `from`), as a frame; `None` where
    /// the search ends.
    #[allow(clippy::too_many_arguments)]
    fn open(
        &mut self,
        (s, ctx, node, level, canon): (State, Ctx, u32, u64, Option<Canon>),
        from: Option<Resume>,
        wide: bool,
        inits: &[Vec<Value>],
        tree: &[Link],
    ) -> Option<Frame> {
        if let Some(l) = watchdog::stopped() {
            self.result.limit = Some(l);
            return None;
        }
        self.result.stats.max_path = self.result.stats.max_path.max(level);
        self.watch.depth = level;
        let (mut succs, more, wide) = self.successor_window(&s, ctx, from, wide);
        if self.result.limit.is_some() {
            return None;
        }
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
                let mut path = path_to(inits, tree, node, Some(f.0));
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
                    return None;
                }
            }
        }
        let choices = if self.zing_dfs() && !wide {
            self.zing_choices(&s, ctx, &succs)
        } else {
            Default::default()
        };
        Some(Frame {
            s,
            ctx,
            node,
            level,
            canon,
            items: succs.into_iter(),
            choices,
            taken: 0,
            run_costs: std::mem::take(&mut self.run_costs),
            more,
            wide,
        })
    }

    /// ZING's order: a process's choice among two or more alternatives, at a node where its
    /// process step comes first, is ZING's choice state one level below the node, where
    /// ZING's search cuts it and runs on below each alternative it does not fingerprint at
    /// the next level. The outcomes of such a choice among which is a state ZING does not
    /// fingerprint wait for that level ([`Frame::choices`]; the others queue as before).
    fn zing_choices(
        &mut self,
        s: &State,
        ctx: Ctx,
        succs: &[((Choice, Outcome), bool)],
    ) -> std::collections::VecDeque<(usize, usize)> {
        let mut choices = std::collections::VecDeque::new();
        let mut at = 0;
        for group in succs.chunk_by(|a, b| a.0 .0.thread == b.0 .0.thread) {
            let goes_on = group
                .iter()
                .filter(|((_, o), _)| matches!(o, Outcome::Next { .. }))
                .count();
            let deferred = goes_on >= 2
                && self.cost(s, ctx.hold, group[0].0 .0) >= 2
                && group.iter().any(|((c, o), _)| match o {
                    Outcome::Next { state, kind } => self
                        .advance(s, ctx, *c, *kind)
                        .is_some_and(|next| !self.zing_fingerprints(state, next)),
                    _ => false,
                });
            if deferred {
                choices.push_back((at, group.len()));
            }
            at += group.len();
        }
        choices
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
        let dfs = self.zing_dfs();
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
        // the nodes being expanded: a queued state's, and above it those expanded at once
        let mut stack: Vec<Frame> = Vec::new();
        loop {
            let Some(f) = stack.last_mut() else {
                let Some(item) = queue.pop() else {
                    return;
                };
                match item {
                    Queued::Node(s, ctx, node, level, canon) => {
                        match self.open((s, ctx, node, level, canon), None, false, &inits, &tree) {
                            Some(frame) => stack.push(frame),
                            None => return,
                        }
                    }
                    Queued::Choice(c) => {
                        let Chosen {
                            s,
                            ctx,
                            node,
                            level,
                            canon,
                            succs,
                            run_costs,
                        } = *c;
                        // (its outcomes not fingerprinted are expanded at once below)
                        stack.push(Frame {
                            s,
                            ctx,
                            node,
                            level,
                            canon,
                            items: succs.into_iter(),
                            choices: Default::default(),
                            taken: 0,
                            run_costs,
                            more: None,
                            wide: false,
                        });
                    }
                    Queued::Run(mut run) if run.cost.before_last > 0 => {
                        // where a state inside the run would have been taken: the next one is
                        // queued at the end of the next level
                        run.cost.before_last -= 1;
                        run.level += 1;
                        self.result.stats.max_path = self.result.stats.max_path.max(run.level);
                        queue.push(run.level, Queued::Run(run), false);
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
                        let taken = self.take_arrival(arrival, false, &mut tree, &mut queue, &path);
                        if let Taken::Stop = taken {
                            return;
                        }
                    }
                }
                continue;
            };
            if f.choices.front().is_some_and(|&(at, _)| at == f.taken) {
                // queued at the level of ZING's choice state: its process step comes
                // first (the choice's own level is the one its outcomes then add)
                let (_, n) = f.choices.pop_front().expect("looked at");
                let succs: Vec<_> = f.items.by_ref().take(n).collect();
                f.taken += n;
                let at = f.level + self.cost(&f.s, f.ctx.hold, succs[0].0 .0) - 1;
                let chosen = Chosen {
                    s: f.s.clone(),
                    ctx: f.ctx,
                    node: f.node,
                    level: f.level,
                    canon: f.canon.clone(),
                    succs,
                    run_costs: f.run_costs.clone(),
                };
                queue.push(at, Queued::Choice(Box::new(chosen)), false);
                continue;
            }
            let Some(((choice, outcome), interior)) = f.items.next() else {
                let f = stack.pop().expect("the frame just looked at");
                if let Some(r) = f.more {
                    let node = (f.s, f.ctx, f.node, f.level, f.canon);
                    match self.open(node, Some(r), f.wide, &inits, &tree) {
                        Some(frame) => stack.push(frame),
                        None => return,
                    }
                }
                continue;
            };
            let (s, ctx, node, level) = (&f.s, f.ctx, f.node, f.level);
            // cooperative mode: the process of `s` that must go on (its run costs no level)
            let hold = ctx.hold;
            f.taken += 1;
            let taken = match outcome {
                Outcome::Pruned => Taken::Done,
                Outcome::Moved { .. } => unreachable!("successors() builds every state"),
                Outcome::Violation(v) => {
                    if self.advance(s, ctx, choice, Kind::Internal).is_none() {
                        continue;
                    }
                    let f = self.violation_finding(
                        v,
                        choice,
                        path_to(&inits, &tree, node, Some(choice)),
                    );
                    let key = Self::violation_key(s, choice, &f);
                    if self.found(f, key) {
                        return;
                    }
                    Taken::Done
                }
                Outcome::Next { state, kind } => {
                    self.result.stats.transitions += 1;
                    let Some(next) = self.advance(s, ctx, choice, kind) else {
                        continue;
                    };
                    let run = f.run_costs.iter().find(|r| r.thread == choice.thread);
                    let first = || {
                        let c = Choice {
                            thread: choice.thread,
                            outcome: 0,
                        };
                        self.cost(s, hold, c)
                    };
                    let cost = match run {
                        Some(&cost) if !dfs => {
                            // a chained cooperative run: queued where its first state
                            // would have been, taken level by level as its states would
                            // have been, so that the search's order stays the same
                            let first = first();
                            let run = Run {
                                state,
                                ctx: next,
                                parent: node,
                                choice,
                                level: level + first,
                                cost,
                                interior,
                            };
                            queue.push(level + first, Queued::Run(Box::new(run)), first == 0);
                            continue;
                        }
                        // a chained cooperative run below ZING's depth-first search: its
                        // states inside are ones ZING does not fingerprint, run through at
                        // once, so its last state arrives now, at the level they add up to
                        Some(&cost) => first() + cost.before_last + cost.last,
                        None => self.cost(s, hold, choice),
                    };
                    let arrival = Arrival {
                        canon: f.canon.as_ref().map(|c| self.child_canon(s, c, &state)),
                        cost,
                        state,
                        ctx: next,
                        parent: node,
                        choice,
                        interior,
                        level,
                    };
                    let path = |t: &[Link], n: u32| path_to(&inits, t, n, None);
                    self.take_arrival(arrival, dfs, &mut tree, &mut queue, &path)
                }
            };
            match taken {
                Taken::Stop => return,
                Taken::Done => {}
                Taken::Now(s, ctx, node, level, canon) => {
                    // a node whose last successor this was is done: a lone process's long
                    // run keeps one frame, not one per state
                    if stack
                        .last()
                        .is_some_and(|f| f.items.as_slice().is_empty() && f.more.is_none())
                    {
                        stack.pop();
                    }
                    match self.open((s, ctx, node, level, canon), None, false, &inits, &tree) {
                        Some(frame) => stack.push(frame),
                        None => return,
                    }
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
    /// ZING's order: a choice's outcomes taken at the level of ZING's choice state
    /// (boxed, as the runs).
    Choice(Box<Chosen>),
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
