//! Program-wide tables (zing-language.md §2): the type namespace, the resolved types of every
//! declaration, field and method signature, and the declaration-level static rules
//! (duplicates, modifiers, `activate` signatures, struct rules, range bounds, array sizes,
//! interface implementations).

use super::ast::*;
use super::types::{DeclId, Type};
use crate::diag::Diagnostic;
use crate::ir::Span;
use std::collections::HashMap;

/// A field of a class.
#[derive(Clone, Debug)]
pub struct FieldInfo {
    pub name: String,
    pub ty: Type,
    pub is_static: bool,
}

/// A method signature (of a class or an interface).
#[derive(Clone, Debug)]
pub struct SigInfo {
    pub name: String,
    pub ret: Type,
    /// Name, type and whether it is an `out` parameter.
    pub params: Vec<(String, Type, bool)>,
    pub is_static: bool,
    pub is_atomic: bool,
    pub span: Span,
}

/// How big an array type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayKind {
    Dynamic,
    Fixed(u64),
    Enum(DeclId),
}

/// What a declaration declares, with its types resolved.
#[derive(Clone, Debug)]
pub enum Info {
    Class {
        fields: Vec<FieldInfo>,
        methods: Vec<SigInfo>,
        interfaces: Vec<DeclId>,
    },
    Struct(Vec<(String, Type)>),
    Interface(Vec<SigInfo>),
    Enum(Vec<String>),
    Range(Option<(i64, i64)>),
    Chan(Type),
    Set(Type),
    Array {
        kind: ArrayKind,
        elem: Type,
    },
}

/// The program-wide tables.
#[derive(Debug)]
pub struct Tables {
    /// Type name → declaration.
    pub names: HashMap<String, DeclId>,
    /// Declaration names, by id.
    pub decl_names: Vec<String>,
    /// Declaration contents, by id.
    pub infos: Vec<Info>,
}

/// The kind of a declaration, before anything is resolved.
fn kind_type(kind: &DeclKind, id: DeclId) -> Type {
    match kind {
        DeclKind::Class(_) => Type::Class(id),
        DeclKind::Struct(_) => Type::Struct(id),
        DeclKind::Interface(_) => Type::Interface(id),
        DeclKind::Enum(_) => Type::Enum(id),
        DeclKind::Range(_) => Type::Range(id),
        DeclKind::Chan(_) => Type::Chan(id),
        DeclKind::Set(_) => Type::Set(id),
        DeclKind::Array(_) => Type::Array(id),
    }
}

/// Where a type is used, which decides whether `void` and `string` are allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TypeUse {
    Value,
    Return,
}

/// Resolves type names against the global namespace.
pub struct TypeResolver {
    names: HashMap<String, (DeclId, Type)>,
}

impl TypeResolver {
    /// Resolves `te` in place (and returns the type); reports unknown and illegal types.
    pub fn resolve(&self, te: &mut TypeExpr, usage: TypeUse, diags: &mut Vec<Diagnostic>) -> Type {
        let ty = match &te.name {
            TypeName::Builtin(Type::Void) if usage == TypeUse::Value => {
                diags.push(
                    Diagnostic::error(te.span, "`void` is not a type for values")
                        .with_label("`void` may only be a method's return type"),
                );
                Type::Error
            }
            TypeName::Builtin(Type::Str) => {
                diags.push(
                    Diagnostic::error(te.span, "variables of type `string` are not supported")
                        .with_label("strings are only literals")
                        .with_note("string literals may only appear in `assert`, `trace` and `invokeplugin`"),
                );
                Type::Error
            }
            TypeName::Builtin(t) => *t,
            TypeName::Unsupported(w) => {
                diags.push(
                    Diagnostic::error(te.span, format!("type `{w}` is not supported"))
                        .with_label("Zing models use integer types only"),
                );
                Type::Error
            }
            TypeName::Named(n) => match self.names.get(n) {
                Some((_, t)) => *t,
                None => {
                    diags.push(
                        Diagnostic::error(te.span, format!("unknown type `{n}`"))
                            .with_label("no declaration of this type"),
                    );
                    Type::Error
                }
            },
        };
        te.ty = ty;
        ty
    }
}

