//! The syntax tree of a boolean program, as written: names are still strings and every piece
//! keeps its span, so that the checks of §2.7 can point at the offending token.

use crate::ir::Span;

/// A name (plain or brace) or a numeric label, with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole file: global declarations and procedures in file order.
#[derive(Debug, Default)]
pub struct Program {
    pub decls: Vec<DeclGroup>,
    pub procs: Vec<ProcDecl>,
}

/// `decl [thread_local] a, b := T;` (global or local).
#[derive(Debug)]
pub struct DeclGroup {
    pub thread_local: bool,
    pub items: Vec<DeclItem>,
    pub span: Span,
}

/// One declared name with its optional initialiser.
#[derive(Debug)]
pub struct DeclItem {
    pub name: Ident,
    pub init: InitValue,
}

/// The value an initialiser fixes: `T`/`1`, `F`/`0`, or none (`*`, `?`, or no initialiser).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitValue {
    Any,
    Value(bool),
}

/// A procedure definition.
#[derive(Debug)]
pub struct ProcDecl {
    pub name: Ident,
    /// Number of results (0 for `void` or no type), and the span of the type when written.
    pub results: u64,
    pub type_span: Option<Span>,
    pub params: Vec<Ident>,
    pub body: Vec<Item>,
    /// The `end` keyword.
    pub end_span: Span,
    pub span: Span,
}

/// An element of a statement list (§3.1).
#[derive(Debug)]
pub enum Item {
    Decl(DeclGroup),
    Enforce(Expr, Span),
    Stmt(Stmt),
}

/// A statement with its labels.
#[derive(Debug)]
pub struct Stmt {
    pub labels: Vec<Ident>,
    pub kind: StmtKind,
    /// The bare statement, without labels and without the `;`.
    pub span: Span,
}

/// An assignment target or call receiver.
#[derive(Clone, Debug)]
pub enum Target {
    Var(Ident),
    Discard(Span),
}

/// One `if`/`elsif` arm: condition, the span `if … cond`, and the branch.
#[derive(Debug)]
pub struct Arm {
    pub cond: Expr,
    pub head: Span,
    pub body: Vec<Item>,
}

/// The statements of §3.
#[derive(Debug)]
pub enum StmtKind {
    Skip,
    Goto(Vec<Ident>),
    Assign {
        targets: Vec<Target>,
        values: Vec<Expr>,
        constrain: Option<Expr>,
    },
    Call {
        receivers: Vec<Target>,
        callee: Ident,
        args: Vec<Expr>,
    },
    Return(Vec<Expr>, Span),
    If {
        arms: Vec<Arm>,
        els: Option<Vec<Item>>,
    },
    While {
        cond: Expr,
        head: Span,
        body: Vec<Item>,
    },
    Assert(Expr),
    Assume(Expr),
    Abortif(Expr),
    Constrain(Expr),
    Dead(Vec<Ident>),
    Print(Vec<Expr>),
    Sync,
    StartThread {
        callee: Ident,
        args: Vec<Expr>,
    },
    StartThreadGoto(Ident),
    EndThread,
    AtomicBegin,
    AtomicEnd,
    /// A statement already reported as unsupported (E14, E15); lowers to nothing useful.
    Rejected,
}

/// Binary operators after aliasing (`==` is `=`, `&&` is `&`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Implies,
}

/// An expression with its span and tree height (1 for a leaf).
#[derive(Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    pub height: u32,
}

/// Expression forms of §4.1.
#[derive(Debug)]
pub enum ExprKind {
    /// A name: a variable, `T`, `F` or `_` (told apart during resolution).
    Name(String),
    /// `'x`; the span of the name is the expression's span minus the prime.
    Primed(Ident),
    /// A digit string; only `0` and `1` are valid (E11).
    Number(String),
    Nondet,
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `schoose[...]` with any number of arguments (two required, E10).
    Schoose(Vec<Expr>),
}

/// Dropping a tree of any depth without recursing (as [`crate::ir::Expr`]'s drop does). Only
/// children with children of their own are moved to the work list: a node whose operands are
/// names or numbers drops them in place, without allocating a list (on bebop-t 6400 that was
/// most of dropping the syntax tree).
impl Drop for ExprKind {
    fn drop(&mut self) {
        fn leaf(k: &ExprKind) -> bool {
            matches!(
                k,
                ExprKind::Name(_) | ExprKind::Primed(_) | ExprKind::Number(_) | ExprKind::Nondet
            )
        }
        fn take_children(k: &mut ExprKind, out: &mut Vec<ExprKind>) {
            let mut take = |b: &mut Expr| {
                if !leaf(&b.kind) {
                    out.push(std::mem::replace(&mut b.kind, ExprKind::Nondet))
                }
            };
            match k {
                ExprKind::Name(_)
                | ExprKind::Primed(_)
                | ExprKind::Number(_)
                | ExprKind::Nondet => {}
                ExprKind::Not(a) => take(a),
                ExprKind::Binary(_, a, b) => {
                    take(a);
                    take(b);
                }
                ExprKind::Ite(c, a, b) => {
                    take(c);
                    take(a);
                    take(b);
                }
                ExprKind::Schoose(args) => args.iter_mut().for_each(take),
            }
        }
        let mut work = Vec::new();
        take_children(self, &mut work);
        while let Some(mut k) = work.pop() {
            take_children(&mut k, &mut work);
        }
    }
}
