//! Spanned diagnostics for bad input, rendered with codespan-reporting.
//!
//! The front ends collect every problem they can find into a `Vec<Diagnostic>` (the parser
//! recovers and goes on), and the CLI renders them all at once: `file:line:col`, the source line
//! with a caret, and what was expected.

use crate::ir::{Source, Span};
use codespan_reporting::diagnostic as cr;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Severity {
    Error,
    Warning,
}

/// One problem in the input, anchored at a span.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A short stable code such as `E1` (bp-language.md §2.7), when the problem has one.
    pub code: Option<String>,
    pub message: String,
    pub span: Span,
    /// What to say at the caret, e.g. "expected `;`".
    pub label: String,
    /// Extra lines: hints, the other declaration of a duplicate, ...
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code: None,
            message: message.into(),
            span,
            label: String::new(),
            notes: Vec::new(),
        }
    }
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }
    pub fn with_code(mut self, code: &str) -> Diagnostic {
        self.code = Some(code.to_string());
        self
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The front ends stop reporting after this many errors (a file that is not a model at all
/// would otherwise bury the first, useful message); callers say so when it happens.
pub const MAX_REPORTED_ERRORS: usize = 50;

/// `text` with every control character but line breaks and tabs written as `\xNN`: echoed
/// source lines must not send escape sequences to the user's terminal. A carriage return that
/// ends a line (CRLF files) is dropped.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Renders diagnostics as plain text (no colour), in the order given.
pub fn render(source: &Source, diags: &[Diagnostic]) -> String {
    let file = SimpleFile::new(source.name.as_str(), source.text.as_str());
    let config = term::Config::default();
    let len = source.text.len();
    let mut out = String::new();
    for d in diags {
        let start = (d.span.start as usize).min(len);
        let end = (d.span.end as usize).clamp(start, len);
        let base = match d.severity {
            Severity::Error => cr::Diagnostic::error(),
            Severity::Warning => cr::Diagnostic::warning(),
        };
        let mut cd = base
            .with_message(d.message.clone())
            .with_labels(vec![
                cr::Label::primary((), start..end).with_message(d.label.clone())
            ])
            .with_notes(d.notes.clone());
        if let Some(code) = &d.code {
            cd = cd.with_code(code.clone());
        }
        match term::emit_into_string(&config, &file, &cd) {
            Ok(s) => out.push_str(&escape_controls(&s)),
            Err(_) => {
                let (l, c) = source.line_col(start as u32);
                out.push_str(&format!("{}:{}:{}: {}\n", source.name, l, c, d.message));
            }
        }
    }
    out
}
