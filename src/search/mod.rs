//! What every search shares, below the engines: the options of a search, the paths it
//! reports and the findings at their ends, its result and counters, the limits and the
//! watchdog that end it (from [`crate::limits`], below the runtime too), and the replay that
//! re-executes a path before anything is reported.
//!
//! The explicit search ([`crate::explore`]), the summary engine ([`crate::summary`]), the
//! BDD engine ([`crate::symbolic`]) and the coverability engine all speak these types, so
//! none of them imports another for them. [`effects`] holds the summaries' effects and
//! transactions, which the summary engine builds and the explicit search applies.

pub mod effects;
pub mod folded;
pub mod lasso;
mod replay;
pub mod swarm;

pub use crate::limits::{
    default_memory_limit, peak_bytes, resident_bytes, thread_cpu_time, watchdog, Clock, Limit,
    Limits, Watch, DEFAULT_MAX_DEPTH,
};
pub use replay::{replay, replay_keeping, Replayed, Replayer};

use crate::runtime::{RtError, Value, Violation};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What every engine is asked: what to look for (assertions are the semantics'; the target
/// labels, the liveness property), the bounds and limits, and what the caller will read of
/// the answer. How an engine searches is its own: [`crate::explore::ExplicitOptions`],
/// [`crate::symbolic::SymbolicOptions`].
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Labels whose reaching is an error (`--target`).
    pub targets: Vec<String>,
    pub limits: Limits,
    /// Go on after the first error and report every distinct one.
    pub keep_going: bool,
    /// Bound on the number of context switches along a path (`--contexts K`).
    pub contexts: Option<u32>,
    /// Zing's cooperative scheduling: a process runs until it yields, blocks or ends.
    pub cooperative: bool,
    /// Only the verdict will be shown: counterexamples are still replayed, but not turned into
    /// source-level traces (which costs more than the search on long traces).
    pub verdict_only: bool,
    /// A liveness property instead of safety alone (`--liveness`): the explicit engine looks
    /// for a reachable cycle of that kind ([`Finding::Cycle`]), and reports the safety errors
    /// it meets on the way as usual.
    pub liveness: Option<Liveness>,
    /// With [`Liveness::Ltl`]: the formula, compiled against the model (`check --ltl`).
    pub ltl: Option<std::sync::Arc<crate::ltl::Ltl>>,
    /// With a liveness property: only weakly fair runs count (`--fairness weak`: every
    /// process enabled from some point on keeps moving), found by `explore::fair`.
    pub fair: bool,
}

/// The cycles `check --liveness` looks for: a violation is a lasso, a path to a state and a
/// cycle back to it (`explore::cycles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Liveness {
    /// A cycle through an accepting step: one that runs a Zing `accept(e)` with `e` true
    /// (ZING's `-ndfsliveness`).
    Accept,
    /// Any cycle: every run ends (a state with no successor ends its run; it is no cycle).
    Terminates,
    /// A cycle through no progress state: one where some thread stands at a label whose name
    /// starts with `progress` (SPIN's non-progress cycles).
    Progress,
    /// A run that violates an LTL formula (`check --ltl`, [`Options::ltl`]): a cycle of the
    /// product with the Büchi automaton of the formula's negation through an accepting state,
    /// or a run that ends, its last state repeating forever.
    #[value(skip)]
    Ltl,
}

impl Liveness {
    /// The verdict line's name of a violating cycle.
    pub fn cycle_name(self) -> &'static str {
        match self {
            Liveness::Accept => "accepting cycle",
            Liveness::Terminates => "non-terminating cycle",
            Liveness::Progress => "non-progress cycle",
            Liveness::Ltl => "run violating the LTL formula",
        }
    }
}

/// The stack of each search worker thread (address space: pages are used as touched).
pub const WORKER_STACK: usize = 64 << 20;

/// What one worker of a parallel search did.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorkerStats {
    /// The states it stored (of the shared set).
    pub states: u64,
    /// Unexplored states it handed to idle workers, and took from busy ones.
    pub given: u64,
    pub taken: u64,
    /// Successors it left for any worker at the depth bound of its tasks (counted in
    /// `taken` where taken).
    pub handed_off: u64,
    /// Time it waited for work.
    pub idle: Duration,
    /// The CPU time of its thread (`None` where the system does not measure it).
    pub cpu: Option<Duration>,
}

/// One step of a path: which thread moved and which of its outcomes was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub thread: u32,
    pub outcome: u32,
}

/// A path from an initial state: enough to re-execute it exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Path {
    /// The initial valuation, in [`crate::runtime::InitialStates`] slot order.
    pub init: Vec<Value>,
    /// One choice per step; written with repeated runs folded ([`folded`]).
    #[serde(
        serialize_with = "folded::serialize",
        deserialize_with = "folded::deserialize"
    )]
    pub choices: Vec<Choice>,
}

/// An error the search found.
#[derive(Clone, Debug)]
pub enum Finding {
    /// The last choice of the path is an assertion violation.
    Assertion { path: Path },
    /// The last choice of the path is a runtime error.
    Runtime { error: RtError, path: Path },
    /// The path ends in a state where some thread is at `label`.
    Target { label: String, path: Path },
    /// The path ends in a deadlock: no thread can move and one is blocked at a select that is
    /// not marked `end`.
    Deadlock { path: Path },
    /// A lasso violating `property`: the state after the first `cycle_start` choices of the
    /// path is the state after all of them, and the choices from `cycle_start` on form the
    /// cycle (at least one; none under [`Liveness::Ltl`] for a run that ends, whose last
    /// state repeats forever).
    Cycle {
        property: Liveness,
        path: Path,
        cycle_start: usize,
        /// With [`Liveness::Ltl`], the formula.
        ltl: Option<std::sync::Arc<crate::ltl::Ltl>>,
        /// The cycle is weakly fair (`--fairness weak`): every process that can move in all
        /// its states moves in it.
        fair: bool,
    },
}

