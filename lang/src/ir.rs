//! The intermediate representation every engine consumes.
//!
//! Both front ends lower into this one shape: a [`Program`] of global variables and procedures,
//! each procedure a vector of [`Node`]s indexed by [`Pc`]. A node is one statement with its
//! successors; nondeterminism is always explicit (a `Goto` with several successors, `Nondet` in
//! an expression, `Havoc`), never hidden in evaluation. Names are resolved to indices: a
//! `Local(i)` is slot `i` of the current frame (formals first), a `Global(i)` is field `i` of the
//! `globals` cell. Engines never see syntax; traces map back to text through [`Source`].

use serde::Serialize;

/// Index of a procedure in [`Program::procs`].
pub type ProcId = u32;
/// Index of a node in [`Proc::nodes`]; node 0 is the entry.
pub type Pc = u32;

/// A byte range in the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// The text a program came from, kept so that traces and diagnostics can quote it.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
    line_starts: Vec<u32>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        let text = text.into();
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        Source {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (line as u32 + 1, offset - self.line_starts[line] + 1)
    }

    /// The source text of a span, cut at its first line break and trimmed.
    pub fn snippet(&self, span: Span) -> &str {
        let s = span.start as usize;
        let e = (span.end as usize).min(self.text.len());
        let text = self.text.get(s..e.max(s)).unwrap_or("");
        text.lines().next().unwrap_or("").trim()
    }
}

/// Types of variables and fields. Boolean programs use `Bool` only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Type {
    Bool,
    Int { bits: u8, signed: bool },
    Enum(u32),
    Range(i64, i64),
    Ref(u32),
    Void,
}

/// A constant value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Const {
    Bool(bool),
    Int(i64),
    Null,
}

/// How a variable starts: with any value of its type, or with one constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Init {
    /// Every value of the type (Bebop's arbitrary initial values).
    Any,
    /// Exactly this value.
    Value(Const),
}

/// A global variable, a formal or a local.
#[derive(Clone, Debug, Serialize)]
pub struct Var {
    pub name: String,
    pub ty: Type,
    pub init: Init,
    /// Boolean programs' `decl thread_local`: one copy per thread.
    pub thread_local: bool,
    pub span: Span,
}

/// A place that can be written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum LValue {
    Local(u32),
    Global(u32),
    /// `y$` written by a broadcast assignment: slot `i` of the top frame of every *other*
    /// live thread whose top frame runs the same procedure (bp-language, passive variables).
    PassiveLocal(u32),
    /// Field `f` of the object the expression refers to (null: a null-dereference error).
    Field(Box<Expr>, u32),
    /// Element `index` of an array (or set, or channel) object: the field
    /// `index * width + offset` (null: null dereference; outside the elements: index error).
    Elem(Box<Expr>, Box<Expr>, Width),
}

/// How elements sit in a collection object: `width` fields per element, and which of them an
/// element access means (a struct element has several leaves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Width {
    pub width: u32,
    pub offset: u32,
}

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

