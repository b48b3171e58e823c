//! The Zing syntax tree. The parser builds it with every type and name unresolved; the
//! checker fills in [`TypeExpr::ty`], [`Expr::ty`], [`NameRes`], [`MemberRes`], call targets
//! and per-method local tables in place.

use super::types::{DeclId, Type};
use crate::ir::Span;
use serde::Serialize;

/// A name and where it is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole model: its type declarations in source order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Model {
    pub decls: Vec<Decl>,
}

/// A top-level type declaration.
#[derive(Clone, Debug, Serialize)]
pub struct Decl {
    pub name: Ident,
    pub kind: DeclKind,
    pub span: Span,
}

/// What a top-level declaration declares.
#[derive(Clone, Debug, Serialize)]
pub enum DeclKind {
    Class(ClassDecl),
    Struct(Vec<StructField>),
    Interface(Vec<MethodSig>),
    /// Enum members in ordinal order.
    Enum(Vec<Ident>),
    Range(RangeDecl),
    /// Channel message type.
    Chan(TypeExpr),
    /// Set element type.
    Set(TypeExpr),
    Array(ArrayDecl),
}

/// A type as written (`ty` filled in by the checker).
#[derive(Clone, Debug, Serialize)]
pub struct TypeExpr {
    pub name: TypeName,
    pub span: Span,
    pub ty: Type,
}

/// The spelling of a type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum TypeName {
    /// A built-in type keyword (`bool`, `int`, `object`, `void`, `string`, ...).
    Builtin(Type),
    /// `float`, `double` or `decimal`: reserved, rejected by the checker.
    Unsupported(&'static str),
    /// A declared type.
    Named(String),
}

/// `class C [: I, …] { members };`
#[derive(Clone, Debug, Serialize)]
pub struct ClassDecl {
    pub interfaces: Vec<Ident>,
    pub fields: Vec<Field>,
    pub methods: Vec<Method>,
}

/// The modifiers written before a member.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Modifiers {
    pub is_static: Option<Span>,
    pub is_atomic: Option<Span>,
    pub is_activate: Option<Span>,
}

/// A class field (static or instance) with an optional initializer.
#[derive(Clone, Debug, Serialize)]
pub struct Field {
    pub mods: Modifiers,
    pub ty: TypeExpr,
    pub name: Ident,
    pub init: Option<Expr>,
    pub span: Span,
}

/// A method parameter.
#[derive(Clone, Debug, Serialize)]
pub struct Param {
    pub is_out: bool,
    pub ty: TypeExpr,
    pub name: Ident,
}

/// A method's signature (also an interface member).
#[derive(Clone, Debug, Serialize)]
pub struct MethodSig {
    pub ret: TypeExpr,
    pub name: Ident,
    pub params: Vec<Param>,
    pub span: Span,
}

/// A method with its body. `locals` is filled by the checker: every local variable
/// (including `foreach` variables), indexed by [`NameRes::Local`].
#[derive(Clone, Debug, Serialize)]
pub struct Method {
    pub mods: Modifiers,
    pub sig: MethodSig,
    pub body: Block,
    pub locals: Vec<LocalVar>,
    pub span: Span,
}

/// A local variable of a method.
#[derive(Clone, Debug, Serialize)]
pub struct LocalVar {
    pub name: Ident,
    pub ty: Type,
}

/// A struct field.
#[derive(Clone, Debug, Serialize)]
pub struct StructField {
    pub ty: TypeExpr,
    pub name: Ident,
    /// An initializer, which structs do not allow (kept to report it).
    pub init: Option<Expr>,
}

/// `range R lo .. hi;` (`bounds` filled by the checker).
#[derive(Clone, Debug, Serialize)]
pub struct RangeDecl {
    pub lo: Expr,
    pub hi: Expr,
    pub bounds: Option<(i64, i64)>,
}

/// `array A[size] T;`
#[derive(Clone, Debug, Serialize)]
pub struct ArrayDecl {
    pub size: ArraySize,
    pub elem: TypeExpr,
}

/// The size part of an array declaration.
#[derive(Clone, Debug, Serialize)]
pub enum ArraySize {
    /// `[]`: chosen by `new A[e]`.
    Dynamic,
    /// `[N]`.
    Fixed(u64),
    /// `[E]` with `E` an enum type (checked by the checker; `decl` filled in).
    Enum(Ident, Option<DeclId>),
}

/// `{ statements }`.
#[derive(Clone, Debug, Serialize)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

