//! Lowering of a checked Zing model into the IR (zing-language.md §2–§6).
//!
//! Layout decisions:
//! * one [`ir::Class`] per class declaration, numbered in source order among classes;
//!   `Type::Ref(c)` and `Stmt::New { class: c }` use that number;
//! * one global per static field (`Class.field`), classes and fields in source order;
//! * one procedure per method (`Class.method`); its slots are `this` (instance methods), the
//!   input parameters, the `out` parameters, then every local of [`Method::locals`]. Input
//!   parameters come before `out` parameters so that a call passes its input arguments
//!   positionally and the `out` slots start at their defaults;
//! * a procedure returns `[result if non-void] ++ [out parameters]`, and call results are
//!   ordered the same way;
//! * `Type::Enum(e)` numbers enum declarations in source order among enums; range-typed
//!   variables are `Type::Range(lo, hi)` with default 0 (ranges are unchecked `int`s).
//!
//! Constructs outside the supported core are refused with one diagnostic each
//! ("`…` is not supported yet by zingrs (lowering)"); lowering then goes on so that every
//! such construct is reported.

use super::ast::*;
use super::lower_stmt::Body;
use super::types::{DeclId, Type as ZType};
use crate::diag::Diagnostic;
use crate::ir::{self, Class, Const, Init, Layout, Pc, ProcId, Program, Source, Span, Var};

/// Where a class field lives.
#[derive(Clone, Copy, Debug)]
pub(super) enum FieldSlot {
    /// Field `i` of the class's objects.
    Instance(u32),
    /// Global `i`.
    Static(u32),
}

/// Program-wide numbering shared by all method bodies.
pub(super) struct Ctx<'m> {
    pub(super) model: &'m Model,
    pub(super) text: &'m str,
    /// Declaration → IR class number (classes only).
    class_ix: Vec<Option<u32>>,
    /// Declaration → enum number (enums only).
    enum_ix: Vec<Option<u32>>,
    /// Declaration → its fields' slots (classes only).
    fields: Vec<Vec<FieldSlot>>,
    /// Declaration → its methods' procedure ids (classes only).
    procs: Vec<Vec<ProcId>>,
    pub(super) diags: Vec<Diagnostic>,
    /// Exception names in order of first mention.
    pub(super) exceptions: Vec<String>,
    /// Static fields initialized with `new`.
    static_news: Vec<(u32, u32, Option<u32>)>,
    /// The pcs of the `accept` statements of the method being lowered.
    pub(super) accept_pcs: Vec<Pc>,
    /// Some expression reads `self`.
    pub(super) uses_self: bool,
}

/// Lowers a model that type-checked (see [`super::check`]). `text` is the original source.
pub fn lower(model: &Model, name: &str, text: &str) -> Result<Program, Vec<Diagnostic>> {
    let mut cx = Ctx::new(model, text);
    let classes = cx.classes();
    let globals = cx.globals();
    let mut procs = Vec::new();
    let mut activations = Vec::new();
    let mut accepts = Vec::new();
    for (d, decl) in model.decls.iter().enumerate() {
        let DeclKind::Class(c) = &decl.kind else {
            continue;
        };
        for m in &c.methods {
            if m.mods.is_activate.is_some() {
                activations.push(procs.len() as ProcId);
            }
            let proc = Body::lower_method(&mut cx, d as DeclId, &decl.name.name, m);
            let id = procs.len() as ProcId;
            accepts.extend(cx.accept_pcs.drain(..).map(|pc| (id, pc)));
            procs.push(proc);
        }
    }
    if cx.diags.iter().any(|d| d.is_error()) {
        let mut diags = cx.diags;
        diags.sort_by_key(|d| d.span.start);
        if diags.len() > super::MAX_ERRORS {
            diags.truncate(super::MAX_ERRORS);
            let at = diags.last().map(|d| d.span).unwrap_or_default();
            diags.push(Diagnostic::error(
                at,
                format!("too many errors ({}); stopping here", super::MAX_ERRORS),
            ));
        }
        return Err(diags);
    }
    // in declaration order, as `Ctx::new` numbers them
    let enums = model
        .decls
        .iter()
        .filter_map(|d| match &d.kind {
            DeclKind::Enum(members) => Some(ir::EnumDecl {
                name: d.name.name.clone(),
                members: members.iter().map(|m| m.name.clone()).collect(),
            }),
            _ => None,
        })
        .collect();
    Ok(Program {
        classes,
        enums,
        globals,
        procs,
        activations,
        layout: Layout::Standard,
        source: Source::new(name, text),
        exceptions: cx.exceptions,
        static_news: cx.static_news,
        uses_self: cx.uses_self,
        keep_completed: true,
        nested_atomic: true,
        lang: crate::Lang::Zing,
        accepts,
    })
}

