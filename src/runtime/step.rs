//! The step function: the one place that knows what a statement does to a state.

use super::eval::{Env, RtError};
use super::fault::{non_null, Access};
use super::moved::{write_field, Move};
use super::record::Recorder;
use super::state::{Frame, Heap, State, Thread};
use super::value::{Addr, Loc, Value, GLOBALS};
use super::Machine;
use smallvec::SmallVec;
use std::rc::Rc;
#[path = "broadcast.rs"]
mod broadcast;

use zingrs_lang::ir::{Const, Expr, Glue, Init, LValue, Layout, Pc, ProcId, SetOp, Stmt, Type};

/// What kind of transition a successor came from (T, T⁺ or T⁻ of seed 004 §4, or a thread
/// event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Internal,
    Call,
    Return,
    ThreadStart,
    ThreadEnd,
}

/// A bad state reached by a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    /// An `assert` whose condition can be false.
    Assertion,
    /// A runtime error (null dereference, overflow, ...).
    Runtime(RtError),
}

/// One result of executing a statement under one nondeterministic choice.
#[derive(Clone, Debug)]
pub enum Outcome {
    Next {
        state: State,
        kind: Kind,
    },
    /// A successor given as its difference from the state stepped (only from
    /// [`Machine::step_moves`]; [`Outcome::materialize`] builds it).
    Moved {
        mv: Move,
        kind: Kind,
    },
    /// The choice is discarded (`assume`, `constrain` or `enforce` cannot hold).
    Pruned,
    Violation(Violation),
}

impl Outcome {
    /// Turns a [`Outcome::Moved`] of `parent` into the state it stands for.
    pub fn materialize(&mut self, parent: &State) {
        if let Outcome::Moved { .. } = self {
            let Outcome::Moved { mv, kind } = std::mem::replace(self, Outcome::Pruned) else {
                unreachable!("checked above");
            };
            *self = Outcome::Next {
                state: mv.apply(parent),
                kind,
            };
        }
    }
}

/// Where a write goes, resolved before the step writes anything.
#[derive(Clone, Copy, Debug)]
enum Target {
    Local(u32),
    Global(u32),
    Field(Addr, u32),
    Discard,
}

/// The values a step writes, copied from the old state only when first written.
struct Post<'a> {
    machine: &'a Machine<'a>,
    old_globals: &'a Rc<[Value]>,
    old_tl: &'a Rc<[Value]>,
    old_heap: &'a Heap,
    globals: Option<Vec<Value>>,
    tl: Option<Vec<Value>>,
    /// The whole new heap, once a step replaced an object or allocated one (field writes
    /// made after that go straight into it).
    heap: Option<Heap>,
    /// Field writes not applied to a heap yet.
    writes: SmallVec<[(Addr, u32, Value); 2]>,
    /// The running frame's locals, copied only when first written.
    locals: Rc<[Value]>,
}

impl<'a> Post<'a> {
    fn new(
        machine: &'a Machine<'a>,
        state: &'a State,
        thread: &'a Thread,
        locals: &Rc<[Value]>,
    ) -> Post<'a> {
        Post {
            machine,
            old_globals: &state.globals,
            old_tl: &thread.thread_locals,
            old_heap: &state.heap,
            globals: None,
            tl: None,
            heap: None,
            writes: SmallVec::new(),
            locals: locals.clone(),
        }
    }

    fn set(&mut self, t: Target, v: Value) {
        match t {
            Target::Discard => {}
            Target::Local(i) => {
                if self.locals[i as usize] != v {
                    Rc::make_mut(&mut self.locals)[i as usize] = v;
                }
            }
            Target::Global(i) => match self.machine.slots[i as usize] {
                super::Slot::Shared(s) => {
                    self.globals
                        .get_or_insert_with(|| self.old_globals.to_vec())[s as usize] = v
                }
                super::Slot::ThreadLocal(s) => {
                    self.tl.get_or_insert_with(|| self.old_tl.to_vec())[s as usize] = v
                }
            },
            Target::Field(a, f) => match &mut self.heap {
                Some(heap) => write_field(heap, a, f, v),
                None => self.writes.push((a, f, v)),
            },
        }
    }

    /// The new heap, with every field write made so far applied.
    fn heap(&mut self) -> &mut Heap {
        let heap = self.heap.get_or_insert_with(|| self.old_heap.clone());
        for (a, f, v) in self.writes.drain(..) {
            write_field(heap, a, f, v);
        }
        heap
    }

    /// The fields of object `a` as the step has left them so far.
    fn fields(&mut self, a: Addr) -> Option<&[Value]> {
        self.heap().get(&a).map(|o| &o.fields[..])
    }

    /// Replaces every field of object `a` (a collection grew or shrank).
    fn replace(&mut self, a: Addr, fields: Vec<Value>) {
        let heap = self.heap();
        if let Some(obj) = heap.get(&a) {
            let class = obj.class;
            heap.insert(
                a,
                Rc::new(super::state::Object {
                    class,
                    fields: fields.into(),
                }),
            );
        }
    }

    fn globals(&self) -> &[Value] {
        self.globals.as_deref().unwrap_or(self.old_globals)
    }
    fn tl(&self) -> &[Value] {
        self.tl.as_deref().unwrap_or(self.old_tl)
    }

    /// Installs the written values into `st` (locals excepted: the caller places the frame).
    fn install(mut self, st: &mut State, tid: usize) -> Rc<[Value]> {
        if self.heap.is_some() || !self.writes.is_empty() {
            self.heap();
            st.heap = self.heap.take().expect("made by heap()");
        }
        if let Some(g) = self.globals {
            st.globals = g.into();
        }
        if let Some(tl) = self.tl {
            st.thread_mut(tid).thread_locals = tl.into();
        }
        self.locals
    }
}

