//! The atomic propositions of an LTL formula, compiled against the model.
//!
//! An expression is compiled by the model's own front end, so that it means what it would
//! mean in the model (its names, types, conversions and error messages): the model's text is
//! compiled again with one small procedure per expression appended, whose only statement is
//! `assert(EXPR);`, and the assertion's condition is taken from the result. The procedures
//! are never called, and the model itself is the one compiled before, so nothing of it
//! changes. A location (`@label`, `@Proc:label`) is the set of program points that carry the
//! label.

use super::parse::AtomText;
use super::LtlError;
use crate::runtime::{Env, Machine, State, Value};
use zingrs_lang::ir::{Expr, Pc, ProcId, Program, Stmt};
use zingrs_lang::Lang;

/// A compiled atomic proposition.
#[derive(Debug)]
pub enum Atom {
    /// Some thread stands at one of these program points.
    At(Vec<(ProcId, Pc)>),
    /// A boolean expression over the model's globals (and the heap through them).
    Expr(Expr),
}

impl Atom {
    /// Whether the proposition holds in `s` (an expression that fails to evaluate is false).
    pub fn holds(&self, m: &Machine, s: &State) -> bool {
        match self {
            Atom::At(points) => s.threads.iter().any(|t| {
                t.stack
                    .top()
                    .is_some_and(|f| points.contains(&(f.proc, f.pc)))
            }),
            Atom::Expr(e) => {
                let env = Env::plain(&s.heap, &s.globals, &[], &[]);
                matches!(m.value(e, &env, &mut ()), Ok(Value::Bool(true)))
            }
        }
    }
}

/// The name of the procedure that holds expression `i`, and its declaration.
fn wrapper(lang: Lang, i: usize, expr: &str) -> (String, String, usize) {
    match lang {
        Lang::Bp => {
            let name = format!("__zingrs_ltl_{i}");
            let head = format!("{name}() begin assert(");
            let at = head.len();
            (name, format!("{head}{expr}); end\n"), at)
        }
        Lang::Zing => {
            let class = format!("__ZingrsLtl{i}");
            let head = format!("class {class} {{ static void atom() {{ assert(");
            let at = head.len();
            (
                format!("{class}.atom"),
                format!("{head}{expr}); }} }};\n"),
                at,
            )
        }
    }
}

/// Whether `e` reads only what a state's globals and heap hold (no locals, no thread-local
/// globals, no nondeterminism, no calls).
fn global_only(e: &Expr, p: &Program) -> Result<(), &'static str> {
    match e {
        Expr::Local(_) | Expr::PrimedLocal(_) | Expr::PassiveLocal(_) => {
            Err("it reads a local variable")
        }
        Expr::PrimedPassiveLocal(_) | Expr::PrimedGlobal(_) => Err("it reads a primed name"),
        Expr::Global(i) if p.globals[*i as usize].thread_local => {
            Err("it reads a thread-local variable")
        }
        Expr::Nondet | Expr::Schoose(..) => Err("it is nondeterministic"),
        Expr::SelfId => Err("it reads `self`"),
        Expr::Call(..) => Err("it calls a method"),
        _ => {
            let mut r = Ok(());
            e.for_each_child(|c| {
                if r.is_ok() {
                    r = global_only(c, p);
                }
            });
            r
        }
    }
}

/// Compiles every atom of a formula against `program`.
pub fn compile(atoms: &[AtomText], program: &Program) -> Result<Vec<Atom>, LtlError> {
    let lang = program.lang;
    let mut text = program.source.text.clone();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    // per expression atom: its procedure's name, and where its expression starts in `text`
    let mut wrapped: Vec<Option<(String, usize)>> = Vec::new();
    for (i, a) in atoms.iter().enumerate() {
        match a {
            AtomText::Expr { text: e, .. } => {
                let (name, decl, at) = wrapper(lang, i, e);
                wrapped.push(Some((name, text.len() + at)));
                text.push_str(&decl);
            }
            AtomText::At { .. } => wrapped.push(None),
        }
    }
    let compiled = if wrapped.iter().any(Option::is_some) {
        match zingrs_lang::compile(&program.source.name, &text, lang) {
            Ok(c) => Some(c.program),
            Err(diags) => {
                let e = diags
                    .iter()
                    .find(|d| d.severity == zingrs_lang::diag::Severity::Error)
                    .or(diags.first());
                return Err(match e {
                    Some(d) => located(atoms, &wrapped, &text, d),
                    None => LtlError {
                        column: 0,
                        message: "the formula's expressions do not compile".into(),
                    },
                });
            }
        }
    } else {
        None
    };
    let mut out = Vec::with_capacity(atoms.len());
    for (a, w) in atoms.iter().zip(&wrapped) {
        match (a, w) {
            (AtomText::At { proc, label }, _) => out.push(Atom::At(points(program, proc, label)?)),
            (AtomText::Expr { text: src, column }, Some((name, _))) => {
                let p = compiled.as_ref().expect("compiled with the expressions");
                let e = p
                    .proc_by_name(name)
                    .and_then(|id| {
                        p.procs[id as usize]
                            .nodes
                            .iter()
                            .find_map(|n| match &n.stmt {
                                Stmt::Assert { cond } => Some(cond.clone()),
                                _ => None,
                            })
                    })
                    .ok_or_else(|| LtlError {
                        column: *column,
                        message: format!("`{src}` is not a boolean expression of the model"),
                    })?;
                global_only(&e, p).map_err(|why| LtlError {
                    column: *column,
                    message: format!(
                        "`{src}` cannot be a proposition: {why} (propositions read globals only)"
                    ),
                })?;
                out.push(Atom::Expr(e));
            }
            (AtomText::Expr { .. }, None) => unreachable!("every expression is wrapped"),
        }
    }
    Ok(out)
}