/// A statement.
#[derive(Clone, Debug, Serialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// The kinds of statements (§4).
#[derive(Clone, Debug, Serialize)]
pub enum StmtKind {
    /// `;`
    Empty,
    Block(Block),
    /// `T x;` or `T x = e;` (`local` filled by the checker).
    Local {
        ty: TypeExpr,
        name: Ident,
        init: Option<Expr>,
        local: Option<u32>,
    },
    /// `t1 = t2 = … = value;` (usually one target). `value` may be a call or `choose`.
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    /// An expression statement; only calls are legal (the checker says so otherwise).
    Expr(Expr),
    /// `async call;`
    Async(Expr),
    /// `atomic { … }`
    Atomic(Block),
    /// `assert(e);` / `assert(e, "message");`
    Assert {
        cond: Expr,
        message: Option<Expr>,
    },
    Assume(Expr),
    Accept(Expr),
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    /// `foreach (T x in e) S` (`local` filled by the checker).
    Foreach {
        ty: TypeExpr,
        var: Ident,
        coll: Expr,
        body: Box<Stmt>,
        local: Option<u32>,
    },
    Goto(Ident),
    /// `L: S`
    Labeled {
        label: Ident,
        stmt: Box<Stmt>,
    },
    Return(Option<Expr>),
    /// `send(ch, e);`
    Send {
        chan: Expr,
        msg: Expr,
    },
    Select(Select),
    /// `try B with { N -> S … }`
    Try {
        body: Block,
        handlers: Vec<Handler>,
    },
    Raise(Ident),
    Yield,
    /// `trace("fmt", args…);` (`args[0]` is the format).
    Trace(Vec<Expr>),
    /// `event(e1, e2, e3);`
    Event(Vec<Expr>),
    /// `invokeplugin("name", args…);`
    InvokePlugin(Vec<Expr>),
    InvokeScheduler(Vec<Expr>),
}

/// `select [end] [first] [visible] { join … }`
#[derive(Clone, Debug, Serialize)]
pub struct Select {
    pub is_end: bool,
    pub is_first: bool,
    pub is_visible: bool,
    pub branches: Vec<JoinStmt>,
}

/// `pattern && … -> statement`
#[derive(Clone, Debug, Serialize)]
pub struct JoinStmt {
    pub patterns: Vec<Pattern>,
    pub body: Box<Stmt>,
    pub span: Span,
}

/// One pattern of a join statement.
#[derive(Clone, Debug, Serialize)]
pub enum Pattern {
    Wait(Expr),
    Receive { chan: Expr, target: Expr },
    Timeout(Span),
    Event(Vec<Expr>, Span),
}

/// A `with` handler: `N -> S` or `* -> S` (`name` is `None`).
#[derive(Clone, Debug, Serialize)]
pub struct Handler {
    pub name: Option<Ident>,
    pub body: Stmt,
    pub span: Span,
}

/// An expression with its type (`Type::Error` until checked).
#[derive(Clone, Debug, Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    pub ty: Type,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum UnOp {
    Plus,
    Neg,
    Not,
    BitNot,
}

/// Binary operators (`&&`/`||` short-circuit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinOp {
    /// How the operator is written.
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            And => "&&",
            Or => "||",
        }
    }
}

/// What a simple name denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum NameRes {
    Unresolved,
    /// A local variable of the enclosing method (index into [`Method::locals`]).
    Local(u32),
    /// A parameter (index into the signature's params).
    Param(u32),
    /// An instance field of the enclosing class (index into its `fields`).
    Field {
        class: DeclId,
        index: u32,
    },
    /// A static field (index into the class's `fields`).
    Static {
        class: DeclId,
        index: u32,
    },
    /// A method of the enclosing class (only as a callee).
    Method {
        class: DeclId,
        index: u32,
    },
    /// A type name (in `choose(E)`, `sizeof(A)`, `C.f`, `E.x`).
    Type(DeclId),
}

/// What `base.name` denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MemberRes {
    Unresolved,
    /// An instance field of a class object.
    Field {
        class: DeclId,
        index: u32,
    },
    /// `C.f`: a static field.
    Static {
        class: DeclId,
        index: u32,
    },
    /// A field of a struct value.
    StructField {
        strukt: DeclId,
        index: u32,
    },
    /// `E.x`: an enum member.
    EnumMember {
        enumeration: DeclId,
        ordinal: u32,
    },
    /// `e.m` or `C.m` as a callee.
    Method {
        class: DeclId,
        index: u32,
    },
    /// `e.m` through an interface reference.
    InterfaceMethod {
        iface: DeclId,
        index: u32,
    },
}

