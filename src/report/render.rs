//! The output formats.

use super::{ErrorDetail, Report, Trace, Verdict, ZingTrace};
use crate::runtime::RtError;
use std::fmt::Write;

/// How to print a report (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The verdict, where it happened, the counterexample step by step, statistics.
    Text,
    /// The whole report as JSON (schema in docs/json-schema.json), replayable path included.
    Json,
    /// Bebop's layout: the trace's lines in reverse order, indented by call depth.
    Bebop,
    /// The ZING model checker's layout: every state of the counterexample dumped.
    Zing,
}

/// How much of a counterexample to print (`--trace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceDetail {
    /// Every step with the values in scope and what it changed (`--format zing`: every state
    /// dumped).
    Full,
    /// Every step, without values (`--format zing`: the state headers only).
    Short,
    /// Every step with only what it changed, not the values in scope (`--format zing` and
    /// `bebop`: as `short`).
    Changes,
    /// No counterexample, only the verdict.
    None,
}

/// Renders a report. `stats` adds the statistics block; `quiet` keeps only the verdict line
/// (and the statistics, if asked for).
pub fn render(r: &Report, format: Format, detail: TraceDetail, stats: bool, quiet: bool) -> String {
    let mut out = Vec::new();
    render_to(&mut out, r, format, detail, stats, quiet, true).expect("writing to memory");
    String::from_utf8(out).expect("the renderings are UTF-8")
}

/// The first line of the text format, which `check` prints before it starts searching (so a
/// user sees at once what runs), and then renders the rest without it. `note` says how the
/// engine runs when that is not what its name alone suggests.
pub fn header(model: &str, engine: &str, note: Option<&str>) -> String {
    let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
    format!(
        "zingrs {}: checking {model} with the {engine} engine{note}\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// [`render`] onto `out` (a counterexample of millions of steps renders to hundreds of
/// megabytes, which need not be held in memory first); the text format starts with
/// [`header`] only when `with_header`.
pub fn render_to(
    out: &mut dyn std::io::Write,
    r: &Report,
    format: Format,
    detail: TraceDetail,
    stats: bool,
    quiet: bool,
    with_header: bool,
) -> std::io::Result<()> {
    use std::io::Write as _;
    match format {
        Format::Json => {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
            json::write(&mut w, r)?;
            w.flush()
        }
        Format::Bebop => out.write_all(bebop(r, detail, stats).as_bytes()),
        Format::Zing => out.write_all(zing(r, detail, stats).as_bytes()),
        Format::Text => out.write_all(text(r, detail, stats, quiet, with_header).as_bytes()),
    }
}

/// The JSON report: [`Report`]'s serialization, except that the path's choices (one per step,
/// millions for long counterexamples, where serde_json's pretty printer took most of the time
/// of the whole report) are written by hand in the same layout. A test checks that the two
/// agree.
mod json {
    use super::super::{Finding, Report, Stats, Trace, Verdict};
    use crate::runtime::Value;
    use crate::search::Choice;
    use serde::Serialize;
    use std::io::Write;

    /// Stands for the choices in the serialized report.
    const MARK: &str = "@the choices, written by hand@";

    /// [`Report`], field for field, with the path's choices replaced by [`MARK`].
    #[derive(Serialize)]
    struct ReportJson<'a> {
        schema: u32,
        tool: &'a str,
        model: &'a str,
        source_hash: &'a str,
        engine: &'a str,
        verdict: &'a Verdict,
        exit_code: i32,
        trace: &'a Option<Trace>,
        more: &'a [Finding],
        stats: &'a Stats,
        path: Option<PathJson<'a>>,
        assertions: bool,
    }

    #[derive(Serialize)]
    struct PathJson<'a> {
        init: &'a [Value],
        choices: &'static str,
    }

    pub fn write(w: &mut dyn Write, r: &Report) -> std::io::Result<()> {
        let Report {
            schema,
            tool,
            model,
            source_hash,
            engine,
            verdict,
            exit_code,
            trace,
            more,
            stats,
            path,
            assertions,
        } = r;
        let shell = ReportJson {
            schema: *schema,
            tool,
            model,
            source_hash,
            engine,
            verdict,
            exit_code: *exit_code,
            trace,
            more,
            stats,
            path: path.as_ref().map(|p| PathJson {
                init: &p.init,
                choices: MARK,
            }),
            assertions: *assertions,
        };
        let mut text = match serde_json::to_vec_pretty(&shell) {
            Ok(t) => t,
            Err(e) => format!("{{\"error\": \"cannot serialize the report: {e}\"}}").into_bytes(),
        };
        text.push(b'\n');
        let mark = format!("\"{MARK}\"");
        // the mark's place: its last occurrence (a model's name or a label could hold the
        // same text, escaped, but only `assertions`, a boolean, follows the path)
        let at = path
            .as_ref()
            .and_then(|_| text.windows(mark.len()).rposition(|x| x == mark.as_bytes()));
        match (at, path) {
            (Some(at), Some(p)) => {
                w.write_all(&text[..at])?;
                choices(w, &p.choices)?;
                w.write_all(&text[at + mark.len()..])
            }
            _ => w.write_all(&text),
        }
    }

    /// The choices as the pretty printer lays them out at their depth (the report's `path`
    /// field's `choices` field: elements indented by six spaces).
    fn choices(w: &mut dyn Write, cs: &[Choice]) -> std::io::Result<()> {
        if cs.is_empty() {
            return w.write_all(b"[]");
        }
        let mut buf: Vec<u8> = Vec::with_capacity(1 << 12);
        buf.push(b'[');
        for (i, c) in cs.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            buf.extend_from_slice(b"\n      {\n        \"thread\": ");
            push_u32(&mut buf, c.thread);
            buf.extend_from_slice(b",\n        \"outcome\": ");
            push_u32(&mut buf, c.outcome);
            buf.extend_from_slice(b"\n      }");
            if buf.len() >= 1 << 12 {
                w.write_all(&buf)?;
                buf.clear();
            }
        }
        buf.extend_from_slice(b"\n    ]");
        w.write_all(&buf)
    }

    fn push_u32(buf: &mut Vec<u8>, mut x: u32) {
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        buf.extend_from_slice(&digits[i..]);
    }
}

