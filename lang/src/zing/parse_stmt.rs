//! Parsing of blocks and statements (zing-language.md §4), with the recovery that lets one
//! run report several syntax errors.

use super::ast::*;
use super::lexer::Tok;
use super::parser::{builtin_type, Fail, PResult, Parser};
use crate::diag::Diagnostic;
use crate::ir::Span;

/// Keywords at which statement recovery may resume.
fn is_stmt_keyword(t: Tok) -> bool {
    matches!(
        t,
        Tok::Atomic
            | Tok::Async
            | Tok::Assert
            | Tok::Assume
            | Tok::Accept
            | Tok::If
            | Tok::While
            | Tok::Foreach
            | Tok::Goto
            | Tok::Return
            | Tok::Send
            | Tok::Select
            | Tok::Try
            | Tok::Raise
            | Tok::Yield
            | Tok::Trace
            | Tok::Event
            | Tok::InvokePlugin
            | Tok::InvokeScheduler
    )
}

impl Parser<'_> {
    /// `{ statements }`
    pub(super) fn block(&mut self) -> PResult<Block> {
        let open = self.expect(Tok::LBrace, "`{`")?;
        let stmts = crate::deep::grow(|| self.stmt_list());
        let close = self.expect(Tok::RBrace, "`}`")?;
        Ok(Block {
            stmts,
            span: open.span.to(close.span),
        })
    }

    /// Statements up to a `}` (not consumed).
    fn stmt_list(&mut self) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        while !self.halted && !matches!(self.peek(), Tok::RBrace | Tok::Eof) {
            let start = self.pos();
            match self.statement() {
                Ok(s) => stmts.push(s),
                Err(Fail) => self.recover_stmt(start),
            }
        }
        stmts
    }

    /// Skips past a broken statement: through a `;` or a balanced `{…}`, or to a `}` or a
    /// statement keyword.
    fn recover_stmt(&mut self, start: usize) {
        if self.pos() == start && self.peek() != Tok::RBrace {
            self.bump();
        }
        loop {
            match self.peek() {
                Tok::Eof | Tok::RBrace => return,
                Tok::Semi => {
                    self.bump();
                    return;
                }
                Tok::LBrace => {
                    self.bump();
                    self.skip_balanced(Tok::LBrace, Tok::RBrace);
                    return;
                }
                t if is_stmt_keyword(t) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// One statement (nested statements recurse through [`crate::deep::grow`]).
    pub(super) fn statement(&mut self) -> PResult<Stmt> {
        crate::deep::grow(|| self.statement_inner())
    }

    fn statement_inner(&mut self) -> PResult<Stmt> {
        let first = self.tok(0);
        let start = first.span;
        let simple = |p: &mut Self, kind: StmtKind| -> PResult<Stmt> {
            let end = p.semi()?;
            Ok(Stmt {
                kind,
                span: start.to(end),
            })
        };
        match first.kind {
            Tok::LBrace => {
                let b = self.block()?;
                Ok(Stmt {
                    span: b.span,
                    kind: StmtKind::Block(b),
                })
            }
            Tok::Semi => {
                self.bump();
                Ok(Stmt {
                    kind: StmtKind::Empty,
                    span: start,
                })
            }
            Tok::LBracket => {
                self.attributes()?;
                self.statement()
            }
            Tok::Atomic => {
                self.bump();
                let b = self.block()?;
                Ok(Stmt {
                    span: start.to(b.span),
                    kind: StmtKind::Atomic(b),
                })
            }
            Tok::Async => {
                self.bump();
                let call = self.expr()?;
                simple(self, StmtKind::Async(call))
            }
            Tok::Assert => {
                self.bump();
                let mut args = self.paren_args()?;
                if args.is_empty() || args.len() > 2 {
                    let d = Diagnostic::error(
                        start,
                        "`assert` takes a condition and an optional message",
                    )
                    .with_label(format!("{} arguments given", args.len()));
                    return Err(self.syntax(d));
                }
                let message = if args.len() == 2 { args.pop() } else { None };
                let cond = args.pop().ok_or(Fail)?;
                simple(self, StmtKind::Assert { cond, message })
            }
            Tok::Assume | Tok::Accept => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let e = self.expr()?;
                self.expect(Tok::RParen, "`)`")?;
                let kind = if first.kind == Tok::Assume {
                    StmtKind::Assume(e)
                } else {
                    StmtKind::Accept(e)
                };
                simple(self, kind)
            }
            Tok::If => self.if_stmt(),
            Tok::While => {
                self.bump();
                let cond = self.paren_expr()?;
                let body = self.statement()?;
                Ok(Stmt {
                    span: start.to(body.span),
                    kind: StmtKind::While {
                        cond,
                        body: Box::new(body),
                    },
                })
            }
            Tok::Foreach => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let ty = self.type_expr(false)?;
                let var = self.ident("a loop variable")?;
                self.expect(Tok::In, "`in`")?;
                let coll = self.expr()?;
                self.expect(Tok::RParen, "`)`")?;
                let body = self.statement()?;
                Ok(Stmt {
                    span: start.to(body.span),
                    kind: StmtKind::Foreach {
                        ty,
                        var,
                        coll,
                        body: Box::new(body),
                        local: None,
                    },
                })
            }
            Tok::Goto => {
                self.bump();
                let l = self.ident("a label")?;
                simple(self, StmtKind::Goto(l))
            }
            Tok::Return => {
                self.bump();
                let e = if self.peek() == Tok::Semi {
                    None
                } else {
                    Some(self.expr()?)
                };
                simple(self, StmtKind::Return(e))
            }
            Tok::Send => {
                self.bump();
                let mut args = self.paren_args()?;
                if args.len() != 2 {
                    let d = Diagnostic::error(start, "`send` takes a channel and a message")
                        .with_label(format!("{} arguments given", args.len()));
                    return Err(self.syntax(d));
                }
                let msg = args.pop().ok_or(Fail)?;
                let chan = args.pop().ok_or(Fail)?;
                simple(self, StmtKind::Send { chan, msg })
            }
            Tok::Select => self.select(),
            Tok::Try => self.try_stmt(),
            Tok::Raise => {
                self.bump();
                let n = self.ident("an exception name")?;
                simple(self, StmtKind::Raise(n))
            }
            Tok::Yield => {
                self.bump();
                simple(self, StmtKind::Yield)
            }
            Tok::Trace | Tok::Event | Tok::InvokePlugin | Tok::InvokeScheduler => {
                self.bump();
                let args = self.paren_args()?;
                let kind = match first.kind {
                    Tok::Trace => StmtKind::Trace(args),
                    Tok::Event => StmtKind::Event(args),
                    Tok::InvokePlugin => StmtKind::InvokePlugin(args),
                    _ => StmtKind::InvokeScheduler(args),
                };
                simple(self, kind)
            }
            Tok::Ident if self.peek_at(1) == Tok::Colon => {
                let label = self.ident("a label")?;
                self.bump();
                if self.peek() == Tok::RBrace {
                    let d = Diagnostic::error(
                        self.tok(0).span,
                        "a label must be followed by a statement",
                    )
                    .with_label("write `;` after the label for an empty statement");
                    return Err(self.syntax(d));
                }
                let stmt = self.statement()?;
                Ok(Stmt {
                    span: start.to(stmt.span),
                    kind: StmtKind::Labeled {
                        label,
                        stmt: Box::new(stmt),
                    },
                })
            }
            Tok::Ident if self.peek_at(1) == Tok::Ident => self.local_decl(),
            t if builtin_type(t).is_some() => self.local_decl(),
            Tok::Else => {
                let d = Diagnostic::error(start, "`else` without `if`")
                    .with_label("no `if` before this `else`");
                Err(self.syntax(d))
            }
            _ => self.expr_stmt(),
        }
    }

    /// `[Name(args), …]` before a statement or join statement: parsed and ignored.
    pub(super) fn attributes(&mut self) -> PResult<()> {
        self.expect(Tok::LBracket, "`[`")?;
        loop {
            self.ident("an attribute name")?;
            if self.eat(Tok::LParen) {
                self.args_after_paren()?;
            }
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBracket, "`]`")?;
        Ok(())
    }

    /// `T x;` or `T x = e;`
    fn local_decl(&mut self) -> PResult<Stmt> {
        let ty = self.type_expr(false)?;
        let name = self.ident("a variable name")?;
        let init = if self.eat(Tok::Assign) {
            Some(self.expr()?)
        } else {
            None
        };
        if self.peek() == Tok::Comma {
            let d = Diagnostic::error(self.tok(0).span, "one variable per declaration")
                .with_label("declare the next variable in its own statement");
            return Err(self.syntax(d));
        }
        let end = self.semi()?;
        Ok(Stmt {
            span: ty.span.to(end),
            kind: StmtKind::Local {
                ty,
                name,
                init,
                local: None,
            },
        })
    }

    /// `e;` or `t = … = e;`
    fn expr_stmt(&mut self) -> PResult<Stmt> {
        let first = self.expr()?;
        let start = first.span;
        let mut targets = Vec::new();
        let mut value = first;
        while self.eat(Tok::Assign) {
            targets.push(value);
            value = self.expr()?;
        }
        let end = self.semi()?;
        let kind = if targets.is_empty() {
            StmtKind::Expr(value)
        } else {
            StmtKind::Assign { targets, value }
        };
        Ok(Stmt {
            kind,
            span: start.to(end),
        })
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        let kw = self.bump();
        let cond = self.paren_expr()?;
        let then = self.statement()?;
        let mut span = kw.span.to(then.span);
        let els = if self.eat(Tok::Else) {
            let s = self.statement()?;
            span = span.to(s.span);
            Some(Box::new(s))
        } else {
            None
        };
        Ok(Stmt {
            kind: StmtKind::If {
                cond,
                then: Box::new(then),
                els,
            },
            span,
        })
    }

    /// `( e )`
    fn paren_expr(&mut self) -> PResult<Expr> {
        self.expect(Tok::LParen, "`(`")?;
        let e = self.expr()?;
        self.expect(Tok::RParen, "`)`")?;
        Ok(e)
    }

    /// `( e, … )` with possibly no arguments; string literals allowed.
    fn paren_args(&mut self) -> PResult<Vec<Expr>> {
        self.expect(Tok::LParen, "`(`")?;
        Ok(self
            .args_after_paren()?
            .into_iter()
            .map(|a| a.expr)
            .collect())
    }

    fn select(&mut self) -> PResult<Stmt> {
        let kw = self.bump();
        let mut sel = Select {
            is_end: false,
            is_first: false,
            is_visible: false,
            branches: Vec::new(),
        };
        loop {
            let t = self.tok(0);
            let flag = match t.kind {
                Tok::End => &mut sel.is_end,
                Tok::First => &mut sel.is_first,
                Tok::Visible => &mut sel.is_visible,
                _ => break,
            };
            if *flag {
                let d = Diagnostic::error(
                    t.span,
                    format!("duplicate select modifier {}", t.kind.describe()),
                )
                .with_label("each modifier may appear at most once");
                self.syntax(d);
            }
            *flag = true;
            self.bump();
        }
        self.expect(Tok::LBrace, "`{`")?;
        while !self.halted && !matches!(self.peek(), Tok::RBrace | Tok::Eof) {
            let start = self.pos();
            match self.join_stmt() {
                Ok(j) => sel.branches.push(j),
                Err(Fail) => self.recover_stmt(start),
            }
        }
        let close = self.expect(Tok::RBrace, "`}`")?;
        if sel.branches.is_empty() {
            let d = Diagnostic::error(kw.span, "a `select` needs at least one join statement")
                .with_label("empty select");
            self.syntax(d);
        }
        Ok(Stmt {
            kind: StmtKind::Select(sel),
            span: kw.span.to(close.span),
        })
    }

    fn join_stmt(&mut self) -> PResult<JoinStmt> {
        if self.peek() == Tok::LBracket {
            self.attributes()?;
        }
        let start = self.tok(0).span;
        let mut patterns = vec![self.pattern()?];
        while self.eat(Tok::AndAnd) {
            patterns.push(self.pattern()?);
        }
        self.expect(Tok::Arrow, "`->` or `&&`")?;
        let body = self.statement()?;
        Ok(JoinStmt {
            patterns,
            span: start.to(body.span),
            body: Box::new(body),
        })
    }

    fn pattern(&mut self) -> PResult<Pattern> {
        let t = self.tok(0);
        match t.kind {
            Tok::Wait => {
                self.bump();
                Ok(Pattern::Wait(self.paren_expr()?))
            }
            Tok::Receive => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let chan = self.expr()?;
                self.expect(Tok::Comma, "`,`")?;
                let target = self.expr()?;
                self.expect(Tok::RParen, "`)`")?;
                Ok(Pattern::Receive { chan, target })
            }
            Tok::Timeout => {
                self.bump();
                Ok(Pattern::Timeout(t.span))
            }
            Tok::Event => {
                self.bump();
                let args = self.paren_args()?;
                Ok(Pattern::Event(args, t.span.to(self.last_span())))
            }
            _ => Err(self.expected("a join pattern (`wait`, `receive`, `timeout` or `event`)")),
        }
    }

    fn try_stmt(&mut self) -> PResult<Stmt> {
        let kw = self.bump();
        let body = self.block()?;
        self.expect(Tok::With, "`with`")?;
        self.expect(Tok::LBrace, "`{`")?;
        let mut handlers = Vec::new();
        while !self.halted && !matches!(self.peek(), Tok::RBrace | Tok::Eof) {
            let start = self.pos();
            match self.handler() {
                Ok(h) => handlers.push(h),
                Err(Fail) => self.recover_stmt(start),
            }
        }
        let close = self.expect(Tok::RBrace, "`}`")?;
        Ok(Stmt {
            kind: StmtKind::Try { body, handlers },
            span: kw.span.to(close.span),
        })
    }

    fn handler(&mut self) -> PResult<Handler> {
        let start: Span = self.tok(0).span;
        let name = if self.eat(Tok::Star) {
            None
        } else {
            Some(self.ident("an exception name or `*`")?)
        };
        self.expect(Tok::Arrow, "`->`")?;
        let body = self.statement()?;
        Ok(Handler {
            name,
            span: start.to(body.span),
            body,
        })
    }
}
