//! `zingrs check MODEL`.

use crate::report::{self, exit, Format, Report, TraceDetail, Verdict};
use crate::runtime::{Machine, Semantics};
use crate::search;
use crate::search::{Finding, Limits, Options};
use std::path::PathBuf;
use std::time::Duration;
use zingrs_lang::ir::{Layout, Program};

mod engines;

pub use engines::run_engine;
use engines::{auto_engine, check_all, header_name, header_note, run_engine_on, Replays};

/// The engines (`--engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// Pick for the model: coverability for boolean programs that start threads in a loop
    /// (and whose threads do not recurse) unless --threads or --contexts bounds the check, bdd for sequential boolean programs with many
    /// unconstrained bits, summary otherwise.
    Auto,
    /// Plain explicit-state search of every interleaving (bounded by --max-depth).
    Explicit,
    /// Explicit-state search that summarizes procedure calls: decides unbounded recursion.
    Summary,
    /// Symbolic search with binary decision diagrams: sequential boolean programs, and
    /// concurrent ones (Getafix layout, or threads started a bounded number of times) up to
    /// --contexts K context switches.
    Bdd,
    /// Karp–Miller coverability over thread counters: boolean programs whose threads do not
    /// recurse, checked for any number of threads (unbounded thread creation).
    Coverability,
    /// Every engine that applies, their verdicts compared (a disagreement is exit 5).
    All,
}

/// The search orders (`--search`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Search {
    /// Depth-first.
    Dfs,
    /// Breadth-first.
    Bfs,
    /// ZING's iterative depth-bounded order: level by level in ZING steps.
    Zing,
}

/// Whether the symmetry reduction is on (`--symmetry`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Symmetry {
    /// Threads are interchangeable where that is sound (not in Zing models that read `self`).
    #[default]
    On,
    /// Every order of the thread list is a state of its own.
    Off,
}

