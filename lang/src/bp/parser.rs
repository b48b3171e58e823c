//! Recursive-descent parser for boolean programs: token access, diagnostics, the top level
//! (§2.1) and declarations (§2.4). Statements are in `parse_stmt.rs`, expressions in
//! `parse_expr.rs`.
//!
//! The parser never panics: token access past the end yields the final `Eof`, statement nesting
//! is capped at [`MAX_DEPTH`] (expressions recurse through [`crate::deep::grow`]), and a syntax error is recorded and followed by resynchronisation
//! so that one run reports several independent errors.

use super::ast::*;
use super::lexer::{Tok, Token};
use crate::diag::Diagnostic;
use crate::ir::Span;

/// Deepest nesting of statements (`if`, `while`); expressions nest to any depth
/// ([`crate::deep`]).
pub const MAX_DEPTH: u32 = 256;
/// Most diagnostics recorded before the parser stops.
pub const MAX_DIAGS: usize = crate::diag::MAX_REPORTED_ERRORS;

/// Marks a failed production; the diagnostic has already been recorded.
#[derive(Debug)]
pub struct Fail;

/// Result of a production.
pub type PResult<T> = Result<T, Fail>;

/// Parser state over a token vector that ends with `Eof`.
pub struct Parser<'a> {
    pub(super) text: &'a str,
    toks: &'a [Token],
    pub(super) pos: usize,
    pub(super) depth: u32,
    /// Every diagnostic found, syntax and otherwise.
    pub diags: Vec<Diagnostic>,
    /// Whether any diagnostic is a syntax error (the tree is then incomplete).
    pub syntax_errors: bool,
    pub(super) halted: bool,
    pub(super) last_span: Span,
}

/// Parses a whole file. Check `Parser::diags` and `syntax_errors` afterwards.
pub fn parse(text: &str, toks: &[Token]) -> (Program, Vec<Diagnostic>, bool) {
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        depth: 0,
        diags: Vec::new(),
        syntax_errors: false,
        halted: false,
        last_span: Span::default(),
    };
    let program = p.program();
    (program, p.diags, p.syntax_errors)
}

/// Tokens that close a statement list.
pub(super) fn is_closer(t: Tok) -> bool {
    matches!(
        t,
        Tok::End | Tok::Fi | Tok::Else | Tok::Elsif | Tok::Od | Tok::Eof
    )
}

/// Keywords at which recovery may resume parsing.
pub(super) fn is_sync_keyword(t: Tok) -> bool {
    matches!(
        t,
        Tok::If
            | Tok::While
            | Tok::Skip
            | Tok::Goto
            | Tok::Return
            | Tok::Assert
            | Tok::Assume
            | Tok::Decl
            | Tok::Enforce
            | Tok::Constrain
            | Tok::Dead
            | Tok::Print
            | Tok::StartThread
            | Tok::EndThread
            | Tok::AtomicBegin
            | Tok::AtomicEnd
            | Tok::Void
            | Tok::Bool
            | Tok::Begin
    )
}

impl<'a> Parser<'a> {
    // ---- token access -------------------------------------------------------------------

    pub(super) fn tok(&self, ahead: usize) -> Token {
        let eof = Token {
            kind: Tok::Eof,
            span: Span::new(self.text.len(), self.text.len()),
        };
        self.pos
            .checked_add(ahead)
            .and_then(|i| self.toks.get(i))
            .or_else(|| self.toks.last())
            .copied()
            .unwrap_or(eof)
    }

    pub(super) fn peek(&self) -> Tok {
        self.tok(0).kind
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Tok {
        self.tok(ahead).kind
    }

    pub(super) fn text_of(&self, t: Token) -> &'a str {
        self.text
            .get(t.span.start as usize..t.span.end as usize)
            .unwrap_or("")
    }

    /// Whether the current token is the name `word`.
    pub(super) fn at_word(&self, ahead: usize, word: &str) -> bool {
        let t = self.tok(ahead);
        t.kind == Tok::Name && self.text_of(t) == word
    }

    pub(super) fn bump(&mut self) -> Token {
        let t = self.tok(0);
        if self.pos < self.toks.len() && t.kind != Tok::Eof {
            self.pos += 1;
        }
        self.last_span = t.span;
        t
    }

    pub(super) fn last_span(&self) -> Span {
        self.last_span
    }

