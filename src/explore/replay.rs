//! Re-execution of a path on the interpreter: every counterexample is replayed before it is
//! reported, and one that does not replay is an internal error, never a verdict.

use super::Path;
use crate::runtime::{InitialStates, Machine, Outcome, State, Violation};

/// A path that replayed: the states along it and how it ended.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// `states[0]` is the initial state; `states[i + 1]` follows `path.choices[i]`. When the
    /// path ends in a violation there is one state fewer than choices plus one.
    pub states: Vec<State>,
    pub violation: Option<Violation>,
}

/// Re-executes `path`, checking at every step that the choice exists and is allowed.
pub fn replay(m: &Machine, path: &Path) -> Result<Replayed, String> {
    replay_keeping(m, path, true)
}

/// [`replay`], keeping in [`Replayed::states`] only the last state unless `all` (a report
/// without a trace needs only where the path ends, and a long path has millions of states).
pub fn replay_keeping(m: &Machine, path: &Path, all: bool) -> Result<Replayed, String> {
    let width = InitialStates::new(m).width();
    if path.init.len() != width {
        return Err(format!(
            "the initial valuation has {} values, the program needs {width}",
            path.init.len()
        ));
    }
    let s0 = InitialStates::build(m, &path.init);
    if !(0..s0.threads.len()).all(|t| m.invariant_holds(&s0, t, &mut ())) {
        return Err("the initial state violates an `enforce` invariant".into());
    }
    let mut states = vec![s0];
    let mut outs = Vec::new();
    for (i, c) in path.choices.iter().enumerate() {
        let s = states.last().expect("at least the initial state");
        let tid = c.thread as usize;
        if tid >= s.threads.len() {
            return Err(format!("step {i}: thread {tid} does not exist"));
        }
        if let Some(owner) = s.atomic_owner() {
            if owner != tid {
                return Err(format!(
                    "step {i}: thread {tid} moves while thread {owner} is atomic"
                ));
            }
        }
        outs.clear();
        m.step(s, tid, &mut (), &mut outs);
        match outs.get(c.outcome as usize) {
            Some(Outcome::Next { .. }) => {
                let Outcome::Next { state, .. } = outs.swap_remove(c.outcome as usize) else {
                    unreachable!()
                };
                if !all {
                    states.clear();
                }
                states.push(state)
            }
            Some(Outcome::Violation(v)) if i + 1 == path.choices.len() => {
                return Ok(Replayed {
                    states,
                    violation: Some(*v),
                })
            }
            Some(Outcome::Violation(_)) => {
                return Err(format!("step {i}: a violation in the middle of the path"))
            }
            Some(Outcome::Pruned) => return Err(format!("step {i}: the choice is pruned")),
            None => {
                return Err(format!(
                    "step {i}: thread {tid} has {} outcomes, the path takes #{}",
                    outs.len(),
                    c.outcome
                ))
            }
        }
    }
    Ok(Replayed {
        states,
        violation: None,
    })
}