impl Tables {
    /// A type as written in messages.
    pub fn type_name(&self, t: Type) -> String {
        if let Some(n) = t.builtin_name() {
            return n.to_string();
        }
        t.decl()
            .and_then(|d| self.decl_names.get(d as usize))
            .cloned()
            .unwrap_or_else(|| "?".to_string())
    }

    /// The contents of a declaration.
    pub fn info(&self, d: DeclId) -> Option<&Info> {
        self.infos.get(d as usize)
    }

    /// Fields and methods of a class.
    pub fn class(&self, d: DeclId) -> Option<(&[FieldInfo], &[SigInfo])> {
        match self.info(d)? {
            Info::Class {
                fields, methods, ..
            } => Some((fields, methods)),
            _ => None,
        }
    }

    /// A field of a class by name.
    pub fn field(&self, class: DeclId, name: &str) -> Option<(u32, &FieldInfo)> {
        let (fields, _) = self.class(class)?;
        fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
            .map(|(i, f)| (i as u32, f))
    }

    /// A method of a class by name.
    pub fn method(&self, class: DeclId, name: &str) -> Option<(u32, &SigInfo)> {
        let (_, methods) = self.class(class)?;
        methods
            .iter()
            .enumerate()
            .find(|(_, m)| m.name == name)
            .map(|(i, m)| (i as u32, m))
    }

    /// A method signature by call target.
    pub fn sig(&self, target: CallTarget) -> Option<&SigInfo> {
        match target {
            CallTarget::Method { class, index } => self.class(class)?.1.get(index as usize),
            CallTarget::InterfaceMethod { iface, index } => match self.info(iface)? {
                Info::Interface(sigs) => sigs.get(index as usize),
                _ => None,
            },
        }
    }

    /// Whether class `c` declares that it implements interface `i`.
    pub fn implements(&self, c: DeclId, i: DeclId) -> bool {
        matches!(self.info(c), Some(Info::Class { interfaces, .. }) if interfaces.contains(&i))
    }

    /// The element type of a set, array or channel type.
    pub fn elem(&self, t: Type) -> Option<Type> {
        match (t, self.info(t.decl()?)?) {
            (Type::Set(_), Info::Set(e)) | (Type::Chan(_), Info::Chan(e)) => Some(*e),
            (Type::Array(_), Info::Array { elem, .. }) => Some(*elem),
            _ => None,
        }
    }

    /// Members of an enum type.
    pub fn enum_members(&self, d: DeclId) -> Option<&[String]> {
        match self.info(d)? {
            Info::Enum(m) => Some(m),
            _ => None,
        }
    }
}

/// Builds the tables and resolves every type written in a declaration (not in bodies).
pub fn build(model: &mut Model, diags: &mut Vec<Diagnostic>) -> (Tables, TypeResolver) {
    let mut names = HashMap::new();
    let mut first_span: HashMap<String, Span> = HashMap::new();
    let mut decl_names = Vec::new();
    for (i, d) in model.decls.iter().enumerate() {
        let id = i as DeclId;
        decl_names.push(d.name.name.clone());
        if first_span.contains_key(&d.name.name) {
            diags.push(
                Diagnostic::error(d.name.span, format!("duplicate type `{}`", d.name.name))
                    .with_label("declared again here")
                    .with_note("all type names share one global namespace"),
            );
            continue;
        }
        first_span.insert(d.name.name.clone(), d.name.span);
        names.insert(d.name.name.clone(), (id, kind_type(&d.kind, id)));
    }
    let resolver = TypeResolver { names };
    let mut infos = Vec::new();
    for d in model.decls.iter_mut() {
        let info = decl_info(&resolver, d, diags);
        infos.push(info);
    }
    let mut tables = Tables {
        names: resolver
            .names
            .iter()
            .map(|(k, (id, _))| (k.clone(), *id))
            .collect(),
        decl_names,
        infos,
    };
    for (i, d) in model.decls.iter().enumerate() {
        if let DeclKind::Class(c) = &d.kind {
            let ids = resolve_interfaces(&tables, c, diags);
            if let Some(Info::Class { interfaces, .. }) = tables.infos.get_mut(i) {
                *interfaces = ids;
            }
        }
    }
    for (i, d) in model.decls.iter().enumerate() {
        match &d.kind {
            DeclKind::Class(c) => {
                let ids = match tables.info(i as DeclId) {
                    Some(Info::Class { interfaces, .. }) => interfaces.clone(),
                    _ => Vec::new(),
                };
                check_implementations(&tables, i as DeclId, &d.name.name, c, &ids, diags);
            }
            DeclKind::Struct(_) => check_struct_cycle(&tables, i as DeclId, d.name.span, diags),
            _ => {}
        }
    }
    (tables, resolver)
}

