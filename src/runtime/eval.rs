//! Expression evaluation over value *sets*.
//!
//! A boolean expression evaluates to the set of values it can take (bp-language.md §5.3): a
//! two-bit mask, bit 0 "can be false", bit 1 "can be true". Every `*` occurrence is an
//! independent fresh bit, so lifting each operator to sets is exact, and a statement needs one
//! evaluation instead of one per combination of nondeterministic bits.

use super::fault::{non_null, Access, Fault};
use super::record::Recorder;
use super::state::Heap;
use super::value::{Loc, Value, GLOBALS};
use super::Machine;
use zingrs_lang::ir::{ArithOp, BinOp, CmpOp, Const, Expr, Type, UnOp};

/// Runtime errors (zing-language.md §7.1), each a verdict with exit code 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtError {
    NullDereference,
    DivideByZero,
    ArithmeticOverflow,
    IndexOutOfRange,
    InvalidChoose,
    InvalidBlockingSelect,
    UnhandledException,
    /// A reference used at a type it does not have (an unchecked `object` conversion).
    TypeMismatch,
    /// A `wait` predicate method failed an assertion or did not return.
    PredicateFailed,
    /// An atomic region ran more steps than `Semantics::max_atomic_steps` (a million by
    /// default).
    InfiniteLoop,
}

impl RtError {
    /// The message users of ZING know.
    pub fn describe(self) -> &'static str {
        match self {
            RtError::NullDereference => "null dereference",
            RtError::DivideByZero => "divide by zero",
            RtError::ArithmeticOverflow => "arithmetic overflow",
            RtError::IndexOutOfRange => "index out of range",
            RtError::InvalidChoose => "invalid choose (no alternative)",
            RtError::InvalidBlockingSelect => "invalid blocking select (inside an atomic region)",
            RtError::UnhandledException => "unhandled exception",
            RtError::TypeMismatch => "a reference used at a type it does not have",
            RtError::PredicateFailed => "a `wait` predicate failed an assertion or did not return",
            RtError::InfiniteLoop => "infinite loop inside an atomic region (over 1,000,000 steps, or --max-atomic-steps)",
        }
    }
}