impl<'m> Ctx<'m> {
    fn new(model: &'m Model, text: &'m str) -> Ctx<'m> {
        let n = model.decls.len();
        let mut cx = Ctx {
            model,
            text,
            class_ix: vec![None; n],
            enum_ix: vec![None; n],
            fields: vec![Vec::new(); n],
            procs: vec![Vec::new(); n],
            diags: Vec::new(),
            exceptions: Vec::new(),
            static_news: Vec::new(),
            accept_pcs: Vec::new(),
            uses_self: false,
        };
        let (mut classes, mut enums, mut globals, mut procs) = (0u32, 0u32, 0u32, 0u32);
        for (d, decl) in model.decls.iter().enumerate() {
            match &decl.kind {
                DeclKind::Class(c) => {
                    cx.class_ix[d] = Some(classes);
                    classes += 1;
                    let mut instance = 0u32;
                    for f in &c.fields {
                        // a struct-typed field takes one slot per leaf
                        let w = leaves_of(model, f.ty.ty).len() as u32;
                        let slot = if f.mods.is_static.is_some() {
                            globals += w;
                            FieldSlot::Static(globals - w)
                        } else {
                            instance += w;
                            FieldSlot::Instance(instance - w)
                        };
                        cx.fields[d].push(slot);
                    }
                    for _ in &c.methods {
                        cx.procs[d].push(procs);
                        procs += 1;
                    }
                }
                DeclKind::Enum(_) => {
                    cx.enum_ix[d] = Some(enums);
                    enums += 1;
                }
                DeclKind::Array(_) | DeclKind::Set(_) | DeclKind::Chan(_) => {
                    cx.class_ix[d] = Some(classes);
                    classes += 1;
                }
                _ => {}
            }
        }
        cx
    }

    // ---- lookups ------------------------------------------------------------------------

    pub(super) fn decl_name(&self, d: DeclId) -> &'m str {
        self.model
            .decls
            .get(d as usize)
            .map_or("?", |x| x.name.name.as_str())
    }

    pub(super) fn class_decl(&self, d: DeclId) -> Option<&'m ClassDecl> {
        match &self.model.decls.get(d as usize)?.kind {
            DeclKind::Class(c) => Some(c),
            _ => None,
        }
    }

    pub(super) fn class_ix(&self, d: DeclId) -> Option<u32> {
        self.class_ix.get(d as usize).copied().flatten()
    }

    pub(super) fn field_slot(&self, class: DeclId, index: u32) -> Option<FieldSlot> {
        self.fields
            .get(class as usize)?
            .get(index as usize)
            .copied()
    }

    pub(super) fn proc_id(&self, class: DeclId, index: u32) -> Option<ProcId> {
        self.procs.get(class as usize)?.get(index as usize).copied()
    }

    pub(super) fn method(&self, class: DeclId, index: u32) -> Option<&'m Method> {
        self.class_decl(class)?.methods.get(index as usize)
    }

    pub(super) fn enum_len(&self, d: DeclId) -> Option<usize> {
        match &self.model.decls.get(d as usize)?.kind {
            DeclKind::Enum(m) => Some(m.len()),
            _ => None,
        }
    }

    pub(super) fn range_bounds(&self, d: DeclId) -> Option<(i64, i64)> {
        match &self.model.decls.get(d as usize)?.kind {
            DeclKind::Range(r) => r.bounds,
            _ => None,
        }
    }

    // ---- types and values ---------------------------------------------------------------

    /// The IR type of a Zing type; `Err` names the unsupported construct.
    pub(super) fn ir_type(&self, t: ZType) -> Result<ir::Type, &'static str> {
        use ir::Type as T;
        Ok(match t {
            ZType::Bool => T::Bool,
            ZType::Enum(d) => T::Enum(self.enum_ix.get(d as usize).copied().flatten().unwrap_or(0)),
            ZType::Range(d) => match self.range_bounds(d) {
                Some((lo, hi)) => T::Range(lo, hi),
                None => int_type(ZType::Int),
            },
            ZType::Class(d) | ZType::Array(d) | ZType::Set(d) | ZType::Chan(d) => {
                T::Ref(self.class_ix(d).unwrap_or(0))
            }
            ZType::Struct(_) => return Err("struct"),
            ZType::Interface(_) | ZType::Object => T::Ref(u32::MAX),
            ZType::Void => T::Void,
            ZType::Str | ZType::Error => return Err("string"),
            t => int_type(t),
        })
    }

    /// [`Ctx::ir_type`], reporting an unsupported type at `span` (and standing in `bool`).
    pub(super) fn ir_type_at(&mut self, t: ZType, span: Span) -> ir::Type {
        match self.ir_type(t) {
            Ok(t) => t,
            Err(what) => {
                let label = match t.decl() {
                    Some(d) => format!("`{}` is {} {what} type", self.decl_name(d), article(what)),
                    None => format!("a value of type `{what}`"),
                };
                self.unsupported(span, what, label);
                ir::Type::Bool
            }
        }
    }

    /// Reports a construct outside the supported subset.
    pub(super) fn unsupported(&mut self, span: Span, construct: &str, label: impl Into<String>) {
        self.diags.push(
            Diagnostic::error(
                span,
                format!("`{construct}` is not supported yet by zingrs (lowering)"),
            )
            .with_label(label),
        );
    }

    // ---- classes and globals ----------------------------------------------------------

    fn classes(&mut self) -> Vec<Class> {
        let mut out = Vec::new();
        for decl in &self.model.decls {
            let (fields, kind) = match &decl.kind {
                DeclKind::Class(c) => {
                    let mut fields = Vec::new();
                    for f in c.fields.iter().filter(|f| f.mods.is_static.is_none()) {
                        fields.extend(self.field_vars(f.name.name.clone(), f, "an instance field"));
                    }
                    (fields, ir::ClassKind::Object)
                }
                DeclKind::Array(a) => {
                    let len = match &a.size {
                        ArraySize::Dynamic => None,
                        ArraySize::Fixed(n) => Some(u32::try_from(*n).unwrap_or(u32::MAX)),
                        ArraySize::Enum(_, d) => {
                            Some(d.and_then(|d| self.enum_len(d)).unwrap_or(0) as u32)
                        }
                    };
                    (self.leaf_vars("[]", &a.elem), ir::ClassKind::Array { len })
                }
                DeclKind::Set(t) => (self.leaf_vars("elem", t), ir::ClassKind::Set),
                DeclKind::Chan(t) => (self.leaf_vars("msg", t), ir::ClassKind::Chan),
                _ => continue,
            };
            out.push(Class {
                name: decl.name.name.clone(),
                fields,
                kind,
            });
        }
        out
    }

    /// One variable per leaf of a value of type `t`, at its default.
    fn leaf_vars(&mut self, name: &str, t: &TypeExpr) -> Vec<Var> {
        self.leaves(t.ty)
            .into_iter()
            .map(|(suffix, lt)| {
                let ty = self.ir_type_at(lt, t.span);
                Var {
                    name: format!("{name}{suffix}"),
                    ty,
                    init: Init::Value(default_const(ty)),
                    thread_local: false,
                    span: t.span,
                }
            })
            .collect()
    }

    /// The scalar leaves of a value of type `t` with their name suffixes (`""` for a
    /// scalar, `.f.g` inside structs), in field order.
    pub(super) fn leaves(&self, t: ZType) -> Vec<(String, ZType)> {
        let mut out = Vec::new();
        leaves_named(self.model, t, String::new(), &mut out);
        out
    }

    /// Number of scalar leaves of a value of type `t`.
    pub(super) fn width(&self, t: ZType) -> u32 {
        leaves_of(self.model, t).len() as u32
    }

    /// Leaf offset and type of field `index` of struct `strukt`.
    pub(super) fn struct_field(&self, strukt: DeclId, index: u32) -> Option<(u32, ZType)> {
        let DeclKind::Struct(fields) = &self.model.decls.get(strukt as usize)?.kind else {
            return None;
        };
        let mut off = 0;
        for (i, f) in fields.iter().enumerate() {
            if i as u32 == index {
                return Some((off, f.ty.ty));
            }
            off += self.width(f.ty.ty);
        }
        None
    }

    /// The element type of an array, set or channel type.
    pub(super) fn elem_type(&self, t: ZType) -> Option<ZType> {
        let d = t.decl()?;
        match &self.model.decls.get(d as usize)?.kind {
            DeclKind::Array(a) => Some(a.elem.ty),
            DeclKind::Set(e) | DeclKind::Chan(e) => Some(e.ty),
            _ => None,
        }
    }

    /// The fixed length of array type `d`.
    pub(super) fn array_len(&self, d: DeclId) -> Option<u32> {
        match &self.model.decls.get(d as usize)?.kind {
            DeclKind::Array(a) => match &a.size {
                ArraySize::Fixed(n) => u32::try_from(*n).ok(),
                ArraySize::Enum(_, d) => d.and_then(|d| self.enum_len(d)).map(|n| n as u32),
                ArraySize::Dynamic => None,
            },
            _ => None,
        }
    }

    /// The classes implementing interface `iface`, each with its method of the same name as
    /// the interface's method `index`, in source order.
    pub(super) fn implementations(&self, iface: DeclId, index: u32) -> Vec<(DeclId, u32)> {
        let Some(decl) = self.model.decls.get(iface as usize) else {
            return Vec::new();
        };
        let DeclKind::Interface(sigs) = &decl.kind else {
            return Vec::new();
        };
        let Some(sig) = sigs.get(index as usize) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (d, c) in self.model.decls.iter().enumerate() {
            let DeclKind::Class(class) = &c.kind else {
                continue;
            };
            if !class.interfaces.iter().any(|i| i.name == decl.name.name) {
                continue;
            }
            if let Some(m) = class
                .methods
                .iter()
                .position(|m| m.sig.name.name == sig.name.name)
            {
                out.push((d as DeclId, m as u32));
            }
        }
        out
    }

    /// The index of an exception name.
    pub(super) fn exception(&mut self, name: &str) -> u32 {
        match self.exceptions.iter().position(|e| e == name) {
            Some(i) => i as u32,
            None => {
                self.exceptions.push(name.to_string());
                self.exceptions.len() as u32 - 1
            }
        }
    }

    fn globals(&mut self) -> Vec<Var> {
        let mut out = Vec::new();
        for decl in &self.model.decls {
            let DeclKind::Class(c) = &decl.kind else {
                continue;
            };
            for f in c.fields.iter().filter(|f| f.mods.is_static.is_some()) {
                let name = format!("{}.{}", decl.name.name, f.name.name);
                if let Some(ExprKind::New { decl, size, .. }) = f.init.as_ref().map(|e| &e.kind) {
                    // `static T f = new T;` allocates while the initial state is built (§2.2)
                    let mut refused = false;
                    let len = match size.as_deref().map(|e| (e, const_value(e))) {
                        None => Some(None),
                        Some((e, Some(Const::Int(n)))) => match u32::try_from(n) {
                            Ok(n) if n <= i32::MAX as u32 => Some(Some(n)),
                            _ => {
                                self.static_length_error(e.span, &n.to_string());
                                refused = true;
                                Some(None)
                            }
                        },
                        Some(_) => None,
                    };
                    if let (None, Some(d)) = (size, *decl) {
                        if let DeclKind::Array(ArrayDecl {
                            size: ArraySize::Fixed(n),
                            ..
                        }) = &self.model.decls[d as usize].kind
                        {
                            if *n > i32::MAX as u64 {
                                let span = f.init.as_ref().map_or(f.name.span, |e| e.span);
                                self.static_length_error(span, &n.to_string());
                                refused = true;
                            }
                        }
                    }
                    if let (Some(class), Some(len)) = (decl.and_then(|d| self.class_ix(d)), len) {
                        if !refused {
                            self.static_news.push((out.len() as u32, class, len));
                        }
                        let ty = self.ir_type_at(f.ty.ty, f.ty.span);
                        out.push(Var {
                            name,
                            ty,
                            init: Init::Value(Const::Null),
                            thread_local: false,
                            span: f.name.span,
                        });
                        continue;
                    }
                }
                out.extend(self.field_vars(name, f, "a static field"));
            }
        }
        out
    }

    /// A static initializer allocates an array whose length is outside `int`: it runs while
    /// the initial state is built, before any process exists (§2.2), and its length is a
    /// constant, so this is a compile error rather than a runtime error of no process.
    fn static_length_error(&mut self, span: Span, len: &str) {
        self.diags.push(
            Diagnostic::error(
                span,
                format!(
                    "array length {len} in a static initializer is not an `int` (0 to 2147483647)"
                ),
            )
            .with_label(
                "a static initializer runs before any process; its array length must be an `int`",
            ),
        );
    }

    /// A field's slots: one per leaf of a struct-typed field, else one with its default or
    /// constant initializer.
    fn field_vars(&mut self, name: String, f: &Field, what: &str) -> Vec<Var> {
        if matches!(f.ty.ty, ZType::Struct(_)) {
            return self.leaf_vars(&name, &f.ty);
        }
        vec![self.field_var(name, f, what)]
    }

    /// A field with its default or constant initializer.
    fn field_var(&mut self, name: String, f: &Field, what: &str) -> Var {
        let ty = self.ir_type_at(f.ty.ty, f.ty.span);
        let mut init = default_const(ty);
        if let Some(e) = &f.init {
            match const_value(e) {
                Some(c) if fits(c, f.ty.ty) => init = c,
                Some(_) => self.unsupported(
                    e.span,
                    "out-of-range initializer",
                    format!("this constant does not fit `{}`", type_word(self, f.ty.ty)),
                ),
                None => self.unsupported(
                    e.span,
                    "non-constant initializer",
                    format!("{what} may only be initialized with a constant for now"),
                ),
            }
        }
        Var {
            name,
            ty,
            init: Init::Value(init),
            thread_local: false,
            span: f.name.span,
        }
    }
}

