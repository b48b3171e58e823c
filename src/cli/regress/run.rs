//! Engine configurations and one configuration's run on a model, in-process; also the core of
//! the differential test (tests/differential.rs): [`check_text`] and the comparators
//! [`disagreement`] and [`bounded_disagreement`].

use super::cases::header;
use super::RegressEngine;
use crate::check::Settings;
use crate::cli::check::{report_of, run_engine, CheckArgs, Engine};
use crate::report::Verdict;
use crate::report::{exit, Report};
use crate::runtime::{Machine, Semantics};
use crate::search::{watchdog, Limit, Reduction};
use clap::Parser;
use serde::Serialize;
use std::time::{Duration, Instant};
use zingrs_lang::ir::Program;

/// One way of checking a model: an engine and its search options.
#[derive(Clone, Debug)]
pub struct Config {
    /// The column name: `explicit`, `explicit-bfs`, `explicit-exact`, `explicit-unreduced`,
    /// `summary`, `bdd`, `coverability`.
    pub name: String,
    pub(super) engine: Engine,
    bfs: bool,
    exact: bool,
    /// Overrides the model's `--reduction` (the unreduced column).
    reduction: Option<Reduction>,
    /// Overrides `--symmetry` (off in the unreduced column).
    symmetry: Option<bool>,
    /// A live-thread bound (`--threads N`) for the explicit engine.
    threads: Option<u32>,
    /// The bdd engine with `--context-tuples` (checked only where it differs from `bdd`).
    tuples: bool,
    /// The explicit search's workers (`--workers`; 1 unless set).
    workers: usize,
}

impl Config {
    pub(super) fn new(name: &str, engine: Engine, bfs: bool, exact: bool) -> Config {
        Config {
            name: name.into(),
            engine,
            bfs,
            exact,
            reduction: None,
            symmetry: None,
            threads: None,
            tuples: false,
            workers: 1,
        }
    }

    /// This configuration with `n` search workers, named `NAME-wN`.
    fn with_workers(self, n: usize) -> Config {
        Config {
            name: format!("{}-w{n}", self.name),
            workers: n,
            ..self
        }
    }

    /// The search workers of this configuration.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Whether this configuration searches breadth-first (`--bfs`).
    pub fn bfs(&self) -> bool {
        self.bfs
    }

    /// The name of this configuration at one worker (the one whose counts it must repeat).
    pub fn base_name(&self) -> &str {
        match self.name.rsplit_once("-w") {
            Some((base, n)) if n.parse::<usize>().is_ok() => base,
            _ => &self.name,
        }
    }

    /// The bdd engine with seed 002 §5's tuples where product states would apply.
    fn tuples() -> Config {
        Config {
            tuples: true,
            ..Config::new("bdd-tuples", Engine::Bdd, false, false)
        }
    }

    /// The explicit engine with no reduction (nor symmetry): what every reduction is checked
    /// against.
    fn unreduced() -> Config {
        Config {
            reduction: Some(Reduction::None),
            symmetry: Some(false),
            ..Config::new("explicit-unreduced", Engine::Explicit, false, false)
        }
    }

    /// The explicit engine under the live-thread bound `n`, with symmetry on or off.
    fn bounded(n: u32, symmetry: bool) -> Config {
        let name = if symmetry {
            format!("explicit-threads-{n}")
        } else {
            format!("explicit-threads-{n}-nosym")
        };
        Config {
            threads: Some(n),
            symmetry: Some(symmetry),
            ..Config::new(&name, Engine::Explicit, false, false)
        }
    }
}

/// For programs that create threads in a loop (`zingrs gen random-spawn-bp`): the coverability
/// engine (an answer for any number of threads), the explicit engine deepening on the thread
/// bound, and the explicit engine under `--threads 2` and `--threads 3`, the latter with and
/// without symmetry. [`bounded_disagreement`] compares them.
pub fn spawn_configs() -> Vec<Config> {
    vec![
        Config::new("coverability", Engine::Coverability, false, false),
        Config::new("explicit", Engine::Explicit, false, false),
        Config::bounded(2, true),
        Config::bounded(3, true),
        Config::bounded(3, false),
    ]
}

