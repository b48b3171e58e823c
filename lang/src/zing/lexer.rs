//! Tokens of Zing (zing-language.md §1), produced by a logos lexer.
//!
//! Block comments and (verbatim) strings are finished by hand after logos sees their opening
//! characters, so that an unterminated one is reported at its start. Real literals are
//! tokenized and rejected here; integer literals are checked to fit `ulong`.

use crate::diag::Diagnostic;
use crate::ir::Span;
use logos::Logos;

/// Most lexical errors reported before giving up.
const MAX_LEX_ERRORS: usize = crate::diag::MAX_REPORTED_ERRORS;

/// A token kind. Every keyword of §1.5 has its own kind.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\n\r\x0B\x0C\x1A\x00\u{2028}\u{2029}\p{Zs}]+")]
#[logos(skip(r"//[^\n\r\u{2028}\u{2029}]*", allow_greedy = true))]
pub enum Tok {
    #[token("accept")]
    Accept,
    #[token("activate")]
    Activate,
    #[token("array")]
    Array,
    #[token("assert")]
    Assert,
    #[token("assume")]
    Assume,
    #[token("async")]
    Async,
    #[token("atomic")]
    Atomic,
    #[token("bool")]
    Bool,
    #[token("byte")]
    Byte,
    #[token("chan")]
    Chan,
    #[token("choose")]
    Choose,
    #[token("class")]
    Class,
    #[token("decimal")]
    Decimal,
    #[token("double")]
    Double,
    #[token("else")]
    Else,
    #[token("end")]
    End,
    #[token("enum")]
    Enum,
    #[token("event")]
    Event,
    #[token("false")]
    False,
    #[token("first")]
    First,
    #[token("float")]
    Float,
    #[token("foreach")]
    Foreach,
    #[token("goto")]
    Goto,
    #[token("if")]
    If,
    #[token("in")]
    In,
    #[token("int")]
    Int,
    #[token("interface")]
    Interface,
    #[token("invokeplugin")]
    InvokePlugin,
    #[token("invokescheduler")]
    InvokeScheduler,
    #[token("long")]
    Long,
    #[token("new")]
    New,
    #[token("null")]
    Null,
    #[token("object")]
    Object,
    #[token("out")]
    Out,
    #[token("raise")]
    Raise,
    #[token("range")]
    Range,
    #[token("receive")]
    Receive,
    #[token("return")]
    Return,
    #[token("sbyte")]
    SByte,
    #[token("select")]
    Select,
    #[token("self")]
    SelfKw,
    #[token("send")]
    Send,
    #[token("set")]
    Set,
    #[token("short")]
    Short,
    #[token("sizeof")]
    Sizeof,
    #[token("static")]
    Static,
    #[token("string")]
    String,
    #[token("struct")]
    Struct,
    #[token("this")]
    This,
    #[token("timeout")]
    Timeout,
    #[token("trace")]
    Trace,
    #[token("true")]
    True,
    #[token("try")]
    Try,
    #[token("typeof")]
    Typeof,
    #[token("uint")]
    UInt,
    #[token("ulong")]
    ULong,
    #[token("ushort")]
    UShort,
    #[token("visible")]
    Visible,
    #[token("void")]
    Void,
    #[token("wait")]
    Wait,
    #[token("while")]
    While,
    #[token("with")]
    With,
    #[token("yield")]
    Yield,

    /// An identifier; `@name` (verbatim identifier) included.
    #[regex(r"[\p{L}_][\p{L}\p{Nd}_$]*")]
    #[regex(r"@[\p{L}_][\p{L}\p{Nd}_$]*")]
    Ident,
    /// An integer literal with an optional `u`/`l`/`ul`/`lu` suffix.
    #[regex(r"[0-9]+([uU][lL]?|[lL][uU]?)?")]
    #[regex(r"0[xX][0-9a-fA-F]+([uU][lL]?|[lL][uU]?)?")]
    IntLit,
    /// A real literal: tokenized so that it can be rejected with a clear message.
    #[regex(r"[0-9]*\.[0-9]+([eE][+-]?[0-9]+)?[fFdDmM]?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+[fFdDmM]?")]
    #[regex(r"[0-9]+[fFdDmM]")]
    RealLit,
    /// A string literal `"…"` (finished by hand).
    #[token("\"")]
    Str,
    /// A verbatim string literal `@"…"` (finished by hand).
    #[token("@\"")]
    VerbatimStr,

    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,
    #[token(":")]
    Colon,
    #[token("->")]
    Arrow,
    #[token("=")]
    Assign,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
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
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    /// Start of a block comment; the lexer skips to the matching `*/`.
    #[token("/*")]
    BlockOpen,
    /// End of input (appended by [`lex`], never matched).
    Eof,
}

