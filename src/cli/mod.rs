//! The command line (clap): argument parsing, reading files, printing. The only module that
//! does I/O.

mod bench;
mod cfg;
mod check;
mod gen;
pub mod regress;
mod replay;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

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
        /// The subcommand (check, cfg, replay, regress, gen, bench, completions).
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

/// Reads and compiles a model; on failure prints the diagnostics and returns the exit code.
pub(crate) fn load(
    path: &PathBuf,
    lang: Option<LangArg>,
    quiet: bool,
) -> Result<zingrs_lang::ir::Program, i32> {
    load_as(path, lang, quiet, false)
}

/// [`load`]; with `json`, a model with errors is reported as a JSON document on standard
/// output ([`crate::report::invalid_json`]) as well as in text on standard error.
pub(crate) fn load_as(
    path: &PathBuf,
    lang: Option<LangArg>,
    quiet: bool,
    json: bool,
) -> Result<zingrs_lang::ir::Program, i32> {
    use crate::report::exit::INVALID;
    use std::io::Read;
    let name = path.display().to_string();
    let bytes = if name == "-" {
        let mut b = Vec::new();
        match std::io::stdin().read_to_end(&mut b) {
            Ok(_) => b,
            Err(e) => {
                eprintln!("error: cannot read standard input: {e}");
                return Err(INVALID);
            }
        }
    } else {
        match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: cannot read {name}: {e}");
                return Err(INVALID);
            }
        }
    };
    let shown = if name == "-" {
        "standard input"
    } else {
        "the file"
    };
    let text = match decode(bytes) {
        Decoded::Utf8(s) => s,
        Decoded::Latin1InComments { text, first, count } => {
            if !quiet {
                let (line, col, byte) = first;
                eprintln!(
                    "warning: {name}:{line}:{col}: byte 0x{byte:02x} in a comment is not UTF-8; \
                     read as Latin-1{}",
                    if count > 1 {
                        format!(" (and {} more such bytes in comments)", count - 1)
                    } else {
                        String::new()
                    }
                );
            }
            text
        }
        Decoded::Invalid {
            line,
            col,
            byte,
            at,
        } => {
            eprintln!("error: {name}:{line}:{col}: {shown} is not UTF-8 text (byte 0x{byte:02x} at offset {at}, outside a comment)");
            return Err(INVALID);
        }
    };
    let given = lang.is_some();
    let lang = match lang {
        Some(LangArg::Bp) => zingrs_lang::Lang::Bp,
        Some(LangArg::Zing) => zingrs_lang::Lang::Zing,
        None => match zingrs_lang::Lang::from_path(&name) {
            Some(l) => l,
            None => {
                eprintln!(
                    "error: cannot tell the language of {name}: use a .bp or .zing file, or --lang bp|zing"
                );
                return Err(INVALID);
            }
        },
    };
    match zingrs_lang::compile(&name, &text, lang) {
        Ok(c) => {
            if !quiet && !c.warnings.is_empty() {
                let src = &c.program.source;
                eprint!("{}", zingrs_lang::diag::render(src, &c.warnings));
            }
            Ok(c.program)
        }
        Err(diags) => {
            // a model of the other language under the wrong extension: one error that says so,
            // not the dozens its text gives as this language
            let other = match lang {
                zingrs_lang::Lang::Bp => zingrs_lang::Lang::Zing,
                zingrs_lang::Lang::Zing => zingrs_lang::Lang::Bp,
            };
            let diags = if !given && zingrs_lang::compile(&name, &text, other).is_ok() {
                let (this, that, flag) = match lang {
                    zingrs_lang::Lang::Bp => ("a boolean program", "a Zing model", "zing"),
                    zingrs_lang::Lang::Zing => ("a Zing model", "a boolean program", "bp"),
                };
                let d = zingrs_lang::diag::Diagnostic::error(
                    zingrs_lang::ir::Span { start: 0, end: 0 },
                    format!(
                        "{name} is read as {this} (its name says so), but it is {that}: \
                         check it with --lang {flag}"
                    ),
                );
                vec![d]
            } else {
                diags
            };
            let src = zingrs_lang::ir::Source::new(name.clone(), text);
            if json {
                // the diagnostics follow on standard error whether or not this is written
                let _ = emit(crate::report::invalid_json(&src, &diags));
            }
            eprint!("{}", zingrs_lang::diag::render(&src, &diags));
            let n = diags.iter().filter(|d| d.is_error()).count();
            let cap = zingrs_lang::diag::MAX_REPORTED_ERRORS;
            eprintln!(
                "error: {name} is not a valid model ({n} error{}{})",
                if n == 1 { "" } else { "s" },
                if n >= cap {
                    format!("; the report stops at {cap}, there may be more")
                } else {
                    String::new()
                }
            );
            Err(INVALID)
        }
    }
}