/// Options of `zingrs check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The model: a .bp or .zing file, or - for standard input.
    pub model: PathBuf,
    /// The language, when the file name does not tell.
    #[arg(long, value_enum)]
    pub lang: Option<super::LangArg>,
    /// The search engine.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: Engine,
    /// Also report reaching this label as an error (repeatable).
    #[arg(long = "target", value_name = "LABEL")]
    pub targets: Vec<String>,
    /// Treat `assert` as `assume` (label-only checking, as Bebop and Moped do).
    #[arg(long)]
    pub no_assertions: bool,
    /// Do not look for deadlocks (SPIN's -E): a state where no thread can move is then not
    /// an error, in Zing models and in boolean programs with threads alike.
    #[arg(long)]
    pub no_deadlock: bool,
    /// Bound the number of context switches (concurrent models).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32))]
    pub contexts: Option<u32>,
    /// With `--contexts K`: check with the bounds FROM, FROM + 1, ..., K in turn, stopping at the
    /// first that reaches an error, and report the smallest sufficient bound (the bdd engine's
    /// product search decides them all in one run at K).
    #[arg(long, value_name = "FROM")]
    pub contexts_from: Option<u32>,
    /// Bound the number of live threads (Boom's --threadbound): a thread creation is not
    /// enabled while N threads are alive; finding nothing is then a bounded pass (exit 8).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Breadth-first search: shortest counterexamples (the same as `--search bfs`).
    #[arg(long, conflicts_with = "search")]
    pub bfs: bool,
    /// The search order of the explicit engine: `dfs` (depth-first), `bfs` (breadth-first:
    /// shortest counterexamples), `zing` (ZING's: level by level in ZING steps, processes and
    /// choices in ascending order, so the first error reported is ZING's). Default: `dfs`, or
    /// `zing` with `--format zing`.
    #[arg(long, value_enum, value_name = "ORDER")]
    pub search: Option<Search>,
    /// Zing's non-preemptive scheduling.
    #[arg(long)]
    pub cooperative: bool,
    /// Bound on the call-stack depth of any thread; deeper states are cut (exit 8).
    #[arg(long, value_name = "N", default_value_t = search::DEFAULT_MAX_DEPTH,
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
    /// Reductions of the explicit search: `transactions` (an atomic region is one transition),
    /// `por` (partial-order reduction: a thread whose next step touches only its own variables,
    /// or shared data no other thread can touch then, runs alone; under `--contexts`, a thread
    /// is left only right after a step another thread can see), `all` (both), `none`.
    /// Default: `all`; `transactions` with `--search zing`
    /// or `--format zing` (whose "distinct states" count is ZING's); `none` with `--bfs`
    /// (shortest counterexamples).
    #[arg(long, value_enum, value_name = "R")]
    pub reduction: Option<search::Reduction>,
    /// Symmetry reduction of the explicit engines: states that differ only in the order of
    /// their threads are one state (threads running the same code are interchangeable; under
    /// `--contexts` the thread that ran last stays apart). Not for Zing models that read
    /// `self` (a process's position). Counterexamples are concrete interleavings as always.
    /// `off`: every order is a state of its own. Default: `on`; `off` with `--search zing` or
    /// `--format zing` (whose "distinct states" count is ZING's).
    #[arg(long, value_enum, value_name = "ON|OFF")]
    pub symmetry: Option<Symmetry>,
    /// Store whole canonical states instead of 128-bit fingerprints.
    #[arg(long)]
    pub exact: bool,
    /// Threads of the explicit depth-first search (also under the summary engine on
    /// concurrent models): `auto` (the cores available) or a number. They share one visited
    /// set, so the states stored, and every verdict, are the same at any number; with
    /// several, which of several errors is found first (and its counterexample) may differ
    /// from run to run. 1: the single-threaded search and its order. Default: 1.
    #[arg(long, value_name = "N|auto", value_parser = super::workers)]
    pub workers: Option<usize>,
    /// BDD engine: keep dead locals in path edges (switches off live-range reduction).
    #[arg(long)]
    pub no_live_ranges: bool,
    /// BDD engine: keep every global in every procedure (switches off MOD/REF).
    #[arg(long)]
    pub no_mod_ref: bool,
    /// BDD engine under --contexts: always Getafix's search, which keeps the globals at every
    /// switch, also where the default searches the product of the threads' states (no
    /// recursion in the threads).
    #[arg(long)]
    pub context_tuples: bool,
    /// Report every distinct error, not only the first.
    #[arg(long)]
    pub keep_going: bool,
    /// Check a liveness property (explicit engine): `accept` (the default: no reachable cycle
    /// runs a Zing `accept(e)` with `e` true, as ZING's -ndfsliveness), `terminates` (no
    /// reachable cycle at all: every run ends), `progress` (no reachable cycle avoids every
    /// state where a thread stands at a label named `progress...`). A violation is a lasso
    /// (a path, then a cycle back to a state on it): exit 6. No reduction applies; safety
    /// errors met on the way are reported as usual. Give it after the model, or as
    /// `--liveness=KIND`.
    #[arg(long, value_enum, value_name = "KIND", num_args = 0..=1, default_missing_value = "accept")]
    pub liveness: Option<search::Liveness>,
    /// Check an LTL property (explicit engine): every run must satisfy FORMULA. Operators
    /// `G F X U R W ! && || -> <->` (also `[]`, `<>`); propositions are the model's own
    /// boolean expressions over globals (`Main.x > 2`, `g & !h`; anything beyond names,
    /// numbers and comparisons in braces: `{(a + 1) * 2 > b}`), `@L` (some thread stands at
    /// label L) and `@Proc:L`. A run that ends is its last state repeated forever. A
    /// violation is a lasso, exit 6; as with --liveness, no reduction applies.
    #[arg(long, value_name = "FORMULA", conflicts_with = "liveness")]
    pub ltl: Option<String>,
    /// With --liveness or --ltl: `weak` counts only weakly fair runs, those in which every
    /// process that can move from some point on keeps moving (SPIN's -f), so that a cycle
    /// that starves a process forever is no violation. Default: none (as ZING).
    #[arg(long, value_enum, value_name = "KIND")]
    pub fairness: Option<Fairness>,
    /// The layout of the report on standard output.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Also write the full JSON report, with the replayable counterexample path, to FILE
    /// (whatever --format prints); `zingrs replay MODEL FILE` reads it back. FILE is replaced
    /// whole, through a temporary file of its own next to it; a report that cannot be saved
    /// is exit 10, after the verdict.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// How much of the counterexample to print.
    #[arg(long, value_enum, default_value = "full")]
    pub trace: TraceDetail,
    /// Print statistics.
    #[arg(long)]
    pub stats: bool,
    /// Print only the verdict.
    #[arg(short, long)]
    pub quiet: bool,
    /// Warn about options that have no effect on the chosen engine or model.
    #[arg(short, long)]
    pub verbose: bool,
}

