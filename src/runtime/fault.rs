//! What a failing operation saw: the details of a runtime error, for the report.
//!
//! The search needs only the kind of a runtime error ([`RtError`], a small copyable value in
//! every outcome); the user needs to know which operation failed and on which values. The step
//! gives those to its [`Recorder`] as a [`Fault`] when the error happens (the engines' recorders
//! drop it without building it), and [`Machine::fault`] runs the failing step once more with a
//! recorder that keeps it.

use super::eval::RtError;
use super::record::Recorder;
use super::state::State;
use super::value::{Addr, Loc};
use super::Machine;
use zingrs_lang::ir::{ArithOp, Expr};

/// The details of one runtime error, with the failing (sub)expressions as IR expressions of
/// the running procedure.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// `array[index]` with the index's value outside `0..length`.
    Index {
        array: Expr,
        index: Expr,
        value: i128,
        length: i128,
    },
    /// A binary operation whose exact result `result` is outside `range`, its type's range.
    Overflow {
        expr: Expr,
        op: ArithOp,
        lhs: i128,
        rhs: i128,
        result: i128,
        range: (i128, i128),
    },
    /// `-operand` (or a conversion of `operand`, `negate == false`) outside `range`.
    Unary {
        expr: Expr,
        negate: bool,
        operand: i128,
        range: (i128, i128),
    },
    /// `lhs / rhs` or `lhs % rhs` with `rhs == 0`.
    DivideByZero { expr: Expr, op: ArithOp, lhs: i128 },
    /// `new A[expr]` with a length outside `0..=max`.
    Length { expr: Expr, value: i64, max: i64 },
    /// The reference `reference` is null where `access` needed an object.
    Null { reference: Expr, access: Access },
}

/// What an operation wanted from the object a null reference should have referred to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reading field `f`.
    Read(u32),
    /// Writing field `f`.
    Write(u32),
    /// An element (read or written).
    Element,
    /// `sizeof`.
    Size,
    /// `x in s`.
    Membership,
    /// `s += x`, `s -= x` and their set-valued forms.
    SetUpdate,
    /// `send`.
    Send,
    /// A `receive` in a `select`.
    Receive,
    /// `choose` of an element.
    Choose,
    /// A call dispatched on the object's class.
    Call,
}

/// `obj`, which an operation needs to be a reference: null (or any other value) records a
/// [`Fault::Null`] naming the expression `e` it came from and what `access` wanted.
pub fn non_null<R: Recorder>(
    obj: super::Value,
    e: &Expr,
    access: Access,
    rec: &mut R,
) -> Result<super::Value, RtError> {
    if matches!(obj, super::Value::Ref(_)) {
        return Ok(obj);
    }
    rec.fault(|| Fault::Null {
        reference: e.clone(),
        access,
    });
    Err(RtError::NullDereference)
}

impl Fault {
    /// The runtime error this fault raises.
    pub fn error(&self) -> RtError {
        match self {
            Fault::Index { .. } => RtError::IndexOutOfRange,
            Fault::Null { .. } => RtError::NullDereference,
            Fault::DivideByZero { .. } => RtError::DivideByZero,
            Fault::Overflow { .. } | Fault::Unary { .. } | Fault::Length { .. } => {
                RtError::ArithmeticOverflow
            }
        }
    }
}

/// A recorder that keeps the last fault a step reports and nothing else.
#[derive(Default)]
struct KeepFault(Option<Fault>);

impl Recorder for KeepFault {
    fn read(&mut self, _: Loc) {}
    fn write(&mut self, _: Loc) {}
    fn alloc(&mut self, _: Addr) {}
    fn fault(&mut self, f: impl FnOnce() -> Fault) {
        self.0 = Some(f());
    }
}

impl Machine<'_> {
    /// The details of the runtime error `error` that thread `tid`'s step from `s` raises, if
    /// the step says more than the error's kind.
    pub fn fault(&self, s: &State, tid: usize, error: RtError) -> Option<Fault> {
        let mut rec = KeepFault::default();
        self.step(s, tid, &mut rec, &mut Vec::new());
        rec.0.filter(|f| f.error() == error)
    }
}
