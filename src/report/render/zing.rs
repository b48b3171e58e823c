//! The ZING format: ZING's verdict banners, error traces of every state and its count of
//! states, so that output can be compared with the ZING model checker's.

use super::{cut, stats_line, TraceDetail};
use crate::report::{Report, Trace, Verdict, ZingTrace};
use crate::runtime::RtError;

const ZING_HASHES: &str = "##################";

/// The banner word of a verdict in ZING's output, and the line after the banner if any.
fn zing_banner(v: &Verdict) -> (&'static str, Option<String>) {
    match v {
        Verdict::Passed => ("Check Passed", None),
        Verdict::AssertionFailed { .. } | Verdict::TargetReached { .. } => ("Check Failed", None),
        Verdict::Deadlock { .. } => ("Deadlock Detected !", None),
        // ZING's banner for -ndfsliveness; zingrs's other cycles say what they are
        Verdict::LivenessViolated { .. } => ("Accepting Cycle Found", Some(v.headline())),
        Verdict::RuntimeError { .. } => ("Program Runtime Error", None),
        Verdict::InternalError { message } => {
            ("Zinger Internal Runtime Exception", Some(message.clone()))
        }
        // ZING's DFS stack overflow; zingrs's stack-depth bound is the nearest thing
        Verdict::Bounded { bound } => {
            let depth = bound
                .strip_prefix("stack-depth bound (--max-depth ")
                .and_then(|r| r.strip_suffix(')'));
            match depth {
                Some(d) => ("Check Failed", Some(format!("DFS Stack Size Exceeded {d}"))),
                // a context, thread, preemption or delay bound: no error found within it,
                // which is neither ZING's pass nor its failure
                None => ("Search Bound Reached", Some(v.headline())),
            }
        }
        // ZING stops at its time limit; zingrs says which limit
        Verdict::LimitReached { .. } => ("Search Limit Reached", Some(v.headline())),
    }
}

/// The message ZING prints for a runtime error (zing-language.md §7.1).
#[allow(unreachable_patterns)]
fn zing_runtime_message(e: &RtError) -> Vec<String> {
    let one = |s: &str| vec![s.to_string()];
    match e {
        RtError::NullDereference => one("A Zing null pointer was dereferenced."),
        RtError::IndexOutOfRange => one("Invalid index in a Zing array reference."),
        RtError::ArithmeticOverflow => one("Arithmetic overflow in a Zing expression."),
        RtError::DivideByZero => one("Divide by zero in a Zing expression."),
        RtError::InvalidChoose => one("A choose operator was executed with no choices possible."),
        RtError::InvalidBlockingSelect => vec![
            "A blocking select was reached in the middle of an atomic region: a process may block only at the start of an atomic block.".into(),
            "In cooperative mode a blocking select must be preceded by a yield.".into(),
        ],
        RtError::UnhandledException => one("ZingUnhandledException"),
        RtError::InfiniteLoop => one(
            "The model appears to be in an infinite loop inside an atomic block (over 1,000,000 steps without leaving it, or --max-atomic-steps).",
        ),
        other => one(other.describe()),
    }
}

/// The lines after `Error in state:`.
fn zing_error_message(v: &Verdict, z: &ZingTrace) -> Vec<String> {
    match v {
        Verdict::AssertionFailed { .. } => {
            let (expr, comment) = z.assertion.clone().unwrap_or_default();
            vec![
                "Zing Assertion failed:".into(),
                format!("    Expression: {expr}"),
                format!("    Comment: {comment}"),
            ]
        }
        Verdict::TargetReached { label, .. } => vec![format!("Label {label} reached.")],
        Verdict::RuntimeError { error, .. } => zing_runtime_message(error),
        Verdict::Deadlock { .. } => vec![
            "Deadlock: no processes are runnable and one or more processes is blocked in an invalid end state".into(),
        ],
        other => vec![other.headline()],
    }
}

/// One error trace: asterisks, length, every state, the error and the stack trace.
fn zing_error_trace(
    out: &mut dyn std::io::Write,
    k: usize,
    v: &Verdict,
    t: &Trace,
    z: &ZingTrace,
    detail: TraceDetail,
) -> std::io::Result<()> {
    writeln!(out, " {}", "*".repeat(79))?;
    writeln!(out, " Error trace {k}: length: {} states", t.zing_len())?;
    let full = detail == TraceDetail::Full;
    for (j, s) in t.zing_states(full).enumerate() {
        match (s.took, s.ran) {
            (Some(c), _) => writeln!(out, "#### State {j} (took choice {c}) :")?,
            (None, Some(p)) => writeln!(out, "#### State {j} (ran process {p}) :")?,
            (None, None) => writeln!(out, "#### State {j} :")?,
        }
        if full {
            for l in &s.dump {
                writeln!(out, "{l}")?;
            }
        }
    }
    cut(out, t)?;
    writeln!(out)?;
    writeln!(out, "Error in state:")?;
    for l in zing_error_message(v, z) {
        writeln!(out, "{l}")?;
    }
    if !matches!(v, Verdict::Deadlock { .. }) {
        writeln!(out)?;
        writeln!(out)?;
        writeln!(out, "Stack trace:")?;
        for (procedure, line) in &z.stack {
            writeln!(out, "    {procedure} ({}, Line {line})", z.file)?;
        }
    }
    writeln!(out)?;
    writeln!(out)
}

