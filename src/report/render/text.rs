//! The text format: the verdict, where it happened (`FILE:LINE:COL`), the counterexample step
//! by step with repeated loop iterations folded, and the statistics.

use super::{cut, depth_line, detail_text, header, stats_line, values, TraceDetail};
use crate::report::fold::{Fold, Item};
use crate::report::{Report, Shows, Stats, Trace, TraceStep, Verdict};
use std::fmt::Write as _;

/// The deepest call level the text trace indents to; deeper steps show their depth instead.
const MAX_INDENT: u32 = 20;

/// A step's procedure column: indented by call depth, up to [`MAX_INDENT`] levels.
fn who(s: &TraceStep) -> String {
    let level = s.depth.saturating_sub(1);
    if level <= MAX_INDENT {
        format!("{}{}", "  ".repeat(level as usize), s.procedure)
    } else {
        format!(
            "{}[{}] {}",
            "  ".repeat(MAX_INDENT as usize),
            s.depth,
            s.procedure
        )
    }
}

/// The first step of a lasso's cycle (`--liveness`), where the trace marks it, and whether
/// the cycle is a pushdown one (it comes back deeper in calls, not to its whole state).
fn cycle_start(v: &Verdict) -> Option<(usize, bool)> {
    match v {
        Verdict::LivenessViolated {
            cycle_start,
            pushdown,
            ..
        } => Some((*cycle_start as usize, *pushdown)),
        _ => None,
    }
}

fn text_trace(
    out: &mut dyn std::io::Write,
    file: &str,
    t: &Trace,
    detail: TraceDetail,
    cycle: Option<(usize, bool)>,
) -> std::io::Result<()> {
    let mut cycle = cycle;
    let concurrent = t.threads > 1;
    // the columns' widths: a first walk over where the steps are
    let (mut width, mut stmt_width, mut at_width) = (0, 0, 0);
    for s in t.steps(Shows::WHERE) {
        width = width.max(who(&s).chars().count());
        stmt_width = stmt_width.max(s.statement.chars().count());
        at_width = at_width.max(file.len() + 1 + s.line.to_string().len());
    }
    let (width, stmt_width) = (width.min(100), stmt_width.min(40));
    // the step column is as wide as the largest step number, so that it never runs into the
    // procedure column
    let step_width = t.len().saturating_sub(1).to_string().len().max(3);
    let shows = Shows {
        values: detail == TraceDetail::Full,
        changed: matches!(detail, TraceDetail::Full | TraceDetail::Changes),
    };
    let mut line = String::new();
    for item in Fold::new(t.steps(shows)) {
        let s = match item {
            Item::Step(s) => s,
            Item::Fold {
                iterations,
                lines: (lo, hi),
                ..
            } => {
                let lines = if lo == hi {
                    format!("line {lo}")
                } else {
                    format!("lines {lo}–{hi}")
                };
                writeln!(
                    out,
                    "  … {} more iteration{} of {lines} …",
                    thousands(iterations),
                    if iterations == 1 { "" } else { "s" }
                )?;
                continue;
            }
        };
        line.clear();
        if let Some((start, pushdown)) = cycle.filter(|&(c, _)| s.step >= c) {
            // (a fold may have taken the first step of the cycle: the mark goes before the
            // next step shown)
            let _ = match pushdown {
                false => writeln!(
                    line,
                    "  ── cycle: the steps from here on lead back to the state before #{start} and repeat forever ──"
                ),
                true => writeln!(
                    line,
                    "  ── cycle: the steps from here on lead back to the globals and the frame of the state before #{start}, with the calls they made still open below that frame, and repeat forever, ever deeper ──"
                ),
            };
            cycle = None;
        }
        let who = who(&s);
        let _ = write!(line, "  #{:<step_width$} ", s.step);
        if concurrent {
            let _ = write!(line, "t{:<3}", s.thread);
        }
        let at = format!("{file}:{}", s.line);
        let _ = write!(
            line,
            "{who:<width$}  {at:<at_width$}  {:<stmt_width$}",
            s.statement
        );
        if shows.values && !s.values.is_empty() {
            let _ = write!(line, "  [{}]", values(&s));
        }
        line.truncate(line.trim_end().len());
        line.push('\n');
        if shows.changed && !s.changed.is_empty() {
            let changed: Vec<String> = s
                .changed
                .iter()
                .map(|b| format!("{} = {}", b.name, b.value))
                .collect();
            let _ = writeln!(line, "       changed: {}", changed.join(", "));
        }
        out.write_all(line.as_bytes())?;
    }
    if cycle.is_some() {
        // an LTL run that ends: no step repeats, its last state does
        writeln!(
            out,
            "  ── the run ends here: no thread can move, and its last state repeats forever ──"
        )?;
    }
    cut(out, t)
}

