//! The library's entry point: [`check`](fn@check) a [`Program`] under [`CheckOptions`] and get
//! the [`Report`] that `zingrs check` prints — the same engine choice (`auto`, `all`), the
//! same runs (thread deepening, `--contexts-from`), the same replay and verification of every
//! counterexample. The command line is this plus I/O: it parses its arguments into
//! `CheckOptions`, calls [`Check::run`] and prints or saves the report.
//!
//! ```ignore
//! let text = "void main() begin decl x; x := *; assert(x); end";
//! let program = zingrs::parse_str("demo.bp", text, zingrs::Lang::Bp)?.program;
//! let report = zingrs::check(&program, &zingrs::CheckOptions::default())?;
//! assert_eq!(report.exit_code, zingrs::report::exit::ASSERTION);
//! ```
//!
//! (`examples/library.rs` runs this: `cargo run --example library`.)

mod coverage;
mod engines;
mod options;
mod parse;
pub mod properties;
mod result;
mod swarm;

pub use engines::{applicable_engines, portfolio, run_engine, run_engine_on, Replays};
pub use options::{options_and_semantics, CheckOptions, Engine, Search, Settings};
pub use parse::{parse_bytes, parse_file, parse_str, ParseError, Parsed};
pub use properties::properties;
pub use result::report_of;

use crate::report::{self, exit, Report};
use crate::runtime::{Machine, Semantics};
use crate::search::{self, Options};
use engines::{check_all, header_name, header_note, run_portfolio};
use result::{limit_reached_during, report_with};
use std::sync::Arc;
use zingrs_lang::ir::Program;

/// Why a check cannot run. Each is the command line's exit 7 (invalid usage,
/// [`CheckError::exit_code`]) but [`CheckError::Incomplete`] (exit 9, inconclusive); the
/// message is the one `zingrs check` prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// A target label the program does not have: a mistyped label must not look like a
    /// proof that it is unreachable.
    UnknownTarget {
        /// The label asked for.
        label: String,
        /// The model's name.
        model: String,
    },
    /// Options that do not go together, or that the model does not allow.
    Options(String),
    /// The engine asked for does not check this program (or not with these options): e.g.
    /// the summary engine on a concurrent boolean program run alone, the bdd engine on a
    /// Zing model, coverability on a sequential one.
    NotApplicable {
        /// The engine.
        engine: Engine,
        /// Why it does not apply.
        reason: String,
    },
    /// `--engine all`: no engine checks this model with these options.
    NoEngine(String),
    /// An LTL formula that cannot be checked on this model: where in it (a column, 1-based;
    /// 0 if nowhere in particular) and why.
    Ltl {
        /// The formula.
        formula: String,
        /// The column of the mistake.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The search could not run to any verdict: a distributed search whose processes did
    /// not form a cluster (an address that cannot be bound or reached, a peer checking
    /// another model). Inconclusive, as a limit is: the command line's exit 9.
    Incomplete(String),
}

impl CheckError {
    /// The command line's exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            CheckError::Incomplete(_) => exit::LIMIT,
            _ => exit::INVALID,
        }
    }
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::UnknownTarget { label, model } => {
                write!(f, "the target label {label} does not occur in {model}")
            }
            CheckError::Options(why)
            | CheckError::NotApplicable { reason: why, .. }
            | CheckError::Incomplete(why) => f.write_str(why),
            CheckError::NoEngine(why) => {
                write!(f, "no engine checks this model with these options ({why})")
            }
            // the formula under the message, a caret under the mistake
            CheckError::Ltl {
                formula,
                column,
                message,
            } => {
                write!(f, "--ltl: {message}")?;
                if *column > 0 {
                    write!(f, "\n  {formula}\n  {}^", " ".repeat(column - 1))?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// Checks `program` under `opts`: the verdict, the replayed and verified counterexample (if
/// any) and the statistics. The report's traces are built from the program each time they
/// are written, so it lives as long as the program. `zingrs check` gives the same answer.
///
/// Limits (`opts.limits`) stop the search with a [`crate::report::Verdict::LimitReached`]
/// verdict; the process-wide watchdog of the command line is not needed.
pub fn check<'p>(program: &'p Program, opts: &CheckOptions) -> Result<Report<'p>, CheckError> {
    Check::new(program, opts)?.run()
}

