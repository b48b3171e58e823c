//! The step function: the one place that knows what a statement does to a state.

use super::eval::{Env, RtError, CAN_F, CAN_T};
use super::fault::{non_null, Access};
use super::moved::Move;
use super::record::Recorder;
use super::state::{Frame, State, Thread};
use super::value::{Loc, Value};
use super::Machine;
use smallvec::SmallVec;
mod assign;
mod blocking;
mod broadcast;
mod calls;
mod commit;
mod post;
mod threads;

pub use threads::ReturnStep;
mod window;

use post::{Post, Target};
use window::Window;
use window::{for_each_product, for_each_product_in};

use zingrs_lang::ir::{Const, Expr, Glue, LValue, Layout, Pc, ProcId, SetOp, Stmt, Type};

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
    /// `Window`): a replay takes outcome `k` of a step with 2^24 of them without the list.
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
        let first = out.len();
        self.step_moves_unselected(s, tid, rec, out, window);
        // `check --property`: a runtime error whose check is not selected ends the execution
        // unreported; it belongs to the node the step starts at, where the report puts it
        if let (Some(_), Some(frame)) = (&self.semantics.selection, s.threads[tid].stack.top()) {
            for o in &mut out[first..] {
                if let Outcome::Violation(Violation::Runtime(e)) = *o {
                    if !self.semantics.reports_error(frame.proc, frame.pc, e) {
                        *o = Outcome::Pruned;
                    }
                }
            }
        }
    }

    /// [`Machine::step_moves_in`] with every runtime error reported (a glued step runs on
    /// through this, so that its errors are selected by where the whole step starts).
    fn step_moves_unselected<R: Recorder>(
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
        if let Some(c) = &self.semantics.coverage {
            c.mark(frame.proc, frame.pc);
        }
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
            let goes_on = self.semantics.cooperative
                && !matches!(self.program.node(frame.proc, frame.pc).stmt, Stmt::Yield);
            let choice = self.alternatives(s, tid) >= 2;
            let chose = choice || s.threads[tid].atomic_steps & threads::CHOSE != 0;
            let runs_on = goes_on && !choice;
            self.count_atomic_steps(s, tid, runs_on, (chose, goes_on), &mut out[first..]);
            if self.semantics.cooperative {
                self.forget_spent_counts(s, tid, &mut out[first..]);
            }
            if chose {
                self.forget_choice_marks(s, tid, &mut out[first..]);
            }
        }
        if self.has_glue {
            self.continue_glued(s, tid, frame.proc, frame.pc, first, rec, out);
            win = window;
        }
        if self.semantics.cooperative
            && !matches!(self.program.node(frame.proc, frame.pc).stmt, Stmt::Yield)
        {
            self.cooperative_selects(s, tid, frame.proc, &mut out[first..]);
        }
        win.cut(out, first);
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
                out.push(self.invalid_blocking_select(s, tid, &state));
                continue;
            }
            let at = out.len();
            self.step_moves_unselected(&state, tid, rec, out, Window::ALL);
            for o in &mut out[at..] {
                o.materialize(&state);
            }
        }
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
        match self.try_step(s, tid, rec, out, win) {
            // a disabled select inside an atomic region, where the step stands
            Err(RtError::InvalidBlockingSelect) => {
                out.push(self.invalid_blocking_select(s, tid, s))
            }
            Err(e) => out.push(Outcome::Violation(Violation::Runtime(e))),
            Ok(()) => {}
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
                let vals = self.bool_values(cond, &env, rec)?;
                if vals & CAN_T != 0 {
                    out.push(self.jump(s, tid, node.succ[0], false, rec));
                }
                if vals & CAN_F != 0 {
                    out.push(self.jump(s, tid, node.succ[1], false, rec));
                }
            }
            Stmt::Assume { cond } => {
                if self.bool_values(cond, &env, rec)? & CAN_T != 0 {
                    out.push(self.jump(s, tid, next(), false, rec));
                } else {
                    out.push(Outcome::Pruned);
                }
            }
            Stmt::Assert { cond } => {
                let vals = self.bool_values(cond, &env, rec)?;
                let can_f = vals & CAN_F != 0;
                let checked = self.semantics.check_assertions;
                if checked && can_f {
                    // one left out by `check --property` acts as `assume`, its outcomes at
                    // the same positions (a path takes the same choices with every assertion
                    // checked)
                    out.push(if self.semantics.checks_assertion(frame.proc, frame.pc) {
                        Outcome::Violation(Violation::Assertion)
                    } else {
                        Outcome::Pruned
                    });
                }
                if vals & CAN_T != 0 {
                    out.push(self.jump(s, tid, next(), false, rec));
                } else if !checked {
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
            } if targets.len() == values.len() && !values.iter().any(Expr::is_nondet) => {
                // the common case, deterministic values (one or several): one outcome, so
                // neither the lists of values nor their product below (values are read before
                // targets, as there)
                let vals = values
                    .iter()
                    .map(|v| self.value(v, &env, rec))
                    .collect::<Result<SmallVec<[Value; 4]>, _>>()?;
                let resolved = targets
                    .iter()
                    .map(|t| self.target(t.as_ref(), &env, rec))
                    .collect::<Result<SmallVec<[Target; 4]>, _>>()?;
                let mut post = Post::new(self, s, thread, &frame.locals);
                for (&t, &v) in resolved.iter().zip(&vals) {
                    post.set(t, v);
                }
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
                        if !self.may_hold_after(c, s, tid, &post, rec) {
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
}

/// The runtime value of an IR constant.
pub fn const_value(c: Const) -> Value {
    match c {
        Const::Bool(b) => Value::Bool(b),
        Const::Int(i) => Value::Int(i),
        Const::Null => Value::Null,
    }
}
