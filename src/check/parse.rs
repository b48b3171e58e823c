//! Reading a model for the library: bytes to text (a byte-order mark dropped, Latin-1 bytes
//! tolerated in comments), the language from the file name, the front end, and the one
//! diagnostic that names the other language when a model is under the wrong extension. The
//! command line reads models through it, so a library user gets the same diagnostics.

use std::path::Path;
use zingrs_lang::diag::Diagnostic;
use zingrs_lang::ir::{Program, Source};
use zingrs_lang::Lang;

/// A compiled model and what the front end warned about.
#[derive(Debug)]
pub struct Parsed {
    /// The program, ready for [`check`](fn@super::check).
    pub program: Program,
    /// The front end's warnings ([`zingrs_lang::diag::render`] prints them with the source).
    pub warnings: Vec<Diagnostic>,
    /// Warnings about the bytes read (a Latin-1 byte in a comment), as one-line messages.
    pub notes: Vec<String>,
}

/// Why a model could not be read or compiled.
#[derive(Debug)]
pub enum ParseError {
    /// The file (or standard input, named `-`) could not be read.
    Read {
        /// The model's name.
        name: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// A byte that is not UTF-8 outside a comment.
    NotText {
        /// The model's name.
        name: String,
        /// Line and column (from 1) of the byte.
        line: usize,
        col: usize,
        /// The byte and its offset.
        byte: u8,
        at: usize,
    },
    /// The name says no language and none was given.
    UnknownLanguage {
        /// The model's name.
        name: String,
    },
    /// The model has errors: every diagnostic, and the source they point into.
    Invalid {
        /// The model's text.
        source: Box<Source>,
        /// The diagnostics, errors and warnings.
        diagnostics: Vec<Diagnostic>,
        /// Warnings about the bytes read, as in [`Parsed::notes`].
        notes: Vec<String>,
    },
}

impl ParseError {
    /// The diagnostics with their source lines, then a line that counts the errors (what
    /// `zingrs check` prints); for the other errors, the message.
    pub fn render(&self) -> String {
        match self {
            ParseError::Invalid {
                source,
                diagnostics,
                ..
            } => {
                let n = diagnostics.iter().filter(|d| d.is_error()).count();
                let cap = zingrs_lang::diag::MAX_REPORTED_ERRORS;
                format!(
                    "{}error: {} is not a valid model ({n} error{}{})\n",
                    zingrs_lang::diag::render(source, diagnostics),
                    source.name,
                    if n == 1 { "" } else { "s" },
                    if n >= cap {
                        format!("; the report stops at {cap}, there may be more")
                    } else {
                        String::new()
                    }
                )
            }
            e => format!("error: {e}\n"),
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Read { name, error } if name == "-" => {
                write!(f, "cannot read standard input: {error}")
            }
            ParseError::Read { name, error } => write!(f, "cannot read {name}: {error}"),
            ParseError::NotText {
                name,
                line,
                col,
                byte,
                at,
            } => {
                let shown = if name == "-" {
                    "standard input"
                } else {
                    "the file"
                };
                write!(f, "{name}:{line}:{col}: {shown} is not UTF-8 text (byte 0x{byte:02x} at offset {at}, outside a comment)")
            }
            ParseError::UnknownLanguage { name } => write!(
                f,
                "cannot tell the language of {name}: use a .bp or .zing file, or --lang bp|zing"
            ),
            ParseError::Invalid {
                source,
                diagnostics,
                ..
            } => {
                let n = diagnostics.iter().filter(|d| d.is_error()).count();
                write!(
                    f,
                    "{} is not a valid model ({n} error{})",
                    source.name,
                    if n == 1 { "" } else { "s" }
                )
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Compiles a model given as text in `lang` (`name` is what diagnostics and reports call it).
pub fn parse_str(name: &str, text: &str, lang: Lang) -> Result<Parsed, ParseError> {
    compile(name, text, lang, false)
}

/// Reads and compiles a model file (`-`: standard input); `lang` `None`: the language its
/// name says (`.bp`, `.zing`).
pub fn parse_file(path: &Path, lang: Option<Lang>) -> Result<Parsed, ParseError> {
    let name = path.display().to_string();
    let bytes = if name == "-" {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut b).map(|_| b)
    } else {
        std::fs::read(path)
    };
    match bytes {
        Ok(b) => parse_bytes(&name, b, lang),
        Err(error) => Err(ParseError::Read { name, error }),
    }
}

/// [`parse_file`] on bytes already read.
pub fn parse_bytes(name: &str, bytes: Vec<u8>, lang: Option<Lang>) -> Result<Parsed, ParseError> {
    let mut notes = Vec::new();
    let text = match decode(bytes) {
        Decoded::Utf8(s) => s,
        Decoded::Latin1InComments { text, first, count } => {
            let (line, col, byte) = first;
            notes.push(format!(
                "{name}:{line}:{col}: byte 0x{byte:02x} in a comment is not UTF-8; read as Latin-1{}",
                if count > 1 {
                    format!(" (and {} more such bytes in comments)", count - 1)
                } else {
                    String::new()
                }
            ));
            text
        }
        Decoded::Invalid {
            line,
            col,
            byte,
            at,
        } => {
            return Err(ParseError::NotText {
                name: name.into(),
                line,
                col,
                byte,
                at,
            })
        }
    };
    let (lang, given) = match lang {
        Some(l) => (l, true),
        None => match Lang::from_path(name) {
            Some(l) => (l, false),
            None => return Err(ParseError::UnknownLanguage { name: name.into() }),
        },
    };
    match compile(name, &text, lang, !given) {
        Ok(parsed) => Ok(Parsed { notes, ..parsed }),
        Err(ParseError::Invalid {
            source,
            diagnostics,
            ..
        }) => Err(ParseError::Invalid {
            source,
            diagnostics,
            notes,
        }),
        Err(e) => Err(e),
    }
}

/// The front end on `text`; with `guessed` (the language came from the file name), a model
/// that compiles as the other language gets one error that says so, not the dozens its text
/// gives as this language.
fn compile(name: &str, text: &str, lang: Lang, guessed: bool) -> Result<Parsed, ParseError> {
    match zingrs_lang::compile(name, text, lang) {
        Ok(c) => Ok(Parsed {
            program: c.program,
            warnings: c.warnings,
            notes: Vec::new(),
        }),
        Err(diags) => {
            let other = match lang {
                Lang::Bp => Lang::Zing,
                Lang::Zing => Lang::Bp,
            };
            let diagnostics = if guessed && zingrs_lang::compile(name, text, other).is_ok() {
                let (this, that, flag) = match lang {
                    Lang::Bp => ("a boolean program", "a Zing model", "zing"),
                    Lang::Zing => ("a Zing model", "a boolean program", "bp"),
                };
                vec![Diagnostic::error(
                    zingrs_lang::ir::Span { start: 0, end: 0 },
                    format!(
                        "{name} is read as {this} (its name says so), but it is {that}: \
                         check it with --lang {flag}"
                    ),
                )]
            } else {
                diags
            };
            Err(ParseError::Invalid {
                source: Box::new(Source::new(name.to_string(), text.to_string())),
                diagnostics,
                notes: Vec::new(),
            })
        }
    }
}

/// A model's bytes as text ([`decode`]).
enum Decoded {
    Utf8(String),
    /// Bytes that are not UTF-8 stood only inside comments (a Latin-1 `é` in an author's
    /// name, say): each was read as the Latin-1 character it is. `first`: the line, column
    /// and value of the first.
    Latin1InComments {
        text: String,
        first: (usize, usize, u8),
        count: usize,
    },
    /// A byte that is not UTF-8 outside a comment.
    Invalid {
        line: usize,
        col: usize,
        byte: u8,
        at: usize,
    },
}

/// Reads a model's bytes: a UTF-8 byte-order mark is dropped (editors on Windows write one),
/// and a byte that is not UTF-8 is tolerated inside a comment (`//` to the end of the line,
/// `/* */`; string literals are not comments) and read as Latin-1, the usual encoding of
/// such files; anywhere else it is an error, since it would change what the model says.
fn decode(mut bytes: Vec<u8>) -> Decoded {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    let bytes = match String::from_utf8(bytes) {
        Ok(s) => return Decoded::Utf8(s),
        Err(e) => e.into_bytes(),
    };
    let position = |at: usize| {
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        let col = 1 + at
            - bytes[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
        (line, col)
    };
    #[derive(PartialEq)]
    enum In {
        Code,
        Line,
        Block,
        Str,
    }
    let mut state = In::Code;
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut first = None;
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        if b >= 0x80 {
            // a whole UTF-8 character, or a byte that is not one
            let len = match b {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => 0,
            };
            if let Some(c) = bytes
                .get(i..i + len.max(1))
                .filter(|_| len > 0)
                .and_then(|c| std::str::from_utf8(c).ok())
            {
                text.push_str(c);
                i += len;
                continue;
            }
            if state != In::Line && state != In::Block {
                let (line, col) = position(i);
                return Decoded::Invalid {
                    line,
                    col,
                    byte: b,
                    at: i,
                };
            }
            if first.is_none() {
                let (line, col) = position(i);
                first = Some((line, col, b));
            }
            count += 1;
            text.push(char::from(b));
            i += 1;
            continue;
        }
        text.push(char::from(b));
        match state {
            In::Code if b == b'/' && next == Some(b'/') => state = In::Line,
            In::Code if b == b'/' && next == Some(b'*') => {
                text.push('*');
                i += 1;
                state = In::Block;
            }
            In::Code if b == b'"' => state = In::Str,
            In::Line if b == b'\n' => state = In::Code,
            In::Block if b == b'*' && next == Some(b'/') => {
                text.push('/');
                i += 1;
                state = In::Code;
            }
            In::Str if b == b'\\' => {
                if let Some(n) = next.filter(|n| *n < 0x80) {
                    text.push(char::from(n));
                    i += 1;
                }
            }
            In::Str if b == b'"' || b == b'\n' => state = In::Code,
            _ => {}
        }
        i += 1;
    }
    match first {
        Some(first) => Decoded::Latin1InComments { text, first, count },
        None => Decoded::Utf8(text),
    }
}