/// A check prepared for one program: the options validated and the engine chosen, so that
/// what will run can be shown before it runs (the command line prints it first, since the
/// search may take long). [`check`](fn@check) is `Check::new` then [`Check::run`].
pub struct Check<'p> {
    program: &'p Program,
    engine: Engine,
    opts: Settings,
    semantics: Semantics,
    /// The context bounds and schedule bounds to try in turn (`--contexts-from`,
    /// `--preemptions-from`, `--delays-from`), or the one bound.
    bounds: Vec<(Option<u32>, Option<crate::explore::Bounding>)>,
    contexts_from: Option<u32>,
    bounding_from: Option<u32>,
    notes: Vec<String>,
    /// The properties checked (all, or those `--property` selects), for `--keep-going`'s
    /// table; empty without `--keep-going`.
    table: Vec<properties::Listed>,
    /// `--property`'s ids.
    selected: Vec<String>,
}

impl<'p> Check<'p> {
    /// Validates `opts` for `program` and picks the engine (`auto`'s choice).
    pub fn new(program: &'p Program, o: &CheckOptions) -> Result<Check<'p>, CheckError> {
        if let Some(t) = o.targets.iter().find(|t| !program.has_label(t)) {
            return Err(CheckError::UnknownTarget {
                label: t.clone(),
                model: program.source.name.clone(),
            });
        }
        let bounds: Vec<Option<u32>> = match (o.contexts_from, o.contexts) {
            (None, k) => vec![k],
            (Some(from), Some(k)) if from <= k => (from..=k).map(Some).collect(),
            (Some(_), Some(_)) => {
                return Err(CheckError::Options(
                    "--contexts-from must not exceed --contexts".into(),
                ))
            }
            (Some(_), None) => {
                return Err(CheckError::Options(
                    "--contexts-from needs --contexts K, the largest bound to try".into(),
                ))
            }
        };
        let schedule_bounds = schedule_bounds(o)?;
        let (mut opts, mut semantics) = options_and_semantics(o, program);
        let mut table = if o.keep_going || !o.properties.is_empty() {
            properties::listed(program, o)
        } else {
            Vec::new()
        };
        if !o.properties.is_empty() {
            if o.property().is_some() {
                return Err(CheckError::Options(
                    "--property selects among safety properties: it does not combine with --liveness or --ltl".into(),
                ));
            }
            let s = properties::select(&table, &o.properties, &program.source.name)?;
            opts.search.targets = s.targets;
            semantics.deadlock = s.deadlock;
            semantics.selection = Some(Arc::new(s.selection));
            table.retain(|p| o.properties.contains(&p.info.id));
        }
        if !o.keep_going {
            table.clear();
        }
        let mut notes = Vec::new();
        if o.coverage {
            semantics.coverage = Some(Arc::new(crate::runtime::Coverage::new(program)));
            // a persistent set runs one thread ahead of the others: a statement that only
            // another order reaches would look unreached
            let without_por = match opts.explicit.reduction {
                search::Reduction::All => search::Reduction::Transactions,
                search::Reduction::Por => search::Reduction::None,
                r => r,
            };
            if without_por != opts.explicit.reduction && o.reduction.is_some() {
                notes.push("partial-order reduction is off under --coverage (it leaves orders unexplored, whose statements would look unreached)".to_string());
            }
            opts.explicit.reduction = without_por;
        }
        if let (Some(f), None) = (&o.ltl, &opts.search.ltl) {
            // the formula did not compile: why
            if let Err(e) = crate::ltl::Ltl::compile(f, program) {
                return Err(CheckError::Ltl {
                    formula: f.clone(),
                    column: e.column,
                    message: e.message,
                });
            }
        }
        if o.fair && o.property().is_none() {
            return Err(CheckError::Options(
                "--fairness applies to --liveness and --ltl (a safety check looks at single states)"
                    .into(),
            ));
        }
        if o.fair && o.cooperative {
            return Err(CheckError::Options(
                "--fairness does not combine with --cooperative (the running process alone moves there)"
                    .into(),
            ));
        }
        if let Some(property) = o.property() {
            notes.extend(
                liveness_options(o, program, property, &mut opts).map_err(CheckError::Options)?,
            );
        }
        notes.extend(swarm::swarm_options(o, &mut opts)?);
        if o.distributed.is_some() {
            distributed_options(o, &opts)?;
        }
        let engine = match o.engine {
            // the distributed search is the explicit engine's (`distributed_options` refused
            // the others)
            _ if o.distributed.is_some() => Engine::Explicit,
            // swarm runs order the explicit search (`swarm_options` refused the others)
            Engine::Auto if o.seed.is_some() || o.search == Some(Search::Random) => {
                Engine::Explicit
            }
            // schedule bounding is the explicit search's (`schedule_bounds` refused the others)
            _ if o.bounding.is_some() => Engine::Explicit,
            // the cycle search is the explicit engine's (`liveness_options` refused the others)
            _ if o.property().is_some()
                && !(o.engine == Engine::Bdd
                    && (o.ltl.is_some() || o.property() == Some(search::Liveness::Terminates))) =>
            {
                Engine::Explicit
            }
            // ZING's layout ends with ZING's state count, which only the plain search of a
            // Zing model keeps
            Engine::Auto if o.zing_layout && program.keep_completed => Engine::Explicit,
            Engine::Auto => {
                match portfolio(program, o.threads.is_some() || o.contexts.is_some())[..] {
                    [one] => one,
                    // several engines side by side: `auto` stays, the portfolio runs
                    _ => Engine::Auto,
                }
            }
            e => e,
        };
        // the bdd engine's product search completes each context before the next: its run at
        // the largest bound also finds the smallest bound that reaches an error, and the runs
        // at smaller bounds would only repeat its first contexts
        // the bdd engine's search under a context bound runs a product program of its own,
        // whose nodes the selection does not name
        if (!o.properties.is_empty() || o.coverage)
            && o.contexts.is_some()
            && matches!(engine, Engine::Bdd | Engine::All)
            && program.lang == zingrs_lang::Lang::Bp
            && program.is_concurrent()
        {
            return Err(CheckError::NotApplicable {
                engine: Engine::Bdd,
                reason: "--property and --coverage do not combine with the bdd engine under --contexts (use --engine explicit)".into(),
            });
        }
        let bounds = if engine == Engine::Bdd
            && o.contexts_from.is_some()
            && crate::symbolic::contexts::completes_contexts_in_order(program, opts.symbolic.tuples)
        {
            vec![o.contexts]
        } else {
            bounds
        };
        let bounds = match schedule_bounds {
            Some(b) => b.into_iter().map(|b| (None, Some(b))).collect(),
            None => bounds.into_iter().map(|k| (k, None)).collect(),
        };
        Ok(Check {
            program,
            engine,
            opts,
            semantics,
            bounds,
            contexts_from: o.contexts_from,
            bounding_from: o.bounding_from,
            notes,
            table,
            selected: o.properties.clone(),
        })
    }

    /// The engine that runs: `auto` resolved to one engine, or `auto` itself where it runs a
    /// portfolio ([`engines::portfolio`]); `all` stays `all`.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The engine as the report's header names it: `all` lists the engines it runs, and a
    /// note says how the summary engine runs on a concurrent model.
    pub fn engine_title(&self) -> (String, Option<&'static str>) {
        (
            header_name(
                self.engine,
                self.program,
                self.semantics.thread_bound.is_some(),
                self.opts.search.contexts.is_some(),
            ),
            match self.opts.explicit.swarm.random {
                true => Some("random walks (--search random)"),
                false => header_note(self.engine, self.program),
            },
        )
    }

    /// Options that `--liveness` overrides, one note each (the command line prints them).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The settings the engines run with.
    pub fn settings(&self) -> &Settings {
        &self.opts
    }

    /// Runs the check. With `--contexts-from`, the bounds are tried in turn until one is not
    /// cut by the bound (a larger bound can only add executions); the report then carries a
    /// `contexts` counter, the bound it is of.
    pub fn run(&self) -> Result<Report<'p>, CheckError> {
        let program = self.program;
        let engine = self.engine;
        let name = program.source.name.as_str();
        // the machines outlive the search: the report's traces are built from them
        let m = Arc::new(Machine::new(program, self.semantics.clone()));
        // the coverability engine checks every number of threads: under `all` it runs, and
        // its counterexamples replay, without the --threads bound the others run under
        let m_unbounded = if engine == Engine::All && self.semantics.thread_bound.is_some() {
            Arc::new(Machine::new(
                program,
                Semantics {
                    thread_bound: None,
                    ..self.semantics.clone()
                },
            ))
        } else {
            m.clone()
        };
        let check = |opts: &Settings| -> Result<Report<'p>, CheckError> {
            match engine {
                Engine::All => check_all(&m, &m_unbounded, name, opts),
                Engine::Auto => {
                    let bounded =
                        self.semantics.thread_bound.is_some() || opts.search.contexts.is_some();
                    run_portfolio(&m, name, opts, &portfolio(program, bounded))
                }
                e => match run_engine_on(e, &m, opts) {
                    Ok((result, _)) if result.failure.is_some() => {
                        Err(CheckError::Incomplete(result.failure.unwrap_or_default()))
                    }
                    Ok((mut result, replays)) => {
                        limit_reached_during(&mut result);
                        Ok(report_with(&m, name, e.name(), &result, replays, opts))
                    }
                    Err(reason) => Err(CheckError::NotApplicable { engine: e, reason }),
                },
            }
        };
        let mut out = None;
        for (i, &(k, bounding)) in self.bounds.iter().enumerate() {
            let r = check(&Settings {
                search: Options {
                    contexts: k,
                    ..self.opts.search.clone()
                },
                explicit: crate::explore::ExplicitOptions {
                    bounding: bounding.or(self.opts.explicit.bounding),
                    ..self.opts.explicit.clone()
                },
                ..self.opts.clone()
            })?;
            if i + 1 == self.bounds.len() || r.exit_code != exit::BOUNDED {
                out = Some((r, (k, bounding)));
                break;
            }
        }
        let Some((mut report, (k, bounding))) = out else {
            unreachable!("at least one bound is tried");
        };
        if let (Some(b), Some(_)) = (bounding, self.bounding_from) {
            // the first bound of the deepening that is not cut finds the error, if any
            report.stats.counters.push(report::Counter {
                name: match b {
                    crate::explore::Bounding::Preemptions(_) => "preemptions",
                    crate::explore::Bounding::Delays { .. } => "delays",
                }
                .into(),
                value: b.bound().into(),
            });
        }
        if let (Some(k), Some(from)) = (k, self.contexts_from) {
            // a search that knows the fewest switches its error needs decided the smaller
            // bounds too; `--stats` names the bound of the run reported
            let k = report.fewest_switches.map_or(k, |f| f.clamp(from, k));
            report.stats.counters.push(report::Counter {
                name: "contexts".into(),
                value: k.into(),
            });
        }
        report.source_hash = report::source_hash(&program.source.text);
        if !self.table.is_empty() {
            report.properties =
                properties::statuses(&self.table, &report, program, report.exhaustive);
        }
        report.selected = self.selected.clone();
        let swarm = self.opts.explicit.swarm;
        report.random_walks = swarm.random;
        report.seed = match swarm.random {
            true => Some(swarm.seed.unwrap_or(search::swarm::DEFAULT_RANDOM_SEED)),
            false => swarm.seed,
        };
        if let Some(ran) = &self.semantics.coverage {
            report.coverage = Some(coverage::report(program, ran, report.exhaustive));
        }
        Ok(report)
    }
}

