//! Which engine checks a model and how: `auto`'s choice (one engine, or a portfolio of engines
//! run side by side, the first conclusive answer winning), the engines that apply to a model,
//! running one (with the live-thread deepening of the explicit and summary engines), and
//! `--engine all`, which runs every engine that applies and compares their verdicts.

use super::result::{limit_reached_during, report_with};
use super::Settings;
use super::{CheckError, Engine};
use crate::explore;
use crate::report::{self, exit, Report, Verdict};
use crate::runtime::{Machine, Semantics};
use crate::search;
use crate::search::{Limits, Options};
use std::sync::Arc;
use zingrs_lang::ir::Program;

impl Engine {
    /// The engine's name as the user types it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Explicit => "explicit",
            Engine::Summary => "summary",
            Engine::Bdd => "bdd",
            Engine::Coverability => "coverability",
            Engine::All => "all",
        }
    }
}

/// Above this many unconstrained initial bits `--engine auto` prefers the BDD engine: the
/// explicit and summary engines enumerate initial valuations (bp-parity K = 20 already takes
/// them seconds), while the BDD engine's sets stay small (K = 1000 in under a second).
pub(super) const AUTO_BDD_BITS: usize = 16;

/// The engine `--engine auto` picks for a program: the coverability engine for boolean
/// programs that may start unboundedly many threads (where the others never end) unless
/// `--threads` or `--contexts` bounds the search (`bounded`: the explicit search then
/// deepens on the number of threads, see [`deepen_threads`]), the BDD
/// engine for pure boolean programs with many unconstrained initial bits, the summary engine
/// for every other model (it decides sequential recursion, and summarizes the calls of
/// concurrent models that run as one transaction).
pub(super) fn auto_engine(program: &Program, bounded: bool) -> Engine {
    if !bounded
        && zingrs_lang::spawn::unbounded_creation(program)
        && crate::coverability::applies(program).is_ok()
    {
        return Engine::Coverability;
    }
    if !program.is_concurrent()
        && crate::symbolic::applies(program).is_ok()
        && initial_bits(program) > AUTO_BDD_BITS
    {
        return Engine::Bdd;
    }
    Engine::Summary
}

/// The engines `--engine auto` runs side by side on a program (one: no portfolio). Where
/// `auto` picks coverability (threads started without bound), the explicit engine, deepening
/// on the number of threads, runs beside it: it finds an error that needs few threads in
/// milliseconds where the Karp–Miller tree, built breadth-first over every shared valuation,
/// may take minutes, while only coverability proves a pass for any number of threads.
/// Elsewhere `auto`'s one engine decides what its shape asks (summaries for recursion, BDDs
/// for many unconstrained bits), and a single engine keeps the answer, its counterexample
/// and its counts the same from run to run (docs/guide.md, "Engines").
pub fn portfolio(program: &Program, bounded: bool) -> Vec<Engine> {
    match auto_engine(program, bounded) {
        Engine::Coverability => vec![Engine::Explicit, Engine::Coverability],
        e => vec![e],
    }
}

/// Whether a member of a portfolio proves (its pass holds without a bound): its answer ends
/// the portfolio unless a limit stopped it.
fn proves(e: Engine) -> bool {
    e == Engine::Coverability
}

/// The number of booleans that take every value in the initial states.
pub(super) fn initial_bits(program: &Program) -> usize {
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

/// The engines `--engine all` runs on a program, in order (the BDD and coverability engines
/// only on the programs they accept, coverability only on concurrent ones, the BDD engine on
/// concurrent ones only under a context bound (`contexts`) and without `--threads`; the
/// explicit and summary engines not on programs that start unboundedly many threads, where
/// their search never ends, unless `--threads` bounds them: `thread_bound`).
pub fn applicable_engines(program: &Program, thread_bound: bool, contexts: bool) -> Vec<Engine> {
    let cover = program.is_concurrent() && crate::coverability::applies(program).is_ok();
    let mut out = Vec::new();
    if thread_bound || !(cover && zingrs_lang::spawn::unbounded_creation(program)) {
        out.extend([Engine::Explicit, Engine::Summary]);
    }
    let bdd = if program.is_concurrent() {
        contexts && !thread_bound && crate::symbolic::contexts::applies(program).is_ok()
    } else {
        crate::symbolic::applies(program).is_ok()
    };
    if bdd {
        out.push(Engine::Bdd);
    }
    if cover {
        out.push(Engine::Coverability);
    }
    out
}

/// What the header adds after the engine's name: on a program it cannot run alone, the summary
/// engine is the explicit search with the calls that run as one transaction summarized.
pub(super) fn header_note(engine: Engine, program: &Program) -> Option<&'static str> {
    (engine == Engine::Summary && !crate::summary::applies_to(program))
        .then_some("calls that run as one transaction summarized, threads interleaved")
}

