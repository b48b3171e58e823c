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

use super::check::{report_of, run_engine, CheckArgs, Engine};
use crate::report::Verdict;
use crate::report::{exit, Report};
use crate::runtime::{Machine, Semantics};
use crate::search::{watchdog, Limit, Options, Reduction};
use clap::Parser;
use serde::Serialize;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use zingrs_lang::ir::Program;

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
}

/// Parses `--jobs`: at least one worker.
fn jobs(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("expected a positive number of jobs, not {s}")),
    }
}

/// One way of checking a model: an engine and its search options.
#[derive(Clone, Debug)]
pub struct Config {
    /// The column name: `explicit`, `explicit-bfs`, `explicit-exact`, `explicit-unreduced`,
    /// `summary`, `bdd`, `coverability`.
    pub name: String,
    engine: Engine,
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
}

impl Config {
    fn new(name: &str, engine: Engine, bfs: bool, exact: bool) -> Config {
        Config {
            name: name.into(),
            engine,
            bfs,
            exact,
            reduction: None,
            symmetry: None,
            threads: None,
            tuples: false,
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
        Config::new("summary", Engine::Summary, false, false),
        Config::new("bdd", Engine::Bdd, false, false),
        Config::tuples(),
        Config::new("coverability", Engine::Coverability, false, false),
    ]
}

fn configs_for(engine: RegressEngine, modes: bool) -> Vec<Config> {
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
    /// ZING's state count, from the plain search of a Zing model.
    #[serde(skip)]
    pub zing_states: Option<u64>,
}

/// Parses `zingrs check` options (as written in a header or manifest) into [`CheckArgs`].
fn parse_options(options: &[String]) -> Result<CheckArgs, String> {
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

/// The options of a model's `// options:` header line (empty if none).
pub fn header_options(text: &str) -> Vec<String> {
    header(text).options
}

/// The search options and semantics `zingrs check` would use for these options (kept in step
/// with `check::run`), with the time limit capped by `budget`.
fn options_of(
    c: &Config,
    program: &Program,
    a: &CheckArgs,
    budget: Duration,
) -> (Options, Semantics) {
    let (mut opts, semantics) = super::check::options_and_semantics(a, program);
    opts.bfs |= c.bfs;
    opts.exact |= c.exact;
    if let Some(r) = c.reduction {
        opts.reduction = r;
    }
    if let Some(on) = c.symmetry {
        opts.symmetry = on;
    }
    opts.context_tuples |= c.tuples;
    let mut semantics = semantics;
    if let Some(n) = c.threads {
        // as `--threads N` would: the bound replaces the deepening on it
        semantics.thread_bound = Some(n);
        opts.deepen_threads = false;
    }
    opts.keep_going = false;
    opts.limits.timeout = Some(a.timeout.map_or(budget, |t| budget.min(t)));
    // models run side by side: each is timed by the CPU time its own thread uses
    opts.limits.cpu_time = true;
    // no progress lines: many checks run at once and the table is the output
    opts.limits.progress = false;
    (opts, semantics)
}

/// Runs one configuration; `Err` says why the engine does not apply.
fn run_config(
    c: &Config,
    program: &Program,
    a: &CheckArgs,
    budget: Duration,
) -> Result<Run, String> {
    let (opts, semantics) = options_of(c, program, a, budget);
    if c.tuples && (opts.contexts.is_none() || !crate::symbolic::contexts::product_applies(program))
    {
        return Err("the bdd engine's own search here (no product states to compare)".into());
    }
    let start = Instant::now();
    // this run's memory limit, armed on this thread only: other models run beside it
    let guard = watchdog::guard(opts.limits.memory);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_engine(c.engine, program, semantics, &opts).map(|result| {
            let m = Machine::new(program, semantics);
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
                zing_states: None,
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
                zing_states: None,
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
        zing_states: r.stats.zing_states,
    }
}

/// Why no engine can run this program at all (the checks `zingrs check` makes first; today
/// every compiled model runs).
fn not_runnable(_program: &Program, _a: &CheckArgs) -> Option<String> {
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
/// - two runs under the same bound, with and without symmetry, give the same exit code;
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
                a.exit_code != b.exit_code
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
                Some(exit::PASSED | exit::ASSERTION | exit::DEADLOCK | exit::RUNTIME_ERROR)
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

// ---------------------------------------------------------------------------------------------
// expectations

/// What a model is expected to give.
#[derive(Clone, Debug)]
enum Want {
    /// A verdict kind (`passed`, `assertion-failed`, `target-reached`, `bounded`, ...).
    Kind(String),
    /// An exit code (0 = safe, 3 = unsafe, 8 = bounded, ...).
    Exit(i32),
    /// Rejected by the front end.
    Invalid {
        message: Option<String>,
        code: Option<String>,
        errors: Option<usize>,
    },
}

/// A model to run.
#[derive(Clone, Debug)]
struct Case {
    model: PathBuf,
    /// Where the expectation comes from: `header`, `test.desc`, `manifest`, `file name`.
    source: &'static str,
    options: Vec<String>,
    /// The expectation as written, and its meaning.
    expected: Option<(String, Want)>,
    /// A problem found while reading the expectation (the row fails).
    problem: Option<String>,
    /// Why the case is not run (the row is skipped).
    skip: Option<String>,
    /// ZING's "distinct states explored" for the model (`zing-states:`).
    zing_states: Option<u64>,
}

/// The `// key: value` header of a model (regressions/README.md).
#[derive(Default)]
struct Header {
    expect: Option<String>,
    options: Vec<String>,
    message: Option<String>,
    code: Option<String>,
    errors: Option<usize>,
    zing_states: Option<u64>,
}

fn header(text: &str) -> Header {
    let mut h = Header::default();
    for line in text.lines() {
        let t = line.trim();
        let Some(rest) = t.strip_prefix("//") else {
            if t.is_empty() {
                continue;
            }
            break;
        };
        let rest = rest.trim();
        let value = |k: &str| rest.strip_prefix(k).map(|v| v.trim().to_string());
        if let Some(v) = value("expect:") {
            h.expect = Some(v);
        } else if let Some(v) = value("options:") {
            h.options = v.split_whitespace().map(String::from).collect();
        } else if let Some(v) = value("message:") {
            h.message = Some(v);
        } else if let Some(v) = value("code:") {
            h.code = Some(v);
        } else if let Some(v) = value("errors:") {
            h.errors = v.parse().ok();
        } else if let Some(v) = value("zing-states:") {
            h.zing_states = v.parse().ok();
        }
    }
    h
}

/// Reads an expected result as a header, a manifest or a test.desc writes it.
fn parse_want(s: &str) -> Option<Want> {
    let t = s.trim().trim_end_matches('.').trim();
    let t = t.trim_start_matches('^').trim_end_matches('$');
    let lower = t.to_ascii_lowercase();
    Some(match lower.as_str() {
        "passed" | "assertion-failed" | "target-reached" | "bounded" | "deadlock"
        | "runtime-error" => Want::Kind(lower),
        "invalid" => Want::Invalid {
            message: None,
            code: None,
            errors: None,
        },
        "reachable"
        | "yes"
        | "unsafe"
        | "verification failed"
        | "failed"
        | "fail"
        | "error"
        | "true" => Want::Exit(exit::ASSERTION),
        "unreachable"
        | "no"
        | "safe"
        | "verification successful"
        | "successful"
        | "pass"
        | "ok"
        | "false" => Want::Exit(exit::PASSED),
        _ => Want::Exit(lower.parse().ok()?),
    })
}

/// Maps Boppo's `-l LABEL` to `--target LABEL`; other options pass through.
fn map_label_options(tokens: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if (tokens[i] == "-l" || tokens[i] == "--label") && i + 1 < tokens.len() {
            out.push("--target".into());
            out.push(tokens[i + 1].clone());
            i += 2;
        } else {
            out.push(tokens[i].clone());
            i += 1;
        }
    }
    out
}

fn header_case(model: &Path, text: &str) -> Case {
    let h = header(text);
    let mut case = Case {
        model: model.to_path_buf(),
        source: "header",
        options: h.options.clone(),
        expected: None,
        problem: None,
        skip: None,
        zing_states: h.zing_states,
    };
    if let Some(e) = &h.expect {
        match parse_want(e) {
            Some(Want::Invalid { .. }) => {
                case.expected = Some((
                    e.clone(),
                    Want::Invalid {
                        message: h.message,
                        code: h.code,
                        errors: h.errors,
                    },
                ))
            }
            Some(w) => case.expected = Some((e.clone(), w)),
            None => case.problem = Some(format!("unknown expected verdict `{e}`")),
        }
        return case;
    }
    // Getafix: an underscore-delimited `safe` / `unsafe` token in the file name (§7.2)
    let stem = model.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let tokens: Vec<&str> = stem.split(['_', '-', '.']).collect();
    let marker = if tokens.contains(&"unsafe") {
        Some(("unsafe", exit::ASSERTION))
    } else if tokens.contains(&"safe") {
        Some(("safe", exit::PASSED))
    } else {
        None
    };
    if let Some((word, code)) = marker {
        case.source = "file name";
        case.options = vec![
            "--target".into(),
            "SLIC_ERROR".into(),
            "--no-assertions".into(),
        ];
        case.expected = Some((word.into(), Want::Exit(code)));
    }
    case
}

/// Reads a CBMC/SatAbs `test.desc`; the options zingrs does not need go to `ignored`.
fn desc_case(desc: &Path, ignored: &Mutex<BTreeSet<String>>) -> Case {
    let dir = desc.parent().unwrap_or(Path::new("."));
    let text = std::fs::read_to_string(desc).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    // line 2: the model (anything after it on the line is taken as options)
    let line2: Vec<&str> = lines
        .get(1)
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    let file = line2.first().copied().unwrap_or("");
    let mut case = Case {
        model: dir.join(file),
        source: "test.desc",
        options: Vec::new(),
        expected: None,
        problem: None,
        skip: None,
        zing_states: None,
    };
    if file.is_empty() {
        case.model = desc.to_path_buf();
        case.problem = Some("test.desc names no model on line 2".into());
        return case;
    }
    let level = lines.first().map(|l| l.trim()).unwrap_or("");
    if matches!(level, "KNOWNBUG" | "FUTURE" | "BROKEN") {
        case.skip = Some(format!(
            "test level {level} is not run (only CORE, THOROUGH)"
        ));
        return case;
    }
    let tokens: Vec<String> = line2[1.min(line2.len())..]
        .iter()
        .copied()
        .chain(lines.get(2).map_or("", |l| l.trim()).split_whitespace())
        .map(String::from)
        .collect();
    let mut i = 0;
    while i < tokens.len() {
        if (tokens[i] == "-l" || tokens[i] == "--label") && i + 1 < tokens.len() {
            case.options.push("--target".into());
            case.options.push(tokens[i + 1].clone());
            i += 2;
        } else {
            ignored
                .lock()
                .expect("ignored options")
                .insert(tokens[i].clone());
            i += 1;
        }
    }
    for l in lines.iter().skip(3) {
        let t = l.trim();
        if t == "--" {
            break;
        }
        let want = if t.contains("VERIFICATION SUCCESSFUL") {
            Some(exit::PASSED)
        } else if t.contains("VERIFICATION FAILED") {
            Some(exit::ASSERTION)
        } else {
            None
        };
        if let Some(w) = want {
            let shown = if w == exit::PASSED {
                "VERIFICATION SUCCESSFUL"
            } else {
                "VERIFICATION FAILED"
            };
            if case.expected.as_ref().is_some_and(|(s, _)| s != shown) {
                case.problem = Some("test.desc expects both SUCCESSFUL and FAILED".into());
            }
            case.expected = Some((shown.into(), Want::Exit(w)));
        }
    }
    case
}

/// Splits one CSV line (double quotes protect commas; `""` is a quote), with the `csv` crate.
fn split_csv(line: &str) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    match reader.records().next() {
        Some(Ok(record)) => record.iter().map(String::from).collect(),
        // a line the reader cannot split (it reads UTF-8 from a &str, so this does not happen)
        _ => vec![line.to_string()],
    }
}

/// Reads a manifest: `model <sep> options <sep> expected [<sep> note]`, or `model <sep>
/// expected`; `#` starts a comment line; a first row starting with `model` is a header.
fn manifest_cases(path: &Path) -> Vec<Case> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let tsv = path.extension().is_some_and(|x| x == "tsv");
    let mut cases = Vec::new();
    let mut first = true;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let fields: Vec<String> = if tsv {
            line.split('\t').map(|f| f.trim().to_string()).collect()
        } else {
            split_csv(line)
                .iter()
                .map(|f| f.trim().to_string())
                .collect()
        };
        let header_row = first && fields[0].eq_ignore_ascii_case("model");
        first = false;
        if header_row {
            continue;
        }
        let (options, expected) = match fields.len() {
            0 | 1 => (String::new(), None),
            2 => (String::new(), Some(fields[1].clone())),
            _ => (fields[1].clone(), Some(fields[2].clone())),
        };
        let tokens: Vec<String> = options.split_whitespace().map(String::from).collect();
        let mut case = Case {
            model: dir.join(&fields[0]),
            source: "manifest",
            options: map_label_options(&tokens),
            expected: None,
            problem: None,
            skip: None,
            zing_states: None,
        };
        match expected {
            None => {
                case.problem = Some(format!(
                    "{}:{}: a manifest row needs model, options and expected",
                    path.display(),
                    n + 1
                ))
            }
            Some(e) => match parse_want(&e) {
                Some(w) => case.expected = Some((e, w)),
                None => {
                    case.problem = Some(format!(
                        "{}:{}: unknown expected result `{e}`",
                        path.display(),
                        n + 1
                    ))
                }
            },
        }
        cases.push(case);
    }
    cases
}