/// The schedule bounds to try in turn (`--preemptions-from`, `--delays-from`: FROM..=K), the
/// one bound (`--preemptions K`, `--delays K`), or None without schedule bounding; an error
/// for the options schedule bounding does not combine with.
fn schedule_bounds(o: &CheckOptions) -> Result<Option<Vec<crate::explore::Bounding>>, CheckError> {
    let err = |m: String| Err(CheckError::Options(m));
    let Some(b) = o.bounding else {
        if o.bounding_from.is_some() {
            return err("--preemptions-from and --delays-from need --preemptions K or --delays K, the largest bound to try".into());
        }
        return Ok(None);
    };
    let flag = match b {
        crate::explore::Bounding::Preemptions(_) => "--preemptions",
        crate::explore::Bounding::Delays { .. } => "--delays",
    };
    match o.engine {
        Engine::Auto | Engine::Explicit => {}
        e => {
            return err(format!(
                "{flag} bounds the explicit engine's search, not the {} engine's (use --engine explicit)",
                e.name()
            ))
        }
    }
    if o.contexts.is_some() {
        return err(format!(
            "{flag} does not combine with --contexts (both bound the interleavings: choose one)"
        ));
    }
    if o.property().is_some() {
        let what = if o.ltl.is_some() {
            "--ltl"
        } else {
            "--liveness"
        };
        return err(format!("{flag} does not combine with {what} (a schedule bound cuts every cycle that needs one more preemption or delay)"));
    }
    if o.workers > 1 {
        return err(format!("{flag} searches on one thread, not with --workers {} (a state is stored once per preemption or delay count, and ZING's count of distinct states would be kept apart by each worker)", o.workers));
    }
    if o.cooperative && matches!(b, crate::explore::Bounding::Preemptions(_)) {
        return err("--preemptions does not combine with --cooperative (a process there runs until it yields, blocks or ends: no switch is a preemption)".into());
    }
    let k = b.bound();
    match o.bounding_from {
        None => Ok(Some(vec![b])),
        Some(from) if from <= k => Ok(Some((from..=k).map(|i| b.with_bound(i)).collect())),
        Some(_) => err(format!("{flag}-from must not exceed {flag}")),
    }
}

