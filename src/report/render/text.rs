//! The text format: the verdict, where it happened (`FILE:LINE:COL`), the counterexample step
//! by step with repeated loop iterations folded, and the statistics.

use super::{cut, depth_line, detail_text, header, stats_line, values, TraceDetail};
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

fn text_trace(
    out: &mut dyn std::io::Write,
    file: &str,
    t: &Trace,
    detail: TraceDetail,
) -> std::io::Result<()> {
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
    cut(out, t)
}

/// A line of the text trace: a step, or a run of iterations of a loop left out.
enum Item {
    Step(TraceStep),
    Fold {
        iterations: usize,
        lines: (u32, u32),
    },
}

/// The longest loop body (in steps) that [`Fold`] recognizes.
const MAX_PERIOD: usize = 32;
/// Folding starts at this many back-to-back iterations: the first two and the last are shown.
const MIN_ITERATIONS: usize = 5;

/// The steps of a text trace with consecutive repetitions of the same loop iteration folded:
/// a run of at least [`MIN_ITERATIONS`] repetitions of the same sequence of (thread, depth,
/// procedure, line) shows its first two iterations and its last, and one line for the rest
/// (only in text: JSON keeps every step). It reads the steps as they come, holding a window
/// of `MAX_PERIOD * MIN_ITERATIONS` of them, the two first and the latest iteration of a run.
struct Fold<I: Iterator<Item = TraceStep>> {
    steps: I,
    /// Steps read and not yet looked at.
    window: std::collections::VecDeque<TraceStep>,
    /// Lines ready to give.
    ready: std::collections::VecDeque<Item>,
}

impl<I: Iterator<Item = TraceStep>> Fold<I> {
    fn new(steps: I) -> Self {
        Fold {
            steps,
            window: std::collections::VecDeque::new(),
            ready: std::collections::VecDeque::new(),
        }
    }

    /// Reads until the window holds `n` steps or the steps end.
    fn fill(&mut self, n: usize) {
        while self.window.len() < n {
            match self.steps.next() {
                Some(s) => self.window.push_back(s),
                None => break,
            }
        }
    }
}

fn fold_key(s: &TraceStep) -> (u32, u32, u32, &str) {
    (s.thread, s.depth, s.line, s.procedure.as_str())
}

impl<I: Iterator<Item = TraceStep>> Iterator for Fold<I> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if let Some(item) = self.ready.pop_front() {
            return Some(item);
        }
        self.fill(MAX_PERIOD * MIN_ITERATIONS);
        let w = &self.window;
        let n = w.len();
        // the shortest body that repeats at least MIN_ITERATIONS times from here
        let period = (1..=MAX_PERIOD.min(n / MIN_ITERATIONS)).find(|&p| {
            (1..MIN_ITERATIONS).all(|k| (0..p).all(|j| fold_key(&w[j]) == fold_key(&w[k * p + j])))
        });
        let Some(p) = period else {
            return self.window.pop_front().map(Item::Step);
        };
        let body: Vec<TraceStep> = self.window.drain(..p).collect();
        let second: Vec<TraceStep> = self.window.drain(..p).collect();
        let mut last = Vec::new();
        let mut iterations = 2;
        loop {
            self.fill(p);
            let w = &self.window;
            let again = w.len() >= p && (0..p).all(|j| fold_key(&w[j]) == fold_key(&body[j]));
            if !again {
                break;
            }
            last = self.window.drain(..p).collect();
            iterations += 1;
        }
        let lo = body.iter().map(|s| s.line).min().unwrap_or(0);
        let hi = body.iter().map(|s| s.line).max().unwrap_or(0);
        self.ready.extend(body.into_iter().map(Item::Step));
        self.ready.extend(second.into_iter().map(Item::Step));
        self.ready.push_back(Item::Fold {
            iterations: iterations - 3,
            lines: (lo, hi),
        });
        self.ready.extend(last.into_iter().map(Item::Step));
        self.ready.pop_front()
    }
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
        let _ = writeln!(out, "{}", r.verdict.headline());
        if stats {
            stats_block(&mut out, r);
        }
        return w.write_all(out.as_bytes());
    }
    if with_header {
        out.push_str(&header(&r.model, &r.engine, None));
    }
    let file = r.model.rsplit('/').next().unwrap_or(&r.model);
    let _ = writeln!(out, "{}", r.verdict.headline());
    // the model as given, so that an editor finds it from where zingrs ran
    location_lines(&mut out, &r.model, &r.verdict);
    if let (Some(t), false) = (&r.trace, detail == TraceDetail::None) {
        let _ = writeln!(out, "Counterexample ({} steps):", t.len());
        w.write_all(out.as_bytes())?;
        out.clear();
        text_trace(w, file, t, detail)?;
    }
    for f in &r.more {
        let _ = writeln!(out, "Also: {}", f.verdict.headline());
        location_lines(&mut out, &r.model, &f.verdict);
        if let (Some(t), false) = (&f.trace, detail == TraceDetail::None) {
            w.write_all(out.as_bytes())?;
            out.clear();
            text_trace(w, file, t, detail)?;
        }
    }
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

