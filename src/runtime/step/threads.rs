//! The steps and questions about threads: Getafix's start of the threads at `endinit`,
//! atomic ownership and ZING's atomic step count, creating and ending threads under the
//! live-thread bound, and whether a thread is blocked or the state deadlocked.

use super::{for_each_product_in, Window};
use super::{Kind, Outcome, Violation};
use crate::runtime::eval::{Env, RtError};
use crate::runtime::record::Recorder;
use crate::runtime::state::{Frame, State, Thread};
use crate::runtime::{Machine, Value};
use std::rc::Rc;

/// The mark in [`Thread::atomic_steps`] above the step count: the thread is inside a step of
/// ZING's that went through a choice ([`Machine::came_through_choice`]).
pub(crate) const CHOSE: u32 = 1 << 31;

/// What stepping says of a return step for ZING's atomic step count
/// ([`Machine::return_step`]), kept with a summary's effect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReturnStep {
    /// In cooperative mode, the step continues the process's run (it is no choice).
    pub runs_on: bool,
    /// The step is a choice or comes after one in the same step of ZING's.
    pub chose: bool,
}
use zingrs_lang::ir::{Glue, LValue, Layout, Pc, ProcId, Stmt};

impl Machine<'_> {
    /// Counts the steps of an atomic region: a thread that stays atomic has taken one more,
    /// and more than [`Semantics::max_atomic_steps`](crate::runtime::Semantics::max_atomic_steps) is ZING's infinite-loop-in-atomic error (§4.7).
    /// `runs_on`: in cooperative mode, the step neither yielded nor chose, so the process's
    /// run goes on as one step of ZING's, which the same limit bounds (§6.4). `chose`: the
    /// step is a choice or comes after one in the same step of ZING's, and `goes_on`: in
    /// cooperative mode, the step was no `yield`; a successor still inside that step of
    /// ZING's then carries the [`CHOSE`] mark (see [`Machine::came_through_choice`]).
    pub(super) fn count_atomic_steps(
        &self,
        s: &State,
        tid: usize,
        runs_on: bool,
        (chose, goes_on): (bool, bool),
        outs: &mut [Outcome],
    ) {
        let before = s.threads[tid].atomic_steps & !CHOSE;
        let mark = |inside: bool| if chose && inside { CHOSE } else { 0 };
        for o in outs {
            if let Outcome::Moved { mv, .. } = o {
                let steps = if mv.atomic || runs_on { before + 1 } else { 0 };
                if steps > self.semantics.max_atomic_steps {
                    *o = Outcome::Violation(Violation::Runtime(RtError::InfiniteLoop));
                } else {
                    mv.atomic_steps = steps | mark(mv.atomic || goes_on);
                }
                continue;
            }
            let Outcome::Next { state, .. } = o else {
                continue;
            };
            let Some(t) = state.threads.get(tid) else {
                continue;
            };
            let steps = if t.atomic || (runs_on && !t.stack.is_empty()) {
                before + 1
            } else {
                0
            };
            let steps = steps | mark(t.atomic || (goes_on && !t.stack.is_empty()));
            if steps & !CHOSE > self.semantics.max_atomic_steps {
                *o = Outcome::Violation(Violation::Runtime(RtError::InfiniteLoop));
            } else if steps != t.atomic_steps {
                state.thread_mut(tid).atomic_steps = steps;
            }
        }
    }

    /// Whether thread `tid`'s step from `s` belongs to a step of ZING's that went through a
    /// choice: the step is itself a choice (two or more alternatives), or the thread carries
    /// the [`CHOSE`] mark. ZING's checker runs a step that starts at a choice state by
    /// another entry point (`RunChoice`) than a step that starts by scheduling a process
    /// (`RunProcess`), and only the latter looks for a deadlock when the process stops.
    pub(super) fn came_through_choice(&self, s: &State, tid: usize) -> bool {
        s.threads[tid].atomic_steps & CHOSE != 0 || self.alternatives(s, tid) >= 2
    }

    /// A successor that stands at a choice does not keep the [`CHOSE`] mark: the step from
    /// it is a choice anyway, and two arrivals there that differ only in it are one state,
    /// as in ZING (a choice state inside an atomic region counts once).
    pub(super) fn forget_choice_marks(&self, s: &State, tid: usize, outs: &mut [Outcome]) {
        for o in outs {
            let marked = match o {
                Outcome::Moved { mv, .. } => mv.atomic_steps & CHOSE != 0,
                Outcome::Next { state, .. } => state
                    .threads
                    .get(tid)
                    .is_some_and(|t| t.atomic_steps & CHOSE != 0),
                _ => false,
            };
            if !marked {
                continue;
            }
            o.materialize(s);
            if let Outcome::Next { state, .. } = o {
                if self.alternatives(state, tid) >= 2 {
                    state.thread_mut(tid).atomic_steps &= !CHOSE;
                }
            }
        }
    }

    /// ZING's atomic step count across a call that a summary stood for (the summary engine's
    /// Apply, or a transaction applied as one step): thread `tid` entered the callee with the
    /// count `at_entry` and reached the callee's return with the count `before`; `out` is the
    /// outcome of the return that the summary completed, and `ret` what stepping would have
    /// said of that return step ([`Machine::return_step`]). Gives `out` the count (and the
    /// mark of a step of ZING's that went through a choice) that stepping through the callee
    /// would have left, as `count_atomic_steps` does step by step. `Err` when stepping would have
    /// stopped at ZING's infinite-loop error inside the call: `Some(n)` at the callee's
    /// `n`-th step (from 1; only inside an atomic region, where the count grows by one a
    /// step), `None` at the return step. A summary hides the callee's steps, so the caller
    /// reports that error itself, on the path cut there.
    pub fn count_summarized_call(
        &self,
        tid: usize,
        at_entry: u32,
        before: u32,
        ret: ReturnStep,
        out: &mut Outcome,
    ) -> Result<(), Option<u32>> {
        if !self.program.keep_completed {
            return Ok(());
        }
        let max = self.semantics.max_atomic_steps;
        if before > max {
            return Err(Some(max.saturating_sub(at_entry) + 1));
        }
        // a return is no `yield`: in cooperative mode the run goes on past it
        let goes_on = self.semantics.cooperative;
        let s = match out {
            Outcome::Next { state, .. } => {
                let Some(t) = state.threads.get(tid) else {
                    return Ok(());
                };
                let running = !t.stack.is_empty();
                let after = if t.atomic || (ret.runs_on && running) {
                    before + 1
                } else {
                    0
                };
                if after > max {
                    return Err(None);
                }
                let inside = t.atomic || (goes_on && running);
                let after = after | if ret.chose && inside { CHOSE } else { 0 };
                if after != t.atomic_steps {
                    state.thread_mut(tid).atomic_steps = after;
                }
                state.clone()
            }
            _ => return Ok(()),
        };
        if self.semantics.cooperative {
            self.forget_spent_counts(&s, tid, std::slice::from_mut(out));
        }
        if ret.chose {
            self.forget_choice_marks(&s, tid, std::slice::from_mut(out));
        }
        Ok(())
    }

    /// What stepping would say of the return step of thread `tid`, stopped at a return in
    /// `s` (as `step` computes it for its count of atomic steps): recorded with a
    /// summary's effect for [`Machine::count_summarized_call`].
    pub fn return_step(&self, s: &State, tid: usize) -> ReturnStep {
        let choice = self.alternatives(s, tid) >= 2;
        ReturnStep {
            runs_on: self.semantics.cooperative && !choice,
            chose: choice || s.threads[tid].atomic_steps & CHOSE != 0,
        }
    }

    /// Thread `tid`'s count of ZING's atomic steps, and whether it carries the mark of a
    /// step of ZING's that went through a choice (the two share [`Thread::atomic_steps`]).
    pub fn zing_count(&self, s: &State, tid: usize) -> (u32, bool) {
        let c = s.threads[tid].atomic_steps;
        (c & !CHOSE, c & CHOSE != 0)
    }

    /// Cooperative scheduling: a successor whose next step starts the count afresh (a `yield`,
    /// or a choice among two or more alternatives, outside an atomic region) does not keep the
    /// count it arrived with. Nothing reads it there, and two arrivals that differ only in it
    /// are one state, as in ZING, whose states carry no count (`gen random-zing 3536`
    /// counted one state more than ZING in cooperative mode: a choice reached once through a
    /// branch that chose and once through one that did not).
    pub(super) fn forget_spent_counts(&self, s: &State, tid: usize, outs: &mut [Outcome]) {
        let Some(proc) = s.threads[tid].stack.top().map(|f| f.proc) else {
            return;
        };
        for o in outs {
            let (at, pc) = match o {
                Outcome::Moved { mv, .. } if !mv.atomic && mv.atomic_steps > 0 => (proc, mv.pc),
                Outcome::Next { state, .. } => match state.threads.get(tid) {
                    Some(t) if !t.atomic && t.atomic_steps > 0 => match t.stack.top() {
                        Some(f) => (f.proc, f.pc),
                        None => continue,
                    },
                    _ => continue,
                },
                _ => continue,
            };
            let fresh = match &self.program.node(at, pc).stmt {
                Stmt::Yield => true,
                Stmt::Choose { lo, hi, .. } => hi - lo >= 1,
                Stmt::ChooseElem { .. } | Stmt::Select { .. } => {
                    o.materialize(s);
                    match o {
                        Outcome::Next { state, .. } => self.alternatives(state, tid) >= 2,
                        _ => false,
                    }
                }
                _ => false,
            };
            if !fresh {
                continue;
            }
            match o {
                Outcome::Moved { mv, .. } => mv.atomic_steps = 0,
                Outcome::Next { state, .. } => state.thread_mut(tid).atomic_steps = 0,
                _ => {}
            }
        }
    }

    /// Getafix layout: `init` reached `endinit`; it gives way to one thread per `thread…`
    /// procedure (and `main`), each with arbitrary locals.
    pub(super) fn start_getafix_threads<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        procs: &[ProcId],
        rec: &mut R,
        out: &mut Vec<Outcome>,
        win: &mut Window,
    ) {
        let thread = &s.threads[tid];
        let mut alts = Vec::new();
        for &p in procs {
            let n = self.program.procs[p as usize].locals.len();
            alts.extend((0..n).map(|i| self.local_alts(p, i)));
        }
        for_each_product_in(&alts, win, |combo| {
            let mut rest = combo;
            let mut threads = Vec::new();
            for &p in procs {
                let n = self.program.procs[p as usize].locals.len();
                let (mine, more) = rest.split_at(n);
                rest = more;
                threads.push(Rc::new(Thread {
                    stack: crate::runtime::Stack::new(Frame {
                        proc: p,
                        pc: 0,
                        locals: mine.into(),
                    }),
                    thread_locals: thread.thread_locals.clone(),
                    atomic: false,
                    atomic_steps: 0,
                }));
            }
            let st = State {
                globals: s.globals.clone(),
                threads: threads.into(),
                heap: s.heap.clone(),
            };
            let moved: Vec<usize> = (0..procs.len()).collect();
            out.push(self.checked(st, &moved, Kind::ThreadStart, rec));
        });
    }

    /// Atomic ownership that follows from a step: the first step inside an atomic method (or a
    /// Getafix `__VERIFIER_atomic…` procedure) makes the thread atomic until that call returns; in the
    /// Getafix layout the thread that sets the global `atomic` owns the lock until it clears it.
    pub(super) fn atomic_bookkeeping(
        &self,
        s: &State,
        tid: usize,
        proc: ProcId,
        outs: &mut [Outcome],
    ) {
        for o in outs {
            let Outcome::Next { state, kind } = o else {
                continue;
            };
            let Some(t) = state.threads.get(tid) else {
                continue;
            };
            let mut owner = t.atomic;
            if let Some(g) = self.lock_global {
                // no context switch while `atomic` is true, however it got its value (an
                // arbitrary initial value, `atomic := T` when it already is): the thread that
                // moved keeps the lock; assigning false releases it
                let before = self.global(&s.globals, &s.threads[tid].thread_locals, g);
                let after = self.global(&state.globals, &t.thread_locals, g);
                if after.as_bool() {
                    owner = true;
                } else if before.as_bool() {
                    owner = false;
                }
            }
            match kind {
                Kind::Return if self.atomic_proc[proc as usize] => {
                    // the atomic call is over unless the caller is itself atomic (or,
                    // in Zing, runs inside a region its own callers entered)
                    let caller_atomic = t.stack.top().is_some_and(|f| {
                        self.atomic_proc[f.proc as usize]
                            || self.in_atomic_block[f.proc as usize][f.pc as usize]
                    }) || self.enclosing_atomic(&t.stack);
                    let locked = self.lock_global.is_some_and(|g| {
                        self.global(&state.globals, &t.thread_locals, g).as_bool()
                    });
                    owner = caller_atomic || locked;
                }
                // Getafix: a call of a `__VERIFIER_atomic…` procedure is one atomic step with
                // its body (the arguments it read must not change before the body runs)
                Kind::Call
                    if matches!(self.program.layout, Layout::Getafix { .. })
                        && t.stack
                            .top()
                            .is_some_and(|f| self.atomic_proc[f.proc as usize]) =>
                {
                    owner = true
                }
                // a step inside an atomic method: the body runs as one transition from its
                // first step on (the call itself is an ordinary step, and a select first in
                // the body may block before the body starts)
                _ if self.atomic_proc[proc as usize] && *kind != Kind::ThreadEnd => owner = true,
                _ => {}
            }
            if owner != t.atomic {
                state.thread_mut(tid).atomic = owner;
            }
        }
    }

    /// Whether `s` has as many live threads as `--threads` allows (a creation is then not
    /// enabled). Completed Zing processes, which stay in the list, do not count.
    pub(super) fn at_thread_bound(&self, s: &State) -> bool {
        self.semantics.thread_bound.is_some_and(|n| {
            let live = if self.program.keep_completed {
                s.threads.iter().filter(|t| t.stack.top().is_some()).count()
            } else {
                s.threads.len()
            };
            live >= n as usize
        })
    }

    /// Whether thread `tid` of `s` is at a thread creation that the live-thread bound does not
    /// enable (so a search that meets one was cut by the bound).
    pub fn creation_blocked(&self, s: &State, tid: usize) -> bool {
        s.threads[tid].stack.top().is_some_and(|f| {
            matches!(
                self.program.node(f.proc, f.pc).stmt,
                Stmt::StartThread { .. } | Stmt::StartThreadGoto
            ) && self.at_thread_bound(s)
        })
    }

    pub(super) fn spawn<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        pc: Pc,
        child: Thread,
        rec: &mut R,
    ) -> Outcome {
        let mut st = s.clone();
        let t = st.thread_mut(tid);
        let top = t.stack.top().expect("running thread has a frame");
        let f = Frame { pc, ..top.clone() };
        t.stack = t.stack.with_top(f);
        let mut threads = st.threads.to_vec();
        threads.push(Rc::new(child));
        let new = threads.len() - 1;
        st.threads = threads.into();
        self.checked(st, &[tid, new], Kind::ThreadStart, rec)
    }

    pub(super) fn end_thread(&self, s: &State, tid: usize) -> Outcome {
        let mut st = s.clone();
        if self.program.keep_completed {
            // a completed Zing process stays in the process list with no frames
            let t = st.thread_mut(tid);
            t.stack = crate::runtime::Stack::default();
            t.atomic = false;
        } else {
            let mut threads = st.threads.to_vec();
            threads.remove(tid);
            st.threads = threads.into();
        }
        Outcome::Next {
            state: st,
            kind: Kind::ThreadEnd,
        }
    }

    /// How many alternatives thread `tid`'s next step chooses among (`choose`, and a `select`
    /// without `first` with several enabled branches); 1 for every other statement. A step
    /// that begins at a `foreach` element fetch runs on into the body's first statement
    /// ([`Glue::ToNext`]), and where that statement chooses, ZING's choice state lies after
    /// the fetch: its alternatives are counted in the fetched element's frame.
    pub fn alternatives(&self, s: &State, tid: usize) -> usize {
        let Some(thread) = s.threads.get(tid) else {
            return 1;
        };
        let Some(frame) = thread.stack.top() else {
            return 1;
        };
        let node = self.program.node(frame.proc, frame.pc);
        if let (Glue::ToNext | Glue::Through, [next]) = (node.glue, &node.succ[..]) {
            let after = &self.program.node(frame.proc, *next).stmt;
            let chooses = matches!(
                after,
                Stmt::Choose { .. } | Stmt::ChooseElem { .. } | Stmt::Select { .. }
            );
            if chooses {
                if let Some(locals) = self.fetched_locals(s, tid, &node.stmt) {
                    return self.alternatives_of(s, tid, after, &locals);
                }
            }
        }
        self.alternatives_of(s, tid, &node.stmt, &frame.locals)
    }

    /// The top frame's locals of thread `tid` after `stmt`, an assignment to locals only (a
    /// `foreach` element fetch); `None` for any other statement or a failing evaluation (the
    /// step then fails before any choice).
    fn fetched_locals(&self, s: &State, tid: usize, stmt: &Stmt) -> Option<Vec<Value>> {
        let Stmt::Assign {
            targets,
            values,
            constrain: None,
        } = stmt
        else {
            return None;
        };
        let thread = s.threads.get(tid)?;
        let frame = thread.stack.top()?;
        let env = Env {
            self_id: tid as u32,
            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
        };
        let mut locals = frame.locals.to_vec();
        for (target, value) in targets.iter().zip(values) {
            let v = self.value(value, &env, &mut ()).ok()?;
            match target {
                Some(LValue::Local(i)) => *locals.get_mut(*i as usize)? = v,
                None => {}
                Some(_) => return None,
            }
        }
        Some(locals)
    }

    /// How many alternatives `stmt`, thread `tid`'s next statement, chooses among with the
    /// top frame's locals `locals`.
    fn alternatives_of(&self, s: &State, tid: usize, stmt: &Stmt, locals: &[Value]) -> usize {
        let Some(thread) = s.threads.get(tid) else {
            return 1;
        };
        // most statements choose nothing: the environment is built only for those that may
        let env = || Env {
            self_id: tid as u32,
            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, locals)
        };
        match stmt {
            Stmt::Choose { lo, hi, .. } => (hi - lo + 1).max(0) as usize,
            Stmt::ChooseElem { targets, from } => self
                .value(from, &env(), &mut ())
                .and_then(|c| self.collection(&s.heap, c))
                .map_or(1, |(_, f)| f.len() / targets.len().max(1)),
            Stmt::Select { guards, first, .. } if !*first && guards.len() > 1 => {
                let env = env();
                guards
                    .iter()
                    .filter(|g| self.value(g, &env, &mut ()).is_ok_and(|v| v.as_bool()))
                    .count()
            }
            _ => 1,
        }
    }

    /// Whether thread `tid` is blocked: at a `select` with no enabled branch (and whether that
    /// select is marked `end`, a valid end state).
    pub fn blocked(&self, s: &State, tid: usize) -> Option<bool> {
        let thread = s.threads.get(tid)?;
        if thread.atomic {
            // inside an atomic region a disabled select is an error, which the step reports
            return None;
        }
        let frame = thread.stack.top()?;
        let Stmt::Select { guards, end, .. } = &self.program.node(frame.proc, frame.pc).stmt else {
            return None;
        };
        let env = Env {
            self_id: tid as u32,
            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
        };
        // a guard whose evaluation fails counts as enabled: the step reports the error
        let any = guards
            .iter()
            .any(|g| self.value(g, &env, &mut ()).map_or(true, |v| v.as_bool()));
        (!any).then_some(*end)
    }

    /// Whether `s` is a deadlock: every thread is blocked at a `select` and at least one of those
    /// selects is not marked `end` (completed Zing processes do not count); in a boolean
    /// program with threads, every live thread is blocked (`Machine::bp_deadlocked`).
    /// Never with `--no-deadlock`.
    pub fn deadlocked(&self, s: &State) -> bool {
        if !self.semantics.deadlock || s.threads.is_empty() {
            return false;
        }
        if self.program.lang == zingrs_lang::Lang::Bp {
            return self.bp_deadlocked(s);
        }
        let mut invalid = false;
        for t in 0..s.threads.len() {
            if s.threads[t].stack.is_empty() {
                continue;
            }
            match self.blocked(s, t) {
                None => return false,
                Some(end) => invalid |= !end,
            }
        }
        invalid
    }

    /// Per node of a boolean program with threads, whether its step may leave the thread with
    /// no way on: a filter (`assume`, `assert` when assertions filter, `constrain`), the
    /// start of an atomic section (`atomic_begin`, a call of an atomic procedure, and in the
    /// Getafix layout any assignment, which may take the lock `atomic`), and every node when
    /// some `enforce` may discard a step. The others always have a successor, so a state where
    /// a thread stands at one is not a deadlock, which [`Machine::bp_deadlocked`] sees without
    /// stepping. `None` for Zing, for sequential boolean programs, and for programs without
    /// a filter ([`Machine::has_filter`]), where no thread can get stuck.
    pub(crate) fn blocking_nodes(&self) -> Option<Vec<Vec<bool>>> {
        let p = self.program;
        if p.lang != zingrs_lang::Lang::Bp || !p.is_concurrent() || !self.has_filter() {
            return None;
        }
        let enforce = p
            .procs
            .iter()
            .any(|q| q.nodes.iter().any(|n| n.invariant.is_some()));
        let lock = self.lock_global.is_some();
        Some(
            p.procs
                .iter()
                .map(|q| {
                    q.nodes
                        .iter()
                        .map(|n| {
                            enforce
                                || match &n.stmt {
                                    Stmt::Assume { .. }
                                    | Stmt::Constrain { .. }
                                    | Stmt::AtomicBegin => true,
                                    Stmt::Assert { .. } => self.assertions_may_filter(),
                                    Stmt::Assign { constrain, .. } => constrain.is_some() || lock,
                                    Stmt::Call { callee, .. } => self.atomic_proc[*callee as usize],
                                    _ => false,
                                }
                        })
                        .collect()
                })
                .collect(),
        )
    }

    /// Whether this program may deadlock in the sense of `Machine::bp_deadlocked` and
    /// deadlocks are looked for: an engine that does not look for them cannot prove it safe.
    pub fn deadlocks_possible(&self) -> bool {
        self.semantics.deadlock && self.may_block.is_some()
    }

    /// Whether a thread of this program can get stuck at a node holding `stmt`, deadlocks
    /// being looked for ([`Machine::deadlocks_possible`]): a filter, or any statement where
    /// some `enforce` may discard a step. The explicit search does not summarize a call whose
    /// callee has such a node, so that it visits the state where the thread waits.
    pub fn may_get_stuck_at(&self, stmt: &Stmt) -> bool {
        self.deadlocks_possible()
            && (self.has_enforce()
                || match stmt {
                    Stmt::Assume { .. } | Stmt::Constrain { .. } => true,
                    Stmt::Assert { .. } => self.assertions_may_filter(),
                    Stmt::Assign { constrain, .. } => constrain.is_some(),
                    _ => false,
                })
    }

    /// Whether some `assert` acts as `assume` (`--no-assertions`, or one left out by
    /// `check --property`).
    fn assertions_may_filter(&self) -> bool {
        !self.semantics.check_assertions
            || self
                .semantics
                .selection
                .as_ref()
                .is_some_and(|s| !s.assertions_off.is_empty())
    }

    fn has_enforce(&self) -> bool {
        self.program
            .procs
            .iter()
            .any(|q| q.nodes.iter().any(|n| n.invariant.is_some()))
    }

    /// Whether some step can discard an execution, the only way a boolean-program thread
    /// gets stuck: an `assume`, a `constrain`, an `assert` while assertions filter, an
    /// `enforce`. (An atomic section or a lock only makes others wait for a thread that is
    /// itself stuck at one of these.)
    fn has_filter(&self) -> bool {
        self.program.procs.iter().any(|q| {
            q.nodes.iter().any(|n| {
                n.invariant.is_some()
                    || match &n.stmt {
                        Stmt::Assume { .. } | Stmt::Constrain { .. } => true,
                        Stmt::Assert { .. } => self.assertions_may_filter(),
                        Stmt::Assign { constrain, .. } => constrain.is_some(),
                        _ => false,
                    }
            })
        })
    }

    /// A boolean program with threads deadlocks in a state where no thread owns an atomic
    /// section and every live thread is blocked ([`Machine::stuck`]): each waits for a
    /// condition or a lock that no thread can change any more. Not while the Getafix layout's
    /// `init` runs (it runs alone, and its `assume`s only choose the initial state), and not
    /// in a state with an atomic owner: an owner blocked inside its section has started a
    /// section that cannot complete, and that path is discarded (bp-language.md §5.12); the
    /// state before the section began is the deadlock, if every thread is stuck there.
    pub(crate) fn bp_deadlocked(&self, s: &State) -> bool {
        let Some(may_block) = &self.may_block else {
            return false;
        };
        if s.atomic_owner().is_some() {
            return false;
        }
        let at = |t: &Thread| t.stack.top().map(|f| (f.proc as usize, f.pc as usize));
        // most states have a thread that surely moves: no step is taken to see that
        let all_may_block = s
            .threads
            .iter()
            .all(|t| at(t).is_some_and(|(q, pc)| may_block[q][pc]));
        if !all_may_block {
            return false;
        }
        if let Layout::Getafix { init, .. } = self.program.layout {
            let in_init = s
                .threads
                .iter()
                .any(|t| t.stack.iter().last().is_some_and(|f| f.proc == init));
            if in_init {
                return false;
            }
        }
        (0..s.threads.len()).all(|t| self.stuck(s, t))
    }

    /// Whether thread `tid`, in a state without an atomic owner, can never move on by itself:
    /// its step has no outcome, or every way through the atomic section (or Getafix lock) its
    /// step begins ends blocked inside the section. A thread waiting at a creation only
    /// because of `--threads` is not stuck (the program itself would go on), nor is one whose
    /// section runs more than [`STUCK_SEARCH`] steps before every way of it blocks (a missed
    /// deadlock, never a false one), nor one whose step errs (that error is reported).
    fn stuck(&self, s: &State, tid: usize) -> bool {
        let Some(f) = s.threads[tid].stack.top() else {
            return false;
        };
        if matches!(
            self.program.node(f.proc, f.pc).stmt,
            Stmt::StartThread { .. } | Stmt::StartThreadGoto
        ) && self.at_thread_bound(s)
        {
            return false;
        }
        let mut todo = vec![s.clone()];
        let mut seen = 0usize;
        let mut out = Vec::new();
        while let Some(x) = todo.pop() {
            out.clear();
            self.step(&x, tid, &mut (), &mut out);
            for o in out.drain(..) {
                match o {
                    Outcome::Pruned => {}
                    Outcome::Violation(_) | Outcome::Moved { .. } => return false,
                    Outcome::Next { state, kind } => {
                        let owner = kind != Kind::ThreadEnd
                            && state.threads.get(tid).is_some_and(|t| t.atomic);
                        if !owner {
                            return false;
                        }
                        seen += 1;
                        if seen > STUCK_SEARCH {
                            return false;
                        }
                        todo.push(state);
                    }
                }
            }
        }
        true
    }
}

/// How many steps [`Machine::stuck`] follows a thread through an atomic section before it
/// counts the thread as able to move (a section that long without completing is not taken
/// for a deadlock).
const STUCK_SEARCH: usize = 4096;
