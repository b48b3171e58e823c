//! Type checking of operators (zing-language.md §3 and §5.2): unary and binary operators,
//! their operand types, numeric promotion and the result type.

use super::ast::*;
use super::check_stmt::Checker;
use super::types::{binary_promotion, Type};
use crate::diag::Diagnostic;

impl Checker<'_> {
    pub(super) fn unary(&mut self, op: UnOp, inner: &mut Expr) -> Type {
        let t = self.expr(inner);
        if t == Type::Error {
            return t;
        }
        match op {
            UnOp::Not => {
                if t != Type::Bool {
                    self.error(
                        inner.span,
                        format!("`!` needs `bool`, found `{}`", self.tn(t)),
                        "expected `bool`",
                    );
                    return Type::Error;
                }
                Type::Bool
            }
            UnOp::Neg | UnOp::Plus | UnOp::BitNot => {
                if !t.is_integer() {
                    let sym = match op {
                        UnOp::Neg => "-",
                        UnOp::Plus => "+",
                        _ => "~",
                    };
                    self.error(
                        inner.span,
                        format!("`{sym}` needs an integer, found `{}`", self.tn(t)),
                        "expected an integer",
                    );
                    return Type::Error;
                }
                let p = t.promoted();
                if op == UnOp::Neg {
                    if let ExprKind::Int(v) = inner.kind {
                        return if v <= 1u64 << 31 {
                            Type::Int
                        } else {
                            Type::Long
                        };
                    }
                    return match p {
                        Type::UInt => Type::Long,
                        Type::ULong => {
                            self.error(
                                inner.span,
                                "cannot negate a `ulong`",
                                "unsigned 64-bit value",
                            );
                            Type::Error
                        }
                        p => p,
                    };
                }
                p
            }
        }
    }

    /// Whether `t` can be an arithmetic operand (integers; enums convert to `int`).
    fn numeric(t: Type) -> bool {
        t.is_integer() || matches!(t, Type::Enum(_))
    }

    pub(super) fn binary(
        &mut self,
        span: crate::ir::Span,
        op: BinOp,
        l: &mut Expr,
        r: &mut Expr,
    ) -> Type {
        let lt = self.expr(l);
        let rt = self.expr(r);
        if lt == Type::Error || rt == Type::Error {
            return match op {
                BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::Eq
                | BinOp::Ne
                | BinOp::And
                | BinOp::Or => Type::Bool,
                _ => Type::Error,
            };
        }
        let sym = op.symbol();
        if matches!(lt, Type::Set(_)) || matches!(rt, Type::Set(_)) {
            let note = if matches!(op, BinOp::Add | BinOp::Sub) {
                "sets are updated in place by the statements `s = s + e;` and `s = s - e;`"
            } else {
                "sets can be assigned, passed, and used with `in`, `sizeof`, `choose` and `foreach`"
            };
            self.diags.push(
                Diagnostic::error(span, format!("operator `{sym}` cannot be applied to a set"))
                    .with_label("set operand")
                    .with_note(note),
            );
            return Type::Error;
        }
        let mismatch = |ck: &mut Self| {
            let msg = format!(
                "operator `{sym}` cannot be applied to `{}` and `{}`",
                ck.tn(lt),
                ck.tn(rt)
            );
            ck.error(span, msg, "mismatched operand types");
            Type::Error
        };
        let lit = |e: &Expr| matches!(e.kind, ExprKind::Int(_));
        match op {
            BinOp::And | BinOp::Or => {
                if lt == Type::Bool && rt == Type::Bool {
                    Type::Bool
                } else {
                    let bad = if lt != Type::Bool {
                        (l.span, lt)
                    } else {
                        (r.span, rt)
                    };
                    self.error(
                        bad.0,
                        format!("`{sym}` needs `bool` operands, found `{}`", self.tn(bad.1)),
                        "expected `bool`",
                    );
                    Type::Bool
                }
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
                if lt == Type::Bool && rt == Type::Bool =>
            {
                Type::Bool
            }
            BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Add
            | BinOp::Sub
            | BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor => {
                if !Self::numeric(lt) || !Self::numeric(rt) {
                    return mismatch(self);
                }
                match binary_promotion(lt, rt, lit(l), lit(r)) {
                    Some(t) => t,
                    None => mismatch(self),
                }
            }
            BinOp::Shl | BinOp::Shr => {
                if !Self::numeric(lt) || !Self::numeric(rt) {
                    return mismatch(self);
                }
                if !self.convertible(rt, Type::Int, r, false) {
                    self.error(
                        r.span,
                        format!("shift count must be `int`, found `{}`", self.tn(rt)),
                        "expected `int`",
                    );
                }
                lt.promoted()
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                if let (Type::Enum(a), Type::Enum(b)) = (lt, rt) {
                    if a != b {
                        mismatch(self);
                        return Type::Bool;
                    }
                    return Type::Bool;
                }
                if !Self::numeric(lt)
                    || !Self::numeric(rt)
                    || binary_promotion(lt, rt, lit(l), lit(r)).is_none()
                {
                    mismatch(self);
                }
                Type::Bool
            }
            BinOp::Eq | BinOp::Ne => {
                let ok = match (lt, rt) {
                    (Type::Bool, Type::Bool) => true,
                    (Type::Enum(a), Type::Enum(b)) => a == b,
                    (a, b) if Self::numeric(a) && Self::numeric(b) => {
                        binary_promotion(a, b, lit(l), lit(r)).is_some()
                    }
                    (a, b) if a.is_reference() && b.is_reference() => {
                        self.convertible(a, b, r, false) || self.convertible(b, a, l, false)
                    }
                    _ => false,
                };
                if !ok {
                    let msg = format!("cannot compare `{}` with `{}`", self.tn(lt), self.tn(rt));
                    let label = if matches!(lt, Type::Struct(_)) || matches!(rt, Type::Struct(_)) {
                        "struct values cannot be compared"
                    } else {
                        "incompatible operand types"
                    };
                    self.error(span, msg, label);
                }
                Type::Bool
            }
        }
    }
}
