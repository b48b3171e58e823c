//! Liveness (`check --liveness`): a reachable cycle of the kind a [`Liveness`] property names,
//! found on the fly by a nested depth-first search (Courcoubetis, Vardi, Wolper and
//! Yannakakis, with the stack check of Holzmann, Peled and Yannakakis: the inner search stops
//! at any state on the outer stack).
//!
//! The search runs over *nodes*: a state with one bit.
//! - `accept`: the bit says that the step into the state was accepting (it ran Zing's
//!   `accept(e)` with `e` true, [`lasso::accepting_step`]): ZING's mark, which it sets as the
//!   statement runs and clears before the next step. Accepting nodes are those with the bit.
//! - `progress`: the product with the two-state automaton of "eventually always no progress"
//!   (SPIN's `np_` never claim): bit 0 is anywhere, bit 1 only at states where no thread is at
//!   a progress label, entered from bit 0 at any such state and kept while the states go on
//!   being such; nodes with bit 1 accept. An accepting cycle stays at bit 1 throughout: a
//!   cycle of states none of which is a progress state.
//! - `terminates`: every node has bit 0, and any edge back to a node on the outer stack closes
//!   a cycle (no inner search).
//! - LTL (`--ltl`): the "bit" is a state of the Büchi automaton of the negated formula
//!   ([`crate::ltl`]), which reads each model state's propositions; accepting nodes are those
//!   of accepting automaton states. A state where no thread can move has a stutter step to
//!   itself (SPIN's stutter extension: a run that ends is its last state forever), so a run
//!   that ends can violate the formula too; its lasso has an empty cycle.
//!
//! The outer search is the explicit engine's usual DFS (safety errors, targets, deadlocks and
//! the depth bound as in [`Explorer::arrive`]); after a node with the bit has all its
//! successors explored, the inner search starts from it over nodes it has not visited yet, and
//! a successor on the outer stack closes the cycle: the stack from that node to the seed, then
//! the inner path. The counterexample is a lasso [`Finding::Cycle`]: the path to the state
//! the cycle starts at, then the cycle.
//!
//! No reduction runs under it (the caller turns them off: `cli::check` says which): the
//! search keeps whole states, with the thread-scheduling bookkeeping of cooperative mode in
//! the node. The product with a Büchi automaton of an LTL formula is the same search over
//! nodes with the automaton's state for the bit: [`Graph`] is the seam.

use super::*;
use crate::ltl::Ltl;
use crate::search::{lasso, Liveness};
use std::sync::Arc;

/// The successors' bits and acceptance of one liveness property: the node graph the nested
/// search runs over ([`Liveness`]; under LTL the bits are the automaton's states).
struct Graph {
    property: Liveness,
    ltl: Option<Arc<Ltl>>,
    /// `--fairness weak`: each bit also counts the processes seen treated fairly (see
    /// [`FAIR_COPIES`]).
    fair: bool,
}

/// Under weak fairness a node's bit is `base * FAIR_COPIES + c`, `base` the property's bit and
/// `c` a counter (the construction of Choueka, as SPIN's `-f` uses it): `c = 0` waits for an
/// accepting `base`; then `c = k` waits for process `k - 1` to move or to be unable to move,
/// in which case the step goes on to `k + 1`; once `k - 1` passes the state's last process
/// (or the 64th), the round is complete: that node accepts, and its successors start again at
/// 0. A cycle through such a node lets every process move or be disabled in every round: it
/// is weakly fair, and every fair accepting cycle, gone round often enough, is one of these.
const FAIR_COPIES: u32 = 66;

impl Graph {
    /// The bits of the nodes of initial state `s0`.
    fn initial(&self, m: &Machine, s0: &State, out: &mut Vec<u32>) {
        out.clear();
        match &self.ltl {
            Some(ltl) => out.extend(ltl.initial(ltl.letter(m, s0))),
            None => out.push(0),
        }
        if self.fair {
            out.iter_mut().for_each(|b| *b *= FAIR_COPIES);
        }
    }

    /// The bits of the nodes a step by `thread` from `s` (bit `bit`, where the processes of
    /// `enabled` can move) to `next` reaches.
    #[allow(clippy::too_many_arguments)]
    fn bits(
        &self,
        m: &Machine,
        s: &State,
        bit: u32,
        enabled: u64,
        thread: u32,
        next: &State,
        out: &mut Vec<u32>,
    ) {
        if !self.fair {
            return self.base_bits(m, s, bit, thread, next, out);
        }
        let (base, c) = (bit / FAIR_COPIES, bit % FAIR_COPIES);
        let c2 = if c == 0 {
            u32::from(self.base_accepting(base))
        } else if self.round_done(c, s) {
            0
        } else {
            let p = c - 1;
            if thread == p || enabled >> p & 1 == 0 {
                c + 1
            } else {
                c
            }
        };
        self.base_bits(m, s, base, thread, next, out);
        out.iter_mut().for_each(|b| *b = *b * FAIR_COPIES + c2);
    }