#[cfg(test)]
mod fold_tests {
    use super::{Fold, Item, MAX_PERIOD, MIN_ITERATIONS};
    use crate::report::TraceStep;

    /// The folding as it was written over a whole list of steps (the oracle the streaming
    /// [`Fold`] must agree with): (is a fold, step index or iterations, lines).
    fn fold_whole(steps: &[TraceStep]) -> Vec<(bool, usize, (u32, u32))> {
        let key = |s: &TraceStep| (s.thread, s.depth, s.line, s.procedure.clone());
        let n = steps.len();
        let mut out = Vec::new();
        let mut i = 0;
        while i < n {
            let mut found = None;
            for p in 1..=MAX_PERIOD.min((n - i) / MIN_ITERATIONS) {
                let same = |a: usize, b: usize| key(&steps[a]) == key(&steps[b]);
                let mut k = 1;
                while i + (k + 1) * p <= n && (0..p).all(|j| same(i + j, i + k * p + j)) {
                    k += 1;
                }
                if k >= MIN_ITERATIONS {
                    found = Some((p, k));
                    break;
                }
            }
            match found {
                Some((p, k)) => {
                    out.extend((i..i + 2 * p).map(|j| (false, steps[j].step, (0, 0))));
                    let body = &steps[i..i + p];
                    let lo = body.iter().map(|s| s.line).min().unwrap_or(0);
                    let hi = body.iter().map(|s| s.line).max().unwrap_or(0);
                    out.push((true, k - 3, (lo, hi)));
                    out.extend(
                        (i + (k - 1) * p..i + k * p).map(|j| (false, steps[j].step, (0, 0))),
                    );
                    i += k * p;
                }
                None => {
                    out.push((false, steps[i].step, (0, 0)));
                    i += 1;
                }
            }
        }
        out
    }

    fn step(i: usize, line: u32, depth: u32) -> TraceStep {
        TraceStep {
            step: i,
            thread: 0,
            depth,
            procedure: "main".into(),
            line,
            statement: String::new(),
            values: Vec::new(),
            changed: Vec::new(),
        }
    }

    #[test]
    fn streamed_folding_agrees_with_folding_the_whole_list() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |k: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % k
        };
        for case in 0..400 {
            // runs of loops of random bodies, repeated a random number of times, between
            // random steps
            let mut lines = Vec::new();
            while lines.len() < 40 + case {
                if next(3) == 0 {
                    lines.push((next(6) as u32, 1 + next(2) as u32));
                } else {
                    let long = next(4) == 0;
                    let body: Vec<(u32, u32)> = (0..1 + next(if long { 40 } else { 5 }))
                        .map(|_| (next(6) as u32, 1 + next(2) as u32))
                        .collect();
                    for _ in 0..next(12) {
                        lines.extend(body.iter().copied());
                    }
                }
            }
            let steps: Vec<TraceStep> = lines
                .iter()
                .enumerate()
                .map(|(i, &(l, d))| step(i, l, d))
                .collect();
            let streamed: Vec<(bool, usize, (u32, u32))> = Fold::new(steps.clone().into_iter())
                .map(|item| match item {
                    Item::Step(s) => (false, s.step, (0, 0)),
                    Item::Fold { iterations, lines } => (true, iterations, lines),
                })
                .collect();
            assert_eq!(streamed, fold_whole(&steps), "case {case}: {lines:?}");
        }
    }
}
