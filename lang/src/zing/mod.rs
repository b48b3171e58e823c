//! The Zing front end: preprocessor, lexer, parser, AST, name resolution and type checking
//! (zing-language.md §1–§5), producing a type-checked [`ast::Model`].
//!
//! The pipeline is `preproc` → `lexer` → `parser` (+ `parse_stmt`, `parse_expr`) → `tables`
//! (program-wide declarations and signatures) → `check_stmt` (+ `check_expr`) per method.
//! Lexical errors stop the pipeline; syntax errors stop it after parsing (so a broken tree
//! yields no follow-on errors); all type errors are collected over the whole model. A model
//! that checks is then lowered to the IR by `lower` (+ `lower_stmt`, `lower_expr`), which
//! refuses the constructs it does not handle yet with one diagnostic each.

pub mod ast;
mod check_assign;
mod check_expr;
mod check_ops;
mod check_stmt;
pub mod lexer;
pub mod lower;
mod lower_expr;
mod lower_stmt;
mod parse_expr;
mod parse_stmt;
mod parser;
mod preproc;
mod purity;
pub mod tables;
pub mod types;

use crate::diag::Diagnostic;
use crate::Compiled;

/// Stack for the front end's thread: parsing, checking and lowering recurse once per nesting
/// level; every recursive pass grows its stack through [`crate::deep::grow`] as it goes, and
/// this first segment keeps the derived walks (drop, clone) of trees thousands deep in bounds.
const STACK_BYTES: usize = 64 << 20;

/// Most type errors reported.
const MAX_ERRORS: usize = crate::diag::MAX_REPORTED_ERRORS;

/// Parses and type-checks a model. On success the tree has every type and name resolved.
pub fn check(name: &str, text: &str) -> Result<ast::Model, Vec<Diagnostic>> {
    analyze(name, text).map(|(m, _)| m)
}

/// Like [`check`], also returning the warnings of a model that type-checks.
pub fn analyze(name: &str, text: &str) -> Result<(ast::Model, Vec<Diagnostic>), Vec<Diagnostic>> {
    on_big_stack(|| analyze_here(name, text))
}

/// Compiles a Zing model for `zingrs check`: the front end, then lowering to the IR. On
/// failure the errors come with the warnings found so far, in source order.
pub fn compile(name: &str, text: &str) -> Result<Compiled, Vec<Diagnostic>> {
    on_big_stack(|| {
        let (model, warnings) = analyze_here(name, text)?;
        match lower::lower(&model, name, text) {
            // a model in which no process runs would pass every check vacuously
            Ok(program) if program.activations.is_empty() => {
                let mut errors = vec![Diagnostic::error(
                    crate::ir::Span::new(0, 0),
                    "the model has no `activate` method, so no process runs",
                )
                .with_note(
                    "mark a static void method without parameters `activate` to start a process in it",
                )];
                errors.extend(warnings);
                Err(sorted(errors))
            }
            Ok(program) => Ok(Compiled { program, warnings }),
            Err(mut errors) => {
                errors.extend(warnings);
                Err(sorted(errors))
            }
        }
    })
}

/// Runs `f` on a thread with [`STACK_BYTES`] of stack (on this one if none can be spawned).
fn on_big_stack<R: Send>(f: impl Fn() -> R + Sync) -> R {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("zing-front-end".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, &f);
        match worker {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => f(),
        }
    })
}

/// [`analyze`] on the current thread.
fn analyze_here(_name: &str, text: &str) -> Result<(ast::Model, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut pre_diags = Vec::new();
    let cleaned = preproc::run(text, &mut pre_diags);
    if !pre_diags.is_empty() {
        return Err(sorted(pre_diags));
    }
    let text = cleaned.as_deref().unwrap_or(text);
    let tokens = lexer::lex(text)?;
    let (mut model, diags) = parser::parse(text, &tokens);
    if !diags.is_empty() {
        return Err(sorted(diags));
    }
    let mut diags = Vec::new();
    let (tables, types) = tables::build(&mut model, &mut diags);
    check_stmt::check_model(&tables, &types, &mut model, &mut diags);
    let errors = diags.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        let mut diags = sorted(diags);
        if errors > MAX_ERRORS {
            let mut kept = 0;
            diags.retain(|d| {
                kept += usize::from(d.is_error());
                kept <= MAX_ERRORS || !d.is_error()
            });
            let at = diags.last().map(|d| d.span).unwrap_or_default();
            diags.push(Diagnostic::error(
                at,
                format!("too many errors ({MAX_ERRORS}); stopping here"),
            ));
        }
        Err(diags)
    } else {
        Ok((model, sorted(diags)))
    }
}

/// Diagnostics in source order (stable, so related ones stay together).
fn sorted(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by_key(|d| d.span.start);
    diags
}
