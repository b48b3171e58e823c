//! What a check is asked to do: [`CheckOptions`], and the settings the engines read from it
//! ([`options_and_semantics`]: the one place that turns the user's choices into them).

use crate::explore::ExplicitOptions;
use crate::runtime::Semantics;
use crate::search::{self, Limits, Options, Reduction};
use crate::symbolic::SymbolicOptions;
use zingrs_lang::ir::{Layout, Program};

/// The engines (`zingrs check --engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Engine {
    /// Pick for the model: for boolean programs that start threads in a loop (and whose
    /// threads do not recurse), unless --threads or --contexts bounds the check, explicit and
    /// coverability side by side (the first conclusive answer wins, the other stops); bdd for
    /// sequential boolean programs with many unconstrained bits; summary otherwise.
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

/// The search orders of the explicit engine (`zingrs check --search`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Search {
    /// Depth-first.
    Dfs,
    /// Breadth-first.
    Bfs,
    /// ZING's iterative depth-bounded order: level by level in ZING steps.
    Zing,
    /// Random walks (ZING's `-randomsample`): repeated walks from the initial states, each at
    /// most `--max-depth` steps, every step drawn uniformly among the enabled outcomes; stops
    /// at the first error or at a limit (`--max-states` counts steps), never with a pass.
    Random,
}

/// How one model is checked: the engine, the property, the bounds and limits, the
/// reductions, and how much of the answer is built. Each field is a `zingrs check` option
/// (named in its comment); `CheckOptions::default()` is `zingrs check MODEL` without options,
/// except that the library shows no progress line ([`Limits::progress`]).
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// `--engine` (default [`Engine::Auto`]).
    pub engine: Engine,
    /// `--target LABEL`: reaching one of these labels is an error too.
    pub targets: Vec<String>,
    /// Whether `assert` is checked (`--no-assertions` makes it `assume`). Default: true.
    pub assertions: bool,
    /// Whether a state where no thread can move is an error (`--no-deadlock`). Default: true.
    pub deadlock: bool,
    /// `--liveness KIND`: look for a cycle of this kind (explicit engine).
    pub liveness: Option<search::Liveness>,
    /// `--ltl FORMULA`: check that every run satisfies the formula (explicit engine; the
    /// property is then [`search::Liveness::Ltl`] whatever `liveness` says).
    pub ltl: Option<String>,
    /// `--fairness weak`: with a liveness property, only weakly fair runs count.
    pub fair: bool,
    /// `--contexts K`: at most K context switches.
    pub contexts: Option<u32>,
    /// `--contexts-from FROM`: try the context bounds FROM..=K in turn (needs `contexts`).
    pub contexts_from: Option<u32>,
    /// `--preemptions K` or `--delays K --scheduler S`: the explicit engine's schedule
    /// bounding ([`crate::explore::Bounding`]).
    pub bounding: Option<crate::explore::Bounding>,
    /// `--preemptions-from FROM` / `--delays-from FROM`: try the bounds FROM..=K in turn
    /// (needs `bounding`).
    pub bounding_from: Option<u32>,
    /// `--threads N`: at most N live threads (a pass is then bounded).
    pub threads: Option<u32>,
    /// `--search` (`--bfs`): the explicit engine's order; `None`: depth-first, or ZING's
    /// with [`CheckOptions::zing_layout`].
    pub search: Option<Search>,
    /// `--cooperative`: Zing's non-preemptive scheduling.
    pub cooperative: bool,
    /// `--max-atomic-steps N`: the steps an atomic region (or a cooperative run) may take
    /// before it is the infinite-loop error (default ZING's 1,000,000).
    pub max_atomic_steps: u32,
    /// `--reduction`; `None`: the default for the search order.
    pub reduction: Option<Reduction>,
    /// `--symmetry on|off`; `None`: on, except for ZING's order and layout.
    pub symmetry: Option<bool>,
    /// `--exact`: store whole states instead of fingerprints.
    pub exact: bool,
    /// `--workers`: threads of the explicit depth-first search. Default: 1.
    pub workers: usize,
    /// `--no-live-ranges` (bdd engine).
    pub no_live_ranges: bool,
    /// `--no-mod-ref` (bdd engine).
    pub no_mod_ref: bool,
    /// `--context-tuples` (bdd engine).
    pub context_tuples: bool,
    /// `--keep-going`: report every distinct error, not only the first, and end with each
    /// property's status ([`super::properties()`]).
    pub keep_going: bool,
    /// `--coverage`: report the statements a complete check never ran (partial-order
    /// reduction is then off).
    pub coverage: bool,
    /// `--property ID`: check only these properties (ids from [`super::properties()`]);
    /// empty: all.
    pub properties: Vec<String>,
    /// `--max-depth`, `--max-states`, `--timeout`, `--memory`; `progress` draws the progress
    /// line on standard error (the command line's default, off here).
    pub limits: Limits,
    /// `--format zing`: ZING's order, state count and state dumps by default.
    pub zing_layout: bool,
    /// Build the counterexample's trace (`false`: the verdict and the path only, as `--trace
    /// none` without `-o`). Default: true.
    pub trace: bool,
    /// Count what only statistics show (`false`: skip measurements nobody sees). Default: true.
    pub stats: bool,
    /// `--seed S`: the explicit search's successor order is permuted and its fingerprints
    /// salted by S; with [`Search::Random`], the walks' seed. `None`: the search's own order
    /// (random walks: [`crate::search::swarm::DEFAULT_RANDOM_SEED`]).
    pub seed: Option<u64>,
    /// `--processes N --process I [--hostfile F]`: the distributed breadth-first search, this
    /// process's place in it (explicit engine, breadth-first).
    pub distributed: Option<crate::explore::Cluster>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            engine: Engine::Auto,
            targets: Vec::new(),
            assertions: true,
            deadlock: true,
            liveness: None,
            ltl: None,
            fair: false,
            contexts: None,
            contexts_from: None,
            bounding: None,
            bounding_from: None,
            threads: None,
            search: None,
            cooperative: false,
            max_atomic_steps: crate::runtime::MAX_ATOMIC_STEPS,
            reduction: None,
            symmetry: None,
            exact: false,
            workers: 1,
            no_live_ranges: false,
            no_mod_ref: false,
            context_tuples: false,
            keep_going: false,
            properties: Vec::new(),
            coverage: false,
            limits: Limits::default(),
            zing_layout: false,
            trace: true,
            stats: true,
            seed: None,
            distributed: None,
        }
    }
}