impl Tok {
    /// How the token is written, for "expected X, found Y" messages.
    pub fn describe(self) -> &'static str {
        use Tok::*;
        match self {
            Accept => "`accept`",
            Activate => "`activate`",
            Array => "`array`",
            Assert => "`assert`",
            Assume => "`assume`",
            Async => "`async`",
            Atomic => "`atomic`",
            Bool => "`bool`",
            Byte => "`byte`",
            Chan => "`chan`",
            Choose => "`choose`",
            Class => "`class`",
            Decimal => "`decimal`",
            Double => "`double`",
            Else => "`else`",
            End => "`end`",
            Enum => "`enum`",
            Event => "`event`",
            False => "`false`",
            First => "`first`",
            Float => "`float`",
            Foreach => "`foreach`",
            Goto => "`goto`",
            If => "`if`",
            In => "`in`",
            Int => "`int`",
            Interface => "`interface`",
            InvokePlugin => "`invokeplugin`",
            InvokeScheduler => "`invokescheduler`",
            Long => "`long`",
            New => "`new`",
            Null => "`null`",
            Object => "`object`",
            Out => "`out`",
            Raise => "`raise`",
            Range => "`range`",
            Receive => "`receive`",
            Return => "`return`",
            SByte => "`sbyte`",
            Select => "`select`",
            SelfKw => "`self`",
            Send => "`send`",
            Set => "`set`",
            Short => "`short`",
            Sizeof => "`sizeof`",
            Static => "`static`",
            String => "`string`",
            Struct => "`struct`",
            This => "`this`",
            Timeout => "`timeout`",
            Trace => "`trace`",
            True => "`true`",
            Try => "`try`",
            Typeof => "`typeof`",
            UInt => "`uint`",
            ULong => "`ulong`",
            UShort => "`ushort`",
            Visible => "`visible`",
            Void => "`void`",
            Wait => "`wait`",
            While => "`while`",
            With => "`with`",
            Yield => "`yield`",
            Ident => "a name",
            IntLit => "an integer",
            RealLit => "a real number",
            Str | VerbatimStr => "a string",
            LBrace => "`{`",
            RBrace => "`}`",
            LParen => "`(`",
            RParen => "`)`",
            LBracket => "`[`",
            RBracket => "`]`",
            Semi => "`;`",
            Comma => "`,`",
            Dot => "`.`",
            DotDot => "`..`",
            Colon => "`:`",
            Arrow => "`->`",
            Assign => "`=`",
            EqEq => "`==`",
            NotEq => "`!=`",
            Lt => "`<`",
            Le => "`<=`",
            Gt => "`>`",
            Ge => "`>=`",
            Shl => "`<<`",
            Shr => "`>>`",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            Slash => "`/`",
            Percent => "`%`",
            Bang => "`!`",
            Tilde => "`~`",
            Amp => "`&`",
            Pipe => "`|`",
            Caret => "`^`",
            AndAnd => "`&&`",
            OrOr => "`||`",
            BlockOpen => "`/*`",
            Eof => "end of file",
        }
    }

    /// Whether this is one of the keywords of §1.5.
    pub fn is_keyword(self) -> bool {
        (self as u8) <= (Tok::Yield as u8)
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
    let mut tokens = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Tok::lexer(text);
    while let Some(result) = lexer.next() {
        if errors.len() >= MAX_LEX_ERRORS {
            break;
        }
        let range = lexer.span();
        let span = Span::new(range.start, range.end);
        match result {
            Ok(Tok::BlockOpen) => match lexer.remainder().find("*/") {
                Some(i) => lexer.bump(i + 2),
                None => {
                    errors.push(
                        Diagnostic::error(span, "unterminated block comment")
                            .with_label("this `/*` has no matching `*/`")
                            .with_note("block comments do not nest and must be closed"),
                    );
                    break;
                }
            },
            Ok(Tok::Str) => {
                let (len, problems) = scan_string(lexer.remainder(), range.end);
                lexer.bump(len);
                let full = Span::new(range.start, range.end + len);
                match problems {
                    StrScan::Ok => tokens.push(Token {
                        kind: Tok::Str,
                        span: full,
                    }),
                    StrScan::Unterminated => {
                        errors.push(
                            Diagnostic::error(span, "unterminated string literal")
                                .with_label("this `\"` is not closed on the same line"),
                        );
                    }
                    StrScan::BadEscape(at) => {
                        errors.push(
                            Diagnostic::error(at, "invalid escape sequence in string literal")
                                .with_label("not a valid escape")
                                .with_note(
                                    "escapes are \\a \\b \\t \\n \\v \\f \\r \\\" \\' \\\\ \\0, \
                                     \\x + 1-4 hex digits, \\u + 4 and \\U + 8 hex digits",
                                ),
                        );
                        tokens.push(Token {
                            kind: Tok::Str,
                            span: full,
                        });
                    }
                }
            }
            Ok(Tok::VerbatimStr) => match scan_verbatim(lexer.remainder()) {
                Some(len) => {
                    lexer.bump(len);
                    tokens.push(Token {
                        kind: Tok::VerbatimStr,
                        span: Span::new(range.start, range.end + len),
                    });
                }
                None => {
                    errors.push(
                        Diagnostic::error(span, "unterminated verbatim string literal")
                            .with_label("this `@\"` has no closing `\"`"),
                    );
                    break;
                }
            },
            Ok(Tok::RealLit) => {
                errors.push(
                    Diagnostic::error(span, "real numbers are not supported in Zing")
                        .with_label("only integer literals are allowed"),
                );
            }
            Ok(Tok::IntLit) => {
                let raw = text.get(range.clone()).unwrap_or("");
                if int_value(raw).is_none() {
                    errors.push(
                        Diagnostic::error(span, "integer literal is too large")
                            .with_label("does not fit in `ulong`"),
                    );
                }
                tokens.push(Token {
                    kind: Tok::IntLit,
                    span,
                });
            }
            Ok(kind) => tokens.push(Token { kind, span }),
            Err(()) => {
                let c = text.get(range.start..).and_then(|s| s.chars().next());
                let shown = c
                    .map(|c| format!("{c:?}"))
                    .unwrap_or_else(|| "byte".to_string());
                let mut d = Diagnostic::error(span, format!("unexpected character {shown}"))
                    .with_label("not part of any token");
                if c == Some('\'') {
                    d = d.with_note("Zing has no character literals");
                } else if c == Some('#') {
                    d = d.with_note("a preprocessor directive must start its line");
                }
                errors.push(d);
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

/// Outcome of scanning a regular string's body.
enum StrScan {
    Ok,
    Unterminated,
    BadEscape(Span),
}

/// Scans a string body after its opening `"`; returns the length consumed (including the
/// closing quote) and whether it is well formed. `base` is the offset of `rest`.
fn scan_string(rest: &str, base: usize) -> (usize, StrScan) {
    let mut chars = rest.char_indices().peekable();
    let mut status = StrScan::Ok;
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (i + 1, status),
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => return (i, StrScan::Unterminated),
            '\\' => {
                let Some((j, e)) = chars.next() else {
                    return (rest.len(), StrScan::Unterminated);
                };
                let hex_needed = match e {
                    'a' | 'b' | 't' | 'n' | 'v' | 'f' | 'r' | '"' | '\'' | '\\' | '0' => Some(0),
                    'x' => None,
                    'u' => Some(4),
                    'U' => Some(8),
                    '\n' | '\r' => return (j, StrScan::Unterminated),
                    _ => {
                        if matches!(status, StrScan::Ok) {
                            status =
                                StrScan::BadEscape(Span::new(base + i, base + j + e.len_utf8()));
                        }
                        continue;
                    }
                };
                let (min, max) = match hex_needed {
                    Some(n) => (n, n),
                    None => (1, 4),
                };
                let mut n = 0;
                while n < max && chars.peek().is_some_and(|(_, h)| h.is_ascii_hexdigit()) {
                    chars.next();
                    n += 1;
                }
                if n < min && matches!(status, StrScan::Ok) {
                    status = StrScan::BadEscape(Span::new(base + i, base + j + 1));
                }
            }
            _ => {}
        }
    }
    (rest.len(), StrScan::Unterminated)
}

/// Scans a verbatim string body after `@"`; returns the length including the closing quote.
fn scan_verbatim(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'"' {
            if bytes.get(i + 1) == Some(&b'"') {
                i += 2;
                continue;
            }
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// The value of an integer literal's text, if it fits `ulong`.
pub fn int_value(raw: &str) -> Option<u64> {
    let digits = raw.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        u64::from_str_radix(hex, 16).ok()
    } else {
        digits.parse::<u64>().ok()
    }
}

/// The suffix flags of an integer literal: (unsigned, long).
pub fn int_suffix(raw: &str) -> (bool, bool) {
    let digits_end = raw.trim_end_matches(['u', 'U', 'l', 'L']).len();
    let suffix = raw.get(digits_end..).unwrap_or("");
    (suffix.contains(['u', 'U']), suffix.contains(['l', 'L']))
}

/// The value of a string token's text (`"…"` or `@"…"`), escapes decoded leniently.
pub fn string_value(raw: &str) -> String {
    if let Some(body) = raw.strip_prefix("@\"") {
        let body = body.strip_suffix('"').unwrap_or(body);
        return body.replace("\"\"", "\"");
    }
    let body = raw.strip_prefix('"').unwrap_or(raw);
    let body = body.strip_suffix('"').unwrap_or(body);
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else { break };
        let simple = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            't' => Some('\t'),
            'n' => Some('\n'),
            'v' => Some('\u{b}'),
            'f' => Some('\u{c}'),
            'r' => Some('\r'),
            '0' => Some('\0'),
            '"' | '\'' | '\\' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let max = match e {
            'x' | 'u' => 4,
            'U' => 8,
            _ => {
                out.push(e);
                continue;
            }
        };
        let mut v: u32 = 0;
        let mut n = 0;
        while n < max {
            match chars.peek().and_then(|h| h.to_digit(16)) {
                Some(d) => {
                    v = v.wrapping_mul(16).wrapping_add(d);
                    chars.next();
                    n += 1;
                }
                None => break,
            }
        }
        out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
    }
    out
}

/// The name an identifier token stands for (`@set` names `set`).
pub fn ident_name(raw: &str) -> &str {
    raw.strip_prefix('@').unwrap_or(raw)
}