    /// Whether counter `c` of a node at `s` has seen every process (see [`FAIR_COPIES`]).
    fn round_done(&self, c: u32, s: &State) -> bool {
        c >= 1 && (c - 1) as usize >= s.threads.len().min(64)
    }

    /// The property's own bits of the successor nodes.
    fn base_bits(
        &self,
        m: &Machine,
        s: &State,
        bit: u32,
        thread: u32,
        next: &State,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        match self.property {
            Liveness::Terminates => out.push(0),
            Liveness::Accept => out.push(lasso::accepting_step(m, s, thread as usize) as u32),
            Liveness::Progress => {
                let quiet = !lasso::progress_state(m, next);
                match (bit, quiet) {
                    (0, true) => out.extend([0, 1]),
                    (0, false) => out.push(0),
                    (_, true) => out.push(1),
                    (_, false) => {}
                }
            }
            Liveness::Ltl => {
                let ltl = self.ltl.as_ref().expect("an LTL search has its formula");
                out.extend(ltl.next(bit, ltl.letter(m, next)));
            }
        }
    }

    /// Whether a node of state `s` with `bit` starts an inner search.
    fn accepting(&self, bit: u32, s: &State) -> bool {
        if self.fair {
            return self.round_done(bit % FAIR_COPIES, s);
        }
        self.base_accepting(bit)
    }

    /// Whether the property's own bit accepts (under fairness, any cycle is a candidate for
    /// `terminates`: the counter finds the fair ones).
    fn base_accepting(&self, bit: u32) -> bool {
        match (&self.ltl, self.property) {
            (Some(ltl), _) => ltl.accepting(bit),
            (None, Liveness::Terminates) => self.fair,
            (None, _) => bit == 1,
        }
    }
}

/// The choice of a stutter step (LTL): a state where no thread can move, repeated.
const STUTTER: Choice = Choice {
    thread: u32::MAX,
    outcome: u32::MAX - 1,
};

/// A node's key: the state's canonical bytes (or their 128-bit hash without `--exact`), its
/// scheduling bookkeeping, and the bit.
type NodeKey = (Box<[u8]>, u32);

/// A node of the outer or the inner search's stack.
struct Frame {
    state: State,
    ctx: Ctx,
    key: NodeKey,
    /// The choice that led here (none at the bottom of the outer stack).
    via: Option<Choice>,
    /// The node's successors, once expanded, and the next to take.
    succs: Vec<Succ>,
    next: usize,
}

/// A successor node: the choice, the bit, the state and its bookkeeping.
type Succ = (Choice, u32, State, Ctx);

impl Frame {
    fn new(state: State, ctx: Ctx, key: NodeKey, via: Option<Choice>) -> Frame {
        Frame {
            state,
            ctx,
            key,
            via,
            succs: Vec::new(),
            next: 0,
        }
    }
}

struct Cycles {
    graph: Graph,
    outer: ahash::AHashSet<NodeKey>,
    inner: ahash::AHashSet<NodeKey>,
    /// The nodes on the outer stack, with their position on it.
    on_stack: ahash::AHashMap<NodeKey, usize>,
    exact: bool,
    /// The processes that can move in the state last expanded ([`Cycles::successors`]): a bit
    /// per thread with a step (the first 64), for the fairness counter.
    enabled: u64,
}

/// The search stops (a finding without `--keep-going`, or a limit).
struct Stop;

/// Searches for a cycle violating `property` (see the module's documentation), on one thread,
/// depth-first, without reductions or symmetry whatever `how` asks (`cli::check` says so).
pub(super) fn search(
    m: &Machine,
    opts: &Options,
    how: &ExplicitOptions,
    property: Liveness,
) -> SearchResult {
    // whatever the caller asked for: none of these is sound for cycles as the search runs them
    let how = &ExplicitOptions {
        reduction: crate::search::Reduction::None,
        symmetry: false,
        transactions: None,
        workers: 1,
        bfs: false,
        zing_order: false,
        ..how.clone()
    };
    let mut ex = Explorer::new(m, opts, how, Visited::new(how.exact), None);
    // a node lists all its outcomes (a lasso's choices are outcome positions of whole steps)
    ex.chunk = usize::MAX;
    let mut c = Cycles {
        graph: Graph {
            property,
            ltl: opts.ltl.clone().filter(|_| property == Liveness::Ltl),
            fair: opts.fair,
        },
        outer: Default::default(),
        inner: Default::default(),
        on_stack: Default::default(),
        exact: how.exact,
        enabled: 0,
    };
    let _ = c.run(&mut ex);
    let mut r = ex.finish();
    // (ZING's count picks from the states of its own search order, which this is not)
    r.stats.zing_states = None;
    let counters = &mut r.stats.counters;
    counters.push(("cycle search nodes", c.outer.len() as u64));
    counters.push(("inner search nodes", c.inner.len() as u64));
    r
}