impl Finding {
    pub fn path(&self) -> &Path {
        match self {
            Finding::Assertion { path }
            | Finding::Runtime { path, .. }
            | Finding::Target { path, .. }
            | Finding::Deadlock { path }
            | Finding::Cycle { path, .. } => path,
        }
    }

    /// The key under which `--keep-going` reports a violation found by a step that starts at
    /// node `at` (proc, pc) once: the node and the finding's kind, so that an assertion and a
    /// runtime error of one statement are two.
    pub fn violation_key(&self, at: (u32, u32)) -> (u8, u32, u32) {
        let kind = match self {
            Finding::Runtime { error, .. } => 16 + *error as u8,
            _ => 0,
        };
        (kind, at.0, at.1)
    }

    /// The finding for a violating outcome at the end of `path`.
    pub fn of_violation(v: Violation, path: Path) -> Finding {
        match v {
            Violation::Assertion => Finding::Assertion { path },
            Violation::Runtime(error) => Finding::Runtime { error, path },
        }
    }
}

/// Counters of one search.
#[derive(Clone, Debug, Default)]
pub struct SearchStats {
    pub states: u64,
    pub transitions: u64,
    pub initial_states: u64,
    pub max_stack: u32,
    pub max_path: u64,
    pub elapsed: Duration,
    /// Engine-specific counters (summaries computed, BDD nodes, ...), reported as they are;
    /// a count past 64 bits is `u64::MAX`, which the reports read as "that many or more".
    pub counters: Vec<(&'static str, u64)>,
    /// Summary engine: per procedure, the roots (patterns) and effects computed.
    pub summaries: Vec<(String, u64, u64)>,
    /// Zing models: ZING's own "distinct states explored" (zing-language.md §6.7).
    pub zing_states: Option<u64>,
    /// Per worker, with `--workers` 2 or more.
    pub workers: Vec<WorkerStats>,
}

/// The result of a search.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub findings: Vec<Finding>,
    /// States were cut by the stack-depth bound.
    pub cut: bool,
    /// Steps were cut by the context-switch bound.
    pub context_cut: bool,
    /// A thread creation was not enabled because of the live-thread bound (`--threads`).
    pub thread_cut: bool,
    /// A limit stopped the search before it was complete.
    pub limit: Option<Limit>,
    /// With a finding under `--contexts`: the fewest context switches that reach an error, when
    /// the search knows it (it completed every context before the next, and found nothing in
    /// the earlier ones). `--contexts-from` then needs no run at a smaller bound.
    pub fewest_switches: Option<u32>,
    /// The engine does not look for deadlocks, and the program's threads can block: finding
    /// nothing is then no proof (the bdd and coverability engines on boolean programs with
    /// threads, unless `--no-deadlock`).
    pub deadlocks_unchecked: bool,
    /// The search could not run at all (a distributed search whose processes did not form
    /// a cluster): no verdict, for the reason given. A library caller gets it as an error
    /// ([`crate::check::CheckError::Incomplete`]), never as an ended process.
    pub failure: Option<String>,
    pub stats: SearchStats,
}

/// Which reductions the explicit search applies (`--reduction`). Both keep every verdict:
/// deadlocks, assertion violations, runtime errors and reached labels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Reduction {
    /// Every interleaving of every step; every state is stored.
    #[default]
    None,
    /// An atomic region is one transition: the states strictly inside it are not stored
    /// (except at its choices, and in boolean programs at its loop heads, so that the search
    /// ends and meets again; a Zing state counts the region's steps, which ends its loops).
    /// Under cooperative scheduling, a Zing process's run is one too, up to its next
    /// `yield`, choice or `select` (ZING's count stays the same).
    Transactions,
    /// Partial-order reduction: a thread whose next step touches only its own variables (or
    /// shared data that only it can touch then: under a lock it holds, or an object it just
    /// allocated) runs alone (a persistent set of one thread, with the cycle proviso). Under
    /// a context bound, instead: a thread is left only right after a step another thread can
    /// see (the same runs, with the same number of switches). Both: states that differ only in
    /// dead locals are one state.
    Por,
    /// Both.
    All,
}

impl Reduction {
    pub fn transactions(self) -> bool {
        matches!(self, Reduction::Transactions | Reduction::All)
    }
    pub fn por(self) -> bool {
        matches!(self, Reduction::Por | Reduction::All)
    }
}

/// Per procedure and node, the index in `targets` of a label the node carries (the first
/// one), so that a search asks "is this a target?" with one lookup.
pub fn targets_at(program: &zingrs_lang::ir::Program, targets: &[String]) -> Vec<Vec<Option<u32>>> {
    program
        .procs
        .iter()
        .map(|p| {
            p.nodes
                .iter()
                .map(|n| {
                    targets
                        .iter()
                        .position(|t| n.labels.iter().any(|l| l == t))
                        .map(|i| i as u32)
                })
                .collect()
        })
        .collect()
}

/// An engine's public search asked to check a program it does not check (the summary engine
/// alone on a concurrent program, the bdd engine on a Zing model, ...): an error, never an
/// empty result that would read as a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotApplicable {
    /// The engine (`summary`, `bdd`, ...).
    pub engine: &'static str,
    /// Why it does not apply.
    pub reason: String,
}

impl std::fmt::Display for NotApplicable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for NotApplicable {}