/// What a statement touches: an expression it evaluates, or a place it writes (whose base and
/// index expressions it evaluates too: see [`LValue::reads`]).
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    Read(&'a Expr),
    Write(&'a LValue),
}

impl LValue {
    /// The expressions evaluated to find the place (an object's reference, an index).
    pub fn reads(&self) -> impl Iterator<Item = &Expr> {
        let (a, b) = match self {
            LValue::Local(_) | LValue::Global(_) | LValue::PassiveLocal(_) => (None, None),
            LValue::Field(e, _) => (Some(&**e), None),
            LValue::Elem(e, i, _) => (Some(&**e), Some(&**i)),
        };
        a.into_iter().chain(b)
    }
}

impl Stmt {
    /// Calls `f` on every operand the statement itself names, in no particular order. What it
    /// does besides (a call runs its callee, `constrain` may change every visible variable,
    /// `new` writes a fresh object's fields) is the caller's to know.
    pub fn for_each_operand<'a>(&'a self, mut f: impl FnMut(Operand<'a>)) {
        let write = |lv: &'a LValue, f: &mut dyn FnMut(Operand<'a>)| {
            f(Operand::Write(lv));
            lv.reads().for_each(|e| f(Operand::Read(e)));
        };
        match self {
            Stmt::Skip
            | Stmt::Goto
            | Stmt::StartThreadGoto
            | Stmt::EndThread
            | Stmt::AtomicBegin
            | Stmt::AtomicEnd
            | Stmt::Yield
            | Stmt::Raise { .. } => {}
            Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => {
                f(Operand::Read(cond))
            }
            Stmt::Constrain { expr } => f(Operand::Read(expr)),
            Stmt::Assign {
                targets,
                values,
                constrain,
            } => {
                targets.iter().flatten().for_each(|lv| write(lv, &mut f));
                values.iter().for_each(|e| f(Operand::Read(e)));
                if let Some(c) = constrain {
                    f(Operand::Read(c));
                }
            }
            Stmt::Havoc { targets } => targets.iter().for_each(|lv| write(lv, &mut f)),
            Stmt::Call { args, results, .. } => {
                args.iter().for_each(|e| f(Operand::Read(e)));
                results.iter().flatten().for_each(|lv| write(lv, &mut f));
            }
            Stmt::Return { values } => values.iter().flatten().for_each(|e| f(Operand::Read(e))),
            Stmt::StartThread { args, .. } => args.iter().for_each(|e| f(Operand::Read(e))),
            Stmt::New { target, .. } | Stmt::Choose { target, .. } => write(target, &mut f),
            Stmt::NewArray { target, len, .. } => {
                write(target, &mut f);
                f(Operand::Read(len));
            }
            Stmt::Select {
                guards, receives, ..
            } => {
                guards.iter().for_each(|e| f(Operand::Read(e)));
                for r in receives.iter().flatten() {
                    f(Operand::Read(&r.chan));
                    r.targets.iter().for_each(|lv| write(lv, &mut f));
                }
            }
            Stmt::SetUpdate { set, operand, .. } => {
                f(Operand::Read(set));
                f(Operand::Read(operand));
            }
            Stmt::Send { chan, values } => {
                f(Operand::Read(chan));
                values.iter().for_each(|e| f(Operand::Read(e)));
            }
            Stmt::ChooseElem { targets, from } => {
                targets.iter().for_each(|lv| write(lv, &mut f));
                f(Operand::Read(from));
            }
        }
    }
}