/// The path from `init` along the stacks' choices, then `last` (stutter steps left out).
fn path_of(init: &[Value], stacks: &[&[Frame]], last: Option<Choice>) -> Path {
    Path {
        init: init.to_vec(),
        choices: stacks
            .iter()
            .flat_map(|s| s.iter())
            .filter_map(|f| f.via)
            .chain(last)
            .filter(|&c| c != STUTTER)
            .collect(),
    }
}

impl Cycles {
    fn key(&self, ex: &mut Explorer, s: &State, ctx: Ctx, bit: u32) -> NodeKey {
        ex.buf.clear();
        ex.encoder.encode(s, &mut ex.buf);
        if ex.opts.cooperative {
            ex.buf.extend_from_slice(&ctx.hold.to_le_bytes());
        }
        if ex.opts.contexts.is_some() {
            ex.buf.extend_from_slice(&ctx.last.to_le_bytes());
            ex.buf.extend_from_slice(&ctx.used.to_le_bytes());
        }
        let bytes: Box<[u8]> = if self.exact {
            ex.buf.as_slice().into()
        } else {
            Box::new(xxhash_rust::xxh3::xxh3_128(&ex.buf).to_le_bytes())
        };
        (bytes, bit)
    }

    /// The successors of the node on top of `stack` (the outer search's when `report`: it
    /// counts transitions and reports the safety errors it meets; `init` starts their paths).
    fn successors(
        &mut self,
        ex: &mut Explorer,
        stack: &[Frame],
        report: bool,
        init: &[Value],
    ) -> Result<Vec<Succ>, Stop> {
        let top = stack.last().expect("a node to expand");
        let (s, ctx, bit) = (&top.state, top.ctx, top.key.1);
        let succs = ex.successors_from(s, ctx, None);
        if ex.result.limit.is_some() {
            return Err(Stop);
        }
        let mut out = Vec::with_capacity(succs.len());
        let mut bits = Vec::new();
        let moves = |o: &Outcome| !matches!(o, Outcome::Pruned);
        self.enabled = succs
            .iter()
            .filter(|(c, o)| moves(o) && c.thread < 64)
            .fold(0, |m, (c, _)| m | 1 << c.thread);
        if self.graph.ltl.is_some() && !succs.iter().any(|(_, o)| moves(o)) {
            // no thread can move: the run ends, and its last state repeats forever
            self.graph
                .bits(ex.m, s, bit, self.enabled, STUTTER.thread, s, &mut bits);
            out.extend(bits.iter().map(|&b| (STUTTER, b, s.clone(), ctx)));
            return Ok(out);
        }
        for (choice, outcome) in succs {
            match outcome {
                Outcome::Pruned => {}
                Outcome::Moved { .. } => unreachable!("successors_from builds every state"),
                Outcome::Violation(v) => {
                    if !report || ex.advance(s, ctx, choice, Kind::Internal).is_none() {
                        continue;
                    }
                    let f = ex.violation_finding(v, choice, path_of(init, &[stack], Some(choice)));
                    let key = Explorer::violation_key(s, choice, &f);
                    if ex.found(f, key) {
                        return Err(Stop);
                    }
                }
                Outcome::Next { state, kind } => {
                    if report {
                        ex.result.stats.transitions += 1;
                    }
                    let Some(next) = ex.advance(s, ctx, choice, kind) else {
                        continue;
                    };
                    let enabled = self.enabled;
                    self.graph
                        .bits(ex.m, s, bit, enabled, choice.thread, &state, &mut bits);
                    for &b in &bits {
                        out.push((choice, b, state.clone(), next));
                    }
                }
            }
        }
        Ok(out)
    }

    fn run(&mut self, ex: &mut Explorer) -> Result<(), Stop> {
        let m = ex.m;
        let mut bits = Vec::new();
        for (init, s0) in InitialStates::new(m) {
            if !ex.visit(&s0, Ctx::START) {
                continue;
            }
            ex.result.stats.initial_states += 1;
            let arrive = ex.arrive(&s0, || path_of(&init, &[], None));
            match arrive {
                Arrive::Stop => return Err(Stop),
                Arrive::Skip => continue,
                Arrive::Expand => {}
            }
            self.graph.initial(m, &s0, &mut bits);
            for &bit in &bits {
                let key = self.key(ex, &s0, Ctx::START, bit);
                if !self.outer.insert(key.clone()) {
                    continue;
                }
                let mut stack = vec![Frame::new(s0.clone(), Ctx::START, key, None)];
                self.outer_dfs(ex, &init, &mut stack)?;
            }
        }
        Ok(())
    }