fn is_model(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "bp" || x == "zing")
}

/// A CPROVER test description: `test.desc`, or any `*.desc` (as `test.pl` reads them).
fn is_desc(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "desc")
}

fn is_manifest(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "tsv" || x == "csv")
}

/// Collects model files, test.desc files and manifests under `p`.
fn walk(
    p: &Path,
    models: &mut Vec<PathBuf>,
    descs: &mut BTreeSet<PathBuf>,
    manifests: &mut Vec<PathBuf>,
) {
    if p.is_dir() {
        // depth first, each directory's entries by name: a stable order on every machine
        let entries = walkdir::WalkDir::new(p)
            .follow_links(true)
            .sort_by_file_name()
            .into_iter()
            .flatten();
        for e in entries {
            if e.file_type().is_dir() {
                continue;
            }
            let e = e.into_path();
            if is_desc(&e) {
                descs.insert(e);
            } else if is_manifest(&e) {
                manifests.push(e);
            } else if is_model(&e) {
                models.push(e);
            }
        }
    } else if is_desc(p) {
        descs.insert(p.to_path_buf());
    } else if is_manifest(p) {
        manifests.push(p.to_path_buf());
    } else {
        // a model named directly: its directory's test.desc may hold its expectation
        if let Some(d) = p
            .parent()
            .map(|d| d.join("test.desc"))
            .filter(|d| d.is_file())
        {
            descs.insert(d);
        }
        models.push(p.to_path_buf());
    }
}

