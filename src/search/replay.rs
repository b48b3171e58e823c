//! Re-execution of a path on the interpreter: every counterexample is replayed before it is
//! reported, and one that does not replay is an internal error, never a verdict.
//!
//! [`Replayer`] is the one loop that does it, choice by choice; [`replay`] feeds it a recorded
//! path, and an engine that picks its choices by looking at the outcomes (the BDD engine
//! matches each step to its own trace) drives it directly, so the path it hands back has been
//! executed once, by this code, and needs no second run.

use super::{Choice, Path};
use crate::runtime::{InitialStates, Machine, Outcome, State, Value, Violation};

/// A path that replayed: the states along it and how it ended.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// `states[0]` is the initial state; `states[i + 1]` follows `path.choices[i]`. When the
    /// path ends in a violation there is one state fewer than choices plus one.
    pub states: Vec<State>,
    pub violation: Option<Violation>,
    /// The most threads alive at once along the path (a trace shows a thread column when
    /// there were several), known without keeping the states.
    pub threads: u32,
}

/// Re-executes `path`, checking at every step that the choice exists and is allowed.
pub fn replay(m: &Machine, path: &Path) -> Result<Replayed, String> {
    replay_keeping(m, path, true)
}

/// [`replay`], keeping in [`Replayed::states`] only the last state unless `all` (a report
/// without a trace needs only where the path ends, and a long path has millions of states).
pub fn replay_keeping(m: &Machine, path: &Path, all: bool) -> Result<Replayed, String> {
    let mut r = Replayer::start(m, path.init.clone(), all)?;
    for c in &path.choices {
        r.choose(c.thread, c.outcome)?;
    }
    Ok(r.finish().1)
}

/// A replay in progress: the path so far, the state it is in, and the outcomes of the step
/// being chosen. Each step is [`Replayer::outcomes`] then [`Replayer::take`]; the checks are
/// those of [`replay`] (the choice exists and is allowed, a violation ends the path).
pub struct Replayer<'m, 'p> {
    m: &'m Machine<'p>,
    path: Path,
    /// The states so far (only the last unless `all`).
    states: Vec<State>,
    all: bool,
    /// The outcomes of the current step, in `step`'s order.
    outs: Vec<Outcome>,
    /// The thread the outcomes are of.
    thread: u32,
    violation: Option<Violation>,
    /// The most threads alive in a state so far.
    threads: u32,
}

impl<'m, 'p> Replayer<'m, 'p> {
    /// Starts from the initial state of valuation `init` (checked against the program's
    /// initial slots, [`InitialStates::admits`], and `enforce` invariants).
    pub fn start(m: &'m Machine<'p>, init: Vec<Value>, all: bool) -> Result<Self, String> {
        // the types and the values the language fixes, then the `enforce` invariants
        InitialStates::admits(m, &init)?;
        let s0 = InitialStates::build(m, &init);
        if !(0..s0.threads.len()).all(|t| m.invariant_holds(&s0, t, &mut ())) {
            return Err("the initial state violates an `enforce` invariant".into());
        }
        Ok(Replayer {
            m,
            path: Path {
                init,
                choices: Vec::new(),
            },
            threads: s0.threads.len() as u32,
            states: vec![s0],
            all,
            outs: Vec::new(),
            thread: 0,
            violation: None,
        })
    }

    /// Goes on from `state`, a state of a path that already replayed (a trace printed in
    /// pieces resumes at states it kept): the path recorded starts there, with no initial
    /// valuation, and only the last state is kept.
    pub fn resume(m: &'m Machine<'p>, state: State) -> Self {
        Replayer {
            m,
            path: Path {
                init: Vec::new(),
                choices: Vec::new(),
            },
            threads: state.threads.len() as u32,
            states: vec![state],
            all: false,
            outs: Vec::new(),
            thread: 0,
            violation: None,
        }
    }

    /// How the last step ended, if in a violation.
    pub fn violation(&self) -> Option<Violation> {
        self.violation
    }

    /// The state the path is in.
    pub fn state(&self) -> &State {
        self.states.last().expect("at least the initial state")
    }

    /// The number of choices taken so far.
    pub fn len(&self) -> usize {
        self.path.choices.len()
    }

    /// Whether no choice has been taken yet.
    pub fn is_empty(&self) -> bool {
        self.path.choices.is_empty()
    }

    /// Steps thread `tid` from the current state: its outcomes, in `step`'s order.
    pub fn outcomes(&mut self, tid: u32) -> Result<&[Outcome], String> {
        self.runnable(tid)?;
        self.outs.clear();
        let s = self.states.last().expect("at least the initial state");
        self.m.step(s, tid as usize, &mut (), &mut self.outs);
        self.thread = tid;
        Ok(&self.outs)
    }

