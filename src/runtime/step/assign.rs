//! Where assignments write, and what a local or a stand-alone `constrain` may take: the
//! targets of an assignment resolved (a field's object evaluated, the write recorded), a
//! local's values at procedure entry, and `constrain e` over every visible variable. The
//! statements themselves are in the parent module.

use super::post::{Post, Target};
use super::window::{for_each_product_in, Window};
use super::{const_value, Kind, Outcome, BOTH};
use crate::runtime::eval::{Env, RtError};
use crate::runtime::fault::{non_null, Access};
use crate::runtime::record::Recorder;
use crate::runtime::state::State;
use crate::runtime::value::{Loc, Value, GLOBALS};
use crate::runtime::Machine;
use zingrs_lang::ir::{Expr, Init, LValue, Pc, ProcId, Type};

impl Machine<'_> {
    /// The values a local starts with at procedure entry: its initialiser's, every boolean if
    /// it may be read before written, otherwise just its default.
    pub(super) fn local_alts(&self, proc: ProcId, i: usize) -> Vec<Value> {
        let v = &self.program.procs[proc as usize].locals[i];
        match (v.init, v.ty) {
            (Init::Value(c), _) => vec![const_value(c)],
            (Init::Any, Type::Bool) if self.live_at_entry(proc, i) => BOTH.to_vec(),
            (Init::Any, ty) => vec![Self::default_value(ty)],
        }
    }

    /// Resolves where an lvalue writes (the object of a field is evaluated now) and records
    /// the write.
    pub(super) fn target<R: Recorder>(
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

    /// Whether `c` can be true over thread `tid`'s step from `s` with the writes of `post`
    /// (primed names read the new values): a `constrain`'s test.
    pub(super) fn may_hold_after<R: Recorder>(
        &self,
        c: &Expr,
        s: &State,
        tid: usize,
        post: &Post,
        rec: &mut R,
    ) -> bool {
        let thread = &s.threads[tid];
        let frame = thread.stack.top().expect("running thread has a frame");
        let env = Env {
            new_globals: post.globals(),
            new_thread_locals: post.tl(),
            new_locals: &post.locals,
            ..Env::plain(&s.heap, &s.globals, &thread.thread_locals, &frame.locals)
        };
        self.eval(c, &env, rec) & super::CAN_T != 0
    }

    /// Stand-alone `constrain e`: every visible variable takes new values making `e` possible.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn constrain_all<R: Recorder>(
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
            if !self.may_hold_after(expr, s, tid, &post, rec) {
                out.push(Outcome::Pruned);
            } else {
                out.push(self.commit(s, tid, post, pc, Kind::Internal, rec));
            }
        });
    }
}