/// Every engine, plus explicit search breadth-first, with exact storage and without
/// reductions: what the differential test compares.
pub fn differential_configs() -> Vec<Config> {
    vec![
        Config::new("explicit", Engine::Explicit, false, false),
        Config::new("explicit-bfs", Engine::Explicit, true, false),
        Config::new("explicit-exact", Engine::Explicit, false, true),
        Config::unreduced(),
        // several workers sharing one visited set, oversubscribed on any machine of ours
        Config::new("explicit", Engine::Explicit, false, false).with_workers(3),
        Config::new("summary", Engine::Summary, false, false),
        Config::new("bdd", Engine::Bdd, false, false),
        Config::tuples(),
        Config::new("coverability", Engine::Coverability, false, false),
    ]
}

/// The explicit search (with its reductions at 1, 2 and 8 workers, without them at 1 and 4,
/// with exact storage at 1 and 2) and the summary engine (at 1 and 3): the stored states must
/// be the same at every number (tests/workers.rs), and so must the verdicts.
pub fn worker_configs() -> Vec<Config> {
    let mut v = Vec::new();
    for (base, counts) in [
        (
            Config::new("explicit", Engine::Explicit, false, false),
            &[1, 2, 8][..],
        ),
        (Config::unreduced(), &[1, 4]),
        (
            Config::new("explicit-bfs", Engine::Explicit, true, false),
            &[1, 2],
        ),
        (
            Config::new("explicit-exact", Engine::Explicit, false, true),
            &[1, 2],
        ),
        (
            Config::new("summary", Engine::Summary, false, false),
            &[1, 3],
        ),
    ] {
        for &n in counts {
            v.push(base.clone().with_workers(n));
        }
    }
    v
}

pub(super) fn configs_for(engine: RegressEngine, modes: bool) -> Vec<Config> {
    let mut v = Vec::new();
    let explicit = matches!(engine, RegressEngine::Explicit | RegressEngine::All);
    if explicit {
        v.push(Config::new("explicit", Engine::Explicit, false, false));
        if modes {
            v.push(Config::new("explicit-bfs", Engine::Explicit, true, false));
            v.push(Config::new("explicit-exact", Engine::Explicit, false, true));
            v.push(Config::unreduced());
        }
    }
    if matches!(engine, RegressEngine::Summary | RegressEngine::All) {
        v.push(Config::new("summary", Engine::Summary, false, false));
    }
    if matches!(engine, RegressEngine::Bdd | RegressEngine::All) {
        v.push(Config::new("bdd", Engine::Bdd, false, false));
        v.push(Config::tuples());
    }
    if matches!(engine, RegressEngine::Coverability | RegressEngine::All) {
        v.push(Config::new(
            "coverability",
            Engine::Coverability,
            false,
            false,
        ));
    }
    v
}

/// One engine's answer on one model.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    /// The configuration ([`Config::name`]).
    pub engine: String,
    /// The verdict kind (`passed`, `assertion-failed`, `target-reached`, `bounded`,
    /// `limit-reached`, `internal-error`, `invalid`, `panic`, ...).
    pub verdict: String,
    /// The exit code `zingrs check` would give (none after a panic).
    pub exit_code: Option<i32>,
    pub seconds: f64,
    /// The verdict's headline.
    pub detail: String,
    /// An error verdict came with a non-empty counterexample.
    #[serde(skip)]
    pub has_trace: bool,
    /// The counterexample's steps (0 without one).
    #[serde(skip)]
    pub trace_len: usize,
    /// ZING's state count, from the plain search of a Zing model.
    #[serde(skip)]
    pub zing_states: Option<u64>,
    /// The states the search stored.
    #[serde(skip)]
    pub states: u64,
}

/// Parses `zingrs check` options (as written in a header or manifest) into [`CheckArgs`].
pub(super) fn parse_options(options: &[String]) -> Result<CheckArgs, String> {
    #[derive(Parser, Debug)]
    #[command(name = "options")]
    struct Wrap {
        #[command(flatten)]
        check: CheckArgs,
    }
    let mut argv = vec!["options".to_string()];
    argv.extend(options.iter().cloned());
    argv.push("MODEL".into());
    Wrap::try_parse_from(argv).map(|w| w.check).map_err(|e| {
        let s = e.to_string();
        s.lines().next().unwrap_or("bad options").to_string()
    })
}