/// Refuses what the distributed search (`--processes`) does not do: it is the explicit
/// engine's breadth-first search of safety properties, storing fingerprints, under the
/// reductions and symmetry the single `--bfs` applies (each decided by the state alone, so
/// every process stores what a single process would); the bookkeeping of context and
/// schedule bounds and of cooperative scheduling, `--keep-going`'s table, `--coverage`'s
/// record and whole states (`--exact`) are one process's.
fn distributed_options(o: &CheckOptions, opts: &Settings) -> Result<(), CheckError> {
    let refuse = |what: &str| {
        Err(CheckError::Options(format!(
            "--processes runs the explicit engine's breadth-first search of safety properties: it does not combine with {what}"
        )))
    };
    match o.engine {
        Engine::Auto | Engine::Explicit => {}
        e => return refuse(&format!("--engine {}", e.name())),
    }
    match o.search {
        Some(Search::Dfs) => return refuse("--search dfs"),
        Some(Search::Zing) => return refuse("--search zing (ZING's order)"),
        Some(Search::Random) => return refuse("--search random (random walks)"),
        _ => {}
    }
    if o.zing_layout && o.search.is_none() {
        return refuse("--format zing (ZING's order and count)");
    }
    let flags = [
        (o.property().is_some(), "--liveness or --ltl"),
        (o.contexts.is_some(), "--contexts"),
        (o.bounding.is_some(), "--preemptions or --delays"),
        (o.cooperative, "--cooperative"),
        (o.keep_going, "--keep-going"),
        (o.exact, "--exact (it stores 64-bit fingerprints)"),
        (o.coverage, "--coverage"),
        (o.seed.is_some(), "--seed (a search order of one process)"),
    ];
    if let Some((_, flag)) = flags.iter().find(|(set, _)| *set) {
        return refuse(flag);
    }
    if opts.deepen_threads {
        return Err(CheckError::Options(
            "--processes: the model creates threads without bound; give --threads N (the breadth-first search would never end)".into(),
        ));
    }
    Ok(())
}

