//! Tokens of boolean programs (bp-language.md §1), produced by a logos lexer.
//!
//! Block comments and brace names are finished by hand after logos sees their opening
//! characters, so that an unterminated `/*` or an unclosed `{` is reported at its start
//! instead of as a confusing error somewhere later.

use crate::diag::Diagnostic;
use crate::ir::Span;
use logos::Logos;

/// Most lexical errors reported before giving up.
const MAX_LEX_ERRORS: usize = crate::diag::MAX_REPORTED_ERRORS;

/// A token kind. Contextual words (`thread_local`, `dfs`, `abortif`, `sync`, `wait`,
/// `broadcast`) and the constants `T`/`F` and `_` are [`Tok::Name`]s; the parser decides.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\n\r\x0B\x0C]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Tok {
    #[token("begin")]
    Begin,
    #[token("end")]
    End,
    #[token("decl")]
    Decl,
    #[token("void")]
    Void,
    #[token("bool")]
    Bool,
    #[token("if")]
    If,
    #[token("then")]
    Then,
    #[token("else")]
    Else,
    #[token("elsif")]
    Elsif,
    #[token("fi")]
    Fi,
    #[token("while")]
    While,
    #[token("do")]
    Do,
    #[token("od")]
    Od,
    #[token("goto")]
    Goto,
    #[token("skip")]
    Skip,
    #[token("return")]
    Return,
    #[token("assert")]
    Assert,
    #[token("assume")]
    Assume,
    #[token("print")]
    Print,
    #[token("enforce")]
    Enforce,
    #[token("constrain")]
    Constrain,
    #[token("schoose")]
    Schoose,
    #[token("dead")]
    Dead,
    #[token("start_thread")]
    StartThread,
    #[token("end_thread")]
    EndThread,
    #[token("atomic_begin")]
    AtomicBegin,
    #[token("atomic_end")]
    AtomicEnd,
    /// A plain name, or (built by hand) a brace name `{...}`.
    #[regex(r"[A-Za-z_$][A-Za-z0-9_$#.\-]*")]
    Name,
    #[regex(r"[0-9]+")]
    Number,
    #[token(":=")]
    ColonEq,
    #[token("=>")]
    Implies,
    #[token("!=")]
    NotEq,
    #[token("==")]
    EqEq,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("=")]
    Eq,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("*")]
    Star,
    #[token("?")]
    Question,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("'")]
    Prime,
    /// Start of a block comment; the lexer skips to the matching `*/`.
    #[token("/*")]
    BlockOpen,
    /// Start of a brace name; the lexer reads on to the `}`.
    #[token("{")]
    BraceOpen,
    /// End of input (appended by [`lex`], never matched).
    Eof,
}

impl Tok {
    /// How the token is written, for "expected X, found Y" messages.
    pub fn describe(self) -> &'static str {
        match self {
            Tok::Begin => "`begin`",
            Tok::End => "`end`",
            Tok::Decl => "`decl`",
            Tok::Void => "`void`",
            Tok::Bool => "`bool`",
            Tok::If => "`if`",
            Tok::Then => "`then`",
            Tok::Else => "`else`",
            Tok::Elsif => "`elsif`",
            Tok::Fi => "`fi`",
            Tok::While => "`while`",
            Tok::Do => "`do`",
            Tok::Od => "`od`",
            Tok::Goto => "`goto`",
            Tok::Skip => "`skip`",
            Tok::Return => "`return`",
            Tok::Assert => "`assert`",
            Tok::Assume => "`assume`",
            Tok::Print => "`print`",
            Tok::Enforce => "`enforce`",
            Tok::Constrain => "`constrain`",
            Tok::Schoose => "`schoose`",
            Tok::Dead => "`dead`",
            Tok::StartThread => "`start_thread`",
            Tok::EndThread => "`end_thread`",
            Tok::AtomicBegin => "`atomic_begin`",
            Tok::AtomicEnd => "`atomic_end`",
            Tok::Name => "a name",
            Tok::Number => "a number",
            Tok::ColonEq => "`:=`",
            Tok::Implies => "`=>`",
            Tok::NotEq => "`!=`",
            Tok::EqEq => "`==`",
            Tok::AndAnd => "`&&`",
            Tok::OrOr => "`||`",
            Tok::Bang => "`!`",
            Tok::Tilde => "`~`",
            Tok::Amp => "`&`",
            Tok::Pipe => "`|`",
            Tok::Caret => "`^`",
            Tok::Eq => "`=`",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::LBracket => "`[`",
            Tok::RBracket => "`]`",
            Tok::Comma => "`,`",
            Tok::Semi => "`;`",
            Tok::Colon => "`:`",
            Tok::Star => "`*`",
            Tok::Question => "`?`",
            Tok::Lt => "`<`",
            Tok::Gt => "`>`",
            Tok::Prime => "`'`",
            Tok::BlockOpen => "`/*`",
            Tok::BraceOpen => "`{`",
            Tok::Eof => "end of file",
        }
    }
}

/// A token and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub span: Span,
}

/// Splits `text` into tokens, ending with one [`Tok::Eof`]; or returns every lexical error.
pub fn lex(text: &str) -> Result<Vec<Token>, Vec<Diagnostic>> {
    // about one token per three bytes of typical source: reserving (untouched until used)
    // avoids copying a growing vector through ever larger fresh allocations
    let mut tokens = Vec::with_capacity(text.len() / 3 + 16);
    let mut errors = Vec::new();
    let mut lexer = Tok::lexer(text);
    while let Some(result) = lexer.next() {
        if errors.len() >= MAX_LEX_ERRORS {
            break;
        }
        let range = lexer.span();
        let span = Span::new(range.start, range.end);
        match result {
            Ok(Tok::BlockOpen) => {
                let rest = lexer.remainder();
                match rest.find("*/") {
                    Some(i) => lexer.bump(i + 2),
                    None => {
                        errors.push(
                            Diagnostic::error(span, "unterminated block comment")
                                .with_label("this `/*` has no matching `*/`")
                                .with_note("block comments do not nest and must be closed"),
                        );
                        break;
                    }
                }
            }
            Ok(Tok::BraceOpen) => {
                let rest = lexer.remainder();
                let stop = rest.find(['}', '\n', '\r']).unwrap_or(rest.len());
                let closed = rest.as_bytes().get(stop) == Some(&b'}');
                if closed && stop > 0 {
                    lexer.bump(stop + 1);
                    tokens.push(Token {
                        kind: Tok::Name,
                        span: Span::new(range.start, range.end + stop + 1),
                    });
                } else if closed {
                    lexer.bump(1);
                    errors.push(
                        Diagnostic::error(span, "empty brace name `{}`")
                            .with_label("a brace name needs at least one character"),
                    );
                } else {
                    errors.push(
                        Diagnostic::error(span, "unclosed `{`: unterminated brace name")
                            .with_label("this `{` has no `}` on the same line"),
                    );
                }
            }
            Ok(kind) => tokens.push(Token { kind, span }),
            Err(()) => {
                let shown = text
                    .get(range.start..)
                    .and_then(|s| s.chars().next())
                    .map(|c| format!("{c:?}"))
                    .unwrap_or_else(|| "byte".to_string());
                let msg = format!("unexpected character {shown}");
                errors.push(Diagnostic::error(span, msg).with_label("not part of any token"));
            }
        }
    }
    if errors.is_empty() {
        tokens.push(Token {
            kind: Tok::Eof,
            span: Span::new(text.len(), text.len()),
        });
        Ok(tokens)
    } else {
        Err(errors)
    }
}