/// The search options and semantics `zingrs check` would use for these options (kept in step
/// with `check::run`), with the time limit capped by `budget`.
fn options_of(
    c: &Config,
    program: &Program,
    a: &CheckArgs,
    budget: Duration,
) -> (Settings, Semantics) {
    let (mut settings, semantics) = crate::cli::check::options_and_semantics(a, program);
    let how = &mut settings.explicit;
    how.bfs |= c.bfs;
    how.exact |= c.exact;
    if let Some(r) = c.reduction {
        how.reduction = r;
    }
    if let Some(on) = c.symmetry {
        how.symmetry = on;
    }
    how.workers = c.workers;
    settings.symbolic.tuples |= c.tuples;
    let mut semantics = semantics;
    if let Some(n) = c.threads {
        // as `--threads N` would: the bound replaces the deepening on it
        semantics.thread_bound = Some(n);
        settings.deepen_threads = false;
    }
    let opts = &mut settings.search;
    opts.keep_going = false;
    opts.limits.timeout = Some(a.timeout.map_or(budget, |t| budget.min(t)));
    // models run side by side: each is timed by the CPU time its own thread uses
    opts.limits.cpu_time = true;
    // no progress lines: many checks run at once and the table is the output
    opts.limits.progress = false;
    (settings, semantics)
}

/// Runs one configuration; `Err` says why the engine does not apply.
pub(super) fn run_config(
    c: &Config,
    program: &Program,
    a: &CheckArgs,
    budget: Duration,
) -> Result<Run, String> {
    let (opts, semantics) = options_of(c, program, a, budget);
    if c.tuples
        && (opts.search.contexts.is_none() || !crate::symbolic::contexts::product_applies(program))
    {
        return Err("the bdd engine's own search here (no product states to compare)".into());
    }
    let start = Instant::now();
    // this run's memory limit, armed on this thread only: other models run beside it
    let guard = watchdog::guard(opts.search.limits.memory);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_engine(c.engine, program, semantics.clone(), &opts).map(|result| {
            let m = std::sync::Arc::new(Machine::new(program, semantics));
            let report = report_of(&m, "model", c.engine.name(), &result, &opts);
            run_of(&c.name, &report, 0.0)
        })
    }));
    drop(guard);
    let seconds = start.elapsed().as_secs_f64();
    match outcome {
        Ok(Ok(run)) => Ok(Run { seconds, ..run }),
        Ok(Err(why)) => Err(why),
        Err(payload) if payload.is::<watchdog::LimitUnwind>() => {
            let limit = payload
                .downcast_ref::<watchdog::LimitUnwind>()
                .map_or(Limit::Memory, |l| l.0);
            let verdict = Verdict::LimitReached { limit };
            Ok(Run {
                engine: c.name.clone(),
                verdict: "limit-reached".into(),
                exit_code: Some(exit::LIMIT),
                seconds,
                detail: verdict.headline(),
                has_trace: false,
                trace_len: 0,
                zing_states: None,
                states: 0,
            })
        }
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Ok(Run {
                engine: c.name.clone(),
                verdict: "panic".into(),
                exit_code: None,
                seconds,
                detail: format!("the engine panicked: {msg}"),
                has_trace: false,
                trace_len: 0,
                zing_states: None,
                states: 0,
            })
        }
    }
}

fn run_of(engine: &str, r: &Report, seconds: f64) -> Run {
    let verdict = serde_json::to_value(&r.verdict)
        .ok()
        .and_then(|v| v["kind"].as_str().map(String::from))
        .unwrap_or_else(|| "unknown".into());
    Run {
        engine: engine.into(),
        verdict,
        exit_code: Some(r.exit_code),
        seconds,
        detail: r.verdict.headline(),
        has_trace: r.trace.as_ref().is_some_and(|t| !t.is_empty()),
        trace_len: r.trace.as_ref().map_or(0, |t| t.len()),
        zing_states: r.stats.zing_states,
        states: r.stats.states,
    }
}

/// Why no engine can run this program at all (the checks `zingrs check` makes first; today
/// every compiled model runs).
pub(super) fn not_runnable(_program: &Program, _a: &CheckArgs) -> Option<String> {
    None
}

/// Checks a boolean program given as text with each applicable configuration, using the options
/// of its `// options:` header, with a stack-depth bound (unless the header sets one) and a time
/// limit per configuration.
/// Configurations whose engine does not apply are left out. `Err` carries the diagnostics of a
/// program that does not compile (or bad header options).
pub fn check_text(
    name: &str,
    text: &str,
    configs: &[Config],
    max_depth: u32,
    timeout: Duration,
) -> Result<Vec<Run>, String> {
    let options = header(text).options;
    let mut a = parse_options(&options)?;
    if !options.iter().any(|o| o.starts_with("--max-depth")) {
        a.max_depth = max_depth;
    }
    let lang = zingrs_lang::Lang::from_path(name).unwrap_or(zingrs_lang::Lang::Bp);
    let c = zingrs_lang::compile(name, text, lang).map_err(|d| {
        let src = zingrs_lang::ir::Source::new(name, text);
        zingrs_lang::diag::render(&src, &d)
    })?;
    if let Some(why) = not_runnable(&c.program, &a) {
        return Err(why);
    }
    Ok(configs
        .iter()
        .filter_map(|cfg| run_config(cfg, &c.program, &a, timeout).ok())
        .collect())
}

