//! Lowering of expressions, assignment targets, assignments and calls (zing-language.md §3,
//! §4.3–§4.6, §5).

use super::ast::{self, BinOp as ZBin, CallTarget, ExprKind, MemberRes, NameRes, UnOp as ZUn};
use super::lower::{bounds, int_type, type_word, FieldSlot};
use super::lower_stmt::Body;
use super::types::Type as ZType;
use crate::ir::{self, ArithOp, BinOp, CmpOp, Const, Expr, LValue, Span, Stmt};

/// Stands in for an expression that was refused (lowering fails anyway).
const PLACEHOLDER: Expr = Expr::Const(Const::Bool(false));

impl Body<'_, '_> {
    // ---- names ------------------------------------------------------------------------

    /// The place a resolved simple name denotes.
    fn name_place(&self, res: NameRes) -> Option<LValue> {
        Some(match res {
            NameRes::Local(i) => LValue::Local(self.local_base + i),
            NameRes::Param(i) => LValue::Local(*self.param_slot.get(i as usize)?),
            NameRes::Field { class, index } | NameRes::Static { class, index } => {
                match self.cx.field_slot(class, index)? {
                    FieldSlot::Instance(f) => LValue::Field(Box::new(Expr::Local(0)), f),
                    FieldSlot::Static(g) => LValue::Global(g),
                }
            }
            NameRes::Unresolved | NameRes::Method { .. } | NameRes::Type(_) => return None,
        })
    }

    /// The place `base.name` denotes (`None`: not a field, or refused).
    fn member_place(&mut self, base: &ast::Expr, res: MemberRes, span: Span) -> Option<LValue> {
        match res {
            MemberRes::Field { class, index } | MemberRes::Static { class, index } => {
                match self.cx.field_slot(class, index)? {
                    FieldSlot::Instance(f) => Some(LValue::Field(Box::new(self.expr(base)), f)),
                    FieldSlot::Static(g) => Some(LValue::Global(g)),
                }
            }
            MemberRes::StructField { .. } => {
                self.cx
                    .unsupported(span, "struct", "struct fields are not lowered yet");
                None
            }
            _ => None,
        }
    }

    /// An assignment target, `out` argument or `receive` target.
    pub(super) fn lvalue(&mut self, e: &ast::Expr) -> LValue {
        let place = match &e.kind {
            ExprKind::Name(_, res) => self.name_place(*res),
            ExprKind::Member { base, res, .. } => self.member_place(base, *res, e.span),
            ExprKind::Index { .. } => {
                self.cx
                    .unsupported(e.span, "a[i]", "array elements are not lowered yet");
                None
            }
            _ => None,
        };
        place.unwrap_or(LValue::Local(0))
    }

    // ---- expressions ------------------------------------------------------------------