fn key(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Every case under the paths, in a stable order; also the test.desc options ignored.
fn discover(paths: &[PathBuf]) -> (Vec<Case>, BTreeSet<String>) {
    let (mut models, mut descs, mut manifests) = (Vec::new(), BTreeSet::new(), Vec::new());
    for p in paths {
        walk(p, &mut models, &mut descs, &mut manifests);
    }
    let ignored = Mutex::new(BTreeSet::new());
    let mut cases = Vec::new();
    let mut claimed = HashSet::new();
    for d in &descs {
        let c = desc_case(d, &ignored);
        claimed.insert(key(&c.model));
        cases.push(c);
    }
    for m in &manifests {
        for c in manifest_cases(m) {
            claimed.insert(key(&c.model));
            cases.push(c);
        }
    }
    let mut seen = HashSet::new();
    for m in models {
        let k = key(&m);
        if claimed.contains(&k) || !seen.insert(k) {
            continue;
        }
        let text = std::fs::read(&m)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        cases.push(header_case(&m, &text));
    }
    (cases, ignored.into_inner().expect("ignored options"))
}

// ---------------------------------------------------------------------------------------------
// running

/// The outcome of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Passed,
    Failed,
    Skipped,
}

/// One row of the table.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub model: String,
    /// Where the expectation comes from.
    pub source: String,
    pub expected: String,
    pub options: Vec<String>,
    pub results: Vec<Run>,
    pub seconds: f64,
    pub status: Status,
    /// Why the row failed or was skipped.
    pub reason: Option<String>,
}

