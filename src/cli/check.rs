//! `zingrs check MODEL`.

use crate::explore::{self, Finding, Limits, Options};
use crate::report::{self, exit, Format, Report, TraceDetail, Verdict};
use crate::runtime::{Machine, Semantics, Violation};
use std::path::PathBuf;
use std::time::Duration;
use zingrs_lang::ir::{Layout, Program};

/// The engines (`--engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// The best engine for the model (bdd for boolean programs with many unconstrained bits,
    /// summary otherwise).
    Auto,
    /// Plain explicit-state search.
    Explicit,
    /// Explicit-state search with procedure summaries (seed 004 §6).
    Summary,
    /// Symbolic search with BDDs (pure sequential boolean programs, seed 001).
    Bdd,
    /// Every applicable engine, compared.
    All,
}

/// Options of `zingrs check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The model: a .bp or .zing file, or - for standard input.
    pub model: PathBuf,
    /// The language, when the file name does not tell.
    #[arg(long, value_enum)]
    pub lang: Option<super::LangArg>,
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: Engine,
    /// Also report reaching this label as an error (repeatable).
    #[arg(long = "target", value_name = "LABEL")]
    pub targets: Vec<String>,
    /// Treat `assert` as `assume` (label-only checking, as Bebop and Moped do).
    #[arg(long)]
    pub no_assertions: bool,
    /// Bound the number of context switches (concurrent models).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32))]
    pub contexts: Option<u32>,
    /// Breadth-first search: shortest counterexamples.
    #[arg(long)]
    pub bfs: bool,
    /// Zing's non-preemptive scheduling.
    #[arg(long)]
    pub cooperative: bool,
    /// Bound on the call-stack depth of any thread; deeper states are cut (exit 8).
    #[arg(long, value_name = "N", default_value_t = explore::DEFAULT_MAX_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: u32,
    /// Stop after storing N states (exit 9).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,
    /// Stop after SECS seconds, parsing included (exit 9).
    #[arg(long, value_name = "SECS", value_parser = super::seconds)]
    pub timeout: Option<Duration>,
    /// Stop when resident memory exceeds MB megabytes (exit 9); default: 3/4 of the memory
    /// available when the run starts.
    #[arg(long, value_name = "MB",
          value_parser = clap::value_parser!(u64).range(1..=super::MAX_MEGABYTES))]
    pub memory: Option<u64>,
    /// Store whole canonical states instead of 128-bit fingerprints.
    #[arg(long)]
    pub exact: bool,
    /// BDD engine: keep dead locals in path edges (switches off seed 001's live ranges).
    #[arg(long)]
    pub no_live_ranges: bool,
    /// BDD engine: keep every global in every procedure (switches off MOD/REF).
    #[arg(long)]
    pub no_mod_ref: bool,
    /// Report every distinct error, not only the first.
    #[arg(long)]
    pub keep_going: bool,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// How much of the counterexample to print.
    #[arg(long, value_enum, default_value = "full")]
    pub trace: TraceDetail,
    /// Print statistics.
    #[arg(long)]
    pub stats: bool,
    /// Print only the verdict.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print more (warnings about options that have no effect).
    #[arg(short, long)]
    pub verbose: bool,
}

fn usage_error(msg: &str) -> i32 {
    eprintln!("error: {msg}");
    exit::INVALID
}

