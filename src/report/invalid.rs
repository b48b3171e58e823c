//! The JSON document for input that is not a valid model (`check --format json` on a file with
//! syntax or type errors): the diagnostics, typed, on standard output, so that a tool driving
//! zingrs reads one JSON document whatever happens.

use serde::Serialize;
use zingrs_lang::diag::{Diagnostic, Severity};
use zingrs_lang::ir::Source;

#[derive(Serialize)]
struct Invalid<'a> {
    schema: u32,
    tool: String,
    model: &'a str,
    source_hash: String,
    verdict: Kind,
    exit_code: i32,
    diagnostics: Vec<Diag<'a>>,
}

#[derive(Serialize)]
struct Kind {
    kind: &'static str,
}

#[derive(Serialize)]
struct Diag<'a> {
    severity: &'static str,
    code: Option<&'a str>,
    message: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    label: &'a str,
    notes: &'a [String],
}

/// The diagnostics of `source` as one JSON document (schema [`super::SCHEMA`], verdict kind
/// `invalid-input`, exit code 7), ending with a newline.
pub fn invalid_json(source: &Source, diags: &[Diagnostic]) -> String {
    let len = source.text.len() as u32;
    let doc = Invalid {
        schema: super::SCHEMA,
        tool: format!("zingrs {}", env!("CARGO_PKG_VERSION")),
        model: &source.name,
        source_hash: super::source_hash(&source.text),
        verdict: Kind {
            kind: "invalid-input",
        },
        exit_code: super::exit::INVALID,
        diagnostics: diags
            .iter()
            .map(|d| {
                let (line, column) = source.line_col(d.span.start.min(len));
                let (end_line, end_column) = source.line_col(d.span.end.min(len));
                Diag {
                    severity: match d.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                    },
                    code: d.code.as_deref(),
                    message: &d.message,
                    line,
                    column,
                    end_line,
                    end_column,
                    label: &d.label,
                    notes: &d.notes,
                }
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&doc)
        .unwrap_or_else(|e| format!("{{\"error\": \"cannot serialize the diagnostics: {e}\"}}"));
    text.push('\n');
    text
}