/// The whole table (`--format json`).
#[derive(Debug, Serialize)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// test.desc options that zingrs does not need and ignored.
    pub ignored_options: Vec<String>,
    /// The closing line.
    pub summary: String,
}

fn agrees(want: &Want, r: &Run) -> bool {
    let Some(code) = r.exit_code else {
        return false;
    };
    let trace_ok = code != exit::ASSERTION || r.has_trace;
    match want {
        Want::Kind(k) if k == "bounded" => matches!(code, exit::BOUNDED | exit::LIMIT),
        Want::Kind(k) => *k == r.verdict && trace_ok,
        Want::Exit(exit::BOUNDED) => matches!(code, exit::BOUNDED | exit::LIMIT),
        Want::Exit(e) => *e == code && trace_ok,
        Want::Invalid { .. } => false,
    }
}

fn run_case(case: &Case, configs: &[Config], budget: Duration) -> Row {
    let start = Instant::now();
    // the budget is CPU time of this worker thread (wall time on a busy machine is not the
    // model's doing)
    let cpu = crate::search::Clock::new(true);
    let mut row = Row {
        model: case.model.display().to_string(),
        source: case.source.into(),
        expected: case
            .expected
            .as_ref()
            .map_or("-".into(), |(s, _)| s.clone()),
        options: case.options.clone(),
        results: Vec::new(),
        seconds: 0.0,
        status: Status::Failed,
        reason: None,
    };
    let finish = |mut row: Row, status: Status, reason: Option<String>| {
        row.status = status;
        row.reason = reason;
        row.seconds = start.elapsed().as_secs_f64();
        row
    };
    if let Some(p) = &case.problem {
        return finish(row, Status::Failed, Some(p.clone()));
    }
    if let Some(p) = &case.skip {
        return finish(row, Status::Skipped, Some(p.clone()));
    }
    let Some((_, want)) = &case.expected else {
        return finish(row, Status::Skipped, Some("no expected verdict".into()));
    };
    let mut a = match parse_options(&case.options) {
        Ok(a) => a,
        Err(e) => return finish(row, Status::Failed, Some(format!("bad options: {e}"))),
    };
    if case.zing_states.is_some() && a.reduction.is_none() {
        // ZING's count is taken from the states stored without partial-order reduction (as
        // `--format zing` does)
        a.reduction = Some(Reduction::Transactions);
    }
    if case.zing_states.is_some() && a.symmetry.is_none() {
        // nor symmetry, which stores one state of each set of reorderings of the processes
        a.symmetry = Some(super::check::Symmetry::Off);
    }
    let name = case.model.display().to_string();
    let text = match std::fs::read(&case.model) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return finish(
                row,
                Status::Failed,
                Some(format!("cannot read {name}: {e}")),
            )
        }
    };
    let lang = match a.lang {
        Some(super::LangArg::Bp) => Some(zingrs_lang::Lang::Bp),
        Some(super::LangArg::Zing) => Some(zingrs_lang::Lang::Zing),
        None => zingrs_lang::Lang::from_path(&name),
    };
    let compiled = match lang {
        None => Err(format!("cannot tell the language of {name}")),
        Some(l) => zingrs_lang::compile(&name, &text, l).map_err(|d| {
            let src = zingrs_lang::ir::Source::new(name.as_str(), text.as_str());
            zingrs_lang::diag::render(&src, &d)
        }),
    };
    let program = match compiled {
        Err(diags) => {
            let first = diags
                .lines()
                .find(|l| l.starts_with("error"))
                .unwrap_or("rejected")
                .to_string();
            row.results.push(Run {
                engine: "front end".into(),
                verdict: "invalid".into(),
                exit_code: Some(exit::INVALID),
                seconds: start.elapsed().as_secs_f64(),
                detail: first.clone(),
                has_trace: false,
                zing_states: None,
            });
            let problem = match want {
                Want::Invalid {
                    message,
                    code,
                    errors,
                } => invalid_mismatch(&diags, &name, message, code, *errors),
                Want::Exit(exit::INVALID) => None,
                _ => Some(format!("rejected: {first}")),
            };
            return match problem {
                None => finish(row, Status::Passed, None),
                Some(p) => finish(row, Status::Failed, Some(p)),
            };
        }
        Ok(c) => c.program,
    };
    if matches!(want, Want::Invalid { .. } | Want::Exit(exit::INVALID)) {
        return finish(
            row,
            Status::Failed,
            Some("accepted, but expected to be rejected".into()),
        );
    }
    if let Some(why) = not_runnable(&program, &a) {
        return finish(row, Status::Skipped, Some(why));
    }
    // a header that pins an engine overrides --engine
    let pinned = case
        .options
        .iter()
        .any(|o| o == "--engine" || o.starts_with("--engine="))
        && !matches!(a.engine, Engine::Auto | Engine::All);
    let configs: Vec<Config> = if pinned {
        let mut v: Vec<Config> = configs
            .iter()
            .filter(|c| c.engine == a.engine)
            .cloned()
            .collect();
        if v.is_empty() {
            v.push(Config::new(a.engine.name(), a.engine, false, false));
        }
        v
    } else {
        configs.to_vec()
    };
    let mut not_applicable = Vec::new();
    for c in &configs {
        let left = budget.saturating_sub(cpu.spent());
        match run_config(c, &program, &a, left) {
            Ok(r) => row.results.push(r),
            Err(why) => not_applicable.push(format!("{}: {why}", c.name)),
        }
    }
    if row.results.is_empty() {
        return finish(
            row,
            Status::Skipped,
            Some(format!("no engine applies ({})", not_applicable.join("; "))),
        );
    }
    // A depth-bound cut (exit 8) is what the explicit engine must answer for unbounded
    // recursion; it does not count against a row that another engine decides as expected
    // (as with `zingrs check --engine all`). Time, state and memory limits (exit 9) always do.
    let decided = row
        .results
        .iter()
        .any(|r| matches!(r.exit_code, Some(exit::PASSED | exit::ASSERTION)) && agrees(want, r));
    let wrong: Vec<String> = row
        .results
        .iter()
        .filter(|r| {
            let excused = decided && r.exit_code == Some(exit::BOUNDED);
            !excused && !agrees(want, r)
        })
        .map(|r| {
            if r.exit_code == Some(exit::ASSERTION) && !r.has_trace {
                format!("{}: an error verdict without a counterexample", r.engine)
            } else {
                format!("{}: {}", r.engine, r.detail)
            }
        })
        .collect();
    let mut wrong = wrong;
    if let Some(n) = case.zing_states {
        let counted: Vec<&Run> = row
            .results
            .iter()
            .filter(|r| r.zing_states.is_some())
            .collect();
        if counted.is_empty() {
            wrong.push("no run counted ZING's states (run the explicit engine)".into());
        }
        for r in counted.into_iter().filter(|r| r.zing_states != Some(n)) {
            wrong.push(format!(
                "{}: {} states by ZING's count, expected {n}",
                r.engine,
                r.zing_states.unwrap_or(0)
            ));
        }
    }
    if wrong.is_empty() {
        finish(row, Status::Passed, None)
    } else {
        finish(row, Status::Failed, Some(wrong.join("; ")))
    }
}