/// `n` with a comma between groups of three digits.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Where the error is, in the `FILE:LINE:COL: message` form that editors jump to: one line,
/// or for a deadlock one per blocked process.
fn location_lines(out: &mut String, file: &str, v: &Verdict) {
    match v {
        Verdict::AssertionFailed {
            procedure,
            line,
            column,
            condition,
            message,
        } => {
            let _ = write!(
                out,
                "{file}:{line}:{column}: assertion `{condition}` failed"
            );
            if !message.is_empty() {
                let _ = write!(out, ": {message}");
            }
            let _ = writeln!(out, " (in {procedure})");
        }
        Verdict::TargetReached {
            label,
            procedure,
            line,
            column,
        } => {
            let _ = writeln!(
                out,
                "{file}:{line}:{column}: label {label} reached (in {procedure})"
            );
        }
        Verdict::RuntimeError {
            message,
            procedure,
            line,
            column,
            statement,
            values,
            detail,
            ..
        } => {
            let _ = write!(out, "{file}:{line}:{column}: {message} in `{statement}`");
            if !values.is_empty() {
                let shown: Vec<String> = values
                    .iter()
                    .map(|b| format!("{} = {}", b.name, b.value))
                    .collect();
                let _ = write!(out, " with {}", shown.join(", "));
            }
            if let Some(d) = detail {
                let _ = write!(out, ": {}", detail_text(d));
            }
            let _ = writeln!(out, " (in {procedure})");
        }
        Verdict::Deadlock { waiting, .. } => {
            for w in waiting {
                let _ = writeln!(
                    out,
                    "{file}:{}:{}: process {} waits in {}: {}",
                    w.line, w.column, w.process, w.procedure, w.statement
                );
            }
        }
        _ => {}
    }
}

pub(super) fn text(
    w: &mut dyn std::io::Write,
    r: &Report,
    detail: TraceDetail,
    stats: bool,
    quiet: bool,
    with_header: bool,
) -> std::io::Result<()> {
    let mut out = String::new();
    if quiet {
        let _ = writeln!(out, "{}", r.headline());
        if stats {
            engines_table(&mut out, r);
            stats_block(&mut out, r);
        }
        return w.write_all(out.as_bytes());
    }
    if with_header {
        out.push_str(&header(&r.model, &r.engine, None));
    }
    let file = r.model.rsplit('/').next().unwrap_or(&r.model);
    let _ = writeln!(out, "{}", r.headline());
    // the model as given, so that an editor finds it from where zingrs ran
    location_lines(&mut out, &r.model, &r.verdict);
    if let (Some(t), false) = (&r.trace, detail == TraceDetail::None) {
        let _ = writeln!(out, "Counterexample ({} steps):", t.len());
        w.write_all(out.as_bytes())?;
        out.clear();
        text_trace(w, file, t, detail, cycle_start(&r.verdict))?;
    }
    for f in &r.more {
        let _ = writeln!(out, "Also: {}", f.verdict.headline());
        location_lines(&mut out, &r.model, &f.verdict);
        if let (Some(t), false) = (&f.trace, detail == TraceDetail::None) {
            w.write_all(out.as_bytes())?;
            out.clear();
            text_trace(w, file, t, detail, cycle_start(&f.verdict))?;
        }
    }
    engines_table(&mut out, r);
    properties_table(&mut out, r);
    coverage_lines(&mut out, r);
    if stats {
        stats_block(&mut out, r);
    } else if r.stats != Stats::default() {
        // (a replayed report has measured nothing)
        let s = &r.stats;
        let transitions = s.transitions.map_or("transitions not counted".into(), |t| {
            format!("{t} transitions")
        });
        let _ = writeln!(
            out,
            "{} distinct states, {transitions}, {:.3} s",
            s.states, s.seconds
        );
    }
    w.write_all(out.as_bytes())
}

