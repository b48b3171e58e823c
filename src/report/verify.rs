//! The end check of a counterexample: a replayed path must end in a state that exhibits exactly
//! the verdict claimed for it. `check` runs it on every finding before printing it, and
//! `replay` on every report it reads, so neither a search bug nor an edited report can pass
//! off a path that shows nothing as a counterexample.

use super::ErrorDetail;
use super::{Verdict, Waiting};
use crate::runtime::{Access, Fault, Machine, RtError, Violation};
use crate::search;
use crate::search::{Path, Replayed};

/// What a counterexample claims its last state shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    Assertion,
    Runtime(RtError),
    Deadlock,
    Target(String),
    /// A lasso violating a liveness property: the path's steps from the given index on form
    /// the cycle; with [`search::Liveness::Ltl`], the formula.
    Cycle(
        search::Liveness,
        usize,
        Option<std::sync::Arc<crate::ltl::Ltl>>,
        /// The cycle is weakly fair.
        bool,
    ),
}

impl Claim {
    /// What a search finding claims.
    pub fn of_finding(f: &search::Finding) -> Claim {
        match f {
            search::Finding::Assertion { .. } => Claim::Assertion,
            search::Finding::Runtime { error, .. } => Claim::Runtime(*error),
            search::Finding::Deadlock { .. } => Claim::Deadlock,
            search::Finding::Target { label, .. } => Claim::Target(label.clone()),
            search::Finding::Cycle {
                property,
                cycle_start,
                ltl,
                fair,
                ..
            } => Claim::Cycle(*property, *cycle_start, ltl.clone(), *fair),
        }
    }

    /// What a reported verdict claims (`None` for verdicts without a counterexample).
    pub fn of_verdict(v: &Verdict) -> Option<Claim> {
        match v {
            Verdict::AssertionFailed { .. } => Some(Claim::Assertion),
            Verdict::RuntimeError { error, .. } => Some(Claim::Runtime(*error)),
            Verdict::Deadlock { .. } => Some(Claim::Deadlock),
            Verdict::TargetReached { label, .. } => Some(Claim::Target(label.clone())),
            Verdict::LivenessViolated {
                property,
                cycle_start,
                fairness,
                ..
            } => Some(Claim::Cycle(
                *property,
                *cycle_start as usize,
                None,
                fairness.is_some(),
            )),
            _ => None,
        }
    }

    fn describe(&self) -> String {
        match self {
            Claim::Assertion => "an assertion violation".into(),
            Claim::Runtime(e) => format!("a runtime error ({})", e.describe()),
            Claim::Deadlock => "a deadlock".into(),
            Claim::Target(l) => format!("label {l} reached"),
            Claim::Cycle(p, ..) => format!("a {}", p.cycle_name()),
        }
    }
}

