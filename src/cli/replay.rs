//! `zingrs replay MODEL REPORT.json`: re-executes a counterexample saved with `check -o FILE`
//! (or `--format json`), checks that it is a counterexample of this model that ends in exactly
//! the reported verdict, and shows it as `check` does.
//!
//! The report is read with a typed, streaming reader that skips the trace (a million-step
//! report is gigabytes of JSON; only the path is needed), and the replay keeps every state only
//! when the trace is printed.

use crate::report::{self, exit, Claim, Format, Report, TraceDetail, Verdict};
use crate::runtime::{Machine, RtError, Semantics};
use crate::search;
use crate::search::Path;
use serde::Deserialize;
use std::path::PathBuf;

/// Options of `zingrs replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The model the counterexample belongs to.
    pub model: PathBuf,
    /// A report written by `zingrs check -o FILE` or `zingrs check --format json`.
    pub trace: PathBuf,
    #[arg(long, value_enum)]
    pub lang: Option<super::LangArg>,
    /// How much of each step to print (`none`: only check the report and print the verdict).
    #[arg(long, value_enum, default_value = "full")]
    pub detail: TraceDetail,
}

/// The fields of a saved report that replay needs; the others (the trace, the statistics)
/// are skipped unread.
#[derive(Deserialize)]
struct Saved {
    schema: Option<u32>,
    model: String,
    source_hash: Option<String>,
    verdict: SavedVerdict,
    path: Option<Path>,
    assertions: Option<bool>,
    cooperative: Option<bool>,
}

/// A saved verdict, as [`Verdict`] serializes it.
#[derive(Deserialize, Debug)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum SavedVerdict {
    AssertionFailed {
        procedure: String,
        line: u32,
    },
    TargetReached {
        label: String,
        procedure: String,
        line: u32,
    },
    RuntimeError {
        error: RtError,
        procedure: String,
        line: u32,
    },
    Deadlock {
        blocked: u32,
    },
    #[serde(other)]
    Other,
}

impl SavedVerdict {
    fn claim(&self) -> Option<Claim> {
        match self {
            SavedVerdict::AssertionFailed { .. } => Some(Claim::Assertion),
            SavedVerdict::TargetReached { label, .. } => Some(Claim::Target(label.clone())),
            SavedVerdict::RuntimeError { error, .. } => Some(Claim::Runtime(*error)),
            SavedVerdict::Deadlock { .. } => Some(Claim::Deadlock),
            SavedVerdict::Other => None,
        }
    }

    /// Whether the verdict the replay shows is exactly this one.
    fn agrees(&self, v: &Verdict) -> bool {
        match (self, v) {
            (
                SavedVerdict::AssertionFailed { procedure, line },
                Verdict::AssertionFailed {
                    procedure: p,
                    line: l,
                    ..
                },
            ) => procedure == p && line == l,
            (
                SavedVerdict::TargetReached {
                    label,
                    procedure,
                    line,
                },
                Verdict::TargetReached {
                    label: a,
                    procedure: p,
                    line: l,
                    ..
                },
            ) => label == a && procedure == p && line == l,
            (
                SavedVerdict::RuntimeError {
                    error,
                    procedure,
                    line,
                },
                Verdict::RuntimeError {
                    error: e,
                    procedure: p,
                    line: l,
                    ..
                },
            ) => error == e && procedure == p && line == l,
            (SavedVerdict::Deadlock { blocked }, Verdict::Deadlock { blocked: b, .. }) => {
                blocked == b
            }
            _ => false,
        }
    }
}

/// The file name a report or a model is known by (its directory may differ between machines).
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Replays and prints; returns the verdict's exit code, 7 for a report that is not one of
/// this model's counterexamples, 5 for one that does not replay to its verdict.
pub fn run(a: &ReplayArgs) -> i32 {
    super::arm_default_watchdog("replay");
    let program = match super::load(&a.model, a.lang, false) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let shown = a.trace.display();
    let saved: Saved = match std::fs::File::open(&a.trace) {
        Ok(f) => match serde_json::from_reader(std::io::BufReader::with_capacity(1 << 16, f)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {shown} is not a zingrs JSON report: {e}");
                return exit::INVALID;
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {shown}: {e}");
            return exit::INVALID;
        }
    };
    if !saved
        .schema
        .is_some_and(|s| (report::OLDEST_REPLAYABLE..=report::SCHEMA).contains(&s))
    {
        eprintln!(
            "error: {shown} has report schema {}, this zingrs reads schemas {} to {}",
            saved.schema.map_or("(none)".into(), |s| s.to_string()),
            report::OLDEST_REPLAYABLE,
            report::SCHEMA
        );
        return exit::INVALID;
    }
    let name = a.model.display().to_string();
    let hash = report::source_hash(&program.source.text);
    let same_name =
        name == "-" || saved.model == "-" || file_name(&saved.model) == file_name(&name);
    if !same_name || saved.source_hash.as_deref() != Some(hash.as_str()) {
        eprintln!(
            "error: {shown} is a report of {} (source {}), not of {name} (source {hash})",
            saved.model,
            saved.source_hash.as_deref().unwrap_or("unknown"),
        );
        return exit::INVALID;
    }
    let Some(claim) = saved.verdict.claim() else {
        eprintln!("error: {shown} reports no error, so it holds no counterexample to replay");
        return exit::INVALID;
    };
    let Some(path) = saved.path else {
        eprintln!("error: {shown} holds no counterexample path");
        return exit::INVALID;
    };
    let semantics = Semantics {
        check_assertions: saved.assertions.unwrap_or(true),
        // a path under `--threads` is a path of the unbounded program too
        thread_bound: None,
        cooperative: saved.cooperative.unwrap_or(false),
    };
    let m = Machine::new(&program, semantics);
    let wrong = |e: String| {
        eprintln!("error: the report's counterexample is wrong for {name}: {e}");
        exit::INTERNAL
    };
    // one state is kept: the trace replays the path again as it is printed
    let with_trace = a.detail != TraceDetail::None;
    let replayed = match search::replay_keeping(&m, &path, false) {
        Ok(r) => r,
        Err(e) => return wrong(format!("it does not replay: {e}")),
    };
    let (verdict, end) = match report::verify(&m, &path, &replayed, &claim) {
        Ok(v) => v,
        Err(e) => return wrong(e),
    };
    if !saved.verdict.agrees(&verdict) {
        return wrong(format!(
            "the path ends in \"{}\", the report says {:?}",
            verdict.headline(),
            saved.verdict
        ));
    }
    let trace = with_trace.then(|| report::build_trace(&m, &path, &replayed, end));
    println!(
        "Replaying {} steps of {shown} on {name}: the path ends in the reported verdict",
        path.choices.len(),
    );
    let mut r = Report::new(&name, "replay", verdict, trace);
    r.source_hash = hash;
    let code = r.exit_code;
    let stdout = std::io::stdout();
    if let Err(e) = report::render_to(
        &mut stdout.lock(),
        &r,
        Format::Text,
        a.detail,
        false,
        false,
        false,
    ) {
        eprintln!("error: cannot print the trace: {e}");
    }
    code
}
