//! Recursive-descent parser for Zing: token access, diagnostics, and the declarations of §2.
//! Statements are in `parse_stmt.rs`, expressions in `parse_expr.rs`.
//!
//! The parser never panics: token access past the end yields the final `Eof`, nesting of any
//! depth recurses through [`crate::deep::grow`] (which moves onto a new stack segment when the
//! current one runs low), and a syntax error is recorded and followed by resynchronisation
//! so that one run reports several independent errors (at most [`MAX_DIAGS`]).

use super::ast::*;
use super::lexer::{ident_name, int_value, Tok, Token};
use super::types::Type;
use crate::diag::Diagnostic;
use crate::ir::Span;

/// Most diagnostics recorded before the parser stops.
pub const MAX_DIAGS: usize = crate::diag::MAX_REPORTED_ERRORS;

/// Marks a failed production; the diagnostic has already been recorded.
#[derive(Debug)]
pub struct Fail;

/// Result of a production.
pub type PResult<T> = Result<T, Fail>;

/// Parser state over a token vector that ends with `Eof`.
pub struct Parser<'a> {
    text: &'a str,
    toks: &'a [Token],
    pos: usize,
    /// Every diagnostic found.
    pub diags: Vec<Diagnostic>,
    pub(super) halted: bool,
    last_span: Span,
}

/// Parses a whole model; returns the tree and the syntax errors (empty when it parsed).
pub fn parse(text: &str, toks: &[Token]) -> (Model, Vec<Diagnostic>) {
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        diags: Vec::new(),
        halted: false,
        last_span: Span::default(),
    };
    let model = p.model();
    (model, p.diags)
}

/// Keywords that start a top-level declaration.
fn is_decl_keyword(t: Tok) -> bool {
    matches!(
        t,
        Tok::Class
            | Tok::Struct
            | Tok::Interface
            | Tok::Enum
            | Tok::Range
            | Tok::Chan
            | Tok::Set
            | Tok::Array
    )
}