/// The scalar leaf types of a value of type `t` (structs flattened in field order).
pub(super) fn leaves_of(model: &Model, t: ZType) -> Vec<ZType> {
    let mut out = Vec::new();
    leaves_named(model, t, String::new(), &mut out);
    out.into_iter().map(|(_, t)| t).collect()
}

fn leaves_named(model: &Model, t: ZType, prefix: String, out: &mut Vec<(String, ZType)>) {
    if let ZType::Struct(d) = t {
        if let Some(DeclKind::Struct(fields)) = model.decls.get(d as usize).map(|x| &x.kind) {
            // a struct cannot contain itself by value (the checker rejects cycles)
            if out.len() < 100_000 {
                for f in fields {
                    leaves_named(model, f.ty.ty, format!("{prefix}.{}", f.name.name), out);
                }
            }
            return;
        }
    }
    out.push((prefix, t));
}

/// "a" or "an" before a construct name.
fn article(what: &str) -> &'static str {
    if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// A type as written in messages.
pub(super) fn type_word(cx: &Ctx, t: ZType) -> String {
    match t.builtin_name() {
        Some(n) => n.to_string(),
        None => t.decl().map_or("?", |d| cx.decl_name(d)).to_string(),
    }
}

/// The IR type of an integer type (ranges and enums compute as `int`).
pub(super) fn int_type(t: ZType) -> ir::Type {
    let (bits, signed) = match t.normalized() {
        ZType::Byte => (8, false),
        ZType::SByte => (8, true),
        ZType::Short => (16, true),
        ZType::UShort => (16, false),
        ZType::UInt => (32, false),
        ZType::Long => (64, true),
        ZType::ULong => (64, false),
        _ => (32, true),
    };
    ir::Type::Int { bits, signed }
}

