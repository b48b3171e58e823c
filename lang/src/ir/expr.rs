//! Expressions: the operators and the typed [`Expr`] tree that statements evaluate, with the
//! deep-tree-safe drop and clone and the walks over subexpressions.

use super::*;

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    Not,
}

/// Integer operators. The operation is carried out in the type given with it
/// ([`Expr::Arith`]); a result outside that type is an arithmetic-overflow error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    /// Truncates toward zero; by zero is a divide-by-zero error.
    Div,
    /// Takes the sign of the dividend; by zero is a divide-by-zero error.
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
}

impl ArithOp {
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Rem => "%",
            ArithOp::Shl => "<<",
            ArithOp::Shr => ">>",
            ArithOp::BitAnd => "&",
            ArithOp::BitOr => "|",
            ArithOp::BitXor => "^",
        }
    }
}

/// Integer comparisons (enums compare by ordinal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Implies,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Eq => "=",
            BinOp::Ne => "!=",
            BinOp::Implies => "=>",
        }
    }
}

/// A typed expression tree. Evaluation has no side effects; `Nondet` is a fresh value at every
/// evaluation of that occurrence.
#[derive(Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Expr {
    Const(Const),
    Local(u32),
    Global(u32),
    /// `'x` in a constraint: the value of a local after the step.
    PrimedLocal(u32),
    /// `'g` in a constraint: the value of a global after the step.
    PrimedGlobal(u32),
    /// `y$` in a broadcast assignment: slot `i` of the passive thread the right-hand side is
    /// being evaluated for (never this frame's own slot).
    PassiveLocal(u32),
    /// `'y$` in a broadcast assignment's constraint: the passive thread's value after the step.
    PrimedPassiveLocal(u32),
    /// `*` or `?`: a fresh nondeterministic boolean.
    Nondet,
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `schoose[a, b]`: true if `a`, else false if `b`, else fresh.
    Schoose(Box<Expr>, Box<Expr>),
    /// Field `f` of the object `e` refers to (null: a null-dereference error).
    Field(Box<Expr>, u32),
    /// Integer arithmetic in type `ty` (`Type::Int` or a range/enum's underlying int).
    Arith(ArithOp, Type, Box<Expr>, Box<Expr>),
    /// Unary minus in type `ty` (overflow checked).
    Neg(Type, Box<Expr>),
    /// Bitwise complement in type `ty`.
    BitNot(Type, Box<Expr>),
    /// Integer comparison.
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// Conversion of an integer to type `ty` (out of range: an arithmetic-overflow error).
    Convert(Type, Box<Expr>),
    /// Element `index` of a collection object (see [`LValue::Elem`]).
    Elem(Box<Expr>, Box<Expr>, Width),
    /// `sizeof(e)`: the number of elements of an array, set or channel object, each `u32`
    /// fields wide (null: null dereference).
    Size(Box<Expr>, u32),
    /// `e in s`: whether the set object `s` holds `e` (null: null dereference).
    In(Box<Expr>, Box<Expr>),
    /// `self`: the identifier of the executing process.
    SelfId,
    /// A call of a side-effect-free `bool` method inside a Zing `wait` (zing-language.md §5.8):
    /// the callee runs to its return within the evaluation.
    Call(ProcId, Vec<Expr>),
    /// Whether the reference `e` refers to an object of class `c` (null: a null-dereference
    /// error): dispatch of a call through an interface.
    ClassIs(Box<Expr>, u32),
}

/// Dropping a tree of any depth: the subtrees are moved onto a heap-allocated work list
/// (their places left as leaves), so the compiler's recursive drop never goes deeper than one
/// level.
impl Drop for Expr {
    fn drop(&mut self) {
        fn take_children(e: &mut Expr, out: &mut Vec<Expr>) {
            e.for_each_child_mut(|c| {
                if !c.is_leaf() {
                    out.push(std::mem::replace(c, Expr::Nondet));
                }
            });
        }
        let mut work = Vec::new();
        take_children(self, &mut work);
        while let Some(mut e) = work.pop() {
            take_children(&mut e, &mut work);
        }
    }
}

