//! Expression parsing (bp-language.md §4.1, precedence §4.2).
//!
//! Levels from loosest: `?:` (right) < `=>` < `|`/`||` < `^` < `&`/`&&` < `=`/`==`/`!=` <
//! prefix `!`/`~` < primary; binary operators are left-associative. Expressions nest to any
//! depth: each level of recursion enters [`crate::deep::grow`].

use super::ast::{BinOp, Expr, ExprKind, Ident};
use super::lexer::Tok;
use super::parser::{PResult, Parser};
use crate::deep::grow;

/// Binary operators with their precedence level (higher binds tighter); all left-associative.
fn binary_op(t: Tok) -> Option<(u8, BinOp)> {
    Some(match t {
        Tok::Implies => (1, BinOp::Implies),
        Tok::Pipe | Tok::OrOr => (2, BinOp::Or),
        Tok::Caret => (3, BinOp::Xor),
        Tok::Amp | Tok::AndAnd => (4, BinOp::And),
        Tok::Eq | Tok::EqEq => (5, BinOp::Eq),
        Tok::NotEq => (5, BinOp::Ne),
        _ => return None,
    })
}

impl Parser<'_> {
    /// `expr = impl [ "?" expr ":" expr ]`.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        grow(|| self.conditional())
    }

    fn conditional(&mut self) -> PResult<Expr> {
        let cond = self.binary(1)?;
        if !self.eat(Tok::Question) {
            return Ok(cond);
        }
        let then = self.expr()?;
        self.expect(Tok::Colon, "`:` of the conditional")?;
        let els = self.expr()?;
        let span = cond.span.to(els.span);
        let height = cond.height.max(then.height).max(els.height) + 1;
        self.node(
            ExprKind::Ite(Box::new(cond), Box::new(then), Box::new(els)),
            span,
            height,
        )
    }

    /// Precedence climbing over the binary operators binding at least as tight as `min`.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some((level, op)) = binary_op(self.peek()).filter(|(l, _)| *l >= min) {
            self.bump();
            let rhs = grow(|| self.binary(level + 1))?;
            let span = lhs.span.to(rhs.span);
            let height = lhs.height.max(rhs.height) + 1;
            lhs = self.node(
                ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
                height,
            )?;
        }
        Ok(lhs)
    }

    /// Builds a node.
    fn node(&mut self, kind: ExprKind, span: crate::ir::Span, height: u32) -> PResult<Expr> {
        Ok(Expr { kind, span, height })
    }

    fn unary(&mut self) -> PResult<Expr> {
        if matches!(self.peek(), Tok::Bang | Tok::Tilde) {
            let op = self.bump();
            let inner = grow(|| self.unary())?;
            let span = op.span.to(inner.span);
            let height = inner.height + 1;
            return self.node(ExprKind::Not(Box::new(inner)), span, height);
        }
        self.primary()
    }

    fn primary(&mut self) -> PResult<Expr> {
        if self.peek() != Tok::LParen {
            return self.leaf();
        }
        // The span stays the inner one, so diagnostics point at the name, not the `(`.
        self.bump();
        let e = self.expr()?;
        self.expect(Tok::RParen, "`)`")?;
        Ok(e)
    }

    /// A primary other than a parenthesised expression.
    #[inline(never)]
    fn leaf(&mut self) -> PResult<Expr> {
        let t = self.tok(0);
        let leaf = |kind| Expr {
            kind,
            span: t.span,
            height: 1,
        };
        match t.kind {
            Tok::Name => {
                self.bump();
                Ok(leaf(ExprKind::Name(self.text_of(t).to_string())))
            }
            Tok::Number => {
                self.bump();
                Ok(leaf(ExprKind::Number(self.text_of(t).to_string())))
            }
            Tok::Star | Tok::Question => {
                self.bump();
                Ok(leaf(ExprKind::Nondet))
            }
            Tok::Prime => {
                self.bump();
                let name: Ident = self.ident("a variable name after `'`")?;
                let span = t.span.to(name.span);
                Ok(Expr {
                    kind: ExprKind::Primed(name),
                    span,
                    height: 1,
                })
            }
            Tok::Schoose => {
                self.bump();
                self.expect(Tok::LBracket, "`[` after `schoose`")?;
                let args = self.args_after_open(Tok::RBracket, "`,` or `]`")?;
                let span = t.span.to(self.last_span());
                let height = args.iter().map(|a| a.height).max().unwrap_or(0) + 1;
                self.node(ExprKind::Schoose(args), span, height)
            }
            _ => Err(self.expected("an expression")),
        }
    }

    /// `expr { "," expr }`.
    pub(super) fn expr_list(&mut self) -> PResult<Vec<Expr>> {
        let mut v = vec![self.expr()?];
        while self.eat(Tok::Comma) {
            v.push(self.expr()?);
        }
        Ok(v)
    }

    /// `[ expr { "," expr } ] close`, after the opening bracket.
    pub(super) fn args_after_open(&mut self, close: Tok, what: &str) -> PResult<Vec<Expr>> {
        if self.eat(close) {
            return Ok(Vec::new());
        }
        let v = self.expr_list()?;
        self.expect(close, what)?;
        Ok(v)
    }
}
