//! The steps of a counterexample and ZING's states along it, built from its path as they are
//! written: the path is re-executed keeping one state (and the names of its processes), so a
//! trace of millions of steps costs its path and one state, not millions of states. The path
//! replayed and was verified before a trace is made of it; `step` is deterministic, so every
//! walk sees the same states.

use super::trace::{changed, dump, initial_names, next_names, step_at, ProcName};
use super::{TraceStep, ZingState};
use crate::runtime::{InitialStates, Machine, State, Violation};
use crate::search::{Path, Replayer};

/// A counterexample's path, with what its walks need to know of how it ends.
#[derive(Clone)]
pub(super) struct PathTrace<'m> {
    /// Shared with the check that made the trace: a report lives as long as its program.
    m: std::sync::Arc<Machine<'m>>,
    path: Path,
    /// The thread whose statement (at the target label) is the step after the last choice.
    end: Option<u32>,
    /// How the last choice ended: a violation has no state after it.
    violation: Option<Violation>,
    /// The thread of the erring process (ZING's error state repeats the last one for it).
    erring: Option<u32>,
    /// A walk stopped early at Ctrl-C, SIGTERM or a limit (`watchdog::cut`).
    cut: std::cell::Cell<Option<crate::search::Limit>>,
}

impl std::fmt::Debug for PathTrace<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PathTrace({} choices)", self.path.choices.len())
    }
}

/// What a step shows besides where it is: the values in scope, what it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shows {
    pub values: bool,
    pub changed: bool,
}

impl Shows {
    /// Every part of every step.
    pub const ALL: Shows = Shows {
        values: true,
        changed: true,
    };
    /// Only where each step is (the statement, its line, thread and depth).
    pub const WHERE: Shows = Shows {
        values: false,
        changed: false,
    };
}

/// A place on the path to walk on from: the state before choice `i` and its processes.
#[derive(Clone)]
struct Mark {
    i: usize,
    state: State,
    names: Vec<ProcName>,
    next: u32,
}

impl<'m> PathTrace<'m> {
    pub(super) fn new(
        m: std::sync::Arc<Machine<'m>>,
        path: Path,
        end: Option<u32>,
        violation: Option<Violation>,
        erring: Option<u32>,
    ) -> Self {
        PathTrace {
            m,
            path,
            end,
            violation,
            erring,
            cut: std::cell::Cell::new(None),
        }
    }

    /// What stopped a walk early, if anything: what was written of the trace is a prefix.
    pub(super) fn cut(&self) -> Option<crate::search::Limit> {
        self.cut.get()
    }

    /// The number of steps: one per choice, and the target's statement.
    pub(super) fn len(&self) -> usize {
        self.path.choices.len() + usize::from(self.end.is_some())
    }

    /// The number of ZING's states (see [`ZingStates`]): one walk of the path, without dumps.
    pub(super) fn zing_len(&self) -> usize {
        self.zing_states(false).count()
    }

    fn start(&self) -> Mark {
        let s0 = InitialStates::build(&self.m, &self.path.init);
        Mark {
            i: 0,
            names: initial_names(&self.m, &s0),
            next: s0.threads.len() as u32,
            state: s0,
        }
    }

    /// The steps in order, showing `shows`.
    pub(super) fn steps(&self, shows: Shows) -> Steps<'_, 'm> {
        Steps::from(self, self.start(), None, shows)
    }

    /// The steps in reverse order (Bebop's layout), without keeping them all: a first walk
    /// marks the state before every `b`-th choice (b = √len, at least 64), then each stretch
    /// from the last to the first is walked again from its mark and given back reversed, so
    /// √len states and √len steps are kept at a time, for twice the work.
    pub(super) fn steps_rev(&self, shows: Shows) -> impl Iterator<Item = TraceStep> + '_ {
        let n = self.path.choices.len();
        let every = (n as f64).sqrt().ceil().max(64.0) as usize;
        let mut marks = vec![self.start()];
        let mut walk = Steps::from(self, self.start(), Some(n), Shows::WHERE);
        while walk.at.i < n && walk.next().is_some() {
            if walk.at.i.is_multiple_of(every) && walk.at.i < n {
                marks.push(walk.at.clone());
            }
        }
        let ends: Vec<Option<usize>> = marks
            .iter()
            .skip(1)
            .map(|k| Some(k.i))
            .chain(std::iter::once(None))
            .collect();
        marks
            .into_iter()
            .zip(ends)
            .rev()
            .flat_map(move |(mark, until)| {
                let mut stretch: Vec<TraceStep> = Steps::from(self, mark, until, shows).collect();
                stretch.reverse();
                stretch
            })
    }

    /// ZING's states in order, each dumped when `dumps`.
    pub(super) fn zing_states(&self, dumps: bool) -> ZingStates<'_, 'm> {
        ZingStates {
            t: self,
            at: Steps::from(self, self.start(), None, Shows::WHERE),
            dumps,
            first: true,
            done: false,
            choice: None,
        }
    }
}

