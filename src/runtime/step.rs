//! The step function: the one place that knows what a statement does to a state.

use super::eval::{mask_of, Env, Mask, ANY, CAN_F, CAN_T};
use super::record::Recorder;
use super::state::{Frame, State, Thread};
use super::value::{Loc, Value, GLOBALS};
use super::Machine;
use std::sync::Arc;
use zingrs_lang::ir::{Const, Init, LValue, Layout, Pc, ProcId, Stmt, Type};

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
}

/// One result of executing a statement under one nondeterministic choice.
#[derive(Clone, Debug)]
pub enum Outcome {
    Next {
        state: State,
        kind: Kind,
    },
    /// The choice is discarded (`assume`, `constrain` or `enforce` cannot hold).
    Pruned,
    Violation(Violation),
}

/// The values a step writes, copied from the old state only when first written.
struct Post<'a> {
    machine: &'a Machine<'a>,
    old_globals: &'a Arc<[Value]>,
    old_tl: &'a Arc<[Value]>,
    globals: Option<Vec<Value>>,
    tl: Option<Vec<Value>>,
    locals: Box<[Value]>,
}

impl<'a> Post<'a> {
    fn new(
        machine: &'a Machine<'a>,
        state: &'a State,
        thread: &'a Thread,
        locals: &[Value],
    ) -> Post<'a> {
        Post {
            machine,
            old_globals: &state.globals,
            old_tl: &thread.thread_locals,
            globals: None,
            tl: None,
            locals: locals.into(),
        }
    }

    fn set(&mut self, lv: &LValue, v: Value) {
        match lv {
            LValue::Local(i) => self.locals[*i as usize] = v,
            LValue::Global(i) => match self.machine.slots[*i as usize] {
                super::Slot::Shared(s) => {
                    self.globals
                        .get_or_insert_with(|| self.old_globals.to_vec())[s as usize] = v
                }
                super::Slot::ThreadLocal(s) => {
                    self.tl.get_or_insert_with(|| self.old_tl.to_vec())[s as usize] = v
                }
            },
        }
    }

    fn globals(&self) -> &[Value] {
        self.globals.as_deref().unwrap_or(self.old_globals)
    }
    fn tl(&self) -> &[Value] {
        self.tl.as_deref().unwrap_or(self.old_tl)
    }
}

/// Calls `f` with every combination of values drawn from the sets `masks` (false before true).
fn for_each_combo(masks: &[Mask], mut f: impl FnMut(&[bool])) {
    let mut cur: Vec<bool> = masks.iter().map(|m| m & CAN_F == 0).collect();
    if masks.iter().any(|&m| m == 0) {
        return;
    }
    loop {
        f(&cur);
        // advance the odometer over the positions that can take both values
        let mut i = masks.len();
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            if masks[i] == ANY {
                if !cur[i] {
                    cur[i] = true;
                    break;
                }
                cur[i] = false;
            }
        }
    }
}

fn init_mask(init: Init) -> Mask {
    match init {
        Init::Value(Const::Bool(b)) => mask_of(b),
        _ => ANY,
    }
}

