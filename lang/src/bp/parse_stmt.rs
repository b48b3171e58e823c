//! Parsing of statement lists and statements (bp-language.md §3.1–§3.4), including the
//! optional-`;` rules and the recovery that lets one run report several syntax errors.

use super::ast::*;
use super::lexer::Tok;
use super::parser::{is_closer, is_sync_keyword, line_of, Fail, PResult, Parser};
use crate::diag::Diagnostic;

impl Parser<'_> {
    // ---- statement lists ----------------------------------------------------------------

    /// `{ local_decl | enforce_clause | statement | ";" }` up to a closing keyword.
    pub(super) fn stmt_list(&mut self) -> Vec<Item> {
        let mut items = Vec::new();
        while !self.halted {
            match self.peek() {
                t if is_closer(t) => break,
                Tok::Void | Tok::Bool => break,
                Tok::Semi => {
                    self.bump();
                    continue;
                }
                _ => {}
            }
            let start = self.pos;
            match self.item() {
                Ok(item) => items.push(item),
                Err(Fail) => self.recover_stmt(start),
            }
        }
        items
    }

    /// Skips past the broken statement: to a `;` (consumed), a closer or a keyword.
    fn recover_stmt(&mut self, start: usize) {
        if self.pos == start && !is_closer(self.peek()) {
            self.bump();
        }
        loop {
            match self.peek() {
                Tok::Semi => {
                    self.bump();
                    return;
                }
                t if is_closer(t) || is_sync_keyword(t) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn item(&mut self) -> PResult<Item> {
        match self.peek() {
            Tok::Decl => self.local_decl().map(Item::Decl),
            Tok::Enforce => self.enforce(),
            _ => Ok(Item::Stmt(self.statement()?)),
        }
    }

    #[inline(never)]
    fn enforce(&mut self) -> PResult<Item> {
        let kw = self.bump();
        let e = self.expr()?;
        let span = kw.span.to(e.span);
        self.terminator()?;
        Ok(Item::Enforce(e, span))
    }

    /// The `;` after a simple statement, optional before a closing keyword.
    fn terminator(&mut self) -> PResult<()> {
        if is_closer(self.peek()) && self.peek() != Tok::Eof {
            return Ok(());
        }
        self.expect_or_insert(Tok::Semi, "`;`")
    }

    /// Expects `kind`; when it is missing but what follows clearly starts something new (a
    /// keyword, or a name on a later line), reports it and goes on as if it were there.
    fn expect_or_insert(&mut self, kind: Tok, what: &str) -> PResult<()> {
        if self.eat(kind) {
            return Ok(());
        }
        let fail = self.expected(what);
        let t = self.tok(0);
        let new_line = self
            .text
            .get(self.last_span.end as usize..t.span.start as usize)
            .is_some_and(|gap| gap.contains('\n'));
        let resumable =
            is_sync_keyword(t.kind) || (matches!(t.kind, Tok::Name | Tok::Number) && new_line);
        if resumable {
            Ok(())
        } else {
            Err(fail)
        }
    }

    // ---- statements ---------------------------------------------------------------------

    fn statement(&mut self) -> PResult<Stmt> {
        let labels = self.labels()?;
        let start = self.tok(0).span;
        let (kind, compound) = self.bare_statement()?;
        let span = start.to(self.last_span());
        if compound {
            self.eat(Tok::Semi);
        } else {
            self.terminator()?;
        }
        Ok(Stmt { labels, kind, span })
    }

    /// The labels `L:` in front of a statement.
    #[inline(never)]
    fn labels(&mut self) -> PResult<Vec<Ident>> {
        let mut labels = Vec::new();
        while matches!(self.peek(), Tok::Name | Tok::Number) && self.peek_at(1) == Tok::Colon {
            labels.push(self.label()?);
            self.bump();
        }
        if !labels.is_empty()
            && (is_closer(self.peek())
                || matches!(self.peek(), Tok::Semi | Tok::Decl | Tok::Enforce))
        {
            return Err(self.expected("a statement after the label"));
        }
        Ok(labels)
    }

    /// Whether the name at the start of a statement is a contextual keyword here.
    fn contextual(&self, word: &str) -> bool {
        self.at_word(0, word)
            && !matches!(
                self.peek_at(1),
                Tok::ColonEq | Tok::Comma | Tok::LParen | Tok::Colon
            )
    }

    /// A statement without labels; the flag says whether it is compound (`if`, `while`).
    /// Kept small because it is on the recursion path of nested statements.
    fn bare_statement(&mut self) -> PResult<(StmtKind, bool)> {
        match self.peek() {
            Tok::If => Ok((self.nested(Self::if_stmt)?, true)),
            Tok::While => Ok((self.nested(Self::while_stmt)?, true)),
            _ => Ok((self.simple_statement()?, false)),
        }
    }

    /// A statement other than `if` and `while`.
    #[inline(never)]
    fn simple_statement(&mut self) -> PResult<StmtKind> {
        let kind = match self.peek() {
            Tok::Skip => {
                self.bump();
                StmtKind::Skip
            }
            Tok::Goto => {
                self.bump();
                let mut targets = vec![self.label()?];
                while self.eat(Tok::Comma) {
                    targets.push(self.label()?);
                }
                StmtKind::Goto(targets)
            }
            Tok::Return => {
                let kw = self.bump();
                let values = if self.peek() == Tok::Semi || is_closer(self.peek()) {
                    Vec::new()
                } else {
                    self.expr_list()?
                };
                StmtKind::Return(values, kw.span)
            }
            Tok::Assert => {
                self.bump();
                StmtKind::Assert(self.expr()?)
            }
            Tok::Assume => {
                self.bump();
                StmtKind::Assume(self.expr()?)
            }
            Tok::Constrain => {
                self.bump();
                StmtKind::Constrain(self.expr()?)
            }
            Tok::Dead => {
                self.bump();
                let mut names = vec![self.ident("a variable name")?];
                while self.eat(Tok::Comma) {
                    names.push(self.ident("a variable name")?);
                }
                StmtKind::Dead(names)
            }
            Tok::Print => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let args = self.args_after_open(Tok::RParen, "`,` or `)`")?;
                StmtKind::Print(args)
            }
            Tok::StartThread => self.start_thread()?,
            Tok::EndThread => {
                self.bump();
                StmtKind::EndThread
            }
            Tok::AtomicBegin => {
                self.bump();
                StmtKind::AtomicBegin
            }
            Tok::AtomicEnd => {
                self.bump();
                StmtKind::AtomicEnd
            }
            Tok::Name if self.contextual("abortif") => {
                self.bump();
                StmtKind::Abortif(self.expr()?)
            }
            Tok::Name if self.contextual("sync") => {
                self.bump();
                self.ident("a name after `sync`")?;
                StmtKind::Sync
            }
            Tok::Name if self.contextual("wait") || self.contextual("broadcast") => {
                let t = self.bump();
                let word = self.text_of(t);
                let d = Diagnostic::error(t.span, format!("`{word}` is not supported"))
                    .with_code("E14")
                    .with_label("ijit-only thread signalling")
                    .with_note("use `assume` and atomic sections to model synchronisation");
                self.report(d);
                StmtKind::Rejected
            }
            Tok::Name => self.assign_or_call()?,
            _ => return Err(self.expected("a statement")),
        };
        Ok(kind)
    }

    /// Runs a nested compound statement inside one more nesting level.
    fn nested(&mut self, f: fn(&mut Self) -> PResult<StmtKind>) -> PResult<StmtKind> {
        self.enter()?;
        let r = f(self);
        self.leave();
        r
    }

    fn if_stmt(&mut self) -> PResult<StmtKind> {
        let mut arms = Vec::new();
        loop {
            let kw = self.bump(); // `if` or `elsif`
            let cond = self.condition(Tok::Then)?;
            let head = kw.span.to(self.last_span());
            self.expect_or_insert(Tok::Then, "`then`")?;
            let body = self.stmt_list();
            arms.push(Arm { cond, head, body });
            if self.peek() != Tok::Elsif {
                break;
            }
        }
        let els = if self.eat(Tok::Else) {
            Some(self.stmt_list())
        } else {
            None
        };
        self.expect(Tok::Fi, "`fi`")?;
        Ok(StmtKind::If { arms, els })
    }

    /// The condition of `if`/`elsif`/`while`. If it is malformed but the keyword that ends
    /// it (`then`/`do`) follows on, parsing goes on from there, so the body is still checked.
    fn condition(&mut self, closer: Tok) -> PResult<Expr> {
        let start = self.tok(0).span;
        match self.expr() {
            Ok(e) => Ok(e),
            Err(fail) => {
                while self.peek() != closer {
                    let t = self.peek();
                    if t == Tok::Semi || is_closer(t) || is_sync_keyword(t) {
                        return Err(fail);
                    }
                    self.bump();
                }
                Ok(Expr {
                    kind: ExprKind::Nondet,
                    span: start,
                    height: 1,
                })
            }
        }
    }

    fn while_stmt(&mut self) -> PResult<StmtKind> {
        let kw = self.bump();
        let cond = self.condition(Tok::Do)?;
        let head = kw.span.to(self.last_span());
        self.expect_or_insert(Tok::Do, "`do`")?;
        let body = self.stmt_list();
        self.expect(Tok::Od, "`od`")?;
        Ok(StmtKind::While { cond, head, body })
    }

    fn start_thread(&mut self) -> PResult<StmtKind> {
        let kw = self.bump();
        if self.eat(Tok::Goto) {
            return Ok(StmtKind::StartThreadGoto(self.label()?));
        }
        if self.peek() == Tok::Name && self.peek_at(1) == Tok::LParen {
            let callee = self.ident("a procedure name")?;
            self.bump();
            let args = self.args_after_open(Tok::RParen, "`,` or `)`")?;
            return Ok(StmtKind::StartThread { callee, args });
        }
        let d = Diagnostic::error(
            self.tok(0).span,
            "`start_thread` must be followed by `goto L` or a call without receivers",
        )
        .with_code("E15")
        .with_label("not `goto L` or `f(...)`")
        .with_note(format!(
            "`start_thread` is at line {}",
            line_of(self.text, kw.span)
        ));
        self.report(d);
        while self.peek() != Tok::Semi && !is_closer(self.peek()) {
            self.bump();
        }
        Ok(StmtKind::Rejected)
    }

    /// A statement starting with a plain name: a call, or targets followed by `:=`.
    fn assign_or_call(&mut self) -> PResult<StmtKind> {
        if self.peek_at(1) == Tok::LParen {
            let callee = self.ident("a procedure name")?;
            self.bump();
            let args = self.args_after_open(Tok::RParen, "`,` or `)`")?;
            return Ok(StmtKind::Call {
                receivers: Vec::new(),
                callee,
                args,
            });
        }
        let mut targets = Vec::new();
        loop {
            let id = self.ident("a variable or `_`")?;
            targets.push(if id.name == "_" {
                Target::Discard(id.span)
            } else {
                Target::Var(id)
            });
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::ColonEq, "`:=` or `,`")?;
        if self.peek() == Tok::Name && self.peek_at(1) == Tok::LParen {
            let callee = self.ident("a procedure name")?;
            self.bump();
            let args = self.args_after_open(Tok::RParen, "`,` or `)`")?;
            return Ok(StmtKind::Call {
                receivers: targets,
                callee,
                args,
            });
        }
        let values = self.expr_list()?;
        let constrain = if self.eat(Tok::Constrain) {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(StmtKind::Assign {
            targets,
            values,
            constrain,
        })
    }
}