/// What a node does. The successors are in [`Node::succ`]; the comment of each variant says how
/// many there are and what they mean.
#[derive(Clone, Debug, Serialize)]
pub enum Stmt {
    /// `skip`, `print`, `sync`, a label on its own: `succ = [next]`.
    Skip,
    /// `goto L1, ..., Ln`: jump to any one of `succ` (nondeterministic when there are several).
    Goto,
    /// `if`/`elsif`/`while` test: `succ = [then, else]`; each value the condition can take
    /// selects its branch.
    Branch { cond: Expr },
    /// Parallel assignment, evaluated in the old state; a `None` target discards (`_`).
    /// With a constraint, only choices that make it possibly true survive. `succ = [next]`.
    Assign {
        targets: Vec<Option<LValue>>,
        values: Vec<Expr>,
        constrain: Option<Expr>,
    },
    /// `dead x, y` or a mid-body declaration: each target takes any value. `succ = [next]`.
    Havoc { targets: Vec<LValue> },
    /// Stand-alone `constrain e`: every visible variable takes new values making `e` possibly
    /// true. `succ = [next]`.
    Constrain { expr: Expr },
    /// Paths on which `cond` cannot be true are discarded. `succ = [next]`.
    Assume { cond: Expr },
    /// If `cond` can be false the assertion is violated; paths where it can be true continue.
    /// `succ = [next]`.
    Assert { cond: Expr },
    /// A call by value; results are written to `results` after the callee returns
    /// (`results` is empty for a call statement). `succ = [next]`.
    Call {
        callee: ProcId,
        args: Vec<Expr>,
        results: Vec<Option<LValue>>,
    },
    /// Return `values`, or arbitrary values of the result types when `None`. `succ = []`.
    Return { values: Option<Vec<Expr>> },
    /// `start_thread f(args)` or an `ASYNC_` call: a new thread runs `callee`. `succ = [next]`.
    StartThread { callee: ProcId, args: Vec<Expr> },
    /// `start_thread goto L`: a new thread with a copy of this frame starts at `succ[1]`;
    /// the creator goes on at `succ[0]`.
    StartThreadGoto,
    /// `end_thread`: the executing thread ends. `succ = []`.
    EndThread,
    /// `atomic_begin`: the executing thread becomes the atomic owner. `succ = [next]`.
    AtomicBegin,
    /// `atomic_end`: the atomic section ends. `succ = [next]`.
    AtomicEnd,
    /// `target = new C`: a fresh object of class `class`, fields at their defaults.
    /// `succ = [next]`.
    New { target: LValue, class: u32 },
    /// `target = choose(...)` over the integers `lo..=hi` (for `bool`: false, true; for an enum:
    /// its ordinals). No alternative is an invalid-choose error. `succ = [next]`.
    Choose {
        target: LValue,
        ty: Type,
        lo: i64,
        hi: i64,
    },
    /// A Zing `select` whose branches are guarded by `wait` conditions: `succ[i]` is branch
    /// `i`. With no branch enabled the thread is blocked (a valid end state with `end`);
    /// `first` takes the first enabled branch, otherwise each enabled branch is a choice.
    /// `atomic`: the select begins an atomic block, which the thread enters in the same step.
    Select {
        guards: Vec<Expr>,
        /// Per branch, its `receive` patterns, performed in order when it is taken.
        receives: Vec<Vec<Receive>>,
        first: bool,
        end: bool,
        atomic: bool,
    },
    /// `yield`: ends a step in cooperative mode, otherwise does nothing. `succ = [next]`.
    Yield,
    /// `target = new A[len]`: an array of class `class` with `len` elements at their defaults
    /// (negative: an arithmetic-overflow error). `succ = [next]`.
    NewArray {
        target: LValue,
        class: u32,
        len: Expr,
    },
    /// Zing's set update statements, in place on the set object `set`. `succ = [next]`.
    SetUpdate { set: Expr, op: SetOp, operand: Expr },
    /// `send(chan, msg)`: appends the message's leaves to the channel object. `succ = [next]`.
    Send { chan: Expr, values: Vec<Expr> },
    /// `targets = choose(from)` over the elements of an array or set object, in index order
    /// (each element `targets.len()` fields wide). No element is an invalid-choose error.
    /// `succ = [next]`.
    ChooseElem { targets: Vec<LValue>, from: Expr },
    /// `raise e`: control goes to the innermost handler for exception `exception`
    /// ([`Proc::tries`]), unwinding frames; none is an unhandled-exception error. `succ = []`.
    Raise { exception: u32 },
}

/// A set update: `s = s + e`, `s = s - e`, `s = s + t`, `s = s - t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SetOp {
    Insert,
    Remove,
    InsertAll,
    RemoveAll,
}

impl Stmt {
    /// Whether this is a broadcast assignment: one with a passive (`y$`) target. The front end
    /// allows passive names nowhere else.
    pub fn is_broadcast(&self) -> bool {
        match self {
            Stmt::Assign { targets, .. } => targets
                .iter()
                .any(|t| matches!(t, Some(LValue::PassiveLocal(_)))),
            _ => false,
        }
    }
}

/// A `receive(chan, x)` pattern of a select branch: when the branch is taken, the head message
/// is dequeued into `targets` (one per leaf of the message type) in the select's own step.
#[derive(Clone, Debug, Serialize)]
pub struct Receive {
    pub chan: Expr,
    pub targets: Vec<LValue>,
}

