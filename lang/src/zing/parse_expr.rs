//! Expression parsing (zing-language.md §5.1).
//!
//! Binary operators use precedence climbing (levels from loosest: `||` < `&&` < `|` < `^` <
//! `&` < `==`/`!=` < relational < shifts < additive < multiplicative), all left-associative.
//! `in` takes the whole binary expression to its left and one unary expression to its right,
//! and the result is an operand for the rest of the expression. Chains grow in loops; nesting
//! (parentheses, prefix operators, right operands) recurses through [`crate::deep::grow`], as
//! every later pass over the tree does, so expressions of any depth parse.

use super::ast::*;
use super::lexer::{ident_name, int_suffix, int_value, string_value, Tok};
use super::parser::{builtin_type, PResult, Parser};
use super::types::Type;
use crate::diag::Diagnostic;

/// Binary operators with their level (higher binds tighter).
fn binary_op(t: Tok) -> Option<(u8, BinOp)> {
    Some(match t {
        Tok::OrOr => (1, BinOp::Or),
        Tok::AndAnd => (2, BinOp::And),
        Tok::Pipe => (3, BinOp::BitOr),
        Tok::Caret => (4, BinOp::BitXor),
        Tok::Amp => (5, BinOp::BitAnd),
        Tok::EqEq => (6, BinOp::Eq),
        Tok::NotEq => (6, BinOp::Ne),
        Tok::Lt => (7, BinOp::Lt),
        Tok::Le => (7, BinOp::Le),
        Tok::Gt => (7, BinOp::Gt),
        Tok::Ge => (7, BinOp::Ge),
        Tok::Shl => (8, BinOp::Shl),
        Tok::Shr => (8, BinOp::Shr),
        Tok::Plus => (9, BinOp::Add),
        Tok::Minus => (9, BinOp::Sub),
        Tok::Star => (10, BinOp::Mul),
        Tok::Slash => (10, BinOp::Div),
        Tok::Percent => (10, BinOp::Rem),
        _ => return None,
    })
}

/// The type of an integer literal: the first of `int`, `uint`, `long`, `ulong` that holds
/// the value and respects the suffix.
pub fn literal_type(value: u64, unsigned: bool, long: bool) -> Type {
    let fits_int = value <= i32::MAX as u64;
    let fits_uint = value <= u32::MAX as u64;
    let fits_long = value <= i64::MAX as u64;
    match (unsigned, long) {
        (false, false) if fits_int => Type::Int,
        (_, false) if fits_uint => Type::UInt,
        (false, _) if fits_long => Type::Long,
        _ => Type::ULong,
    }
}

