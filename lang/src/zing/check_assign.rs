//! Type checking of assignments (zing-language.md §4.3) and set updates (§4.11, `s = s + e;`
//! and friends), and the conversions an assignment, an argument or a return value may make.

use super::ast::*;
use super::check_stmt::Checker;
use super::tables::Info;
use super::types::{DeclId, Type};
use crate::diag::Diagnostic;

impl Checker<'_> {
    pub(super) fn assign(&mut self, targets: &mut [Expr], value: &mut Expr) {
        if targets.len() == 1 {
            if let Some(t) = targets.first_mut() {
                if self.set_update(t, value) {
                    return;
                }
            }
        }
        let mut vt = self.rhs(value);
        let value_span = value.span;
        for t in targets.iter_mut().rev() {
            let tt = self.lvalue(t);
            if vt == Type::Void {
                self.error(
                    value_span,
                    "this method returns no value",
                    "`void` result used in an assignment",
                );
            } else if !self.convertible(vt, tt, value, true) {
                self.error(
                    value_span,
                    format!("cannot assign `{}` to `{}`", self.tn(vt), self.tn(tt)),
                    format!("expected `{}`", self.tn(tt)),
                );
            }
            vt = tt;
        }
    }

    /// `s = s + e;` and friends (§4.11). Returns whether the statement was a set update.
    pub(super) fn set_update(&mut self, target: &mut Expr, value: &mut Expr) -> bool {
        let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), l, r) = &mut value.kind else {
            return false;
        };
        let op = *op;
        let tt = self.lvalue(target);
        if !matches!(tt, Type::Set(_)) {
            // Not a set target: undo nothing (lvalue only annotated) and check normally.
            let vt = self.expr(value);
            if !self.convertible(vt, tt, value, true) {
                self.error(
                    value.span,
                    format!("cannot assign `{}` to `{}`", self.tn(vt), self.tn(tt)),
                    format!("expected `{}`", self.tn(tt)),
                );
            }
            return true;
        }
        let (operand, set_side) = if same_lvalue(target, l) {
            (r, l)
        } else if same_lvalue(target, r) && op == BinOp::Add {
            (l, r)
        } else if same_lvalue(target, r) {
            self.diags.push(
                Diagnostic::warning(
                    value.span,
                    "set difference with the target second is read as `s = s - t`",
                )
                .with_label("operands swapped, as in the original ZING")
                .with_note("write the target set first to say what you mean"),
            );
            (l, r)
        } else {
            self.error(
                value.span,
                "a set can only be updated in place: write `s = s + e;` or `s = s - e;` with the target as an operand",
                "neither operand is the assigned set",
            );
            self.expr(l);
            self.expr(r);
            value.ty = tt;
            return true;
        };
        self.lvalue(set_side);
        let ot = self.expr(operand);
        let elem = self.t.elem(tt).unwrap_or(Type::Error);
        if ot != tt && !self.exact(ot, elem, operand) {
            self.error(
                operand.span,
                format!(
                    "cannot {} `{}` {} a set of `{}`",
                    if op == BinOp::Add { "add" } else { "remove" },
                    self.tn(ot),
                    if op == BinOp::Add { "to" } else { "from" },
                    self.tn(elem)
                ),
                format!("expected `{}` or `{}`", self.tn(elem), self.tn(tt)),
            );
        }
        value.ty = tt;
        true
    }

    /// Whether a value of type `from` (the expression `e`) may be stored where `to` is
    /// expected, reporting a mismatch as "cannot {verb} `from` to `to`".
    pub(super) fn assignable(&mut self, from: Type, to: Type, e: &Expr, verb: &str, stmt: bool) {
        if from == Type::Void {
            self.error(
                e.span,
                "this method returns no value",
                "`void` result used as a value",
            );
        } else if !self.convertible(from, to, e, stmt) {
            let msg = match verb {
                "initialize" => format!(
                    "cannot initialize `{}` with `{}`",
                    self.tn(to),
                    self.tn(from)
                ),
                "return" => format!(
                    "cannot return `{}` from a method returning `{}`",
                    self.tn(from),
                    self.tn(to)
                ),
                _ => format!("cannot convert `{}` to `{}`", self.tn(from), self.tn(to)),
            };
            self.error(e.span, msg, format!("expected `{}`", self.tn(to)));
        }
    }

    /// Implicit conversions (§3); `stmt` adds the assignment statement's numeric conversions.
    pub(super) fn convertible(&self, from: Type, to: Type, e: &Expr, stmt: bool) -> bool {
        use super::types::numeric_implicit;
        if from == to || from == Type::Error || to == Type::Error {
            return true;
        }
        let from_num = from.is_integer() || matches!(from, Type::Enum(_));
        if to.is_integer() && from_num {
            let widened = if matches!(from, Type::Enum(_)) {
                Type::Int
            } else {
                from
            };
            if numeric_implicit(widened, to) {
                return true;
            }
            if stmt {
                return true;
            }
            return literal_fits(e, to);
        }
        if to.is_reference() && from.is_reference() {
            return match (from, to) {
                (Type::Object, _) | (_, Type::Object) => true,
                (Type::Class(c), Type::Interface(i)) => self.t.implements(c, i),
                _ => false,
            };
        }
        false
    }

    /// Exact type match (send, receive, set elements, `in`), with literals fitting.
    pub(super) fn exact(&self, from: Type, to: Type, e: &Expr) -> bool {
        from == to
            || from == Type::Error
            || to == Type::Error
            || (to.is_integer() && literal_fits(e, to))
            || (to.normalized() == from.normalized() && from.is_integer())
    }

    /// Whether `t` is a class declared in the tables.
    pub(super) fn is_class(&self, d: DeclId) -> bool {
        matches!(self.t.info(d), Some(Info::Class { .. }))
    }
}

/// Whether `e` is a (possibly negated) integer literal whose value fits `to`.
pub(super) fn literal_fits(e: &Expr, to: Type) -> bool {
    let v = match &e.kind {
        ExprKind::Int(v) => *v as i128,
        ExprKind::Unary(UnOp::Neg, x) => match x.kind {
            ExprKind::Int(v) => -(v as i128),
            _ => return false,
        },
        _ => return false,
    };
    to.int_bounds().is_some_and(|(lo, hi)| lo <= v && v <= hi)
}

/// Whether two expressions denote textually the same lvalue (§10 rule 7).
fn same_lvalue(a: &Expr, b: &Expr) -> bool {
    crate::deep::grow(|| match (&a.kind, &b.kind) {
        (ExprKind::Name(x, _), ExprKind::Name(y, _)) => x.name == y.name,
        (ExprKind::This, ExprKind::This) => true,
        (
            ExprKind::Member {
                base: b1, name: n1, ..
            },
            ExprKind::Member {
                base: b2, name: n2, ..
            },
        ) => n1.name == n2.name && same_lvalue(b1, b2),
        (
            ExprKind::Index {
                base: b1,
                index: i1,
            },
            ExprKind::Index {
                base: b2,
                index: i2,
            },
        ) => same_lvalue(b1, b2) && same_lvalue(i1, i2),
        (ExprKind::Int(x), ExprKind::Int(y)) => x == y,
        _ => false,
    })
}
