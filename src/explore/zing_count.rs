//! ZING's "distinct states explored" (zing-language.md §6.7).
//!
//! ZING stored only some states: the initial one, the states between steps where a process
//! step comes next and the process list holds at least two processes, and the choice states
//! with at least two alternatives. Our search stores more (states inside atomic regions, and
//! single-process states), so that it terminates everywhere; this counter picks out of the
//! states it stores exactly those ZING would have stored, so that for a passing model the
//! number equals ZING's.

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
    /// alternatives (inside an atomic region only its owner moves).
    pub fn add(&mut self, m: &Machine, s: &State, initial: bool) {
        let owner = s.atomic_owner();
        let movable = |t: usize| !s.threads[t].stack.is_empty() && m.blocked(s, t).is_none();
        let between_steps =
            owner.is_none() && s.threads.len() >= 2 && (0..s.threads.len()).any(movable);
        if initial || between_steps {
            self.states += 1;
        }
        let movers: Vec<usize> = match owner {
            Some(o) => vec![o],
            None => (0..s.threads.len()).collect(),
        };
        for t in movers {
            if movable(t) && m.alternatives(s, t) >= 2 {
                self.states += 1;
            }
        }
    }
}
