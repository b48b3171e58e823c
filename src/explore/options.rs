//! The explicit engine's own options: how it searches (order, storage, reductions, schedule
//! bounds, workers). What to look for and the limits are [`crate::search::Options`], which
//! every engine reads; the BDD engine's own are [`crate::symbolic::SymbolicOptions`].

use super::Bounding;
use crate::search::{effects, Reduction};

/// How many steps deeper than the root of its task a worker of a parallel search goes
/// (the default of [`ExplicitOptions::handoff_depth`]): deep enough that copying a state into
/// a task is rare (once in about this many states on a deep search), shallow enough that
/// tasks are always waiting in the pool on a search hundreds of thousands of steps deep.
pub const HANDOFF_DEPTH: usize = 1000;

/// How the explicit search explores (`check`'s options for the explicit engine, which the
/// summary engine also sets when it runs this search over a concurrent model).
#[derive(Clone, Debug, Default)]
pub struct ExplicitOptions {
    /// Breadth-first (`--bfs`): shortest counterexamples.
    pub bfs: bool,
    /// With `bfs`: ZING's order (zing-language.md §6.6), level by level in ZING steps (a
    /// process step, a whole atomic region being one, and a choice among two or more
    /// alternatives each cost one), processes and choices in ascending order.
    pub zing_order: bool,
    /// Store whole canonical states rather than fingerprints (`--exact`).
    pub exact: bool,
    /// Schedule bounding (`--preemptions K`, `--delays K`): a monitor that counts preemptions
    /// or delays beside the program ([`Bounding`]).
    pub bounding: Option<Bounding>,
    /// The reductions applied (`--reduction`; in cooperative mode none, and under a context
    /// bound only `por`'s switch points, since their bookkeeping counts every step).
    pub reduction: Reduction,
    /// Symmetry reduction (`--symmetry`): for boolean programs, states whose thread lists are
    /// permutations of each other are one state (see [`crate::canon::symmetric_threads`]);
    /// under a context bound or cooperative scheduling the permutation must also map the
    /// thread that ran last (or holds the processor) onto its counterpart. The search keeps
    /// concrete states, so paths replay as they are.
    pub symmetry: bool,
    /// The depth-first search's workers (`--workers`; 0 and 1: one, the single-threaded
    /// search in its own order).
    pub workers: usize,
    /// With several workers: how many steps below the root of its task a worker's
    /// depth-first search goes before it leaves the successor it would descend into as a
    /// task for any worker, while fewer tasks wait than there are workers (default
    /// [`crate::explore::HANDOFF_DEPTH`]; tests set a small one to split searches often).
    pub handoff_depth: Option<usize>,
    /// Summarize calls that run as one transaction, with this summarizer (the summary engine
    /// on concurrent models: it runs this search with its own summarizer).
    pub transactions: Option<effects::Summarize>,
    /// For tests: fingerprint every successor by the whole walk too, and rebuild every
    /// state handed between workers by re-executing its path; panic on a difference.
    pub check_fingerprints: bool,
    /// For tests: the stack depth from which states are fingerprinted by the deep scheme
    /// (`canon::deep`; default [`crate::canon::DIGESTED_DEPTH`]; 1: every state with a
    /// frame, so that tests compare that scheme on every model). The DFS only.
    pub deep_from: Option<u32>,
    /// Swarm runs: `--seed` (successor order and fingerprint salt) and `--search random`
    /// ([`crate::search::swarm::Swarm`]; the default is the plain search).
    pub swarm: crate::search::swarm::Swarm,
    /// The distributed breadth-first search (`--processes N`): this process's place among
    /// the processes that search together ([`crate::explore::distributed`]).
    pub distributed: Option<super::Cluster>,
}
