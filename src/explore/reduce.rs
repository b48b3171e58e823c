//! The reductions of the explicit search (`--reduction`) and the breadth-first orders: which
//! states are interior (explored but not stored), transactions run on as one chained choice,
//! and the levels of ZING's order.

use super::{Choice, Explorer, Succs, MACRO};
use crate::runtime::{Kind, Mover, Outcome, State, Touched};
use std::collections::VecDeque;
use zingrs_lang::ir::Stmt;

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

    /// What `choice` from `s` adds to a breadth-first search's level: its steps, or in ZING's
    /// order one per process step (none inside an atomic region; a chained region is one)
    /// plus one for a choice among two or more alternatives.
    pub(super) fn cost(&self, s: &State, choice: Choice) -> u64 {
        if !self.how.zing_order {
            return 1 + split_chain(choice).1 as u64;
        }
        let tid = choice.thread as usize;
        let choice = (self.m.alternatives(s, tid) >= 2) as u64;
        let process_step = (s.atomic_owner() != Some(tid)) as u64;
        process_step + choice
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
    /// - with `por`, a state whose thread `tid` moved within itself (no thread started or
    ///   ended) to a step that it may take alone: the transaction goes on with it (a thread's
    ///   cycle of such steps holds a node where it may not, at which the state is stored).
    pub(super) fn interior(&self, parent: &State, tid: u32, o: &Outcome, branching: bool) -> bool {
        if branching {
            return false;
        }
        let Some((proc, pc, depth, atomic)) = Self::position(parent, tid, o) else {
            return false;
        };
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
    /// to run on.
    pub(super) fn chain(&mut self, s: &State, tid: usize) -> Option<(Choice, Outcome)> {
        let mut extra = 0u32;
        let mut phase = self.first_phase(s, tid);
        let mut o = self.scratch.pop().expect("one outcome");
        // the state `o` is an outcome of (None: `s`), built only once the chain goes on
        let mut from: Option<State> = None;
        let mut kind = Kind::Internal;
        loop {
            let parent = from.as_ref().unwrap_or(s);
            if extra >= MAX_CHAIN
                || self.summarizes_next(parent, tid as u32, &o)
                || !(self.interior(parent, tid as u32, &o, false)
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
            from = Some(state);
            o = self.scratch.pop().expect("one outcome");
            extra += 1;
            self.chained += 1;
        }
        if extra == 0 {
            self.scratch.push(o);
            return None;
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