/// The engine as the header names it: `all` lists the engines it runs, and so does a
/// portfolio (`auto` with several members).
pub(super) fn header_name(
    engine: Engine,
    program: &Program,
    thread_bound: bool,
    contexts: bool,
) -> String {
    match engine {
        Engine::Auto => format!(
            "auto ({})",
            portfolio(program, thread_bound || contexts)
                .iter()
                .map(|e| e.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Engine::All => format!(
            "all ({})",
            applicable_engines(program, thread_bound, contexts)
                .iter()
                .map(|e| e.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        e => e.name().to_string(),
    }
}

/// Runs one engine; `Err` says why it does not apply to the program.
pub fn run_engine(
    engine: Engine,
    program: &Program,
    semantics: Semantics,
    opts: &Settings,
) -> Result<search::SearchResult, String> {
    run_engine_on(engine, &Machine::new(program, semantics), opts).map(|r| r.0)
}

/// The replays of a search's findings that the engine made itself (in order; `None` or
/// missing: the report replays the path).
pub type Replays = Vec<Option<search::Replayed>>;

/// [`run_engine`] on a machine built once for the search and the report (building one
/// computes every procedure's live locals, a visible share of the time on large programs),
/// with the replays the engine made.
pub fn run_engine_on(
    engine: Engine,
    m: &Machine,
    opts: &Settings,
) -> Result<(search::SearchResult, Replays), String> {
    let program = m.program;
    if matches!(
        opts.search.liveness,
        Some(search::Liveness::Ltl | search::Liveness::Terminates)
    ) && engine == Engine::Bdd
    {
        return crate::symbolic::pdltl::search(m, &opts.search)
            .map(|r| (r, Vec::new()))
            .map_err(|e| e.reason);
    }
    if opts.search.liveness.is_some() && engine != Engine::Explicit {
        return Err(format!(
            "--liveness is checked by the explicit engine only, not by the {} engine",
            engine.name()
        ));
    }
    match engine {
        Engine::Explicit | Engine::Summary
            if opts.deepen_threads && m.semantics.thread_bound.is_none() =>
        {
            Ok((deepen_threads(engine, m, opts)?, Vec::new()))
        }
        Engine::Explicit => Ok((explore::search(m, &opts.search, &opts.explicit), Vec::new())),
        Engine::Summary => {
            if crate::summary::applies(m) {
                let result = crate::summary::search(m, &opts.search).map_err(|e| e.to_string())?;
                Ok((result, Vec::new()))
            } else {
                // threads (or blocking): calls that run as one transaction are summarized, every
                // other step is explored plainly
                let how = crate::explore::ExplicitOptions {
                    transactions: Some(crate::summary::summarize_transaction),
                    ..opts.explicit.clone()
                };
                Ok((explore::search(m, &opts.search, &how), Vec::new()))
            }
        }
        Engine::Bdd => {
            let sym = &opts.symbolic;
            if program.is_concurrent() {
                let Some(k) = opts.search.contexts else {
                    return Err(
                        "the bdd engine checks a concurrent program up to a bound on \
                                context switches: give --contexts K"
                            .into(),
                    );
                };
                return crate::symbolic::contexts::search(m, &opts.search, sym, k).map(
                    |(mut r, p)| {
                        r.deadlocks_unchecked = m.deadlocks_possible();
                        (r, p)
                    },
                );
            }
            crate::symbolic::search(m, &opts.search, sym).map_err(|e| e.reason)
        }
        Engine::Coverability => crate::coverability::search(m, &opts.search)
            .map(|mut r| {
                r.deadlocks_unchecked = m.deadlocks_possible();
                (r, Vec::new())
            })
            .map_err(|r| r.render(program)),
        Engine::Auto | Engine::All => Err("not a single engine".into()),
    }
}

/// Iterative deepening on the number of threads, for programs that can create threads
/// without bound: the engine runs under the live-thread bounds k = (initial threads) + 1,
/// k + 1, ... and stops at the first round that finds an error, is stopped by a limit, or cut
/// no thread creation (it was then complete: its verdict is the program's). A creation that
/// the bound does not enable only removes executions, so every error found is an error of the
/// program, and its path replays on `m`, which has no bound. Small bounds first, because the
/// errors sought need few threads and each bounded round is a finite search, where a
/// depth-first search without a bound would create threads forever. `--max-states` bounds
/// the states of all rounds together.
pub(super) fn deepen_threads(
    engine: Engine,
    m: &Machine,
    opts: &Settings,
) -> Result<search::SearchResult, String> {
    let start = std::time::Instant::now();
    let mut k = m.program.activations.len() as u32 + 1;
    let mut stored = 0u64;
    loop {
        let bounded = Machine::new(
            m.program,
            Semantics {
                thread_bound: Some(k),
                ..m.semantics.clone()
            },
        );
        let limits = &opts.search.limits;
        let round = Settings {
            deepen_threads: false,
            search: Options {
                limits: Limits {
                    timeout: limits.timeout.map(|t| t.saturating_sub(start.elapsed())),
                    max_states: limits.max_states.map(|n| n.saturating_sub(stored).max(1)),
                    ..limits.clone()
                },
                ..opts.search.clone()
            },
            ..opts.clone()
        };
        let (mut result, _) = run_engine_on(engine, &bounded, &round)?;
        stored += result.stats.states;
        let done = !result.findings.is_empty()
            || result.limit.is_some()
            || !result.thread_cut
            || search::watchdog::stopped().is_some();
        if done {
            result.stats.elapsed = start.elapsed();
            result.stats.counters.push(("thread bound", k.into()));
            return Ok(result);
        }
        k += 1;
    }
}

/// Runs every applicable engine and compares their conclusive verdicts; a disagreement is an
/// internal error (exit 5) naming the model and the engines. The answer reported is the
/// shortest counterexample any engine found, else a proof (an engine that passed, whatever
/// bound or limit cut the others), else the first engine's answer; the report lists every
/// engine's answer ([`report::EngineRun`]).
///
/// Each engine has the whole memory limit to itself: it runs with the limit armed on its
/// thread only ([`search::watchdog::guard`], the watchdog polls no memory under `all`), so
/// the engine that exhausts it stops with the memory limit and the others' answers stand.
pub(super) fn check_all<'p>(
    m: &Arc<Machine<'p>>,
    m_unbounded: &Arc<Machine<'p>>,
    name: &str,
    opts: &Settings,
) -> Result<Report<'p>, CheckError> {
    let program = m.program;
    let semantics = m.semantics.clone();
    let mut reports: Vec<Report> = Vec::new();
    let mut refusals: Vec<String> = Vec::new();
    for e in applicable_engines(
        program,
        semantics.thread_bound.is_some(),
        opts.search.contexts.is_some(),
    ) {
        let m = match e {
            Engine::Coverability => m_unbounded,
            _ => m,
        };
        let start = std::time::Instant::now();
        // this engine's memory limit, armed on this thread for its run only
        let guard = search::watchdog::guard(opts.search.limits.memory);
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_engine(e, program, m.semantics.clone(), opts)
        }));
        drop(guard);
        let run = match run {
            Ok(run) => run,
            Err(payload) if payload.is::<search::watchdog::LimitUnwind>() => {
                let limit = payload
                    .downcast_ref::<search::watchdog::LimitUnwind>()
                    .map_or(search::Limit::Memory, |l| l.0);
                let mut r = Report::new(name, e.name(), Verdict::LimitReached { limit }, None);
                r.stats.seconds = start.elapsed().as_secs_f64();
                reports.push(r);
                continue;
            }
            // an engine that panics is a bug to report (exit 5), not a crash of the comparison
            Err(panic) => {
                let what = panic_message(&*panic);
                let message = format!("the {} engine panicked on {name}: {what}", e.name());
                return Ok(Report::new(
                    name,
                    "all",
                    Verdict::InternalError { message },
                    None,
                ));
            }
        };
        match run {
            Err(why) => refusals.push(format!("{}: {why}", e.name())),
            Ok(mut result) => {
                limit_reached_during(&mut result);
                reports.push(report_with(m, name, e.name(), &result, Vec::new(), opts));
            }
        }
    }
    let table = |chosen: Option<usize>| -> Vec<report::EngineRun> {
        reports
            .iter()
            .enumerate()
            .map(|(i, r)| report::EngineRun {
                reported: Some(i) == chosen,
                ..report::EngineRun::of(r)
            })
            .collect()
    };
    let conclusive = |r: &Report| {
        matches!(
            r.exit_code,
            exit::PASSED | exit::ASSERTION | exit::DEADLOCK | exit::RUNTIME_ERROR
        )
    };
    // engines may stop at different errors (each replayed); they disagree when one finds none
    let found = |r: &Report| r.exit_code != exit::PASSED;
    let mut decided = reports.iter().filter(|r| conclusive(r));
    if let Some(first) = decided.next() {
        if let Some(other) = decided.find(|r| found(r) != found(first)) {
            let message = format!(
                "engines disagree on {name}: {} says \"{}\", {} says \"{}\"",
                first.engine,
                first.verdict.headline(),
                other.engine,
                other.verdict.headline()
            );
            let mut r = Report::new(name, "all", Verdict::InternalError { message }, None);
            r.stats = first.stats.clone();
            r.engines = table(None);
            return Ok(r);
        }
    }
    // Under --threads the question is the bounded one: an error the coverability engine finds
    // (it ran without the bound) may need more threads, so it only cross-checks; its proof
    // holds for every number of threads, the bound's included
    let bounded = semantics.thread_bound.is_some();
    let counterexample = reports
        .iter()
        .enumerate()
        .filter(|(_, r)| conclusive(r) && found(r))
        .filter(|(_, r)| !(bounded && r.engine == Engine::Coverability.name()))
        .min_by_key(|(_, r)| r.path.as_ref().map_or(usize::MAX, |p| p.choices.len()))
        .map(|(i, _)| i);
    let proof = || reports.iter().position(|r| r.exit_code == exit::PASSED);
    let chosen = counterexample
        .or_else(proof)
        .or((!reports.is_empty()).then_some(0));
    let Some(chosen) = chosen else {
        return Err(CheckError::NoEngine(refusals.join("; ")));
    };
    let engines = table(Some(chosen));
    let names = reports
        .iter()
        .map(|r| r.engine.clone())
        .collect::<Vec<_>>()
        .join(", ");
    let mut r = reports.swap_remove(chosen);
    r.engine = format!("all ({names})");
    r.engines = engines;
    Ok(r)
}

