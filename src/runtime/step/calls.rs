//! Calls and returns: the values a frame starts with, the result tuples of a `return`, and
//! the return that pops a frame and completes the caller's call.

use super::{for_each_product, Post};
use super::{Kind, Outcome, Violation, BOTH};
use crate::runtime::eval::{Env, RtError};
use crate::runtime::record::Recorder;
use crate::runtime::state::{Frame, State};
use crate::runtime::value::Value;
use crate::runtime::Machine;
use zingrs_lang::ir::{Expr, LValue, Pc, ProcId, Stmt, Type};

impl Machine<'_> {
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
        // (the summary engine returns through here, not through a step)
        if let Some(c) = &self.semantics.coverage {
            c.mark(frame.proc, frame.pc);
        }
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
    pub(super) fn one_value_if_dead(
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

    pub(super) fn entry_alts<R: Recorder>(
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
}