/// Whether a node begins a step of its own (Zing's step granularity, zing-language.md §6.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Glue {
    /// An ordinary node: a step ends before it.
    #[default]
    No,
    /// The step that runs this node continues with its successor (a `foreach` element fetch
    /// runs with the first body statement; its increment with the next test).
    ToNext,
    /// A step that arrives here runs this node too (a block's locals reset as it is left).
    ToPrevious,
    /// Both: a step that arrives here runs this node and its successor (entering a `try`:
    /// the first statement of its body does not begin a step).
    Through,
}

/// A `try` statement: while control is at a node of `body` (pcs), a raised exception is caught
/// by the first handler naming it, else by the `*` handler (`None`).
#[derive(Clone, Debug, Serialize)]
pub struct Try {
    pub body: std::ops::Range<Pc>,
    pub handlers: Vec<(Option<u32>, Pc)>,
}

/// One statement of a procedure's control-flow graph.
#[derive(Clone, Debug, Serialize)]
pub struct Node {
    pub stmt: Stmt,
    pub succ: Vec<Pc>,
    /// The statement's text in the source (for `if`/`while` tests: the test only).
    pub span: Span,
    /// Labels naming the control point before this node (several are allowed).
    pub labels: Vec<String>,
    /// The `enforce` invariant in force at this node: a state whose moving thread's top frame is
    /// here must make it possibly true, or the step that produced it does not exist.
    pub invariant: Option<Expr>,
    /// Whether a step ends before this node.
    pub glue: Glue,
}

/// A procedure: formals are the first `params` slots of `locals`.
#[derive(Clone, Debug, Serialize)]
pub struct Proc {
    pub name: String,
    pub params: u32,
    pub locals: Vec<Var>,
    pub returns: Vec<Type>,
    /// Zing atomic methods run as one transition.
    pub atomic: bool,
    pub nodes: Vec<Node>,
    pub span: Span,
    /// Zing `try` statements, innermost first where they nest.
    pub tries: Vec<Try>,
}

impl Proc {
    pub fn formals(&self) -> &[Var] {
        &self.locals[..self.params as usize]
    }
}

/// The Getafix concurrent layout (bp-language.md §5.13) or the ordinary one.
#[derive(Clone, Debug, Serialize)]
pub enum Layout {
    /// `activations` start as threads in the initial state.
    Standard,
    /// `init` runs alone until it reaches the node labelled `endinit`; then one thread per
    /// procedure in `threads` starts.
    Getafix {
        init: ProcId,
        endinit: Pc,
        threads: Vec<ProcId>,
    },
}

/// A class: the layout of its heap objects (instance fields, in order).
#[derive(Clone, Debug, Serialize)]
pub struct Class {
    pub name: String,
    /// For objects: the fields. For collections: the leaves of one element.
    pub fields: Vec<Var>,
    pub kind: ClassKind,
}

/// What a class's objects are. Collections hold their elements one after another, each
/// `fields.len()` values wide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum ClassKind {
    #[default]
    Object,
    /// An array of `len` elements (`None`: the length is given at `new A[e]`).
    Array { len: Option<u32> },
    /// A set, its elements kept sorted and distinct.
    Set,
    /// A channel: an unbounded FIFO of messages.
    Chan,
}

/// A Zing enum: its name and its members in ordinal order. `Type::Enum(i)` is `enums[i]`;
/// reports print an enum value by its member's name (`Color.Red`), as the source writes it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EnumDecl {
    pub name: String,
    pub members: Vec<String>,
}