/// The fairness assumptions of `--fairness`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Fairness {
    /// Every process enabled from some point on eventually moves.
    Weak,
}

fn usage_error(msg: &str) -> i32 {
    eprintln!("error: {msg}");
    exit::INVALID
}

impl CheckArgs {
    /// The liveness property asked for (`--ltl` is one).
    pub fn liveness_property(&self) -> Option<search::Liveness> {
        match self.ltl {
            Some(_) => Some(search::Liveness::Ltl),
            None => self.liveness,
        }
    }
}

/// `--ltl`'s formula compiled against `program`, or its error printed under the formula with
/// a caret (exit 1).
fn compile_ltl(formula: &str, program: &Program) -> Result<std::sync::Arc<crate::ltl::Ltl>, i32> {
    crate::ltl::Ltl::compile(formula, program)
        .map(std::sync::Arc::new)
        .map_err(|e| {
            let caret = if e.column > 0 {
                format!("\n  {formula}\n  {}^", " ".repeat(e.column - 1))
            } else {
                String::new()
            };
            usage_error(&format!("--ltl: {}{caret}", e.message))
        })
}

/// Runs a check and prints its report; returns the exit code.
pub fn run(a: &CheckArgs) -> i32 {
    arm_watchdog(a);
    let program = match super::load_as(&a.model, a.lang, a.quiet, a.format == Format::Json) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // a mistyped label must not look like a proof that it is unreachable
    if let Some(t) = a.targets.iter().find(|t| !program.has_label(t)) {
        return usage_error(&format!(
            "the target label {t} does not occur in {}",
            a.model.display()
        ));
    }
    let getafix = matches!(program.layout, Layout::Getafix { .. });
    if getafix && !a.quiet && !a.no_assertions {
        eprintln!(
            "note: Getafix concurrent layout (init + thread procedures): assertions are filters; --target labels and deadlocks are reported"
        );
    }
    let bounds: Vec<Option<u32>> = match (a.contexts_from, a.contexts) {
        (None, k) => vec![k],
        (Some(from), Some(k)) if from <= k => (from..=k).map(Some).collect(),
        (Some(_), Some(_)) => return usage_error("--contexts-from must not exceed --contexts"),
        (Some(_), None) => {
            return usage_error("--contexts-from needs --contexts K, the largest bound to try")
        }
    };
    let (mut opts, semantics) = options_and_semantics(a, &program);
    if let Some(f) = &a.ltl {
        match compile_ltl(f, &program) {
            Ok(ltl) => opts.ltl = Some(ltl),
            Err(code) => return code,
        }
    }
    if a.fairness.is_some() && a.liveness_property().is_none() {
        return usage_error(
            "--fairness applies to --liveness and --ltl (a safety check looks at single states)",
        );
    }
    if a.fairness.is_some() && a.cooperative {
        return usage_error("--fairness does not combine with --cooperative (the running process alone moves there)");
    }
    if let Some(property) = a.liveness_property() {
        match liveness_options(a, &program, property, &mut opts) {
            Ok(notes) if !a.quiet => notes.iter().for_each(|n| eprintln!("note: {n}")),
            Ok(_) => {}
            Err(why) => return usage_error(&why),
        }
    }
    let name = a.model.display().to_string();
    // ZING's layout dumps every state of a counterexample; the other formats do not need them
    let dumps = a.format == Format::Zing;
    let engine = match a.engine {
        // the cycle search is the explicit engine's (`liveness_options` refused the others)
        _ if a.liveness_property().is_some() => Engine::Explicit,
        // ZING's layout ends with ZING's state count, which only the plain search of a Zing
        // model keeps
        Engine::Auto if dumps && program.keep_completed => Engine::Explicit,
        Engine::Auto => auto_engine(&program, a.threads.is_some() || a.contexts.is_some()),
        e => e,
    };
    // the bdd engine's product search completes each context before the next: its run at the
    // largest bound also finds the smallest bound that reaches an error, and the runs at
    // smaller bounds would only repeat its first contexts
    let bounds = if engine == Engine::Bdd
        && a.contexts_from.is_some()
        && crate::symbolic::contexts::completes_contexts_in_order(&program, &opts)
    {
        vec![a.contexts]
    } else {
        bounds
    };
    if a.verbose {
        for w in ineffective_options(a, engine, &program) {
            eprintln!("warning: {w}");
        }
    }
    let mut header_printed = Ok(());
    if a.format == Format::Text && !a.quiet {
        // what runs is said before the search starts, which may take long
        let header = report::header(
            &name,
            &header_name(engine, &program, a.threads.is_some(), a.contexts.is_some()),
            header_note(engine, &program),
        );
        let mut out = std::io::stdout().lock();
        header_printed = std::io::Write::write_all(&mut out, header.as_bytes())
            .and_then(|()| std::io::Write::flush(&mut out));
    }
    // the machines outlive the report, whose traces are built from them as they are printed
    let m = Machine::new(&program, semantics);
    // the coverability engine checks every number of threads: under `all` it runs, and its
    // counterexamples replay, without the --threads bound the others run under
    let m_unbounded = (engine == Engine::All).then(|| {
        Machine::new(
            &program,
            Semantics {
                thread_bound: None,
                ..semantics
            },
        )
    });
    let check = |opts: &Options| match (engine, &m_unbounded) {
        (Engine::All, Some(unbounded)) => {
            check_all(&m, unbounded, &name, opts).map_err(|why| usage_error(&why))
        }
        (e, _) => match run_engine_on(e, &m, opts) {
            Ok((mut result, replays)) => {
                limit_reached_during(&mut result);
                Ok(report_with(&m, &name, e.name(), &result, replays, opts))
            }
            Err(why) => Err(usage_error(&why)),
        },
    };
    // a larger bound can only add executions: go on only while the bound cut the search
    let mut report = None;
    for (i, &k) in bounds.iter().enumerate() {
        let r = match check(&Options {
            contexts: k,
            ..opts.clone()
        }) {
            Ok(r) => r,
            Err(code) => return code,
        };
        let last = i + 1 == bounds.len() || r.exit_code != exit::BOUNDED;
        if last {
            // a search that knows the fewest switches its error needs decided the smaller
            // bounds too
            let k = match (k, r.fewest_switches, a.contexts_from) {
                (Some(k), Some(fewest), Some(from)) => Some(fewest.clamp(from, k)),
                _ => k,
            };
            if let (Some(k), Some(from)) = (k, a.contexts_from) {
                let reached = matches!(
                    r.exit_code,
                    exit::ASSERTION | exit::DEADLOCK | exit::RUNTIME_ERROR
                );
                if reached && !a.quiet {
                    if k == from {
                        eprintln!("note: reached with --contexts {k}, the smallest bound tried");
                    } else {
                        eprintln!(
                            "note: reached with --contexts {k}, not with --contexts {}",
                            k - 1
                        );
                    }
                }
            }
            report = Some((r, k));
            break;
        }
    }
    let Some((mut report, bound)) = report else {
        unreachable!("at least one bound is tried");
    };
    if let (Some(k), Some(_)) = (bound, a.contexts_from) {
        // `--stats` names the bound of the run reported
        report.stats.counters.push(report::Counter {
            name: "contexts".into(),
            value: k.into(),
        });
    }
    report.source_hash = report::source_hash(&program.source.text);
    // the verdict is decided: from here a limit, Ctrl-C or SIGTERM cuts the writing of the
    // report (which says so), never the verdict
    if !search::watchdog::report() {
        // the watchdog forced a limit and prints its own report
        search::watchdog::wait_for_exit();
    }
    let saved = a.output.as_ref().map(|file| (file, save(file, &report)));
    if let Some(limit) = report.trace.as_ref().and_then(|t| t.cut_by()) {
        if saved.as_ref().is_some_and(|(_, r)| r.is_ok()) {
            eprintln!(
                "note: {} while the report was saved: its trace is cut short (`\"interrupted\": true`), the verdict stands",
                match limit {
                    search::Limit::Interrupted => "interrupted".to_string(),
                    l => format!("{} reached", l.describe()),
                }
            );
        }
    }
    let stdout = std::io::stdout();
    let printed = report::render_to(
        &mut stdout.lock(),
        &report,
        a.format,
        a.trace,
        a.stats,
        a.quiet,
        false,
    );
    let mut code = report.exit_code;
    if let Err(e) = printed.and(header_printed) {
        code = super::stdout_failed(&e, &report.verdict);
    }
    // the verdict was printed first; a report that could not be saved is an error of its own
    if let Some((file, Err(e))) = saved {
        eprintln!(
            "error: the report could not be saved to {}: {e} (the verdict above stands: exit code {}; this run exits with {})",
            file.display(),
            report.exit_code,
            exit::OUTPUT
        );
        code = exit::OUTPUT;
    }
    // the process exits right after this (`main`): freeing the program and the report (a
    // large model's IR, a long counterexample) one allocation at a time would only delay that
    std::mem::forget(report);
    std::mem::forget(program);
    code
}