/// The interfaces a class lists, reporting names that are not interfaces.
fn resolve_interfaces(tables: &Tables, c: &ClassDecl, diags: &mut Vec<Diagnostic>) -> Vec<DeclId> {
    let mut out = Vec::new();
    for n in &c.interfaces {
        match tables.names.get(&n.name) {
            Some(&id) if matches!(tables.info(id), Some(Info::Interface(_))) => out.push(id),
            Some(_) => diags.push(
                Diagnostic::error(n.span, format!("`{}` is not an interface", n.name))
                    .with_label("classes can only implement interfaces (there is no inheritance)"),
            ),
            None => diags.push(
                Diagnostic::error(n.span, format!("unknown interface `{}`", n.name))
                    .with_label("no declaration of this interface"),
            ),
        }
    }
    out
}

/// Every method of every listed interface must exist in the class with the same signature.
fn check_implementations(
    tables: &Tables,
    class: DeclId,
    class_name: &str,
    c: &ClassDecl,
    interfaces: &[DeclId],
    diags: &mut Vec<Diagnostic>,
) {
    for &i in interfaces {
        let Some(Info::Interface(sigs)) = tables.info(i) else {
            continue;
        };
        let iname = tables.type_name(Type::Interface(i));
        for s in sigs {
            let ok = match tables.method(class, &s.name) {
                Some((_, m)) => {
                    !m.is_static
                        && m.ret == s.ret
                        && m.params.len() == s.params.len()
                        && m.params
                            .iter()
                            .zip(&s.params)
                            .all(|(a, b)| a.1 == b.1 && a.2 == b.2)
                }
                None => false,
            };
            if !ok {
                let span = c
                    .interfaces
                    .iter()
                    .find(|n| n.name == iname)
                    .map_or(Span::default(), |n| n.span);
                diags.push(
                    Diagnostic::error(
                        span,
                        format!("class `{class_name}` does not implement `{iname}.{}`", s.name),
                    )
                    .with_label(format!("`{}` is missing or has a different signature", s.name))
                    .with_note("implement it as an instance method with the same parameter and result types"),
                );
            }
        }
    }
}

/// Reports a struct that contains itself by value (it would be infinitely large).
fn check_struct_cycle(tables: &Tables, s: DeclId, span: Span, diags: &mut Vec<Diagnostic>) {
    let mut stack = vec![s];
    let mut seen = vec![false; tables.infos.len()];
    while let Some(d) = stack.pop() {
        let Some(Info::Struct(fields)) = tables.info(d) else {
            continue;
        };
        for (_, t) in fields {
            if let Type::Struct(inner) = t {
                if *inner == s {
                    diags.push(
                        Diagnostic::error(span, format!("struct `{}` contains itself", tables.type_name(Type::Struct(s))))
                            .with_label("a struct field of this type (directly or nested) makes it infinitely large")
                            .with_note("use a class (a reference type) for recursive data"),
                    );
                    return;
                }
                if let Some(flag) = seen.get_mut(*inner as usize) {
                    if !*flag {
                        *flag = true;
                        stack.push(*inner);
                    }
                }
            }
        }
    }
}