/// Adjusts `opts` for the cycle search of `--liveness`: the explicit engine, depth-first, one
/// worker, no reduction and no symmetry (see `docs/guide.md`, "Liveness", for why each is
/// off). Returns a note for each option the user gave that is overridden, or why the run
/// cannot be made.
fn liveness_options(
    o: &CheckOptions,
    program: &Program,
    property: search::Liveness,
    opts: &mut Settings,
) -> Result<Vec<String>, String> {
    let deepen_threads = opts.deepen_threads;
    let opts = &mut opts.explicit;
    let mut notes = Vec::new();
    let flag = if o.ltl.is_some() {
        "--ltl"
    } else {
        "--liveness"
    };
    match o.engine {
        Engine::Auto | Engine::Explicit | Engine::All => {}
        // pushdown LTL: the repeating heads of the bdd engine (`symbolic::pdltl`)
        Engine::Bdd if o.ltl.is_some() || property == search::Liveness::Terminates => {
            if o.fair {
                return Err("--fairness weak does not combine with --engine bdd (a sequential program has one process: use --engine explicit for fairness among threads)".into());
            }
            if program.is_concurrent() || o.threads.is_some() {
                return Err(format!("the bdd engine checks {flag} on sequential boolean programs only (use --engine explicit)"));
            }
            return Ok(notes);
        }
        Engine::Bdd => {
            return Err(format!(
                "--liveness {} is checked by the explicit engine only (use --engine explicit); the bdd engine checks --ltl and --liveness terminates",
                match property {
                    search::Liveness::Accept => "accept",
                    _ => "progress",
                }
            ))
        }
        e => {
            return Err(format!(
                "{flag} is checked by the explicit engine only, not by the {} engine (use --engine explicit)",
                e.name()
            ))
        }
    }
    if o.contexts.is_some() {
        return Err(format!("{flag} does not combine with --contexts (a context bound cuts every cycle that switches threads without end)"));
    }
    if o.ltl.is_some() && (o.threads.is_some() || deepen_threads) {
        // a state whose only step creates a thread past the bound would look like the end
        // of a run, which LTL takes as its last state repeated forever
        return Err(
            "--ltl needs every thread creation enabled: it does not combine with --threads, nor with a model that creates threads without bound".into(),
        );
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
            program.source.name
        ));
    }
    if o.engine == Engine::All {
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
    if o.search.is_some_and(|s| s != Search::Dfs) {
        notes.push(format!(
            "{flag} searches depth-first (the nested search needs the DFS's order)"
        ));
    }
    opts.bfs = false;
    opts.zing_order = false;
    if let Some(r) = o.reduction.filter(|r| *r != search::Reduction::None) {
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
    if o.symmetry == Some(true) && crate::canon::symmetric_threads(program) {
        notes.push(format!("--symmetry is off under {flag} (a cycle up to a permutation of the threads is not a cycle that closes)"));
    }
    opts.symmetry = false;
    opts.transactions = None;
    Ok(notes)
}

#[cfg(test)]
mod tests;
