//! `zingrs check MODEL`: the arguments turned into [`CheckOptions`], the library's check
//! ([`crate::check`]), and the I/O around it (the header, the report printed and saved, exit
//! codes, the watchdog).

use crate::check::{Check, CheckOptions, Settings};
use crate::report::{self, exit, Format, Report, TraceDetail, Verdict};
use crate::runtime::Semantics;
use crate::search;
use crate::search::Limits;
use std::path::PathBuf;
use std::time::Duration;
use zingrs_lang::ir::{Layout, Program};

pub use crate::check::{report_of, run_engine, Engine, Search};

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
    /// Preemption bounding (explicit engine): at most K preemptions along a path, a
    /// preemption being a switch away from a thread that could still move (a switch after a
    /// thread ends, blocks or yields is free). Finding nothing is a bounded pass (exit 8)
    /// unless no path was cut.
    #[arg(long, value_name = "K", conflicts_with = "delays")]
    pub preemptions: Option<u32>,
    /// With `--preemptions K`: check with the bounds FROM, FROM + 1, ..., K in turn, stopping
    /// at the first that reaches an error (the smallest number of preemptions it needs).
    #[arg(long, value_name = "FROM", requires = "preemptions")]
    pub preemptions_from: Option<u32>,
    /// Delay bounding (explicit engine; Emmi, Qadeer, Rakamarić, POPL 2011): a deterministic
    /// scheduler (`--scheduler`) picks the thread to run at each step; running another instead
    /// delays each runnable thread the scheduler's order puts before it, one delay each; at
    /// most K delays along a path.
    #[arg(long, value_name = "K")]
    pub delays: Option<u32>,
    /// With `--delays K`: check with the bounds FROM, FROM + 1, ..., K in turn, stopping at the
    /// first that reaches an error (the smallest number of delays it needs).
    #[arg(long, value_name = "FROM", requires = "delays")]
    pub delays_from: Option<u32>,
    /// The deterministic scheduler of `--delays`: `run-to-completion` (the most recently
    /// created thread first, each running until it ends or blocks) or `round-robin` (threads
    /// in creation order). Default: run-to-completion.
    #[arg(long, value_enum, value_name = "S", requires = "delays")]
    pub scheduler: Option<crate::explore::Scheduler>,
    /// With `--delays`: taking an alternative of a choice (`choose`, a `select` with several
    /// enabled branches) other than the first costs one delay too, as ZING's `-sched:` counts.
    #[arg(long, requires = "delays")]
    pub delay_choices: bool,
    /// Bound the number of live threads (Boom's --threadbound): a thread creation is not
    /// enabled while N threads are alive; finding nothing is then a bounded pass (exit 8).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Breadth-first search: shortest counterexamples (the same as `--search bfs`).
    #[arg(long, conflicts_with = "search")]
    pub bfs: bool,
    /// The search order of the explicit engine: `dfs` (depth-first), `bfs` (breadth-first:
    /// shortest counterexamples), `zing` (ZING's: level by level in ZING steps, processes and
    /// choices in ascending order, so the first error reported is ZING's), `random` (random
    /// walks of at most --max-depth steps, as ZING's -randomsample, until an error or a limit:
    /// --max-states counts steps, default 10,000,000; never a pass). Default: `dfs`, or `zing`
    /// with `--format zing`.
    #[arg(long, value_enum, value_name = "ORDER")]
    pub search: Option<Search>,
    /// Swarm runs: permute the order in which the explicit search (dfs, bfs) tries each
    /// node's successors, and salt its fingerprints, by seed S (the same S and model give
    /// the same run; the states stored do not depend on S); with `--search random`, the
    /// walks' seed (default 24301).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Zing's non-preemptive scheduling.
    #[arg(long)]
    pub cooperative: bool,
    /// The steps one atomic region (or, with `--cooperative`, one run of a process up to its
    /// next yield) may take before it is ZING's infinite-loop error (exit 4). Default: ZING's
    /// 1,000,000.
    #[arg(long, value_name = "N", default_value_t = crate::runtime::MAX_ATOMIC_STEPS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_atomic_steps: u32,
    /// Bound on the call-stack depth of any thread; deeper states are cut (exit 8). With
    /// `--search random`, also the steps of each walk.
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
    /// Reductions of the explicit search: `transactions` (an atomic region is one transition,
    /// and under `--cooperative` a process's run up to its next yield, choice or select),
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
    /// concurrent models), and of `--bfs` level by level: `auto` (the cores available) or a
    /// number. They share one visited set, so the states stored, and every verdict, are the
    /// same at any number; with several, which of several errors the depth-first search
    /// finds first (and its counterexample) may differ from run to run (`--bfs` reports a
    /// shortest one, to the same error). 1: the single-threaded search and its order.
    /// Default: 1.
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
    /// Report every distinct error, not only the first, and end with a table of every
    /// property (as --show-properties lists them): violated, not violated (the search ended
    /// without a limit or bound cutting it), or unknown.
    #[arg(long)]
    pub keep_going: bool,
    /// List the properties the check looks at, with a stable id each, and exit (0) without
    /// checking: every assertion, --target label and the deadlock check, and in Zing models
    /// each runtime check a statement carries (null dereference, index, division, overflow,
    /// choose, exception, blocking select). Ids are PROC.KIND.N (the N-th of that kind in the
    /// procedure, in source order), `label.NAME`, `deadlock`, `infinite-loop`.
    #[arg(long)]
    pub show_properties: bool,
    /// Check only the property with this id (repeat for several; --show-properties lists
    /// them). Assertions left out act as `assume`; a runtime error whose check is left out
    /// ends its execution unreported; labels and the deadlock check left out are not looked
    /// for.
    #[arg(long, value_name = "ID")]
    pub property: Vec<String>,
    /// After a check that ends without a limit or bound cutting it, list the statements that
    /// never ran, per procedure (SPIN's "unreached in proctype"): dead code, or code the
    /// model's environment never exercises. Partial-order reduction is off under it.
    #[arg(long)]
    pub coverage: bool,
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
    /// Distributed breadth-first search: N processes (this one and N - 1 others, started
    /// the same way with their own --process) search together over TCP, each storing its
    /// share of the states; process 0 prints the report. The explicit engine's `--bfs`:
    /// the same states stored and verdicts as one process. docs/distributed.md.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub processes: Option<u32>,
    /// With --processes: this process's index, 0 to N - 1. Default: 0.
    #[arg(long, value_name = "I", requires = "processes")]
    pub process: Option<u32>,
    /// With --processes: where the processes run, one `host` or `host:port` a line, process
    /// 0 first. Without it, every process runs on this machine over loopback (127.0.0.1).
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub hostfile: Option<PathBuf>,
    /// With --processes: process I listens on port PORT + I (where the host file gives no
    /// port). Default: 2101.
    #[arg(long, value_name = "PORT", requires = "processes")]
    pub port: Option<u16>,
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