/// Runs a check and prints its report; returns the exit code.
pub fn run(a: &CheckArgs) -> i32 {
    arm_watchdog(a);
    let program = match super::load(&a.model, a.lang, a.quiet) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if !a.quiet {
        for t in &a.targets {
            if !program.has_label(t) {
                eprintln!("warning: the target label {t} does not occur in the program");
            }
        }
    }
    let getafix = matches!(program.layout, Layout::Getafix { .. });
    if getafix && !a.quiet && !a.no_assertions {
        eprintln!(
            "note: Getafix concurrent layout (init + thread procedures): assertions are filters, only --target labels are reported"
        );
    }
    let (opts, semantics) = options_and_semantics(a, &program);
    let name = a.model.display().to_string();
    // ZING's layout dumps every state of a counterexample; the other formats do not need them
    let dumps = a.format == Format::Zing;
    let report = match a.engine {
        Engine::All => check_all(&program, &name, semantics, &opts, dumps),
        e => {
            let e = match e {
                // ZING's layout ends with ZING's state count, which only the plain search of
                // a Zing model keeps
                Engine::Auto if dumps && program.keep_completed => Engine::Explicit,
                Engine::Auto => auto_engine(&program),
                e => e,
            };
            let m = Machine::new(&program, semantics);
            match run_engine_on(e, &m, &opts) {
                Ok((mut result, replays)) => {
                    limit_reached_during(&mut result);
                    report_with(&m, &name, e.name(), &result, replays, &opts, dumps)
                }
                Err(why) => return usage_error(&why),
            }
        }
    };
    if !explore::watchdog::report() {
        // the watchdog forced a limit and prints its own report
        explore::watchdog::wait_for_exit();
    }
    let stdout = std::io::stdout();
    if let Err(e) = report::render_to(
        &mut stdout.lock(),
        &report,
        a.format,
        a.trace,
        a.stats,
        a.quiet,
    ) {
        eprintln!("error: cannot print the report: {e}");
    }
    let code = report.exit_code;
    // the process exits right after this (`main`): freeing the program and the report (a
    // large model's IR, a long counterexample) one allocation at a time would only delay that
    std::mem::forget(report);
    std::mem::forget(program);
    code
}

/// The memory limit of these arguments, in bytes.
fn memory_limit(a: &CheckArgs) -> Option<u64> {
    a.memory
        .map(|mb| mb.saturating_mul(1 << 20))
        .or_else(explore::default_memory_limit)
}

/// Starts the process's watchdog for these arguments, before the model is read, so that
/// `--timeout` and the memory limit cover the front end too. A limit the running phase does
/// not notice in time is reported by the watchdog: the verdict, the statistics published so
/// far, exit 9.
fn arm_watchdog(a: &CheckArgs) {
    let name = a.model.display().to_string();
    let engine = a.engine.name();
    let (format, trace, stats, quiet) = (a.format, a.trace, a.stats, a.quiet);
    let force = move |f: explore::watchdog::Forced| {
        let mut r = Report::new(
            &name,
            engine,
            Verdict::LimitReached { limit: f.limit },
            None,
        );
        r.stats.states = f.states;
        r.stats.seconds = f.elapsed.as_secs_f64();
        r.stats.peak_memory_bytes = explore::peak_bytes();
        let stdout = std::io::stdout();
        let _ = report::render_to(&mut stdout.lock(), &r, format, trace, stats, quiet);
    };
    explore::watchdog::arm(a.timeout, memory_limit(a), exit::LIMIT, Box::new(force));
}

/// A search that ended without a finding after the watchdog requested a limit did not notice
/// the limit in time (it was between two checks): it is reported as the limit, never as
/// "passed" or "bounded", since the limit was reached before the search ended.
fn limit_reached_during(result: &mut explore::SearchResult) {
    if result.findings.is_empty() && result.limit.is_none() {
        result.limit = explore::watchdog::stopped();
    }
}

/// The search options and the semantics that `zingrs check` uses for these arguments (the one
/// place that turns options into settings; `zingrs regress` adjusts its copy).
pub fn options_and_semantics(a: &CheckArgs, program: &Program) -> (Options, Semantics) {
    let opts = Options {
        bfs: a.bfs,
        exact: a.exact,
        targets: a.targets.clone(),
        keep_going: a.keep_going,
        contexts: a.contexts,
        cooperative: a.cooperative,
        no_live_ranges: a.no_live_ranges,
        no_mod_ref: a.no_mod_ref,
        verdict_only: a.trace == TraceDetail::None || (a.quiet && a.format != Format::Json),
        transactions: false,
        check_fingerprints: false,
        limits: Limits {
            max_depth: a.max_depth,
            max_states: a.max_states,
            timeout: a.timeout,
            memory: memory_limit(a),
            progress: !a.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        },
    };
    // in the Getafix layout assertions are filters (bp-language.md §5.13)
    let getafix = matches!(program.layout, Layout::Getafix { .. });
    let semantics = Semantics {
        check_assertions: !a.no_assertions && !getafix,
    };
    (opts, semantics)
}

