//! The properties a check looks at, each with a stable id and a place in the source
//! (`check --show-properties`, CBMC's convention): every assertion, every `--target` label,
//! the deadlock check, and in Zing models the implicit checks of the runtime (null
//! dereference, index, division, overflow, choose, exceptions, selects). `check --property ID`
//! checks only the ones named (`select`); `--keep-going` ends with a table that says of each
//! whether it was violated (`statuses`).
//!
//! Ids are `PROC.KIND.N`: the N-th check of that kind in the procedure, in source order, so an
//! edit elsewhere in the model does not change them. The deadlock and infinite-loop checks,
//! which belong to no statement, are `deadlock` and `infinite-loop`; a target label is
//! `label.NAME`. A runtime check is listed where a statement may raise the error, so some may
//! be impossible (an overflow of an addition that never overflows): they are then simply never
//! violated.

use super::CheckError;
use crate::report::{Property, PropertyStatus, Report, Verdict};
use crate::runtime::{RtError, Selection};
use std::collections::BTreeMap;
use zingrs_lang::ir::{ArithOp, Expr, Glue, Operand, Pc, ProcId, Program, Stmt};

/// A property with what the check needs to select it and to find it violated.
#[derive(Clone, Debug)]
pub(crate) struct Listed {
    pub(crate) info: Property,
    what: What,
}

/// What a property is, for the check: the nodes its violations are reported at.
#[derive(Clone, Debug, PartialEq, Eq)]
enum What {
    Assertion(Vec<(ProcId, Pc)>),
    Target(String),
    Deadlock,
    /// A runtime error at these step-starting nodes, or anywhere (`None`).
    Runtime(RtError, Option<Vec<(ProcId, Pc)>>),
}

/// The name of a runtime error in property ids and tables.
pub fn error_kind(e: RtError) -> &'static str {
    match e {
        RtError::NullDereference => "null-dereference",
        RtError::DivideByZero => "divide-by-zero",
        RtError::ArithmeticOverflow => "arithmetic-overflow",
        RtError::IndexOutOfRange => "index-out-of-range",
        RtError::InvalidChoose => "invalid-choose",
        RtError::InvalidBlockingSelect => "invalid-blocking-select",
        RtError::UnhandledException => "unhandled-exception",
        RtError::TypeMismatch => "type-mismatch",
        RtError::PredicateFailed => "predicate-failed",
        RtError::InfiniteLoop => "infinite-loop",
    }
}

/// The runtime errors a node's own statement may raise (ZING's implicit checks). `this`
/// (local `this`, an instance method's receiver) is never null: a call through null fails
/// at the call.
fn node_errors(stmt: &Stmt, this: Option<u32>) -> Vec<RtError> {
    let via_this = |e: &Expr| matches!(e, Expr::Local(i) if Some(*i) == this);
    let mut out = Vec::new();
    let mut add = |e: RtError| {
        if !out.contains(&e) {
            out.push(e);
        }
    };
    let expr = |e: &Expr, add: &mut dyn FnMut(RtError)| {
        e.walk(&mut |x| match x {
            Expr::Field(base, _) if via_this(base) => {}
            Expr::Field(..) | Expr::Size(..) | Expr::In(..) | Expr::ClassIs(..) => {
                add(RtError::NullDereference)
            }
            Expr::Elem(..) => {
                add(RtError::NullDereference);
                add(RtError::IndexOutOfRange);
            }
            Expr::Arith(op, ..) => {
                if matches!(op, ArithOp::Div | ArithOp::Rem) {
                    add(RtError::DivideByZero);
                }
                add(RtError::ArithmeticOverflow);
            }
            Expr::Neg(..) | Expr::Convert(..) => add(RtError::ArithmeticOverflow),
            Expr::Call(..) => add(RtError::PredicateFailed),
            _ => {}
        })
    };
    stmt.for_each_operand(|o| match o {
        Operand::Read(e) => expr(e, &mut add),
        Operand::Write(lv) => match lv {
            zingrs_lang::ir::LValue::Field(base, _) if via_this(base) => {}
            zingrs_lang::ir::LValue::Field(..) => add(RtError::NullDereference),
            zingrs_lang::ir::LValue::Elem(..) => {
                add(RtError::NullDereference);
                add(RtError::IndexOutOfRange);
            }
            _ => {}
        },
    });
    match stmt {
        Stmt::Choose { lo, hi, .. } if lo > hi => add(RtError::InvalidChoose),
        Stmt::ChooseElem { .. } => {
            add(RtError::NullDereference);
            add(RtError::InvalidChoose);
        }
        Stmt::NewArray { .. } => add(RtError::ArithmeticOverflow),
        Stmt::SetUpdate { .. } | Stmt::Send { .. } => add(RtError::NullDereference),
        Stmt::Select { receives, .. } => {
            if receives.iter().any(|r| !r.is_empty()) {
                add(RtError::NullDereference);
            }
            add(RtError::InvalidBlockingSelect);
        }
        Stmt::Raise { .. } => add(RtError::UnhandledException),
        _ => {}
    }
    out
}