/// Writes the JSON report to `file` durably: to a new temporary file next to it (created
/// exclusively with a unique name, so that two runs saving to the same `file` never write
/// into one temporary file, and a link planted at a predictable name is never followed),
/// flushed to disk, then renamed over `file`, so that an interrupted run never leaves half a
/// report. On failure the temporary file is removed.
fn save(file: &std::path::Path, r: &Report) -> std::io::Result<()> {
    let write = |w: &mut dyn std::io::Write| {
        report::render_to(w, r, Format::Json, TraceDetail::Full, true, false, false)
    };
    // a device or a pipe (`-o /dev/stdout`) is written into, never replaced
    if std::fs::metadata(file).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut f = std::fs::OpenOptions::new().write(true).open(file)?;
        write(&mut f)?;
        return std::io::Write::flush(&mut f);
    }
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(
        file.file_name()
            .unwrap_or_else(|| std::ffi::OsStr::new("report")),
    );
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // readable as a file the run created is (the umask applies), not only by its owner
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let tmp = builder.tempfile_in(dir)?;
    let mut w = std::io::BufWriter::new(tmp);
    write(&mut w)?;
    let tmp = w.into_inner().map_err(|e| e.into_error())?;
    tmp.as_file().sync_all()?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

/// The memory limit of these arguments, in bytes.
fn memory_limit(a: &CheckArgs) -> Option<u64> {
    a.memory
        .map(|mb| mb.saturating_mul(1 << 20))
        .or_else(search::default_memory_limit)
}

