//! The JSON report: [`Report`]'s serialization (serde_json's pretty layout), written field by
//! field so that the traces' steps are serialized one at a time as they are built, and the
//! path's choices (one per step, millions for long counterexamples, where serde_json's pretty
//! printer took most of the time of the whole report) by hand in the same layout. A test
//! checks that the two agree.

use super::super::fold::Fold;
use super::super::{Finding, Report, Shows, Trace};
use crate::search::{folded, Choice, Path};
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
        engines,
        properties,
        selected,
        coverage,
        path,
        assertions,
        cooperative,
        max_atomic_steps,
        // not written: the `contexts` counter the CLI adds names the bound reported
        fewest_switches: _,
        exhaustive: _,
        seed,
        random_walks,
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
    if !engines.is_empty() {
        field(w, 1, "engines", false, |w| value(w, engines, 1, buf))?;
    }
    if !properties.is_empty() {
        field(w, 1, "properties", false, |w| value(w, properties, 1, buf))?;
    }
    if !selected.is_empty() {
        field(w, 1, "selected", false, |w| value(w, selected, 1, buf))?;
    }
    if let Some(c) = coverage {
        field(w, 1, "coverage", false, |w| value(w, c, 1, buf))?;
    }
    field(w, 1, "path", false, |w| match path {
        Some(p) => path_value(w, p, buf),
        None => w.write_all(b"null"),
    })?;
    field(w, 1, "assertions", false, |w| value(w, assertions, 1, buf))?;
    if *cooperative {
        field(w, 1, "cooperative", false, |w| {
            value(w, cooperative, 1, buf)
        })?;
    }
    if let Some(n) = max_atomic_steps {
        field(w, 1, "max_atomic_steps", false, |w| value(w, n, 1, buf))?;
    }
    if let Some(seed) = seed {
        field(w, 1, "seed", false, |w| value(w, seed, 1, buf))?;
    }
    if *random_walks {
        field(w, 1, "random_walks", false, |w| {
            value(w, random_walks, 1, buf)
        })?;
    }
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
        let mut steps = Fold::new(t.steps(Shows::ALL)).peekable();
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
    field(w, 2, "choices", false, |w| choices(w, &p.choices, buf))?;
    w.write_all(b"\n  }")
}

/// The choices as the pretty printer lays them out at their depth (the report's `path`
/// field's `choices` field: elements indented by six spaces), repeated runs folded
/// ([`folded::runs`]); `scratch` is scratch space.
fn choices(w: &mut dyn Write, cs: &[Choice], scratch: &mut Vec<u8>) -> std::io::Result<()> {
    if cs.is_empty() {
        return w.write_all(b"[]");
    }
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 12);
    buf.push(b'[');
    for (i, run) in folded::runs(cs).enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        let c = match run {
            folded::Run::One(c) => c,
            folded::Run::Repeat { times, body } => {
                buf.extend_from_slice(b"\n      ");
                w.write_all(&buf)?;
                buf.clear();
                let repeat = folded::Repeat {
                    repeat: times,
                    choices: body,
                };
                value(w, &repeat, 3, scratch)?;
                continue;
            }
        };
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

#[cfg(test)]
mod tests {
    use super::super::{render, Format, TraceDetail};
    use crate::report::{Report, Trace, Verdict};

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
                // a run of identical choices, folded in both
                choices: (0..n)
                    .map(|i| crate::search::Choice {
                        thread: i % 2,
                        outcome: 10 * i,
                    })
                    .chain((0..5 * n).map(|_| crate::search::Choice {
                        thread: 1,
                        outcome: 2,
                    }))
                    .collect(),
            });
            r.stats.counters.push(crate::report::Counter {
                name: "x".into(),
                value: 1,
            });
            // `--engine all`'s table
            r.engines = (0..n)
                .map(|k| crate::report::EngineRun {
                    engine: format!("e{k}"),
                    verdict: "passed".into(),
                    exit_code: 0,
                    seconds: 0.5,
                    states: 7,
                    limit: (k == 1).then(|| "memory limit".into()),
                    steps: (k == 2).then_some(21),
                    reported: k == 0,
                })
                .collect();
            let expected = serde_json::to_string_pretty(&r).unwrap() + "\n";
            assert_eq!(
                render(&r, Format::Json, TraceDetail::Full, true, false),
                expected
            );
        }
        // a trace whose steps repeat is folded alike in both
        let looping = |i: u32| crate::report::TraceStep {
            thread: 0,
            depth: 1,
            line: 3 + i % 2,
            ..step(i)
        };
        let t = Trace::listed(2, (0..20).map(looping).collect(), Vec::new(), None);
        let r = Report::new("t.bp", "bdd", verdict.clone(), Some(t));
        let expected = serde_json::to_string_pretty(&r).unwrap() + "\n";
        let written = render(&r, Format::Json, TraceDetail::Full, true, false);
        assert_eq!(written, expected);
        assert!(written.contains("\"folded\": {"), "{written}");
        let r = Report::new("t.bp", "bdd", Verdict::Passed, None);
        let expected = serde_json::to_string_pretty(&r).unwrap() + "\n";
        assert_eq!(
            render(&r, Format::Json, TraceDetail::Full, true, false),
            expected
        );
    }
}