impl Parser<'_> {
    /// A full expression (without assignment).
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        crate::deep::grow(|| {
            let first = self.unary()?;
            self.in_chain(first)
        })
    }

    /// Alternates precedence climbing and `in` until neither applies.
    fn in_chain(&mut self, first: Expr) -> PResult<Expr> {
        let mut lhs = self.binary_from(first, 1)?;
        while self.eat(Tok::In) {
            let set = self.unary()?;
            let span = lhs.span.to(set.span);
            let e = Expr::new(ExprKind::In(Box::new(lhs), Box::new(set)), span);
            lhs = self.binary_from(e, 1)?;
        }
        Ok(lhs)
    }

    /// Precedence climbing with `lhs` already parsed, over operators of level ≥ `min`.
    /// (The recursion is as deep as there are precedence levels; a chain grows in the loop.)
    fn binary_from(&mut self, mut lhs: Expr, min: u8) -> PResult<Expr> {
        while let Some((level, op)) = binary_op(self.peek()).filter(|(l, _)| *l >= min) {
            self.bump();
            let first = self.unary()?;
            let rhs = self.binary_from(first, level + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span);
        }
        Ok(lhs)
    }

    /// Prefix operators, then a postfix expression.
    fn unary(&mut self) -> PResult<Expr> {
        let op = match self.peek() {
            Tok::Plus => UnOp::Plus,
            Tok::Minus => UnOp::Neg,
            Tok::Bang => UnOp::Not,
            Tok::Tilde => UnOp::BitNot,
            _ => return self.postfix(),
        };
        let t = self.bump();
        let inner = crate::deep::grow(|| self.unary())?;
        let span = t.span.to(inner.span);
        Ok(Expr::new(ExprKind::Unary(op, Box::new(inner)), span))
    }

    /// A primary followed by `.f`, `[i]` and `(args)`.
    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            let start = e.span;
            let kind = match self.peek() {
                Tok::Dot => {
                    self.bump();
                    let name = self.ident("a field or method name")?;
                    ExprKind::Member {
                        base: Box::new(e),
                        name,
                        res: MemberRes::Unresolved,
                    }
                }
                Tok::LBracket => {
                    self.bump();
                    let index = self.expr()?;
                    self.expect(Tok::RBracket, "`]`")?;
                    ExprKind::Index {
                        base: Box::new(e),
                        index: Box::new(index),
                    }
                }
                Tok::LParen => {
                    self.bump();
                    let args = self.args_after_paren()?;
                    ExprKind::Call {
                        callee: Box::new(e),
                        args,
                        target: None,
                    }
                }
                _ => return Ok(e),
            };
            e = Expr::new(kind, start.to(self.last_span()));
        }
    }

    /// Call arguments after `(`, through the `)`.
    pub(super) fn args_after_paren(&mut self) -> PResult<Vec<Arg>> {
        let mut args = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(args);
        }
        loop {
            let is_out = self.eat(Tok::Out);
            let expr = self.expr()?;
            args.push(Arg { is_out, expr });
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen, "`,` or `)`")?;
        Ok(args)
    }

    #[inline(never)]
    fn primary(&mut self) -> PResult<Expr> {
        let t = self.tok(0);
        let leaf = |kind| Expr::new(kind, t.span);
        match t.kind {
            Tok::IntLit => {
                self.bump();
                let raw = self.text_of(t);
                let value = int_value(raw).unwrap_or(0);
                let (u, l) = int_suffix(raw);
                let mut e = leaf(ExprKind::Int(value));
                e.ty = literal_type(value, u, l);
                Ok(e)
            }
            Tok::True | Tok::False => {
                self.bump();
                Ok(leaf(ExprKind::Bool(t.kind == Tok::True)))
            }
            Tok::Null => {
                self.bump();
                Ok(leaf(ExprKind::Null))
            }
            Tok::This => {
                self.bump();
                Ok(leaf(ExprKind::This))
            }
            Tok::SelfKw => {
                self.bump();
                Ok(leaf(ExprKind::SelfId))
            }
            Tok::Str | Tok::VerbatimStr => {
                self.bump();
                Ok(leaf(ExprKind::Str(string_value(self.text_of(t)))))
            }
            Tok::Ident => {
                self.bump();
                let name = Ident {
                    name: ident_name(self.text_of(t)).to_string(),
                    span: t.span,
                };
                Ok(leaf(ExprKind::Name(name, NameRes::Unresolved)))
            }
            Tok::LParen => {
                self.bump();
                let e = self.expr()?;
                let close = self.expect(Tok::RParen, "`)`")?;
                if builtin_type(self.peek()).is_some() || self.peek() == Tok::Ident {
                    if let ExprKind::Name(..) = e.kind {
                        let d = Diagnostic::error(t.span.to(close.span), "Zing has no cast syntax")
                            .with_label("a parenthesised name cannot be followed by an operand")
                            .with_note(
                                "conversions between numeric types are implicit in assignments",
                            );
                        return Err(self.syntax(d));
                    }
                }
                Ok(e)
            }
            Tok::New => self.new_expr(),
            Tok::Choose => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let kind = if builtin_type(self.peek()).is_some() {
                    ExprKind::ChooseType(self.type_expr(false)?)
                } else {
                    ExprKind::Choose(Box::new(self.expr()?))
                };
                let close = self.expect(Tok::RParen, "`)`")?;
                Ok(Expr::new(kind, t.span.to(close.span)))
            }
            Tok::Sizeof => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                if builtin_type(self.peek()).is_some() {
                    let d = Diagnostic::error(self.tok(0).span, "`sizeof` of a built-in type")
                        .with_label("expected a channel, set or array, or a fixed-size array type");
                    return Err(self.syntax(d));
                }
                let e = self.expr()?;
                let close = self.expect(Tok::RParen, "`)`")?;
                Ok(Expr::new(
                    ExprKind::Sizeof(Box::new(e)),
                    t.span.to(close.span),
                ))
            }
            Tok::Typeof => {
                let d = Diagnostic::error(t.span, "`typeof` is not supported")
                    .with_label("reserved keyword without meaning in Zing models");
                Err(self.syntax(d))
            }
            _ => Err(self.expected("an expression")),
        }
    }

    /// `new T` or `new A[size]`.
    fn new_expr(&mut self) -> PResult<Expr> {
        let kw = self.bump();
        if builtin_type(self.peek()).is_some() {
            let d = Diagnostic::error(self.tok(0).span, "`new` of a built-in type")
                .with_label("only classes, channels, sets and arrays can be allocated");
            return Err(self.syntax(d));
        }
        let ty = self.ident("a type name")?;
        let size = if self.eat(Tok::LBracket) {
            let e = self.expr()?;
            self.expect(Tok::RBracket, "`]`")?;
            Some(Box::new(e))
        } else {
            None
        };
        if self.peek() == Tok::LParen {
            let d = Diagnostic::error(self.tok(0).span, "`new` takes no parentheses")
                .with_label("write `new T`, not `new T()`")
                .with_note("Zing has no constructors");
            return Err(self.syntax(d));
        }
        Ok(Expr::new(
            ExprKind::New {
                ty,
                size,
                decl: None,
            },
            kw.span.to(self.last_span()),
        ))
    }
}