/// The nodes whose steps run on into node `pc` of `proc` (Zing's glued steps), `pc` itself
/// first: a violation inside such a step is reported where the step starts.
fn step_starts(program: &Program, proc: ProcId, pc: Pc) -> Vec<(ProcId, Pc)> {
    let nodes = &program.procs[proc as usize].nodes;
    let mut out = vec![(proc, pc)];
    let mut i = 0;
    while i < out.len() {
        let at = out[i].1;
        let arrives_glued = matches!(nodes[at as usize].glue, Glue::ToPrevious | Glue::Through);
        for (q, n) in nodes.iter().enumerate() {
            let leaves_glued = matches!(n.glue, Glue::ToNext | Glue::Through);
            if (leaves_glued || arrives_glued)
                && n.succ.contains(&at)
                && !out.contains(&(proc, q as Pc))
            {
                out.push((proc, q as Pc));
            }
        }
        i += 1;
    }
    out
}

/// Where a property is: the start of its statement in the source, and its kind.
type Place = (u32, &'static str);

/// A call's results are written by the callee's return step: an error writing them (a
/// receiver through null) is reported at the callee's `return`s.
fn result_writes(program: &Program, proc: ProcId, pc: Pc) -> Vec<(ProcId, Pc)> {
    match &program.node(proc, pc).stmt {
        Stmt::Call {
            callee, results, ..
        } if !results.is_empty() => program.procs[*callee as usize]
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| matches!(n.stmt, Stmt::Return { .. }))
            .flat_map(|(r, _)| step_starts(program, *callee, r as Pc))
            .collect(),
        _ => Vec::new(),
    }
}

/// Every property of `program` under these options: assertions (unless assertions are not
/// checked), target labels, deadlock (unless `--no-deadlock`), runtime checks; in source
/// order within each procedure.
pub fn properties(program: &Program, opts: &super::CheckOptions) -> Vec<Property> {
    listed(program, opts).into_iter().map(|l| l.info).collect()
}