/// The steps of a walk from a [`Mark`] up to choice `until` (to the end, the target's
/// statement included, when `None`).
pub(super) struct Steps<'t, 'm> {
    t: &'t PathTrace<'m>,
    at: Mark,
    replayer: Replayer<'t, 'm>,
    until: Option<usize>,
    shows: Shows,
    /// The target's statement was given, or a choice failed to replay (which a verified path
    /// never does): nothing follows.
    done: bool,
}

impl<'t, 'm> Steps<'t, 'm> {
    fn from(t: &'t PathTrace<'m>, at: Mark, until: Option<usize>, shows: Shows) -> Self {
        Steps {
            t,
            replayer: Replayer::resume(&t.m, at.state.clone()),
            at,
            until,
            shows,
            done: false,
        }
    }

    /// Takes choice `at.i`: the state before it (the mark moves on to the state after it, if
    /// any) and the processes after it when they changed. `None` when it does not replay.
    fn advance(&mut self) -> Option<(State, Option<Vec<ProcName>>)> {
        let c = *self.t.path.choices.get(self.at.i)?;
        // a trace of millions of steps takes seconds to write: Ctrl-C or a limit ends it here
        if let Some(limit) = crate::search::watchdog::cut() {
            self.t.cut.set(Some(limit));
            self.done = true;
            return None;
        }
        let before = self.at.state.clone();
        if self.replayer.choose(c.thread, c.outcome).is_err() {
            self.done = true;
            return None;
        }
        self.at.i += 1;
        let mut names = None;
        if self.replayer.violation().is_none() {
            let after = self.replayer.state().clone();
            names = next_names(
                &self.t.m,
                &self.at.names,
                &before,
                &after,
                c.thread as usize,
                &mut self.at.next,
            );
            self.at.state = after;
        }
        Some((before, names))
    }
}

impl Iterator for Steps<'_, '_> {
    type Item = TraceStep;

    fn next(&mut self) -> Option<TraceStep> {
        let t = self.t;
        let m: &Machine = &t.m;
        let n = self.t.path.choices.len();
        while !self.done && self.at.i < self.until.unwrap_or(n).min(n) {
            let i = self.at.i;
            let tid = self.t.path.choices[i].thread as usize;
            let (before, names) = self.advance()?;
            let Some(mut step) = step_at(m, &before, tid, i, self.shows.values) else {
                if let Some(names) = names {
                    self.at.names = names;
                }
                continue;
            };
            // the process's id, not its index in the state's thread list, which shifts
            // down when an earlier thread ends and is removed
            step.thread = id_of(&self.at.names, tid);
            if self.shows.changed && self.replayer.violation().is_none() {
                let after_names = names.as_deref().unwrap_or(&self.at.names);
                step.changed =
                    changed(m, &before, &self.at.state, tid, &self.at.names, after_names);
            }
            if let Some(names) = names {
                self.at.names = names;
            }
            return Some(step);
        }
        if self.done || self.until.is_some() {
            return None;
        }
        self.done = true;
        let t = self.t.end?;
        let mut step = step_at(m, &self.at.state, t as usize, n, self.shows.values)?;
        step.thread = id_of(&self.at.names, t as usize);
        Some(step)
    }
}

/// The id of the process at index `tid` of a state's thread list named `names`.
fn id_of(names: &[ProcName], tid: usize) -> u32 {
    names.get(tid).map_or(tid as u32, |q| q.id)
}

/// ZING's states along a path: the initial state, then the state after each of ZING's steps
/// (zing-language.md §6.2): our steps that stay inside an atomic region run on into one
/// state, as the whole region is one step of ZING's; a statement that chooses among two or
/// more alternatives is ZING's process step ending at the choice point (the state before it)
/// and then a choice step ("took choice k") that runs on to the end of the region. After a
/// failing step, the state the error stopped in, which is the state before that step with
/// its process at the failing statement.
pub(super) struct ZingStates<'t, 'm> {
    t: &'t PathTrace<'m>,
    at: Steps<'t, 'm>,
    dumps: bool,
    first: bool,
    done: bool,
    /// A choice step to give next: the process step that ended at the choice point was given.
    choice: Option<u32>,
}

impl ZingStates<'_, '_> {
    fn dump(&self) -> Vec<String> {
        if self.dumps {
            dump(&self.t.m, &self.at.at.state, &self.at.at.names)
        } else {
            Vec::new()
        }
    }

    /// Process `tid`'s id in the current state.
    fn id_of(&self, tid: u32) -> u32 {
        self.at.at.names.get(tid as usize).map_or(tid, |q| q.id)
    }
}

impl Iterator for ZingStates<'_, '_> {
    type Item = ZingState;