/// Why rejected diagnostics do not match an `invalid` expectation, if they do not.
fn invalid_mismatch(
    diags: &str,
    name: &str,
    message: &Option<String>,
    code: &Option<String>,
    errors: Option<usize>,
) -> Option<String> {
    if let Some(m) = message {
        if !diags.contains(m.as_str()) {
            return Some(format!("message `{m}` not among the diagnostics"));
        }
    }
    if let Some(c) = code {
        if !diags.contains(&format!("[{c}]")) {
            return Some(format!("no diagnostic with code [{c}]"));
        }
    }
    if let Some(n) = errors {
        let got = diags.matches("error[").count() + diags.matches("error:").count();
        if got < n {
            return Some(format!("expected at least {n} errors, got {got}"));
        }
    }
    if !diags.contains(&format!("{name}:")) {
        return Some("no file:line:col location in the diagnostics".into());
    }
    None
}

/// Runs the cases on `jobs` threads; rows in the order of the cases.
fn run_all(cases: &[Case], configs: &[Config], jobs: usize, budget: Duration) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let rows: Vec<Mutex<Option<Row>>> = cases.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(cases.len().max(1)) {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else {
                        break;
                    };
                    let row = run_case(case, configs, budget);
                    *rows[i].lock().expect("row") = Some(row);
                })
                .expect("worker thread");
        }
    });
    rows.into_iter()
        .map(|r| r.into_inner().expect("row").expect("every case ran"))
        .collect()
}

