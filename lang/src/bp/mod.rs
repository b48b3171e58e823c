//! Boolean programs: lexer, parser, AST, name resolution and lowering to the IR.

use crate::diag::Diagnostic;
use crate::Compiled;

/// Compiles a boolean program (bp-language.md) into the IR.
pub fn compile(name: &str, text: &str) -> Result<Compiled, Vec<Diagnostic>> {
    let _ = (name, text);
    Err(vec![Diagnostic::error(
        crate::ir::Span::default(),
        "not yet implemented",
    )])
}
