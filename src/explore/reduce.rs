//! The reductions of the explicit search (`--reduction`) and the breadth-first orders: which
//! states are interior (explored but not stored), transactions run on as one chained choice,
//! and the levels of ZING's order.

use super::{Choice, Explorer, Succs, MACRO};
use crate::runtime::{Kind, Mover, Outcome, State, Touched};
use std::collections::VecDeque;
use zingrs_lang::ir::{Glue, Stmt};

/// In a [`Choice::outcome`] of the search (not of a reported path), this bit marks a chained
/// transaction ([`Explorer::chain`]): its first step takes its only outcome (0), and the bits
/// below count the steps run on after it, each taking its step's only outcome. Plain outcomes
/// are below it ([`MAX_OUTCOMES`]), so a step with millions of outcomes is no chain.
const CHAINED: u32 = 1 << 30;

/// The plain outcome positions a search choice can name.
pub(super) const MAX_OUTCOMES: u32 = CHAINED;

/// The longest chain (the region goes on as ordinary steps after it).
const MAX_CHAIN: u32 = (1 << 11) - 1;

/// A search choice's first outcome and the number of chained steps after it.
pub(super) fn split_chain(c: Choice) -> (u32, u32) {
    if c.outcome & MACRO == 0 && c.outcome & CHAINED != 0 {
        (0, c.outcome & !CHAINED)
    } else {
        (c.outcome & !MACRO, 0)
    }
}

/// Appends the steps a search choice stands for: its first outcome, then the lone outcome
/// of each chained step after it (a path's choices as replay takes them).
pub(super) fn unchain(c: Choice, out: &mut Vec<Choice>) {
    let (first, extra) = split_chain(c);
    out.push(Choice {
        thread: c.thread,
        outcome: first,
    });
    out.extend((0..extra).map(|_| Choice {
        thread: c.thread,
        outcome: 0,
    }));
}

/// What the states inside a cooperative run chained by [`Explorer::chain`] would have added
/// to a breadth-first search's level, one step after another: the run's last state is queued
/// where the step from the state before it would have queued it (`bfs.rs`).
#[derive(Clone, Copy, Debug)]
pub(super) struct RunCost {
    /// The thread that ran.
    pub thread: u32,
    /// The levels the steps from the states inside the run add, but the last.
    pub before_last: u64,
    /// The level the last of them adds (0: the run's last state is queued first in its level).
    pub last: u64,
}

/// Where a transaction run on by [`Explorer::chain`] stands (Lipton's reduction with the lock
/// movers of `runtime::locks`): a transaction is acquires and private steps, at most one
/// non-mover (its commit point), then releases and private steps, R* N? L*.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the commit point: a non-mover may still come.
    Before,
    /// After it: only releases and private steps.
    After,
}

/// The breadth-first frontier, level by level; within a level, first in first out, except
/// that a successor at no extra cost (inside an atomic region, in ZING's order) goes first.
pub(super) struct Levels<T> {
    base: u64,
    queues: VecDeque<VecDeque<T>>,
}

impl<T> Default for Levels<T> {
    fn default() -> Self {
        Levels {
            base: 0,
            queues: VecDeque::new(),
        }
    }
}

impl<T> Levels<T> {
    /// Queues `item` at `level` (never below the level being taken), first in its level if
    /// `first`.
    pub(super) fn push(&mut self, level: u64, item: T, first: bool) {
        let i = level.saturating_sub(self.base) as usize;
        while self.queues.len() <= i {
            self.queues.push_back(VecDeque::new());
        }
        if first {
            self.queues[i].push_front(item);
        } else {
            self.queues[i].push_back(item);
        }
    }

    pub(super) fn pop(&mut self) -> Option<T> {
        loop {
            let q = self.queues.front_mut()?;
            if let Some(x) = q.pop_front() {
                return Some(x);
            }
            self.queues.pop_front();
            self.base += 1;
        }
    }
}