/// A model's bytes as text ([`decode`]).
enum Decoded {
    Utf8(String),
    /// Bytes that are not UTF-8 stood only inside comments (a Latin-1 `é` in an author's
    /// name, say): each was read as the Latin-1 character it is. `first`: the line, column
    /// and value of the first.
    Latin1InComments {
        text: String,
        first: (usize, usize, u8),
        count: usize,
    },
    /// A byte that is not UTF-8 outside a comment.
    Invalid {
        line: usize,
        col: usize,
        byte: u8,
        at: usize,
    },
}

/// Reads a model's bytes: a UTF-8 byte-order mark is dropped (editors on Windows write one),
/// and a byte that is not UTF-8 is tolerated inside a comment (`//` to the end of the line,
/// `/* */`; string literals are not comments) and read as Latin-1, the usual encoding of
/// such files; anywhere else it is an error, since it would change what the model says.
fn decode(mut bytes: Vec<u8>) -> Decoded {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    let bytes = match String::from_utf8(bytes) {
        Ok(s) => return Decoded::Utf8(s),
        Err(e) => e.into_bytes(),
    };
    let position = |at: usize| {
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        let col = 1 + at
            - bytes[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
        (line, col)
    };
    #[derive(PartialEq)]
    enum In {
        Code,
        Line,
        Block,
        Str,
    }
    let mut state = In::Code;
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut first = None;
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        if b >= 0x80 {
            // a whole UTF-8 character, or a byte that is not one
            let len = match b {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => 0,
            };
            if let Some(c) = bytes
                .get(i..i + len.max(1))
                .filter(|_| len > 0)
                .and_then(|c| std::str::from_utf8(c).ok())
            {
                text.push_str(c);
                i += len;
                continue;
            }
            if state != In::Line && state != In::Block {
                let (line, col) = position(i);
                return Decoded::Invalid {
                    line,
                    col,
                    byte: b,
                    at: i,
                };
            }
            if first.is_none() {
                let (line, col) = position(i);
                first = Some((line, col, b));
            }
            count += 1;
            text.push(char::from(b));
            i += 1;
            continue;
        }
        text.push(char::from(b));
        match state {
            In::Code if b == b'/' && next == Some(b'/') => state = In::Line,
            In::Code if b == b'/' && next == Some(b'*') => {
                text.push('*');
                i += 1;
                state = In::Block;
            }
            In::Code if b == b'"' => state = In::Str,
            In::Line if b == b'\n' => state = In::Code,
            In::Block if b == b'*' && next == Some(b'/') => {
                text.push('/');
                i += 1;
                state = In::Code;
            }
            In::Str if b == b'\\' => {
                if let Some(n) = next.filter(|n| *n < 0x80) {
                    text.push(char::from(n));
                    i += 1;
                }
            }
            In::Str if b == b'"' || b == b'\n' => state = In::Code,
            _ => {}
        }
        i += 1;
    }
    match first {
        Some(first) => Decoded::Latin1InComments { text, first, count },
        None => Decoded::Utf8(text),
    }
}