/// The range of values of an integer type, as `(min, max)`.
pub fn int_bounds(ty: Type) -> (i128, i128) {
    match ty {
        Type::Int { bits, signed: true } => {
            let b = bits.clamp(1, 64) as u32;
            (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
        }
        Type::Int {
            bits,
            signed: false,
        } => (0, (1i128 << bits.clamp(1, 64)) - 1),
        // enums and ranges compute in `int`
        _ => (i32::MIN as i128, i32::MAX as i128),
    }
}

fn int_bits(ty: Type) -> (u32, bool) {
    match ty {
        Type::Int { bits, signed } => (bits.clamp(8, 64) as u32, signed),
        _ => (32, true),
    }
}

/// Brings a value into the range of `ty` by two's-complement wrap-around.
fn wrap(v: i128, ty: Type) -> i128 {
    let (bits, signed) = int_bits(ty);
    let m = v & ((1i128 << bits) - 1);
    if signed && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

fn checked(v: i128, ty: Type) -> Result<Value, RtError> {
    let (lo, hi) = int_bounds(ty);
    if v < lo || v > hi {
        Err(RtError::ArithmeticOverflow)
    } else {
        Ok(Value::Int(v as i64))
    }
}

fn int_of(v: Value) -> i128 {
    match v {
        Value::Int(i) => i as i128,
        Value::Bool(b) => b as i128,
        Value::Ref(_) | Value::Null => 0,
    }
}

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
    pub heap: &'a Heap,
    pub globals: &'a [Value],
    pub thread_locals: &'a [Value],
    pub locals: &'a [Value],
    pub new_globals: &'a [Value],
    pub new_thread_locals: &'a [Value],
    pub new_locals: &'a [Value],
    /// In a broadcast assignment: the passive thread's top-frame locals before and after the
    /// step (`y$` and `'y$`); empty elsewhere, where the front end admits no passive names.
    pub passive: &'a [Value],
    pub new_passive: &'a [Value],
    /// The executing process (`self`).
    pub self_id: u32,
}

impl<'a> Env<'a> {
    /// An environment without a post-state (primed names read the current values).
    pub fn plain(
        heap: &'a Heap,
        globals: &'a [Value],
        thread_locals: &'a [Value],
        locals: &'a [Value],
    ) -> Self {
        Env {
            heap,
            globals,
            thread_locals,
            locals,
            new_globals: globals,
            new_thread_locals: thread_locals,
            new_locals: locals,
            passive: &[],
            new_passive: &[],
            self_id: 0,
        }
    }
}

impl Machine<'_> {
    /// Every value `e` can take (in a fixed order: false before true), or the runtime error its
    /// evaluation raises. Only boolean expressions with `*`/`schoose` have more than one.
    pub fn values<R: Recorder>(
        &self,
        e: &Expr,
        env: &Env,
        rec: &mut R,
    ) -> Result<Vec<Value>, RtError> {
        if e.is_nondet() {
            let m = self.eval(e, env, rec);
            let mut v = Vec::with_capacity(2);
            if m & CAN_F != 0 {
                v.push(Value::Bool(false));
            }
            if m & CAN_T != 0 {
                v.push(Value::Bool(true));
            }
            Ok(v)
        } else {
            self.value(e, env, rec).map(|v| vec![v])
        }
    }

    /// The booleans among [`Machine::values`] of `e`, as a mask (`CAN_T`, `CAN_F`): what a
    /// branch, an assumption or an assertion asks, without building the list.
    pub fn bool_values<R: Recorder>(
        &self,
        e: &Expr,
        env: &Env,
        rec: &mut R,
    ) -> Result<Mask, RtError> {
        if e.is_nondet() {
            Ok(self.eval(e, env, rec) & (CAN_F | CAN_T))
        } else {
            Ok(match self.value(e, env, rec)? {
                Value::Bool(true) => CAN_T,
                Value::Bool(false) => CAN_F,
                _ => 0,
            })
        }
    }

    /// The value of a deterministic expression; reads of globals and fields are recorded.
    #[inline]
    pub fn value<R: Recorder>(&self, e: &Expr, env: &Env, rec: &mut R) -> Result<Value, RtError> {
        if e.is_leaf() {
            self.value_here(e, env, rec)
        } else {
            zingrs_lang::deep::grow(|| self.value_here(e, env, rec))
        }
    }

    fn value_here<R: Recorder>(&self, e: &Expr, env: &Env, rec: &mut R) -> Result<Value, RtError> {
        Ok(match e {
            Expr::Const(Const::Bool(b)) => Value::Bool(*b),
            Expr::Const(Const::Int(i)) => Value::Int(*i),
            Expr::Const(Const::Null) => Value::Null,
            Expr::Local(i) => env.locals[*i as usize],
            Expr::PrimedLocal(i) => env.new_locals[*i as usize],
            Expr::PassiveLocal(i) => env.passive[*i as usize],
            Expr::PrimedPassiveLocal(i) => env.new_passive[*i as usize],
            Expr::Global(i) => {
                rec.read(Loc {
                    addr: GLOBALS,
                    field: *i,
                });
                self.global(env.globals, env.thread_locals, *i)
            }
            Expr::PrimedGlobal(i) => {
                rec.read(Loc {
                    addr: GLOBALS,
                    field: *i,
                });
                self.global(env.new_globals, env.new_thread_locals, *i)
            }
            Expr::Nondet | Expr::Schoose(..) => {
                // only reached through `values`, which takes the set path for these
                let m = self.eval(e, env, rec);
                Value::Bool(m & CAN_T != 0)
            }
            Expr::Unary(UnOp::Not, a) => Value::Bool(!self.value(a, env, rec)?.as_bool()),
            // both operands are evaluated (Zing's `&&`/`||` lower to `?:`, which is lazy)
            Expr::Binary(op, a, b) => {
                let x = self.value(a, env, rec)?;
                let y = self.value(b, env, rec)?;
                Value::Bool(match op {
                    BinOp::And => x.as_bool() && y.as_bool(),
                    BinOp::Or => x.as_bool() || y.as_bool(),
                    BinOp::Eq => x == y,
                    BinOp::Ne | BinOp::Xor => x != y,
                    BinOp::Implies => !x.as_bool() || y.as_bool(),
                })
            }
            Expr::Ite(c, a, b) => {
                if self.value(c, env, rec)?.as_bool() {
                    self.value(a, env, rec)?
                } else {
                    self.value(b, env, rec)?
                }
            }
            Expr::Field(o, f) => {
                let obj = non_null(self.value(o, env, rec)?, o, Access::Read(*f), rec)?;
                return self.read_field(env.heap, obj, *f, rec);
            }
            Expr::Arith(op, ty, a, b) => {
                let x = int_of(self.value(a, env, rec)?);
                let y = int_of(self.value(b, env, rec)?);
                let (bits, _) = int_bits(*ty);
                // the exact result, checked against the type's range; the fault names this
                // operation and its operands, whatever expression it is part of
                let exact = |result: i128, rec: &mut R| {
                    checked(result, *ty).inspect_err(|_| {
                        rec.fault(|| Fault::Overflow {
                            expr: e.clone(),
                            op: *op,
                            lhs: x,
                            rhs: y,
                            result,
                            range: int_bounds(*ty),
                        })
                    })
                };
                return match op {
                    ArithOp::Add => exact(x + y, rec),
                    ArithOp::Sub => exact(x - y, rec),
                    ArithOp::Mul => exact(x * y, rec),
                    ArithOp::Div | ArithOp::Rem if y == 0 => {
                        rec.fault(|| Fault::DivideByZero {
                            expr: e.clone(),
                            op: *op,
                            lhs: x,
                        });
                        Err(RtError::DivideByZero)
                    }
                    ArithOp::Div => exact(x / y, rec),
                    ArithOp::Rem => exact(x % y, rec),
                    ArithOp::Shl => Ok(Value::Int(wrap(x << (y & (bits as i128 - 1)), *ty) as i64)),
                    ArithOp::Shr => Ok(Value::Int(wrap(x >> (y & (bits as i128 - 1)), *ty) as i64)),
                    ArithOp::BitAnd => Ok(Value::Int(wrap(x & y, *ty) as i64)),
                    ArithOp::BitOr => Ok(Value::Int(wrap(x | y, *ty) as i64)),
                    ArithOp::BitXor => Ok(Value::Int(wrap(x ^ y, *ty) as i64)),
                };
            }
            Expr::Neg(ty, a) => {
                let x = int_of(self.value(a, env, rec)?);
                return checked(-x, *ty).inspect_err(|_| {
                    rec.fault(|| Fault::Unary {
                        expr: e.clone(),
                        negate: true,
                        operand: x,
                        range: int_bounds(*ty),
                    })
                });
            }
            Expr::BitNot(ty, a) => Value::Int(wrap(!int_of(self.value(a, env, rec)?), *ty) as i64),
            Expr::Convert(ty, a) => match self.value(a, env, rec)? {
                Value::Int(i) => {
                    return checked(i as i128, *ty).inspect_err(|_| {
                        rec.fault(|| Fault::Unary {
                            expr: e.clone(),
                            negate: false,
                            operand: i as i128,
                            range: int_bounds(*ty),
                        })
                    })
                }
                other => other,
            },
            Expr::Cmp(op, a, b) => {
                let x = int_of(self.value(a, env, rec)?);
                let y = int_of(self.value(b, env, rec)?);
                Value::Bool(match op {
                    CmpOp::Lt => x < y,
                    CmpOp::Le => x <= y,
                    CmpOp::Gt => x > y,
                    CmpOp::Ge => x >= y,
                })
            }
            Expr::Elem(o, ix, w) => {
                let obj = self.value(o, env, rec)?;
                let i = int_of(self.value(ix, env, rec)?);
                let (a, field) = self.elem_loc(env.heap, obj, i, *w, (o, ix), rec)?;
                return self.read_field(env.heap, Value::Ref(a), field, rec);
            }
            Expr::Size(o, w) => {
                let obj = non_null(self.value(o, env, rec)?, o, Access::Size, rec)?;
                let (_, fields) = self.collection(env.heap, obj)?;
                Value::Int((fields.len() / (*w).max(1) as usize) as i64)
            }
            Expr::In(e, set) => {
                let v = self.value(e, env, rec)?;
                let obj = non_null(self.value(set, env, rec)?, set, Access::Membership, rec)?;
                let (_, fields) = self.collection(env.heap, obj)?;
                Value::Bool(fields.binary_search_by(|x| set_order(*x, v)).is_ok())
            }
            Expr::SelfId => Value::Int(env.self_id as i64),
            Expr::Call(callee, args) => return self.pure_call(*callee, args, env, rec),
            Expr::ClassIs(e, c) => {
                let obj = non_null(self.value(e, env, rec)?, e, Access::Call, rec)?;
                let (a, _) = self.collection(env.heap, obj)?;
                Value::Bool(env.heap.get(&a).is_some_and(|o| o.class == *c))
            }
        })
    }

    /// Runs a side-effect-free method to its return on a private copy of the state (the
    /// checker made sure it writes only its own locals and cannot block or choose).
    fn pure_call<R: Recorder>(
        &self,
        callee: u32,
        args: &[Expr],
        env: &Env,
        rec: &mut R,
    ) -> Result<Value, RtError> {
        use super::state::{Frame, Stack, State, Thread};
        use super::step::Outcome;
        let mut locals = Vec::new();
        for a in args {
            locals.push(self.value(a, env, rec)?);
        }
        let p = &self.program.procs[callee as usize];
        locals.extend(
            p.locals[args.len().min(p.locals.len())..]
                .iter()
                .map(|v| match v.init {
                    zingrs_lang::ir::Init::Value(c) => super::step::const_value(c),
                    zingrs_lang::ir::Init::Any => Self::default_value(v.ty),
                }),
        );
        // the callee runs as the calling process (`self`), behind completed placeholders
        let me = env.self_id as usize;
        let mut threads: Vec<std::rc::Rc<Thread>> = (0..me)
            .map(|_| {
                std::rc::Rc::new(Thread {
                    stack: Stack::default(),
                    thread_locals: env.thread_locals.into(),
                    atomic: false,
                    atomic_steps: 0,
                })
            })
            .collect();
        threads.push(std::rc::Rc::new(Thread {
            stack: Stack::new(Frame {
                proc: callee,
                pc: 0,
                locals: locals.into(),
            }),
            thread_locals: env.thread_locals.into(),
            atomic: false,
            atomic_steps: 0,
        }));
        let mut cur = State {
            globals: env.globals.into(),
            threads: threads.into(),
            heap: env.heap.clone(),
        };
        let mut out = Vec::new();
        for _ in 0..1_000_000 {
            let t = &cur.threads[me];
            let Some(f) = t.stack.top() else {
                break;
            };
            if t.stack.depth() == 1
                && matches!(
                    self.program.node(f.proc, f.pc).stmt,
                    zingrs_lang::ir::Stmt::Return { .. }
                )
            {
                let r = self.return_values(&cur, me, rec)?;
                return r
                    .first()
                    .and_then(|v| v.first().copied())
                    .ok_or(RtError::PredicateFailed);
            }
            out.clear();
            self.step(&cur, me, rec, &mut out);
            match out.drain(..).next() {
                Some(Outcome::Next { state, .. }) => cur = state,
                Some(Outcome::Violation(super::step::Violation::Runtime(e))) => return Err(e),
                _ => return Err(RtError::PredicateFailed),
            }
        }
        Err(RtError::PredicateFailed)
    }

    /// The address and fields of the collection object `obj` refers to.
    pub fn collection<'h>(
        &self,
        heap: &'h Heap,
        obj: Value,
    ) -> Result<(super::Addr, &'h [Value]), RtError> {
        let Value::Ref(a) = obj else {
            return Err(RtError::NullDereference);
        };
        let o = heap.get(&a).ok_or(RtError::NullDereference)?;
        Ok((a, &o.fields))
    }

    /// Where element `i` of the collection `obj` lives (`width` fields per element).
    /// `exprs` are the array and index expressions, for the fault of an index out of range.
    pub fn elem_loc<R: Recorder>(
        &self,
        heap: &Heap,
        obj: Value,
        i: i128,
        w: zingrs_lang::ir::Width,
        exprs: (&Expr, &Expr),
        rec: &mut R,
    ) -> Result<(super::Addr, u32), RtError> {
        let obj = non_null(obj, exprs.0, Access::Element, rec)?;
        let (a, fields) = self.collection(heap, obj)?;
        let n = (fields.len() / w.width.max(1) as usize) as i128;
        if i < 0 || i >= n {
            rec.fault(|| Fault::Index {
                array: exprs.0.clone(),
                index: exprs.1.clone(),
                value: i,
                length: n,
            });
            return Err(RtError::IndexOutOfRange);
        }
        Ok((a, (i as u32) * w.width + w.offset))
    }

    /// Field `f` of the object `obj` refers to.
    pub fn read_field<R: Recorder>(
        &self,
        heap: &Heap,
        obj: Value,
        f: u32,
        rec: &mut R,
    ) -> Result<Value, RtError> {
        let Value::Ref(a) = obj else {
            return Err(RtError::NullDereference);
        };
        rec.read(Loc { addr: a, field: f });
        let obj = heap.get(&a).ok_or(RtError::NullDereference)?;
        // an object without the field: a reference converted through `object` to a type it
        // does not have (§10 rule 20)
        obj.fields
            .get(f as usize)
            .copied()
            .ok_or(RtError::TypeMismatch)
    }

    /// The set of boolean values `e` can take in `env`; reads of globals are recorded.
    #[inline]
    pub fn eval<R: Recorder>(&self, e: &Expr, env: &Env, rec: &mut R) -> Mask {
        if e.is_leaf() {
            self.eval_here(e, env, rec)
        } else {
            zingrs_lang::deep::grow(|| self.eval_here(e, env, rec))
        }
    }

    fn eval_here<R: Recorder>(&self, e: &Expr, env: &Env, rec: &mut R) -> Mask {
        match e {
            Expr::Const(Const::Bool(b)) => mask_of(*b),
            Expr::Const(_) => CAN_F,
            Expr::Local(i) => mask_of(env.locals[*i as usize].as_bool()),
            Expr::PrimedLocal(i) => mask_of(env.new_locals[*i as usize].as_bool()),
            Expr::PassiveLocal(i) => mask_of(env.passive[*i as usize].as_bool()),
            Expr::PrimedPassiveLocal(i) => mask_of(env.new_passive[*i as usize].as_bool()),
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
            // deterministic non-boolean-program expressions: their single value (an error
            // reads as false here; `values` reports it)
            _ => match self.value(e, env, rec) {
                Ok(v) => mask_of(v.as_bool()),
                Err(_) => CAN_F,
            },
        }
    }
}

/// The order of set elements (zing-language.md §5.6): booleans false < true, integers and
/// enums by value, references by address (null first).
pub fn set_order(a: Value, b: Value) -> std::cmp::Ordering {
    fn key(v: Value) -> (u8, i64) {
        match v {
            Value::Null => (0, 0),
            Value::Bool(b) => (1, b as i64),
            Value::Int(i) => (1, i),
            Value::Ref(a) => (2, a as i64),
        }
    }
    key(a).cmp(&key(b))
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