    /// Takes thread `tid`'s step if it has exactly one outcome and that is a successor
    /// (`Ok(true)`); without keeping every state, that successor is the last state changed in
    /// place ([`crate::runtime::Move::apply_in_place`]). `Ok(false)` with nothing taken
    /// otherwise, the step's outcomes then listed as [`Replayer::outcomes`] lists them
    /// ([`Replayer::listed`]).
    pub fn take_only(&mut self, tid: u32) -> Result<bool, String> {
        self.runnable(tid)?;
        self.outs.clear();
        let s = self.states.last().expect("at least the initial state");
        self.m.step_moves(s, tid as usize, &mut (), &mut self.outs);
        self.thread = tid;
        let one = self.outs.len() == 1
            && matches!(self.outs[0], Outcome::Next { .. } | Outcome::Moved { .. });
        if !one {
            for o in &mut self.outs {
                o.materialize(s);
            }
            return Ok(false);
        }
        match self.outs.pop().expect("one outcome") {
            Outcome::Moved { mv, .. } if !self.all => {
                mv.apply_in_place(self.states.last_mut().expect("a state"));
            }
            Outcome::Moved { mv, .. } => {
                let state = mv.apply(s);
                self.states.push(state);
            }
            Outcome::Next { state, .. } => {
                if !self.all {
                    self.states.clear();
                }
                self.states.push(state);
            }
            _ => unreachable!("checked above"),
        }
        let n = self.state().threads.len() as u32;
        self.threads = self.threads.max(n);
        self.path.choices.push(Choice {
            thread: tid,
            outcome: 0,
        });
        Ok(true)
    }

    /// The outcomes of the step [`Replayer::take_only`] did not take.
    pub fn listed(&self) -> &[Outcome] {
        &self.outs
    }

    /// [`Replayer::outcomes`] then [`Replayer::take`] of outcome `k`, building that outcome
    /// alone where the statement allows ([`Machine::step_window`]): a path through a step with
    /// 2^24 outcomes replays without their list.
    pub fn choose(&mut self, tid: u32, k: u32) -> Result<(), String> {
        self.runnable(tid)?;
        self.outs.clear();
        let s = self.states.last().expect("at least the initial state");
        self.m
            .step_window(s, tid as usize, &mut (), &mut self.outs, u64::from(k), 1);
        self.thread = tid;
        if self.outs.is_empty() {
            return Err(format!(
                "step {}: thread {tid} has no outcome #{k}",
                self.len()
            ));
        }
        self.take_at(0, k)
    }

    /// Checks that thread `tid` may take the next step.
    fn runnable(&self, tid: u32) -> Result<(), String> {
        let i = self.len();
        if self.violation.is_some() {
            return Err(format!(
                "step {}: a violation in the middle of the path",
                i - 1
            ));
        }
        let s = self.states.last().expect("at least the initial state");
        let t = tid as usize;
        if t >= s.threads.len() {
            return Err(format!("step {i}: thread {t} does not exist"));
        }
        if let Some(owner) = s.atomic_owner() {
            if owner != t {
                return Err(format!(
                    "step {i}: thread {t} moves while thread {owner} is atomic"
                ));
            }
        }
        Ok(())
    }

    /// Takes outcome `k` of the last [`Replayer::outcomes`]: a successor state goes on the
    /// path; a violation ends it (a further step is an error).
    pub fn take(&mut self, k: u32) -> Result<(), String> {
        self.take_at(k as usize, k)
    }

    /// Takes `self.outs[at]`, which is the step's outcome `k`.
    fn take_at(&mut self, at: usize, k: u32) -> Result<(), String> {
        let i = self.len();
        match self.outs.get(at) {
            Some(Outcome::Next { .. }) => {
                let Outcome::Next { state, .. } = self.outs.swap_remove(at) else {
                    unreachable!()
                };
                if !self.all {
                    self.states.clear();
                }
                self.threads = self.threads.max(state.threads.len() as u32);
                self.states.push(state)
            }
            Some(Outcome::Violation(v)) => self.violation = Some(*v),
            Some(Outcome::Pruned) => return Err(format!("step {i}: the choice is pruned")),
            Some(Outcome::Moved { .. }) => unreachable!("Machine::step builds every successor"),
            None => {
                return Err(format!(
                    "step {i}: thread {} has {} outcomes, the path takes #{k}",
                    self.thread,
                    self.outs.len(),
                ))
            }
        }
        self.outs.clear();
        self.path.choices.push(Choice {
            thread: self.thread,
            outcome: k,
        });
        Ok(())
    }

    /// The path taken and what replaying it gives.
    pub fn finish(self) -> (Path, Replayed) {
        (
            self.path,
            Replayed {
                states: self.states,
                violation: self.violation,
                threads: self.threads,
            },
        )
    }
}