/// [`properties`], with how each is checked.
pub(crate) fn listed(program: &Program, opts: &super::CheckOptions) -> Vec<Listed> {
    let getafix = matches!(program.layout, zingrs_lang::ir::Layout::Getafix { .. });
    let zing = program.lang == zingrs_lang::Lang::Zing;
    let mut out = Vec::new();
    for (p, proc) in program.procs.iter().enumerate() {
        // the procedures the LTL propositions are compiled in are not the model's
        if proc.name.starts_with("__zingrs") || proc.name.starts_with("__ZingrsLtl") {
            continue;
        }
        let p = p as ProcId;
        // per (kind, place): the nodes, in the order of their places in the source
        let mut found: BTreeMap<Place, Vec<(Pc, Option<RtError>)>> = BTreeMap::new();
        let this = proc
            .locals
            .iter()
            .position(|v| v.name == "this")
            .map(|i| i as u32);
        for (pc, node) in proc.nodes.iter().enumerate() {
            let pc = pc as Pc;
            if matches!(node.stmt, Stmt::Assert { .. }) && opts.assertions && !getafix {
                found
                    .entry((node.span.start, "assertion"))
                    .or_default()
                    .push((pc, None));
            }
            if zing {
                for e in node_errors(&node.stmt, this) {
                    found
                        .entry((node.span.start, error_kind(e)))
                        .or_default()
                        .push((pc, Some(e)));
                }
            }
        }
        // numbered per kind, in source order
        let mut count: BTreeMap<&'static str, u32> = BTreeMap::new();
        let mut places: Vec<_> = found.into_iter().collect();
        places.sort_by_key(|((start, kind), _)| (*start, *kind));
        for ((start, kind), nodes) in places {
            let n = count.entry(kind).or_insert(0);
            *n += 1;
            let (line, column) = program.source.line_col(start);
            let first = nodes[0].0;
            let text = program.source.snippet(proc.nodes[first as usize].span);
            let at: Vec<(ProcId, Pc)> = nodes
                .iter()
                .flat_map(|&(pc, _)| {
                    let mut at = step_starts(program, p, pc);
                    at.extend(result_writes(program, p, pc));
                    at
                })
                .collect();
            let what = match nodes[0].1 {
                None => What::Assertion(nodes.iter().map(|&(pc, _)| (p, pc)).collect()),
                Some(e) => What::Runtime(e, Some(at)),
            };
            out.push(Listed {
                info: Property {
                    id: format!("{}.{kind}.{n}", proc.name),
                    kind: kind.into(),
                    procedure: Some(proc.name.clone()),
                    line,
                    column,
                    text: text.to_string(),
                },
                what,
            });
        }
    }
    for label in &opts.targets {
        let at = program.procs.iter().find_map(|q| {
            q.nodes
                .iter()
                .find(|n| n.labels.iter().any(|l| l == label))
                .map(|n| (q.name.clone(), n.span.start))
        });
        let (procedure, (line, column)) = match at {
            Some((q, start)) => (Some(q), program.source.line_col(start)),
            None => (None, (0, 0)),
        };
        out.push(Listed {
            info: Property {
                id: format!("label.{label}"),
                kind: "target-label".into(),
                procedure,
                line,
                column,
                text: label.clone(),
            },
            what: What::Target(label.clone()),
        });
    }
    let blocks = zing || program.is_concurrent();
    if opts.deadlock && blocks {
        out.push(Listed {
            info: Property {
                id: "deadlock".into(),
                kind: "deadlock".into(),
                procedure: None,
                line: 0,
                column: 0,
                text: "a state where no process can move and one is blocked".into(),
            },
            what: What::Deadlock,
        });
    }
    let atomic = program.procs.iter().any(|q| {
        q.atomic
            || q.nodes.iter().any(|n| {
                matches!(
                    n.stmt,
                    Stmt::AtomicBegin | Stmt::Select { atomic: true, .. }
                )
            })
    });
    if zing && (atomic || opts.cooperative) {
        out.push(Listed {
            info: Property {
                id: "infinite-loop".into(),
                kind: error_kind(RtError::InfiniteLoop).into(),
                procedure: None,
                line: 0,
                column: 0,
                text: "an atomic region (or a cooperative run) of over 1,000,000 steps (or --max-atomic-steps)".into(),
            },
            what: What::Runtime(RtError::InfiniteLoop, None),
        });
    }
    out
}

/// What checking only some properties changes: the options (targets, deadlock) and the
/// semantics' [`Selection`].
pub struct Selected {
    /// The `--target` labels still looked for.
    pub targets: Vec<String>,
    /// Whether deadlocks are looked for.
    pub deadlock: bool,
    /// The assertions and runtime checks left out.
    pub selection: Selection,
}

