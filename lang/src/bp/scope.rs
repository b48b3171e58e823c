//! Program-wide name tables: the globals and the procedure signatures (§2.2, §2.3, §2.6),
//! with the declaration checks that concern them (E7, E11 for `bool<0>`, E13).

use super::ast::{self, Ident, InitValue};
use crate::diag::Diagnostic;
use crate::ir::{Const, Init, ProcId, Source, Type, Var};

/// A map keyed by names. Names are short and the tables are filled once per procedure;
/// SipHash's rounds were a visible share of the front end's time on programs with thousands of
/// procedures, so the tables use aHash.
pub type NameMap<V> = ahash::AHashMap<String, V>;

/// Largest `bool<n>` accepted (a sanity bound, not a language rule).
const MAX_RESULTS: u64 = 4096;

/// What a call needs to know about a procedure.
#[derive(Clone, Debug)]
pub struct Signature {
    pub params: usize,
    pub results: usize,
}

/// Globals and procedures by name.
#[derive(Debug, Default)]
pub struct Tables {
    pub globals: Vec<Var>,
    pub global_index: NameMap<u32>,
    pub procs: NameMap<ProcId>,
    pub sigs: Vec<Signature>,
}

/// Converts an initialiser to the IR form.
pub fn init_of(v: InitValue) -> Init {
    match v {
        InitValue::Any => Init::Any,
        InitValue::Value(b) => Init::Value(Const::Bool(b)),
    }
}

/// A fresh boolean variable.
pub fn bool_var(name: &Ident, init: Init, thread_local: bool) -> Var {
    Var {
        name: name.name.clone(),
        ty: Type::Bool,
        init,
        thread_local,
        span: name.span,
    }
}

/// Reports `_`, `T` and `F` used as declared names (E13); returns whether the name is usable.
pub fn check_declarable(name: &Ident, what: &str, diags: &mut Vec<Diagnostic>) -> bool {
    let why = match name.name.as_str() {
        "_" => "the discard target",
        "T" => "the constant true",
        "F" => "the constant false",
        _ => return true,
    };
    let msg = format!("cannot declare a {what} named `{}`, {why}", name.name);
    diags.push(
        Diagnostic::error(name.span, msg)
            .with_code("E13")
            .with_label(format!("`{}` is reserved", name.name)),
    );
    false
}

/// A duplicate-declaration error (E7) that mentions where the first one is.
pub fn duplicate(src: &Source, what: &str, name: &Ident, first: crate::ir::Span) -> Diagnostic {
    let (line, col) = src.line_col(first.start);
    Diagnostic::error(name.span, format!("duplicate {what} `{}`", name.name))
        .with_code("E7")
        .with_label("declared again here")
        .with_note(format!("first declared at {}:{line}:{col}", src.name))
}

/// Builds the tables, reporting duplicate and ill-named globals and procedures.
pub fn collect(src: &Source, program: &ast::Program, diags: &mut Vec<Diagnostic>) -> Tables {
    let mut t = Tables::default();
    for group in &program.decls {
        for item in &group.items {
            if !check_declarable(&item.name, "global variable", diags) {
                continue;
            }
            if let Some(&i) = t.global_index.get(&item.name.name) {
                let first = t
                    .globals
                    .get(i as usize)
                    .map(|v| v.span)
                    .unwrap_or_default();
                diags.push(duplicate(src, "global variable", &item.name, first));
                continue;
            }
            t.global_index
                .insert(item.name.name.clone(), t.globals.len() as u32);
            t.globals
                .push(bool_var(&item.name, init_of(item.init), group.thread_local));
        }
    }
    for (id, p) in program.procs.iter().enumerate() {
        check_declarable(&p.name, "procedure", diags);
        let results = result_count(src, p, diags);
        t.sigs.push(Signature {
            params: p.params.len(),
            results,
        });
        match t.procs.get(&p.name.name) {
            Some(&first) => {
                let span = program
                    .procs
                    .get(first as usize)
                    .map(|q| q.name.span)
                    .unwrap_or_default();
                diags.push(duplicate(src, "procedure", &p.name, span));
            }
            None => {
                t.procs.insert(p.name.name.clone(), id as ProcId);
            }
        }
    }
    t
}

/// The number of results of a procedure; `bool<0>` is E11.
fn result_count(src: &Source, p: &ast::ProcDecl, diags: &mut Vec<Diagnostic>) -> usize {
    let span = p.type_span.unwrap_or(p.name.span);
    let is_bool = src
        .text
        .get(span.start as usize..span.end as usize)
        .is_some_and(|s| s.starts_with("bool"));
    if p.results == 0 && is_bool {
        diags.push(
            Diagnostic::error(span, "`bool<0>` is not a result type")
                .with_code("E11")
                .with_label("the number of results must be at least 1")
                .with_note("write `void` for a procedure without results"),
        );
    }
    if p.results > MAX_RESULTS {
        diags.push(
            Diagnostic::error(span, format!("too many results (at most {MAX_RESULTS})"))
                .with_label("result count too large"),
        );
        return 1;
    }
    p.results as usize
}