/// Starts the process's watchdog for these arguments, before the model is read, so that
/// `--timeout` and the memory limit cover the front end too. A limit the running phase does
/// not notice in time is reported by the watchdog: the verdict, the statistics published so
/// far, exit 9.
fn arm_watchdog(a: &CheckArgs) {
    let name = a.model.display().to_string();
    let engine = a.engine.name();
    let (format, trace, stats, quiet) = (a.format, a.trace, a.stats, a.quiet);
    let force = move |f: search::watchdog::Forced| {
        let mut r = Report::new(
            &name,
            engine,
            Verdict::LimitReached { limit: f.limit },
            None,
        );
        r.stats.states = f.states;
        r.stats.seconds = f.elapsed.as_secs_f64();
        r.stats.peak_memory_bytes = search::peak_bytes();
        let stdout = std::io::stdout();
        let _ = report::render_to(&mut stdout.lock(), &r, format, trace, stats, quiet, false);
    };
    // under `--engine all` each engine has the memory limit to itself and stops alone when it
    // reaches it (`check_all`): the process-wide watchdog, which would end them all, polls none
    let memory = (a.engine != Engine::All).then(|| memory_limit(a)).flatten();
    search::watchdog::arm(a.timeout, memory, exit::LIMIT, Box::new(force));
}

/// A search that ended without a finding after the watchdog requested a limit did not notice
/// the limit in time (it was between two checks): it is reported as the limit, never as
/// "passed" or "bounded", since the limit was reached before the search ended.
fn limit_reached_during(result: &mut search::SearchResult) {
    if result.findings.is_empty() && result.limit.is_none() {
        result.limit = search::watchdog::stopped();
    }
}