    /// The outer search from the one node on `stack`.
    fn outer_dfs(
        &mut self,
        ex: &mut Explorer,
        init: &[Value],
        stack: &mut Vec<Frame>,
    ) -> Result<(), Stop> {
        self.on_stack.insert(stack[0].key.clone(), 0);
        stack[0].succs = self.successors(ex, stack, true, init)?;
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok(());
            };
            if top.next == top.succs.len() {
                // every successor explored: an accepting node seeds the inner search
                if self.graph.accepting(top.key.1, &top.state) {
                    self.inner_dfs(ex, init, stack)?;
                }
                let done = stack.pop().expect("the top");
                self.on_stack.remove(&done.key);
                continue;
            }
            let (choice, bit, state, ctx) = top.succs[top.next].clone();
            top.next += 1;
            let key = self.key(ex, &state, ctx, bit);
            if self.graph.property == Liveness::Terminates && !self.graph.fair {
                if let Some(&at) = self.on_stack.get(&key) {
                    return self.lasso(ex, init, stack, &[], choice, at);
                }
            }
            if !self.outer.insert(key.clone()) {
                continue;
            }
            ex.visit(&state, ctx);
            if let Some(l) = ex.watch.check(ex.visited.len() as u64) {
                ex.result.limit = Some(l);
                return Err(Stop);
            }
            let arrive = ex.arrive(&state, || path_of(init, &[stack], Some(choice)));
            match arrive {
                Arrive::Stop => return Err(Stop),
                Arrive::Skip => continue,
                Arrive::Expand => {}
            }
            self.on_stack.insert(key.clone(), stack.len());
            stack.push(Frame::new(state, ctx, key, Some(choice)));
            let depth = stack.len() as u64;
            ex.result.stats.max_path = ex.result.stats.max_path.max(depth);
            ex.watch.depth = depth;
            let succs = self.successors(ex, stack, true, init)?;
            stack.last_mut().expect("pushed").succs = succs;
        }
    }

    /// The inner search from the accepting node on top of `outer`: a node on the outer stack
    /// closes an accepting cycle.
    fn inner_dfs(
        &mut self,
        ex: &mut Explorer,
        init: &[Value],
        outer: &[Frame],
    ) -> Result<(), Stop> {
        let seed = outer.last().expect("the seed");
        let mut inner = vec![Frame::new(
            seed.state.clone(),
            seed.ctx,
            seed.key.clone(),
            None,
        )];
        inner[0].succs = self.successors(ex, &inner, false, init)?;
        let max_depth = ex.opts.limits.max_depth;
        while let Some(top) = inner.last_mut() {
            if top.next == top.succs.len() {
                inner.pop();
                continue;
            }
            let (choice, bit, state, ctx) = top.succs[top.next].clone();
            top.next += 1;
            let key = self.key(ex, &state, ctx, bit);
            if let Some(&at) = self.on_stack.get(&key) {
                return self.lasso(ex, init, outer, &inner, choice, at);
            }
            if !self.inner.insert(key.clone()) {
                continue;
            }
            if let Some(l) = crate::search::watchdog::stopped() {
                ex.result.limit = Some(l);
                return Err(Stop);
            }
            // as in the outer search: a state past the depth bound is not expanded (the outer
            // search has reported the cut)
            if Explorer::stack_depth(&state) > max_depth || ex.deadlocked(&state) {
                continue;
            }
            inner.push(Frame::new(state, ctx, key, Some(choice)));
            let succs = self.successors(ex, &inner, false, init)?;
            inner.last_mut().expect("pushed").succs = succs;
        }
        Ok(())
    }

    /// Reports the lasso that `last` closes: along the outer stack, then the inner one, back to
    /// the node at position `at` of the outer stack.
    fn lasso(
        &self,
        ex: &mut Explorer,
        init: &[Value],
        outer: &[Frame],
        inner: &[Frame],
        last: Choice,
        at: usize,
    ) -> Result<(), Stop> {
        let path = path_of(init, &[outer, inner], Some(last));
        // the node at `at` was reached by the choices of the outer nodes above the bottom
        // (stutter steps, only ever at the end of a run, are no choices)
        let cycle_start = outer[1..=at]
            .iter()
            .filter(|f| f.via != Some(STUTTER))
            .count();
        let f = Finding::Cycle {
            property: self.graph.property,
            path,
            cycle_start,
            ltl: self.graph.ltl.clone(),
            fair: self.graph.fair,
        };
        let key = (4, self.graph.property as u32, 0);
        if ex.found(f, key) {
            return Err(Stop);
        }
        // with --keep-going one lasso of each property is reported: the search goes on
        Ok(())
    }
}
