//! The output formats.

use super::{Report, Trace, Verdict};
use std::fmt::Write;

/// How to print a report (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Bebop,
}

/// How much of a counterexample to print (`--trace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceDetail {
    /// Every step with the values in scope.
    Full,
    /// Every step, without values.
    Short,
    None,
}

/// Renders a report. `stats` adds the statistics block; `quiet` keeps only the verdict line.
pub fn render(r: &Report, format: Format, detail: TraceDetail, stats: bool, quiet: bool) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(r)
                .unwrap_or_else(|e| format!("{{\"error\": \"cannot serialize the report: {e}\"}}"));
            s.push('\n');
            s
        }
        Format::Bebop => bebop(r, detail, stats),
        Format::Text => text(r, detail, stats, quiet),
    }
}

fn values(step: &super::TraceStep) -> String {
    step.values
        .iter()
        .map(|b| format!("{}={}", b.name, b.value))
        .collect::<Vec<_>>()
        .join(" ")
}

fn text_trace(out: &mut String, file: &str, t: &Trace, detail: TraceDetail) {
    let concurrent = t.threads > 1;
    let width = t
        .steps
        .iter()
        .map(|s| 2 * s.depth.saturating_sub(1) as usize + s.procedure.len())
        .max()
        .unwrap_or(0);
    let stmt_width = t
        .steps
        .iter()
        .map(|s| s.statement.chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    let at_width = t
        .steps
        .iter()
        .map(|s| file.len() + 1 + s.line.to_string().len())
        .max()
        .unwrap_or(0);
    for s in &t.steps {
        let who = format!(
            "{}{}",
            "  ".repeat(s.depth.saturating_sub(1) as usize),
            s.procedure
        );
        let _ = write!(out, "  #{:<4}", s.step);
        if concurrent {
            let _ = write!(out, "t{:<3}", s.thread);
        }
        let at = format!("{file}:{}", s.line);
        let _ = write!(
            out,
            "{who:<width$}  {at:<at_width$}  {:<stmt_width$}",
            s.statement
        );
        if detail == TraceDetail::Full && !s.values.is_empty() {
            let _ = write!(out, "  [{}]", values(s));
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
}

fn stats_line(r: &Report) -> String {
    let s = &r.stats;
    let mut line = format!(
        "{} distinct states, {} transitions, {} initial states, max stack depth {}, {:.3} s",
        s.states, s.transitions, s.initial_states, s.max_stack_depth, s.seconds
    );
    if let Some(b) = s.peak_memory_bytes {
        let _ = write!(line, ", {:.1} MB peak", b as f64 / 1e6);
    }
    for c in &s.counters {
        let _ = write!(line, ", {} {}", c.value, c.name);
    }
    line
}

fn text(r: &Report, detail: TraceDetail, stats: bool, quiet: bool) -> String {
    let mut out = String::new();
    if quiet {
        let _ = writeln!(out, "{}", r.verdict.headline());
        return out;
    }
    let _ = writeln!(
        out,
        "{}: checking {} with the {} engine",
        r.tool, r.model, r.engine
    );
    let file = r.model.rsplit('/').next().unwrap_or(&r.model);
    let _ = writeln!(out, "{}", r.verdict.headline());
    if let (Some(t), false) = (&r.trace, detail == TraceDetail::None) {
        let _ = writeln!(out, "Counterexample ({} steps):", t.steps.len());
        text_trace(&mut out, file, t, detail);
    }
    for f in &r.more {
        let _ = writeln!(out, "Also: {}", f.verdict.headline());
        if let (Some(t), false) = (&f.trace, detail == TraceDetail::None) {
            text_trace(&mut out, file, t, detail);
        }
    }
    if stats {
        let _ = writeln!(out, "{}", stats_line(r));
        let _ = writeln!(
            out,
            "max search depth {}, hash-compaction omission probability <= {:.1e}",
            r.stats.max_search_depth, r.stats.omission_probability
        );
        if !r.stats.summaries.is_empty() {
            let per: Vec<String> = r
                .stats
                .summaries
                .iter()
                .map(|p| {
                    format!(
                        "{}: {} pattern{}, {} effect{}",
                        p.procedure,
                        p.patterns,
                        if p.patterns == 1 { "" } else { "s" },
                        p.effects,
                        if p.effects == 1 { "" } else { "s" }
                    )
                })
                .collect();
            let _ = writeln!(out, "summaries: {}", per.join("; "));
        }
    } else {
        let s = &r.stats;
        let _ = writeln!(
            out,
            "{} distinct states, {} transitions, {:.3} s",
            s.states, s.transitions, s.seconds
        );
    }
    out
}

/// Bebop's layout (seed 001, Figure 1): the label, then one line per step in reverse
/// execution order, indented by call depth, each with the values in scope before the line.
fn bebop(r: &Report, detail: TraceDetail, stats: bool) -> String {
    let mut out = String::new();
    let head = match &r.verdict {
        Verdict::TargetReached { label, .. } => {
            format!("Label {label} reachable by following path:")
        }
        Verdict::AssertionFailed { .. } => {
            "Assertion violation reachable by following path:".into()
        }
        v => v.headline(),
    };
    let _ = writeln!(out, "{head}");
    if let (Some(t), false) = (&r.trace, detail == TraceDetail::None) {
        for s in t.steps.iter().rev() {
            let indent = "  ".repeat(s.depth.saturating_sub(1) as usize);
            let _ = write!(out, "{indent}Line {}", s.line);
            if detail == TraceDetail::Full {
                let _ = write!(out, " State {}", values(s));
            }
            out.push('\n');
        }
    }
    if stats {
        let _ = writeln!(out, "{}", stats_line(r));
    }
    out
}
