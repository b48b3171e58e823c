//! The output formats.

use super::{ErrorDetail, Report, Shows, Trace, Verdict, ZingTrace};
use crate::runtime::RtError;
use std::fmt::Write as _;

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

/// [`render`] onto `out`, written as it is built: a counterexample's steps are built one at a
/// time from its path and written at once (a trace of millions of steps renders to hundreds
/// of megabytes, which are never held in memory); the text format starts with [`header`] only
/// when `with_header`.
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
    let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
    match format {
        Format::Json => json::write(&mut w, r)?,
        Format::Bebop => bebop(&mut w, r, detail, stats)?,
        Format::Zing => zing(&mut w, r, detail, stats)?,
        Format::Text => text(&mut w, r, detail, stats, quiet, with_header)?,
    }
    w.flush()
}

/// The JSON report: [`Report`]'s serialization (serde_json's pretty layout), written field by
/// field so that the traces' steps are serialized one at a time as they are built, and the
/// path's choices (one per step, millions for long counterexamples, where serde_json's pretty
/// printer took most of the time of the whole report) by hand in the same layout. A test
/// checks that the two agree.
mod json {
    use super::super::{Finding, Report, Shows, Trace};
    use crate::search::{Choice, Path};
    use serde::Serialize;
    use std::io::Write;