/// [`disagreement`], plus what the runs under a live-thread bound must satisfy (`--threads N`
/// passes with exit 8, so `disagreement` compares only the errors they find, against every
/// conclusive verdict: an error under a bound is a real interleaving, which a proof for any
/// number of threads must not deny; an error found by coverability may need more threads than
/// a bound allows, and is then no contradiction):
/// - two runs under the same bound, with and without symmetry, both find an error or neither;
/// - an error under a bound is an error under every larger bound (a path with at most N live
///   threads is a path under the bound N + 1).
///
/// Runs stopped by a limit (exit 9) are not compared.
pub fn bounded_disagreement(configs: &[Config], runs: &[Run]) -> Option<String> {
    if let Some(why) = disagreement(runs) {
        return Some(why);
    }
    let bounded: Vec<(u32, &Run)> = runs
        .iter()
        .filter_map(|r| {
            let c = configs.iter().find(|c| c.name == r.engine)?;
            let n = c.threads?;
            matches!(r.exit_code, Some(e) if e != exit::LIMIT).then_some((n, r))
        })
        .collect();
    for &(n, a) in &bounded {
        for &(m, b) in &bounded {
            let contradicts = if n == m {
                // both find an error or neither: a deadlock and an assertion may both be
                // reachable, and the search order (symmetry) decides which is met first
                (a.exit_code == Some(exit::BOUNDED)) != (b.exit_code == Some(exit::BOUNDED))
            } else {
                n < m && a.exit_code != Some(exit::BOUNDED) && b.exit_code == Some(exit::BOUNDED)
            };
            if contradicts {
                return Some(format!(
                    "{} says {} (\"{}\") but {} says {} (\"{}\")",
                    a.engine, a.verdict, a.detail, b.engine, b.verdict, b.detail
                ));
            }
        }
    }
    None
}

/// Compares the conclusive verdicts (exit 0 or 3) of several runs on one model; a description
/// of the first contradiction, if any. A panic or an internal error (exit 5, e.g. a
/// counterexample that does not replay) is a disagreement too.
pub fn disagreement(runs: &[Run]) -> Option<String> {
    if let Some(bad) = runs
        .iter()
        .find(|r| r.exit_code.is_none() || r.exit_code == Some(exit::INTERNAL))
    {
        return Some(format!("{}: {}", bad.engine, bad.detail));
    }
    let conclusive: Vec<&Run> = runs
        .iter()
        .filter(|r| {
            matches!(
                r.exit_code,
                Some(
                    exit::PASSED
                        | exit::ASSERTION
                        | exit::DEADLOCK
                        | exit::RUNTIME_ERROR
                        | exit::LIVENESS
                )
            )
        })
        .collect();
    // Every error verdict comes with a counterexample that replayed, so two engines that stop
    // at different errors (an assertion here, a null dereference there: the first one each
    // search order meets) both tell the truth; they disagree only when one finds no error.
    let found = |r: &Run| r.exit_code != Some(exit::PASSED);
    let first = conclusive.first()?;
    conclusive
        .iter()
        .find(|r| found(r) != found(first))
        .map(|other| {
            format!(
                "{} says {} (\"{}\") but {} says {} (\"{}\")",
                first.engine,
                first.verdict,
                first.detail,
                other.engine,
                other.verdict,
                other.detail
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparator_reports_contradictions() {
        let run = |e: &str, code: i32| Run {
            engine: e.into(),
            verdict: if code == 0 {
                "passed"
            } else {
                "assertion-failed"
            }
            .into(),
            exit_code: Some(code),
            seconds: 0.0,
            detail: String::new(),
            has_trace: code == 3,
            trace_len: 0,
            zing_states: None,
            states: 0,
        };
        assert!(disagreement(&[run("a", 0), run("b", 3)]).is_some());
        assert!(disagreement(&[run("a", 3), run("b", 3), run("c", 8)]).is_none());
        assert!(disagreement(&[run("a", 0), run("b", 9)]).is_none());
    }
}
