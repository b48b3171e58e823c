//! The result table: one row per case (its configurations run and judged against what the
//! case expects), the cases run on `--jobs` threads, and the table printed as text.

use super::cases::{Case, Want};
use super::run::{not_runnable, parse_options, run_config, Config, Run};
use crate::cli::check::Engine;
use crate::report::exit;
use crate::search::Reduction;
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The outcome of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Passed,
    Failed,
    Skipped,
    /// Another engine decided the model as expected and none disagrees, but some engine was
    /// stopped by a limit (time, states, memory) before it could: not a failure unless
    /// `--strict`.
    Inconclusive,
}

/// One row of the table.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub model: String,
    /// Where the expectation comes from.
    pub source: String,
    pub expected: String,
    pub options: Vec<String>,
    pub results: Vec<Run>,
    pub seconds: f64,
    pub status: Status,
    /// Why the row failed or was skipped.
    pub reason: Option<String>,
}

/// The whole table (`--format json`).
#[derive(Debug, Serialize)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub inconclusive: usize,
    /// test.desc options that zingrs does not need and ignored.
    pub ignored_options: Vec<String>,
    /// The closing line.
    pub summary: String,
}

fn agrees(want: &Want, r: &Run) -> bool {
    let Some(code) = r.exit_code else {
        return false;
    };
    let trace_ok = code != exit::ASSERTION || r.has_trace;
    match want {
        Want::Kind(k) if k == "bounded" => matches!(code, exit::BOUNDED | exit::LIMIT),
        Want::Kind(k) => *k == r.verdict && trace_ok,
        Want::Exit(exit::BOUNDED) => matches!(code, exit::BOUNDED | exit::LIMIT),
        Want::Exit(e) => *e == code && trace_ok,
        Want::Invalid { .. } => false,
    }
}

