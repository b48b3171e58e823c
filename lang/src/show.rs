//! IR expressions written back in the syntax of the model's language, for reports and
//! `zingrs cfg`: the language's operators (`&&`, `==`, `true` in Zing; `&`, `=`, `T` in boolean
//! programs), only the parentheses its precedence needs, and fields by name. Reading the text
//! back gives the same IR (the tests check it), so a user can paste it into the model.

use crate::ir::{ArithOp, BinOp, Const, Expr, LValue, ProcId, Program, Type, UnOp};
use crate::Lang;
use std::fmt;

/// Binding strengths, loosest first. Zing's levels follow zing-language.md §5.1, boolean
/// programs' bp-language.md §4.2; one scale serves both, as each language uses only its own
/// operators.
mod level {
    /// `a in s`: written in parentheses wherever it is an operand.
    pub const IN: u8 = 1;
    pub const TERNARY: u8 = 2;
    pub const IMPLIES: u8 = 3;
    pub const LOR: u8 = 4;
    pub const LAND: u8 = 5;
    pub const BOR: u8 = 6;
    pub const BXOR: u8 = 7;
    pub const BAND: u8 = 8;
    pub const EQ: u8 = 9;
    pub const CMP: u8 = 10;
    pub const SHIFT: u8 = 11;
    pub const ADD: u8 = 12;
    pub const MUL: u8 = 13;
    pub const UNARY: u8 = 14;
    pub const PRIMARY: u8 = 15;
}

/// See [`Program::show`].
pub struct ShowExpr<'a> {
    program: &'a Program,
    proc: ProcId,
    expr: &'a Expr,
}

impl Program {
    /// Displays an expression of procedure `proc` as source text of the program's language.
    pub fn show<'a>(&'a self, proc: ProcId, expr: &'a Expr) -> ShowExpr<'a> {
        ShowExpr {
            program: self,
            proc,
            expr,
        }
    }

    /// Displays an lvalue of procedure `proc` as source text.
    pub fn lvalue_name(&self, proc: ProcId, lv: &LValue) -> String {
        let local = |i: &u32| &self.procs[proc as usize].locals[*i as usize].name;
        match lv {
            LValue::Local(i) => local(i).clone(),
            LValue::PassiveLocal(i) => format!("{}$", local(i)),
            LValue::Global(i) => self.globals[*i as usize].name.clone(),
            LValue::Field(e, f) => {
                let mut s = String::new();
                let show = self.show(proc, e);
                // fmt::Write into a String cannot fail
                let _ = show
                    .object(&mut s, e)
                    .and_then(|()| show.field(&mut s, e, *f));
                s
            }
            LValue::Elem(e, i, w) => {
                let mut s = String::new();
                let show = self.show(proc, e);
                let _ = show.element(&mut s, e, i, w.offset);
                s
            }
        }
    }

    /// The class of the objects a reference-valued expression of `proc` refers to, when its
    /// static type says (`None` for `null` and non-references).
    pub fn class_of(&self, proc: ProcId, e: &Expr) -> Option<u32> {
        let of = |ty: Type| match ty {
            Type::Ref(c) => Some(c),
            _ => None,
        };
        let locals = &self.procs.get(proc as usize)?.locals;
        match e {
            Expr::Local(i) | Expr::PrimedLocal(i) | Expr::PassiveLocal(i) => {
                of(locals.get(*i as usize)?.ty)
            }
            Expr::Global(i) | Expr::PrimedGlobal(i) => of(self.globals.get(*i as usize)?.ty),
            Expr::Field(o, f) => of(self
                .classes
                .get(self.class_of(proc, o)? as usize)?
                .fields
                .get(*f as usize)?
                .ty),
            Expr::Elem(a, _, w) => of(self
                .classes
                .get(self.class_of(proc, a)? as usize)?
                .fields
                .get(w.offset as usize)?
                .ty),
            Expr::Ite(_, a, b) => self.class_of(proc, a).or_else(|| self.class_of(proc, b)),
            Expr::Call(p, _) => of(*self.procs.get(*p as usize)?.returns.first()?),
            _ => None,
        }
    }
}

