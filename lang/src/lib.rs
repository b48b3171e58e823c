//! zingrs-lang: the front ends of zingrs.
//!
//! Text in, [`ir::Program`] out. Each language has its own lexer, parser, AST and lowering
//! under its module; both produce the same IR, and report bad input as spanned
//! [`diag::Diagnostic`]s rather than panicking.

pub mod bp;
pub mod deep;
pub mod diag;
pub mod global_liveness;
pub mod ir;
pub mod liveness;
pub mod show;
pub mod spawn;
pub mod zing;

use diag::Diagnostic;

/// The input languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// Boolean programs (SLAM/Bebop and dialects).
    Bp,
    /// The ZING modeling language.
    Zing,
}

impl Lang {
    /// The language a file name's extension names, if any.
    pub fn from_path(path: &str) -> Option<Lang> {
        if path.ends_with(".bp") {
            Some(Lang::Bp)
        } else if path.ends_with(".zing") {
            Some(Lang::Zing)
        } else {
            None
        }
    }
}

/// A successfully compiled model and the warnings found on the way.
#[derive(Debug)]
pub struct Compiled {
    pub program: ir::Program,
    pub warnings: Vec<Diagnostic>,
}

/// Compiles a model. On failure every diagnostic found (errors and warnings) is returned.
pub fn compile(name: &str, text: &str, lang: Lang) -> Result<Compiled, Vec<Diagnostic>> {
    match lang {
        Lang::Bp => bp::compile(name, text),
        Lang::Zing => zing::compile(name, text),
    }
}