fn run_case(case: &Case, configs: &[Config], budget: Duration, strict: bool) -> Row {
    let start = Instant::now();
    // the budget is CPU time of this worker thread (wall time on a busy machine is not the
    // model's doing)
    let cpu = crate::search::Clock::new(true);
    let mut row = Row {
        model: case.model.display().to_string(),
        source: case.source.into(),
        expected: case
            .expected
            .as_ref()
            .map_or("-".into(), |(s, _)| s.clone()),
        options: case.options.clone(),
        results: Vec::new(),
        seconds: 0.0,
        status: Status::Failed,
        reason: None,
    };
    let finish = |mut row: Row, status: Status, reason: Option<String>| {
        row.status = status;
        row.reason = reason;
        row.seconds = start.elapsed().as_secs_f64();
        row
    };
    if let Some(p) = &case.problem {
        return finish(row, Status::Failed, Some(p.clone()));
    }
    if let Some(p) = &case.skip {
        return finish(row, Status::Skipped, Some(p.clone()));
    }
    let Some((_, want)) = &case.expected else {
        return finish(row, Status::Skipped, Some("no expected verdict".into()));
    };
    let mut a = match parse_options(&case.options) {
        Ok(a) => a,
        Err(e) => return finish(row, Status::Failed, Some(format!("bad options: {e}"))),
    };
    if case.zing_states.is_some() && a.reduction.is_none() {
        // ZING's count is taken from the states stored without partial-order reduction (as
        // `--format zing` does)
        a.reduction = Some(Reduction::Transactions);
    }
    if case.zing_states.is_some() && a.symmetry.is_none() {
        // nor symmetry, which stores one state of each set of reorderings of the processes
        a.symmetry = Some(crate::cli::check::Symmetry::Off);
    }
    let name = case.model.display().to_string();
    let text = match std::fs::read(&case.model) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return finish(
                row,
                Status::Failed,
                Some(format!("cannot read {name}: {e}")),
            )
        }
    };
    let lang = match a.lang {
        Some(crate::cli::LangArg::Bp) => Some(zingrs_lang::Lang::Bp),
        Some(crate::cli::LangArg::Zing) => Some(zingrs_lang::Lang::Zing),
        None => zingrs_lang::Lang::from_path(&name),
    };
    let compiled = match lang {
        None => Err(format!("cannot tell the language of {name}")),
        Some(l) => zingrs_lang::compile(&name, &text, l).map_err(|d| {
            let src = zingrs_lang::ir::Source::new(name.as_str(), text.as_str());
            zingrs_lang::diag::render(&src, &d)
        }),
    };
    let program = match compiled {
        Err(diags) => {
            let first = diags
                .lines()
                .find(|l| l.starts_with("error"))
                .unwrap_or("rejected")
                .to_string();
            row.results.push(Run {
                engine: "front end".into(),
                verdict: "invalid".into(),
                exit_code: Some(exit::INVALID),
                seconds: start.elapsed().as_secs_f64(),
                detail: first.clone(),
                has_trace: false,
                trace_len: 0,
                zing_states: None,
                states: 0,
            });
            let problem = match want {
                Want::Invalid {
                    message,
                    code,
                    errors,
                } => invalid_mismatch(&diags, &name, message, code, *errors),
                Want::Exit(exit::INVALID) => None,
                _ => Some(format!("rejected: {first}")),
            };
            return match problem {
                None => finish(row, Status::Passed, None),
                Some(p) => finish(row, Status::Failed, Some(p)),
            };
        }
        Ok(c) => c.program,
    };
    if matches!(want, Want::Invalid { .. } | Want::Exit(exit::INVALID)) {
        return finish(
            row,
            Status::Failed,
            Some("accepted, but expected to be rejected".into()),
        );
    }
    if let Some(why) = not_runnable(&program, &a) {
        return finish(row, Status::Skipped, Some(why));
    }
    // a header that pins an engine overrides --engine
    let pinned = case
        .options
        .iter()
        .any(|o| o == "--engine" || o.starts_with("--engine="))
        && !matches!(a.engine, Engine::Auto | Engine::All);
    let configs: Vec<Config> = if pinned {
        let mut v: Vec<Config> = configs
            .iter()
            .filter(|c| c.engine == a.engine)
            .cloned()
            .collect();
        if v.is_empty() {
            v.push(Config::new(a.engine.name(), a.engine, false, false));
        }
        v
    } else {
        configs.to_vec()
    };
    let mut not_applicable = Vec::new();
    for c in &configs {
        let left = budget.saturating_sub(cpu.spent());
        match run_config(c, &program, &a, left) {
            Ok(r) => row.results.push(r),
            Err(why) => not_applicable.push(format!("{}: {why}", c.name)),
        }
    }
    if row.results.is_empty() {
        return finish(
            row,
            Status::Skipped,
            Some(format!("no engine applies ({})", not_applicable.join("; "))),
        );
    }
    // A depth-bound cut (exit 8) is what the explicit engine must answer for unbounded
    // recursion; it does not count against a row that another engine decides as expected
    // (as with `zingrs check --engine all`), nor does an engine that says it does not look
    // for deadlocks. A time, state or memory limit (exit 9) makes the row inconclusive where
    // another engine decides it (an engine that cannot decide such a model by its nature,
    // e.g. explicit on unbounded thread creation, runs out of budget), and fails it with
    // `--strict` or where none does. A context-bound cut is no excuse where an engine under
    // the same bound (every one but coverability, which has none) finds the expected error:
    // the error is within the bound.
    let decided = row.results.iter().any(|r| {
        matches!(
            r.exit_code,
            Some(exit::PASSED | exit::ASSERTION | exit::DEADLOCK | exit::RUNTIME_ERROR)
        ) && agrees(want, r)
    });
    let limited = |r: &Run| !strict && decided && r.exit_code == Some(exit::LIMIT);
    let inconclusive: Vec<String> = row
        .results
        .iter()
        .filter(|r| limited(r) && !agrees(want, r))
        .map(|r| format!("{}: {}", r.engine, r.detail))
        .collect();
    let found_within = row.results.iter().any(|r| {
        r.exit_code == Some(exit::ASSERTION) && agrees(want, r) && r.engine != "coverability"
    });
    let wrong: Vec<String> = row
        .results
        .iter()
        .filter(|r| {
            let excused =
                decided && r.exit_code == Some(exit::BOUNDED) && !(found_within && context_cut(r));
            !excused && !limited(r) && !agrees(want, r)
        })
        .map(|r| {
            if r.exit_code == Some(exit::ASSERTION) && !r.has_trace {
                format!("{}: an error verdict without a counterexample", r.engine)
            } else {
                format!("{}: {}", r.engine, r.detail)
            }
        })
        .collect();
    let mut wrong = wrong;
    if let Some(n) = case.zing_states {
        let counted: Vec<&Run> = row
            .results
            .iter()
            .filter(|r| r.zing_states.is_some())
            .collect();
        if counted.is_empty() {
            wrong.push("no run counted ZING's states (run the explicit engine)".into());
        }
        for r in counted.into_iter().filter(|r| r.zing_states != Some(n)) {
            wrong.push(format!(
                "{}: {} states by ZING's count, expected {n}",
                r.engine,
                r.zing_states.unwrap_or(0)
            ));
        }
    }
    if wrong.is_empty() && !inconclusive.is_empty() {
        let why = format!(
            "{} (another engine decided it as expected)",
            inconclusive.join("; ")
        );
        finish(row, Status::Inconclusive, Some(why))
    } else if wrong.is_empty() {
        finish(row, Status::Passed, None)
    } else {
        finish(row, Status::Failed, Some(wrong.join("; ")))
    }
}