/// Checks that `replayed` (the replay of `path`) ends in a state showing `claim`, and returns
/// the verdict that state shows, with the thread a target trace ends at (for
/// [`super::build_trace`]). `Err` says precisely what the last state shows instead.
pub fn verify(
    m: &Machine,
    path: &Path,
    replayed: &Replayed,
    claim: &Claim,
) -> Result<(Verdict, Option<u32>), String> {
    let p = m.program;
    let last = replayed.states.last().ok_or("the replay kept no state")?;
    let expected = || claim.describe();
    match claim {
        Claim::Assertion | Claim::Runtime(_) => {
            let want = match claim {
                Claim::Runtime(e) => Violation::Runtime(*e),
                _ => Violation::Assertion,
            };
            match replayed.violation {
                Some(v) if v == want => {}
                Some(v) => {
                    return Err(format!(
                        "the path ends in {}, not in {}",
                        match v {
                            Violation::Assertion => Claim::Assertion.describe(),
                            Violation::Runtime(e) => Claim::Runtime(e).describe(),
                        },
                        expected()
                    ))
                }
                None => {
                    return Err(format!(
                        "the last step of the path ({} step{}) shows no error, not {}",
                        path.choices.len(),
                        if path.choices.len() == 1 { "" } else { "s" },
                        expected()
                    ))
                }
            }
            // the violating step's thread stands at the violating statement
            let at = path.choices.last().and_then(|c| {
                let f = last.threads.get(c.thread as usize)?.stack.top()?;
                Some((f.proc, f.pc))
            });
            let Some((proc, pc)) = at else {
                return Err("the path has no violating step".into());
            };
            let tid = path.choices.last().map_or(0, |c| c.thread as usize);
            let procedure = p.procs[proc as usize].name.clone();
            let (line, column) = line_column(m, proc, pc);
            let verdict = match claim {
                Claim::Runtime(error) => {
                    let statement = statement_text(m, proc, pc);
                    Verdict::RuntimeError {
                        error: *error,
                        message: error.describe().into(),
                        procedure,
                        line,
                        column,
                        values: named_values(m, last, tid, &statement),
                        statement,
                        detail: m.fault(last, tid, *error).map(|f| detail(m, proc, f)),
                    }
                }
                _ => {
                    let span = p.node(proc, pc).span;
                    let text = p
                        .source
                        .text
                        .get(span.start as usize..span.end as usize)
                        .unwrap_or("");
                    let (condition, message) = super::trace::assert_parts(text)
                        .unwrap_or_else(|| (p.describe(proc, pc), String::new()));
                    Verdict::AssertionFailed {
                        procedure,
                        line,
                        column,
                        condition,
                        message,
                    }
                }
            };
            Ok((verdict, None))
        }
        Claim::Deadlock => {
            if replayed.violation.is_some() {
                return Err(format!(
                    "the path ends in a violation, not in {}",
                    expected()
                ));
            }
            if !m.deadlocked(last) {
                return Err(
                    "the last state of the path is not a deadlock: some process can still move"
                        .into(),
                );
            }
            Ok((
                Verdict::Deadlock {
                    blocked: waiting(m, path, last).len() as u32,
                    waiting: waiting(m, path, last),
                },
                None,
            ))
        }
        Claim::Cycle(property, cycle_start, ltl, fair) => {
            let pushdown =
                search::lasso::check(m, path, *cycle_start, *property, ltl.as_deref(), *fair)
                    .map_err(|e| {
                        format!(
                            "the path is not a lasso of a {}: {e}",
                            property.cycle_name()
                        )
                    })?;
            Ok((
                Verdict::LivenessViolated {
                    property: *property,
                    formula: ltl.as_ref().map(|l| l.text.clone()),
                    fairness: fair.then(|| "weak".to_string()),
                    cycle: property.cycle_name().into(),
                    cycle_start: *cycle_start as u64,
                    cycle_length: (path.choices.len() - cycle_start) as u64,
                    pushdown,
                },
                None,
            ))
        }
        Claim::Target(label) => {
            if replayed.violation.is_some() {
                return Err(format!(
                    "the path ends in a violation, not in {}",
                    expected()
                ));
            }
            let at = last.threads.iter().enumerate().find_map(|(i, t)| {
                let f = t.stack.top()?;
                let node = p.node(f.proc, f.pc);
                node.labels.iter().any(|l| l == label).then_some((i, f))
            });
            let Some((tid, frame)) = at else {
                return Err(format!(
                    "no process stands at label {label} in the last state of the path"
                ));
            };
            let (line, column) = line_column(m, frame.proc, frame.pc);
            Ok((
                Verdict::TargetReached {
                    label: label.clone(),
                    procedure: p.procs[frame.proc as usize].name.clone(),
                    line,
                    column,
                },
                Some(tid as u32),
            ))
        }
    }
}

/// Where each blocked process of a deadlocked state waits (completed processes are not
/// blocked and are left out), in process order, each numbered as the trace numbers it.
fn waiting(m: &Machine, path: &Path, s: &crate::runtime::State) -> Vec<Waiting> {
    let p = m.program;
    let ids = trace_ids(m, path).filter(|ids| ids.len() == s.threads.len());
    s.threads
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let f = t.stack.top()?;
            let statement = statement_text(m, f.proc, f.pc);
            let (line, column) = line_column(m, f.proc, f.pc);
            Some(Waiting {
                process: ids.as_ref().map_or(i as u32, |ids| ids[i]),
                procedure: p.procs[f.proc as usize].name.clone(),
                line,
                column,
                statement,
            })
        })
        .collect()
}

/// The number the trace gives each thread of the path's last state: threads keep their
/// number when others end (a boolean program's ended thread leaves the thread list), and new
/// ones are numbered on (as `trace::next_names` does). `None` if the path does not replay.
fn trace_ids(m: &Machine, path: &Path) -> Option<Vec<u32>> {
    let mut r = search::Replayer::start(m, path.init.clone(), false).ok()?;
    let mut ids: Vec<u32> = (0..r.state().threads.len() as u32).collect();
    let mut next = ids.len() as u32;
    for c in &path.choices {
        let before = r.state().threads.len();
        r.choose(c.thread, c.outcome).ok()?;
        let after = r.state().threads.len();
        if after < before && (c.thread as usize) < ids.len() {
            ids.remove(c.thread as usize);
        }
        while ids.len() < after {
            ids.push(next);
            next += 1;
        }
    }
    Some(ids)
}