    /// A value expression.
    pub(super) fn expr(&mut self, e: &ast::Expr) -> Expr {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(v) => match i64::try_from(*v) {
                Ok(v) => Expr::Const(Const::Int(v)),
                Err(_) => {
                    self.cx.unsupported(
                        span,
                        "ulong literal",
                        "integers above the largest `long` are not lowered yet",
                    );
                    PLACEHOLDER
                }
            },
            ExprKind::Bool(b) => Expr::Const(Const::Bool(*b)),
            ExprKind::Null => Expr::Const(Const::Null),
            ExprKind::This => Expr::Local(0),
            ExprKind::Str(_) => PLACEHOLDER,
            ExprKind::SelfId => {
                self.cx
                    .unsupported(span, "self", "process identifiers are not lowered yet");
                PLACEHOLDER
            }
            ExprKind::Name(_, res) => self.name_place(*res).map_or(PLACEHOLDER, place_expr),
            ExprKind::Member { base, res, .. } => match res {
                MemberRes::EnumMember { ordinal, .. } => Expr::Const(Const::Int(*ordinal as i64)),
                res => self
                    .member_place(base, *res, span)
                    .map_or(PLACEHOLDER, place_expr),
            },
            ExprKind::Index { .. } => {
                self.cx
                    .unsupported(span, "a[i]", "array elements are not lowered yet");
                PLACEHOLDER
            }
            ExprKind::Call { .. } => {
                self.cx.unsupported(
                    span,
                    "wait(f(…))",
                    "method calls inside `wait` are not lowered yet",
                );
                PLACEHOLDER
            }
            ExprKind::New { .. } => {
                self.cx.unsupported(
                    span,
                    "new",
                    "`new` is lowered only as the whole right side of an assignment",
                );
                PLACEHOLDER
            }
            ExprKind::ChooseType(_) | ExprKind::Choose(_) => {
                self.cx.unsupported(
                    span,
                    "choose",
                    "`choose` is lowered only as the whole right side of an assignment",
                );
                PLACEHOLDER
            }
            ExprKind::Sizeof(_) => {
                self.cx.unsupported(
                    span,
                    "sizeof",
                    "sizes of channels, sets and arrays are not lowered yet",
                );
                PLACEHOLDER
            }
            ExprKind::In(..) => {
                self.cx
                    .unsupported(span, "in", "set membership is not lowered yet");
                PLACEHOLDER
            }
            ExprKind::Unary(op, x) => match op {
                ZUn::Plus => self.expr(x),
                ZUn::Not => Expr::not(self.expr(x)),
                ZUn::Neg => match self.expr(x) {
                    Expr::Const(Const::Int(v)) if v != i64::MIN => Expr::Const(Const::Int(-v)),
                    v => Expr::Neg(int_type(e.ty), Box::new(v)),
                },
                ZUn::BitNot => Expr::BitNot(int_type(e.ty), Box::new(self.expr(x))),
            },
            ExprKind::Binary(op, a, b) => {
                let bools = a.ty == ZType::Bool && b.ty == ZType::Bool;
                let (x, y) = (self.expr(a), self.expr(b));
                binary(*op, e.ty, bools, x, y)
            }
        }
    }

    /// `v` (of type `from`) as a value of type `to`: a checked [`Expr::Convert`] when `to`
    /// cannot hold every value of `from` (constants that fit need none).
    pub(super) fn convert(&self, v: Expr, from: ZType, to: ZType) -> Expr {
        let Some((lo, hi)) = bounds(to) else {
            return v;
        };
        if let Expr::Const(Const::Int(c)) = v {
            if lo <= c as i128 && c as i128 <= hi {
                return v;
            }
        }
        if matches!(to, ZType::Enum(_)) {
            return v;
        }
        match bounds(from) {
            Some((flo, fhi)) if lo <= flo && fhi <= hi => v,
            Some(_) => Expr::Convert(int_type(to), Box::new(v)),
            None => v,
        }
    }

    /// Whether every value of `from` fits `to` (so a result can be stored without a check).
    fn widens(from: ZType, to: ZType) -> bool {
        match (bounds(from), bounds(to)) {
            (Some((flo, fhi)), Some((lo, hi))) => {
                matches!(to, ZType::Enum(_)) || (lo <= flo && fhi <= hi)
            }
            _ => true,
        }
    }

    // ---- assignments ------------------------------------------------------------------

    /// `t1 = … = tn = value;` (targets with their types): a call, `choose` or `new` goes to
    /// `tn` and the other targets copy it in a second node; a plain value is one parallel
    /// assignment.
    pub(super) fn assign(&mut self, targets: Vec<(LValue, ZType)>, value: &ast::Expr, span: Span) {
        let Some((last, last_ty)) = targets.last().cloned() else {
            return;
        };
        let special = match &value.kind {
            ExprKind::Call { .. } => Some(self.call(value, Some((last.clone(), last_ty)), false)),
            ExprKind::ChooseType(_) | ExprKind::Choose(_) => {
                Some(self.choose(value, last.clone(), last_ty))
            }
            ExprKind::New { decl, .. } => {
                let class = decl.and_then(|d| self.cx.class_ix(d));
                match class {
                    Some(class) => Some(Stmt::New {
                        target: last.clone(),
                        class,
                    }),
                    None => {
                        let what = match value.ty {
                            ZType::Array(_) => "array",
                            ZType::Set(_) => "set",
                            ZType::Chan(_) => "chan",
                            _ => "new",
                        };
                        let tn = type_word(self.cx, value.ty);
                        self.cx.unsupported(
                            value.span,
                            what,
                            format!("allocating `{tn}` is not lowered yet"),
                        );
                        Some(Stmt::Skip)
                    }
                }
            }
            _ => None,
        };
        let (mut v, mut from, rest) = match special {
            Some(st) => {
                self.simple(st, span);
                if targets.len() == 1 {
                    return;
                }
                (place_expr(last), last_ty, &targets[..targets.len() - 1])
            }
            None => (self.expr(value), value.ty, &targets[..]),
        };
        let mut tgts = Vec::new();
        let mut vals = Vec::new();
        for (lv, ty) in rest.iter().rev() {
            v = self.convert(v, from, *ty);
            from = *ty;
            tgts.push(Some(lv.clone()));
            vals.push(v.clone());
        }
        tgts.reverse();
        vals.reverse();
        self.simple(
            Stmt::Assign {
                targets: tgts,
                values: vals,
                constrain: None,
            },
            span,
        );
    }

    /// `target = choose(…)`.
    fn choose(&mut self, e: &ast::Expr, target: LValue, target_ty: ZType) -> Stmt {
        let (ty, lo, hi, result) = match &e.kind {
            ExprKind::ChooseType(_) => (ir::Type::Bool, 0, 1, ZType::Bool),
            ExprKind::Choose(inner) => match &inner.kind {
                ExprKind::Name(_, NameRes::Type(d)) => {
                    if let Some(n) = self.cx.enum_len(*d) {
                        let ty = self.cx.ir_type(ZType::Enum(*d)).unwrap_or(ir::Type::Bool);
                        (ty, 0, n as i64 - 1, ZType::Enum(*d))
                    } else if let Some((lo, hi)) = self.cx.range_bounds(*d) {
                        (ir::Type::Range(lo, hi), lo, hi, ZType::Range(*d))
                    } else {
                        return self.refuse_choose(e);
                    }
                }
                _ => return self.refuse_choose(e),
            },
            _ => return self.refuse_choose(e),
        };
        let fits = match (result, bounds(target_ty)) {
            (ZType::Range(_), Some((tlo, thi))) => tlo <= lo as i128 && hi as i128 <= thi,
            _ => true,
        };
        if !fits {
            self.cx.unsupported(
                e.span,
                "narrowing choose",
                format!(
                    "the range does not fit `{}`; choose into an `int` and assign",
                    type_word(self.cx, target_ty)
                ),
            );
        }
        Stmt::Choose { target, ty, lo, hi }
    }

    fn refuse_choose(&mut self, e: &ast::Expr) -> Stmt {
        self.cx.unsupported(
            e.span,
            "choose",
            "only `choose(bool)`, enum and range types are lowered yet",
        );
        Stmt::Skip
    }

    // ---- calls --------------------------------------------------------------------------

    /// A call statement (`result`: the assignment target of `lv = f(…)`), or with `is_async`
    /// a new thread. Arguments: the receiver (instance methods), then the input arguments;
    /// results: `[return value] ++ out arguments` (empty when nothing is stored).
    pub(super) fn call(
        &mut self,
        e: &ast::Expr,
        result: Option<(LValue, ZType)>,
        is_async: bool,
    ) -> Stmt {
        let ExprKind::Call {
            callee,
            args,
            target,
        } = &e.kind
        else {
            return Stmt::Skip;
        };
        let (class, index) = match target {
            Some(CallTarget::Method { class, index }) => (*class, *index),
            Some(CallTarget::InterfaceMethod { .. }) => {
                self.cx.unsupported(
                    callee.span,
                    "interface",
                    "calls through interfaces are not lowered yet",
                );
                return Stmt::Skip;
            }
            None => return Stmt::Skip,
        };
        let (Some(m), Some(proc)) = (self.cx.method(class, index), self.cx.proc_id(class, index))
        else {
            return Stmt::Skip;
        };
        let mut ir_args = Vec::new();
        if m.mods.is_static.is_none() {
            let receiver = match &callee.kind {
                ExprKind::Member { base, .. } => self.expr(base),
                _ => Expr::Local(0),
            };
            ir_args.push(receiver);
        }
        let mut outs = Vec::new();
        for (a, p) in args.iter().zip(&m.sig.params) {
            if p.is_out {
                if !is_async {
                    let lv = self.lvalue(&a.expr);
                    self.check_result(p.ty.ty, a.expr.ty, a.expr.span, "out argument");
                    outs.push(Some(lv));
                }
            } else {
                let v = self.expr(&a.expr);
                ir_args.push(self.convert(v, a.expr.ty, p.ty.ty));
            }
        }
        if is_async {
            return Stmt::StartThread {
                callee: proc,
                args: ir_args,
            };
        }
        let mut results = Vec::new();
        if m.sig.ret.ty != ZType::Void {
            results.push(result.map(|(lv, ty)| {
                self.check_result(m.sig.ret.ty, ty, e.span, "call result");
                lv
            }));
        }
        results.extend(outs);
        if results.iter().all(Option::is_none) {
            results.clear();
        }
        Stmt::Call {
            callee: proc,
            args: ir_args,
            results,
        }
    }

    /// Call results are stored unconverted: refuse a narrowing one.
    fn check_result(&mut self, from: ZType, to: ZType, span: Span, what: &str) {
        if !Self::widens(from, to) {
            let (f, t) = (type_word(self.cx, from), type_word(self.cx, to));
            self.cx.unsupported(
                span,
                &format!("narrowing {what}"),
                format!("storing a `{f}` result into a `{t}` needs a checked conversion; use an `{f}` variable"),
            );
        }
    }
}