impl CheckOptions {
    /// The liveness property asked for (an LTL formula is one).
    pub fn property(&self) -> Option<search::Liveness> {
        match self.ltl {
            Some(_) => Some(search::Liveness::Ltl),
            None => self.liveness,
        }
    }

    /// The search order these options ask for.
    pub fn search_order(&self) -> Search {
        match self.search {
            // the distributed search is breadth-first (`Check::new` refuses another order)
            None if self.distributed.is_some() => Search::Bfs,
            Some(s) => s,
            None if self.zing_layout => Search::Zing,
            None => Search::Dfs,
        }
    }
}

/// What the engines are given for one check ([`options_and_semantics`] makes it from
/// [`CheckOptions`]): the options every engine reads, and each engine's own.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// What to look for, the bounds and the limits (every engine).
    pub search: Options,
    /// How the explicit engine searches (also the summary engine's search over threads).
    pub explicit: ExplicitOptions,
    /// How the BDD engine builds its relations.
    pub symbolic: SymbolicOptions,
    /// The program creates threads without bound and no `--threads` bounds it: the explicit
    /// and summary engines search under the live-thread bounds 2, 3, ... in turn
    /// (`engines::deepen_threads`).
    pub deepen_threads: bool,
}

/// The engines' settings and the semantics of a check of `program` under `o` (the one place
/// that turns options into settings; `zingrs regress` adjusts its copy). The adjustments of
/// `--liveness` come later, in [`super::Check::new`].
pub fn options_and_semantics(o: &CheckOptions, program: &Program) -> (Settings, Semantics) {
    let search = o.search_order();
    let common = Options {
        liveness: o.property(),
        // (a formula that does not compile is refused by `Check::new`, which says why)
        ltl: o
            .ltl
            .as_ref()
            .and_then(|f| crate::ltl::Ltl::compile(f, program).ok())
            .map(std::sync::Arc::new),
        fair: o.fair,
        targets: o.targets.clone(),
        keep_going: o.keep_going,
        contexts: o.contexts,
        cooperative: o.cooperative,
        verdict_only: !o.trace,
        limits: o.limits.clone(),
    };
    let explicit = ExplicitOptions {
        bfs: matches!(search, Search::Bfs | Search::Zing),
        zing_order: search == Search::Zing,
        exact: o.exact,
        workers: o.workers.max(1),
        bounding: o.bounding,
        distributed: o.distributed.clone(),
        transactions: None,
        check_fingerprints: false,
        deep_from: None,
        handoff_depth: None,
        // ZING's count is of every order of the process list
        symmetry: o
            .symmetry
            .unwrap_or(search != Search::Zing && !o.zing_layout),
        // partial-order reduction reorders steps: off by default where the order is the point
        // (shortest counterexamples, ZING's order and count)
        reduction: o.reduction.unwrap_or(match search {
            Search::Dfs if !o.zing_layout => Reduction::All,
            Search::Dfs | Search::Zing => Reduction::Transactions,
            Search::Bfs | Search::Random => Reduction::None,
        }),
        swarm: crate::search::swarm::Swarm {
            seed: o.seed,
            random: search == Search::Random,
        },
    };
    let symbolic = SymbolicOptions {
        live_variables: !o.no_live_ranges,
        mod_ref: !o.no_mod_ref,
        tuples: o.context_tuples,
        measure: o.stats,
    };
    let opts = Settings {
        search: common,
        explicit,
        symbolic,
        // threads created without bound in a boolean program: a depth-first search would create
        // threads forever before scheduling one
        deepen_threads: o.threads.is_none()
            && !o.cooperative
            && !program.keep_completed
            && zingrs_lang::spawn::unbounded_creation(program),
    };
    // in the Getafix layout assertions are filters (bp-language.md §5.13)
    let getafix = matches!(program.layout, Layout::Getafix { .. });
    let semantics = Semantics {
        check_assertions: o.assertions && !getafix,
        thread_bound: o.threads,
        cooperative: o.cooperative,
        deadlock: o.deadlock,
        // an LTL formula reads the globals: none may be treated as dead
        observe_globals: o.ltl.is_some(),
        selection: None,
        coverage: None,
        max_atomic_steps: o.max_atomic_steps,
    };
    (opts, semantics)
}