/// Resolves one declaration's types and checks its declaration-level rules.
fn decl_info(r: &TypeResolver, d: &mut Decl, diags: &mut Vec<Diagnostic>) -> Info {
    let decl_name = d.name.name.clone();
    match &mut d.kind {
        DeclKind::Class(c) => class_info(r, &decl_name, c, diags),
        DeclKind::Struct(fields) => {
            let mut out = Vec::new();
            let mut seen: HashMap<String, Span> = HashMap::new();
            for f in fields.iter_mut() {
                let t = r.resolve(&mut f.ty, TypeUse::Value, diags);
                if let Some(init) = &f.init {
                    diags.push(
                        Diagnostic::error(init.span, "struct fields cannot have initializers")
                            .with_label("remove this initializer")
                            .with_note("struct fields start at their type's default value"),
                    );
                }
                if seen.insert(f.name.name.clone(), f.name.span).is_some() {
                    diags.push(duplicate(&f.name, "field", &decl_name));
                }
                out.push((f.name.name.clone(), t));
            }
            Info::Struct(out)
        }
        DeclKind::Interface(sigs) => {
            let mut out = Vec::new();
            let mut seen: HashMap<String, Span> = HashMap::new();
            for s in sigs.iter_mut() {
                if seen.insert(s.name.name.clone(), s.name.span).is_some() {
                    diags.push(duplicate(&s.name, "method", &decl_name));
                }
                out.push(sig_info(r, s, false, false, diags));
            }
            Info::Interface(out)
        }
        DeclKind::Enum(members) => {
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for m in members.iter() {
                if seen.insert(&m.name, m.span).is_some() {
                    diags.push(duplicate(m, "member", &decl_name));
                }
            }
            Info::Enum(members.iter().map(|m| m.name.clone()).collect())
        }
        DeclKind::Range(rd) => {
            let lo = const_int(&rd.lo, diags);
            let hi = const_int(&rd.hi, diags);
            rd.bounds = lo.zip(hi);
            Info::Range(rd.bounds)
        }
        DeclKind::Chan(t) => Info::Chan(r.resolve(t, TypeUse::Value, diags)),
        DeclKind::Set(t) => {
            let e = r.resolve(t, TypeUse::Value, diags);
            if matches!(e, Type::Struct(_)) {
                diags.push(
                    Diagnostic::error(t.span, "set elements cannot be structs")
                        .with_label("a set holds scalars, enums or references"),
                );
            }
            Info::Set(e)
        }
        DeclKind::Array(a) => {
            let elem = r.resolve(&mut a.elem, TypeUse::Value, diags);
            let kind = match &mut a.size {
                ArraySize::Dynamic => ArrayKind::Dynamic,
                ArraySize::Fixed(n) => ArrayKind::Fixed(*n),
                ArraySize::Enum(name, slot) => match r.names.get(&name.name) {
                    Some((id, Type::Enum(_))) => {
                        *slot = Some(*id);
                        ArrayKind::Enum(*id)
                    }
                    Some((_, Type::Range(_))) => {
                        diags.push(
                            Diagnostic::error(
                                name.span,
                                "arrays cannot be indexed by a range type",
                            )
                            .with_label("use a number, an enum type, or `[]`"),
                        );
                        ArrayKind::Dynamic
                    }
                    Some(_) => {
                        diags.push(
                            Diagnostic::error(
                                name.span,
                                format!("`{}` is not an enum type", name.name),
                            )
                            .with_label("an array size is a number, an enum type, or empty"),
                        );
                        ArrayKind::Dynamic
                    }
                    None => {
                        diags.push(
                            Diagnostic::error(name.span, format!("unknown type `{}`", name.name))
                                .with_label("no declaration of this type"),
                        );
                        ArrayKind::Dynamic
                    }
                },
            };
            Info::Array { kind, elem }
        }
    }
}

/// "duplicate field `x` in `C`".
fn duplicate(name: &Ident, what: &str, owner: &str) -> Diagnostic {
    Diagnostic::error(
        name.span,
        format!("duplicate {what} `{}` in `{owner}`", name.name),
    )
    .with_label("declared again here")
}

