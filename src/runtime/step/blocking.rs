//! ZING's rules for a `select` that blocks where a process may not wait: in the middle of
//! a cooperative run, and what ZING's checker makes of an invalid blocking select (the
//! runtime error, or the deadlock its invalid end state check finds), docs/zing.md.

use super::{Kind, Outcome, Violation};
use crate::runtime::eval::RtError;
use crate::runtime::state::State;
use crate::runtime::Machine;
use zingrs_lang::ir::{Pc, ProcId, Stmt};

impl Machine<'_> {
    /// Cooperative scheduling (zing-language.md §6.4): a process that did not yield runs on,
    /// so a step that leaves it at a disabled `select` has met that select in the middle of
    /// its step: ZING's runtime error "There should be an explicit yield before a select
    /// statement that can block" (an invalid blocking select), not a blocked process.
    pub(super) fn cooperative_selects(
        &self,
        s: &State,
        tid: usize,
        proc: ProcId,
        out: &mut [Outcome],
    ) {
        let at_select =
            |proc: ProcId, pc: Pc| matches!(self.program.node(proc, pc).stmt, Stmt::Select { .. });
        for o in out {
            let lands = match o {
                Outcome::Moved { mv, .. } => at_select(proc, mv.pc),
                // (a boolean program's thread that ended is gone from the list)
                Outcome::Next { state, .. } => state
                    .threads
                    .get(tid)
                    .and_then(|t| t.stack.top())
                    .is_some_and(|f| at_select(f.proc, f.pc)),
                _ => false,
            };
            if !lands {
                continue;
            }
            o.materialize(s);
            if let Outcome::Next { state, .. } = o {
                if self.blocked(state, tid).is_some() {
                    *o = self.invalid_blocking_select(s, tid, state);
                }
            }
        }
    }

    /// What ZING makes of an invalid blocking select met by thread `tid`'s step from `s`,
    /// `at` being the state where the thread stands at that `select`: the runtime error, or
    /// a deadlock. ZING's checker (`StateImpl.RunProcess`) raises the error and then, in a
    /// step that started by scheduling the process (not at a choice state), looks for an
    /// invalid end state once the process cannot run on, and that verdict replaces the
    /// error. The process stops at the `select` when it chooses among two or more branches
    /// (no `first`: its choice among no enabled branch fails before the process moves);
    /// otherwise the error returns from the `select`'s method, which ends the process where
    /// that method is its first (its caller, running on, keeps the error). So where no
    /// process can then move and one is blocked at a `select` not marked `end`, the
    /// outcome is that deadlocked state (docs/zing.md).
    pub(super) fn invalid_blocking_select(&self, s: &State, tid: usize, at: &State) -> Outcome {
        let error = Outcome::Violation(Violation::Runtime(RtError::InvalidBlockingSelect));
        if !self.semantics.deadlock
            || !self.program.keep_completed
            || self.came_through_choice(s, tid)
        {
            return error;
        }
        let Some(frame) = at.threads.get(tid).and_then(|t| t.stack.top()) else {
            return error;
        };
        let Stmt::Select { guards, first, .. } = &self.program.node(frame.proc, frame.pc).stmt
        else {
            return error;
        };
        let stopped = if !*first && guards.len() > 1 {
            let mut st = at.clone();
            st.thread_mut(tid).atomic = false;
            st
        } else if at.threads[tid].stack.depth() == 1 {
            match self.end_thread(at, tid) {
                Outcome::Next { state, .. } => state,
                _ => return error,
            }
        } else {
            return error;
        };
        if self.deadlocked(&stopped) {
            Outcome::Next {
                state: stopped,
                kind: Kind::Internal,
            }
        } else {
            error
        }
    }
}
