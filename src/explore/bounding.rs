//! Schedule bounding of the explicit search: preemption bounding (`--preemptions K`) and
//! delay bounding with a deterministic scheduler (`--delays K --scheduler S`).
//!
//! Both are a monitor run beside the program: its state (the thread that ran last, the
//! scheduler's order, the preemptions or delays used so far) travels with every search node
//! in [`super::Ctx`]; the key a state is stored under is the program state and the monitor's
//! state without its count, and a key reached again with a smaller count is explored again
//! (`Explorer::visit`). A path whose cost is within the bound is a path of that product, and
//! the product is searched exhaustively: every state reachable within the bound is reached,
//! and every error reachable within it is found (see ARCHITECTURE.md, "Schedule bounding is
//! the exhaustive search of a product").

use super::{Ctx, Explorer, ENDED, FRESH};
use crate::runtime::{Kind, State};
use crate::search::{Choice, Limit};
use zingrs_lang::ir::Stmt;

/// Which schedules the explicit search explores (`ExplicitOptions::bounding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounding {
    /// At most this many preemptions: switches away from a thread that could still move (a
    /// switch after a thread ends, blocks at a `select` or stands at an unsatisfiable
    /// `assume`, or right after it yielded, is free).
    Preemptions(u32),
    /// At most `bound` delays of the deterministic `scheduler`: at each step the scheduler
    /// names the thread to run; skipping it for the next runnable one in the scheduler's
    /// order costs one delay (each thread skipped costs one).
    ///
    /// With `choices` (`--delay-choices`), taking an alternative of a choice (`choose`, a
    /// `select` with several enabled branches) other than the first costs one delay too, as
    /// ZING's `-sched:` counts them.
    Delays {
        bound: u32,
        scheduler: Scheduler,
        choices: bool,
    },
}

/// The deterministic schedulers of delay bounding (ZING's `sched/` schedulers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Scheduler {
    /// The most recently created runnable thread runs until it ends or blocks (a stack: a new
    /// thread goes on top; a delay moves the top thread to the bottom).
    RunToCompletion,
    /// Threads in creation order, each running until it ends or blocks (a queue: a new thread
    /// goes to the back; a delay moves the front thread to the back).
    RoundRobin,
}

impl Bounding {
    /// The bound (preemptions or delays).
    pub fn bound(self) -> u32 {
        match self {
            Bounding::Preemptions(k) | Bounding::Delays { bound: k, .. } => k,
        }
    }

    /// The same bounding with bound `k`.
    pub fn with_bound(self, k: u32) -> Bounding {
        match self {
            Bounding::Preemptions(_) => Bounding::Preemptions(k),
            Bounding::Delays {
                scheduler, choices, ..
            } => Bounding::Delays {
                bound: k,
                scheduler,
                choices,
            },
        }
    }

    /// The option that sets it, as a verdict names the bound that cut the search.
    pub fn describe(self) -> String {
        match self {
            Bounding::Preemptions(k) => format!("preemption bound (--preemptions {k})"),
            Bounding::Delays {
                bound,
                scheduler,
                choices,
            } => format!(
                "delay bound (--delays {bound} --scheduler {}{})",
                scheduler.name(),
                if choices { " --delay-choices" } else { "" }
            ),
        }
    }
}

impl Scheduler {
    /// The name `--scheduler` takes.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::RunToCompletion => "run-to-completion",
            Scheduler::RoundRobin => "round-robin",
        }
    }
}

/// Most threads a delay-bounding scheduler orders at once (the order is kept in the search
/// node, `Order`).
pub const MAX_ORDERED: usize = 14;

/// A scheduler's order of the threads it may still run, first the one it picks (thread
/// positions; `len` of them are used). Threads the order has not seen yet are added as the
/// scheduler adds new threads ([`Order::sync`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Order {
    ids: [u8; MAX_ORDERED],
    len: u8,
    /// Threads `0..seen` have been added (a thread is added once, when it first exists).
    seen: u8,
}

impl Order {
    /// No thread ordered yet.
    pub(super) const EMPTY: Order = Order {
        ids: [0; MAX_ORDERED],
        len: 0,
        seen: 0,
    };

    fn as_slice(&self) -> &[u8] {
        &self.ids[..self.len as usize]
    }

    /// Adds the threads of `s` created since the last call, as `scheduler` adds new threads
    /// (run-to-completion: first; round-robin: last), and drops the ones that have ended.
    /// None if more than [`MAX_ORDERED`] threads would be ordered at once.
    fn sync(mut self, s: &State, scheduler: Scheduler) -> Option<Order> {
        let n = s.threads.len();
        let live = |t: usize| t < n && !s.threads[t].stack.is_empty();
        let mut ids: Vec<u8> = self.as_slice().to_vec();
        ids.retain(|&t| live(t as usize));
        for t in self.seen as usize..n {
            if !live(t) {
                continue;
            }
            let t = u8::try_from(t).ok()?;
            match scheduler {
                Scheduler::RunToCompletion => ids.insert(0, t),
                Scheduler::RoundRobin => ids.push(t),
            }
        }
        if ids.len() > MAX_ORDERED || n > u8::MAX as usize {
            return None;
        }
        self.ids = [0; MAX_ORDERED];
        self.ids[..ids.len()].copy_from_slice(&ids);
        self.len = ids.len() as u8;
        self.seen = n as u8;
        Some(self)
    }