/// The method a call invokes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CallTarget {
    Method { class: DeclId, index: u32 },
    InterfaceMethod { iface: DeclId, index: u32 },
}

/// A call argument; `out` arguments receive results.
#[derive(Clone, Debug, Serialize)]
pub struct Arg {
    pub is_out: bool,
    pub expr: Expr,
}

/// The kinds of expressions (§5).
#[derive(Clone, Debug, Serialize)]
pub enum ExprKind {
    /// An integer literal (its value; its type is in `ty`).
    Int(u64),
    Bool(bool),
    Null,
    /// A string literal's value.
    Str(String),
    This,
    /// `self`: the executing process's id.
    SelfId,
    Name(Ident, NameRes),
    /// `base.name`
    Member {
        base: Box<Expr>,
        name: Ident,
        res: MemberRes,
    },
    /// `base[index]`
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// `callee(args)`: `callee` is a name or a member access.
    Call {
        callee: Box<Expr>,
        args: Vec<Arg>,
        target: Option<CallTarget>,
    },
    /// `new T` or `new A[size]` (`decl` filled by the checker).
    New {
        ty: Ident,
        size: Option<Box<Expr>>,
        decl: Option<DeclId>,
    },
    /// `choose(bool)` (and other built-in types, which the checker rejects).
    ChooseType(TypeExpr),
    /// `choose(X)`: an enum or range type name, a set or an array.
    Choose(Box<Expr>),
    /// `sizeof(X)`: a channel, set or array, or a fixed-size array type name.
    Sizeof(Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `elem in set`
    In(Box<Expr>, Box<Expr>),
}

impl Expr {
    /// A new unchecked expression.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr {
            kind,
            span,
            ty: Type::Error,
        }
    }
}

/// Dropping an expression of any depth without recursing (as [`crate::ir::Expr`]'s drop
/// does): the children's kinds are moved onto a work list, each left as a leaf.
impl Drop for ExprKind {
    fn drop(&mut self) {
        fn take_children(k: &mut ExprKind, out: &mut Vec<ExprKind>) {
            let mut take = |e: &mut Expr| out.push(std::mem::replace(&mut e.kind, ExprKind::Null));
            match k {
                ExprKind::Int(_)
                | ExprKind::Bool(_)
                | ExprKind::Null
                | ExprKind::Str(_)
                | ExprKind::This
                | ExprKind::SelfId
                | ExprKind::Name(..)
                | ExprKind::ChooseType(_)
                | ExprKind::New { size: None, .. } => {}
                ExprKind::Member { base: a, .. }
                | ExprKind::New { size: Some(a), .. }
                | ExprKind::Choose(a)
                | ExprKind::Sizeof(a)
                | ExprKind::Unary(_, a) => take(a),
                ExprKind::Index { base: a, index: b }
                | ExprKind::Binary(_, a, b)
                | ExprKind::In(a, b) => {
                    take(a);
                    take(b);
                }
                ExprKind::Call { callee, args, .. } => {
                    take(callee);
                    for a in args {
                        take(&mut a.expr);
                    }
                }
            }
        }
        let mut work = Vec::new();
        take_children(self, &mut work);
        while let Some(mut k) = work.pop() {
            take_children(&mut k, &mut work);
        }
    }
}

/// Dropping statements nested to any depth without recursing: the nested statements' kinds
/// are moved onto a work list, each left as `;`.
impl Drop for StmtKind {
    fn drop(&mut self) {
        fn take_children(k: &mut StmtKind, out: &mut Vec<StmtKind>) {
            let mut take = |s: &mut Stmt| out.push(std::mem::replace(&mut s.kind, StmtKind::Empty));
            match k {
                StmtKind::Block(b) | StmtKind::Atomic(b) => b.stmts.iter_mut().for_each(take),
                StmtKind::If { then, els, .. } => {
                    take(then);
                    if let Some(e) = els {
                        take(e);
                    }
                }
                StmtKind::While { body, .. }
                | StmtKind::Foreach { body, .. }
                | StmtKind::Labeled { stmt: body, .. } => take(body),
                StmtKind::Select(sel) => sel.branches.iter_mut().for_each(|j| take(&mut j.body)),
                StmtKind::Try { body, handlers } => {
                    body.stmts.iter_mut().for_each(&mut take);
                    handlers.iter_mut().for_each(|h| take(&mut h.body));
                }
                _ => {}
            }
        }
        let mut work = Vec::new();
        take_children(self, &mut work);
        while let Some(mut k) = work.pop() {
            take_children(&mut k, &mut work);
        }
    }
}
