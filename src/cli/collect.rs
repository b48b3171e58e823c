//! `zingrs collect REPORT...`: one verdict from the JSON reports of many runs of one model
//! (a swarm: `check --seed S -o run-S.json` on many machines, docs/scale.md).
//!
//! The rules: the model is violated if some run's counterexample replays to its reported
//! verdict (each is judged as `zingrs replay` judges it, by [`super::replay::verify`]; a
//! report whose counterexample does not replay is rejected and proves nothing); it passed
//! only if some run was a complete search that passed (a `passed` verdict is only given to
//! one); otherwise it is inconclusive. A table lists the runs.

use super::regress::TableFormat;
use crate::report::exit;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Options of `zingrs collect`.
#[derive(clap::Args, Debug)]
pub struct CollectArgs {
    /// Reports written by `zingrs check -o FILE` (or `--format json`), or directories whose
    /// `*.json` files are such reports.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// The model the reports are of (default: the file each report names, as the run was
    /// given it); every report must be of this model's text.
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    #[arg(long, value_enum)]
    pub lang: Option<super::LangArg>,
    /// Print only the verdict line.
    #[arg(short, long)]
    pub quiet: bool,
    /// `json`: the collected verdict and every run's judgement as one JSON object, for
    /// scripts (the same facts as the table and the verdict line).
    #[arg(long, value_enum, default_value = "text")]
    pub format: TableFormat,
}

/// `collect --format json`: the collected verdict and how each run counted.
#[derive(Serialize)]
struct Collected {
    model: String,
    /// `violated`, `passed`, `inconclusive` or `internal-error`.
    verdict: &'static str,
    exit_code: i32,
    /// The verdict line of the text output.
    summary: String,
    runs: Vec<RunRow>,
}

/// One run in `collect --format json`.
#[derive(Serialize)]
struct RunRow {
    report: String,
    seed: Option<u64>,
    /// The engine, or `random` for random walks.
    search: String,
    random_walks: bool,
    /// Stored states (0 for random walks, which store none).
    states: u64,
    /// Transitions, or the random walks' steps.
    transitions: Option<u64>,
    seconds: f64,
    /// The verdict kind the report claims.
    claimed: String,
    /// `replayed` (its counterexample replays to its verdict), `rejected` (it does not),
    /// `passed` (a complete search), or `inconclusive`.
    judged: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rejected_because: Option<String>,
}

/// What `collect` reads of a report (the rest, the trace above all, is skipped).
#[derive(Deserialize)]
struct Run {
    model: String,
    source_hash: Option<String>,
    engine: Option<String>,
    verdict: Kind,
    exit_code: Option<i32>,
    #[serde(default)]
    stats: RunStats,
    seed: Option<u64>,
    #[serde(default)]
    random_walks: bool,
}

#[derive(Deserialize)]
struct Kind {
    kind: String,
}

#[derive(Deserialize, Default)]
struct RunStats {
    #[serde(default)]
    states: u64,
    #[serde(default)]
    transitions: Option<u64>,
    #[serde(default)]
    seconds: f64,
}

/// How one run counts.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Judged {
    /// Its counterexample replays to its verdict (whose exit code this is).
    Violated(i32),
    /// Its counterexample does not replay (why).
    Rejected(String),
    /// A complete search that found nothing.
    Passed,
    /// Cut by a bound (8), stopped by a limit (9), or an internal error (5).
    Inconclusive(i32),
}