/// ZING's layout (`-entireZingTrace`, zing-language.md §8): the verdict banner, then per error a
/// trace of every state, the error and its stack trace, and last the count of states.
pub(super) fn zing(
    out: &mut dyn std::io::Write,
    r: &Report,
    detail: TraceDetail,
    stats: bool,
) -> std::io::Result<()> {
    let (word, after) = zing_banner(&r.verdict);
    // (the report's own headline: random walks cut by a limit say so)
    let after = match r.verdict {
        Verdict::LimitReached { .. } => Some(r.headline()),
        _ => after,
    };
    writeln!(out, "{ZING_HASHES}\n{word}\n{ZING_HASHES}")?;
    if let Some(l) = after {
        writeln!(out, "{l}")?;
    }
    if detail != TraceDetail::None {
        let findings = std::iter::once((&r.verdict, &r.trace))
            .chain(r.more.iter().map(|f| (&f.verdict, &f.trace)));
        for (k, (v, t)) in findings.enumerate() {
            if let Some((t, z)) = t.as_ref().and_then(|t| Some((t, t.zing.as_ref()?))) {
                zing_error_trace(out, k, v, t, z, detail)?;
            }
        }
    }
    if stats {
        writeln!(out, "{}", stats_line(r))?;
    }
    let n = r.stats.zing_states.unwrap_or(r.stats.states);
    writeln!(out, "{n} distinct states explored")
}

#[cfg(test)]
mod tests {
    use super::super::{render, Format};
    use super::*;
    use crate::report::{Stats, ZingState};

    #[test]
    fn zing_passed_is_the_banner_and_zing_count() {
        let mut r = Report::new("m.zing", "explicit", Verdict::Passed, None);
        r.stats = Stats {
            states: 7,
            zing_states: Some(41),
            ..Stats::default()
        };
        assert_eq!(
            render(&r, Format::Zing, TraceDetail::Full, false, false),
            "##################\nCheck Passed\n##################\n41 distinct states explored\n"
        );
        r.stats.zing_states = None;
        assert!(render(&r, Format::Zing, TraceDetail::Full, false, false)
            .ends_with("\n7 distinct states explored\n"));
    }

    #[test]
    fn zing_assertion_layout() {
        let z = ZingTrace {
            file: "counter.zing".into(),
            stack: vec![("Counter.Bump".into(), 12), ("Counter.Run".into(), 20)],
            assertion: Some(("total == 2".into(), "lost update".into())),
        };
        let states = vec![
            ZingState {
                ran: None,
                took: None,
                dump: vec!["  dump 0".into()],
            },
            ZingState {
                ran: Some(2),
                took: None,
                dump: vec!["  dump 1".into()],
            },
        ];
        let trace = Trace::listed(3, Vec::new(), states, Some(z));
        let v = Verdict::AssertionFailed {
            procedure: "Counter.Bump".into(),
            line: 12,
            column: 9,
            condition: "count == 1".into(),
            message: String::new(),
        };
        let mut r = Report::new("counter.zing", "explicit", v, Some(trace));
        r.stats.states = 41;
        let expected = format!(
            "##################\nCheck Failed\n##################\n {}\n Error trace 0: length: 2 states\n\
             #### State 0 :\n  dump 0\n#### State 1 (ran process 2) :\n  dump 1\n\n\
             Error in state:\nZing Assertion failed:\n    Expression: total == 2\n    Comment: lost update\n\n\n\
             Stack trace:\n    Counter.Bump (counter.zing, Line 12)\n    Counter.Run (counter.zing, Line 20)\n\n\n\
             41 distinct states explored\n",
            "*".repeat(79)
        );
        assert_eq!(
            render(&r, Format::Zing, TraceDetail::Full, false, false),
            expected
        );
        // short: the state headers without their dumps
        let short = render(&r, Format::Zing, TraceDetail::Short, false, false);
        assert!(short.contains("#### State 0 :\n#### State 1 (ran process 2) :\n\n"));
    }

    #[test]
    fn zing_banners() {
        let banner = |v: Verdict| zing_banner(&v);
        assert_eq!(
            banner(Verdict::Deadlock {
                blocked: 2,
                waiting: Vec::new()
            })
            .0,
            "Deadlock Detected !"
        );
        assert_eq!(
            banner(Verdict::Bounded {
                bound: "stack-depth bound (--max-depth 50)".into()
            }),
            ("Check Failed", Some("DFS Stack Size Exceeded 50".into()))
        );
        // another bound cut a search that found nothing: neither ZING's pass nor its failure
        let bounded = banner(Verdict::Bounded {
            bound: "preemption bound (--preemptions 0)".into(),
        });
        assert_eq!(bounded.0, "Search Bound Reached");
        assert!(bounded.1.is_some_and(|l| l.contains("--preemptions 0")));
        assert_eq!(
            banner(Verdict::InternalError {
                message: "oops".into()
            }),
            ("Zinger Internal Runtime Exception", Some("oops".into()))
        );
    }
}