/// The search options and the semantics that `zingrs check` uses for these arguments (the one
/// place that turns options into settings; `zingrs regress` adjusts its copy).
pub fn options_and_semantics(a: &CheckArgs, program: &Program) -> (Options, Semantics) {
    let search = match (a.search, a.bfs) {
        (Some(s), _) => s,
        (None, true) => Search::Bfs,
        (None, false) if a.format == Format::Zing => Search::Zing,
        (None, false) => Search::Dfs,
    };
    let opts = Options {
        bfs: search != Search::Dfs,
        zing_order: search == Search::Zing,
        exact: a.exact,
        workers: a.workers.unwrap_or(1),
        liveness: a.liveness_property(),
        ltl: None,
        fair: a.fairness == Some(Fairness::Weak),
        targets: a.targets.clone(),
        keep_going: a.keep_going,
        contexts: a.contexts,
        cooperative: a.cooperative,
        no_live_ranges: a.no_live_ranges,
        no_mod_ref: a.no_mod_ref,
        context_tuples: a.context_tuples,
        // a saved report (`-o`) always has the whole trace
        verdict_only: a.output.is_none()
            && (a.trace == TraceDetail::None || (a.quiet && a.format != Format::Json)),
        unseen_stats: !a.stats && a.format != Format::Json && a.output.is_none(),
        transactions: None,
        check_fingerprints: false,
        deep_from: None,
        // ZING's count is of every order of the process list
        symmetry: a
            .symmetry
            .unwrap_or(if search == Search::Zing || a.format == Format::Zing {
                Symmetry::Off
            } else {
                Symmetry::On
            })
            == Symmetry::On,
        // partial-order reduction reorders steps: off by default where the order is the point
        // (shortest counterexamples, ZING's order and count)
        reduction: a.reduction.unwrap_or(match search {
            Search::Dfs if a.format != Format::Zing => search::Reduction::All,
            Search::Dfs | Search::Zing => search::Reduction::Transactions,
            Search::Bfs => search::Reduction::None,
        }),
        // threads created without bound in a boolean program: a depth-first search would create
        // threads forever before scheduling one
        deepen_threads: a.threads.is_none()
            && !a.cooperative
            && !program.keep_completed
            && zingrs_lang::spawn::unbounded_creation(program),
        limits: Limits {
            max_depth: a.max_depth,
            max_states: a.max_states,
            timeout: a.timeout,
            memory: memory_limit(a),
            progress: !a.quiet,
            cpu_time: false,
        },
    };
    // in the Getafix layout assertions are filters (bp-language.md §5.13)
    let getafix = matches!(program.layout, Layout::Getafix { .. });
    let semantics = Semantics {
        check_assertions: !a.no_assertions && !getafix,
        thread_bound: a.threads,
        cooperative: a.cooperative,
        deadlock: !a.no_deadlock,
    };
    (opts, semantics)
}

/// Adjusts `opts` for the cycle search of `--liveness`: the explicit engine, depth-first, one
/// worker, no reduction and no symmetry (see `docs/guide.md`, "Liveness", for why each is
/// off). Returns a note for each option the user gave that is overridden, or why the run
/// cannot be made.
fn liveness_options(
    a: &CheckArgs,
    program: &Program,
    property: search::Liveness,
    opts: &mut Options,
) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    let flag = if a.ltl.is_some() {
        "--ltl"
    } else {
        "--liveness"
    };
    match a.engine {
        Engine::Auto | Engine::Explicit | Engine::All => {}
        e => {
            return Err(format!(
                "{flag} is checked by the explicit engine only, not by the {} engine (use --engine explicit)",
                e.name()
            ))
        }
    }
    if a.contexts.is_some() {
        return Err(format!("{flag} does not combine with --contexts (a context bound cuts every cycle that switches threads without end)"));
    }
    // an accept that a step begun at an earlier node runs on into (the first statement of a
    // `foreach` body or of a type-switch case) is not where its thread rests: the search, which
    // looks at the node a thread's step begins at, would not see it
    let glued_into = program.accepts.iter().find(|&&(proc, pc)| {
        program.procs[proc as usize].nodes.iter().any(|n| {
            matches!(
                n.glue,
                zingrs_lang::ir::Glue::ToNext | zingrs_lang::ir::Glue::Through
            ) && n.succ.contains(&pc)
        })
    });
    if let Some(&(proc, pc)) = glued_into {
        let line = program.line_of(proc, pc);
        return Err(format!(
            "{flag} cannot check the `accept` at line {line} ({}): it runs inside the step of the statement before it (the first statement of a `foreach` body or a type-switch case); put a `;` before it",
            program.procs[proc as usize].name
        ));
    }
    if property == search::Liveness::Accept && program.accepts.is_empty() {
        notes.push(format!(
            "{} has no `accept` statement: no step is accepting, so no cycle is (--liveness terminates or progress look for other cycles)",
            a.model.display()
        ));
    }
    if a.engine == Engine::All {
        notes.push(format!(
            "{flag} runs the explicit engine alone (the others do not check liveness)"
        ));
    }
    if opts.workers > 1 {
        notes.push(format!(
            "{flag} searches on one thread (--workers {} ignored)",
            opts.workers
        ));
        opts.workers = 1;
    }
    // (only when asked for: `--format zing` picks ZING's order by default)
    if a.bfs || a.search.is_some_and(|s| s != Search::Dfs) {
        notes.push(format!(
            "{flag} searches depth-first (the nested search needs the DFS's order)"
        ));
    }
    opts.bfs = false;
    opts.zing_order = false;
    if let Some(r) = a.reduction.filter(|r| *r != search::Reduction::None) {
        notes.push(format!(
            "--reduction {} is off under {flag} (partial-order reduction would need the strong cycle proviso and invisible accept/progress steps, and transactions hide the states a cycle closes at)",
            match r {
                search::Reduction::Transactions => "transactions",
                search::Reduction::Por => "por",
                _ => "all",
            }
        ));
    }
    opts.reduction = search::Reduction::None;
    if a.symmetry == Some(Symmetry::On) && crate::canon::symmetric_threads(program) {
        notes.push(format!("--symmetry is off under {flag} (a cycle up to a permutation of the threads is not a cycle that closes)"));
    }
    opts.symmetry = false;
    opts.transactions = None;
    Ok(notes)
}