/// Runs a check and prints its report; returns the exit code.
pub fn run(a: &CheckArgs) -> i32 {
    arm_watchdog(a);
    let cluster = match cluster(a) {
        Ok(c) => c,
        Err(e) => return usage_error(&e),
    };
    // in a distributed search process 0 prints and saves the report; the others say nothing
    // on standard output and exit with the same code
    let primary = cluster.as_ref().is_none_or(|c| c.process == 0);
    let program = match super::load_as(&a.model, a.lang, a.quiet, a.format == Format::Json) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if a.show_properties {
        let listed = crate::check::properties(&program, &check_options(a));
        let printed = report::render_properties(
            &mut std::io::stdout().lock(),
            &a.model.display().to_string(),
            &listed,
            a.format,
        );
        return match printed {
            Ok(()) => exit::PASSED,
            Err(e) => {
                eprintln!("error: standard output: {e}");
                exit::OUTPUT
            }
        };
    }
    let mut options = check_options(a);
    options.distributed = cluster;
    let check = match Check::new(&program, &options) {
        Ok(c) => c,
        Err(e) => return usage_error(&e.to_string()),
    };
    let getafix = matches!(program.layout, Layout::Getafix { .. });
    if getafix && !a.quiet && !a.no_assertions {
        eprintln!(
            "note: Getafix concurrent layout (init + thread procedures): assertions are filters; --target labels and deadlocks are reported"
        );
    }
    if !a.quiet {
        check.notes().iter().for_each(|n| eprintln!("note: {n}"));
    }
    if a.verbose {
        for w in ineffective_options(a, check.engine(), &program) {
            eprintln!("warning: {w}");
        }
    }
    let mut header_printed = Ok(());
    if a.format == Format::Text && !a.quiet && primary {
        // what runs is said before the search starts, which may take long
        let (engine, note) = check.engine_title();
        let header = report::header(&a.model.display().to_string(), &engine, note);
        let mut out = std::io::stdout().lock();
        header_printed = std::io::Write::write_all(&mut out, header.as_bytes())
            .and_then(|()| std::io::Write::flush(&mut out));
    }
    let report = match check.run() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return e.exit_code();
        }
    };
    if let (Some(from), Some(flag)) = (
        a.preemptions_from.or(a.delays_from),
        [("preemptions", a.preemptions), ("delays", a.delays)]
            .into_iter()
            .find(|(_, k)| k.is_some())
            .map(|(f, _)| f),
    ) {
        let reached = matches!(
            report.exit_code,
            exit::ASSERTION | exit::DEADLOCK | exit::RUNTIME_ERROR
        );
        let bound = report.stats.counters.iter().find(|c| c.name == flag);
        if let Some(k) = bound.map(|c| c.value).filter(|_| reached && !a.quiet) {
            if k == u64::from(from) {
                eprintln!("note: reached with --{flag} {k}, the smallest bound tried");
            } else {
                eprintln!(
                    "note: reached with --{flag} {k}, not with --{flag} {}",
                    k - 1
                );
            }
        }
    }
    if let Some(from) = a.contexts_from {
        let reached = matches!(
            report.exit_code,
            exit::ASSERTION | exit::DEADLOCK | exit::RUNTIME_ERROR
        );
        let bound = report.stats.counters.iter().find(|c| c.name == "contexts");
        if let Some(k) = bound.map(|c| c.value).filter(|_| reached && !a.quiet) {
            if k == u64::from(from) {
                eprintln!("note: reached with --contexts {k}, the smallest bound tried");
            } else {
                eprintln!(
                    "note: reached with --contexts {k}, not with --contexts {}",
                    k - 1
                );
            }
        }
    }
    // the verdict is decided: from here a limit, Ctrl-C or SIGTERM cuts the writing of the
    // report (which says so), never the verdict
    if !search::watchdog::report() {
        // the watchdog forced a limit and prints its own report
        search::watchdog::wait_for_exit();
    }
    if !primary {
        let code = report.exit_code;
        std::mem::forget(report);
        std::mem::forget(program);
        return code;
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

/// The processes of a distributed search (`--processes`), or none.
fn cluster(a: &CheckArgs) -> Result<Option<crate::explore::Cluster>, String> {
    use crate::explore::distributed::DEFAULT_PORT;
    let Some(n) = a.processes else {
        return Ok(None);
    };
    let (n, i) = (n as usize, a.process.unwrap_or(0) as usize);
    let port = a.port.unwrap_or(DEFAULT_PORT);
    let c = match &a.hostfile {
        Some(f) => {
            let text = std::fs::read_to_string(f)
                .map_err(|e| format!("the host file {}: {e}", f.display()))?;
            crate::explore::Cluster::from_hostfile(&text, n, i, port)?
        }
        None => crate::explore::Cluster::loopback(n, i, port)?,
    };
    Ok(Some(c))
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
    // a distributed search's other processes print nothing on standard output
    let primary = a.process.unwrap_or(0) == 0;
    let force = move |f: search::watchdog::Forced| {
        if !primary {
            return;
        }
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

impl CheckArgs {
    /// The library's options for these arguments (what `zingrs check` passes to
    /// [`crate::check::Check`]).
    pub fn options(&self) -> CheckOptions {
        check_options(self)
    }

    /// The language given with `--lang`, if any.
    pub fn language(&self) -> Option<zingrs_lang::Lang> {
        self.lang.map(super::LangArg::lang)
    }
}

/// The library's options for these arguments.
fn check_options(a: &CheckArgs) -> CheckOptions {
    let search = match (a.search, a.bfs) {
        (Some(s), _) => Some(s),
        (None, true) => Some(Search::Bfs),
        (None, false) => None,
    };
    CheckOptions {
        engine: a.engine,
        targets: a.targets.clone(),
        assertions: !a.no_assertions,
        deadlock: !a.no_deadlock,
        liveness: a.liveness_property(),
        ltl: a.ltl.clone(),
        fair: a.fairness == Some(Fairness::Weak),
        contexts: a.contexts,
        contexts_from: a.contexts_from,
        bounding: match (a.preemptions, a.delays) {
            (Some(k), _) => Some(crate::explore::Bounding::Preemptions(k)),
            (None, Some(k)) => Some(crate::explore::Bounding::Delays {
                bound: k,
                scheduler: a
                    .scheduler
                    .unwrap_or(crate::explore::Scheduler::RunToCompletion),
                choices: a.delay_choices,
            }),
            (None, None) => None,
        },
        bounding_from: a.preemptions_from.or(a.delays_from),
        threads: a.threads,
        search,
        cooperative: a.cooperative,
        max_atomic_steps: a.max_atomic_steps,
        reduction: a.reduction,
        symmetry: a.symmetry.map(|s| s == Symmetry::On),
        exact: a.exact,
        workers: a.workers.unwrap_or(1),
        no_live_ranges: a.no_live_ranges,
        no_mod_ref: a.no_mod_ref,
        context_tuples: a.context_tuples,
        keep_going: a.keep_going,
        properties: a.property.clone(),
        coverage: a.coverage,
        limits: Limits {
            max_depth: a.max_depth,
            max_states: a.max_states,
            timeout: a.timeout,
            memory: memory_limit(a),
            progress: !a.quiet,
            cpu_time: false,
            cancel: None,
        },
        zing_layout: a.format == Format::Zing,
        // a saved report (`-o`) always has the whole trace
        trace: !(a.output.is_none()
            && (a.trace == TraceDetail::None || (a.quiet && a.format != Format::Json))),
        stats: a.stats || a.format == Format::Json || a.output.is_some(),
        seed: a.seed,
        // (read from the host file by `run`)
        distributed: None,
    }
}

/// The engines' settings and the semantics that `zingrs check` uses for these arguments
/// ([`crate::check::options_and_semantics`]; `zingrs regress` adjusts its copy).
pub fn options_and_semantics(a: &CheckArgs, program: &Program) -> (Settings, Semantics) {
    crate::check::options_and_semantics(&check_options(a), program)
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
