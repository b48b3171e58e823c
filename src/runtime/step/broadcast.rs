//! Broadcast assignments of SatAbs's dialect (`x, y$ := e1, e2`): part of [`super`]'s
//! statement semantics, kept in a file of its own.
//!
//! The active thread's unsuffixed targets are assigned as in any assignment. Every *other*
//! live thread whose top frame runs the same procedure is passive: its slot `y` gets `e2`,
//! evaluated with unsuffixed names meaning the active thread's values and `$` names the
//! passive thread's own. A `*` is chosen independently per passive thread (the successors are
//! the product), and the `constrain` clause must be possibly true for every passive thread
//! (with no passive thread it holds vacuously).

use super::super::eval::{Env, RtError};
use super::super::state::{Frame, State};
use super::super::value::Value;
use super::super::Machine;
use super::{for_each_product, Kind, Outcome, Post, Violation};
use crate::runtime::record::Recorder;
use std::rc::Rc;
use zingrs_lang::ir::{Expr, LValue, Pc};

/// Every way of drawing one element from each list (the last varies fastest).
fn product<T: Clone>(lists: &[Vec<T>]) -> Vec<Vec<T>> {
    let mut out: Vec<Vec<T>> = vec![Vec::new()];
    for list in lists {
        out = out
            .iter()
            .flat_map(|prefix| {
                list.iter().map(move |x| {
                    let mut p = prefix.clone();
                    p.push(x.clone());
                    p
                })
            })
            .collect();
    }
    out
}

impl Machine<'_> {
    /// Executes a broadcast assignment of thread `tid` (see the module comment); one outcome
    /// per choice of the active values and of every passive thread's values.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn broadcast<R: Recorder>(
        &self,
        s: &State,
        tid: usize,
        targets: &[Option<LValue>],
        values: &[Expr],
        constrain: Option<&Expr>,
        pc: Pc,
        env: &Env,
        rec: &mut R,
        out: &mut Vec<Outcome>,
    ) -> Result<(), RtError> {
        let thread = &s.threads[tid];
        let frame = thread.stack.top().expect("running thread has a frame");
        let mut alts = Vec::new();
        let mut resolved = Vec::new();
        let mut passive: Vec<(u32, &Expr)> = Vec::new();
        for (t, v) in targets.iter().zip(values) {
            match t {
                Some(LValue::PassiveLocal(i)) => passive.push((*i, v)),
                _ => {
                    alts.push(self.values(v, env, rec)?);
                    resolved.push(self.target(t.as_ref(), env, rec)?);
                }
            }
        }
        // the passive threads: the reductions know (Program::has_passive) that such a step
        // touches them, so their locals need no record here
        let others: Vec<usize> = (0..s.threads.len())
            .filter(|&q| q != tid)
            .filter(|&q| {
                s.threads[q]
                    .stack
                    .top()
                    .is_some_and(|f| f.proc == frame.proc)
            })
            .collect();
        let mut failure = None;
        for_each_product(&alts, |combo| {
            if failure.is_some() {
                return;
            }
            let mut post = Post::new(self, s, thread, &frame.locals);
            for (&t, &v) in resolved.iter().zip(combo) {
                post.set(t, v);
            }
            // per passive thread, the locals it may have after the step
            let mut per: Vec<Vec<Rc<[Value]>>> = Vec::with_capacity(others.len());
            for &q in &others {
                let qf = s.threads[q].stack.top().expect("filtered on a top frame");
                let penv = Env {
                    passive: &qf.locals,
                    new_passive: &qf.locals,
                    ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
                };
                let mut palts = Vec::with_capacity(passive.len());
                for (_, v) in &passive {
                    match self.values(v, &penv, rec) {
                        Ok(vs) => palts.push(vs),
                        Err(e) => {
                            failure = Some(e);
                            return;
                        }
                    }
                }
                let mut news: Vec<Rc<[Value]>> = Vec::new();
                for_each_product(&palts, |pcombo| {
                    let mut nl: Vec<Value> = qf.locals.to_vec();
                    for ((slot, _), &v) in passive.iter().zip(pcombo) {
                        nl[*slot as usize] = v;
                    }
                    if let Some(c) = constrain {
                        let cenv = Env {
                            new_globals: post.globals(),
                            new_thread_locals: post.tl(),
                            new_locals: &post.locals,
                            passive: &qf.locals,
                            new_passive: &nl,
                            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
                        };
                        if self.eval(c, &cenv, rec) & super::super::CAN_T == 0 {
                            return;
                        }
                    }
                    news.push(nl.into());
                });
                if news.is_empty() {
                    // no choice satisfies the constraint for this passive thread
                    out.push(Outcome::Pruned);
                    return;
                }
                per.push(news);
            }
            let mut base = self.commit(s, tid, post, pc, Kind::Internal, rec);
            base.materialize(s);
            let Outcome::Next { state, kind } = base else {
                out.push(base);
                return;
            };
            for choice in product(&per) {
                let mut st = state.clone();
                for (&q, locals) in others.iter().zip(choice) {
                    let t = st.thread_mut(q);
                    let top = t.stack.top().expect("filtered on a top frame");
                    let (proc, at) = (top.proc, top.pc);
                    t.stack = t.stack.with_top(Frame {
                        proc,
                        pc: at,
                        locals,
                    });
                }
                // a passive thread's `enforce` invariant must still hold where it stands
                if others.iter().all(|&q| self.invariant_holds(&st, q, rec)) {
                    out.push(Outcome::Next { state: st, kind });
                } else {
                    out.push(Outcome::Pruned);
                }
            }
        });
        if let Some(e) = failure {
            out.push(Outcome::Violation(Violation::Runtime(e)));
        }
        Ok(())
    }
}