    pub(super) fn eat(&mut self, kind: Tok) -> bool {
        if self.peek() == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        if self.peek() == kind {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    pub(super) fn ident(&mut self, what: &str) -> PResult<Ident> {
        let t = self.expect(Tok::Name, what)?;
        Ok(Ident {
            name: self.text_of(t).to_string(),
            span: t.span,
        })
    }

    /// A label or goto target: a name or a digit string.
    pub(super) fn label(&mut self) -> PResult<Ident> {
        match self.peek() {
            Tok::Name | Tok::Number => {
                let t = self.bump();
                Ok(Ident {
                    name: self.text_of(t).to_string(),
                    span: t.span,
                })
            }
            _ => Err(self.expected("a label")),
        }
    }

    // ---- diagnostics --------------------------------------------------------------------

    /// How the current token reads in a message.
    pub(super) fn found(&self) -> String {
        let t = self.tok(0);
        match t.kind {
            Tok::Name | Tok::Number => format!("`{}`", self.text_of(t)),
            k => k.describe().to_string(),
        }
    }

    /// Records "expected X, found Y" at the current token.
    #[inline(never)]
    pub(super) fn expected(&mut self, what: &str) -> Fail {
        let msg = format!("expected {what}, found {}", self.found());
        let d = Diagnostic::error(self.tok(0).span, msg).with_label(format!("expected {what}"));
        self.syntax(d)
    }

    /// Records a syntax error (dropping one at the same place as the previous one).
    pub(super) fn syntax(&mut self, d: Diagnostic) -> Fail {
        self.syntax_errors = true;
        self.report(d);
        Fail
    }

    /// Records a diagnostic that does not make the tree incomplete.
    pub(super) fn report(&mut self, d: Diagnostic) {
        if self.halted {
            return;
        }
        if self
            .diags
            .last()
            .is_some_and(|l| l.span.start == d.span.start)
        {
            return;
        }
        if self.diags.len() >= MAX_DIAGS {
            self.halted = true;
            self.syntax_errors = true;
            self.diags.push(Diagnostic::error(
                d.span,
                format!("too many errors ({MAX_DIAGS}); stopping here"),
            ));
            return;
        }
        self.diags.push(d);
    }

    /// Enters one nesting level, failing beyond [`MAX_DEPTH`].
    #[inline(never)]
    pub(super) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            let d = Diagnostic::error(self.tok(0).span, "nesting too deep")
                .with_label(format!("more than {MAX_DEPTH} nested levels"));
            let fail = self.syntax(d);
            // every enclosing level would fail here again on recovery: one error says it all
            self.halted = true;
            return Err(fail);
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ---- top level ----------------------------------------------------------------------

    fn program(&mut self) -> Program {
        let mut program = Program::default();
        while !self.halted {
            let start = self.pos;
            let ok = match self.peek() {
                Tok::Eof => break,
                Tok::Decl => self.global_decl().map(|d| program.decls.push(d)),
                Tok::Void | Tok::Bool => self.procedure().map(|p| program.procs.push(p)),
                Tok::Name if self.at_word(0, "dfs") && self.starts_procedure(1) => {
                    self.bump();
                    self.procedure().map(|p| program.procs.push(p))
                }
                Tok::Name if self.starts_procedure(0) => {
                    self.procedure().map(|p| program.procs.push(p))
                }
                _ => Err(self.expected("`decl` or a procedure")),
            };
            if ok.is_err() {
                self.recover_top(start);
            }
        }
        program
    }

    /// Whether a procedure starts `ahead` tokens from here: a type, or `name (` ... `) begin`.
    fn starts_procedure(&self, ahead: usize) -> bool {
        match self.peek_at(ahead) {
            Tok::Void | Tok::Bool => true,
            Tok::Name => {
                if self.peek_at(ahead + 1) != Tok::LParen {
                    return false;
                }
                let mut i = ahead + 2;
                loop {
                    match self.peek_at(i) {
                        Tok::Name | Tok::Comma => i += 1,
                        Tok::RParen => return self.peek_at(i + 1) == Tok::Begin,
                        _ => return false,
                    }
                }
            }
            _ => false,
        }
    }

    /// Skips to something that can start a top-level item.
    fn recover_top(&mut self, start: usize) {
        if self.pos == start {
            self.bump();
        }
        loop {
            match self.peek() {
                Tok::Eof | Tok::Decl | Tok::Void | Tok::Bool => return,
                Tok::End => {
                    self.bump();
                    return;
                }
                Tok::Name if self.starts_procedure(0) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn global_decl(&mut self) -> PResult<DeclGroup> {
        let kw = self.bump();
        let thread_local = self.at_word(0, "thread_local") && self.peek_at(1) == Tok::Name;
        if thread_local {
            self.bump();
        }
        self.decl_rest(kw.span, thread_local)
    }

    #[inline(never)]
    pub(super) fn local_decl(&mut self) -> PResult<DeclGroup> {
        let kw = self.bump();
        if self.at_word(0, "thread_local") && self.peek_at(1) == Tok::Name {
            let d = Diagnostic::error(self.tok(0).span, "`thread_local` inside a procedure")
                .with_label("only global declarations can be thread-local");
            return Err(self.syntax(d));
        }
        self.decl_rest(kw.span, false)
    }

    /// `name [:= init] {, ...} ;` after `decl`.
    fn decl_rest(&mut self, start: Span, thread_local: bool) -> PResult<DeclGroup> {
        let mut items = Vec::new();
        loop {
            let name = self.ident("a variable name")?;
            let init = if self.eat(Tok::ColonEq) {
                self.init_value()?
            } else {
                InitValue::Any
            };
            items.push(DeclItem { name, init });
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        let end = self.expect(Tok::Semi, "`;` or `,`")?;
        Ok(DeclGroup {
            thread_local,
            items,
            span: start.to(end.span),
        })
    }

    fn init_value(&mut self) -> PResult<InitValue> {
        let t = self.tok(0);
        let text = self.text_of(t);
        let v = match (t.kind, text) {
            (Tok::Name, "T") | (Tok::Number, "1") => InitValue::Value(true),
            (Tok::Name, "F") | (Tok::Number, "0") => InitValue::Value(false),
            (Tok::Star | Tok::Question, _) => InitValue::Any,
            (Tok::Number, _) => {
                let d = Diagnostic::error(
                    t.span,
                    format!("invalid constant `{text}`: an initial value is `T`, `F`, `0`, `1`, `*` or `?`"),
                )
                .with_code("E11")
                .with_label("only `0` and `1` are boolean numbers");
                self.report(d);
                InitValue::Any
            }
            _ => return Err(self.expected("`T`, `F`, `0`, `1`, `*` or `?`")),
        };
        self.bump();
        Ok(v)
    }

    fn procedure(&mut self) -> PResult<ProcDecl> {
        let first = self.tok(0).span;
        let header = self.proc_header();
        let (name, results, type_span, params) = match header {
            Ok(h) => h,
            Err(fail) => {
                // Parse the body anyway (if there is one) to find the errors in it.
                loop {
                    match self.peek() {
                        Tok::Begin => break,
                        Tok::Eof | Tok::Decl | Tok::Void | Tok::Bool | Tok::End => {
                            return Err(fail)
                        }
                        _ => {
                            self.bump();
                        }
                    }
                }
                self.bump();
                let _ = self.stmt_list();
                self.eat(Tok::End);
                return Err(fail);
            }
        };
        let body = self.stmt_list();
        let end = self.expect(Tok::End, "`end`")?;
        Ok(ProcDecl {
            name,
            results,
            type_span,
            params,
            body,
            end_span: end.span,
            span: first.to(end.span),
        })
    }

    #[allow(clippy::type_complexity)]
    fn proc_header(&mut self) -> PResult<(Ident, u64, Option<Span>, Vec<Ident>)> {
        let (results, type_span) = match self.peek() {
            Tok::Void => (0, Some(self.bump().span)),
            Tok::Bool => {
                let kw = self.bump();
                if self.eat(Tok::Lt) {
                    let n = self.expect(Tok::Number, "the number of results")?;
                    let gt = self.expect(Tok::Gt, "`>`")?;
                    let count = self.text_of(n).parse::<u64>().unwrap_or(u64::MAX);
                    (count, Some(kw.span.to(gt.span)))
                } else {
                    (1, Some(kw.span))
                }
            }
            _ => (0, None),
        };
        let name = self.ident("a procedure name")?;
        self.expect(Tok::LParen, "`(`")?;
        let mut params = Vec::new();
        if self.peek() != Tok::RParen {
            loop {
                params.push(self.ident("a parameter name")?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "`,` or `)`")?;
        self.expect(Tok::Begin, "`begin`")?;
        Ok((name, results, type_span, params))
    }
}

/// 1-based line of a span's start.
pub fn line_of(text: &str, span: Span) -> usize {
    let end = (span.start as usize).min(text.len());
    text.as_bytes()
        .get(..end)
        .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
        + 1
}
