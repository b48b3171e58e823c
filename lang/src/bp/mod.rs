//! Boolean programs: lexer, parser, AST, name resolution and lowering to the IR.
//!
//! The pipeline is `lexer` → `parser` (+ `parse_expr`) → `scope` (program-wide tables) →
//! `lower` (+ `lower_expr`) per procedure → layout detection here. Lexical errors stop the
//! pipeline; syntax errors stop it after parsing (so no follow-on resolution errors are
//! reported on a broken tree); all other checks are collected over the whole program.

pub mod ast;
pub mod lexer;
mod lower;
mod lower_expr;
mod lower_flow;
mod parse_expr;
mod parse_stmt;
mod parser;
mod scope;

use crate::diag::Diagnostic;
use crate::ir::{Layout, ProcId, Program, Source, Span, Stmt};
use crate::Compiled;

/// Stack for the front end's thread. Parsing and lowering recurse once per statement nesting
/// level (capped at `parser::MAX_DEPTH`; expressions grow their own stack, `crate::deep`);
/// unoptimised builds use several KiB per level, more than a test thread's default 2 MiB, so
/// the work runs on a thread whose stack surely suffices.
const STACK_BYTES: usize = 64 << 20;

/// Compiles a boolean program (bp-language.md) into the IR.
pub fn compile(name: &str, text: &str) -> Result<Compiled, Vec<Diagnostic>> {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("bp-front-end".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || compile_here(name, text));
        match worker {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => compile_here(name, text),
        }
    })
}

/// [`compile`] on the current thread.
fn compile_here(name: &str, text: &str) -> Result<Compiled, Vec<Diagnostic>> {
    let source = Source::new(name, text);
    let tokens = lexer::lex(text)?;
    let (ast, mut diags, syntax_errors) = parser::parse(text, &tokens);
    // memory freed early is reused by the next stage instead of fresh pages (on large models
    // the front end's page faults were a large part of its time)
    drop(tokens);
    if syntax_errors {
        return Err(sorted(diags));
    }
    let tables = scope::collect(&source, &ast, &mut diags);
    let mut procs = Vec::with_capacity(ast.procs.len());
    let mut passive_uses = Vec::new();
    // where each passive name is: its span and its procedure
    let mut passive_at: Vec<(Span, usize)> = Vec::new();
    for (id, p) in ast.procs.into_iter().enumerate() {
        procs.push(lower::lower_proc(
            &tables,
            &source,
            &mut diags,
            id,
            &p,
            &mut passive_uses,
        ));
        passive_at.extend(passive_uses.drain(..).map(|s| (s, id)));
    }
    let mut program = Program {
        classes: Vec::new(),
        globals: tables.globals,
        procs,
        activations: Vec::new(),
        layout: Layout::Standard,
        source,
        exceptions: Vec::new(),
        static_news: Vec::new(),
        enums: Vec::new(),
        accepts: Vec::new(),
        uses_self: false,
        keep_completed: false,
        nested_atomic: false,
        lang: crate::Lang::Bp,
    };
    match getafix_layout(&program) {
        Some(layout) => program.layout = layout,
        None => match program.proc_by_name("main") {
            Some(main) => program.activations = vec![main],
            None => diags.push(
                Diagnostic::error(Span::new(0, 0), "no procedure `main`")
                    .with_code("E12")
                    .with_label("the program needs an entry procedure `main`")
                    .with_note(
                        "only the Getafix layout (`init` with label `endinit`, and \
                         `thread…` procedures) may omit `main`",
                    ),
            ),
        },
    }
    if let Some(&(first, _)) = passive_at.iter().min_by_key(|(s, _)| s.start) {
        if creates_threads(&program) {
            passive_in_thread_context(&program, &passive_at, &mut diags);
        } else {
            diags.push(
                Diagnostic::error(first, "passive variable in a program without threads")
                    .with_code("E16")
                    .with_label("no other thread can exist to own this variable")
                    .with_note(
                        "`x$` names `x` in the other threads; it needs a `start_thread` \
                         statement or the Getafix layout",
                    ),
            );
        }
    }
    if diags.iter().any(Diagnostic::is_error) {
        Err(sorted(diags))
    } else {
        Ok(Compiled {
            program,
            warnings: diags,
        })
    }
}

/// Reports every statement with passive names that no thread can run while a second thread
/// exists (see [`crate::spawn::thread_context`]): in `main` before any thread is created, in
/// `init` before `endinit`, or in a procedure that only such code calls. A statement is
/// reported once, at its first passive name.
fn passive_in_thread_context(
    program: &Program,
    passive_at: &[(Span, usize)],
    diags: &mut Vec<Diagnostic>,
) {
    let ctx = crate::spawn::thread_context(program);
    let mut reported: Vec<(usize, usize)> = Vec::new();
    for &(span, proc) in passive_at {
        let nodes = &program.procs[proc].nodes;
        // the innermost statement whose text holds the name
        let Some(pc) = (0..nodes.len())
            .filter(|&i| nodes[i].span.start <= span.start && span.end <= nodes[i].span.end)
            .min_by_key(|&i| nodes[i].span.end - nodes[i].span.start)
        else {
            continue;
        };
        if ctx[proc][pc] || reported.contains(&(proc, pc)) {
            continue;
        }
        reported.push((proc, pc));
        let name = &program.procs[proc].name;
        diags.push(
            Diagnostic::error(span, "passive variable where no other thread can exist")
                .with_code("E16")
                .with_label(format!(
                    "no other thread exists when `{name}` runs this statement"
                ))
                .with_note(
                    "`x$` names `x` in the other threads: it may be used only in code that a \
                     created thread runs, or that runs after a thread has been created",
                ),
        );
    }
}

/// Whether a second thread can ever exist: some `start_thread`, or the Getafix layout (the
/// static rule for where passive variables make sense, bp-language §5.14).
fn creates_threads(program: &Program) -> bool {
    !matches!(program.layout, Layout::Standard)
        || program.procs.iter().any(|p| {
            p.nodes
                .iter()
                .any(|n| matches!(n.stmt, Stmt::StartThread { .. } | Stmt::StartThreadGoto))
        })
}

/// Diagnostics in source order (stable, so related ones stay together).
fn sorted(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by_key(|d| d.span.start);
    diags
}

/// Whether a procedure name makes it a Getafix thread: `thread…`, any case, ≥ 7 characters.
fn is_thread_name(name: &str) -> bool {
    name.len() >= 7
        && name
            .get(..6)
            .is_some_and(|p| p.eq_ignore_ascii_case("thread"))
}

/// The Getafix layout (§5.13) if `init` has the label `endinit` and there are thread procedures.
fn getafix_layout(program: &Program) -> Option<Layout> {
    let init = program.proc_by_name("init")?;
    let endinit = program
        .procs
        .get(init as usize)?
        .nodes
        .iter()
        .position(|n| n.labels.iter().any(|l| l == "endinit"))?;
    let mut threads: Vec<ProcId> = program
        .procs
        .iter()
        .enumerate()
        .filter(|(_, p)| is_thread_name(&p.name))
        .map(|(i, _)| i as ProcId)
        .collect();
    if threads.is_empty() {
        return None;
    }
    if let Some(main) = program.proc_by_name("main") {
        threads.push(main);
    }
    Some(Layout::Getafix {
        init,
        endinit: endinit as u32,
        threads,
    })
}