    fn next(&mut self) -> Option<ZingState> {
        if self.done {
            return None;
        }
        if self.first {
            self.first = false;
            return Some(ZingState {
                ran: None,
                took: None,
                dump: self.dump(),
            });
        }
        let n = self.t.path.choices.len();
        let t = self.t;
        let m: &Machine = &t.m;
        // the process whose ZING step this is, and the choice it took, if a choice step
        let mut step: Option<(u32, Option<u32>)> = None;
        loop {
            let i = self.at.at.i;
            if i >= n {
                self.done = true;
                // a path never ends inside a region but when an error does: nothing is open
                return step.map(|(ran, took)| ZingState {
                    ran: Some(ran),
                    took,
                    dump: self.dump(),
                });
            }
            let c = self.t.path.choices[i];
            if i + 1 == n && self.t.violation.is_some() {
                self.done = true;
                return Some(ZingState {
                    ran: self.t.erring.map(|t| self.id_of(t)),
                    took: None,
                    dump: self.dump(),
                });
            }
            let took = self.choice.take();
            if took.is_none() && m.alternatives(&self.at.at.state, c.thread as usize) >= 2 {
                // ZING's process step ends at the choice point, before the choice is made
                self.choice = Some(c.outcome);
                let ran = step.map_or_else(|| self.id_of(c.thread), |(r, _)| r);
                return Some(ZingState {
                    ran: Some(ran),
                    took: None,
                    dump: self.dump(),
                });
            }
            let ran = self.id_of(c.thread);
            step = Some(match step {
                Some(s) => s,
                None => (ran, took),
            });
            let (_, names) = self.at.advance()?;
            if let Some(names) = names {
                self.at.at.names = names;
            }
            // inside an atomic region the same ZING step goes on
            let inside = self.at.at.state.atomic_owner() == Some(c.thread as usize);
            if !inside || self.at.at.i >= n {
                let (ran, took) = step.expect("set above");
                return Some(ZingState {
                    ran: Some(ran),
                    took,
                    dump: self.dump(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Shows;
    use crate::report::{build_trace, verify, Claim, TraceStep};
    use crate::runtime::{Machine, Semantics};
    use crate::search::{replay_keeping, Finding, Options};

    /// Two processes, one of which loops 150 times before the assertion fails: a trace of
    /// several hundred steps, so that the reversed walk goes through many stretches.
    const MODEL: &str = "class Main {\n    static int g;\n    activate static void main() {\n        int i;\n        i = 0;\n        while (i < 150) {\n            i = i + 1;\n            g = i;\n        }\n        assert(g == 0);\n    }\n    activate static void other() {\n        g = 7;\n    }\n};\n";

    #[test]
    fn the_reversed_walk_and_the_zing_states_agree_with_the_forward_walk() {
        let p = zingrs_lang::compile("t.zing", MODEL, zingrs_lang::Lang::Zing)
            .expect("the model compiles")
            .program;
        let m = std::sync::Arc::new(Machine::new(&p, Semantics::default()));
        let result = crate::explore::search(&m, &Options::default(), &Default::default());
        let f: &Finding = result.findings.first().expect("the assertion fails");
        let replayed = replay_keeping(&m, f.path(), false).expect("the path replays");
        assert_eq!(replayed.states.len(), 1, "one state kept");
        let (_, end) = verify(&m, f.path(), &replayed, &Claim::of_finding(f)).unwrap();
        let t = build_trace(&m, f.path(), &replayed, end);
        let forward: Vec<TraceStep> = t.steps(Shows::ALL).collect();
        assert!(forward.len() > 300, "{}", forward.len());
        assert_eq!(forward.len(), t.len());
        assert_eq!(t.threads, 2);
        assert!(forward.iter().enumerate().all(|(i, s)| s.step == i));
        // the assignments to g show what they changed
        assert!(forward
            .iter()
            .any(|s| s.changed.iter().any(|b| b.name.ends_with('g'))));
        let mut backward: Vec<TraceStep> = t.steps_rev(Shows::ALL).collect();
        backward.reverse();
        assert_eq!(backward, forward);
        // without values and changes, the same places
        let places: Vec<(usize, u32, u32)> = t
            .steps(Shows::WHERE)
            .map(|s| (s.step, s.thread, s.line))
            .collect();
        let want: Vec<(usize, u32, u32)> =
            forward.iter().map(|s| (s.step, s.thread, s.line)).collect();
        assert_eq!(places, want);
        let states: Vec<_> = t.zing_states(true).collect();
        assert_eq!(states.len(), t.zing_len());
        assert_eq!(states.len(), f.path().choices.len() + 1);
        assert!(states[0].ran.is_none() && states[1..].iter().all(|s| s.ran.is_some()));
        // the failing step has no successor: the error state repeats the state before it
        assert_eq!(states[states.len() - 1].dump, states[states.len() - 2].dump);
    }
}
