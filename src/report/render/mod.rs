//! The output formats.
//!
//! This file has the entry points ([`render`], [`render_to`], [`header`]) and the pieces
//! several formats share; each format has its own file: `text.rs`, `json.rs`, `bebop.rs`,
//! `zing.rs`.

mod bebop;
mod json;
mod text;
mod zing;

use super::{ErrorDetail, Report, Trace};
use bebop::bebop;
use std::fmt::Write as _;
use text::text;
use zing::zing;

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

/// `check --show-properties`: the properties of `model`, one line each in text (id, kind,
/// place, what is written there), or a JSON object `{"model", "properties": [...]}`.
pub fn render_properties(
    out: &mut dyn std::io::Write,
    model: &str,
    properties: &[super::Property],
    format: Format,
) -> std::io::Result<()> {
    if format == Format::Json {
        let v = serde_json::json!({ "model": model, "properties": properties });
        serde_json::to_writer_pretty(&mut *out, &v)?;
        return writeln!(out);
    }
    let file = model.rsplit('/').next().unwrap_or(model);
    let id_w = properties.iter().map(|p| p.id.len()).max().unwrap_or(0);
    let kind_w = properties.iter().map(|p| p.kind.len()).max().unwrap_or(0);
    writeln!(
        out,
        "{} propert{} in {model}:",
        properties.len(),
        if properties.len() == 1 { "y" } else { "ies" }
    )?;
    let places: Vec<String> = properties
        .iter()
        .map(|p| {
            if p.line > 0 {
                format!("{file}:{}:{}", p.line, p.column)
            } else {
                "(the whole model)".to_string()
            }
        })
        .collect();
    let place_w = places.iter().map(|p| p.len()).max().unwrap_or(0);
    for (p, place) in properties.iter().zip(&places) {
        let line = format!(
            "  {:<id_w$}  {:<kind_w$}  {place:<place_w$}  {}",
            p.id, p.kind, p.text
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

fn values(step: &super::TraceStep) -> String {
    step.values
        .iter()
        .map(|b| format!("{}={}", b.name, b.value))
        .collect::<Vec<_>>()
        .join(" ")
}

/// After a trace whose writing Ctrl-C, SIGTERM or a limit stopped, a line that says so (the
/// verdict above it stands: the counterexample was replayed and checked before it was
/// written).
fn cut(out: &mut dyn std::io::Write, t: &Trace) -> std::io::Result<()> {
    let why = match t.cut_by() {
        None => return Ok(()),
        Some(crate::search::Limit::Interrupted) => "interrupted (Ctrl-C or SIGTERM)".to_string(),
        Some(limit) => format!("{} reached while it was written", limit.describe()),
    };
    writeln!(
        out,
        "  … {why}: the rest of the counterexample is not written (the verdict stands)"
    )
}

/// The counts of `--stats`' first line; those not counted are named at its end.
fn stats_line(r: &Report) -> String {
    let s = &r.stats;
    // random walks store nothing: a count of stored states would read as a search's
    let mut line = match r.random_walks {
        true => "no states stored (random walks)".to_string(),
        false => format!("{} distinct states", s.states),
    };
    let mut uncounted = Vec::new();
    let counts = [
        (
            s.transitions.map(|n| format!("{n} transitions")),
            "transitions",
        ),
        (
            s.initial_states.map(|n| format!("{n} initial states")),
            "initial states",
        ),
        (
            s.max_stack_depth.map(|n| format!("max stack depth {n}")),
            "stack depth",
        ),
    ];
    for (shown, name) in counts {
        match shown {
            Some(t) => {
                let _ = write!(line, ", {t}");
            }
            None => uncounted.push(name),
        }
    }
    let _ = write!(line, ", {:.3} s", s.seconds);
    if let Some(b) = s.peak_memory_bytes {
        let _ = write!(line, ", {:.1} MB peak", b as f64 / 1e6);
    }
    if let Some(z) = s.zing_states {
        let _ = write!(line, ", {z} states by ZING's count");
    }
    if let Some(x) = s.speedup {
        let _ = write!(line, ", speed-up {x:.2} (workers' CPU time over wall time)");
    }
    for c in &s.counters {
        let name = c.name.replace('_', " ");
        if c.value == u64::MAX {
            // a count past 64 bits (a BDD's path edges) saturates: say so, not 18446744073709551615
            let _ = write!(line, ", 2^64 or more {name}");
        } else {
            let _ = write!(line, ", {} {name}", c.value);
        }
    }
    if !uncounted.is_empty() {
        let _ = write!(line, " (not counted: {})", uncounted.join(", "));
    }
    line
}

/// The second line of `--stats`: the search depth and the hash-compaction bound of an
/// explicit search, `None` where neither was counted.
fn depth_line(r: &Report) -> Option<String> {
    let s = &r.stats;
    match (s.max_search_depth, s.omission_probability) {
        (None, None) => None,
        // random walks store nothing, so no state can be omitted
        (Some(depth), None) if r.random_walks => Some(format!("max search depth {depth}")),
        (depth, p) => Some(format!(
            "max search depth {}, hash-compaction omission probability {}",
            depth.map_or("not counted".into(), |d| d.to_string()),
            p.map_or("not counted".into(), |p| format!("<= {p:.1e}"))
        )),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Verdict;

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
    fn a_saturated_counter_reads_as_at_least_2_to_the_64() {
        let mut r = Report::new("t.bp", "bdd", Verdict::Passed, None);
        for (name, value) in [("path_edges", u64::MAX), ("summary_edges", u64::MAX - 1)] {
            r.stats.counters.push(crate::report::Counter {
                name: name.into(),
                value,
            });
        }
        let line = stats_line(&r);
        assert!(line.contains(", 2^64 or more path edges"), "{line}");
        assert!(
            line.contains(", 18446744073709551614 summary edges"),
            "{line}"
        );
        assert!(!line.contains("18446744073709551615"), "{line}");
    }
}