impl Engine {
    /// The engine's name as the user types it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Explicit => "explicit",
            Engine::Summary => "summary",
            Engine::Bdd => "bdd",
            Engine::All => "all",
        }
    }
}

/// Above this many unconstrained initial bits `--engine auto` prefers the BDD engine: the
/// explicit and summary engines enumerate initial valuations (bp-parity K = 20 already takes
/// them seconds), while the BDD engine's sets stay small (K = 1000 in under a second).
const AUTO_BDD_BITS: usize = 16;

/// The engine `--engine auto` picks for a program: the BDD engine for pure boolean programs
/// with many unconstrained initial bits, the summary engine for every other model (it decides
/// sequential recursion, and summarizes the calls of concurrent models that run as one
/// transaction).
fn auto_engine(program: &Program) -> Engine {
    if !program.is_concurrent()
        && crate::symbolic::applies(program).is_ok()
        && initial_bits(program) > AUTO_BDD_BITS
    {
        return Engine::Bdd;
    }
    Engine::Summary
}

/// The number of booleans that take every value in the initial states.
fn initial_bits(program: &Program) -> usize {
    let any = |v: &&zingrs_lang::ir::Var| {
        v.ty == zingrs_lang::ir::Type::Bool && v.init == zingrs_lang::ir::Init::Any
    };
    let main_locals: usize = program
        .activations
        .iter()
        .map(|&a| program.procs[a as usize].locals.iter().filter(any).count())
        .sum();
    program.globals.iter().filter(any).count() + main_locals
}

/// The engines `--engine all` runs on a program, in order.
fn applicable_engines(_program: &Program) -> Vec<Engine> {
    vec![Engine::Explicit, Engine::Summary, Engine::Bdd]
}

/// Runs one engine; `Err` says why it does not apply to the program.
pub fn run_engine(
    engine: Engine,
    program: &Program,
    semantics: Semantics,
    opts: &Options,
) -> Result<explore::SearchResult, String> {
    run_engine_on(engine, &Machine::new(program, semantics), opts).map(|r| r.0)
}

/// The replays of a search's findings that the engine made itself (in order; `None` or
/// missing: the report replays the path).
type Replays = Vec<Option<explore::Replayed>>;

/// [`run_engine`] on a machine built once for the search and the report (building one
/// computes every procedure's live locals, a visible share of the time on large programs),
/// with the replays the engine made.
fn run_engine_on(
    engine: Engine,
    m: &Machine,
    opts: &Options,
) -> Result<(explore::SearchResult, Replays), String> {
    let program = m.program;
    match engine {
        Engine::Explicit => Ok((explore::search(m, opts), Vec::new())),
        Engine::Summary => {
            if crate::summary::applies(m) {
                Ok((crate::summary::search(m, opts), Vec::new()))
            } else {
                // threads (or blocking): calls that run as one transaction are summarized, every
                // other step is explored plainly
                let opts = Options {
                    transactions: true,
                    ..opts.clone()
                };
                Ok((explore::search(m, &opts), Vec::new()))
            }
        }
        Engine::Bdd => {
            crate::symbolic::applies(program)?;
            let sym = crate::symbolic::SymbolicOptions {
                live_variables: !opts.no_live_ranges,
                mod_ref: !opts.no_mod_ref,
                ..Default::default()
            };
            Ok(crate::symbolic::search(m, opts, &sym))
        }
        Engine::Auto | Engine::All => Err("not a single engine".into()),
    }
}