impl Explorer<'_, '_> {
    /// Per outcome of a node, whether the step of its thread was a choice: two or more
    /// successors (a node's outcomes come thread by thread).
    pub(super) fn branching(outs: &Succs) -> impl Iterator<Item = bool> + '_ {
        let goes_on = |o: &Outcome| matches!(o, Outcome::Next { .. } | Outcome::Moved { .. });
        outs.chunk_by(|a, b| a.0.thread == b.0.thread)
            .flat_map(move |run| {
                let choice = run.iter().filter(|(_, o)| goes_on(o)).nth(1).is_some();
                std::iter::repeat_n(choice, run.len())
            })
    }

    /// [`Explorer::branching`] for outcomes in any order (`--seed` permutes a node's outcomes,
    /// so one thread's need not be adjacent).
    pub(super) fn branching_any_order(outs: &Succs) -> Vec<bool> {
        let goes_on = |o: &Outcome| matches!(o, Outcome::Next { .. } | Outcome::Moved { .. });
        let mut per_thread: ahash::AHashMap<u32, u32> = Default::default();
        for (c, o) in outs {
            if goes_on(o) {
                *per_thread.entry(c.thread).or_default() += 1;
            }
        }
        outs.iter()
            .map(|(c, _)| per_thread.get(&c.thread).is_some_and(|&n| n >= 2))
            .collect()
    }

    /// What `choice` from `s` adds to a breadth-first search's level: its steps, or in ZING's
    /// order one per process step (none inside an atomic region, nor in cooperative mode
    /// inside the run of `hold`, the process that must go on: ZING runs either to its end as
    /// one step; a chained region is one) plus one for a choice among two or more
    /// alternatives.
    pub(super) fn cost(&self, s: &State, hold: u32, choice: Choice) -> u64 {
        if !self.how.zing_order {
            return 1 + split_chain(choice).1 as u64;
        }
        let tid = choice.thread as usize;
        let choice_cost = (self.m.alternatives(s, tid) >= 2) as u64;
        let process_step = (s.atomic_owner() != Some(tid) && hold != choice.thread) as u64;
        process_step + choice_cost
    }

    /// Where outcome `o` of thread `tid`'s step from `parent` leaves the thread that moves
    /// next without a choice of schedule (the atomic owner, else `tid`): its procedure, pc and
    /// stack depth, and whether it is inside an atomic region. `None` when no thread is there
    /// (a thread started or ended, or the step did not go on).
    fn position(parent: &State, tid: u32, o: &Outcome) -> Option<(u32, u32, u32, bool)> {
        match o {
            Outcome::Moved { mv, .. } => {
                let t = &parent.threads[tid as usize];
                let f = t.stack.top()?;
                Some((f.proc, mv.pc, t.stack.depth(), mv.atomic))
            }
            Outcome::Next { state, kind } => {
                if let Some(o) = state.atomic_owner() {
                    let t = &state.threads[o];
                    let f = t.stack.top()?;
                    Some((f.proc, f.pc, t.stack.depth(), true))
                } else if matches!(kind, Kind::ThreadStart | Kind::ThreadEnd) {
                    None
                } else {
                    let t = state.threads.get(tid as usize)?;
                    let f = t.stack.top()?;
                    Some((f.proc, f.pc, t.stack.depth(), false))
                }
            }
            _ => None,
        }
    }

    /// Whether outcome `o` of thread `tid` of `parent` is a state the search goes through
    /// without storing it. Such a state is still expanded as usual; not storing it only costs
    /// re-exploring it when another path meets it, so it is never a state reached by a choice
    /// (`branching`: two or more successors), and every cycle of states passes a stored one:
    /// - with `transactions`, a state strictly inside an atomic region, unless its owner is at
    ///   a loop head of a boolean program (so a loop inside the region ends) or at a choice
    ///   (ZING's count, which counts choice states, stays as without the reduction);
    /// - with `transactions` under cooperative scheduling, a state inside a process's run:
    ///   see [`Explorer::inside_run`] (`hold` is `parent`'s process that must go on);
    /// - with `por`, a state whose thread `tid` moved within itself (no thread started or
    ///   ended) to a step that it may take alone: the transaction goes on with it (a thread's
    ///   cycle of such steps holds a node where it may not, at which the state is stored).
    pub(super) fn interior(
        &self,
        parent: &State,
        hold: u32,
        tid: u32,
        o: &Outcome,
        branching: bool,
    ) -> bool {
        if branching {
            return false;
        }
        let Some((proc, pc, depth, atomic)) = Self::position(parent, tid, o) else {
            return false;
        };
        if self.run_interior {
            return self.inside_run(parent, hold, tid, proc, pc);
        }
        if atomic {
            let may_choose = matches!(
                self.m.program.node(proc, pc).stmt,
                Stmt::Choose { .. } | Stmt::ChooseElem { .. } | Stmt::Select { .. }
            );
            // (a Zing model counts the steps of an atomic region in the state,
            // `Thread::atomic_steps`, so a loop inside one ends by ZING's infinite-loop error
            // without a stored loop head: its states all differ)
            self.atomic_interior
                && !may_choose
                && (self.m.program.keep_completed || !self.m.loop_head(proc, pc))
        } else {
            self.por && self.m.may_run_alone_at(proc, pc, depth)
        }
    }

    /// Cooperative scheduling: whether the state that thread `tid`'s step from `parent` led
    /// to, with the thread at `pc` of `proc`, lies inside the thread's run, where the search
    /// need not store it. That is where `parent` expanded `tid` alone (the process that must
    /// go on, `hold`, or the atomic owner), the step was no `yield` (the successor's process
    /// must go on too) and the thread's next step is neither a `yield` nor a statement that
    /// may choose or block (`choose`, `select`). Such a state adds nothing to ZING's count
    /// (`zing_count`: a held process's state counts only as a choice), every scheduling point
    /// and choice is still stored, and since its successor's step count
    /// (`Thread::atomic_steps`) is one more than its own, no cycle stays among such states.
    /// A state entered from a node where every process may run is stored, so the search
    /// meets states in the same order as without the reduction.
    fn inside_run(&self, parent: &State, hold: u32, tid: u32, proc: u32, pc: u32) -> bool {
        let alone = hold == tid || parent.atomic_owner() == Some(tid as usize);
        if !alone {
            return false;
        }
        let Some(from) = parent.threads[tid as usize].stack.top() else {
            return false;
        };
        if self
            .step_stmts(from.proc, from.pc)
            .any(|s| matches!(s, Stmt::Yield))
        {
            return false;
        }
        !self.step_stmts(proc, pc).any(|s| {
            matches!(
                s,
                Stmt::Yield | Stmt::Choose { .. } | Stmt::ChooseElem { .. } | Stmt::Select { .. }
            )
        })
    }

    /// The statements a step that begins at `pc` of `proc` runs before it can end: the node's
    /// own, and its successor's where the node is glued to it (a `foreach` element fetch runs
    /// on into the body's first statement, zing-language.md §6.2).
    fn step_stmts(&self, proc: u32, pc: u32) -> impl Iterator<Item = &Stmt> {
        let node = self.m.program.node(proc, pc);
        let glued = match (node.glue, &node.succ[..]) {
            (Glue::ToNext | Glue::Through, [next]) => Some(&self.m.program.node(proc, *next).stmt),
            _ => None,
        };
        std::iter::once(&node.stmt).chain(glued)
    }

    /// The phase of a transaction that thread `tid` begins from `s` ([`Explorer::chain`]): a
    /// non-mover may come next only if the transaction begins at a node where every thread is
    /// expanded (Lipton's reduction schedules every thread between transactions) with an
    /// acquire or a private step.
    fn first_phase(&self, s: &State, tid: usize) -> Phase {
        if !self.movers || !self.expands_all || s.atomic_owner().is_some() {
            return Phase::After;
        }
        let Some(f) = s.threads.get(tid).and_then(|t| t.stack.top()) else {
            return Phase::After;
        };
        match self.m.mover(f.proc, f.pc) {
            Mover::Acquire => Phase::Before,
            Mover::Release => Phase::After,
            Mover::None if self.m.may_run_alone(s, tid) => Phase::Before,
            Mover::None => Phase::After,
        }
    }

    /// Whether the transaction of thread `tid` runs on from outcome `o` of `parent` (not an
    /// [`Explorer::interior`] state) with the step the thread takes next: a release, or the
    /// transaction's one non-mover. An acquire never runs on (it may wait, and only the first
    /// step of a transaction may; a blocked thread in the middle of one would hide a
    /// deadlock), nor does a step that starts or ends a thread.
    fn moves_on(&self, parent: &State, tid: u32, o: &Outcome, phase: &mut Phase) -> bool {
        if !self.movers {
            return false;
        }
        let Some((proc, pc, depth, false)) = Self::position(parent, tid, o) else {
            return false;
        };
        match self.m.mover(proc, pc) {
            Mover::Release => {
                *phase = Phase::After;
                true
            }
            Mover::Acquire => false,
            Mover::None => {
                let node = self.m.program.node(proc, pc);
                let ends = match node.stmt {
                    Stmt::Return { .. } => depth <= 1,
                    Stmt::EndThread | Stmt::StartThread { .. } | Stmt::StartThreadGoto => true,
                    _ => false,
                };
                let commit = *phase == Phase::Before && !ends;
                if commit {
                    *phase = Phase::After;
                }
                commit
            }
        }
    }

    /// Whether the step the thread takes after outcome `o` of `parent` is a call that the
    /// summary engine takes as one transaction (in an atomic region, or of a callee that runs
    /// only private steps): a chain stops before it, so that `steps_of` applies the summary.
    fn summarizes_next(&self, parent: &State, tid: u32, o: &Outcome) -> bool {
        if !self.tx.enabled {
            return false;
        }
        let Some((proc, pc, _, atomic)) = Self::position(parent, tid, o) else {
            return false;
        };
        let Stmt::Call { callee, .. } = self.m.program.node(proc, pc).stmt else {
            return false;
        };
        !self.tx.spawns[callee as usize] && (atomic || self.m.private_call(callee))
    }

    /// A transaction run on as one transition: the lone outcome in `self.scratch` of thread
    /// `tid`'s step from `s`, followed while it leads to an interior state (strictly inside
    /// an atomic region, or with the thread at a step it may take alone; see
    /// [`Explorer::interior`]) from which the thread's next step has exactly one outcome, a
    /// successor. (At such a state the thread alone is a persistent set, so running it on is
    /// one more choice of reduced search.) The result is one outcome of `s` whose choice
    /// counts the steps taken after the first ([`CHAINED`]); `None` if there is nothing
    /// to run on. `hold`: the process of `s` that must go on (cooperative scheduling); the
    /// states run through are inside that process's run, so it stays the one after each.
    pub(super) fn chain(&mut self, s: &State, hold: u32, tid: usize) -> Option<(Choice, Outcome)> {
        let mut hold = hold;
        let mut extra = 0u32;
        // a breadth-first search's levels of the states run through (see `RunCost`)
        let levels = self.run_interior && self.how.bfs;
        let mut cost = RunCost {
            thread: tid as u32,
            before_last: 0,
            last: 0,
        };
        let mut phase = self.first_phase(s, tid);
        let mut o = self.scratch.pop().expect("one outcome");
        // the state `o` is an outcome of (None: `s`), built only once the chain goes on
        let mut from: Option<State> = None;
        let mut kind = Kind::Internal;
        loop {
            let parent = from.as_ref().unwrap_or(s);
            if extra >= MAX_CHAIN
                || self.summarizes_next(parent, tid as u32, &o)
                || !(self.interior(parent, hold, tid as u32, &o, false)
                    || self.moves_on(parent, tid as u32, &o, &mut phase))
            {
                break;
            }
            o.materialize(parent);
            let Outcome::Next { state, kind: k } = &o else {
                break;
            };
            // a state the search must look at (a target label, the depth bound) ends the chain
            if Self::stack_depth(state) > self.opts.limits.max_depth || self.target(state).is_some()
            {
                break;
            }
            if matches!(k, Kind::ThreadStart | Kind::ThreadEnd) {
                kind = *k;
            }
            let touched = self.touched.get_or_insert_with(Touched::default);
            self.m.step_moves(state, tid, touched, &mut self.scratch);
            let lone = self.scratch.len() == 1
                && matches!(
                    self.scratch[0],
                    Outcome::Next { .. } | Outcome::Moved { .. }
                );
            if !lone {
                self.scratch.clear();
                break;
            }
            let Outcome::Next { state, .. } = std::mem::replace(&mut o, Outcome::Pruned) else {
                unreachable!("materialized above");
            };
            if levels {
                let plain = Choice {
                    thread: tid as u32,
                    outcome: 0,
                };
                cost.before_last += cost.last;
                cost.last = self.cost(&state, tid as u32, plain);
                debug_assert!(cost.last <= 1, "a step inside a run is no choice");
            }
            from = Some(state);
            hold = tid as u32;
            o = self.scratch.pop().expect("one outcome");
            extra += 1;
            self.chained += 1;
        }
        if extra == 0 {
            self.scratch.push(o);
            return None;
        }
        if levels {
            self.run_costs.push(cost);
        }
        o.materialize(from.as_ref().unwrap_or(s));
        if let Outcome::Next { kind: k, .. } = &mut o {
            if kind != Kind::Internal {
                *k = kind;
            }
        }
        let choice = Choice {
            thread: tid as u32,
            outcome: CHAINED | extra,
        };
        Some((choice, o))
    }

    /// Re-executes one choice of a path of this search (a chained transaction step by step)
    /// from `parent`: the state it leads to and the kind of its last step.
    pub(super) fn rerun(
        &mut self,
        parent: &State,
        c: Choice,
        touched: &mut Touched,
    ) -> (State, Kind) {
        let (first, extra) = split_chain(c);
        let mut cur: Option<State> = None;
        let mut kind = Kind::Internal;
        for i in 0..=extra {
            let from = cur.as_ref().unwrap_or(parent);
            self.scratch.clear();
            let index = if i == 0 { first } else { 0 };
            // that outcome alone: a wide step's list is never built whole
            self.m.step_window(
                from,
                c.thread as usize,
                touched,
                &mut self.scratch,
                u64::from(index),
                1,
            );
            let Some(Outcome::Next { state, kind: k }) = self.scratch.pop() else {
                unreachable!("a choice on the stack re-executes to a state");
            };
            if i == 0 || matches!(k, Kind::ThreadStart | Kind::ThreadEnd) {
                kind = k;
            }
            cur = Some(state);
        }
        (cur.expect("at least one step"), kind)
    }
}
