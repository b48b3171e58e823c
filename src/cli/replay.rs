//! `zingrs replay MODEL TRACE.json`: re-executes a counterexample saved with `--format json`
//! and shows every state along it.

use crate::explore::{self, Path};
use crate::report::{exit, TraceDetail};
use crate::runtime::{Machine, Semantics};
use std::path::PathBuf;

/// Options of `zingrs replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The model the counterexample belongs to.
    pub model: PathBuf,
    /// A report written by `zingrs check --format json`.
    pub trace: PathBuf,
    #[arg(long, value_enum)]
    pub lang: Option<super::LangArg>,
    /// How much of each step to print.
    #[arg(long, value_enum, default_value = "full")]
    pub detail: TraceDetail,
}

/// Replays and prints; returns the verdict's exit code, or 5 if the trace does not replay.
pub fn run(a: &ReplayArgs) -> i32 {
    super::arm_default_watchdog("replay");
    let program = match super::load(&a.model, a.lang, false) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let text = match std::fs::read_to_string(&a.trace) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", a.trace.display());
            return exit::INVALID;
        }
    };
    let json: serde_json::Value = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: {} is not a JSON report: {e}", a.trace.display());
            return exit::INVALID;
        }
    };
    let path: Path = match serde_json::from_value(json["path"].clone()) {
        Ok(p) => p,
        Err(_) => {
            eprintln!(
                "error: {} holds no counterexample path (only failing checks have one)",
                a.trace.display()
            );
            return exit::INVALID;
        }
    };
    let semantics = Semantics {
        check_assertions: json["assertions"].as_bool().unwrap_or(true),
    };
    let m = Machine::new(&program, semantics);
    let replayed = match explore::replay(&m, &path) {
        Ok(r) => r,
        Err(e) => {
            println!("The trace does not replay on {}: {e}", a.model.display());
            return exit::INTERNAL;
        }
    };
    let end = match replayed.violation {
        Some(_) => None,
        None => Some(path.choices.last().map_or(0, |c| c.thread)),
    };
    let trace = crate::report::build_trace(&m, &path, &replayed, end, false);
    println!(
        "Replaying {} steps of {} on {}",
        path.choices.len(),
        a.trace.display(),
        a.model.display()
    );
    for s in &trace.steps {
        let values: Vec<String> = s
            .values
            .iter()
            .map(|b| format!("{}={}", b.name, b.value))
            .collect();
        print!(
            "  #{:<4} t{} {}{} line {}: {}",
            s.step,
            s.thread,
            "  ".repeat(s.depth.saturating_sub(1) as usize),
            s.procedure,
            s.line,
            s.statement
        );
        if a.detail == TraceDetail::Full {
            print!("  [{}]", values.join(" "));
        }
        println!();
        if a.detail == TraceDetail::Full && !s.changed.is_empty() {
            let changed: Vec<String> = s
                .changed
                .iter()
                .map(|b| format!("{} = {}", b.name, b.value))
                .collect();
            println!("        changed: {}", changed.join(", "));
        }
    }
    if replayed.violation.is_some() {
        println!("The last step violates an assertion.");
        exit::ASSERTION
    } else {
        println!("The trace replays; its last state is reached.");
        json["exit_code"].as_i64().map_or(0, |c| c as i32)
    }
}
