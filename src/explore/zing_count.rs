//! ZING's "distinct states explored" (zing-language.md §6.7).
//!
//! ZING stored only some states: the initial one, the states between steps where a process
//! step comes next and the process list holds at least two processes, and the choice states
//! with at least two alternatives. Our search stores more (states inside atomic regions, and
//! single-process states), so that it terminates everywhere; this counter picks out of the
//! states it stores exactly those ZING would have stored, so that for a passing model the
//! number equals ZING's.
//!
//! In cooperative mode ZING's process step runs until the process yields, blocks, ends or
//! reaches a choice: the states our search stores while a process holds the processor are
//! inside one of ZING's steps, and only their choices count.

use crate::runtime::{Machine, State};

/// The running count, fed with every newly stored state.
#[derive(Debug, Default)]
pub struct ZingCount {
    pub states: u64,
}

impl ZingCount {
    /// Counts what a newly stored state stands for in ZING: the state itself (the initial
    /// state, or a state between steps with two or more processes where one can move), and
    /// one choice state per process whose next step starts with a choice of two or more
    /// alternatives (inside an atomic region only its owner moves). `held`: in cooperative
    /// mode, the process that must go on (the state is inside its step).
    pub fn add(&mut self, m: &Machine, s: &State, initial: bool, held: Option<usize>) {
        let owner = s.atomic_owner().or(held);
        if initial || (owner.is_none() && between_steps(m, s)) {
            // (a held process that is blocked cannot be: its step would have been an error)
            self.states += 1;
        }
        self.states += match owner {
            Some(o) => chooses(m, s, o) as u64,
            None => (0..s.threads.len()).filter(|&t| chooses(m, s, t)).count() as u64,
        };
    }
}

/// Whether ZING fingerprints the state it reaches at `s` (`held` as in [`ZingCount::add`]),
/// so that its search may cut it there (`IsFingerPrinted`, zing-language.md §6.7): between
/// steps, a state with two or more processes of which one can move; inside a process step
/// (an atomic region, a held cooperative run), its owner's choice among two or more
/// alternatives. ZING's depth-first search runs straight on through any other state, never
/// looking it up, so what lies below it comes before its ancestor's next successor (the
/// breadth-first search in ZING's order does the same, `bfs.rs`). The initial state, which
/// ZING always fingerprints, is not asked.
pub fn fingerprints(m: &Machine, s: &State, held: Option<usize>) -> bool {
    match s.atomic_owner().or(held) {
        Some(o) => chooses(m, s, o),
        None => between_steps(m, s),
    }
}

/// Whether process `t` has not ended and is not blocked.
fn movable(m: &Machine, s: &State, t: usize) -> bool {
    !s.threads[t].stack.is_empty() && m.blocked(s, t).is_none()
}

/// A state between steps that ZING stores: two or more processes, one of which can move.
fn between_steps(m: &Machine, s: &State) -> bool {
    let n = s.threads.len();
    n >= 2 && (0..n).any(|t| movable(m, s, t))
}

/// Whether process `t`'s next step starts with a choice among two or more alternatives.
fn chooses(m: &Machine, s: &State, t: usize) -> bool {
    // most statements are no choice: ask that first, it is the cheaper question
    m.alternatives(s, t) >= 2 && movable(m, s, t)
}