/// `--coverage`: how many statements ran, and those a complete check never ran, by
/// procedure.
fn coverage_lines(out: &mut String, r: &Report) {
    let Some(c) = &r.coverage else {
        return;
    };
    let file = r.model.rsplit('/').next().unwrap_or(&r.model);
    if !c.complete {
        let _ = writeln!(
            out,
            "Coverage: {} of {} statements ran; the search did not complete, so those it did not run are not listed",
            c.reached, c.statements
        );
        return;
    }
    let _ = writeln!(
        out,
        "Coverage: {} of {} statements ran; {} never did{}",
        c.reached,
        c.statements,
        c.unreached.len(),
        if c.unreached.is_empty() { "" } else { ":" }
    );
    let mut last: Option<&str> = None;
    for u in &c.unreached {
        if last != Some(u.procedure.as_str()) {
            let _ = writeln!(out, "  unreached in {}:", u.procedure);
            last = Some(&u.procedure);
        }
        let _ = writeln!(out, "    {file}:{}:{}  {}", u.line, u.column, u.statement);
    }
}

/// `--keep-going`'s table: each property's id, status and place.
fn properties_table(out: &mut String, r: &Report) {
    if r.properties.is_empty() {
        return;
    }
    let file = r.model.rsplit('/').next().unwrap_or(&r.model);
    let _ = writeln!(out, "Properties:");
    let id_w = r.properties.iter().map(|p| p.id.len()).max().unwrap_or(0);
    let status_w = r
        .properties
        .iter()
        .map(|p| p.status.len())
        .max()
        .unwrap_or(0);
    for p in &r.properties {
        let place = if p.line > 0 {
            format!("{file}:{}:{}", p.line, p.column)
        } else {
            String::new()
        };
        let line = format!("  {:<id_w$}  {:<status_w$}  {place}", p.id, p.status);
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// `--engine all`'s table: one line per engine that ran, its verdict, its counterexample's
/// length or the limit that stopped it, its time and states; `*` marks the answer reported.
fn engines_table(out: &mut String, r: &Report) {
    if r.engines.is_empty() {
        return;
    }
    let _ = writeln!(out, "Engines (* the answer reported):");
    let name_w = r.engines.iter().map(|e| e.engine.len()).max().unwrap_or(0);
    let verdict_w = r.engines.iter().map(|e| e.verdict.len()).max().unwrap_or(0);
    let details: Vec<String> = r
        .engines
        .iter()
        .map(|e| match (&e.steps, &e.limit) {
            (Some(n), _) => format!("{} steps", thousands(*n as usize)),
            (None, Some(l)) => l.clone(),
            (None, None) => String::new(),
        })
        .collect();
    let detail_w = details.iter().map(|d| d.chars().count()).max().unwrap_or(0);
    for (e, d) in r.engines.iter().zip(&details) {
        let mut line = format!(
            "  {} {:<name_w$}  {:<verdict_w$}  {:<detail_w$}  {:>9.3} s  {:>12} states",
            if e.reported { '*' } else { ' ' },
            e.engine,
            e.verdict,
            d,
            e.seconds,
            thousands(e.states as usize),
        );
        line.truncate(line.trim_end().len());
        let _ = writeln!(out, "{line}");
    }
}

/// The statistics of `--stats`.
fn stats_block(out: &mut String, r: &Report) {
    {
        let _ = writeln!(out, "{}", stats_line(r));
        if let Some(l) = depth_line(r) {
            let _ = writeln!(out, "{l}");
        }
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
    }
}