/// The signature of a method, resolving its types.
fn sig_info(
    r: &TypeResolver,
    s: &mut MethodSig,
    is_static: bool,
    is_atomic: bool,
    diags: &mut Vec<Diagnostic>,
) -> SigInfo {
    let ret = r.resolve(&mut s.ret, TypeUse::Return, diags);
    let mut params = Vec::new();
    let mut seen: HashMap<String, Span> = HashMap::new();
    for p in s.params.iter_mut() {
        let t = r.resolve(&mut p.ty, TypeUse::Value, diags);
        if seen.insert(p.name.name.clone(), p.name.span).is_some() {
            diags.push(
                Diagnostic::error(
                    p.name.span,
                    format!("duplicate parameter `{}`", p.name.name),
                )
                .with_label("declared again here"),
            );
        }
        params.push((p.name.name.clone(), t, p.is_out));
    }
    SigInfo {
        name: s.name.name.clone(),
        ret,
        params,
        is_static,
        is_atomic,
        span: s.name.span,
    }
}

fn class_info(
    r: &TypeResolver,
    class: &str,
    c: &mut ClassDecl,
    diags: &mut Vec<Diagnostic>,
) -> Info {
    let mut seen: HashMap<String, Span> = HashMap::new();
    let mut fields = Vec::new();
    for f in c.fields.iter_mut() {
        let t = r.resolve(&mut f.ty, TypeUse::Value, diags);
        for (m, what) in [
            (f.mods.is_atomic, "atomic"),
            (f.mods.is_activate, "activate"),
        ] {
            if let Some(span) = m {
                diags.push(
                    Diagnostic::error(span, format!("`{what}` is not allowed on a field"))
                        .with_label("only `static` may modify a field"),
                );
            }
        }
        if seen.insert(f.name.name.clone(), f.name.span).is_some() {
            diags.push(duplicate(&f.name, "member", class));
        }
        fields.push(FieldInfo {
            name: f.name.name.clone(),
            ty: t,
            is_static: f.mods.is_static.is_some(),
        });
    }
    let mut methods = Vec::new();
    for m in c.methods.iter_mut() {
        let is_static = m.mods.is_static.is_some();
        let sig = sig_info(r, &mut m.sig, is_static, m.mods.is_atomic.is_some(), diags);
        if seen
            .insert(m.sig.name.name.clone(), m.sig.name.span)
            .is_some()
        {
            diags.push(
                duplicate(&m.sig.name, "member", class)
                    .with_note("Zing has no overloading: members of a class need distinct names"),
            );
        }
        if let Some(span) = m.mods.is_activate {
            let mut problems = Vec::new();
            if !is_static {
                problems.push("be `static`");
            }
            if sig.ret != Type::Void && sig.ret != Type::Error {
                problems.push("return `void`");
            }
            if !sig.params.is_empty() {
                problems.push("take no parameters");
            }
            if !problems.is_empty() {
                diags.push(
                    Diagnostic::error(
                        m.sig.name.span,
                        format!(
                            "`activate` method `{}` must {}",
                            sig.name,
                            problems.join(", ")
                        ),
                    )
                    .with_label("not a valid process entry")
                    .with_note(format!("declared `activate` here (byte {})", span.start))
                    .with_note("write `activate static void name() { … }`"),
                );
            }
        }
        methods.push(sig);
    }
    Info::Class {
        fields,
        methods,
        interfaces: Vec::new(),
    }
}

/// Folds an integer constant expression (literals, unary `+`/`-`, `+ - * / %`).
pub fn const_int(e: &Expr, diags: &mut Vec<Diagnostic>) -> Option<i64> {
    fn fold(e: &Expr) -> Option<i128> {
        crate::deep::grow(|| match &e.kind {
            ExprKind::Int(v) => Some(*v as i128),
            ExprKind::Unary(UnOp::Neg, x) => fold(x).map(|v| -v),
            ExprKind::Unary(UnOp::Plus, x) => fold(x),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (fold(a)?, fold(b)?);
                match op {
                    BinOp::Add => a.checked_add(b),
                    BinOp::Sub => a.checked_sub(b),
                    BinOp::Mul => a.checked_mul(b),
                    BinOp::Div => a.checked_div(b),
                    BinOp::Rem => a.checked_rem(b),
                    _ => None,
                }
            }
            _ => None,
        })
    }
    match fold(e).and_then(|v| i64::try_from(v).ok()) {
        Some(v) => Some(v),
        None => {
            diags.push(
                Diagnostic::error(e.span, "range bounds must be integer constants")
                    .with_label("not a constant integer that fits `long`"),
            );
            None
        }
    }
}