/// The reports named on the command line: files as given, directories' `*.json` files in
/// name order.
fn report_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("cannot read the directory {}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "json") && f.is_file())
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(format!("{} holds no .json report", p.display()));
            }
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn read_run(file: &Path) -> Result<Run, String> {
    let f =
        std::fs::File::open(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    serde_json::from_reader(std::io::BufReader::with_capacity(1 << 16, f))
        .map_err(|e| format!("{} is not a zingrs JSON report: {e}", file.display()))
}

/// Collects and prints; returns the exit code of the collected verdict.
pub fn run(a: &CollectArgs) -> i32 {
    super::arm_default_watchdog("collect");
    let files = match report_files(&a.reports) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID;
        }
    };
    let mut runs = Vec::new();
    for f in &files {
        match read_run(f) {
            Ok(r) => runs.push(r),
            Err(e) => {
                eprintln!("error: {e}");
                return exit::INVALID;
            }
        }
    }
    // one model: the one given, or the one the first report names; every report must be of
    // its text
    let model = a
        .model
        .clone()
        .unwrap_or_else(|| PathBuf::from(&runs[0].model));
    let program = match super::load(&model, a.lang, true) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let name = model.display().to_string();
    let hash = crate::report::source_hash(&program.source.text);
    for (f, r) in files.iter().zip(&runs) {
        if r.source_hash.as_deref() != Some(hash.as_str()) {
            eprintln!(
                "error: {} is a report of {} (source {}), not of {name} (source {hash}): collect the reports of one model",
                f.display(),
                r.model,
                r.source_hash.as_deref().unwrap_or("unknown")
            );
            return exit::INVALID;
        }
    }
    let judged: Vec<Judged> = files
        .iter()
        .zip(&runs)
        .map(|(f, r)| judge(&program, &name, f, r))
        .collect();
    let first_violation = judged.iter().find_map(|j| match j {
        Judged::Violated(code) => Some(*code),
        _ => None,
    });
    let rejected = judged
        .iter()
        .filter(|j| matches!(j, Judged::Rejected(_)))
        .count();
    let passed = judged.iter().filter(|j| **j == Judged::Passed).count();
    let (code, line) = match first_violation {
        Some(code) => (
            code,
            format!(
                "Violated: {} of {} runs found an error that replays",
                judged
                    .iter()
                    .filter(|j| matches!(j, Judged::Violated(_)))
                    .count(),
                judged.len()
            ),
        ),
        None if rejected > 0 => (
            exit::INTERNAL,
            format!(
                "Internal error: {rejected} of {} runs report an error whose counterexample does not replay, none one that does",
                judged.len()
            ),
        ),
        None if passed > 0 => (
            exit::PASSED,
            format!(
                "Passed: {passed} of {} runs searched the whole state space and found no error",
                judged.len()
            ),
        ),
        None => {
            let internal = judged.contains(&Judged::Inconclusive(exit::INTERNAL));
            let limited = judged.contains(&Judged::Inconclusive(exit::LIMIT));
            let code = if internal {
                exit::INTERNAL
            } else if limited {
                exit::LIMIT
            } else {
                exit::BOUNDED
            };
            (
                code,
                format!(
                    "Inconclusive: none of {} runs found an error, and none searched the whole state space",
                    judged.len()
                ),
            )
        }
    };
    if a.format == TableFormat::Json {
        let word = match first_violation {
            Some(_) => "violated",
            None if code == exit::PASSED => "passed",
            None if code == exit::INTERNAL => "internal-error",
            None => "inconclusive",
        };
        let collected = Collected {
            model: name.clone(),
            verdict: word,
            exit_code: code,
            summary: line,
            runs: rows(&files, &runs, &judged),
        };
        let text = serde_json::to_string_pretty(&collected).expect("the verdict serialises");
        // a closed pipe (`| head`) is not an error worth a panic
        let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), (text + "\n").as_bytes());
        return code;
    }
    if !a.quiet {
        print_table(&files, &runs, &judged);
        if first_violation.is_some() && passed > 0 {
            println!("note: {passed} runs passed although an error replays: were they run with other options (--no-deadlock, --no-assertions, --property)?");
        }
    }
    println!("{line} ({name})");
    code
}

/// How one run counts: a violation replayed (as `zingrs replay` does), else its verdict.
fn judge(program: &zingrs_lang::ir::Program, name: &str, file: &Path, r: &Run) -> Judged {
    match r.verdict.kind.as_str() {
        "passed" => Judged::Passed,
        "bounded" => Judged::Inconclusive(exit::BOUNDED),
        "limit-reached" => Judged::Inconclusive(exit::LIMIT),
        "internal-error" => Judged::Inconclusive(exit::INTERNAL),
        _ => match super::replay::verify(program, name, file) {
            Ok(v) if Some(v.verdict.exit_code()) == r.exit_code => {
                Judged::Violated(v.verdict.exit_code())
            }
            Ok(_) => Judged::Rejected("its exit code is not its verdict's".into()),
            Err((_, message)) => Judged::Rejected(message),
        },
    }
}

/// The search a run made, as the table names it.
fn search_of(r: &Run) -> String {
    match (r.random_walks, r.seed) {
        (true, _) => "random".to_string(),
        (false, Some(_)) => format!("{} seeded", r.engine.as_deref().unwrap_or("?")),
        (false, None) => r.engine.clone().unwrap_or_else(|| "?".into()),
    }
}

fn rows(files: &[PathBuf], runs: &[Run], judged: &[Judged]) -> Vec<RunRow> {
    files
        .iter()
        .zip(runs)
        .zip(judged)
        .map(|((f, r), j)| {
            let (word, why) = match j {
                Judged::Violated(_) => ("replayed", None),
                Judged::Rejected(why) => ("rejected", Some(why.clone())),
                Judged::Passed => ("passed", None),
                Judged::Inconclusive(_) => ("inconclusive", None),
            };
            RunRow {
                report: f.display().to_string(),
                seed: r.seed,
                search: search_of(r),
                random_walks: r.random_walks,
                states: r.stats.states,
                transitions: r.stats.transitions,
                seconds: r.stats.seconds,
                claimed: r.verdict.kind.clone(),
                judged: word,
                rejected_because: why,
            }
        })
        .collect()
}

fn print_table(files: &[PathBuf], runs: &[Run], judged: &[Judged]) {
    let rows: Vec<[String; 6]> = files
        .iter()
        .zip(runs)
        .zip(judged)
        .map(|((f, r), j)| {
            let search = search_of(r);
            let work = if r.random_walks {
                format!("{} steps", r.stats.transitions.unwrap_or(0))
            } else {
                format!("{} states", r.stats.states)
            };
            let got = match j {
                Judged::Violated(_) => format!("{} (replayed)", r.verdict.kind),
                Judged::Rejected(why) => format!("{} REJECTED: {why}", r.verdict.kind),
                _ => r.verdict.kind.clone(),
            };
            [
                f.display().to_string(),
                r.seed.map_or("-".into(), |s| s.to_string()),
                search,
                work,
                format!("{:.2} s", r.stats.seconds),
                got,
            ]
        })
        .collect();
    let head = ["report", "seed", "search", "work", "time", "verdict"];
    let mut width = head.map(str::len);
    for row in &rows {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(width).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  "));
            }
        }
        println!("{}", s.trim_end());
    };
    line(&head.map(String::from));
    for row in &rows {
        line(row);
    }
}