/// Which of a step's outcomes to build: those at positions `skip .. skip + take` of the step's
/// list. A statement whose outcomes are a product of value lists (`*` in parallel assignments
/// and arguments, havoc, `constrain`) starts its enumeration at `skip`, so one outcome of
/// 2^24 costs one outcome, not the list; other statements build their list and are cut to the
/// window afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Window {
    skip: u64,
    take: u64,
    /// Set by the statement that enumerated only the window itself.
    applied: bool,
}

impl Window {
    /// Every outcome.
    pub(super) const ALL: Window = Window {
        skip: 0,
        take: u64::MAX,
        applied: false,
    };

    pub(super) fn new(skip: u64, take: u64) -> Window {
        Window {
            skip,
            take,
            applied: false,
        }
    }

    /// Cuts `out[first..]`, the whole list of a step's outcomes, to the window (unless the
    /// statement enumerated the window itself).
    fn cut(&self, out: &mut Vec<Outcome>, first: usize) {
        if self.applied {
            return;
        }
        if self.skip > 0 {
            let skip = (self.skip.min((out.len() - first) as u64)) as usize;
            out.drain(first..first + skip);
        }
        if ((out.len() - first) as u64) > self.take {
            out.truncate(first + self.take as usize);
        }
    }
}

/// Calls `f` with every combination that draws one value from each list (the last list varies
/// fastest). Nothing is called if some list is empty.
fn for_each_product(alts: &[Vec<Value>], f: impl FnMut(&[Value])) {
    let mut all = Window::ALL;
    for_each_product_in(alts, &mut all, f)
}

/// [`for_each_product`] for the combinations at positions `win.skip .. win.skip + win.take`
/// only: the first is found by reading `skip` in the mixed radix of the lists' lengths, so
/// nothing before it is enumerated.
fn for_each_product_in(alts: &[Vec<Value>], win: &mut Window, mut f: impl FnMut(&[Value])) {
    win.applied = true;
    if alts.iter().any(|a| a.is_empty()) {
        return;
    }
    let mut idx = vec![0usize; alts.len()];
    let mut rest = u128::from(win.skip);
    for (i, a) in idx.iter_mut().zip(alts).rev() {
        let n = a.len() as u128;
        *i = (rest % n) as usize;
        rest /= n;
    }
    if rest > 0 {
        // the window starts beyond the last combination
        return;
    }
    let mut cur: Vec<Value> = idx.iter().zip(alts).map(|(&i, a)| a[i]).collect();
    let mut left = win.take;
    loop {
        if left == 0 {
            return;
        }
        left -= 1;
        f(&cur);
        let mut i = alts.len();
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            if idx[i] + 1 < alts[i].len() {
                idx[i] += 1;
                cur[i] = alts[i][idx[i]];
                break;
            }
            idx[i] = 0;
            cur[i] = alts[i][0];
        }
    }
}

/// How many outcomes of one step a search lists at once: a wider step (a parallel assignment
/// of 24 `*`: 2^24 outcomes) is taken a window of this many at a time through
/// [`Machine::step_window`], so that what grows is the search, not one step's list.
pub const OUTCOME_WINDOW: usize = 1024;

/// The largest array length the language allows (`int`'s largest value, zing-language.md
/// §2.10, §5.4).
pub const MAX_ARRAY_LEN: i64 = i32::MAX as i64;

const BOTH: [Value; 2] = [Value::Bool(false), Value::Bool(true)];

