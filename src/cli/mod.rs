//! The command line (clap): argument parsing, reading files, printing. The only module that
//! does I/O.

mod bench;
mod cfg;
mod check;
mod collect;
mod gen;
pub mod regress;
mod replay;

use clap::{Parser, Subcommand};

pub use check::CheckArgs;

/// What `--help` says after the commands: the exit codes every command shares.
const EXIT_CODES: &str = "\
Exit codes:
  0  passed: no error is reachable
  2  deadlock: no process can move and one is blocked
  3  assertion failed, or a --target label reached
  4  runtime error (null dereference, index out of range, overflow, ...)
  5  internal error (engines disagree, a counterexample does not replay)
  6  liveness violated (--liveness: a reachable cycle of the kind asked for)
  7  invalid input or usage (syntax and type errors, bad options, unreadable files)
  8  inconclusive: no error was found, but a bound (depth, contexts, threads) cut the search,
     or the engine does not look for the deadlocks a boolean program's threads can reach
  9  inconclusive: a time, state or memory limit stopped the search
  10 output not written: the report could not be saved (-o FILE: a full disk, an
     unwritable place) or standard output failed; the verdict is printed first, the error
     on standard error

Documentation: docs/guide.md, docs/boolean-programs.md and docs/zing.md in the source
distribution; `zingrs manpage` prints a man page.";

/// zingrs: a model checker for boolean programs and Zing models.
#[derive(Parser, Debug)]
#[command(name = "zingrs", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
// (a command is parsed once per run: its size does not matter)
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Decide whether a model can reach a bad state (failed assertion, target label, ...).
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Print the control-flow graphs of a model's procedures.
    Cfg(cfg::CfgArgs),
    /// Re-execute a counterexample saved with `check -o FILE`, checking that it is one.
    #[command(after_help = EXIT_CODES)]
    Replay(replay::ReplayArgs),
    /// Run models against their expected verdicts (headers, test.desc, manifests).
    Regress(regress::RegressArgs),
    /// One verdict from the saved reports of many runs of one model (a swarm): violated if
    /// some run's counterexample replays, passed if some run searched the whole state space,
    /// else inconclusive.
    #[command(after_help = EXIT_CODES)]
    Collect(collect::CollectArgs),
    /// Print a generated model (random-bp SEED, random-zing SEED, bebop-t N, zing-clone N, ...).
    Gen(gen::GenArgs),
    /// Time a benchmark family over several sizes and engines (table, slopes, speed-ups, plot).
    Bench(bench::BenchArgs),
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print zingrs's man page (roff), e.g. `zingrs manpage > zingrs.1`, or a subcommand's
    /// with every option, e.g. `zingrs manpage check > zingrs-check.1`.
    Manpage {
        /// The subcommand (check, cfg, replay, regress, collect, gen, bench, completions).
        subcommand: Option<String>,
    },
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp
                | clap::error::ErrorKind::DisplayVersion
                | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => 0,
                _ => crate::report::exit::INVALID,
            };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Check(a) => check::run(&a),
        Command::Cfg(a) => cfg::run(&a),
        Command::Replay(a) => replay::run(&a),
        Command::Regress(a) => regress::run(&a),
        Command::Collect(a) => collect::run(&a),
        Command::Gen(a) => gen::run(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "zingrs", &mut script);
            emit(&script)
        }
        Command::Manpage { subcommand } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            if let Some(name) = subcommand {
                let Some(sub) = cmd.find_subcommand(&name).filter(|_| name != "help") else {
                    let names: Vec<String> = cmd
                        .get_subcommands()
                        .map(|c| c.get_name().to_string())
                        .filter(|n| n != "help")
                        .collect();
                    eprintln!(
                        "error: no subcommand `{name}` (one of: {})",
                        names.join(", ")
                    );
                    return crate::report::exit::INVALID;
                };
                // zingrs-check(1), as git names its subcommands' pages
                // (clap takes a static name; the process prints one page and ends)
                let title: &'static str = Box::leak(format!("zingrs-{name}").into_boxed_str());
                cmd = sub.clone().name(title).bin_name(title);
            }
            let mut page = Vec::new();
            match clap_mangen::Man::new(cmd).render(&mut page) {
                Ok(()) => emit(&page),
                Err(e) => {
                    eprintln!("error: cannot print the man page: {e}");
                    crate::report::exit::INVALID
                }
            }
        }
    }
}

/// Writes `bytes` to standard output: [`crate::report::exit::PASSED`], or on failure (a full
/// device) a message and [`crate::report::exit::OUTPUT`] instead of a panic.
pub(crate) fn emit(bytes: impl AsRef<[u8]>) -> i32 {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes.as_ref()).and_then(|()| out.flush()) {
        Ok(()) => crate::report::exit::PASSED,
        Err(e) => {
            eprintln!("error: cannot write to standard output: {e}");
            crate::report::exit::OUTPUT
        }
    }
}

