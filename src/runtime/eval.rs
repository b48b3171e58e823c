//! Expression evaluation over value *sets*.
//!
//! A boolean expression evaluates to the set of values it can take (bp-language.md §5.3): a
//! two-bit mask, bit 0 "can be false", bit 1 "can be true". Every `*` occurrence is an
//! independent fresh bit, so lifting each operator to sets is exact, and a statement needs one
//! evaluation instead of one per combination of nondeterministic bits.

use super::record::Recorder;
use super::value::{Loc, Value, GLOBALS};
use super::Machine;
use zingrs_lang::ir::{BinOp, Const, Expr, UnOp};

/// A set of booleans: bit 0 = false is possible, bit 1 = true is possible.
pub type Mask = u8;
pub const CAN_F: Mask = 1;
pub const CAN_T: Mask = 2;
pub const ANY: Mask = 3;

#[inline]
pub fn mask_of(b: bool) -> Mask {
    if b {
        CAN_T
    } else {
        CAN_F
    }
}

/// Where the variables of an expression live. `new_*` are the values after the step, read by
/// primed names inside constraints.
pub struct Env<'a> {
    pub globals: &'a [Value],
    pub thread_locals: &'a [Value],
    pub locals: &'a [Value],
    pub new_globals: &'a [Value],
    pub new_thread_locals: &'a [Value],
    pub new_locals: &'a [Value],
}

impl<'a> Env<'a> {
    /// An environment without a post-state (primed names read the current values).
    pub fn plain(globals: &'a [Value], thread_locals: &'a [Value], locals: &'a [Value]) -> Self {
        Env {
            globals,
            thread_locals,
            locals,
            new_globals: globals,
            new_thread_locals: thread_locals,
            new_locals: locals,
        }
    }
}

impl Machine<'_> {
    /// The set of boolean values `e` can take in `env`; reads of globals are recorded.
    pub fn eval<R: Recorder>(&self, e: &Expr, env: &Env, rec: &mut R) -> Mask {
        match e {
            Expr::Const(Const::Bool(b)) => mask_of(*b),
            Expr::Const(_) => CAN_F,
            Expr::Local(i) => mask_of(env.locals[*i as usize].as_bool()),
            Expr::PrimedLocal(i) => mask_of(env.new_locals[*i as usize].as_bool()),
            Expr::Global(i) => {
                rec.read(Loc {
                    addr: GLOBALS,
                    field: *i,
                });
                mask_of(self.global(env.globals, env.thread_locals, *i).as_bool())
            }
            Expr::PrimedGlobal(i) => {
                rec.read(Loc {
                    addr: GLOBALS,
                    field: *i,
                });
                mask_of(
                    self.global(env.new_globals, env.new_thread_locals, *i)
                        .as_bool(),
                )
            }
            Expr::Nondet => ANY,
            Expr::Unary(UnOp::Not, a) => not(self.eval(a, env, rec)),
            Expr::Binary(op, a, b) => {
                let a = self.eval(a, env, rec);
                let b = self.eval(b, env, rec);
                binary(*op, a, b)
            }
            Expr::Ite(c, a, b) => {
                let c = self.eval(c, env, rec);
                let a = self.eval(a, env, rec);
                let b = self.eval(b, env, rec);
                (if c & CAN_T != 0 { a } else { 0 }) | (if c & CAN_F != 0 { b } else { 0 })
            }
            Expr::Schoose(a, b) => {
                // schoose[a, b] = a | (!b & *)
                let a = self.eval(a, env, rec);
                let b = self.eval(b, env, rec);
                let nb_and_star = if b & CAN_F != 0 { ANY } else { CAN_F };
                binary(BinOp::Or, a, nb_and_star)
            }
        }
    }
}

#[inline]
fn not(m: Mask) -> Mask {
    ((m & CAN_F) << 1) | ((m & CAN_T) >> 1)
}

/// Lifts a boolean operator to value sets.
pub fn binary(op: BinOp, a: Mask, b: Mask) -> Mask {
    let mut out = 0;
    for x in [false, true] {
        if a & mask_of(x) == 0 {
            continue;
        }
        for y in [false, true] {
            if b & mask_of(y) == 0 {
                continue;
            }
            let v = match op {
                BinOp::And => x && y,
                BinOp::Or => x || y,
                BinOp::Xor | BinOp::Ne => x != y,
                BinOp::Eq => x == y,
                BinOp::Implies => !x || y,
            };
            out |= mask_of(v);
        }
    }
    out
}