    /// `value` in serde_json's pretty layout, its lines after the first indented by `level`
    /// levels (two spaces each), as it appears nested that deep. `buf` is scratch space.
    fn value(
        w: &mut dyn Write,
        v: &impl Serialize,
        level: usize,
        buf: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        buf.clear();
        serde_json::to_writer_pretty(&mut *buf, v).map_err(std::io::Error::other)?;
        // serialized strings escape their line breaks: every byte `\n` is the layout's
        let mut rest = &buf[..];
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            w.write_all(&rest[..=at])?;
            indent(w, level)?;
            rest = &rest[at + 1..];
        }
        w.write_all(rest)
    }

    fn indent(w: &mut dyn Write, level: usize) -> std::io::Result<()> {
        const SPACES: &[u8] = &[b' '; 64];
        let mut n = 2 * level;
        while n > 0 {
            let k = n.min(SPACES.len());
            w.write_all(&SPACES[..k])?;
            n -= k;
        }
        Ok(())
    }

    /// An object's field at `level`: the key, then what `body` writes as its value.
    fn field(
        w: &mut dyn Write,
        level: usize,
        key: &str,
        first: bool,
        body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, level)?;
        write!(w, "\"{key}\": ")?;
        body(w)
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
            // not written: the `contexts` counter the CLI adds names the bound reported
            fewest_switches: _,
        } = r;
        let buf = &mut Vec::with_capacity(1 << 12);
        w.write_all(b"{")?;
        field(w, 1, "schema", true, |w| value(w, schema, 1, buf))?;
        field(w, 1, "tool", false, |w| value(w, tool, 1, buf))?;
        field(w, 1, "model", false, |w| value(w, model, 1, buf))?;
        field(w, 1, "source_hash", false, |w| {
            value(w, source_hash, 1, buf)
        })?;
        field(w, 1, "engine", false, |w| value(w, engine, 1, buf))?;
        field(w, 1, "verdict", false, |w| value(w, verdict, 1, buf))?;
        field(w, 1, "exit_code", false, |w| value(w, exit_code, 1, buf))?;
        field(w, 1, "trace", false, |w| optional_trace(w, trace, 1, buf))?;
        field(w, 1, "more", false, |w| findings(w, more, 1, buf))?;
        field(w, 1, "stats", false, |w| value(w, stats, 1, buf))?;
        field(w, 1, "path", false, |w| match path {
            Some(p) => path_value(w, p, buf),
            None => w.write_all(b"null"),
        })?;
        field(w, 1, "assertions", false, |w| value(w, assertions, 1, buf))?;
        w.write_all(b"\n}\n")
    }

    fn optional_trace(
        w: &mut dyn Write,
        t: &Option<Trace>,
        level: usize,
        buf: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        let Some(t) = t else {
            return w.write_all(b"null");
        };
        w.write_all(b"{")?;
        field(w, level + 1, "threads", true, |w| {
            value(w, &t.threads, level + 1, buf)
        })?;
        field(w, level + 1, "steps", false, |w| {
            let mut steps = t.steps(Shows::ALL).peekable();
            if steps.peek().is_none() {
                return w.write_all(b"[]");
            }
            w.write_all(b"[")?;
            for (i, s) in steps.enumerate() {
                w.write_all(if i == 0 { b"\n" } else { b",\n" })?;
                indent(w, level + 2)?;
                value(w, &s, level + 2, buf)?;
            }
            w.write_all(b"\n")?;
            indent(w, level + 1)?;
            w.write_all(b"]")
        })?;
        if t.interrupted() {
            field(w, level + 1, "interrupted", false, |w| w.write_all(b"true"))?;
        }
        w.write_all(b"\n")?;
        indent(w, level)?;
        w.write_all(b"}")
    }

    fn findings(
        w: &mut dyn Write,
        fs: &[Finding],
        level: usize,
        buf: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        if fs.is_empty() {
            return w.write_all(b"[]");
        }
        w.write_all(b"[")?;
        for (i, f) in fs.iter().enumerate() {
            w.write_all(if i == 0 { b"\n" } else { b",\n" })?;
            indent(w, level + 1)?;
            w.write_all(b"{")?;
            field(w, level + 2, "verdict", true, |w| {
                value(w, &f.verdict, level + 2, buf)
            })?;
            field(w, level + 2, "trace", false, |w| {
                optional_trace(w, &f.trace, level + 2, buf)
            })?;
            w.write_all(b"\n")?;
            indent(w, level + 1)?;
            w.write_all(b"}")?;
        }
        w.write_all(b"\n")?;
        indent(w, level)?;
        w.write_all(b"]")
    }

    /// The report's `path` field's value (at level 1).
    fn path_value(w: &mut dyn Write, p: &Path, buf: &mut Vec<u8>) -> std::io::Result<()> {
        w.write_all(b"{")?;
        field(w, 2, "init", true, |w| value(w, &p.init, 2, buf))?;
        field(w, 2, "choices", false, |w| choices(w, &p.choices))?;
        w.write_all(b"\n  }")
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

/// After a trace whose writing Ctrl-C stopped, a line that says so (the verdict above it
/// stands: the counterexample was replayed and checked before it was written).
fn cut(out: &mut dyn std::io::Write, t: &Trace) -> std::io::Result<()> {
    if t.interrupted() {
        writeln!(
            out,
            "  … interrupted (Ctrl-C): the rest of the counterexample is not written"
        )?;
    }
    Ok(())
}

/// A line of the text trace: a step, or a run of iterations of a loop left out.
enum Item {
    Step(super::TraceStep),
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
struct Fold<I: Iterator<Item = super::TraceStep>> {
    steps: I,
    /// Steps read and not yet looked at.
    window: std::collections::VecDeque<super::TraceStep>,
    /// Lines ready to give.
    ready: std::collections::VecDeque<Item>,
}

impl<I: Iterator<Item = super::TraceStep>> Fold<I> {
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

fn fold_key(s: &super::TraceStep) -> (u32, u32, u32, &str) {
    (s.thread, s.depth, s.line, s.procedure.as_str())
}

impl<I: Iterator<Item = super::TraceStep>> Iterator for Fold<I> {
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
        let body: Vec<super::TraceStep> = self.window.drain(..p).collect();
        let second: Vec<super::TraceStep> = self.window.drain(..p).collect();
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
        ErrorDetail::NullReference {
            reference,
            access,
            field,
        } => {
            let field = field.as_deref().unwrap_or("?");
            let doing = match *access {
                "read-field" => format!("reading its field `{field}`"),
                "write-field" => format!("writing its field `{field}`"),
                "element" => "indexing it".into(),
                "size" => "taking its size".into(),
                "membership" => "testing membership in it".into(),
                "set-update" => "updating it as a set".into(),
                "send" => "sending on it".into(),
                "receive" => "receiving from it".into(),
                "choose" => "choosing one of its elements".into(),
                _ => "calling a method on it".into(),
            };
            format!("`{reference}` is null ({doing})")
        }
    }
}

fn text(
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
    } else if r.stats != super::Stats::default() {
        // (a replayed report has measured nothing)
        let s = &r.stats;
        let _ = writeln!(
            out,
            "{} distinct states, {} transitions, {:.3} s",
            s.states, s.transitions, s.seconds
        );
    }
    w.write_all(out.as_bytes())
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
fn bebop(
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
        v => v.headline(),
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
        match s.ran {
            Some(p) => writeln!(out, "#### State {j} (ran process {p}) :")?,
            None => writeln!(out, "#### State {j} :")?,
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
fn zing(
    out: &mut dyn std::io::Write,
    r: &Report,
    detail: TraceDetail,
    stats: bool,
) -> std::io::Result<()> {
    let (word, after) = zing_banner(&r.verdict);
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
        let step = |i: u32| crate::report::TraceStep {
            step: i as usize,
            thread: i % 2,
            depth: 1 + i,
            procedure: "main".into(),
            line: 3 + i,
            statement: "x := \"q\";\n".into(),
            values: (0..i)
                .map(|k| crate::report::Binding {
                    name: format!("v{k}"),
                    value: crate::report::Shown::Value(crate::runtime::Value::Bool(k == 1)),
                })
                .collect(),
            changed: vec![crate::report::Binding {
                name: "g".into(),
                value: crate::report::Shown::Text("new C".into()),
            }],
        };
        let trace = |n: u32| Trace::listed(2, (0..n).map(step).collect(), Vec::new(), None);
        for n in [0u32, 1, 3] {
            let mut r = Report::new("t.bp", "bdd", verdict.clone(), Some(trace(n)));
            // the traces of further findings are nested deeper
            r.more = (0..n)
                .map(|k| crate::report::Finding {
                    verdict: verdict.clone(),
                    trace: (k != 1).then(|| trace(k + 1)),
                })
                .collect();
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
        let trace = Trace::listed(1, vec![step(1), step(21), step(100_000)], Vec::new(), None);
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
            stack: vec![("Counter.Bump".into(), 12), ("Counter.Run".into(), 20)],
            assertion: Some(("total == 2".into(), "lost update".into())),
        };
        let states = vec![
            ZingState {
                ran: None,
                dump: vec!["  dump 0".into()],
            },
            ZingState {
                ran: Some(2),
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
        assert_eq!(
            banner(Verdict::InternalError {
                message: "oops".into()
            }),
            ("Zinger Internal Runtime Exception", Some("oops".into()))
        );
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