/// The options given that do nothing on `engine` for `program` (`--verbose` warns about them).
fn ineffective_options(a: &CheckArgs, engine: Engine, program: &Program) -> Vec<String> {
    let mut out = Vec::new();
    let on = |e: Engine| engine == e || engine == Engine::All;
    if !on(Engine::Bdd) {
        for (set, flag) in [
            (a.no_live_ranges, "--no-live-ranges"),
            (a.no_mod_ref, "--no-mod-ref"),
            (a.context_tuples, "--context-tuples"),
        ] {
            if set {
                out.push(format!(
                    "{flag} has no effect on the {} engine (it is a BDD engine option)",
                    engine.name()
                ));
            }
        }
    }
    if engine == Engine::Bdd {
        for (set, flag) in [(a.bfs, "--bfs"), (a.exact, "--exact")] {
            if set {
                out.push(format!(
                    "{flag} has no effect on the bdd engine (it stores no explicit states)"
                ));
            }
        }
    }
    if !program.is_concurrent() {
        for (set, flag) in [
            (a.contexts.is_some(), "--contexts"),
            (a.cooperative, "--cooperative"),
        ] {
            if set {
                out.push(format!(
                    "{flag} has no effect on a sequential model (it has one process)"
                ));
            }
        }
    }
    out
}

/// Turns any engine's result into a replayed, reported verdict.
pub fn report_of<'m>(
    m: &'m Machine<'m>,
    name: &str,
    engine: &str,
    result: &search::SearchResult,
    opts: &Options,
) -> Report<'m> {
    report_with(m, name, engine, result, Vec::new(), opts)
}