/// A whole model, ready for the engines.
#[derive(Clone, Debug)]
pub struct Program {
    /// Heap object layouts (empty for boolean programs).
    pub classes: Vec<Class>,
    /// The enums, indexed by [`Type::Enum`] (empty for boolean programs).
    pub enums: Vec<EnumDecl>,
    pub globals: Vec<Var>,
    pub procs: Vec<Proc>,
    /// The procedures started as processes in the initial state (`main` for boolean programs).
    pub activations: Vec<ProcId>,
    pub layout: Layout,
    pub source: Source,
    /// Zing exception names (`raise` and handlers refer to them by index).
    pub exceptions: Vec<String>,
    /// Zing static fields initialized with `new C` (or `new A[n]`): in every initial state,
    /// global `.0` refers to a fresh object of class `.1` (of length `.2`), allocated in this
    /// order.
    pub static_news: Vec<(u32, u32, Option<u32>)>,
    /// Whether some expression reads `self` (the process identifier).
    pub uses_self: bool,
    /// Zing semantics: a process whose entry method returns stays in the process list,
    /// completed (zing-language.md §6.1); boolean programs' threads disappear.
    pub keep_completed: bool,
    /// Zing semantics: atomic regions nest dynamically, so the end of an atomic block inside a
    /// method called from another atomic region returns to the caller's level instead of
    /// ending atomicity (zing-language.md §4.7); boolean programs' `atomic_begin`/`atomic_end`
    /// are flat (bp-language.md §5.12).
    pub nested_atomic: bool,
    /// The language the model was written in: reports write expressions back in its syntax.
    pub lang: crate::Lang,
    /// Zing's `accept(e)` statements, in source order: each node is an evaluation
    /// (`Stmt::Assign` with one discarded value, the condition `e`). A step that runs one whose
    /// condition is true is an accepting transition, which `check --liveness` looks for on a
    /// cycle (ZING marks the state the step reaches; see `explore::cycles`). Empty for boolean
    /// programs.
    pub accepts: Vec<(ProcId, Pc)>,
}

impl Program {
    pub fn proc_by_name(&self, name: &str) -> Option<ProcId> {
        self.procs
            .iter()
            .position(|p| p.name == name)
            .map(|i| i as ProcId)
    }

    pub fn node(&self, proc: ProcId, pc: Pc) -> &Node {
        &self.procs[proc as usize].nodes[pc as usize]
    }

    /// Whether any node of the program carries `label`.
    pub fn has_label(&self, label: &str) -> bool {
        self.procs
            .iter()
            .any(|p| p.nodes.iter().any(|n| n.labels.iter().any(|l| l == label)))
    }

    /// 1-based source line of a node.
    pub fn line_of(&self, proc: ProcId, pc: Pc) -> u32 {
        self.source.line_col(self.node(proc, pc).span.start).0
    }

    /// Whether the program uses threads at all (thread statements or several activations).
    pub fn is_concurrent(&self) -> bool {
        self.activations.len() > 1
            || !matches!(self.layout, Layout::Standard)
            || self.procs.iter().any(|p| {
                p.nodes.iter().any(|n| {
                    matches!(
                        n.stmt,
                        Stmt::StartThread { .. }
                            | Stmt::StartThreadGoto
                            | Stmt::EndThread
                            | Stmt::AtomicBegin
                            | Stmt::AtomicEnd
                    )
                })
            })
    }

    /// Whether the program has what summaries do not record: collections (arrays, sets,
    /// channels) whose lengths change, exceptions that unwind frames, and `self`, which a
    /// summary computed in one process would answer wrongly for another.
    pub fn beyond_summaries(&self) -> bool {
        self.uses_self
            || self.classes.iter().any(|c| c.kind != ClassKind::Object)
            || self
                .procs
                .iter()
                .any(|p| p.nodes.iter().any(|n| matches!(n.stmt, Stmt::Raise { .. })))
    }

    /// Whether some statement is a broadcast assignment (it writes or reads `y$`): such a step
    /// changes other threads' locals, which the reductions must know.
    pub fn has_passive(&self) -> bool {
        self.procs
            .iter()
            .any(|p| p.nodes.iter().any(|n| n.stmt.is_broadcast()))
    }