/// The built-in type a keyword names, if any (`void` included).
pub(super) fn builtin_type(t: Tok) -> Option<TypeName> {
    Some(match t {
        Tok::Bool => TypeName::Builtin(Type::Bool),
        Tok::Byte => TypeName::Builtin(Type::Byte),
        Tok::SByte => TypeName::Builtin(Type::SByte),
        Tok::Short => TypeName::Builtin(Type::Short),
        Tok::UShort => TypeName::Builtin(Type::UShort),
        Tok::Int => TypeName::Builtin(Type::Int),
        Tok::UInt => TypeName::Builtin(Type::UInt),
        Tok::Long => TypeName::Builtin(Type::Long),
        Tok::ULong => TypeName::Builtin(Type::ULong),
        Tok::Object => TypeName::Builtin(Type::Object),
        Tok::String => TypeName::Builtin(Type::Str),
        Tok::Void => TypeName::Builtin(Type::Void),
        Tok::Float => TypeName::Unsupported("float"),
        Tok::Double => TypeName::Unsupported("double"),
        Tok::Decimal => TypeName::Unsupported("decimal"),
        _ => return None,
    })
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

    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    pub(super) fn text_of(&self, t: Token) -> &'a str {
        self.text
            .get(t.span.start as usize..t.span.end as usize)
            .unwrap_or("")
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

    /// The `;` ending a simple statement or field. When it is missing but the next token is
    /// a `}` or starts a later line, the error is reported and parsing goes on as if the `;`
    /// were there, so one forgotten `;` costs one diagnostic.
    pub(super) fn semi(&mut self) -> PResult<Span> {
        if self.peek() == Tok::Semi {
            return Ok(self.bump().span);
        }
        let next = self.tok(0);
        let gap = self
            .text
            .get(self.last_span.end as usize..next.span.start as usize)
            .unwrap_or("");
        let fail = self.expected("`;`");
        if next.kind == Tok::RBrace || gap.contains('\n') {
            Ok(self.last_span)
        } else {
            Err(fail)
        }
    }

    pub(super) fn ident(&mut self, what: &str) -> PResult<Ident> {
        if self.peek() != Tok::Ident {
            if self.peek().is_keyword() {
                let t = self.tok(0);
                let word = self.text_of(t);
                let d =
                    Diagnostic::error(t.span, format!("expected {what}, found keyword `{word}`"))
                        .with_label(format!("expected {what}"))
                        .with_note(format!(
                            "`{word}` is reserved; write `@{word}` to use it as a name"
                        ));
                return Err(self.syntax(d));
            }
            return Err(self.expected(what));
        }
        let t = self.bump();
        Ok(Ident {
            name: ident_name(self.text_of(t)).to_string(),
            span: t.span,
        })
    }

    // ---- diagnostics --------------------------------------------------------------------

    /// How the current token reads in a message.
    pub(super) fn found(&self) -> String {
        let t = self.tok(0);
        match t.kind {
            Tok::Ident | Tok::IntLit => format!("`{}`", self.text_of(t)),
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
        if self.halted {
            return Fail;
        }
        if self
            .diags
            .last()
            .is_some_and(|l| l.span.start == d.span.start)
        {
            return Fail;
        }
        if self.diags.len() >= MAX_DIAGS {
            self.halted = true;
            self.diags.push(Diagnostic::error(
                d.span,
                format!("too many errors ({MAX_DIAGS}); stopping here"),
            ));
            return Fail;
        }
        self.diags.push(d);
        Fail
    }

    /// Skips a balanced bracket group's remainder: stops after the `close` matching an
    /// already consumed `open` (or at end of file).
    pub(super) fn skip_balanced(&mut self, open: Tok, close: Tok) {
        let mut depth = 1usize;
        loop {
            let t = self.peek();
            if t == Tok::Eof {
                return;
            }
            self.bump();
            if t == open {
                depth += 1;
            } else if t == close {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }

    // ---- top level ----------------------------------------------------------------------

    fn model(&mut self) -> Model {
        let mut model = Model::default();
        while !self.halted {
            let start = self.pos;
            let r = match self.peek() {
                Tok::Eof => break,
                t if is_decl_keyword(t) => self.decl(),
                _ => Err(self.expected(
                    "a declaration (`class`, `struct`, `interface`, `enum`, `range`, `chan`, \
                     `set` or `array`)",
                )),
            };
            match r {
                Ok(d) => model.decls.push(d),
                Err(Fail) => self.recover_top(start),
            }
        }
        model
    }

    /// Skips to the next top-level declaration keyword outside braces.
    fn recover_top(&mut self, start: usize) {
        if self.pos == start {
            self.bump();
        }
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Tok::Eof => return,
                t if depth == 0 && is_decl_keyword(t) => return,
                Tok::LBrace => depth += 1,
                Tok::RBrace => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.bump();
        }
    }

    fn decl(&mut self) -> PResult<Decl> {
        let kw = self.bump();
        let name = self.ident("a type name")?;
        let kind = match kw.kind {
            Tok::Class => DeclKind::Class(self.class_body()?),
            Tok::Struct => DeclKind::Struct(self.struct_body()?),
            Tok::Interface => DeclKind::Interface(self.interface_body()?),
            Tok::Enum => DeclKind::Enum(self.enum_body()?),
            Tok::Range => {
                let lo = self.expr()?;
                self.expect(Tok::DotDot, "`..`")?;
                let hi = self.expr()?;
                DeclKind::Range(RangeDecl {
                    lo,
                    hi,
                    bounds: None,
                })
            }
            Tok::Chan => DeclKind::Chan(self.type_expr(false)?),
            Tok::Set => DeclKind::Set(self.type_expr(false)?),
            _ => DeclKind::Array(self.array_rest()?),
        };
        let end = self.decl_semi(kw.kind)?;
        Ok(Decl {
            name,
            kind,
            span: kw.span.to(end),
        })
    }

    /// The `;` that ends every type declaration.
    fn decl_semi(&mut self, kw: Tok) -> PResult<Span> {
        if self.peek() == Tok::Semi {
            return Ok(self.bump().span);
        }
        let what = if matches!(kw, Tok::Class | Tok::Struct | Tok::Interface | Tok::Enum) {
            "`;` after the closing `}` (declarations end with `};`)"
        } else {
            "`;`"
        };
        let msg = format!("expected {what}, found {}", self.found());
        let d = Diagnostic::error(self.last_span, msg).with_label("add `;` here");
        self.syntax(d);
        // The declaration itself is complete: keep it.
        Ok(self.last_span)
    }

    /// `[N]`, `[]` or `[E]` and the element type of an array declaration.
    fn array_rest(&mut self) -> PResult<ArrayDecl> {
        self.expect(Tok::LBracket, "`[`")?;
        let size = match self.peek() {
            Tok::RBracket => ArraySize::Dynamic,
            Tok::IntLit => {
                let t = self.bump();
                ArraySize::Fixed(int_value(self.text_of(t)).unwrap_or(0))
            }
            Tok::Ident => ArraySize::Enum(self.ident("a size")?, None),
            _ => return Err(self.expected("an array size (a number, an enum type or nothing)")),
        };
        self.expect(Tok::RBracket, "`]`")?;
        let elem = self.type_expr(false)?;
        Ok(ArrayDecl { size, elem })
    }

    /// A type; `void` only when `allow_void`.
    pub(super) fn type_expr(&mut self, allow_void: bool) -> PResult<TypeExpr> {
        let t = self.tok(0);
        let name = match builtin_type(t.kind) {
            Some(TypeName::Builtin(Type::Void)) if !allow_void => {
                let d = Diagnostic::error(t.span, "`void` is not a type for values")
                    .with_label("`void` may only be a method's return type");
                return Err(self.syntax(d));
            }
            Some(n) => {
                self.bump();
                n
            }
            None if t.kind == Tok::Ident => TypeName::Named(self.ident("a type")?.name),
            None => return Err(self.expected("a type")),
        };
        Ok(TypeExpr {
            name,
            span: t.span,
            ty: Type::Error,
        })
    }

    fn enum_body(&mut self) -> PResult<Vec<Ident>> {
        self.expect(Tok::LBrace, "`{`")?;
        let mut members = Vec::new();
        while self.peek() != Tok::RBrace {
            members.push(self.ident("an enum member")?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBrace, "`,` or `}`")?;
        Ok(members)
    }

    fn struct_body(&mut self) -> PResult<Vec<StructField>> {
        self.expect(Tok::LBrace, "`{`")?;
        let mut fields = Vec::new();
        while !matches!(self.peek(), Tok::RBrace | Tok::Eof) && !self.halted {
            let start = self.pos;
            match self.struct_field() {
                Ok(f) => fields.push(f),
                Err(Fail) => self.recover_member(start),
            }
        }
        self.expect(Tok::RBrace, "`}`")?;
        Ok(fields)
    }

    fn struct_field(&mut self) -> PResult<StructField> {
        if matches!(self.peek(), Tok::Static | Tok::Atomic | Tok::Activate) {
            let d = Diagnostic::error(self.tok(0).span, "struct fields take no modifiers")
                .with_label("remove this modifier");
            return Err(self.syntax(d));
        }
        let ty = self.type_expr(false)?;
        let name = self.ident("a field name")?;
        if self.peek() == Tok::LParen {
            let d = Diagnostic::error(name.span, "structs cannot have methods")
                .with_label("only fields may be declared in a struct");
            return Err(self.syntax(d));
        }
        let init = if self.eat(Tok::Assign) {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect(Tok::Semi, "`;`")?;
        Ok(StructField { ty, name, init })
    }

    fn interface_body(&mut self) -> PResult<Vec<MethodSig>> {
        self.expect(Tok::LBrace, "`{`")?;
        let mut sigs = Vec::new();
        while !matches!(self.peek(), Tok::RBrace | Tok::Eof) && !self.halted {
            let start = self.pos;
            let r = self.method_sig().and_then(|s| {
                self.expect(Tok::Semi, "`;`")?;
                Ok(s)
            });
            match r {
                Ok(s) => sigs.push(s),
                Err(Fail) => self.recover_member(start),
            }
        }
        self.expect(Tok::RBrace, "`}`")?;
        Ok(sigs)
    }

    /// `rtype name(params)`
    fn method_sig(&mut self) -> PResult<MethodSig> {
        let ret = self.type_expr(true)?;
        let name = self.ident("a method name")?;
        self.expect(Tok::LParen, "`(`")?;
        let params = self.params()?;
        Ok(MethodSig {
            span: ret.span.to(self.last_span),
            ret,
            name,
            params,
        })
    }

    /// Parameters after `(`, through the `)`.
    fn params(&mut self) -> PResult<Vec<Param>> {
        let mut params = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(params);
        }
        loop {
            let is_out = self.eat(Tok::Out);
            let ty = self.type_expr(false)?;
            let name = self.ident("a parameter name")?;
            params.push(Param { is_out, ty, name });
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen, "`,` or `)`")?;
        Ok(params)
    }

    fn class_body(&mut self) -> PResult<ClassDecl> {
        let mut interfaces = Vec::new();
        if self.eat(Tok::Colon) {
            loop {
                interfaces.push(self.ident("an interface name")?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::LBrace, "`{`")?;
        let mut class = ClassDecl {
            interfaces,
            fields: Vec::new(),
            methods: Vec::new(),
        };
        while !matches!(self.peek(), Tok::RBrace | Tok::Eof) && !self.halted {
            if is_decl_keyword(self.peek()) && self.peek_at(1) == Tok::Ident {
                // Most likely a missing `};`: let the top level take over.
                break;
            }
            if self.eat(Tok::Semi) {
                // A stray `;` after a method body: harmless, accepted.
                continue;
            }
            let start = self.pos;
            if self.member(&mut class).is_err() {
                self.recover_member(start);
            }
        }
        self.expect(Tok::RBrace, "`}`")?;
        Ok(class)
    }

    /// Skips a broken member: through the `;` ending it or the `}` closing its body, or to
    /// the `}` that closes the enclosing declaration.
    fn recover_member(&mut self, start: usize) {
        if self.pos == start && self.peek() != Tok::RBrace {
            self.bump();
        }
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                Tok::RBrace if depth == 0 => return,
                Tok::RBrace => {
                    self.bump();
                    depth -= 1;
                    if depth == 0 && self.peek() != Tok::Semi {
                        return;
                    }
                }
                Tok::LBrace => {
                    self.bump();
                    depth += 1;
                }
                t if depth == 0 && is_decl_keyword(t) && self.peek_at(1) == Tok::Ident => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// One field or method of a class.
    fn member(&mut self, class: &mut ClassDecl) -> PResult<()> {
        let first = self.tok(0).span;
        let mut mods = Modifiers::default();
        loop {
            let t = self.tok(0);
            let slot = match t.kind {
                Tok::Static => &mut mods.is_static,
                Tok::Atomic => &mut mods.is_atomic,
                Tok::Activate => &mut mods.is_activate,
                _ => break,
            };
            if slot.is_some() {
                let d =
                    Diagnostic::error(t.span, format!("duplicate modifier {}", t.kind.describe()))
                        .with_label("each modifier may appear at most once");
                self.syntax(d);
            }
            *slot = Some(t.span);
            self.bump();
        }
        let ty = self.type_expr(true)?;
        let name = self.ident("a member name")?;
        if self.eat(Tok::LParen) {
            let params = self.params()?;
            let sig = MethodSig {
                span: ty.span.to(self.last_span),
                ret: ty,
                name,
                params,
            };
            if self.peek() == Tok::Semi {
                let d = Diagnostic::error(self.tok(0).span, "method without a body")
                    .with_label("expected `{`")
                    .with_note("only interface methods are declared without a body");
                return Err(self.syntax(d));
            }
            let body = self.block()?;
            class.methods.push(Method {
                mods,
                span: first.to(body.span),
                sig,
                body,
                locals: Vec::new(),
            });
            return Ok(());
        }
        if matches!(ty.name, TypeName::Builtin(Type::Void)) {
            let d = Diagnostic::error(ty.span, "`void` is not a type for fields")
                .with_label("`void` may only be a method's return type");
            self.syntax(d);
        }
        let init = if self.eat(Tok::Assign) {
            Some(self.expr()?)
        } else {
            None
        };
        let end = self.semi()?;
        class.fields.push(Field {
            mods,
            ty,
            name,
            init,
            span: first.to(end),
        });
        Ok(())
    }
}