/// Runs every applicable engine and compares their conclusive verdicts; a disagreement is an
/// internal error (exit 5) naming the model and the engines.
fn check_all(
    program: &Program,
    name: &str,
    semantics: Semantics,
    opts: &Options,
    dumps: bool,
) -> Report {
    let m = Machine::new(program, semantics);
    let mut reports: Vec<Report> = Vec::new();
    for e in applicable_engines(program) {
        // an engine that panics is a bug to report (exit 5), not a crash of the comparison
        let run = match unpanicked(|| run_engine(e, program, semantics, opts)) {
            Ok(run) => run,
            Err(what) => {
                let message = format!("the {} engine panicked on {name}: {what}", e.name());
                return Report::new(name, "all", Verdict::InternalError { message }, None);
            }
        };
        if let Ok(mut result) = run {
            limit_reached_during(&mut result);
            reports.push(report_with(
                &m,
                name,
                e.name(),
                &result,
                Vec::new(),
                opts,
                dumps,
            ));
        }
    }
    let conclusive: Vec<&Report> = reports
        .iter()
        .filter(|r| {
            matches!(
                r.exit_code,
                exit::PASSED | exit::ASSERTION | exit::DEADLOCK | exit::RUNTIME_ERROR
            )
        })
        .collect();
    // engines may stop at different errors (each replayed); they disagree when one finds none
    let found = |r: &Report| r.exit_code != exit::PASSED;
    if let Some(first) = conclusive.first() {
        if let Some(other) = conclusive.iter().find(|r| found(r) != found(first)) {
            let message = format!(
                "engines disagree on {name}: {} says \"{}\", {} says \"{}\"",
                first.engine,
                first.verdict.headline(),
                other.engine,
                other.verdict.headline()
            );
            let mut r = Report::new(name, "all", Verdict::InternalError { message }, None);
            r.stats = first.stats.clone();
            return r;
        }
    }
    // agreeing engines: report the first conclusive answer (with its trace), else the first
    let best = conclusive.first().map(|r| (*r).clone());
    let mut r = best.unwrap_or_else(|| reports[0].clone());
    r.engine = format!(
        "all ({})",
        reports
            .iter()
            .map(|r| r.engine.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    r
}

/// Runs `f`, turning a panic into `Err` with its message.
fn unpanicked<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into())
    })
}

/// Turns any engine's result into a replayed, reported verdict.
pub fn report_of(
    m: &Machine,
    name: &str,
    engine: &str,
    result: &explore::SearchResult,
    opts: &Options,
) -> Report {
    report_with(m, name, engine, result, Vec::new(), opts, false)
}

/// [`report_of`], with every state of the counterexamples dumped when `dumps` (`--format zing`),
/// and the findings' replays that the engine made (`replays`, in order; the others are
/// replayed here).
fn report_with(
    m: &Machine,
    name: &str,
    engine: &str,
    result: &explore::SearchResult,
    replays: Replays,
    opts: &Options,
    dumps: bool,
) -> Report {
    let mut replays = replays.into_iter();
    let mut found = result
        .findings
        .iter()
        .map(|f| explain(m, f, replays.next().flatten(), opts, dumps));
    let (verdict, trace) = match found.next() {
        Some(first) => first,
        None => {
            let v = if let Some(limit) = result.limit {
                Verdict::LimitReached { limit }
            } else if result.cut {
                Verdict::Bounded {
                    bound: format!("stack-depth bound (--max-depth {})", opts.limits.max_depth),
                }
            } else if result.context_cut {
                Verdict::Bounded {
                    bound: format!(
                        "context-switch bound (--contexts {})",
                        opts.contexts.unwrap_or(0)
                    ),
                }
            } else {
                Verdict::Passed
            };
            (v, None)
        }
    };
    let more = found
        .map(|(verdict, trace)| report::Finding { verdict, trace })
        .collect();
    let mut r = Report::new(name, engine, verdict, trace);
    r.more = more;
    r.assertions = m.semantics.check_assertions;
    if r.trace.is_some() {
        r.path = result.findings.first().map(|f| f.path().clone());
    }
    let s = &result.stats;
    r.stats = report::Stats {
        states: s.states,
        zing_states: s.zing_states,
        transitions: s.transitions,
        initial_states: s.initial_states,
        max_stack_depth: s.max_stack,
        max_search_depth: s.max_path,
        seconds: s.elapsed.as_secs_f64(),
        peak_memory_bytes: explore::peak_bytes(),
        omission_probability: if opts.exact {
            0.0
        } else {
            crate::canon::omission_bound(s.states)
        },
        counters: s
            .counters
            .iter()
            .map(|(n, v)| report::Counter {
                name: n.to_string(),
                value: *v,
            })
            .collect(),
        summaries: s
            .summaries
            .iter()
            .map(|(p, r, e)| report::ProcSummaries {
                procedure: p.clone(),
                patterns: *r,
                effects: *e,
            })
            .collect(),
    };
    r
}