fn closing_line(passed: usize, failed: usize, skipped: usize) -> String {
    let mut s = format!("{passed} passed, {failed} failed");
    if skipped > 0 {
        s.push_str(&format!(", {skipped} skipped"));
    }
    s
}

fn render_text(t: &Table) -> String {
    let short = |r: &Run| match r.verdict.as_str() {
        "limit-reached" => "limit".to_string(),
        v => v.to_string(),
    };
    let mut cells: Vec<Vec<String>> = vec![{
        let mut h = vec!["model".to_string(), "expected".to_string()];
        h.extend(t.columns.iter().cloned());
        h.extend(["time".to_string(), "result".to_string()]);
        h
    }];
    for row in &t.rows {
        let mut c = vec![row.model.clone(), row.expected.clone()];
        let front_end = row.results.iter().find(|r| r.engine == "front end");
        for col in &t.columns {
            let cell = row
                .results
                .iter()
                .find(|r| &r.engine == col)
                .or(front_end)
                .map_or("-".to_string(), short);
            c.push(cell);
        }
        c.push(format!("{:.2}s", row.seconds));
        c.push(
            match row.status {
                Status::Passed => "ok",
                Status::Failed => "FAILED",
                Status::Skipped => "skipped",
            }
            .into(),
        );
        cells.push(c);
    }
    let ncols = cells[0].len();
    let widths: Vec<usize> = (0..ncols)
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in &cells {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    let notes: Vec<&Row> = t.rows.iter().filter(|r| r.reason.is_some()).collect();
    if !notes.is_empty() {
        out.push('\n');
        for r in notes {
            let tag = if r.status == Status::Failed {
                "FAILED"
            } else {
                "skipped"
            };
            out.push_str(&format!(
                "{tag} {}: {}\n",
                r.model,
                r.reason.as_deref().unwrap_or("")
            ));
        }
    }
    out.push_str(&t.summary);
    out.push('\n');
    out
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
    let rows = run_all(&cases, &configs, jobs, a.timeout);
    let count = |s: Status| rows.iter().filter(|r| r.status == s).count();
    let (passed, failed, skipped) = (
        count(Status::Passed),
        count(Status::Failed),
        count(Status::Skipped),
    );
    let table = Table {
        columns: configs.iter().map(|c| c.name.clone()).collect(),
        rows,
        passed,
        failed,
        skipped,
        ignored_options: ignored.into_iter().collect(),
        summary: closing_line(passed, failed, skipped),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_results_in_every_spelling() {
        for s in [
            "reachable",
            "YES",
            "YES.",
            "unsafe",
            "VERIFICATION FAILED",
            "3",
        ] {
            assert!(matches!(parse_want(s), Some(Want::Exit(3))), "{s}");
        }
        for s in [
            "unreachable",
            "NO.",
            "safe",
            "^VERIFICATION SUCCESSFUL$",
            "0",
        ] {
            assert!(matches!(parse_want(s), Some(Want::Exit(0))), "{s}");
        }
        assert!(matches!(parse_want("target-reached"), Some(Want::Kind(_))));
        assert!(parse_want("maybe").is_none());
    }

    #[test]
    fn csv_quotes_and_label_options() {
        assert_eq!(split_csv(r#"a.bp,"-l X, y",NO"#), ["a.bp", "-l X, y", "NO"]);
        let t: Vec<String> = ["-l", "SLIC_ERROR", "--no-assertions"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            map_label_options(&t),
            ["--target", "SLIC_ERROR", "--no-assertions"]
        );
    }

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
            zing_states: None,
        };
        assert!(disagreement(&[run("a", 0), run("b", 3)]).is_some());
        assert!(disagreement(&[run("a", 3), run("b", 3), run("c", 8)]).is_none());
        assert!(disagreement(&[run("a", 0), run("b", 9)]).is_none());
    }
}