/// Why rejected diagnostics do not match an `invalid` expectation, if they do not.
fn invalid_mismatch(
    diags: &str,
    name: &str,
    message: &Option<String>,
    code: &Option<String>,
    errors: Option<usize>,
) -> Option<String> {
    if let Some(m) = message {
        if !diags.contains(m.as_str()) {
            return Some(format!("message `{m}` not among the diagnostics"));
        }
    }
    if let Some(c) = code {
        if !diags.contains(&format!("[{c}]")) {
            return Some(format!("no diagnostic with code [{c}]"));
        }
    }
    if let Some(n) = errors {
        let got = diags.matches("error[").count() + diags.matches("error:").count();
        if got < n {
            return Some(format!("expected at least {n} errors, got {got}"));
        }
    }
    if !diags.contains(&format!("{name}:")) {
        return Some("no file:line:col location in the diagnostics".into());
    }
    None
}

/// Runs the cases on `jobs` threads; rows in the order of the cases.
pub(super) fn run_all(
    cases: &[Case],
    configs: &[Config],
    jobs: usize,
    budget: Duration,
    strict: bool,
) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let rows: Vec<Mutex<Option<Row>>> = cases.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(cases.len().max(1)) {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else {
                        break;
                    };
                    let row = run_case(case, configs, budget, strict);
                    *rows[i].lock().expect("row") = Some(row);
                })
                .expect("worker thread");
        }
    });
    rows.into_iter()
        .map(|r| r.into_inner().expect("row").expect("every case ran"))
        .collect()
}

pub(super) fn closing_line(
    passed: usize,
    failed: usize,
    skipped: usize,
    inconclusive: usize,
) -> String {
    let mut s = format!("{passed} passed, {failed} failed");
    if inconclusive > 0 {
        s.push_str(&format!(", {inconclusive} inconclusive"));
    }
    if skipped > 0 {
        s.push_str(&format!(", {skipped} skipped"));
    }
    s
}

pub(super) fn render_text(t: &Table) -> String {
    let short = |r: &Run| match r.verdict.as_str() {
        "limit-reached" => "limit".to_string(),
        v => v.to_string(),
    };
    let mut cells: Vec<Vec<String>> = vec![{
        let mut h = vec!["model".to_string(), "expected".to_string()];
        h.extend(t.columns.iter().cloned());
        h.extend(["time".to_string(), "result".to_string()]);
        h
    }];
    for row in &t.rows {
        let mut c = vec![row.model.clone(), row.expected.clone()];
        let front_end = row.results.iter().find(|r| r.engine == "front end");
        for col in &t.columns {
            let cell = row
                .results
                .iter()
                .find(|r| &r.engine == col)
                .or(front_end)
                .map_or("-".to_string(), short);
            c.push(cell);
        }
        c.push(format!("{:.2}s", row.seconds));
        c.push(
            match row.status {
                Status::Passed => "ok",
                Status::Failed => "FAILED",
                Status::Skipped => "skipped",
                Status::Inconclusive => "inconclusive",
            }
            .into(),
        );
        cells.push(c);
    }
    let ncols = cells[0].len();
    let widths: Vec<usize> = (0..ncols)
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in &cells {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    let notes: Vec<&Row> = t.rows.iter().filter(|r| r.reason.is_some()).collect();
    if !notes.is_empty() {
        out.push('\n');
        for r in notes {
            let tag = match r.status {
                Status::Failed => "FAILED",
                Status::Inconclusive => "inconclusive",
                _ => "skipped",
            };
            out.push_str(&format!(
                "{tag} {}: {}\n",
                r.model,
                r.reason.as_deref().unwrap_or("")
            ));
        }
    }
    out.push_str(&t.summary);
    out.push('\n');
    out
}

/// Whether a run's verdict is a cut by the context-switch bound (`--contexts K`).
fn context_cut(r: &Run) -> bool {
    r.exit_code == Some(exit::BOUNDED) && r.detail.contains(crate::report::CONTEXT_BOUND)
}