impl Machine<'_> {
    /// Executes the statement at the top frame of thread `tid` and appends one outcome per
    /// nondeterministic choice to `out`, in a fixed order. `rec` receives the step's reads and
    /// writes over all choices. A thread blocked at a `select` gets no outcome at all.
    pub fn step<R: Recorder>(&self, s: &State, tid: usize, rec: &mut R, out: &mut Vec<Outcome>) {
        let first = out.len();
        self.step_moves(s, tid, rec, out);
        for o in &mut out[first..] {
            o.materialize(s);
        }
    }

    /// [`Machine::step`], but successors may come as [`Outcome::Moved`]: their difference
    /// from `s`, to be built only if needed.
    pub fn step_moves<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        rec: &mut R,
        out: &mut Vec<Outcome>,
    ) {
        self.step_moves_in(s, tid, rec, out, Window::ALL)
    }

    /// [`Machine::step`], but only the outcomes at positions `skip .. skip + take` of its list
    /// (none past its end), built without the others where the statement allows (see
    /// [`Window`]): a replay takes outcome `k` of a step with 2^24 of them without the list.
    pub fn step_window<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        rec: &mut R,
        out: &mut Vec<Outcome>,
        skip: u64,
        take: u64,
    ) {
        let first = out.len();
        self.step_moves_in(s, tid, rec, out, Window::new(skip, take));
        for o in &mut out[first..] {
            o.materialize(s);
        }
    }

    /// [`Machine::step_window`], with successors that may come as [`Outcome::Moved`].
    pub fn step_moves_window<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        rec: &mut R,
        out: &mut Vec<Outcome>,
        skip: u64,
        take: u64,
    ) {
        self.step_moves_in(s, tid, rec, out, Window::new(skip, take));
    }

    fn step_moves_in<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        rec: &mut R,
        out: &mut Vec<Outcome>,
        window: Window,
    ) {
        // a glued statement's outcomes run on into the next statement's, so positions are
        // those of the whole list: such steps are cut afterwards
        let mut win = if self.has_glue { Window::ALL } else { window };
        let thread = &s.threads[tid];
        let Some(frame) = thread.stack.top() else {
            return;
        };
        if let Layout::Getafix {
            init,
            endinit,
            threads,
        } = &self.program.layout
        {
            if frame.proc == *init && frame.pc == *endinit {
                let first = out.len();
                self.start_getafix_threads(s, tid, threads, rec, out, &mut win);
                win.cut(out, first);
                return;
            }
        }
        let first = out.len();
        self.step_statement(s, tid, rec, out, &mut win);
        if self.lock_global.is_some() || self.has_atomic_procs {
            for o in &mut out[first..] {
                o.materialize(s);
            }
            self.atomic_bookkeeping(s, tid, frame.proc, &mut out[first..]);
        }
        if self.program.keep_completed {
            Self::count_atomic_steps(s, tid, &mut out[first..]);
        }
        if self.has_glue {
            self.continue_glued(s, tid, frame.proc, frame.pc, first, rec, out);
            win = window;
        }
        win.cut(out, first);
    }

    /// Counts the steps of an atomic region: a thread that stays atomic has taken one more,
    /// and more than [`MAX_ATOMIC_STEPS`] is ZING's infinite-loop-in-atomic error (§4.7).
    fn count_atomic_steps(s: &State, tid: usize, outs: &mut [Outcome]) {
        let before = s.threads[tid].atomic_steps;
        for o in outs {
            if let Outcome::Moved { mv, .. } = o {
                let steps = if mv.atomic { before + 1 } else { 0 };
                if steps > super::state::MAX_ATOMIC_STEPS {
                    *o = Outcome::Violation(Violation::Runtime(RtError::InfiniteLoop));
                } else {
                    mv.atomic_steps = steps;
                }
                continue;
            }
            let Outcome::Next { state, .. } = o else {
                continue;
            };
            let Some(t) = state.threads.get(tid) else {
                continue;
            };
            let steps = if t.atomic { before + 1 } else { 0 };
            if steps > super::state::MAX_ATOMIC_STEPS {
                *o = Outcome::Violation(Violation::Runtime(RtError::InfiniteLoop));
            } else if steps != t.atomic_steps {
                state.thread_mut(tid).atomic_steps = steps;
            }
        }
    }

    /// Zing's step granularity: an outcome that stays in the frame and either leaves a node
    /// glued to its successor or arrives at a node glued to its predecessor runs on within
    /// the same step (`out[first..]` are the outcomes of the node at `pc`).
    #[allow(clippy::too_many_arguments)]
    fn continue_glued<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        proc: ProcId,
        pc: Pc,
        first: usize,
        rec: &mut R,
        out: &mut Vec<Outcome>,
    ) {
        let leaves_glued = matches!(
            self.program.node(proc, pc).glue,
            Glue::ToNext | Glue::Through
        );
        let arrives_glued = |pc: Pc| {
            matches!(
                self.program.node(proc, pc).glue,
                Glue::ToPrevious | Glue::Through
            )
        };
        let goes_on = |o: &Outcome| match o {
            Outcome::Next {
                state,
                kind: Kind::Internal,
            } => state.threads[tid]
                .stack
                .top()
                .is_some_and(|f| f.proc == proc && (leaves_glued || arrives_glued(f.pc))),
            // a move stays in its procedure
            Outcome::Moved {
                mv,
                kind: Kind::Internal,
            } => leaves_glued || arrives_glued(mv.pc),
            _ => false,
        };
        if !out[first..].iter().any(goes_on) {
            return;
        }
        let done: Vec<Outcome> = out.drain(first..).collect();
        for mut o in done {
            if !goes_on(&o) {
                out.push(o);
                continue;
            }
            o.materialize(s);
            let Outcome::Next { state, .. } = o else {
                continue;
            };
            if self.blocked(&state, tid).is_some() {
                // a disabled select met in the middle of a step (§10 rule 16)
                out.push(Outcome::Violation(Violation::Runtime(
                    RtError::InvalidBlockingSelect,
                )));
                continue;
            }
            self.step(&state, tid, rec, out);
        }
    }

    /// The values a local starts with at procedure entry: its initialiser's, every boolean if
    /// it may be read before written, otherwise just its default.
    fn local_alts(&self, proc: ProcId, i: usize) -> Vec<Value> {
        let v = &self.program.procs[proc as usize].locals[i];
        match (v.init, v.ty) {
            (Init::Value(c), _) => vec![const_value(c)],
            (Init::Any, Type::Bool) if self.live_at_entry(proc, i) => BOTH.to_vec(),
            (Init::Any, ty) => vec![Self::default_value(ty)],
        }
    }

    /// Getafix layout: `init` reached `endinit`; it gives way to one thread per `thread…`
    /// procedure (and `main`), each with arbitrary locals.
    fn start_getafix_threads<R: Recorder>(
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
                    stack: super::Stack::new(Frame {
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
    fn atomic_bookkeeping(&self, s: &State, tid: usize, proc: ProcId, outs: &mut [Outcome]) {
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

    /// Resolves where an lvalue writes (the object of a field is evaluated now) and records
    /// the write.
    fn target<R: Recorder>(
        &self,
        lv: Option<&LValue>,
        env: &Env,
        rec: &mut R,
    ) -> Result<Target, RtError> {
        Ok(match lv {
            None => Target::Discard,
            Some(LValue::Local(i)) => Target::Local(*i),
            // other threads' slots: written by `broadcast`, not through the active post-state
            Some(LValue::PassiveLocal(_)) => Target::Discard,
            Some(LValue::Global(i)) => {
                rec.write(Loc {
                    addr: GLOBALS,
                    field: *i,
                });
                Target::Global(*i)
            }
            Some(LValue::Field(e, f)) => {
                match non_null(self.value(e, env, rec)?, e, Access::Write(*f), rec)? {
                    Value::Ref(a) => {
                        rec.write(Loc { addr: a, field: *f });
                        Target::Field(a, *f)
                    }
                    _ => return Err(RtError::NullDereference),
                }
            }
            Some(LValue::Elem(o, ix, w)) => {
                let obj = self.value(o, env, rec)?;
                let i = match self.value(ix, env, rec)? {
                    Value::Int(i) => i as i128,
                    _ => -1,
                };
                let (a, f) = self.elem_loc(env.heap, obj, i, *w, (o, ix), rec)?;
                rec.write(Loc { addr: a, field: f });
                Target::Field(a, f)
            }
        })
    }

    /// Executes one statement (the layout-independent part of [`Machine::step`]).
    fn step_statement<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        rec: &mut R,
        out: &mut Vec<Outcome>,
        win: &mut Window,
    ) {
        if let Err(e) = self.try_step(s, tid, rec, out, win) {
            out.push(Outcome::Violation(Violation::Runtime(e)));
        }
    }

    fn try_step<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        rec: &mut R,
        out: &mut Vec<Outcome>,
        win: &mut Window,
    ) -> Result<(), RtError> {
        let thread = &s.threads[tid];
        let Some(frame) = thread.stack.top() else {
            return Ok(());
        };
        let proc = &self.program.procs[frame.proc as usize];
        let node = &proc.nodes[frame.pc as usize];
        let env = Env {
            self_id: tid as u32,
            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
        };
        let next = || node.succ.first().copied().unwrap_or(frame.pc);
        match &node.stmt {
            Stmt::Skip | Stmt::Yield => out.push(self.jump(s, tid, next(), false, rec)),
            Stmt::Goto => {
                for &pc in &node.succ {
                    out.push(self.jump(s, tid, pc, false, rec));
                }
            }
            Stmt::Branch { cond } => {
                let vals = self.values(cond, &env, rec)?;
                if vals.contains(&Value::Bool(true)) {
                    out.push(self.jump(s, tid, node.succ[0], false, rec));
                }
                if vals.contains(&Value::Bool(false)) {
                    out.push(self.jump(s, tid, node.succ[1], false, rec));
                }
            }
            Stmt::Assume { cond } => {
                if self.values(cond, &env, rec)?.contains(&Value::Bool(true)) {
                    out.push(self.jump(s, tid, next(), false, rec));
                } else {
                    out.push(Outcome::Pruned);
                }
            }
            Stmt::Assert { cond } => {
                let vals = self.values(cond, &env, rec)?;
                let can_f = vals.contains(&Value::Bool(false));
                if self.semantics.check_assertions && can_f {
                    out.push(Outcome::Violation(Violation::Assertion));
                }
                if vals.contains(&Value::Bool(true)) {
                    out.push(self.jump(s, tid, next(), false, rec));
                } else if !self.semantics.check_assertions {
                    out.push(Outcome::Pruned);
                }
            }
            Stmt::Assign {
                targets,
                values,
                constrain,
            } if node.stmt.is_broadcast() => self.broadcast(
                s,
                tid,
                targets,
                values,
                constrain.as_ref(),
                next(),
                &env,
                rec,
                out,
            )?,
            Stmt::Assign {
                targets,
                values,
                constrain: None,
            } if targets.len() == 1 && values.len() == 1 && !values[0].is_nondet() => {
                // the common case, without the lists of the general one below
                let v = self.value(&values[0], &env, rec)?;
                let t = self.target(targets[0].as_ref(), &env, rec)?;
                let mut post = Post::new(self, s, thread, &frame.locals);
                post.set(t, v);
                out.push(self.commit(s, tid, post, next(), Kind::Internal, rec));
            }
            Stmt::Assign {
                targets,
                values,
                constrain,
            } => {
                let mut alts = values
                    .iter()
                    .map(|v| self.values(v, &env, rec))
                    .collect::<Result<Vec<_>, _>>()?;
                let resolved = targets
                    .iter()
                    .map(|t| self.target(t.as_ref(), &env, rec))
                    .collect::<Result<Vec<_>, _>>()?;
                if constrain.is_none() {
                    self.one_value_if_dead(frame.proc, node.succ.as_slice(), targets, &mut alts);
                }
                for_each_product_in(&alts, win, |combo| {
                    let mut post = Post::new(self, s, thread, &frame.locals);
                    for (&t, &v) in resolved.iter().zip(combo) {
                        post.set(t, v);
                    }
                    if let Some(c) = constrain {
                        let env2 = Env {
                            new_globals: post.globals(),
                            new_thread_locals: post.tl(),
                            new_locals: &post.locals,
                            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
                        };
                        if self.eval(c, &env2, rec) & super::CAN_T == 0 {
                            out.push(Outcome::Pruned);
                            return;
                        }
                    }
                    out.push(self.commit(s, tid, post, next(), Kind::Internal, rec));
                });
            }
            Stmt::Havoc { targets } => {
                let resolved = targets
                    .iter()
                    .map(|t| self.target(Some(t), &env, rec))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut alts = vec![BOTH.to_vec(); targets.len()];
                let targets: Vec<Option<LValue>> = targets.iter().cloned().map(Some).collect();
                self.one_value_if_dead(frame.proc, node.succ.as_slice(), &targets, &mut alts);
                for_each_product_in(&alts, win, |combo| {
                    let mut post = Post::new(self, s, thread, &frame.locals);
                    for (&t, &v) in resolved.iter().zip(combo) {
                        post.set(t, v);
                    }
                    out.push(self.commit(s, tid, post, next(), Kind::Internal, rec));
                });
            }
            Stmt::Constrain { expr } => self.constrain_all(s, tid, expr, next(), rec, out, win),
            Stmt::Call { callee, args, .. } => {
                let alts = self.entry_alts(*callee, args, &env, rec)?;
                for_each_product_in(&alts, win, |combo| {
                    let callee_frame = Frame {
                        proc: *callee,
                        pc: 0,
                        locals: combo.into(),
                    };
                    let mut st = s.clone();
                    let t = st.thread_mut(tid);
                    t.stack = t.stack.push(callee_frame);
                    out.push(self.checked(st, &[tid], Kind::Call, rec));
                });
            }
            Stmt::Return { .. } => {
                let results = self.return_values(s, tid, rec)?;
                if thread.stack.depth() <= 1 {
                    // the thread's bottom frame returns: the thread ends, results discarded
                    out.push(self.end_thread(s, tid));
                    return Ok(());
                }
                for vals in &results {
                    out.push(self.finish_return(s, tid, vals, rec));
                }
            }
            Stmt::StartThread { .. } | Stmt::StartThreadGoto if self.at_thread_bound(s) => {}
            Stmt::StartThread { callee, args } => {
                let alts = self.entry_alts(*callee, args, &env, rec)?;
                for_each_product_in(&alts, win, |combo| {
                    let child = Thread {
                        stack: super::Stack::new(Frame {
                            proc: *callee,
                            pc: 0,
                            locals: combo.into(),
                        }),
                        thread_locals: thread.thread_locals.clone(),
                        atomic: false,
                        atomic_steps: 0,
                    };
                    out.push(self.spawn(s, tid, next(), child, rec));
                });
            }
            Stmt::StartThreadGoto => {
                let child = Thread {
                    stack: super::Stack::new(Frame {
                        pc: node.succ[1],
                        ..frame.clone()
                    }),
                    thread_locals: thread.thread_locals.clone(),
                    atomic: false,
                    atomic_steps: 0,
                };
                out.push(self.spawn(s, tid, node.succ[0], child, rec));
            }
            Stmt::EndThread => out.push(self.end_thread(s, tid)),
            Stmt::AtomicBegin => out.push(self.jump_as(s, tid, next(), true, rec)),
            // Zing: back to the caller's level (still atomic inside an enclosing region);
            // boolean programs' sections are flat
            Stmt::AtomicEnd => {
                let atomic = self.enclosing_atomic(&thread.stack);
                out.push(self.jump_as(s, tid, next(), atomic, rec));
            }
            Stmt::New { target, class } => {
                // a fixed-size array longer than an int can count: as for `new A[n]`
                if let zingrs_lang::ir::ClassKind::Array { len: Some(n) } =
                    self.program.classes[*class as usize].kind
                {
                    if i64::from(n) > MAX_ARRAY_LEN {
                        return Err(RtError::ArithmeticOverflow);
                    }
                }
                let obj = self.new_object(*class);
                out.push(self.allocate(s, tid, target, obj, &env, next(), rec)?);
            }
            Stmt::Choose { target, ty, lo, hi } => {
                let t = self.target(Some(target), &env, rec)?;
                if lo > hi {
                    return Err(RtError::InvalidChoose);
                }
                for v in *lo..=*hi {
                    let val = match ty {
                        Type::Bool => Value::Bool(v != 0),
                        _ => Value::Int(v),
                    };
                    let mut post = Post::new(self, s, thread, &frame.locals);
                    post.set(t, val);
                    out.push(self.commit(s, tid, post, next(), Kind::Internal, rec));
                }
            }
            Stmt::Select {
                guards,
                receives,
                first,
                atomic,
                ..
            } => {
                let mut enabled = Vec::new();
                for (i, g) in guards.iter().enumerate() {
                    // a receive's guard tests its channel's size: a null channel is a receive
                    // from null, and is said so
                    for r in receives.get(i).into_iter().flatten() {
                        let chan = self.value(&r.chan, &env, rec)?;
                        non_null(chan, &r.chan, Access::Receive, rec)?;
                    }
                    if self.value(g, &env, rec)?.as_bool() {
                        enabled.push(i);
                    }
                }
                if enabled.is_empty() && thread.atomic {
                    return Err(RtError::InvalidBlockingSelect);
                }
                if *first || guards.len() == 1 {
                    enabled.truncate(1);
                }
                for i in enabled {
                    let recv = receives.get(i).map_or(&[][..], |r| &r[..]);
                    if recv.is_empty() {
                        out.push(self.jump(s, tid, node.succ[i], *atomic, rec));
                        continue;
                    }
                    let mut post = Post::new(self, s, thread, &frame.locals);
                    for r in recv {
                        let chan = self.value(&r.chan, &env, rec)?;
                        let chan = non_null(chan, &r.chan, Access::Receive, rec)?;
                        let (a, _) = self.collection(&s.heap, chan)?;
                        let queue = post.fields(a).unwrap_or(&[]).to_vec();
                        let w = r.targets.len();
                        if queue.len() < w {
                            return Err(RtError::InvalidBlockingSelect);
                        }
                        rec.write(Loc { addr: a, field: 0 });
                        post.replace(a, queue[w..].to_vec());
                        for (t, &v) in r.targets.iter().zip(&queue[..w]) {
                            let t = self.target(Some(t), &env, rec)?;
                            post.set(t, v);
                        }
                    }
                    let o = self.commit(s, tid, post, node.succ[i], Kind::Internal, rec);
                    out.push(match (o, *atomic) {
                        (Outcome::Next { mut state, kind }, true) => {
                            state.thread_mut(tid).atomic = true;
                            Outcome::Next { state, kind }
                        }
                        (Outcome::Moved { mut mv, kind }, true) => {
                            mv.atomic = true;
                            Outcome::Moved { mv, kind }
                        }
                        (o, _) => o,
                    });
                }
            }
            Stmt::NewArray { target, class, len } => {
                // a length is an `int`: beyond its range (or negative) the allocation
                // overflows, as .NET's does, whatever the memory limit
                let n = match self.value(len, &env, rec)? {
                    Value::Int(n) if (0..=MAX_ARRAY_LEN).contains(&n) => n as usize,
                    v => {
                        if let Value::Int(value) = v {
                            rec.fault(|| super::Fault::Length {
                                expr: len.clone(),
                                value,
                                max: MAX_ARRAY_LEN,
                            });
                        }
                        return Err(RtError::ArithmeticOverflow);
                    }
                };
                let obj = self.new_collection(*class, n);
                out.push(self.allocate(s, tid, target, obj, &env, next(), rec)?);
            }
            Stmt::SetUpdate { set, op, operand } => {
                let obj = non_null(self.value(set, &env, rec)?, set, Access::SetUpdate, rec)?;
                let (a, old) = self.collection(&s.heap, obj)?;
                let x = self.value(operand, &env, rec)?;
                let mut elems = old.to_vec();
                let items: Vec<Value> = match op {
                    SetOp::Insert | SetOp::Remove => vec![x],
                    SetOp::InsertAll | SetOp::RemoveAll => {
                        let x = non_null(x, operand, Access::SetUpdate, rec)?;
                        self.collection(&s.heap, x)?.1.to_vec()
                    }
                };
                for v in items {
                    match (
                        elems.binary_search_by(|e| super::eval::set_order(*e, v)),
                        op,
                    ) {
                        (Err(i), SetOp::Insert | SetOp::InsertAll) => elems.insert(i, v),
                        (Ok(i), SetOp::Remove | SetOp::RemoveAll) => {
                            elems.remove(i);
                        }
                        _ => {}
                    }
                }
                out.push(self.rewrite(s, tid, a, elems, next(), rec));
            }
            Stmt::Send { chan, values } => {
                let obj = non_null(self.value(chan, &env, rec)?, chan, Access::Send, rec)?;
                let (a, old) = self.collection(&s.heap, obj)?;
                let mut queue = old.to_vec();
                for v in values {
                    queue.push(self.value(v, &env, rec)?);
                }
                out.push(self.rewrite(s, tid, a, queue, next(), rec));
            }
            Stmt::ChooseElem { targets, from } => {
                let obj = non_null(self.value(from, &env, rec)?, from, Access::Choose, rec)?;
                let (_, elems) = self.collection(&s.heap, obj)?;
                let w = targets.len().max(1);
                if elems.len() < w {
                    return Err(RtError::InvalidChoose);
                }
                let resolved = targets
                    .iter()
                    .map(|t| self.target(Some(t), &env, rec))
                    .collect::<Result<Vec<_>, _>>()?;
                for chunk in elems.chunks_exact(w) {
                    let mut post = Post::new(self, s, thread, &frame.locals);
                    for (&t, &v) in resolved.iter().zip(chunk) {
                        post.set(t, v);
                    }
                    out.push(self.commit(s, tid, post, next(), Kind::Internal, rec));
                }
            }
            Stmt::Raise { exception } => out.push(self.raise(s, tid, *exception)?),
        }
        Ok(())
    }

    /// `target = new …`: stores `obj` at a fresh address, points `target` at it and moves
    /// thread `tid` to `pc`.
    #[allow(clippy::too_many_arguments)]
    fn allocate<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        target: &LValue,
        obj: super::state::Object,
        env: &Env,
        pc: Pc,
        rec: &mut R,
    ) -> Result<Outcome, RtError> {
        let t = self.target(Some(target), env, rec)?;
        let addr = s.fresh_addr();
        rec.alloc(addr);
        let thread = &s.threads[tid];
        let frame = thread.stack.top().expect("running thread has a frame");
        let mut post = Post::new(self, s, thread, &frame.locals);
        let mut heap = s.heap.clone();
        heap.insert(addr, Rc::new(obj));
        post.heap = Some(heap);
        post.set(t, Value::Ref(addr));
        Ok(self.commit(s, tid, post, pc, Kind::Internal, rec))
    }

    /// Replaces every element of the collection at `a` (a set update or a send) and moves
    /// thread `tid` to `pc`.
    fn rewrite<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        a: Addr,
        fields: Vec<Value>,
        pc: Pc,
        rec: &mut R,
    ) -> Outcome {
        rec.write(Loc { addr: a, field: 0 });
        let thread = &s.threads[tid];
        let frame = thread.stack.top().expect("running thread has a frame");
        let mut post = Post::new(self, s, thread, &frame.locals);
        post.replace(a, fields);
        self.commit(s, tid, post, pc, Kind::Internal, rec)
    }

    /// `raise`: the innermost handler for `exception` on thread `tid`'s stack takes control
    /// (frames without one are abandoned, storing no results).
    fn raise(&self, s: &State, tid: usize, exception: u32) -> Result<Outcome, RtError> {
        let mut stack = s.threads[tid].stack.clone();
        loop {
            let Some(frame) = stack.top() else {
                return Err(RtError::UnhandledException);
            };
            let proc = &self.program.procs[frame.proc as usize];
            let handler = proc
                .tries
                .iter()
                .filter(|t| t.body.contains(&frame.pc))
                .find_map(|t| {
                    let named = t.handlers.iter().find(|(e, _)| *e == Some(exception));
                    named
                        .or_else(|| t.handlers.iter().find(|(e, _)| e.is_none()))
                        .map(|&(_, pc)| pc)
                });
            if let Some(pc) = handler {
                let f = Frame {
                    pc,
                    ..frame.clone()
                };
                let atomic = self.in_atomic_block[f.proc as usize][pc as usize]
                    || stack.iter().any(|f| self.atomic_proc[f.proc as usize]);
                let stack = stack.with_top(f);
                let atomic = atomic || self.enclosing_atomic(&stack);
                let mut st = s.clone();
                let t = st.thread_mut(tid);
                t.stack = stack;
                t.atomic = atomic;
                return Ok(Outcome::Next {
                    state: st,
                    kind: Kind::Internal,
                });
            }
            stack = stack.pop();
        }
    }

    /// The result tuples the `return` at thread `tid`'s top frame can produce, in the order in
    /// which [`Machine::step`] lists the corresponding outcomes.
    pub fn return_values<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        rec: &mut R,
    ) -> Result<Vec<Box<[Value]>>, RtError> {
        let thread = &s.threads[tid];
        let Some(frame) = thread.stack.top() else {
            return Ok(Vec::new());
        };
        let proc = &self.program.procs[frame.proc as usize];
        let env = Env {
            self_id: tid as u32,
            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
        };
        let alts: Vec<Vec<Value>> = match &proc.nodes[frame.pc as usize].stmt {
            Stmt::Return { values: Some(v) } => v
                .iter()
                .map(|e| self.values(e, &env, rec))
                .collect::<Result<_, _>>()?,
            _ => proc
                .returns
                .iter()
                .map(|&ty| match ty {
                    Type::Bool => BOTH.to_vec(),
                    other => vec![Self::default_value(other)],
                })
                .collect(),
        };
        let mut all = Vec::new();
        for_each_product(&alts, |combo| all.push(combo.into()));
        Ok(all)
    }

    /// Pops thread `tid`'s top frame and completes the caller's call: the results go to the
    /// call's receivers (evaluated now, after the callee's own writes), the caller moves past
    /// the call, and the caller's `enforce` invariant is checked.
    pub fn finish_return<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        vals: &[Value],
        rec: &mut R,
    ) -> Outcome {
        let thread = &s.threads[tid];
        let below = thread.stack.pop();
        let Some(caller) = below.top() else {
            return self.end_thread(s, tid);
        };
        let call = self.program.node(caller.proc, caller.pc);
        let results: &[Option<LValue>] = match &call.stmt {
            Stmt::Call { results, .. } => results,
            _ => &[],
        };
        let env = Env {
            self_id: tid as u32,
            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &caller.locals)
        };
        let mut targets = Vec::with_capacity(results.len());
        for r in results {
            match self.target(r.as_ref(), &env, rec) {
                Ok(t) => targets.push(t),
                Err(e) => return Outcome::Violation(Violation::Runtime(e)),
            }
        }
        let mut post = Post::new(self, s, thread, &caller.locals);
        for (&t, &v) in targets.iter().zip(vals) {
            post.set(t, v);
        }
        let mut st = s.clone();
        let locals = post.install(&mut st, tid);
        let frame = Frame {
            proc: caller.proc,
            pc: call.succ[0],
            locals,
        };
        let t = st.thread_mut(tid);
        t.stack = below.with_top(frame);
        self.checked(st, &[tid], Kind::Return, rec)
    }

    /// The alternatives for a new frame's slots: each argument's values, then each other
    /// local's starting values.
    /// Keeps one value of each alternative list whose target is a local or global that no path
    /// reads before writing it again after this statement (at its one successor `succ`): the other
    /// values would only make states that differ in a value nobody observes.
    fn one_value_if_dead(
        &self,
        proc: ProcId,
        succ: &[Pc],
        targets: &[Option<LValue>],
        alts: &mut [Vec<Value>],
    ) {
        let &[next] = succ else {
            return;
        };
        for (t, a) in targets.iter().zip(alts.iter_mut()) {
            let dead = match (t, a.len() > 1) {
                (Some(LValue::Local(i)), true) => !self.live_before(proc, next, *i as usize),
                (Some(LValue::Global(g)), true) => {
                    !self.global_live_before(proc, next, *g as usize)
                }
                _ => false,
            };
            if dead {
                a.truncate(1);
            }
        }
    }

    fn entry_alts<R: Recorder>(
        &self,
        callee: ProcId,
        args: &[Expr],
        env: &Env,
        rec: &mut R,
    ) -> Result<Vec<Vec<Value>>, RtError> {
        let p = &self.program.procs[callee as usize];
        let mut alts = args
            .iter()
            .map(|a| self.values(a, env, rec))
            .collect::<Result<Vec<_>, _>>()?;
        if !p.nodes.is_empty() {
            for (i, a) in alts.iter_mut().enumerate() {
                // a formal the callee never reads before writing takes one of its values
                if a.len() > 1 && !self.live_before(callee, 0, i) {
                    a.truncate(1);
                }
            }
        }
        alts.extend((args.len()..p.locals.len()).map(|i| self.local_alts(callee, i)));
        Ok(alts)
    }

    /// Moves thread `tid` to `pc` without changing any variable (entering an atomic region if
    /// `atomic`).
    fn jump<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        pc: Pc,
        atomic: bool,
        rec: &mut R,
    ) -> Outcome {
        let atomic = s.threads[tid].atomic || atomic;
        self.jump_as(s, tid, pc, atomic, rec)
    }

    /// Moves thread `tid` to `pc` without changing any variable, leaving its atomic flag
    /// `atomic`.
    fn jump_as<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        pc: Pc,
        atomic: bool,
        rec: &mut R,
    ) -> Outcome {
        let old = &s.threads[tid];
        let top = old.stack.top().expect("running thread has a frame");
        let mv = Move {
            tid: tid as u32,
            pc,
            locals: top.locals.clone(),
            atomic,
            atomic_steps: old.atomic_steps,
            thread_locals: None,
            globals: None,
            writes: SmallVec::new(),
        };
        self.moved(s, mv, Kind::Internal, rec)
    }

    /// The outcome of a move of `s`: the move itself unless an `enforce` invariant at its
    /// target needs the state to be checked.
    fn moved<R: Recorder>(&self, s: &State, mv: Move, kind: Kind, rec: &mut R) -> Outcome {
        let top = s.threads[mv.tid as usize]
            .stack
            .top()
            .expect("running thread has a frame");
        if self.program.node(top.proc, mv.pc).invariant.is_none() {
            return Outcome::Moved { mv, kind };
        }
        let tid = mv.tid as usize;
        self.checked(mv.apply(s), &[tid], kind, rec)
    }

    /// Installs the values of `post` and moves thread `tid` to `pc`.
    fn commit<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        post: Post,
        pc: Pc,
        kind: Kind,
        rec: &mut R,
    ) -> Outcome {
        let old = &s.threads[tid];
        let top = old.stack.top().expect("running thread has a frame");
        if post.heap.is_none() {
            let Post {
                globals,
                tl,
                writes,
                locals,
                ..
            } = post;
            let mv = Move {
                tid: tid as u32,
                pc,
                locals,
                atomic: old.atomic,
                atomic_steps: old.atomic_steps,
                thread_locals: tl.map(Into::into),
                globals: globals.map(Into::into),
                writes,
            };
            return self.moved(s, mv, kind, rec);
        }
        // the successor is built whole: copying the thread and then replacing its stack and
        // thread-locals would count every shared part up and down again
        let mut post = post;
        post.heap();
        let Post {
            globals,
            tl,
            heap,
            locals,
            ..
        } = post;
        let thread = Thread {
            stack: old.stack.with_top(Frame {
                proc: top.proc,
                pc,
                locals,
            }),
            thread_locals: tl.map_or_else(|| old.thread_locals.clone(), Into::into),
            atomic: old.atomic,
            atomic_steps: old.atomic_steps,
        };
        let st = State {
            globals: globals.map_or_else(|| s.globals.clone(), Into::into),
            threads: s.with_thread(tid, thread),
            heap: heap.unwrap_or_else(|| s.heap.clone()),
        };
        self.checked(st, &[tid], kind, rec)
    }

    /// Whether `s` has as many live threads as `--threads` allows (a creation is then not
    /// enabled). Completed Zing processes, which stay in the list, do not count.
    fn at_thread_bound(&self, s: &State) -> bool {
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

    fn spawn<R: Recorder>(
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

    fn end_thread(&self, s: &State, tid: usize) -> Outcome {
        let mut st = s.clone();
        if self.program.keep_completed {
            // a completed Zing process stays in the process list with no frames
            let t = st.thread_mut(tid);
            t.stack = super::Stack::default();
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

    /// Stand-alone `constrain e`: every visible variable takes new values making `e` possible.
    #[allow(clippy::too_many_arguments)]
    fn constrain_all<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        expr: &Expr,
        pc: Pc,
        rec: &mut R,
        out: &mut Vec<Outcome>,
        win: &mut Window,
    ) {
        let thread = &s.threads[tid];
        let frame = thread.stack.top().expect("running thread has a frame");
        let mut all: Vec<Target> = Vec::new();
        for i in 0..self.program.globals.len() as u32 {
            rec.write(Loc {
                addr: GLOBALS,
                field: i,
            });
            all.push(Target::Global(i));
        }
        all.extend((0..frame.locals.len() as u32).map(Target::Local));
        let alts = vec![BOTH.to_vec(); all.len()];
        for_each_product_in(&alts, win, |combo| {
            let mut post = Post::new(self, s, thread, &frame.locals);
            for (&t, &v) in all.iter().zip(combo) {
                post.set(t, v);
            }
            let env = Env {
                new_globals: post.globals(),
                new_thread_locals: post.tl(),
                new_locals: &post.locals,
                ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
            };
            if self.eval(expr, &env, rec) & super::CAN_T == 0 {
                out.push(Outcome::Pruned);
            } else {
                out.push(self.commit(s, tid, post, pc, Kind::Internal, rec));
            }
        });
    }

    /// Applies the `enforce` check (bp-language.md §5.7) to the threads that moved.
    fn checked<R: Recorder>(&self, st: State, moved: &[usize], kind: Kind, rec: &mut R) -> Outcome {
        for &t in moved {
            if !self.invariant_holds(&st, t, rec) {
                return Outcome::Pruned;
            }
        }
        Outcome::Next { state: st, kind }
    }

    /// Whether the `enforce` invariant at thread `tid`'s control point can hold.
    pub fn invariant_holds<R: Recorder>(&self, st: &State, tid: usize, rec: &mut R) -> bool {
        let Some(thread) = st.threads.get(tid) else {
            return true;
        };
        let Some(frame) = thread.stack.top() else {
            return true;
        };
        match &self.program.node(frame.proc, frame.pc).invariant {
            None => true,
            Some(inv) => {
                let env = Env {
                    self_id: tid as u32,
                    ..Env::plain(&st.heap, &st.globals, &thread.thread_locals, &frame.locals)
                };
                self.eval(inv, &env, rec) & super::CAN_T != 0
            }
        }
    }

    /// How many alternatives thread `tid`'s next statement chooses among (`choose`, and a
    /// `select` without `first` with several enabled branches); 1 for every other statement.
    pub fn alternatives(&self, s: &State, tid: usize) -> usize {
        let Some(thread) = s.threads.get(tid) else {
            return 1;
        };
        let Some(frame) = thread.stack.top() else {
            return 1;
        };
        // most statements choose nothing: the environment is built only for those that may
        let env = || Env {
            self_id: tid as u32,
            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
        };
        match &self.program.node(frame.proc, frame.pc).stmt {
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
    /// selects is not marked `end` (completed Zing processes do not count).
    pub fn deadlocked(&self, s: &State) -> bool {
        if s.threads.is_empty() {
            return false;
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
}

/// The runtime value of an IR constant.
pub fn const_value(c: Const) -> Value {
    match c {
        Const::Bool(b) => Value::Bool(b),
        Const::Int(i) => Value::Int(i),
        Const::Null => Value::Null,
    }
}