/// [`report_of`], with the findings' replays that the engine made (`replays`, in order; the
/// others are replayed here).
fn report_with<'m>(
    m: &'m Machine<'m>,
    name: &str,
    engine: &str,
    result: &search::SearchResult,
    replays: Replays,
    opts: &Options,
) -> Report<'m> {
    let mut replays = replays.into_iter();
    let mut path = None;
    let mut found = result
        .findings
        .iter()
        .map(|f| explain(m, f, replays.next().flatten(), opts));
    let (verdict, trace) = match found.next() {
        // a finding that replayed has a path, written even without its trace
        Some(first) if matches!(first.0, Verdict::InternalError { .. }) => first,
        Some(first) => {
            path = result.findings.first().map(|f| f.path().clone());
            first
        }
        None => {
            let v = if let Some(limit) = result.limit {
                Verdict::LimitReached { limit }
            } else if result.cut {
                Verdict::Bounded {
                    bound: format!("stack-depth bound (--max-depth {})", opts.limits.max_depth),
                }
            } else if let Some(n) = m.semantics.thread_bound {
                // the bound cut (or may have cut) thread creations: not a proof
                Verdict::Bounded {
                    bound: format!("thread bound (--threads {n})"),
                }
            } else if result.context_cut {
                Verdict::Bounded {
                    bound: format!(
                        "{} (--contexts {})",
                        crate::report::CONTEXT_BOUND,
                        opts.contexts.unwrap_or(0)
                    ),
                }
            } else if result.deadlocks_unchecked {
                Verdict::Bounded {
                    bound: crate::report::DEADLOCKS_UNCHECKED.into(),
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
    r.cooperative = m.semantics.cooperative;
    r.fewest_switches = result.fewest_switches;
    r.path = path;
    let s = &result.stats;
    // only the explicit engines keep a stack, a search depth and a table of fingerprints
    let explicit = engine == Engine::Explicit.name() || engine == Engine::Summary.name();
    r.stats = report::Stats {
        states: s.states,
        zing_states: s.zing_states,
        transitions: Some(s.transitions),
        initial_states: Some(s.initial_states),
        max_stack_depth: explicit.then_some(s.max_stack),
        max_search_depth: explicit.then_some(s.max_path),
        seconds: s.elapsed.as_secs_f64(),
        peak_memory_bytes: search::peak_bytes(),
        speedup: speedup(&s.workers, s.elapsed),
        omission_probability: explicit.then(|| {
            if opts.exact {
                0.0
            } else {
                crate::canon::omission_bound(s.states)
            }
        }),
        counters: s
            .counters
            .iter()
            .map(|(n, v)| report::Counter {
                name: report::counter_name(n),
                value: *v,
            })
            .chain(worker_counters(&s.workers))
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

/// The workers' CPU time over the search's wall-clock time, with several workers.
fn speedup(workers: &[search::WorkerStats], elapsed: std::time::Duration) -> Option<f64> {
    let cpu: Option<std::time::Duration> = workers.iter().map(|w| w.cpu).sum();
    let wall = elapsed.as_secs_f64();
    (workers.len() > 1 && wall > 0.0).then_some(cpu?.as_secs_f64() / wall)
}

/// Per worker of a parallel search: the states it stored, the unexplored states it gave to
/// idle workers and took from busy ones, the milliseconds it waited for work and those its
/// thread ran.
fn worker_counters(workers: &[search::WorkerStats]) -> impl Iterator<Item = report::Counter> + '_ {
    let counter = |name: String, value: u64| report::Counter { name, value };
    workers.iter().enumerate().flat_map(move |(i, w)| {
        [
            counter(format!("worker_{i}_states"), w.states),
            counter(format!("worker_{i}_given"), w.given),
            counter(format!("worker_{i}_taken"), w.taken),
            counter(format!("worker_{i}_idle_ms"), w.idle.as_millis() as u64),
            counter(
                format!("worker_{i}_cpu_ms"),
                w.cpu.map_or(0, |c| c.as_millis() as u64),
            ),
        ]
    })
}

/// Replays a finding (unless the engine did: `replayed`) and describes it; a finding that does
/// not replay, or whose last state does not show what the finding says ([`report::verify`]),
/// is an internal error.
fn explain<'m>(
    m: &'m Machine<'m>,
    f: &Finding,
    replayed: Option<search::Replayed>,
    opts: &Options,
) -> (Verdict, Option<report::Trace<'m>>) {
    let internal = |message: String| (Verdict::InternalError { message }, None);
    let path = f.path();
    // only the state the path ends in is kept: the trace replays the path again as it is
    // written
    let replayed = match replayed.map_or_else(|| search::replay_keeping(m, path, false), Ok) {
        Ok(r) => r,
        Err(e) => return internal(format!("the counterexample does not replay: {e}")),
    };
    match report::verify(m, path, &replayed, &report::Claim::of_finding(f)) {
        Ok((verdict, end)) => {
            // a trace not asked for is not written (`null` in JSON): an empty one would
            // claim a counterexample of no steps
            let trace = (!opts.verdict_only).then(|| report::build_trace(m, path, &replayed, end));
            (verdict, trace)
        }
        Err(e) => internal(format!("the counterexample is wrong: {e}")),
    }
}