/// Copying a tree of any depth (each level enters [`crate::deep::grow`]).
impl Clone for Expr {
    fn clone(&self) -> Expr {
        let b = |e: &Expr| Box::new(e.clone());
        crate::deep::grow(|| match self {
            Expr::Const(c) => Expr::Const(*c),
            Expr::Local(i) => Expr::Local(*i),
            Expr::Global(i) => Expr::Global(*i),
            Expr::PrimedLocal(i) => Expr::PrimedLocal(*i),
            Expr::PrimedGlobal(i) => Expr::PrimedGlobal(*i),
            Expr::PassiveLocal(i) => Expr::PassiveLocal(*i),
            Expr::PrimedPassiveLocal(i) => Expr::PrimedPassiveLocal(*i),
            Expr::Nondet => Expr::Nondet,
            Expr::SelfId => Expr::SelfId,
            Expr::Unary(o, a) => Expr::Unary(*o, b(a)),
            Expr::Binary(o, x, y) => Expr::Binary(*o, b(x), b(y)),
            Expr::Ite(c, x, y) => Expr::Ite(b(c), b(x), b(y)),
            Expr::Schoose(x, y) => Expr::Schoose(b(x), b(y)),
            Expr::Field(x, f) => Expr::Field(b(x), *f),
            Expr::Arith(o, t, x, y) => Expr::Arith(*o, *t, b(x), b(y)),
            Expr::Neg(t, x) => Expr::Neg(*t, b(x)),
            Expr::BitNot(t, x) => Expr::BitNot(*t, b(x)),
            Expr::Cmp(o, x, y) => Expr::Cmp(*o, b(x), b(y)),
            Expr::Convert(t, x) => Expr::Convert(*t, b(x)),
            Expr::Elem(x, y, w) => Expr::Elem(b(x), b(y), *w),
            Expr::Size(x, w) => Expr::Size(b(x), *w),
            Expr::In(x, y) => Expr::In(b(x), b(y)),
            Expr::Call(p, args) => Expr::Call(*p, args.clone()),
            Expr::ClassIs(x, c) => Expr::ClassIs(b(x), *c),
        })
    }
}

impl Expr {
    /// Whether this expression has no subexpressions (a walk need not guard its stack).
    #[inline]
    pub fn is_leaf(&self) -> bool {
        matches!(
            self,
            Expr::Const(_)
                | Expr::Local(_)
                | Expr::Global(_)
                | Expr::PrimedLocal(_)
                | Expr::PrimedGlobal(_)
                | Expr::Nondet
                | Expr::SelfId
        )
    }

    #[allow(clippy::should_implement_trait)]
    pub fn not(e: Expr) -> Expr {
        Expr::Unary(UnOp::Not, Box::new(e))
    }
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }
    /// Whether evaluating this expression can make a nondeterministic choice.
    pub fn is_nondet(&self) -> bool {
        // (asked at every step of an assignment: a leaf answers without the stack check)
        if self.is_leaf() {
            return matches!(self, Expr::Nondet);
        }
        crate::deep::grow(|| self.is_nondet_here())
    }

    fn is_nondet_here(&self) -> bool {
        match self {
            Expr::Nondet | Expr::Schoose(..) => true,
            Expr::Const(_)
            | Expr::Local(_)
            | Expr::Global(_)
            | Expr::PrimedLocal(_)
            | Expr::PrimedGlobal(_)
            | Expr::PassiveLocal(_)
            | Expr::PrimedPassiveLocal(_) => false,
            Expr::Unary(_, a) => a.is_nondet(),
            Expr::Binary(_, a, b) => a.is_nondet() || b.is_nondet(),
            Expr::Ite(c, a, b) => c.is_nondet() || a.is_nondet() || b.is_nondet(),
            Expr::Field(e, _) | Expr::Neg(_, e) | Expr::BitNot(_, e) | Expr::Convert(_, e) => {
                e.is_nondet()
            }
            Expr::Arith(_, _, a, b) | Expr::Cmp(_, a, b) | Expr::Elem(a, b, _) | Expr::In(a, b) => {
                a.is_nondet() || b.is_nondet()
            }
            Expr::Size(e, _) => e.is_nondet(),
            Expr::SelfId => false,
            Expr::Call(_, args) => args.iter().any(Expr::is_nondet),
            Expr::ClassIs(e, _) => e.is_nondet(),
        }
    }

    /// Whether the expression names a passive variable (`y$` or `'y$`).
    pub fn mentions_passive(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            found |= matches!(e, Expr::PassiveLocal(_) | Expr::PrimedPassiveLocal(_));
        });
        found
    }

    /// Calls `f` with the slot of every passive variable the expression reads (`y$` and the
    /// `'y$` of slots not in `targets`, whose new value is the old one).
    pub fn passive_reads(&self, targets: &[u32], f: &mut impl FnMut(u32)) {
        self.walk(&mut |e| match e {
            Expr::PassiveLocal(i) => f(*i),
            Expr::PrimedPassiveLocal(i) if !targets.contains(i) => f(*i),
            _ => {}
        });
    }
}