/// The value held by a place.
pub(super) fn place_expr(lv: LValue) -> Expr {
    match lv {
        LValue::Local(i) => Expr::Local(i),
        LValue::Global(i) => Expr::Global(i),
        LValue::Field(e, f) => Expr::Field(e, f),
        LValue::Elem(a, i, w) => Expr::Elem(a, i, w),
    }
}

/// A binary operator; `ty` is the checked result type, `bools` whether both operands are
/// `bool`.
fn binary(op: ZBin, ty: ZType, bools: bool, x: Expr, y: Expr) -> Expr {
    enum K {
        B(BinOp),
        C(CmpOp),
        A(ArithOp),
    }
    // `&&` and `||` short-circuit: the right operand is not evaluated (and cannot fail) when
    // the left decides; `&` and `|` on booleans evaluate both (C#)
    match op {
        ZBin::And => {
            return Expr::Ite(
                Box::new(x),
                Box::new(y),
                Box::new(Expr::Const(Const::Bool(false))),
            )
        }
        ZBin::Or => {
            return Expr::Ite(
                Box::new(x),
                Box::new(Expr::Const(Const::Bool(true))),
                Box::new(y),
            )
        }
        _ => {}
    }
    let k = match op {
        ZBin::And | ZBin::Or => unreachable!("short-circuit operators are lowered above"),
        ZBin::BitAnd if bools => K::B(BinOp::And),
        ZBin::BitOr if bools => K::B(BinOp::Or),
        ZBin::BitXor if bools => K::B(BinOp::Xor),
        ZBin::Eq => K::B(BinOp::Eq),
        ZBin::Ne => K::B(BinOp::Ne),
        ZBin::Lt => K::C(CmpOp::Lt),
        ZBin::Le => K::C(CmpOp::Le),
        ZBin::Gt => K::C(CmpOp::Gt),
        ZBin::Ge => K::C(CmpOp::Ge),
        ZBin::Add => K::A(ArithOp::Add),
        ZBin::Sub => K::A(ArithOp::Sub),
        ZBin::Mul => K::A(ArithOp::Mul),
        ZBin::Div => K::A(ArithOp::Div),
        ZBin::Rem => K::A(ArithOp::Rem),
        ZBin::Shl => K::A(ArithOp::Shl),
        ZBin::Shr => K::A(ArithOp::Shr),
        ZBin::BitAnd => K::A(ArithOp::BitAnd),
        ZBin::BitOr => K::A(ArithOp::BitOr),
        ZBin::BitXor => K::A(ArithOp::BitXor),
    };
    let (x, y) = (Box::new(x), Box::new(y));
    match k {
        K::B(o) => Expr::Binary(o, x, y),
        K::C(o) => Expr::Cmp(o, x, y),
        K::A(o) => Expr::Arith(o, int_type(ty), x, y),
    }
}