impl ShowExpr<'_> {
    fn zing(&self) -> bool {
        self.program.lang == Lang::Zing
    }

    fn local(&self, i: u32) -> &str {
        &self.program.procs[self.proc as usize].locals[i as usize].name
    }

    /// How tightly `e`'s outermost operator binds, as written.
    fn level(&self, e: &Expr) -> u8 {
        use level::*;
        match e {
            Expr::Const(Const::Int(i)) if *i < 0 => UNARY,
            Expr::Unary(..) | Expr::Neg(..) | Expr::BitNot(..) => UNARY,
            Expr::Binary(op, ..) => match op {
                BinOp::And => BAND,
                BinOp::Or => BOR,
                BinOp::Xor => BXOR,
                BinOp::Eq | BinOp::Ne => EQ,
                BinOp::Implies => IMPLIES,
            },
            Expr::Ite(_, a, b) if self.zing() => match (&**a, &**b) {
                (_, Expr::Const(Const::Bool(false))) => LAND,
                (Expr::Const(Const::Bool(true)), _) => LOR,
                _ => TERNARY,
            },
            Expr::Ite(..) => TERNARY,
            Expr::Arith(op, ..) => match op {
                ArithOp::Mul | ArithOp::Div | ArithOp::Rem => MUL,
                ArithOp::Add | ArithOp::Sub => ADD,
                ArithOp::Shl | ArithOp::Shr => SHIFT,
                ArithOp::BitAnd => BAND,
                ArithOp::BitOr => BOR,
                ArithOp::BitXor => BXOR,
            },
            Expr::Cmp(..) => CMP,
            Expr::In(..) => IN,
            Expr::Convert(_, a) => self.level(a),
            _ => PRIMARY,
        }
    }

    /// Writes `e`, in parentheses if it binds more loosely than `min`.
    fn write(&self, f: &mut dyn fmt::Write, e: &Expr, min: u8) -> fmt::Result {
        if self.level(e) < min {
            f.write_char('(')?;
            crate::deep::grow(|| self.bare(f, e))?;
            f.write_char(')')
        } else {
            crate::deep::grow(|| self.bare(f, e))
        }
    }

    /// A left-associative binary operator at `lv`.
    fn infix(&self, f: &mut dyn fmt::Write, a: &Expr, op: &str, b: &Expr, lv: u8) -> fmt::Result {
        self.write(f, a, lv)?;
        write!(f, " {op} ")?;
        self.write(f, b, lv + 1)
    }

    /// The object of a field access or an element: primary, or in parentheses.
    fn object(&self, f: &mut dyn fmt::Write, e: &Expr) -> fmt::Result {
        self.write(f, e, level::PRIMARY)
    }

    /// `.name` of field `index` of the object `obj` refers to (`.#index` if its class is not
    /// known statically).
    fn field(&self, f: &mut dyn fmt::Write, obj: &Expr, index: u32) -> fmt::Result {
        let p = self.program;
        match p
            .class_of(self.proc, obj)
            .and_then(|c| p.classes.get(c as usize)?.fields.get(index as usize))
        {
            Some(v) => write!(f, ".{}", v.name),
            None => write!(f, ".#{index}"),
        }
    }

    /// `a[i]`, and the leaf's path (`.x`) when the elements are structs.
    fn element(&self, f: &mut dyn fmt::Write, a: &Expr, i: &Expr, leaf: u32) -> fmt::Result {
        self.object(f, a)?;
        f.write_char('[')?;
        self.write(f, i, 0)?;
        f.write_char(']')?;
        let p = self.program;
        if let Some(v) = p
            .class_of(self.proc, a)
            .and_then(|c| p.classes.get(c as usize)?.fields.get(leaf as usize))
        {
            // an element's leaves are named `[]`, `[].x`, … (the lowering's names)
            f.write_str(v.name.strip_prefix("[]").unwrap_or(&v.name))?;
        }
        Ok(())
    }

    fn list(&self, f: &mut dyn fmt::Write, items: &[Expr]) -> fmt::Result {
        for (i, a) in items.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            self.write(f, a, 0)?;
        }
        Ok(())
    }

    /// `e` without parentheses around it.
    fn bare(&self, f: &mut dyn fmt::Write, e: &Expr) -> fmt::Result {
        use level::*;
        let p = self.program;
        let zing = self.zing();
        match e {
            Expr::Const(Const::Bool(b)) => f.write_str(match (zing, b) {
                (true, true) => "true",
                (true, false) => "false",
                (false, true) => "T",
                (false, false) => "F",
            }),
            Expr::Const(Const::Int(i)) => write!(f, "{i}"),
            Expr::Const(Const::Null) => f.write_str("null"),
            Expr::Local(i) => f.write_str(self.local(*i)),
            Expr::Global(i) => f.write_str(&p.globals[*i as usize].name),
            Expr::PrimedLocal(i) => write!(f, "'{}", self.local(*i)),
            Expr::PassiveLocal(i) => write!(f, "{}$", self.local(*i)),
            Expr::PrimedPassiveLocal(i) => write!(f, "'{}$", self.local(*i)),
            Expr::PrimedGlobal(i) => write!(f, "'{}", p.globals[*i as usize].name),
            Expr::Nondet => f.write_str("*"),
            Expr::Unary(UnOp::Not, a) => self.prefix(f, "!", a),
            Expr::Neg(_, a) => self.prefix(f, "-", a),
            Expr::BitNot(_, a) => self.prefix(f, "~", a),
            Expr::Binary(op, a, b) => {
                let sym = match (zing, op) {
                    (true, BinOp::Eq) => "==",
                    _ => op.symbol(),
                };
                self.infix(f, a, sym, b, self.level(e))
            }
            Expr::Ite(c, a, b) => match self.level(e) {
                LAND => self.infix(f, c, "&&", a, LAND),
                LOR => self.infix(f, c, "||", b, LOR),
                _ => {
                    // right-associative: `a ? b : c ? d : e` groups to the right
                    self.write(f, c, TERNARY + 1)?;
                    f.write_str(" ? ")?;
                    self.write(f, a, TERNARY)?;
                    f.write_str(" : ")?;
                    self.write(f, b, TERNARY)
                }
            },
            Expr::Schoose(a, b) => {
                f.write_str("schoose[")?;
                self.write(f, a, 0)?;
                f.write_str(", ")?;
                self.write(f, b, 0)?;
                f.write_str("]")
            }
            Expr::Field(o, i) => {
                self.object(f, o)?;
                self.field(f, o, *i)
            }
            Expr::Arith(op, _, a, b) => self.infix(f, a, op.symbol(), b, self.level(e)),
            Expr::Cmp(op, a, b) => self.infix(f, a, op.symbol(), b, CMP),
            Expr::Convert(_, a) => self.bare(f, a),
            Expr::Elem(a, i, w) => self.element(f, a, i, w.offset),
            Expr::Size(a, _) => {
                f.write_str("sizeof(")?;
                self.write(f, a, 0)?;
                f.write_char(')')
            }
            Expr::In(a, b) => {
                // `in` takes the whole binary expression on its left and one unary
                // expression on its right (zing-language.md §5.1)
                self.write(f, a, LOR)?;
                f.write_str(" in ")?;
                self.write(f, b, UNARY)
            }
            Expr::SelfId => f.write_str("self"),
            Expr::ClassIs(e, c) => {
                f.write_char('(')?;
                self.write(f, e, 0)?;
                write!(f, " is {})", p.classes[*c as usize].name)
            }
            Expr::Call(c, args) => {
                write!(f, "{}(", p.procs[*c as usize].name)?;
                self.list(f, args)?;
                f.write_char(')')
            }
        }
    }

    /// A prefix operator; an operand that itself starts with the same sign is parenthesized
    /// (`-(-1)`, not `--1`).
    fn prefix(&self, f: &mut dyn fmt::Write, op: &str, a: &Expr) -> fmt::Result {
        f.write_str(op)?;
        let negative = matches!(a, Expr::Const(Const::Int(i)) if *i < 0)
            || matches!(a, Expr::Neg(..) if op == "-");
        self.write(
            f,
            a,
            if negative {
                level::PRIMARY
            } else {
                level::UNARY
            },
        )
    }
}

impl fmt::Display for ShowExpr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, self.expr, 0)
    }
}