fn values(step: &super::TraceStep) -> String {
    step.values
        .iter()
        .map(|b| format!("{}={}", b.name, b.value))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The deepest call level the text trace indents to; deeper steps show their depth instead.
const MAX_INDENT: u32 = 20;

/// A step's procedure column: indented by call depth, up to [`MAX_INDENT`] levels.
fn who(s: &super::TraceStep) -> String {
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

fn text_trace(out: &mut String, file: &str, t: &Trace, detail: TraceDetail) {
    let concurrent = t.threads > 1;
    let width = t
        .steps
        .iter()
        .map(|s| who(s).chars().count())
        .max()
        .unwrap_or(0)
        .min(100);
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
    // the step column is as wide as the largest step number, so that it never runs into the
    // procedure column
    let step_width = t
        .steps
        .iter()
        .map(|s| s.step.to_string().len())
        .max()
        .unwrap_or(0)
        .max(3);
    for item in fold(&t.steps) {
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
                let _ = writeln!(
                    out,
                    "  … {} more iteration{} of {lines} …",
                    thousands(iterations),
                    if iterations == 1 { "" } else { "s" }
                );
                continue;
            }
        };
        let who = who(s);
        let _ = write!(out, "  #{:<step_width$} ", s.step);
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
        if matches!(detail, TraceDetail::Full | TraceDetail::Changes) && !s.changed.is_empty() {
            let changed: Vec<String> = s
                .changed
                .iter()
                .map(|b| format!("{} = {}", b.name, b.value))
                .collect();
            let _ = writeln!(out, "       changed: {}", changed.join(", "));
        }
    }
}

/// A line of the text trace: a step, or a run of iterations of a loop left out.
enum Item<'a> {
    Step(&'a super::TraceStep),
    Fold {
        iterations: usize,
        lines: (u32, u32),
    },
}

/// The longest loop body (in steps) that [`fold`] recognizes.
const MAX_PERIOD: usize = 32;
/// Folding starts at this many back-to-back iterations: the first two and the last are shown.
const MIN_ITERATIONS: usize = 5;

