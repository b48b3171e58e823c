//! Type checking of expressions (zing-language.md §5): name resolution (§2.11), member and
//! element access, calls and where they may appear (§4.4, §5.8), `new`, `choose`, `sizeof`,
//! and `in` (the operators' typing rules of §3 and §5.2 are in `check_ops.rs`).

use super::ast::*;
use super::check_stmt::Checker;
use super::tables::{ArrayKind, Info, TypeUse};
use super::types::{DeclId, Type};
use crate::diag::Diagnostic;

/// A member-access base: a value, or a type name (`C.f`, `E.x`).
enum Base {
    Value(Type),
    TypeName(DeclId),
}

impl Checker<'_> {
    // ---- entry points -----------------------------------------------------------------

    /// Checks an expression in value position (no calls outside `wait`, no `choose`).
    pub(super) fn expr(&mut self, e: &mut Expr) -> Type {
        let t = crate::deep::grow(|| self.expr_kind(e));
        e.ty = t;
        t
    }

    /// Checks the right side of an assignment statement, where a call or `choose` may stand.
    pub(super) fn rhs(&mut self, e: &mut Expr) -> Type {
        let t = match e.kind {
            ExprKind::Call { .. } => self.call(e),
            ExprKind::Choose(_) | ExprKind::ChooseType(_) => self.choose(e),
            _ => return self.expr(e),
        };
        e.ty = t;
        t
    }

    /// Checks an assignment target (or `out` argument, or `receive` target).
    pub(super) fn lvalue(&mut self, e: &mut Expr) -> Type {
        let t = self.expr(e);
        let ok = match &e.kind {
            ExprKind::Name(_, res) => {
                matches!(
                    res,
                    NameRes::Local(_)
                        | NameRes::Param(_)
                        | NameRes::Field { .. }
                        | NameRes::Static { .. }
                ) || t == Type::Error
            }
            ExprKind::Member { res, .. } => {
                matches!(
                    res,
                    MemberRes::Field { .. }
                        | MemberRes::Static { .. }
                        | MemberRes::StructField { .. }
                ) || t == Type::Error
            }
            ExprKind::Index { .. } => true,
            _ => false,
        };
        if !ok {
            let what = match &e.kind {
                ExprKind::This => "`this`",
                ExprKind::Member {
                    res: MemberRes::EnumMember { .. },
                    ..
                } => "an enum member",
                ExprKind::Call { .. } => "a method call",
                _ => "this expression",
            };
            self.error(
                e.span,
                format!("cannot assign to {what}"),
                "not a variable, field or array element",
            );
        }
        t
    }

    /// Checks a call; returns the callee's result type (`Void` possible).
    pub(super) fn call(&mut self, e: &mut Expr) -> Type {
        let span = e.span;
        let ExprKind::Call {
            callee,
            args,
            target,
        } = &mut e.kind
        else {
            return self.expr(e);
        };
        *target = self.callee(callee);
        let Some(sig) = target.and_then(|t| self.t.sig(t)).cloned() else {
            for a in args.iter_mut() {
                self.expr(&mut a.expr);
            }
            e.ty = Type::Error;
            return Type::Error;
        };
        if sig.params.len() != args.len() {
            self.error(
                span,
                format!(
                    "`{}` takes {} argument{}, {} given",
                    sig.name,
                    sig.params.len(),
                    if sig.params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
                "wrong number of arguments",
            );
        }
        for (i, a) in args.iter_mut().enumerate() {
            let Some((pname, pty, is_out)) = sig.params.get(i).cloned() else {
                self.expr(&mut a.expr);
                continue;
            };
            match (is_out, a.is_out) {
                (true, true) => {
                    let at = self.lvalue(&mut a.expr);
                    if !self.convertible(pty, at, &a.expr, false) {
                        self.error(
                            a.expr.span,
                            format!(
                                "`out` parameter `{pname}` of type `{}` cannot be stored in `{}`",
                                self.tn(pty),
                                self.tn(at)
                            ),
                            format!("expected a `{}` variable", self.tn(pty)),
                        );
                    }
                }
                (true, false) => {
                    self.expr(&mut a.expr);
                    self.error(
                        a.expr.span,
                        format!("parameter `{pname}` is an `out` parameter"),
                        "write `out` before this argument",
                    );
                }
                (false, true) => {
                    self.expr(&mut a.expr);
                    self.error(
                        a.expr.span,
                        format!("parameter `{pname}` is not an `out` parameter"),
                        "remove `out`",
                    );
                }
                (false, false) => {
                    let at = self.expr(&mut a.expr);
                    if at == Type::Void {
                        self.error(
                            a.expr.span,
                            "this method returns no value",
                            "`void` result used as an argument",
                        );
                    } else if !self.convertible(at, pty, &a.expr, false) {
                        self.error(
                            a.expr.span,
                            format!(
                                "argument {} of `{}`: cannot convert `{}` to `{}`",
                                i + 1,
                                sig.name,
                                self.tn(at),
                                self.tn(pty)
                            ),
                            format!("expected `{}`", self.tn(pty)),
                        );
                    }
                }
            }
        }
        e.ty = sig.ret;
        sig.ret
    }

    // ---- names and members ------------------------------------------------------------

    /// Looks a simple name up among locals, parameters and fields (§2.11).
    fn lookup_var(&self, name: &str) -> Option<(NameRes, Type)> {
        if let Some(&id) = self.visible.get(name).and_then(|ids| ids.last()) {
            let ty = self.locals.get(id as usize).map_or(Type::Error, |l| l.ty);
            return Some((NameRes::Local(id), ty));
        }
        if let Some(i) = self.params.iter().position(|p| p.0 == name) {
            return Some((NameRes::Param(i as u32), self.params[i].1));
        }
        let (index, f) = self.t.field(self.class, name)?;
        let res = if f.is_static {
            NameRes::Static {
                class: self.class,
                index,
            }
        } else {
            NameRes::Field {
                class: self.class,
                index,
            }
        };
        Some((res, f.ty))
    }

    fn name(&mut self, id: &Ident, res: &mut NameRes) -> Type {
        if let Some((r, ty)) = self.lookup_var(&id.name) {
            *res = r;
            if let NameRes::Field { .. } = r {
                if self.is_static {
                    self.error(
                        id.span,
                        format!(
                            "instance field `{}` cannot be used in a static context",
                            id.name
                        ),
                        "there is no `this` here",
                    );
                    return Type::Error;
                }
            }
            return ty;
        }
        if let Some((index, _)) = self.t.method(self.class, &id.name) {
            *res = NameRes::Method {
                class: self.class,
                index,
            };
            self.error(
                id.span,
                format!("method `{}` used as a value", id.name),
                "call it as a statement: `x = m(…);`",
            );
            return Type::Error;
        }
        if let Some(&d) = self.t.names.get(&id.name) {
            *res = NameRes::Type(d);
            self.error(
                id.span,
                format!("`{}` is a type, not a value", id.name),
                "expected a value",
            );
            return Type::Error;
        }
        self.error(
            id.span,
            format!("unknown name `{}`", id.name),
            "not a local, parameter, field or type",
        );
        Type::Error
    }

    /// Checks a member-access base; a name that is only a type yields [`Base::TypeName`].
    fn base(&mut self, base: &mut Expr) -> Base {
        if let ExprKind::Name(id, res) = &mut base.kind {
            if self.lookup_var(&id.name).is_none() && self.t.method(self.class, &id.name).is_none()
            {
                if let Some(&d) = self.t.names.get(&id.name) {
                    *res = NameRes::Type(d);
                    base.ty = Type::Error;
                    return Base::TypeName(d);
                }
            }
        }
        Base::Value(self.expr(base))
    }

    fn member(&mut self, e: &mut Expr) -> Type {
        let ExprKind::Member { base, name, res } = &mut e.kind else {
            return Type::Error;
        };
        match self.base(base) {
            Base::TypeName(d) => match self.t.info(d) {
                Some(Info::Class { .. }) => {
                    let cname = self.tn(Type::Class(d));
                    if let Some((index, f)) = self.t.field(d, &name.name) {
                        if !f.is_static {
                            self.error(
                                name.span,
                                format!("`{}` is an instance field of `{cname}`", name.name),
                                "access it through an object, not the class",
                            );
                            return Type::Error;
                        }
                        *res = MemberRes::Static { class: d, index };
                        return f.ty;
                    }
                    if self.t.method(d, &name.name).is_some() {
                        self.error(
                            name.span,
                            format!("method `{cname}.{}` used as a value", name.name),
                            "call it as a statement",
                        );
                        return Type::Error;
                    }
                    self.error(
                        name.span,
                        format!("unknown field `{}` in class `{cname}`", name.name),
                        "no such static field",
                    );
                    Type::Error
                }
                Some(Info::Enum(members)) => match members.iter().position(|m| *m == name.name) {
                    Some(o) => {
                        *res = MemberRes::EnumMember {
                            enumeration: d,
                            ordinal: o as u32,
                        };
                        Type::Enum(d)
                    }
                    None => {
                        let en = self.tn(Type::Enum(d));
                        self.error(
                            name.span,
                            format!("enum `{en}` has no member `{}`", name.name),
                            "unknown member",
                        );
                        Type::Error
                    }
                },
                _ => {
                    let tn = self
                        .t
                        .decl_names
                        .get(d as usize)
                        .cloned()
                        .unwrap_or_default();
                    self.error(name.span, format!("type `{tn}` has no members"), "only classes (static fields) and enums (members) can be named through their type");
                    Type::Error
                }
            },
            Base::Value(Type::Class(c)) => {
                let cname = self.tn(Type::Class(c));
                if let Some((index, f)) = self.t.field(c, &name.name) {
                    if f.is_static {
                        self.error(name.span, format!("static field `{}` must be accessed through its class: `{cname}.{}`", name.name, name.name), "static field through an object");
                        return Type::Error;
                    }
                    *res = MemberRes::Field { class: c, index };
                    return f.ty;
                }
                if self.t.method(c, &name.name).is_some() {
                    self.error(
                        name.span,
                        format!("method `{cname}.{}` used as a value", name.name),
                        "call it as a statement",
                    );
                    return Type::Error;
                }
                self.error(
                    name.span,
                    format!("unknown field `{}` in class `{cname}`", name.name),
                    "no such field",
                );
                Type::Error
            }
            Base::Value(Type::Struct(s)) => {
                let sname = self.tn(Type::Struct(s));
                let fields = match self.t.info(s) {
                    Some(Info::Struct(f)) => f.as_slice(),
                    _ => &[],
                };
                match fields.iter().position(|(n, _)| *n == name.name) {
                    Some(i) => {
                        let ty = fields[i].1;
                        *res = MemberRes::StructField {
                            strukt: s,
                            index: i as u32,
                        };
                        ty
                    }
                    None => {
                        self.error(
                            name.span,
                            format!("unknown field `{}` in struct `{sname}`", name.name),
                            "no such field",
                        );
                        Type::Error
                    }
                }
            }
            Base::Value(Type::Error) => Type::Error,
            Base::Value(t) => {
                let tn = self.tn(t);
                self.error(
                    name.span,
                    format!("`{tn}` has no field `{}`", name.name),
                    format!("a value of type `{tn}` has no fields"),
                );
                Type::Error
            }
        }
    }

    /// Resolves the method a callee names.
    fn callee(&mut self, callee: &mut Expr) -> Option<CallTarget> {
        let span = callee.span;
        let target = match &mut callee.kind {
            ExprKind::Name(id, res) => {
                if self.lookup_var(&id.name).is_some() {
                    self.error(
                        id.span,
                        format!("`{}` is not a method", id.name),
                        "a variable cannot be called",
                    );
                    return None;
                }
                let Some((index, sig)) = self.t.method(self.class, &id.name) else {
                    let cname = self.tn(Type::Class(self.class));
                    self.error(
                        id.span,
                        format!("unknown method `{}` in class `{cname}`", id.name),
                        "no such method",
                    );
                    return None;
                };
                if !sig.is_static && self.is_static {
                    self.error(
                        id.span,
                        format!(
                            "instance method `{}` cannot be called from a static context",
                            id.name
                        ),
                        "there is no `this` here",
                    );
                }
                *res = NameRes::Method {
                    class: self.class,
                    index,
                };
                CallTarget::Method {
                    class: self.class,
                    index,
                }
            }
            ExprKind::Member { base, name, res } => {
                let (class, via_type) = match self.base(base) {
                    Base::TypeName(d) if self.is_class(d) => (d, true),
                    Base::Value(Type::Class(c)) => (c, false),
                    Base::Value(Type::Interface(i)) => {
                        let sigs = match self.t.info(i) {
                            Some(Info::Interface(s)) => s.as_slice(),
                            _ => &[],
                        };
                        let Some(index) = sigs.iter().position(|s| s.name == name.name) else {
                            let iname = self.tn(Type::Interface(i));
                            self.error(
                                name.span,
                                format!("unknown method `{}` in interface `{iname}`", name.name),
                                "no such method",
                            );
                            return None;
                        };
                        let index = index as u32;
                        *res = MemberRes::InterfaceMethod { iface: i, index };
                        callee.ty = Type::Error;
                        return Some(CallTarget::InterfaceMethod { iface: i, index });
                    }
                    Base::Value(Type::Error) => return None,
                    Base::TypeName(d) => {
                        let tn = self
                            .t
                            .decl_names
                            .get(d as usize)
                            .cloned()
                            .unwrap_or_default();
                        self.error(
                            name.span,
                            format!("type `{tn}` has no methods"),
                            "only classes have methods",
                        );
                        return None;
                    }
                    Base::Value(t) => {
                        let tn = self.tn(t);
                        self.error(
                            name.span,
                            format!("`{tn}` has no method `{}`", name.name),
                            format!("a value of type `{tn}` has no methods"),
                        );
                        return None;
                    }
                };
                let cname = self.tn(Type::Class(class));
                let Some((index, sig)) = self.t.method(class, &name.name) else {
                    self.error(
                        name.span,
                        format!("unknown method `{}` in class `{cname}`", name.name),
                        "no such method",
                    );
                    return None;
                };
                if via_type && !sig.is_static {
                    self.error(
                        name.span,
                        format!("`{cname}.{}` is an instance method", name.name),
                        "call it through an object: `obj.m(…)`",
                    );
                } else if !via_type && sig.is_static {
                    self.error(
                        name.span,
                        format!(
                            "static method `{}` must be called through its class: `{cname}.{}(…)`",
                            name.name, name.name
                        ),
                        "static method through an object",
                    );
                }
                *res = MemberRes::Method { class, index };
                CallTarget::Method { class, index }
            }
            _ => {
                self.expr(callee);
                self.error(span, "only methods can be called", "not a method name");
                return None;
            }
        };
        callee.ty = Type::Error;
        Some(target)
    }

    // ---- expression kinds -------------------------------------------------------------

    fn expr_kind(&mut self, e: &mut Expr) -> Type {
        let span = e.span;
        match &mut e.kind {
            ExprKind::Int(_) => e.ty,
            ExprKind::Bool(_) => Type::Bool,
            ExprKind::Null => Type::Object,
            ExprKind::Str(_) => {
                self.error(
                    span,
                    "string literals are not values",
                    "strings may only appear in `assert`, `trace` and `invokeplugin`",
                );
                Type::Error
            }
            ExprKind::This => {
                if self.is_static {
                    self.error(
                        span,
                        "`this` in a static context",
                        "there is no receiver here",
                    );
                    Type::Error
                } else {
                    Type::Class(self.class)
                }
            }
            ExprKind::SelfId => Type::Int,
            ExprKind::Name(id, res) => {
                let id = id.clone();
                self.name(&id, res)
            }
            ExprKind::Member { .. } => self.member(e),
            ExprKind::Index { base, index } => {
                let bt = self.expr(base);
                let it = self.expr(index);
                if !(it.is_integer() || matches!(it, Type::Enum(_)) || it == Type::Error) {
                    self.error(
                        index.span,
                        format!("array index must be an integer, found `{}`", self.tn(it)),
                        "expected an integer or enum value",
                    );
                }
                match bt {
                    Type::Array(_) => self.t.elem(bt).unwrap_or(Type::Error),
                    Type::Error => Type::Error,
                    t => {
                        self.error(
                            base.span,
                            format!("cannot index a value of type `{}`", self.tn(t)),
                            "not an array",
                        );
                        Type::Error
                    }
                }
            }
            ExprKind::Call { .. } => {
                if !self.in_wait {
                    self.diags.push(
                        Diagnostic::error(span, "a method call cannot be used inside an expression")
                            .with_label("calls may only stand as a statement or as the whole right side of an assignment")
                            .with_note("write `x = f(…);` and use `x` (calls are also allowed in `wait(…)` for `bool` methods)"),
                    );
                    self.call(e);
                    return Type::Error;
                }
                let t = self.call(e);
                if let ExprKind::Call {
                    target: Some(target),
                    ..
                } = &e.kind
                {
                    self.wait_calls.push((*target, span));
                    if let Some(sig) = self.t.sig(*target) {
                        if sig.ret != Type::Bool || sig.params.iter().any(|p| p.2) {
                            let n = sig.name.clone();
                            self.error(
                                span,
                                format!("`{n}` cannot be called in `wait`"),
                                "only `bool` methods without `out` parameters may be called here",
                            );
                            return Type::Error;
                        }
                    }
                }
                t
            }
            ExprKind::New { ty, size, decl } => self.new_expr(ty, size.as_deref_mut(), decl),
            ExprKind::Choose(_) | ExprKind::ChooseType(_) => {
                self.diags.push(
                    Diagnostic::error(
                        span,
                        "`choose` may only be the entire right side of an assignment",
                    )
                    .with_label("not allowed here")
                    .with_note("write `x = choose(…);` and use `x`"),
                );
                self.choose(e);
                Type::Error
            }
            ExprKind::Sizeof(inner) => {
                match self.base(inner) {
                    Base::TypeName(d) => {
                        if !matches!(
                            self.t.info(d),
                            Some(Info::Array {
                                kind: ArrayKind::Fixed(_) | ArrayKind::Enum(_),
                                ..
                            })
                        ) {
                            let tn = self
                                .t
                                .decl_names
                                .get(d as usize)
                                .cloned()
                                .unwrap_or_default();
                            self.error(
                                inner.span,
                                format!("`sizeof` of type `{tn}`"),
                                "only fixed-size array types have a constant size",
                            );
                        }
                    }
                    Base::Value(Type::Chan(_) | Type::Set(_) | Type::Array(_) | Type::Error) => {}
                    Base::Value(t) => {
                        self.error(
                            inner.span,
                            format!(
                                "`sizeof` needs a channel, set or array, found `{}`",
                                self.tn(t)
                            ),
                            "no size",
                        );
                    }
                }
                Type::Int
            }
            ExprKind::Unary(op, inner) => {
                let op = *op;
                self.unary(op, inner)
            }
            ExprKind::Binary(op, l, r) => {
                let op = *op;
                self.binary(span, op, l, r)
            }
            ExprKind::In(elem, set) => {
                let et = self.expr(elem);
                let st = self.expr(set);
                match st {
                    Type::Set(_) => {
                        let want = self.t.elem(st).unwrap_or(Type::Error);
                        if !self.exact(et, want, elem) {
                            self.diags.push(
                                Diagnostic::error(elem.span, format!("cannot test whether `{}` is in a set of `{}`", self.tn(et), self.tn(want)))
                                    .with_label(format!("expected `{}`", self.tn(want)))
                                    .with_note("`in` takes the whole expression to its left: write `a && (x in s)`"),
                            );
                        }
                    }
                    Type::Error => {}
                    t => self.error(
                        set.span,
                        format!("`in` needs a set on its right, found `{}`", self.tn(t)),
                        "not a set",
                    ),
                }
                Type::Bool
            }
        }
    }

    fn new_expr(&mut self, ty: &Ident, size: Option<&mut Expr>, decl: &mut Option<DeclId>) -> Type {
        let size_t = size.map(|s| (self.expr(s), s.span));
        let Some(&d) = self.t.names.get(&ty.name) else {
            self.error(
                ty.span,
                format!("unknown type `{}`", ty.name),
                "no declaration of this type",
            );
            return Type::Error;
        };
        *decl = Some(d);
        let (t, needs_size) = match self.t.info(d) {
            Some(Info::Class { .. }) => (Type::Class(d), false),
            Some(Info::Chan(_)) => (Type::Chan(d), false),
            Some(Info::Set(_)) => (Type::Set(d), false),
            Some(Info::Array { kind, .. }) => (Type::Array(d), *kind == ArrayKind::Dynamic),
            Some(Info::Struct(_)) => {
                self.error(
                    ty.span,
                    format!("cannot allocate struct `{}` with `new`", ty.name),
                    "structs are values: declare a variable instead",
                );
                return Type::Error;
            }
            _ => {
                self.error(
                    ty.span,
                    format!("cannot allocate `{}` with `new`", ty.name),
                    "only classes, channels, sets and arrays live on the heap",
                );
                return Type::Error;
            }
        };
        match (needs_size, size_t) {
            (true, None) => self.error(
                ty.span,
                format!("`new {}` needs a size", ty.name),
                format!(
                    "`{}` is a dynamic array: write `new {}[n]`",
                    ty.name, ty.name
                ),
            ),
            (false, Some((_, s))) => self.error(
                s,
                format!("`{}` takes no size", ty.name),
                "only dynamic arrays (`array A[] T;`) take a size",
            ),
            (true, Some((st, s))) => {
                if !(st.is_integer() || st == Type::Error) {
                    self.error(
                        s,
                        format!("array size must be an integer, found `{}`", self.tn(st)),
                        "expected `int`",
                    );
                }
            }
            (false, None) => {}
        }
        t
    }

    /// `choose(…)`: the alternatives' type.
    fn choose(&mut self, e: &mut Expr) -> Type {
        let span = e.span;
        let t = match &mut e.kind {
            ExprKind::ChooseType(te) => {
                let t = self.types.resolve(te, TypeUse::Value, self.diags);
                if t == Type::Bool || t == Type::Error {
                    t
                } else {
                    self.error(
                        te.span,
                        format!("cannot `choose` a value of type `{}`", self.tn(t)),
                        "only `bool`, enum and range types, sets and arrays have alternatives",
                    );
                    Type::Error
                }
            }
            ExprKind::Choose(inner) => {
                match self.base(inner) {
                    Base::TypeName(d) => match self.t.info(d) {
                        Some(Info::Enum(_)) => Type::Enum(d),
                        Some(Info::Range(_)) => Type::Int,
                        _ => {
                            let tn = self
                                .t
                                .decl_names
                                .get(d as usize)
                                .cloned()
                                .unwrap_or_default();
                            self.error(inner.span, format!("cannot `choose` from type `{tn}`"), "only `bool`, enum and range types, sets and arrays have alternatives");
                            Type::Error
                        }
                    },
                    Base::Value(t @ (Type::Set(_) | Type::Array(_))) => {
                        self.t.elem(t).unwrap_or(Type::Error)
                    }
                    Base::Value(Type::Error) => Type::Error,
                    Base::Value(t) => {
                        self.error(
                            inner.span,
                            format!("cannot `choose` from a value of type `{}`", self.tn(t)),
                            "expected a set or an array",
                        );
                        Type::Error
                    }
                }
            }
            _ => {
                self.error(span, "expected `choose`", "");
                Type::Error
            }
        };
        e.ty = t;
        t
    }
}
