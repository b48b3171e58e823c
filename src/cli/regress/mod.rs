//! `zingrs regress PATH...`: runs models against their expected verdicts.
//!
//! Expectations come from three places (regressions/README.md describes them):
//! 1. the `// expect:` header of a model file;
//! 2. CBMC/SatAbs `test.desc` directories (line 2 the model, line 3 the options, then
//!    `^VERIFICATION SUCCESSFUL$` / `^VERIFICATION FAILED$`);
//! 3. manifests (`*.tsv`, `*.csv`): model, options, expected result.
//!
//! Getafix file names with an underscore-delimited `safe` / `unsafe` token (bp-language.md §7.2)
//! count too when a file has no header. Every model is checked in-process by every selected
//! engine that applies, on `--jobs` threads; the table ends with `N passed, M failed`.
//!
//! The module also offers [`check_text`] and [`disagreement`], the core of the differential
//! test (tests/differential.rs).

mod cases;
mod run;
mod table;

pub use cases::{header_options, option_words};
pub use run::{
    bounded_disagreement, check_text, differential_configs, disagreement, spawn_configs,
    worker_configs, Config, Run,
};
pub use table::{Row, Status, Table};

use crate::report::exit;
use cases::discover;
use run::configs_for;
use std::path::PathBuf;
use std::time::Duration;
use table::{closing_line, render_text, run_all};

/// Which engines `regress` runs (`--engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RegressEngine {
    Explicit,
    Summary,
    Bdd,
    Coverability,
    /// Every engine that applies to the model.
    All,
}

/// How the table is printed (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    Text,
    Json,
}

/// Options of `zingrs regress`.
#[derive(clap::Args, Debug)]
pub struct RegressArgs {
    /// Model files, directories (searched recursively), test.desc files or manifests (.tsv/.csv).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The engine(s); a model whose options pin `--engine` runs on that engine only.
    #[arg(long, value_enum, default_value = "all")]
    pub engine: RegressEngine,
    /// Models checked in parallel (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N", value_parser = jobs)]
    pub jobs: Option<usize>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: TableFormat,
    /// Time budget per model, in seconds of CPU time, shared by its engines (running out is
    /// inconclusive).
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = super::positive_seconds)]
    pub timeout: Duration,
    /// Also run the explicit engine breadth-first, with exact state storage, and without
    /// reductions.
    #[arg(long)]
    pub modes: bool,
    /// Fail a model on which some engine was stopped by a limit, even when another engine
    /// decided it as expected (without it such a row is "inconclusive", which does not fail).
    #[arg(long)]
    pub strict: bool,
}

/// Parses `--jobs`: at least one worker.
fn jobs(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("expected a positive number of jobs, not {s}")),
    }
}

/// Runs `zingrs regress`; returns the exit code: 0 if every row agrees (skipped rows do not
/// count), 1 if some row failed, 7 for a usage error.
pub fn run(a: &RegressArgs) -> i32 {
    for p in &a.paths {
        if !p.exists() {
            eprintln!("error: {} does not exist", p.display());
            return exit::INVALID;
        }
    }
    let (cases, ignored) = discover(&a.paths);
    if cases.is_empty() {
        eprintln!("error: no models found under the given paths");
        return exit::INVALID;
    }
    if !ignored.is_empty() {
        eprintln!(
            "note: ignoring test.desc options that zingrs does not need: {}",
            ignored.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let configs = configs_for(a.engine, a.modes);
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let rows = run_all(&cases, &configs, jobs, a.timeout, a.strict);
    let count = |s: Status| rows.iter().filter(|r| r.status == s).count();
    let (passed, failed, skipped, inconclusive) = (
        count(Status::Passed),
        count(Status::Failed),
        count(Status::Skipped),
        count(Status::Inconclusive),
    );
    let table = Table {
        columns: configs.iter().map(|c| c.name.clone()).collect(),
        rows,
        passed,
        failed,
        skipped,
        inconclusive,
        ignored_options: ignored.into_iter().collect(),
        summary: closing_line(passed, failed, skipped, inconclusive),
    };
    let out = match a.format {
        TableFormat::Text => render_text(&table),
        TableFormat::Json => {
            serde_json::to_string_pretty(&table).expect("the table serialises") + "\n"
        }
    };
    // a closed pipe (`| head`) is not an error worth a panic
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes());
    if failed == 0 {
        exit::PASSED
    } else {
        1
    }
}