    /// The order after `k` delays: the first `k` threads moved to the end, in turn.
    fn rotated(mut self, k: usize) -> Order {
        let len = self.len as usize;
        if len > 0 {
            self.ids[..len].rotate_left(k % len);
        }
        self
    }

    /// The order after thread `t` ended and left the thread list (a boolean program's
    /// threads do; Zing processes stay, with no frames): the threads after it move down one
    /// position.
    fn removed(mut self, t: u32) -> Order {
        let t = t as u8;
        let ids: Vec<u8> = self
            .as_slice()
            .iter()
            .filter(|&&u| u != t)
            .map(|&u| if u > t { u - 1 } else { u })
            .collect();
        self.ids = [0; MAX_ORDERED];
        self.ids[..ids.len()].copy_from_slice(&ids);
        self.len = ids.len() as u8;
        self.seen = self.seen.saturating_sub(1);
        self
    }

    /// The bytes a stored state's key carries.
    pub(super) fn key_bytes(&self, buf: &mut Vec<u8>) {
        buf.push(self.len);
        buf.push(self.seen);
        buf.extend_from_slice(self.as_slice());
    }
}

impl Explorer<'_, '_> {
    /// Whether thread `t` of `s` could move now: it has not ended, is not blocked at a
    /// `select`, and (in a boolean program) its step has an outcome.
    pub(super) fn can_run(&self, s: &State, t: u32) -> bool {
        let t = t as usize;
        let Some(thread) = s.threads.get(t) else {
            return false;
        };
        if thread.stack.is_empty() {
            return false;
        }
        if let Some(owner) = s.atomic_owner() {
            return owner == t;
        }
        if self.m.program.lang != zingrs_lang::Lang::Bp {
            return self.m.blocked(s, t).is_none();
        }
        let mut out = Vec::new();
        self.m.step_moves(s, t, &mut (), &mut out);
        !out.is_empty()
    }

    /// The bookkeeping after `choice` led from `parent` (bookkeeping `ctx`) by a step of
    /// `kind`, under `bounding`; None if the step costs more than the bound allows.
    pub(super) fn advance_bounded(
        &mut self,
        bounding: Bounding,
        parent: &State,
        ctx: Ctx,
        choice: Choice,
        kind: Kind,
    ) -> Option<Ctx> {
        let t = choice.thread;
        let mut next = ctx;
        match bounding {
            Bounding::Preemptions(bound) => {
                match ctx.last {
                    FRESH | ENDED => {}
                    last if last == t => {}
                    last => {
                        if self.can_run(parent, last) {
                            next.used += 1;
                        }
                    }
                }
                next.last = t;
                if next.used > bound {
                    self.result.context_cut = true;
                    return None;
                }
            }
            Bounding::Delays {
                bound,
                scheduler,
                choices,
            } => {
                let Some(order) = ctx.order.sync(parent, scheduler) else {
                    // (reported as a state limit: the search cannot go on soundly)
                    self.result.limit.get_or_insert(Limit::States);
                    return None;
                };
                // the scheduler's pick is the first runnable thread of its order; each
                // runnable thread before `t` is skipped by one delay, blocked ones for free
                let mut skipped = 0;
                let mut found = None;
                for (i, &u) in order.as_slice().iter().enumerate() {
                    if u as u32 == t {
                        found = Some(i);
                        break;
                    }
                    if self.can_run(parent, u as u32) {
                        skipped += 1;
                    }
                }
                let Some(at) = found else {
                    // inside an atomic region the owner alone moves, and it is ordered
                    unreachable!("a thread that moves is in its scheduler's order");
                };
                // (ZING's convention: an alternative of a choice after the first is a delay)
                if choices && choice.outcome > 0 && self.m.alternatives(parent, t as usize) >= 2 {
                    skipped += 1;
                }
                next.used = ctx.used + skipped;
                if next.used > bound {
                    self.result.context_cut = true;
                    return None;
                }
                // the delayed threads go to the end, in turn; the one that ran is first
                next.order = order.rotated(at);
                if kind == Kind::ThreadEnd && !self.m.program.keep_completed {
                    next.order = next.order.removed(t);
                }
                next.last = t;
            }
        }
        let yielded = parent.threads[t as usize]
            .stack
            .top()
            .is_some_and(|f| matches!(self.m.program.node(f.proc, f.pc).stmt, Stmt::Yield));
        if kind == Kind::ThreadEnd || (yielded && matches!(bounding, Bounding::Preemptions(_))) {
            next.last = ENDED;
        }
        if kind == Kind::ThreadStart && self.phase_change(parent, t) {
            next.last = FRESH;
        }
        Some(next)
    }
}