/// The 1-based line and column (in characters, as editors count) of a node's statement.
fn line_column(m: &Machine, proc: u32, pc: u32) -> (u32, u32) {
    let src = &m.program.source;
    let start = m.program.node(proc, pc).span.start;
    let (line, byte_col) = src.line_col(start);
    let line_start = (start - (byte_col - 1)) as usize;
    let column = src
        .text
        .get(line_start..start as usize)
        .map_or(byte_col, |t| t.chars().count() as u32 + 1);
    (line, column)
}

/// A statement's source text, whitespace collapsed (the IR's description where it has none).
fn statement_text(m: &Machine, proc: u32, pc: u32) -> String {
    let p = m.program;
    match p.source.snippet(p.node(proc, pc).span) {
        "" => p.describe(proc, pc),
        s => s.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// The values, in state `s`, of the variables of thread `tid`'s running frame (its locals,
/// then the globals) whose names occur as words in `statement`: the operands a runtime error
/// involves (the null reference, the index, the operands that overflowed).
fn named_values(
    m: &Machine,
    s: &crate::runtime::State,
    tid: usize,
    statement: &str,
) -> Vec<super::Binding> {
    let p = m.program;
    let words: std::collections::BTreeSet<&str> = statement
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .collect();
    let Some(frame) = s.threads.get(tid).and_then(|t| t.stack.top()) else {
        return Vec::new();
    };
    let proc = &p.procs[frame.proc as usize];
    let mut out: Vec<super::Binding> = proc
        .locals
        .iter()
        .zip(frame.locals.iter())
        .filter(|(l, _)| words.contains(l.name.as_str()))
        .map(|(l, v)| super::Binding {
            name: l.name.clone(),
            value: super::trace::term(m, s, *v, Some(l.ty)),
        })
        .collect();
    for (g, v) in p.globals.iter().zip(m.global_values(s, Some(tid))) {
        // a global's short name (`x` of `Main.x`) is how a statement writes it
        let short = g.name.rsplit('.').next().unwrap_or(&g.name);
        let hidden = proc
            .locals
            .iter()
            .any(|l| l.name == short || l.name == g.name);
        if !hidden && (words.contains(short) || words.contains(g.name.as_str())) {
            out.push(super::Binding {
                name: g.name.clone(),
                value: super::trace::term(m, s, v, Some(g.ty)),
            });
        }
    }
    out
}

/// A fault's expressions as source-level text of procedure `proc`.
fn detail(m: &Machine, proc: u32, f: Fault) -> ErrorDetail {
    let show = |e: &zingrs_lang::ir::Expr| m.program.show(proc, e).to_string();
    match f {
        Fault::Index {
            array,
            index,
            value,
            length,
        } => ErrorDetail::Index {
            array: show(&array),
            index: show(&index),
            value,
            length,
        },
        Fault::Overflow {
            expr,
            op,
            lhs,
            rhs,
            result,
            range,
        } => ErrorDetail::Overflow {
            expression: show(&expr),
            operator: op.symbol().into(),
            operands: vec![lhs, rhs],
            result,
            min: range.0,
            max: range.1,
        },
        Fault::Unary {
            expr,
            negate,
            operand,
            range,
        } => ErrorDetail::Overflow {
            expression: show(&expr),
            operator: if negate { "negation" } else { "conversion" }.into(),
            operands: vec![operand],
            result: if negate { -operand } else { operand },
            min: range.0,
            max: range.1,
        },
        Fault::DivideByZero { expr, op, lhs } => ErrorDetail::DivideByZero {
            expression: show(&expr),
            operator: op.symbol().into(),
            operands: vec![lhs, 0],
        },
        Fault::Length { expr, value, max } => ErrorDetail::Length {
            expression: show(&expr),
            value,
            max,
        },
        Fault::Null { reference, access } => {
            let p = &m.program;
            let field = |f: u32| {
                p.class_of(proc, &reference)
                    .and_then(|c| p.classes.get(c as usize)?.fields.get(f as usize))
                    .map_or_else(|| format!("#{f}"), |v| v.name.clone())
            };
            let (access, field) = match access {
                Access::Read(f) => ("read-field", Some(field(f))),
                Access::Write(f) => ("write-field", Some(field(f))),
                Access::Element => ("element", None),
                Access::Size => ("size", None),
                Access::Membership => ("membership", None),
                Access::SetUpdate => ("set-update", None),
                Access::Send => ("send", None),
                Access::Receive => ("receive", None),
                Access::Choose => ("choose", None),
                Access::Call => ("call", None),
            };
            ErrorDetail::NullReference {
                reference: show(&reference),
                access,
                field,
            }
        }
    }
}