impl Machine<'_> {
    /// Executes the statement at the top frame of thread `tid` and appends one outcome per
    /// nondeterministic choice to `out`, in a fixed order. `rec` receives the step's reads and
    /// writes over all choices.
    pub fn step<R: Recorder>(&self, s: &State, tid: usize, rec: &mut R, out: &mut Vec<Outcome>) {
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
                self.start_getafix_threads(s, tid, threads, rec, out);
                return;
            }
            let first = out.len();
            self.step_statement(s, tid, rec, out);
            self.getafix_locks(s, tid, frame.proc, &mut out[first..]);
            return;
        }
        self.step_statement(s, tid, rec, out);
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
    ) {
        let thread = &s.threads[tid];
        let mut masks = Vec::new();
        for &p in procs {
            let proc = &self.program.procs[p as usize];
            masks.extend(proc.locals.iter().enumerate().map(|(i, v)| {
                if self.live_at_entry(p, i) || matches!(v.init, Init::Value(_)) {
                    init_mask(v.init)
                } else {
                    CAN_F
                }
            }));
        }
        for_each_combo(&masks, |combo| {
            let mut rest = combo;
            let mut threads = Vec::new();
            for &p in procs {
                let n = self.program.procs[p as usize].locals.len();
                let (mine, more) = rest.split_at(n);
                rest = more;
                threads.push(Thread {
                    stack: super::Stack::new(self.entry_frame(p, mine)),
                    thread_locals: thread.thread_locals.clone(),
                    atomic: false,
                });
            }
            let st = State {
                globals: s.globals.clone(),
                threads: Arc::new(threads),
            };
            let moved: Vec<usize> = (0..procs.len()).collect();
            out.push(self.checked(st, &moved, Kind::ThreadStart, rec));
        });
    }

    /// Getafix layout: the thread that sets the global `atomic` owns the lock until it clears
    /// it; calls of `__VERIFIER_atomic…` procedures run without interruption.
    fn getafix_locks(&self, s: &State, tid: usize, proc: ProcId, outs: &mut [Outcome]) {
        for o in outs {
            let Outcome::Next { state, kind } = o else {
                continue;
            };
            let Some(t) = state.threads.get(tid) else {
                continue;
            };
            let mut owner = t.atomic;
            if let Some(g) = self.lock_global {
                let before = self.global(&s.globals, &s.threads[tid].thread_locals, g);
                let after = self.global(&state.globals, &t.thread_locals, g);
                if before != after {
                    owner = after.as_bool();
                }
            }
            match kind {
                Kind::Call => {
                    let callee = t.stack.top().map_or(proc, |f| f.proc);
                    if self.atomic_proc[callee as usize] {
                        owner = true;
                    }
                }
                Kind::Return if self.atomic_proc[proc as usize] => {
                    let locked = self.lock_global.is_some_and(|g| {
                        self.global(&state.globals, &t.thread_locals, g).as_bool()
                    });
                    owner = locked;
                }
                _ => {}
            }
            if owner != t.atomic {
                Arc::make_mut(&mut state.threads)[tid].atomic = owner;
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
    ) {
        let thread = &s.threads[tid];
        let Some(frame) = thread.stack.top() else {
            return;
        };
        let proc = &self.program.procs[frame.proc as usize];
        let node = &proc.nodes[frame.pc as usize];
        let env = Env::plain(&s.globals, &thread.thread_locals, &frame.locals);
        let next = || node.succ.first().copied().unwrap_or(frame.pc);
        match &node.stmt {
            Stmt::Skip => out.push(self.jump(s, tid, next(), rec)),
            Stmt::Goto => {
                for &pc in &node.succ {
                    out.push(self.jump(s, tid, pc, rec));
                }
            }
            Stmt::Branch { cond } => {
                let m = self.eval(cond, &env, rec);
                if m & CAN_T != 0 {
                    out.push(self.jump(s, tid, node.succ[0], rec));
                }
                if m & CAN_F != 0 {
                    out.push(self.jump(s, tid, node.succ[1], rec));
                }
            }
            Stmt::Assume { cond } => {
                if self.eval(cond, &env, rec) & CAN_T != 0 {
                    out.push(self.jump(s, tid, next(), rec));
                } else {
                    out.push(Outcome::Pruned);
                }
            }
            Stmt::Assert { cond } => {
                let m = self.eval(cond, &env, rec);
                if self.semantics.check_assertions && m & CAN_F != 0 {
                    out.push(Outcome::Violation(Violation::Assertion));
                }
                if m & CAN_T != 0 {
                    out.push(self.jump(s, tid, next(), rec));
                } else if !self.semantics.check_assertions {
                    out.push(Outcome::Pruned);
                }
            }
            Stmt::Assign {
                targets,
                values,
                constrain,
            } => {
                let masks: Vec<Mask> = values.iter().map(|v| self.eval(v, &env, rec)).collect();
                self.record_writes(targets.iter().flatten(), rec);
                for_each_combo(&masks, |combo| {
                    let mut post = Post::new(self, s, thread, &frame.locals);
                    for (t, &v) in targets.iter().zip(combo) {
                        if let Some(t) = t {
                            post.set(t, Value::Bool(v));
                        }
                    }
                    if let Some(c) = constrain {
                        let env2 = Env {
                            new_globals: post.globals(),
                            new_thread_locals: post.tl(),
                            new_locals: &post.locals,
                            ..Env::plain(&s.globals, &thread.thread_locals, &frame.locals)
                        };
                        if self.eval(c, &env2, rec) & CAN_T == 0 {
                            out.push(Outcome::Pruned);
                            return;
                        }
                    }
                    out.push(self.commit(s, tid, post, next(), Kind::Internal, rec));
                });
            }
            Stmt::Havoc { targets } => {
                self.record_writes(targets.iter(), rec);
                let masks = vec![ANY; targets.len()];
                for_each_combo(&masks, |combo| {
                    let mut post = Post::new(self, s, thread, &frame.locals);
                    for (t, &v) in targets.iter().zip(combo) {
                        post.set(t, Value::Bool(v));
                    }
                    out.push(self.commit(s, tid, post, next(), Kind::Internal, rec));
                });
            }
            Stmt::Constrain { expr } => self.constrain_all(s, tid, expr, next(), rec, out),
            Stmt::Call { callee, args, .. } => {
                let masks = self.entry_masks(*callee, args, &env, rec);
                for_each_combo(&masks, |combo| {
                    let callee_frame = self.entry_frame(*callee, combo);
                    let mut st = s.clone();
                    let threads = Arc::make_mut(&mut st.threads);
                    threads[tid].stack = threads[tid].stack.push(callee_frame);
                    out.push(self.checked(st, &[tid], Kind::Call, rec));
                });
            }
            Stmt::Return { .. } => {
                let results = self.return_values(s, tid, rec);
                if thread.stack.depth() <= 1 {
                    // the thread's bottom frame returns: the thread ends, results discarded
                    out.push(self.end_thread(s, tid));
                    return;
                }
                for vals in &results {
                    out.push(self.finish_return(s, tid, vals, rec));
                }
            }
            Stmt::StartThread { callee, args } => {
                let masks = self.entry_masks(*callee, args, &env, rec);
                for_each_combo(&masks, |combo| {
                    let child = Thread {
                        stack: super::Stack::new(self.entry_frame(*callee, combo)),
                        thread_locals: thread.thread_locals.clone(),
                        atomic: false,
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
                };
                out.push(self.spawn(s, tid, node.succ[0], child, rec));
            }
            Stmt::EndThread => out.push(self.end_thread(s, tid)),
            Stmt::AtomicBegin | Stmt::AtomicEnd => {
                let mut st = s.clone();
                let threads = Arc::make_mut(&mut st.threads);
                threads[tid].atomic = matches!(node.stmt, Stmt::AtomicBegin);
                let f = Frame {
                    pc: next(),
                    ..frame.clone()
                };
                threads[tid].stack = threads[tid].stack.with_top(f);
                out.push(self.checked(st, &[tid], Kind::Internal, rec));
            }
        }
    }

    /// The result tuples the `return` at thread `tid`'s top frame can produce, in the order in
    /// which [`Machine::step`] lists the corresponding outcomes.
    pub fn return_values<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        rec: &mut R,
    ) -> Vec<Box<[Value]>> {
        let thread = &s.threads[tid];
        let Some(frame) = thread.stack.top() else {
            return Vec::new();
        };
        let proc = &self.program.procs[frame.proc as usize];
        let env = Env::plain(&s.globals, &thread.thread_locals, &frame.locals);
        let masks: Vec<Mask> = match &proc.nodes[frame.pc as usize].stmt {
            Stmt::Return { values: Some(v) } => v.iter().map(|e| self.eval(e, &env, rec)).collect(),
            _ => vec![ANY; proc.returns.len()],
        };
        let mut all = Vec::new();
        for_each_combo(&masks, |combo| {
            all.push(combo.iter().map(|&b| Value::Bool(b)).collect());
        });
        all
    }

    /// Pops thread `tid`'s top frame and completes the caller's call: the results go to the
    /// call's receivers (after the callee's own writes), the caller moves past the call, and the
    /// caller's `enforce` invariant is checked.
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
        self.record_writes(results.iter().flatten(), rec);
        let mut post = Post::new(self, s, thread, &caller.locals);
        for (r, &v) in results.iter().zip(vals) {
            if let Some(r) = r {
                post.set(r, v);
            }
        }
        let mut st = s.clone();
        let frame = Frame {
            proc: caller.proc,
            pc: call.succ[0],
            locals: post.locals,
        };
        if let Some(g) = post.globals {
            st.globals = g.into();
        }
        let threads = Arc::make_mut(&mut st.threads);
        if let Some(tl) = post.tl {
            threads[tid].thread_locals = tl.into();
        }
        threads[tid].stack = below.with_top(frame);
        self.checked(st, &[tid], Kind::Return, rec)
    }

    fn record_writes<'l, R: Recorder>(&self, lvs: impl Iterator<Item = &'l LValue>, rec: &mut R) {
        for lv in lvs {
            if let LValue::Global(i) = lv {
                rec.write(Loc {
                    addr: GLOBALS,
                    field: *i,
                });
            }
        }
    }

    /// The value sets of a call's arguments followed by those of the callee's other locals.
    fn entry_masks<R: Recorder>(
        &self,
        callee: ProcId,
        args: &[zingrs_lang::ir::Expr],
        env: &Env,
        rec: &mut R,
    ) -> Vec<Mask> {
        let p = &self.program.procs[callee as usize];
        let mut masks: Vec<Mask> = args.iter().map(|a| self.eval(a, env, rec)).collect();
        let first = p.params as usize;
        masks.extend(p.locals[first..].iter().enumerate().map(|(i, v)| {
            if self.live_at_entry(callee, first + i) || matches!(v.init, Init::Value(_)) {
                init_mask(v.init)
            } else {
                CAN_F
            }
        }));
        masks
    }

    fn entry_frame(&self, callee: ProcId, combo: &[bool]) -> Frame {
        let p = &self.program.procs[callee as usize];
        let locals = p
            .locals
            .iter()
            .zip(combo)
            .map(|(v, &b)| match v.ty {
                Type::Bool => Value::Bool(b),
                other => Self::default_value(other),
            })
            .collect();
        Frame {
            proc: callee,
            pc: 0,
            locals,
        }
    }

    /// Moves thread `tid` to `pc` without changing any variable.
    fn jump<R: Recorder>(&self, s: &State, tid: usize, pc: Pc, rec: &mut R) -> Outcome {
        let mut st = s.clone();
        let threads = Arc::make_mut(&mut st.threads);
        let top = threads[tid]
            .stack
            .top()
            .expect("running thread has a frame");
        let f = Frame { pc, ..top.clone() };
        threads[tid].stack = threads[tid].stack.with_top(f);
        self.checked(st, &[tid], Kind::Internal, rec)
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
        let mut st = s.clone();
        if let Some(g) = post.globals {
            st.globals = g.into();
        }
        let threads = Arc::make_mut(&mut st.threads);
        if let Some(tl) = post.tl {
            threads[tid].thread_locals = tl.into();
        }
        let top = threads[tid]
            .stack
            .top()
            .expect("running thread has a frame");
        let f = Frame {
            proc: top.proc,
            pc,
            locals: post.locals,
        };
        threads[tid].stack = threads[tid].stack.with_top(f);
        self.checked(st, &[tid], kind, rec)
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
        let threads = Arc::make_mut(&mut st.threads);
        let top = threads[tid]
            .stack
            .top()
            .expect("running thread has a frame");
        let f = Frame { pc, ..top.clone() };
        threads[tid].stack = threads[tid].stack.with_top(f);
        threads.push(child);
        let new = threads.len() - 1;
        self.checked(st, &[tid, new], Kind::ThreadStart, rec)
    }

    fn end_thread(&self, s: &State, tid: usize) -> Outcome {
        let mut st = s.clone();
        Arc::make_mut(&mut st.threads).remove(tid);
        Outcome::Next {
            state: st,
            kind: Kind::ThreadEnd,
        }
    }

    /// Stand-alone `constrain e`: every visible variable takes new values making `e` possible.
    fn constrain_all<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        expr: &zingrs_lang::ir::Expr,
        pc: Pc,
        rec: &mut R,
        out: &mut Vec<Outcome>,
    ) {
        let thread = &s.threads[tid];
        let frame = thread.stack.top().expect("running thread has a frame");
        let globals: Vec<LValue> = (0..self.program.globals.len() as u32)
            .map(LValue::Global)
            .collect();
        let locals: Vec<LValue> = (0..frame.locals.len() as u32).map(LValue::Local).collect();
        let all: Vec<&LValue> = globals.iter().chain(locals.iter()).collect();
        self.record_writes(globals.iter(), rec);
        let masks = vec![ANY; all.len()];
        for_each_combo(&masks, |combo| {
            let mut post = Post::new(self, s, thread, &frame.locals);
            for (t, &v) in all.iter().zip(combo) {
                post.set(t, Value::Bool(v));
            }
            let env = Env {
                new_globals: post.globals(),
                new_thread_locals: post.tl(),
                new_locals: &post.locals,
                ..Env::plain(&s.globals, &thread.thread_locals, &frame.locals)
            };
            if self.eval(expr, &env, rec) & CAN_T == 0 {
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
                let env = Env::plain(&st.globals, &thread.thread_locals, &frame.locals);
                self.eval(inv, &env, rec) & CAN_T != 0
            }
        }
    }
}