/// The program points where a thread stands at `label` (of procedure `proc`, if given).
fn points(
    program: &Program,
    proc: &Option<String>,
    label: &str,
) -> Result<Vec<(ProcId, Pc)>, LtlError> {
    let named = |name: &str| match proc {
        None => true,
        // a Zing method by its own name or with its class's
        Some(p) => name == p || name.rsplit('.').next() == Some(p.as_str()),
    };
    let mut out = Vec::new();
    let mut proc_seen = proc.is_none();
    for (id, p) in program.procs.iter().enumerate() {
        if !named(&p.name) {
            continue;
        }
        proc_seen = true;
        for (pc, n) in p.nodes.iter().enumerate() {
            if n.labels.iter().any(|l| l == label) {
                out.push((id as ProcId, pc as Pc));
            }
        }
    }
    if out.is_empty() {
        let message = match proc {
            Some(p) if !proc_seen => format!("`@{p}:{label}`: the model has no procedure {p}"),
            Some(p) => format!("`@{p}:{label}`: {p} has no label {label}"),
            None => format!("`@{label}`: the model has no label {label}"),
        };
        return Err(LtlError { column: 0, message });
    }
    Ok(out)
}

/// An error of the front end in an appended procedure, as an error of the formula.
fn located(
    atoms: &[AtomText],
    wrapped: &[Option<(String, usize)>],
    text: &str,
    d: &zingrs_lang::diag::Diagnostic,
) -> LtlError {
    let at = d.span.start as usize;
    // the atom whose procedure the error is in: the last one starting at or before it
    let hit = wrapped
        .iter()
        .enumerate()
        .filter_map(|(i, w)| w.as_ref().map(|(_, start)| (i, *start)))
        .rfind(|&(_, start)| {
            // its procedure's line starts before the error
            let line = text[..start].rfind('\n').map_or(0, |n| n + 1);
            line <= at
        });
    match hit {
        Some((i, start)) => {
            let AtomText::Expr { text: src, column } = &atoms[i] else {
                unreachable!("wrapped atoms are expressions")
            };
            let within = text
                .get(start..at.max(start))
                .map_or(0, |s| s.chars().count())
                .min(src.chars().count());
            LtlError {
                column: column + within,
                message: format!("in `{src}`: {}", d.message),
            }
        }
        None => LtlError {
            column: 0,
            message: format!("the formula's expressions do not compile: {}", d.message),
        },
    }
}

#[cfg(test)]
mod tests {
    use crate::ltl::Ltl;

    fn program(text: &str, lang: zingrs_lang::Lang) -> zingrs_lang::ir::Program {
        let name = match lang {
            zingrs_lang::Lang::Bp => "t.bp",
            zingrs_lang::Lang::Zing => "t.zing",
        };
        zingrs_lang::compile(name, text, lang).unwrap().program
    }

    #[test]
    fn expressions_compile_in_the_models_language_and_errors_point_into_the_formula() {
        let z = program(
            "class Main { static int x; activate static void main() { L: x = 1; } };",
            zingrs_lang::Lang::Zing,
        );
        assert!(Ltl::compile("G (Main.x < 2) && F @L && F @main:L", &z).is_ok());
        let e = Ltl::compile("G (Main.y < 2)", &z).unwrap_err();
        assert_eq!(e.column, 9, "{e:?}"); // at `y`
        assert!(e.message.contains("Main.y < 2"), "{}", e.message);
        let e = Ltl::compile("F @M", &z).unwrap_err();
        assert!(e.message.contains("no label M"), "{}", e.message);
        let e = Ltl::compile("F @Other:L", &z).unwrap_err();
        assert!(e.message.contains("no procedure Other"), "{}", e.message);
        let b = program(
            "decl g, h;\nmain() begin decl l; g := !h; end\n",
            zingrs_lang::Lang::Bp,
        );
        assert!(Ltl::compile("G F (g = h) || {g & !h}", &b).is_ok());
        let e = Ltl::compile("G l", &b).unwrap_err();
        assert_eq!(e.column, 3, "{e:?}");
    }
}