/// The steps of a text trace with consecutive repetitions of the same loop iteration folded:
/// a run of at least [`MIN_ITERATIONS`] repetitions of the same sequence of (thread, depth,
/// procedure, line) shows its first two iterations and its last, and one line for the rest
/// (only in text: JSON keeps every step).
fn fold(steps: &[super::TraceStep]) -> Vec<Item<'_>> {
    fn key(s: &super::TraceStep) -> (u32, u32, u32, &str) {
        (s.thread, s.depth, s.line, s.procedure.as_str())
    }
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
                out.extend(steps[i..i + 2 * p].iter().map(Item::Step));
                let body = &steps[i..i + p];
                let lo = body.iter().map(|s| s.line).min().unwrap_or(0);
                let hi = body.iter().map(|s| s.line).max().unwrap_or(0);
                out.push(Item::Fold {
                    iterations: k - 3,
                    lines: (lo, hi),
                });
                out.extend(steps[i + (k - 1) * p..i + k * p].iter().map(Item::Step));
                i += k * p;
            }
            None => {
                out.push(Item::Step(&steps[i]));
                i += 1;
            }
        }
    }
    out
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

fn stats_line(r: &Report) -> String {
    let s = &r.stats;
    let mut line = format!(
        "{} distinct states, {} transitions, {} initial states, max stack depth {}, {:.3} s",
        s.states, s.transitions, s.initial_states, s.max_stack_depth, s.seconds
    );
    if let Some(b) = s.peak_memory_bytes {
        let _ = write!(line, ", {:.1} MB peak", b as f64 / 1e6);
    }
    if let Some(z) = s.zing_states {
        let _ = write!(line, ", {z} states by ZING's count");
    }
    for c in &s.counters {
        let _ = write!(line, ", {} {}", c.value, c.name.replace('_', " "));
    }
    line
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

/// What a runtime error's failing operation saw, in words.
fn detail_text(d: &ErrorDetail) -> String {
    match d {
        ErrorDetail::Index {
            array,
            index,
            value,
            length,
        } => format!(
            "index `{index}` is {value} and `{array}` has {length} element{}",
            if *length == 1 { "" } else { "s" }
        ),
        ErrorDetail::Overflow {
            expression,
            operator,
            operands,
            result,
            min,
            max,
        } => {
            let computed = match (operator.as_str(), &operands[..]) {
                ("negation", [x]) => format!("-({x}) = {result}"),
                ("conversion", [x]) => format!("{x}"),
                (op, [x, y]) => format!("{x} {op} {y} = {result}"),
                _ => format!("{result}"),
            };
            format!("`{expression}` overflows: {computed}, outside {min}..{max}")
        }
        ErrorDetail::DivideByZero {
            expression,
            operands,
            ..
        } => format!(
            "`{expression}` divides {} by 0",
            operands.first().copied().unwrap_or(0)
        ),
        ErrorDetail::Length {
            expression,
            value,
            max,
        } => format!("the array length `{expression}` is {value}, outside 0..{max}"),
    }
}

fn text(r: &Report, detail: TraceDetail, stats: bool, quiet: bool, with_header: bool) -> String {
    let mut out = String::new();
    if quiet {
        let _ = writeln!(out, "{}", r.verdict.headline());
        if stats {
            stats_block(&mut out, r);
        }
        return out;
    }
    if with_header {
        out.push_str(&header(&r.model, &r.engine, None));
    }
    let file = r.model.rsplit('/').next().unwrap_or(&r.model);
    let _ = writeln!(out, "{}", r.verdict.headline());
    // the model as given, so that an editor finds it from where zingrs ran
    location_lines(&mut out, &r.model, &r.verdict);
    if let (Some(t), false) = (&r.trace, detail == TraceDetail::None) {
        let _ = writeln!(out, "Counterexample ({} steps):", t.steps.len());
        text_trace(&mut out, file, t, detail);
    }
    for f in &r.more {
        let _ = writeln!(out, "Also: {}", f.verdict.headline());
        location_lines(&mut out, &r.model, &f.verdict);
        if let (Some(t), false) = (&f.trace, detail == TraceDetail::None) {
            text_trace(&mut out, file, t, detail);
        }
    }
    if stats {
        stats_block(&mut out, r);
    } else if r.stats != super::Stats::default() {
        // (a replayed report has measured nothing)
        let s = &r.stats;
        let _ = writeln!(
            out,
            "{} distinct states, {} transitions, {:.3} s",
            s.states, s.transitions, s.seconds
        );
    }
    out
}

/// The statistics of `--stats`.
fn stats_block(out: &mut String, r: &Report) {
    {
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
    }
}

/// Bebop's layout (seed 001, Figure 1): the label, then one line per step in reverse
/// execution order, indented by call depth, each with the values in scope before the line.
/// Bebop had no threads; a trace of several names the thread of each step (`Thread 1 Line 17`).
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
    if let Verdict::RuntimeError {
        detail: Some(d), ..
    } = &r.verdict
    {
        let _ = writeln!(out, "{}", detail_text(d));
    }
    if let (Some(t), false) = (&r.trace, detail == TraceDetail::None) {
        let threads = t.threads > 1;
        for s in t.steps.iter().rev() {
            // Bebop indents by call depth; past 200 levels the indentation stops growing so
            // that a trace 100,000 calls deep stays printable
            let indent = "  ".repeat(s.depth.saturating_sub(1).min(200) as usize);
            let _ = write!(out, "{indent}");
            if threads {
                let _ = write!(out, "Thread {} ", s.thread);
            }
            let _ = write!(out, "Line {}", s.line);
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

const ZING_HASHES: &str = "##################";

/// The banner word of a verdict in ZING's output, and the line after the banner if any.
fn zing_banner(v: &Verdict) -> (&'static str, Option<String>) {
    match v {
        Verdict::Passed => ("Check Passed", None),
        Verdict::AssertionFailed { .. } | Verdict::TargetReached { .. } => ("Check Failed", None),
        Verdict::Deadlock { .. } => ("Deadlock Detected !", None),
        Verdict::RuntimeError { .. } => ("Program Runtime Error", None),
        Verdict::InternalError { message } => {
            ("Zinger Internal Runtime Exception", Some(message.clone()))
        }
        // ZING's DFS stack overflow; zingrs's stack-depth bound is the nearest thing
        Verdict::Bounded { bound } => {
            let depth = bound
                .strip_prefix("stack-depth bound (--max-depth ")
                .and_then(|r| r.strip_suffix(')'));
            let line = match depth {
                Some(d) => format!("DFS Stack Size Exceeded {d}"),
                None => v.headline(),
            };
            ("Check Failed", Some(line))
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
            "The model appears to be in an infinite loop inside an atomic block (over 1,000,000 steps without leaving it).",
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
fn zing_error_trace(out: &mut String, k: usize, v: &Verdict, z: &ZingTrace, detail: TraceDetail) {
    let _ = writeln!(out, " {}", "*".repeat(79));
    let _ = writeln!(out, " Error trace {k}: length: {} states", z.states.len());
    for (j, s) in z.states.iter().enumerate() {
        match s.ran {
            Some(p) => {
                let _ = writeln!(out, "#### State {j} (ran process {p}) :");
            }
            None => {
                let _ = writeln!(out, "#### State {j} :");
            }
        }
        if detail == TraceDetail::Full {
            for l in &s.dump {
                let _ = writeln!(out, "{l}");
            }
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "Error in state:");
    for l in zing_error_message(v, z) {
        let _ = writeln!(out, "{l}");
    }
    if !matches!(v, Verdict::Deadlock { .. }) {
        let _ = writeln!(out);
        let _ = writeln!(out);
        let _ = writeln!(out, "Stack trace:");
        for (procedure, line) in &z.stack {
            let _ = writeln!(out, "    {procedure} ({}, Line {line})", z.file);
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out);
}

/// ZING's layout (`-entireZingTrace`, zing-language.md §8): the verdict banner, then per error a
/// trace of every state, the error and its stack trace, and last the count of states.
fn zing(r: &Report, detail: TraceDetail, stats: bool) -> String {
    let mut out = String::new();
    let (word, after) = zing_banner(&r.verdict);
    let _ = writeln!(out, "{ZING_HASHES}\n{word}\n{ZING_HASHES}");
    if let Some(l) = after {
        let _ = writeln!(out, "{l}");
    }
    if detail != TraceDetail::None {
        let findings = std::iter::once((&r.verdict, &r.trace))
            .chain(r.more.iter().map(|f| (&f.verdict, &f.trace)));
        for (k, (v, t)) in findings.enumerate() {
            if let Some(z) = t.as_ref().and_then(|t| t.zing.as_ref()) {
                zing_error_trace(&mut out, k, v, z, detail);
            }
        }
    }
    if stats {
        let _ = writeln!(out, "{}", stats_line(r));
    }
    let n = r.stats.zing_states.unwrap_or(r.stats.states);
    let _ = writeln!(out, "{n} distinct states explored");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Stats, Trace, ZingState};

    #[test]
    fn the_json_report_is_the_report_serialized() {
        let verdict = Verdict::TargetReached {
            label: "R".into(),
            procedure: "main".into(),
            line: 7,
            column: 3,
        };
        for n in [0u32, 1, 3] {
            let mut r = Report::new("t.bp", "bdd", verdict.clone(), None);
            r.path = Some(crate::search::Path {
                init: vec![crate::runtime::Value::Bool(true)],
                choices: (0..n)
                    .map(|i| crate::search::Choice {
                        thread: i % 2,
                        outcome: 10 * i,
                    })
                    .collect(),
            });
            r.stats.counters.push(crate::report::Counter {
                name: "x".into(),
                value: 1,
            });
            let expected = serde_json::to_string_pretty(&r).unwrap() + "\n";
            assert_eq!(
                render(&r, Format::Json, TraceDetail::Full, true, false),
                expected
            );
        }
        let r = Report::new("t.bp", "bdd", Verdict::Passed, None);
        let expected = serde_json::to_string_pretty(&r).unwrap() + "\n";
        assert_eq!(
            render(&r, Format::Json, TraceDetail::Full, true, false),
            expected
        );
    }

    #[test]
    fn a_trace_100000_calls_deep_prints_with_bounded_indentation() {
        let step = |depth: u32| crate::report::TraceStep {
            step: depth as usize,
            thread: 0,
            depth,
            procedure: format!("level{depth}"),
            line: 3,
            statement: "call".into(),
            values: Vec::new(),
            changed: Vec::new(),
        };
        let trace = Trace {
            threads: 1,
            steps: vec![step(1), step(21), step(100_000)],
            zing: None,
        };
        let verdict = Verdict::AssertionFailed {
            procedure: "level100000".into(),
            line: 3,
            column: 5,
            condition: "g".into(),
            message: String::new(),
        };
        let r = Report::new("t.bp", "summary", verdict, Some(trace));
        let text = render(&r, Format::Text, TraceDetail::Full, false, false);
        assert!(
            text.contains(&format!("{}level21 ", "  ".repeat(20))),
            "{text}"
        );
        assert!(text.contains("[100000] level100000"), "{text}");
        assert!(text.lines().all(|l| l.len() < 200), "{text}");
        let bebop = render(&r, Format::Bebop, TraceDetail::Full, false, false);
        assert!(bebop.lines().all(|l| l.len() < 500), "{bebop}");
    }

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
            states: vec![
                ZingState {
                    ran: None,
                    dump: vec!["  dump 0".into()],
                },
                ZingState {
                    ran: Some(2),
                    dump: vec!["  dump 1".into()],
                },
            ],
            stack: vec![("Counter.Bump".into(), 12), ("Counter.Run".into(), 20)],
            assertion: Some(("total == 2".into(), "lost update".into())),
        };
        let trace = Trace {
            threads: 3,
            steps: Vec::new(),
            zing: Some(z),
        };
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
        assert_eq!(
            banner(Verdict::InternalError {
                message: "oops".into()
            }),
            ("Zinger Internal Runtime Exception", Some("oops".into()))
        );
    }
}