/// The states the searching members of a portfolio store at most ([`run_portfolio`]): past
/// them, the prover answers. A budget of states, not of time, so that the answer does not
/// depend on which thread the machine runs first.
pub const PORTFOLIO_STATES: u64 = 100_000;

/// Runs the engines of a portfolio side by side, each on a thread of its own with a cancel
/// flag ([`crate::limits::Cancel`]) in its limits. The answer is a function of the model, not
/// of timing: the searching members (the explicit engine) run to a conclusive answer (a
/// verified counterexample, a complete pass) or to [`PORTFOLIO_STATES`] stored states; the
/// first conclusive one among them is reported and the others are stopped (within
/// milliseconds). Otherwise the prover's answer is (the one that [`proves`]: `auto`'s single
/// choice before), else the first member's. The prover is never stopped by a searcher's
/// limit, and wins while a searcher may still answer only with a proof that there is no
/// error (which leaves the searcher nothing to find): a prover's error and a searcher's
/// other error, found in either order, always give the searcher's. The report
/// names the engine that answered and lists every member ([`report::EngineRun`]; one
/// stopped is `stopped`).
pub(super) fn run_portfolio<'p>(
    m: &Arc<Machine<'p>>,
    name: &str,
    opts: &Settings,
    members: &[Engine],
) -> Result<Report<'p>, CheckError> {
    use crate::limits::Cancel;
    let cancels: Vec<Cancel> = members.iter().map(|_| Cancel::default()).collect();
    let machine: &Machine = m;
    let mut reports: Vec<Option<Report<'p>>> = members.iter().map(|_| None).collect();
    let mut refusals: Vec<String> = Vec::new();
    let mut winner: Option<usize> = None;
    let mut panicked: Option<String> = None;
    // the members that ended (answered, refused the model, or never started)
    let mut ended: Vec<bool> = members.iter().map(|_| false).collect();
    let (tx, rx) = std::sync::mpsc::channel();
    let start = std::time::Instant::now();
    std::thread::scope(|scope| {
        for (i, &e) in members.iter().enumerate() {
            let tx = tx.clone();
            let limits = &opts.search.limits;
            let max_states = match limits.max_states {
                _ if proves(e) => limits.max_states,
                Some(n) => Some(n.min(PORTFOLIO_STATES)),
                None => Some(PORTFOLIO_STATES),
            };
            let opts = Settings {
                search: Options {
                    limits: Limits {
                        cancel: Some(cancels[i].clone()),
                        // one progress line: the first member's
                        progress: limits.progress && i == 0,
                        max_states,
                        ..limits.clone()
                    },
                    ..opts.search.clone()
                },
                ..opts.clone()
            };
            let spawned = std::thread::Builder::new()
                .name(format!("zingrs-{}", e.name()))
                .stack_size(search::WORKER_STACK)
                .spawn_scoped(scope, move || {
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_engine_on(e, machine, &opts).map(|r| r.0)
                    }));
                    let _ = tx.send((i, run.map_err(|p| panic_message(&*p))));
                });
            if let Err(err) = spawned {
                refusals.push(format!("{}: cannot start a thread: {err}", e.name()));
                ended[i] = true;
            }
        }
        drop(tx);
        for (i, run) in rx.iter() {
            let e = members[i];
            ended[i] = true;
            let mut result = match run {
                Err(what) => {
                    panicked = Some(format!(
                        "the {} engine panicked on {name}: {what}",
                        e.name()
                    ));
                    cancels.iter().for_each(Cancel::cancel);
                    break;
                }
                Ok(Err(why)) => {
                    refusals.push(format!("{}: {why}", e.name()));
                    continue;
                }
                Ok(Ok(result)) => result,
            };
            limit_reached_during(&mut result);
            let r = report_with(m, name, e.name(), &result, Vec::new(), opts);
            let complete = matches!(
                r.exit_code,
                exit::PASSED
                    | exit::ASSERTION
                    | exit::DEADLOCK
                    | exit::RUNTIME_ERROR
                    | exit::INTERNAL
            );
            let passed = r.exit_code == exit::PASSED;
            reports[i] = Some(r);
            // the prover answers only when every searcher has ended without an answer
            let searching = members
                .iter()
                .enumerate()
                .any(|(j, &f)| !proves(f) && !ended[j]);
            // (a proof of no error leaves a searcher nothing to find: it answers at once)
            let answers = if proves(e) {
                !searching || passed
            } else {
                complete
            };
            if answers {
                winner = Some(i);
                // the others stop at their next check; the scope waits for them
                for (j, c) in cancels.iter().enumerate() {
                    if j != i {
                        c.cancel();
                    }
                }
                break;
            }
        }
    });
    let total = start.elapsed().as_secs_f64();
    if let Some(message) = panicked {
        return Ok(Report::new(
            name,
            "auto",
            Verdict::InternalError { message },
            None,
        ));
    }
    let chosen = winner
        .or_else(|| {
            members
                .iter()
                .enumerate()
                .position(|(i, &e)| proves(e) && reports[i].is_some())
        })
        .or_else(|| reports.iter().position(Option::is_some));
    let Some(chosen) = chosen else {
        return Err(CheckError::NoEngine(refusals.join("; ")));
    };
    let rows: Vec<report::EngineRun> = members
        .iter()
        .enumerate()
        .map(|(i, e)| match &reports[i] {
            Some(r) => report::EngineRun {
                reported: i == chosen,
                ..report::EngineRun::of(r)
            },
            None => report::EngineRun {
                engine: e.name().to_string(),
                verdict: "stopped".into(),
                exit_code: exit::LIMIT,
                seconds: total,
                states: 0,
                limit: Some("another engine answered first".into()),
                steps: None,
                reported: false,
            },
        })
        .collect();
    let mut r = reports[chosen].take().expect("the chosen engine answered");
    r.engines = rows;
    Ok(r)
}

/// A panic's message (`a panic` when it has none).
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// Runs `f`, turning a panic into `Err` with its message.
#[cfg(test)]
fn unpanicked<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| panic_message(&*p))
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
