//! How a step's effect becomes a successor: installing the values a statement computed
//! ([`Machine::commit`]), plain moves and jumps, allocation, whole-collection rewrites, the
//! transfer of control a `raise` makes, and the `enforce` check on the threads that moved.
//! The statements themselves are in the parent module.

use super::post::Post;
use super::{Kind, Outcome};
use crate::runtime::eval::{Env, RtError};
use crate::runtime::moved::Move;
use crate::runtime::record::Recorder;
use crate::runtime::state::{Frame, State, Thread};
use crate::runtime::value::{Addr, Loc, Value};
use crate::runtime::Machine;
use smallvec::SmallVec;
use std::rc::Rc;
use zingrs_lang::ir::{LValue, Pc};

impl Machine<'_> {
    /// `target = new …`: stores `obj` at a fresh address, points `target` at it and moves
    /// thread `tid` to `pc`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn allocate<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        target: &LValue,
        obj: crate::runtime::state::Object,
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
    pub(super) fn rewrite<R: Recorder>(
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
    pub(super) fn raise(&self, s: &State, tid: usize, exception: u32) -> Result<Outcome, RtError> {
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

    /// Moves thread `tid` to `pc` without changing any variable (entering an atomic region if
    /// `atomic`).
    pub(super) fn jump<R: Recorder>(
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
    pub(super) fn jump_as<R: Recorder>(
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
    pub(super) fn moved<R: Recorder>(
        &self,
        s: &State,
        mv: Move,
        kind: Kind,
        rec: &mut R,
    ) -> Outcome {
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
    pub(super) fn commit<R: Recorder>(
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

    /// Applies the `enforce` check (bp-language.md §5.7) to the threads that moved.
    pub(super) fn checked<R: Recorder>(
        &self,
        st: State,
        moved: &[usize],
        kind: Kind,
        rec: &mut R,
    ) -> Outcome {
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
                self.eval(inv, &env, rec) & crate::runtime::CAN_T != 0
            }
        }
    }
}