/// The selection `--property ID...` makes among `all` (from [`properties`]); an id that is not
/// there is an error that says how to list them.
pub(crate) fn select(all: &[Listed], ids: &[String], model: &str) -> Result<Selected, CheckError> {
    if let Some(bad) = ids.iter().find(|id| !all.iter().any(|p| &p.info.id == *id)) {
        return Err(CheckError::Options(format!(
            "--property {bad}: {model} has no property with this id (`zingrs check --show-properties {model}` lists them)"
        )));
    }
    let chosen = |p: &Listed| ids.contains(&p.info.id);
    let mut s = Selected {
        targets: Vec::new(),
        deadlock: false,
        selection: Selection::default(),
    };
    for p in all {
        match &p.what {
            What::Assertion(nodes) if !chosen(p) => s.selection.assertions_off.extend(nodes),
            What::Assertion(_) => {}
            What::Target(l) if chosen(p) => s.targets.push(l.clone()),
            What::Target(_) => {}
            What::Deadlock => s.deadlock = chosen(p),
            What::Runtime(e, Some(nodes)) if chosen(p) => s
                .selection
                .runtime_on
                .extend(nodes.iter().map(|&(q, pc)| (q, pc, *e))),
            What::Runtime(e, None) if chosen(p) => {
                s.selection.runtime_anywhere.insert(*e);
            }
            What::Runtime(..) => {}
        }
    }
    Ok(s)
}

/// The property a verdict violates, if it names one of `all`: an assertion or runtime error
/// by its place, a label by name, a deadlock.
fn violated<'a>(all: &'a [Listed], v: &Verdict, program: &Program) -> Option<&'a Listed> {
    let at = |nodes: &[(ProcId, Pc)], procedure: &str, line: u32, column: u32| {
        nodes.iter().any(|&(q, pc)| {
            program.procs[q as usize].name == procedure
                && program.source.line_col(program.node(q, pc).span.start) == (line, column)
        })
    };
    all.iter().find(|p| match (&p.what, v) {
        (
            What::Assertion(nodes),
            Verdict::AssertionFailed {
                procedure,
                line,
                column,
                ..
            },
        ) => at(nodes, procedure, *line, *column),
        (What::Target(l), Verdict::TargetReached { label, .. }) => l == label,
        (What::Deadlock, Verdict::Deadlock { .. }) => true,
        (
            What::Runtime(e, nodes),
            Verdict::RuntimeError {
                error,
                procedure,
                line,
                column,
                ..
            },
        ) => {
            e == error
                && nodes
                    .as_ref()
                    .is_none_or(|n| at(n, procedure, *line, *column))
        }
        _ => false,
    })
}

/// Each property's status after a check (`--keep-going`'s table): violated where some
/// finding violates it; not violated where the search ended without a limit or a bound
/// cutting it and looked for every error; unknown otherwise. A finding that names no listed
/// property (a runtime error inside a step that began elsewhere) gets a row of its own.
pub(crate) fn statuses(
    all: &[Listed],
    report: &Report,
    program: &Program,
    complete: bool,
) -> Vec<PropertyStatus> {
    let verdicts: Vec<&Verdict> = std::iter::once(&report.verdict)
        .chain(report.more.iter().map(|f| &f.verdict))
        .collect();
    let hit: Vec<Option<&Listed>> = verdicts.iter().map(|v| violated(all, v, program)).collect();
    let mut rows: Vec<PropertyStatus> = all
        .iter()
        .map(|l| &l.info)
        .map(|p| PropertyStatus {
            id: p.id.clone(),
            kind: p.kind.clone(),
            procedure: p.procedure.clone(),
            line: p.line,
            column: p.column,
            status: if hit.iter().any(|h| h.is_some_and(|h| h.info.id == p.id)) {
                "violated"
            } else if complete {
                "not violated"
            } else {
                "unknown"
            }
            .into(),
        })
        .collect();
    for (v, h) in verdicts.iter().zip(&hit) {
        if h.is_some() {
            continue;
        }
        let row =
            |id: String, kind: &str, procedure: &str, line: u32, column: u32| PropertyStatus {
                id,
                kind: kind.into(),
                procedure: Some(procedure.into()),
                line,
                column,
                status: "violated".into(),
            };
        match v {
            Verdict::RuntimeError {
                error,
                procedure,
                line,
                column,
                ..
            } => rows.push(row(
                format!("{procedure}.{}.line-{line}", error_kind(*error)),
                error_kind(*error),
                procedure,
                *line,
                *column,
            )),
            Verdict::AssertionFailed {
                procedure,
                line,
                column,
                ..
            } => rows.push(row(
                format!("{procedure}.assertion.line-{line}"),
                "assertion",
                procedure,
                *line,
                *column,
            )),
            _ => {}
        }
    }
    rows
}