    /// A one-line description of a node, for `zingrs cfg` and traces.
    pub fn describe(&self, proc: ProcId, pc: Pc) -> String {
        let node = self.node(proc, pc);
        let show = |e| self.show(proc, e).to_string();
        let lv = |t: &Option<LValue>| match t {
            Some(l) => self.lvalue_name(proc, l),
            None => "_".to_string(),
        };
        let join = |v: Vec<String>| v.join(", ");
        match &node.stmt {
            Stmt::Skip => "skip".into(),
            Stmt::Goto => "goto".into(),
            Stmt::Branch { cond } => format!("branch {}", show(cond)),
            Stmt::Assign {
                targets,
                values,
                constrain,
            } => {
                let mut s = format!(
                    "{} := {}",
                    join(targets.iter().map(lv).collect()),
                    join(values.iter().map(show).collect())
                );
                if let Some(c) = constrain {
                    s.push_str(&format!(" constrain {}", show(c)));
                }
                s
            }
            Stmt::Havoc { targets } => format!(
                "havoc {}",
                join(targets.iter().map(|t| self.lvalue_name(proc, t)).collect())
            ),
            Stmt::Constrain { expr } => format!("constrain {}", show(expr)),
            Stmt::Assume { cond } => format!("assume {}", show(cond)),
            Stmt::Assert { cond } => format!("assert {}", show(cond)),
            Stmt::Call {
                callee,
                args,
                results,
            } => {
                let call = format!(
                    "{}({})",
                    self.procs[*callee as usize].name,
                    join(args.iter().map(show).collect())
                );
                if results.is_empty() {
                    format!("call {call}")
                } else {
                    format!("call {} := {call}", join(results.iter().map(lv).collect()))
                }
            }
            Stmt::Return { values: None } => "return *".into(),
            Stmt::Return { values: Some(v) } => {
                format!("return {}", join(v.iter().map(show).collect()))
            }
            Stmt::StartThread { callee, args } => format!(
                "start_thread {}({})",
                self.procs[*callee as usize].name,
                join(args.iter().map(show).collect())
            ),
            Stmt::StartThreadGoto => "start_thread goto".into(),
            Stmt::EndThread => "end_thread".into(),
            Stmt::AtomicBegin => "atomic_begin".into(),
            Stmt::AtomicEnd => "atomic_end".into(),
            Stmt::New { target, class } => format!(
                "{} = new {}",
                self.lvalue_name(proc, target),
                self.classes[*class as usize].name
            ),
            Stmt::Choose { target, lo, hi, .. } => {
                format!("{} = choose({lo}..{hi})", self.lvalue_name(proc, target))
            }
            Stmt::Select {
                guards,
                first,
                end,
                atomic,
                ..
            } => format!(
                "{}select{}{} {{ {} }}",
                if *atomic { "atomic " } else { "" },
                if *end { " end" } else { "" },
                if *first { " first" } else { "" },
                guards
                    .iter()
                    .map(|g| format!("wait({})", show(g)))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
            Stmt::Yield => "yield".into(),
            Stmt::NewArray { target, class, len } => format!(
                "{} = new {}[{}]",
                self.lvalue_name(proc, target),
                self.classes[*class as usize].name,
                show(len)
            ),
            Stmt::SetUpdate { set, op, operand } => {
                let sym = match op {
                    SetOp::Insert | SetOp::InsertAll => "+",
                    SetOp::Remove | SetOp::RemoveAll => "-",
                };
                format!("{} = {} {sym} {}", show(set), show(set), show(operand))
            }
            Stmt::Send { chan, values } => {
                format!(
                    "send({}, {})",
                    show(chan),
                    join(values.iter().map(show).collect())
                )
            }
            Stmt::ChooseElem { targets, from } => format!(
                "{} = choose({})",
                join(targets.iter().map(|t| self.lvalue_name(proc, t)).collect()),
                show(from)
            ),
            Stmt::Raise { exception } => format!("raise {}", self.exceptions[*exception as usize]),
        }
    }
}