/// Replays a finding (unless the engine did: `replayed`) and describes it; a finding that does
/// not replay, or does not end where the finding says, is an internal error.
fn explain(
    m: &Machine,
    f: &Finding,
    replayed: Option<explore::Replayed>,
    opts: &Options,
    dumps: bool,
) -> (Verdict, Option<report::Trace>) {
    let build = |replayed: &explore::Replayed, end: Option<u32>| {
        if opts.verdict_only {
            report::Trace {
                threads: 1,
                steps: Vec::new(),
                zing: None,
            }
        } else {
            report::build_trace(m, f.path(), replayed, end, dumps)
        }
    };
    let internal = |message: String| (Verdict::InternalError { message }, None);
    let path = f.path();
    // without a trace, only the state the path ends in is looked at
    let replayed =
        match replayed.map_or_else(|| explore::replay_keeping(m, path, !opts.verdict_only), Ok) {
            Ok(r) => r,
            Err(e) => return internal(format!("the counterexample does not replay: {e}")),
        };
    let p = m.program;
    // where the last step's thread stands (for violations: the violating statement)
    let last_at = || {
        let c = path.choices.last()?;
        let s = replayed.states.last()?;
        let f = s.threads.get(c.thread as usize)?.stack.top()?;
        Some((
            p.procs[f.proc as usize].name.clone(),
            p.line_of(f.proc, f.pc),
        ))
    };
    match f {
        Finding::Assertion { .. } | Finding::Runtime { .. } => {
            let expected = match f {
                Finding::Runtime { error, .. } => Violation::Runtime(*error),
                _ => Violation::Assertion,
            };
            if replayed.violation != Some(expected) {
                return internal(format!(
                    "the counterexample does not end in the reported violation ({expected:?})"
                ));
            }
            let Some((procedure, line)) = last_at() else {
                return internal("the counterexample has no violating step".into());
            };
            let trace = build(&replayed, None);
            let verdict = match expected {
                Violation::Runtime(error) => Verdict::RuntimeError {
                    error,
                    message: error.describe().into(),
                    procedure,
                    line,
                },
                Violation::Assertion => Verdict::AssertionFailed { procedure, line },
            };
            (verdict, Some(trace))
        }
        Finding::Deadlock { .. } => {
            let last = replayed.states.last().expect("at least the initial state");
            if replayed.violation.is_some() || !explore::deadlocked(m, last) {
                return internal("the counterexample does not end in a deadlock".into());
            }
            let trace = build(&replayed, None);
            (
                Verdict::Deadlock {
                    blocked: last.threads.len() as u32,
                },
                Some(trace),
            )
        }
        Finding::Target { label, .. } => {
            let last = replayed.states.last().expect("at least the initial state");
            let at = last.threads.iter().enumerate().find_map(|(i, t)| {
                let f = t.stack.top()?;
                let node = p.node(f.proc, f.pc);
                node.labels.iter().any(|l| l == label).then_some((i, f))
            });
            let Some((tid, frame)) = at else {
                return internal(format!("the counterexample does not reach label {label}"));
            };
            let trace = build(&replayed, Some(tid as u32));
            (
                Verdict::TargetReached {
                    label: label.clone(),
                    procedure: p.procs[frame.proc as usize].name.clone(),
                    line: p.line_of(frame.proc, frame.pc),
                },
                Some(trace),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unpanicked;

    #[test]
    fn a_panic_becomes_an_error_with_its_message() {
        assert_eq!(unpanicked(|| 3), Ok(3));
        let e = unpanicked(|| -> u8 { panic!("boom {}", 7) });
        assert_eq!(e, Err("boom 7".to_string()));
        let e = unpanicked(|| -> u8 { panic!("static") });
        assert_eq!(e, Err("static".to_string()));
    }
}