/// The default value of a type (§3).
pub(super) fn default_const(t: ir::Type) -> Const {
    match t {
        ir::Type::Bool | ir::Type::Void => Const::Bool(false),
        ir::Type::Ref(_) => Const::Null,
        ir::Type::Int { .. } | ir::Type::Enum(_) | ir::Type::Range(..) => Const::Int(0),
    }
}

/// The inclusive value range of a numeric Zing type (enums by ordinal, ranges as `int`).
pub(super) fn bounds(t: ZType) -> Option<(i128, i128)> {
    match t {
        ZType::Enum(_) => Some((0, i32::MAX as i128)),
        t => t.int_bounds(),
    }
}

/// Whether a constant is a legal value of `t` (integers must fit).
fn fits(c: Const, t: ZType) -> bool {
    match (c, bounds(t)) {
        (Const::Int(v), Some((lo, hi))) => lo <= v as i128 && v as i128 <= hi,
        _ => true,
    }
}

/// Folds a constant initializer: literals, enum members, and `+ - * / % ! &&  ||` of
/// constants.
pub(super) fn const_value(e: &Expr) -> Option<Const> {
    crate::deep::grow(|| const_value_here(e))
}

fn const_value_here(e: &Expr) -> Option<Const> {
    fn int(e: &Expr) -> Option<i128> {
        match const_value(e)? {
            Const::Int(v) => Some(v as i128),
            _ => None,
        }
    }
    fn boolean(e: &Expr) -> Option<bool> {
        match const_value(e)? {
            Const::Bool(b) => Some(b),
            _ => None,
        }
    }
    let v: i128 = match &e.kind {
        ExprKind::Bool(b) => return Some(Const::Bool(*b)),
        ExprKind::Null => return Some(Const::Null),
        ExprKind::Int(v) => *v as i128,
        ExprKind::Member {
            res: MemberRes::EnumMember { ordinal, .. },
            ..
        } => *ordinal as i128,
        ExprKind::Unary(UnOp::Plus, x) => int(x)?,
        ExprKind::Unary(UnOp::Neg, x) => -int(x)?,
        ExprKind::Unary(UnOp::Not, x) => return Some(Const::Bool(!boolean(x)?)),
        ExprKind::Binary(BinOp::And, a, b) => return Some(Const::Bool(boolean(a)? && boolean(b)?)),
        ExprKind::Binary(BinOp::Or, a, b) => return Some(Const::Bool(boolean(a)? || boolean(b)?)),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (int(a)?, int(b)?);
            let r = match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Div if b != 0 => a.checked_div(b),
                BinOp::Rem if b != 0 => a.checked_rem(b),
                _ => None,
            }?;
            // the operation itself must not overflow its C# type
            let (lo, hi) = e.ty.int_bounds()?;
            if r < lo || r > hi {
                return None;
            }
            r
        }
        _ => return None,
    };
    i64::try_from(v).ok().map(Const::Int)
}