/// When a check's or replay's report could not be written to standard output (a full
/// device): says so, and gives the verdict on standard error instead; returns
/// [`crate::report::exit::OUTPUT`].
pub(crate) fn stdout_failed(e: &std::io::Error, verdict: &crate::report::Verdict) -> i32 {
    eprintln!("error: cannot write the report to standard output: {e}");
    eprintln!(
        "{} (exit code {}; this run exits with {})",
        verdict.headline(),
        verdict.exit_code(),
        crate::report::exit::OUTPUT
    );
    crate::report::exit::OUTPUT
}

/// The longest time limit accepted (about 31 years): anything longer is surely a typo, and
/// every limit converts to a `Duration` and an `Instant` without overflow.
pub const MAX_SECONDS: f64 = 1e9;

/// Parses a number of seconds for `--timeout` (clap value parser): a finite, non-negative
/// number up to [`MAX_SECONDS`]. `Duration::from_secs_f64` panics on values out of range, so
/// they are refused here with a message instead.
/// The most workers `--workers` takes (far beyond any machine's cores: a typo, not a plan).
pub const MAX_WORKERS: usize = 1024;

/// `--workers`: a number from 1 to [`MAX_WORKERS`], or `auto` (the cores available).
pub fn workers(s: &str) -> Result<usize, String> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("auto") {
        return Ok(std::thread::available_parallelism().map_or(1, |n| n.get()));
    }
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_WORKERS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected `auto` or a number of workers from 1 to {MAX_WORKERS}, not {s}"
        )),
    }
}

pub fn seconds(s: &str) -> Result<std::time::Duration, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !(v.is_finite() && (0.0..=MAX_SECONDS).contains(&v)) {
        return Err(format!(
            "expected a number of seconds from 0 to {MAX_SECONDS:e}, not {s}"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(v))
}

/// [`seconds`], but zero is refused too (a per-model budget of no time at all).
pub fn positive_seconds(s: &str) -> Result<std::time::Duration, String> {
    let d = seconds(s)?;
    if d.is_zero() {
        return Err("expected a positive number of seconds".into());
    }
    Ok(d)
}

/// The largest `--memory` in megabytes (1 PiB): the byte count fits a `u64` with room to spare.
pub const MAX_MEGABYTES: u64 = 1 << 30;

/// Arms the watchdog for a command without limit options (`replay`): the default memory
/// limit and Ctrl-C end it with a message on stderr and exit 9 instead of the kernel's OOM
/// killer or a silent death.
pub(crate) fn arm_default_watchdog(command: &'static str) {
    let force = move |f: crate::search::watchdog::Forced| {
        let what = match f.limit {
            crate::search::Limit::Interrupted => "interrupted".to_string(),
            l => format!("{} reached", l.describe()),
        };
        eprintln!(
            "error: {command} {what} after {:.1} s",
            f.elapsed.as_secs_f64()
        );
    };
    crate::search::watchdog::arm(
        None,
        crate::search::default_memory_limit(),
        crate::report::exit::LIMIT,
        Box::new(force),
    );
}

/// The language choice of `--lang`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LangArg {
    /// Boolean programs (SLAM/Bebop), as in `.bp` files.
    Bp,
    /// Zing models, as in `.zing` files.
    Zing,
}

impl LangArg {
    /// The language.
    pub fn lang(self) -> zingrs_lang::Lang {
        match self {
            LangArg::Bp => zingrs_lang::Lang::Bp,
            LangArg::Zing => zingrs_lang::Lang::Zing,
        }
    }
}

/// Reads and compiles a model; on failure prints the diagnostics and returns the exit code.
pub(crate) fn load(
    path: &std::path::Path,
    lang: Option<LangArg>,
    quiet: bool,
) -> Result<zingrs_lang::ir::Program, i32> {
    load_as(path, lang, quiet, false)
}

/// [`load`]; with `json`, a model with errors is reported as a JSON document on standard
/// output ([`crate::report::invalid_json`]) as well as in text on standard error.
pub(crate) fn load_as(
    path: &std::path::Path,
    lang: Option<LangArg>,
    quiet: bool,
    json: bool,
) -> Result<zingrs_lang::ir::Program, i32> {
    use crate::check::ParseError;
    let lang = lang.map(LangArg::lang);
    match crate::check::parse_file(path, lang) {
        Ok(parsed) => {
            if !quiet {
                for n in &parsed.notes {
                    eprintln!("warning: {n}");
                }
                if !parsed.warnings.is_empty() {
                    let src = &parsed.program.source;
                    eprint!("{}", zingrs_lang::diag::render(src, &parsed.warnings));
                }
            }
            crate::limits::release_freed_memory();
            Ok(parsed.program)
        }
        Err(e) => {
            if let (ParseError::Invalid { notes, .. }, false) = (&e, quiet) {
                notes.iter().for_each(|n| eprintln!("warning: {n}"));
            }
            if let (
                ParseError::Invalid {
                    source,
                    diagnostics,
                    ..
                },
                true,
            ) = (&e, json)
            {
                // the diagnostics follow on standard error whether or not this is written
                let _ = emit(crate::report::invalid_json(source, diagnostics));
            }
            eprint!("{}", e.render());
            Err(crate::report::exit::INVALID)
        }
    }
}
