//! The Bebop format: the counterexample's lines in reverse order, indented by call depth.

use super::{cut, detail_text, stats_line, values, TraceDetail};
use crate::report::{Report, Shows, Verdict};
use std::fmt::Write as _;

/// Bebop's layout (seed 001, Figure 1): the label, then one line per step in reverse
/// execution order, indented by call depth, each with the values in scope before the line.
/// Bebop had no threads; a trace of several names the thread of each step (`Thread 1 Line 17`).
pub(super) fn bebop(
    out: &mut dyn std::io::Write,
    r: &Report,
    detail: TraceDetail,
    stats: bool,
) -> std::io::Result<()> {
    let head = match &r.verdict {
        Verdict::TargetReached { label, .. } => {
            format!("Label {label} reachable by following path:")
        }
        Verdict::AssertionFailed { .. } => {
            "Assertion violation reachable by following path:".into()
        }
        _ => r.headline(),
    };
    writeln!(out, "{head}")?;
    if let Verdict::RuntimeError {
        detail: Some(d), ..
    } = &r.verdict
    {
        writeln!(out, "{}", detail_text(d))?;
    }
    if let (Some(t), false) = (&r.trace, detail == TraceDetail::None) {
        let threads = t.threads > 1;
        let full = detail == TraceDetail::Full;
        let shows = Shows {
            values: full,
            changed: false,
        };
        let mut line = String::new();
        for s in t.steps_rev(shows) {
            line.clear();
            // Bebop indents by call depth; past 200 levels the indentation stops growing so
            // that a trace 100,000 calls deep stays printable
            for _ in 0..s.depth.saturating_sub(1).min(200) {
                line.push_str("  ");
            }
            if threads {
                let _ = write!(line, "Thread {} ", s.thread);
            }
            let _ = write!(line, "Line {}", s.line);
            if full {
                let _ = write!(line, " State {}", values(&s));
            }
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        cut(out, t)?;
    }
    if stats {
        writeln!(out, "{}", stats_line(r))?;
    }
    Ok(())
}