impl Expr {
    /// Calls `f` on this expression and on every expression inside it, parents first (the
    /// arguments of a wait-condition call included, not the callee's body).
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        crate::deep::grow(|| self.walk_here(f))
    }

    fn walk_here<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        self.for_each_child(|c| c.walk(f));
    }

    /// Calls `f` on each direct subexpression, in order: the one place, with
    /// [`Expr::for_each_child_mut`], that lists the tree's shape.
    pub fn for_each_child<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        match self {
            Expr::Const(_)
            | Expr::Local(_)
            | Expr::Global(_)
            | Expr::PrimedLocal(_)
            | Expr::PrimedGlobal(_)
            | Expr::PassiveLocal(_)
            | Expr::PrimedPassiveLocal(_)
            | Expr::Nondet
            | Expr::SelfId => {}
            Expr::Unary(_, a)
            | Expr::Field(a, _)
            | Expr::Neg(_, a)
            | Expr::BitNot(_, a)
            | Expr::Convert(_, a)
            | Expr::Size(a, _)
            | Expr::ClassIs(a, _) => f(a),
            Expr::Binary(_, a, b)
            | Expr::Schoose(a, b)
            | Expr::Arith(_, _, a, b)
            | Expr::Cmp(_, a, b)
            | Expr::Elem(a, b, _)
            | Expr::In(a, b) => {
                f(a);
                f(b);
            }
            Expr::Ite(c, a, b) => {
                f(c);
                f(a);
                f(b);
            }
            Expr::Call(_, args) => args.iter().for_each(f),
        }
    }

    /// [`Expr::for_each_child`] with each subexpression mutable.
    pub fn for_each_child_mut(&mut self, mut f: impl FnMut(&mut Expr)) {
        match self {
            Expr::Const(_)
            | Expr::Local(_)
            | Expr::Global(_)
            | Expr::PrimedLocal(_)
            | Expr::PrimedGlobal(_)
            | Expr::PassiveLocal(_)
            | Expr::PrimedPassiveLocal(_)
            | Expr::Nondet
            | Expr::SelfId => {}
            Expr::Unary(_, a)
            | Expr::Field(a, _)
            | Expr::Neg(_, a)
            | Expr::BitNot(_, a)
            | Expr::Convert(_, a)
            | Expr::Size(a, _)
            | Expr::ClassIs(a, _) => f(a),
            Expr::Binary(_, a, b)
            | Expr::Schoose(a, b)
            | Expr::Arith(_, _, a, b)
            | Expr::Cmp(_, a, b)
            | Expr::Elem(a, b, _)
            | Expr::In(a, b) => {
                f(a);
                f(b);
            }
            Expr::Ite(c, a, b) => {
                f(c);
                f(a);
                f(b);
            }
            Expr::Call(_, args) => args.iter_mut().for_each(f),
        }
    }
}
