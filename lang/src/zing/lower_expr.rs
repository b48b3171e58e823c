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
    // ---- places -------------------------------------------------------------------------

    /// The place a resolved simple name denotes.
    fn name_place(&self, res: NameRes, ty: ZType) -> Option<Place> {
        let n = self.cx.width(ty);
        Some(match res {
            NameRes::Local(i) => {
                Place::slots(PlaceBase::Local(*self.local_slot.get(i as usize)?), n)
            }
            NameRes::Param(i) => {
                Place::slots(PlaceBase::Local(*self.param_slot.get(i as usize)?), n)
            }
            NameRes::Field { class, index } | NameRes::Static { class, index } => {
                match self.cx.field_slot(class, index)? {
                    FieldSlot::Instance(f) => {
                        Place::slots(PlaceBase::Field(Box::new(Expr::Local(0)), f), n)
                    }
                    FieldSlot::Static(g) => Place::slots(PlaceBase::Global(g), n),
                }
            }
            NameRes::Unresolved | NameRes::Method { .. } | NameRes::Type(_) => return None,
        })
    }

    /// The place `base.name` denotes (`None`: not a field, or refused).
    fn member_place(&mut self, base: &ast::Expr, res: MemberRes, ty: ZType) -> Option<Place> {
        let n = self.cx.width(ty);
        match res {
            MemberRes::Field { class, index } | MemberRes::Static { class, index } => {
                match self.cx.field_slot(class, index)? {
                    FieldSlot::Instance(f) => Some(Place::slots(
                        PlaceBase::Field(Box::new(self.expr(base)), f),
                        n,
                    )),
                    FieldSlot::Static(g) => Some(Place::slots(PlaceBase::Global(g), n)),
                }
            }
            MemberRes::StructField { strukt, index } => {
                let (off, _) = self.cx.struct_field(strukt, index)?;
                let whole = self.place(base)?;
                Some(Place {
                    base: whole.base,
                    start: whole.start + off,
                    n,
                })
            }
            _ => None,
        }
    }

    /// The place an expression denotes, if it is one.
    pub(super) fn place(&mut self, e: &ast::Expr) -> Option<Place> {
        crate::deep::grow(|| self.place_here(e))
    }

    fn place_here(&mut self, e: &ast::Expr) -> Option<Place> {
        match &e.kind {
            ExprKind::Name(_, res) => self.name_place(*res, e.ty),
            ExprKind::Member { base, res, .. } => self.member_place(base, *res, e.ty),
            ExprKind::Index { base, index } => {
                let width = self.cx.width(e.ty);
                let b = self.expr(base);
                let i = self.expr(index);
                Some(Place {
                    base: PlaceBase::Elem(Box::new(b), Box::new(i), width),
                    start: 0,
                    n: width,
                })
            }
            _ => None,
        }
    }

    /// An assignment target, `out` argument or `receive` target: one place per leaf.
    pub(super) fn lvalues(&mut self, e: &ast::Expr) -> Vec<LValue> {
        match self.place(e) {
            Some(p) => p.leaves(),
            None => vec![LValue::Local(0); self.cx.width(e.ty) as usize],
        }
    }

    /// The values of an expression's leaves (one for a scalar; struct values are places).
    pub(super) fn exprs(&mut self, e: &ast::Expr) -> Vec<Expr> {
        if !matches!(e.ty, ZType::Struct(_)) {
            return vec![self.expr(e)];
        }
        match self.place(e) {
            Some(p) => p.leaves().into_iter().map(place_expr).collect(),
            None => vec![PLACEHOLDER; self.cx.width(e.ty) as usize],
        }
    }

    // ---- expressions ------------------------------------------------------------------

    /// A value expression.
    pub(super) fn expr(&mut self, e: &ast::Expr) -> Expr {
        crate::deep::grow(|| self.expr_here(e))
    }

    fn expr_here(&mut self, e: &ast::Expr) -> Expr {
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
                self.cx.uses_self = true;
                Expr::SelfId
            }
            ExprKind::Member {
                res: MemberRes::EnumMember { ordinal, .. },
                ..
            } => Expr::Const(Const::Int(*ordinal as i64)),
            ExprKind::Name(..) | ExprKind::Member { .. } | ExprKind::Index { .. } => self
                .place(e)
                .and_then(|p| p.leaves().into_iter().next())
                .map_or(PLACEHOLDER, place_expr),
            // a predicate call inside `wait` (§5.8): evaluated as a pure function
            ExprKind::Call { .. } => match self.call(e, None, false) {
                Stmt::Call { callee, args, .. } => Expr::Call(callee, args),
                _ => PLACEHOLDER,
            },
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
            ExprKind::Sizeof(x) => match &x.kind {
                ExprKind::Name(_, NameRes::Type(d)) => match self.cx.array_len(*d) {
                    Some(n) => Expr::Const(Const::Int(n as i64)),
                    None => PLACEHOLDER,
                },
                _ => {
                    let w = self.cx.elem_type(x.ty).map_or(1, |t| self.cx.width(t));
                    Expr::Size(Box::new(self.expr(x)), w)
                }
            },
            ExprKind::In(a, b) => Expr::In(Box::new(self.expr(a)), Box::new(self.expr(b))),
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

    /// `t1 = … = tn = value;` (targets as their leaves, with their types): a call, `choose`
    /// or `new` goes to `tn` and the other targets copy it in a second node; a plain value is
    /// one parallel assignment.
    pub(super) fn assign(
        &mut self,
        targets: Vec<(Vec<LValue>, ZType)>,
        value: &ast::Expr,
        span: Span,
    ) {
        let Some((last, last_ty)) = targets.last().cloned() else {
            return;
        };
        let special = match &value.kind {
            ExprKind::Call { .. } => {
                let c = self.call_lowered(value, Some((last.clone(), last_ty)), false);
                self.emit_call(c, span);
                if targets.len() == 1 {
                    return;
                }
                None
            }
            ExprKind::ChooseType(_) | ExprKind::Choose(_) => {
                Some(self.choose(value, last.clone(), last_ty))
            }
            ExprKind::New { decl, size, .. } => {
                let target = last.first().cloned().unwrap_or(LValue::Local(0));
                let class = decl.and_then(|d| self.cx.class_ix(d));
                Some(match (class, size) {
                    (Some(class), None) => Stmt::New { target, class },
                    (Some(class), Some(n)) => Stmt::NewArray {
                        target,
                        class,
                        len: self.expr(n),
                    },
                    (None, _) => Stmt::Skip,
                })
            }
            _ => None,
        };
        let called = matches!(value.kind, ExprKind::Call { .. });
        let (mut vs, mut from, rest) = match special {
            Some(st) => {
                self.simple(st, span);
                if targets.len() == 1 {
                    return;
                }
                let vs: Vec<Expr> = last.into_iter().map(place_expr).collect();
                (vs, last_ty, &targets[..targets.len() - 1])
            }
            None if called => {
                let vs: Vec<Expr> = last.into_iter().map(place_expr).collect();
                (vs, last_ty, &targets[..targets.len() - 1])
            }
            None => (self.exprs(value), value.ty, &targets[..]),
        };
        let mut tgts = Vec::new();
        let mut vals = Vec::new();
        for (lvs, ty) in rest.iter().rev() {
            if let [v] = &mut vs[..] {
                *v = self.convert(v.clone(), from, *ty);
            }
            from = *ty;
            for (lv, v) in lvs.iter().zip(&vs) {
                tgts.push(Some(lv.clone()));
                vals.push(v.clone());
            }
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
    fn choose(&mut self, e: &ast::Expr, targets: Vec<LValue>, target_ty: ZType) -> Stmt {
        if let ExprKind::Choose(inner) = &e.kind {
            if matches!(inner.ty, ZType::Set(_) | ZType::Array(_)) {
                return Stmt::ChooseElem {
                    targets,
                    from: self.expr(inner),
                };
            }
        }
        let target = targets.into_iter().next().unwrap_or(LValue::Local(0));
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
            "only `choose(bool)`, enum and range types, sets and arrays are lowered",
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
        result: Option<(Vec<LValue>, ZType)>,
        is_async: bool,
    ) -> Stmt {
        match self.call_lowered(e, result, is_async) {
            Lowered::One(st) => st,
            Lowered::Dispatch(..) => {
                self.cx.unsupported(
                    e.span,
                    "interface",
                    "calls through interfaces are lowered only as statements",
                );
                Stmt::Skip
            }
        }
    }

    /// A call as statements: one, or for a call through an interface one per class that
    /// implements it (the receiver's class picks, §2.5).
    pub(super) fn call_lowered(
        &mut self,
        e: &ast::Expr,
        result: Option<(Vec<LValue>, ZType)>,
        is_async: bool,
    ) -> Lowered {
        let ExprKind::Call { callee, target, .. } = &e.kind else {
            return Lowered::One(Stmt::Skip);
        };
        match target {
            Some(CallTarget::Method { class, index }) => {
                Lowered::One(self.call_method(e, *class, *index, result, is_async))
            }
            Some(CallTarget::InterfaceMethod { iface, index }) => {
                let receiver = match &callee.kind {
                    ExprKind::Member { base, .. } => self.expr(base),
                    _ => Expr::Local(0),
                };
                let mut arms = Vec::new();
                for (class, index) in self.cx.implementations(*iface, *index) {
                    let Some(c) = self.cx.class_ix(class) else {
                        continue;
                    };
                    let st = self.call_method(e, class, index, result.clone(), is_async);
                    arms.push((c, st));
                }
                Lowered::Dispatch(receiver, arms)
            }
            None => Lowered::One(Stmt::Skip),
        }
    }

    /// A call of method `index` of class `class` with the arguments of the call `e`.
    fn call_method(
        &mut self,
        e: &ast::Expr,
        class: super::types::DeclId,
        index: u32,
        result: Option<(Vec<LValue>, ZType)>,
        is_async: bool,
    ) -> Stmt {
        let ExprKind::Call { callee, args, .. } = &e.kind else {
            return Stmt::Skip;
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
                    let lvs = self.lvalues(&a.expr);
                    self.check_result(p.ty.ty, a.expr.ty, a.expr.span, "out argument");
                    outs.extend(lvs.into_iter().map(Some));
                }
            } else if matches!(a.expr.ty, ZType::Struct(_)) {
                ir_args.extend(self.exprs(&a.expr));
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
            let n = self.cx.width(m.sig.ret.ty) as usize;
            match result {
                Some((lvs, ty)) => {
                    self.check_result(m.sig.ret.ty, ty, e.span, "call result");
                    results.extend(lvs.into_iter().map(Some));
                }
                None => results.extend(std::iter::repeat_n(None, n)),
            }
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

/// A lowered call statement.
pub(super) enum Lowered {
    One(Stmt),
    /// A call through an interface: the receiver, and per implementing class (IR class
    /// number) the call of its method.
    Dispatch(Expr, Vec<(u32, Stmt)>),
}

/// Where a place's leaves live.
#[derive(Clone, Debug)]
pub(super) enum PlaceBase {
    /// Slots from this local on.
    Local(u32),
    /// Globals from this one on.
    Global(u32),
    /// Fields of an object from this one on.
    Field(Box<Expr>, u32),
    /// An element of a collection whose elements are `u32` leaves wide.
    Elem(Box<Expr>, Box<Expr>, u32),
}

/// A place holding `n` scalar leaves (a struct value has several), from leaf `start` of its
/// base on.
#[derive(Clone, Debug)]
pub(super) struct Place {
    pub(super) base: PlaceBase,
    pub(super) start: u32,
    pub(super) n: u32,
}

impl Place {
    fn slots(base: PlaceBase, n: u32) -> Place {
        Place { base, start: 0, n }
    }

    /// One lvalue per leaf.
    pub(super) fn leaves(&self) -> Vec<LValue> {
        (self.start..self.start + self.n)
            .map(|k| match &self.base {
                PlaceBase::Local(s) => LValue::Local(s + k),
                PlaceBase::Global(g) => LValue::Global(g + k),
                PlaceBase::Field(o, f) => LValue::Field(o.clone(), f + k),
                PlaceBase::Elem(a, i, w) => LValue::Elem(
                    a.clone(),
                    i.clone(),
                    ir::Width {
                        width: *w,
                        offset: k,
                    },
                ),
            })
            .collect()
    }
}

/// The value held by a place.
pub(super) fn place_expr(lv: LValue) -> Expr {
    match lv {
        LValue::Local(i) => Expr::Local(i),
        LValue::PassiveLocal(i) => Expr::PassiveLocal(i),
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
