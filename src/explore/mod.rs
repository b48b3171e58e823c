//! Plain explicit-state search over whole states (every thread's whole stack).
//!
//! Depth-first by default, breadth-first with `--bfs` (shortest counterexamples). Successors
//! come from [`Machine::step`] for every thread that may run (only the atomic owner while there
//! is one; the depth-first search asks [`Machine::step_moves`] and builds only the successors
//! it has not seen); states are identified by their canonical bytes ([`crate::canon`]). A finding is
//! returned as a [`Path`]: the initial valuation and, per step, the thread and the index of the
//! outcome taken, which [`crate::search::replay`] re-executes before anything is reported.
//!
//! With [`ExplicitOptions::transactions`] (the summary engine on concurrent models) a call that runs
//! as one transaction is not stepped into: its [`Transaction`] summary is applied, as one
//! macro step that a reported path expands back into the callee's own steps.

mod bfs;
mod bounding;
mod chunked;
mod cycles;
mod dfs;
pub mod distributed;
mod level_parallel;
mod options;
mod parallel;
mod random;
mod reduce;
mod successors;
mod zing_count;

use crate::canon::{Canon, DeadLocals, Encoder, MoveFp, SegmentHasher, Visited};
use crate::runtime::{InitialStates, Kind, Machine, Outcome, State, Touched, Value, Violation};
use crate::search::effects::{FrameShape, Transaction};
use crate::search::{watchdog, Choice, Finding, Limit, Options, Path, SearchResult, Watch};
use chunked::Chunked;
use reduce::{unchain, Levels};
use zingrs_lang::ir::{Layout, Stmt};

pub use bounding::{Bounding, Scheduler, MAX_ORDERED};
pub use distributed::Cluster;
pub use options::{ExplicitOptions, HANDOFF_DEPTH};

type Succs = Vec<(Choice, Outcome)>;
/// A window of a node's successors, each with whether it is interior
/// ([`Explorer::successor_window`]).
type Marked = Vec<((Choice, Outcome), bool)>;

struct Explorer<'m, 'p> {
    m: &'m Machine<'p>,
    opts: &'m Options,
    /// This engine's own options: how it searches.
    how: &'m ExplicitOptions,
    /// For each procedure and pc, the index in `opts.targets` of a target label there.
    target_at: Vec<Vec<Option<u32>>>,
    visited: Visited,
    /// The workers of a parallel search (`--workers`): where idle ones wait for work.
    pool: Option<std::sync::Arc<parallel::Pool>>,
    /// What this worker gave and took.
    parallel: parallel::WorkerCounts,
    /// States are keyed by their canonical bytes alone (no context bookkeeping).
    plain_keys: bool,
    encoder: Encoder,
    /// Fingerprints for plain hash compaction, successors' from their parents'.
    hasher: SegmentHasher,
    /// Top-frame locals the stored states leave out (`--reduction por`: dead variables).
    dead: std::rc::Rc<DeadLocals>,
    /// States are stored up to the order of their threads (`ExplicitOptions::symmetry`, where it
    /// applies: interchangeable threads; the bookkeeping's named threads are marked).
    symmetric: bool,
    /// The heap objects the last [`Explorer::steps_of`] wrote (None: not known).
    touched: Option<Touched>,
    buf: Vec<u8>,
    scratch: Vec<Outcome>,
    result: SearchResult,
    seen_errors: ahash::AHashSet<(u8, u32, u32)>,
    watch: Watch,
    tx: Transactions,
    /// ZING's state count, for Zing models searched without transactions.
    zing: Option<zing_count::ZingCount>,
    /// Under a schedule bound, the program states ZING's count has seen (a state is stored
    /// once per bookkeeping, and counted once).
    zing_seen: ahash::AHashSet<u64>,
    /// Under a schedule bound: per stored program state and monitor state (the key without
    /// the count), the fewest preemptions or delays it was reached with (see
    /// [`Explorer::visit`]).
    least_used: ahash::AHashMap<crate::canon::Fingerprint, u32>,
    /// States inside atomic regions are not stored (`--reduction transactions`).
    atomic_interior: bool,
    /// Cooperative scheduling of a Zing model (`--reduction transactions`): the states inside
    /// a process's deterministic stretch are not stored, and a depth-first search runs the
    /// stretch on as one chained transition (see [`Explorer::interior`]).
    run_interior: bool,
    /// A thread whose next step is private runs alone (`--reduction por`).
    por: bool,
    /// Under a context bound, a thread is left only at a switch point (`--reduction por`:
    /// see [`Machine::switch_point`]).
    switch_points: bool,
    /// Transactions run on through lock releases and one non-mover (`--reduction por`: see
    /// `reduce::Phase`).
    movers: bool,
    /// The last [`Explorer::step_threads`] expanded one thread by partial-order reduction.
    ran_alone: bool,
    /// Whether the node being expanded has every thread's steps taken (no atomic owner, no
    /// thread run alone): a transaction that begins there may take one non-mover.
    expands_all: bool,
    /// The states the last [`Explorer::step_threads`] ran through in chained transactions.
    chained: u64,
    /// A breadth-first search's levels inside the cooperative runs chained since it last
    /// took them (see [`reduce::RunCost`]).
    run_costs: Vec<reduce::RunCost>,
    /// The most outcomes of one thread's step that a path node lists at once
    /// ([`crate::runtime::OUTCOME_WINDOW`], or unbounded in a depth-first search with
    /// transaction summaries): a wider step's outcomes come in chunks.
    chunk: usize,
    /// Where the outcomes of the last [`Explorer::step_threads`] go on, when it stopped at
    /// [`Explorer::chunk`] outcomes of one thread.
    more: Option<Resume>,
    /// What the reductions saved: states inside transactions not stored, and states
    /// expanded by one thread.
    interior_skipped: u64,
    expanded_alone: u64,
    /// Under a schedule bound: stored states explored again, reached with fewer preemptions
    /// or delays used.
    reexplored: u64,
    /// The seed of the depth-first search's successor order: `--seed`'s, or `None` for the
    /// program's order.
    order: Option<u64>,
    /// The order of the bottom node of a task that carries the pending positions of a node
    /// of another worker's stack: that worker's order for that node (positions name outcomes
    /// in the order they were listed), `None` inside for the program's order; `None` for
    /// any other bottom node, listed in this worker's own order.
    root_order: Option<Option<crate::search::swarm::Rng>>,
}

/// Transactional calls (seed 004 §7: summaries inside transactions): which procedures may run
/// as one transaction, the summaries computed so far, and the macro steps that stand for a
/// summarized call in paths.
#[derive(Default)]
struct Transactions {
    enabled: bool,
    /// Per procedure: it (or a procedure it calls) can start or end a thread or an atomic
    /// region.
    spawns: Vec<bool>,
    /// Per procedure: it (or a procedure it calls) can block or yield.
    blocks: Vec<bool>,
    cache: ahash::AHashMap<FrameShape, Vec<std::rc::Rc<Transaction>>>,
    macros: Vec<Macro>,
    summarized: u64,
    reused: u64,
    roots: u64,
}

/// A step of a path that stands for a whole summarized call: the call's outcome, then the
/// callee's steps to one of its returns (or to its error).
struct Macro {
    thread: u32,
    call: u32,
    tx: std::rc::Rc<Transaction>,
    /// The effect applied, or `None` for the transaction's finding.
    effect: Option<usize>,
    /// The effect's steps cut after this many: ZING's infinite-loop error arose inside the
    /// call ([`Transaction::apply`]).
    cut: Option<usize>,
}

/// Marks a [`Choice::outcome`] that indexes [`Transactions::macros`].
const MACRO: u32 = 1 << 31;

/// Marks, per procedure, whether it or a procedure it calls has a statement matching `p`.
fn reaches(program: &zingrs_lang::ir::Program, p: impl Fn(&Stmt) -> bool) -> Vec<bool> {
    let n = program.procs.len();
    let mut has: Vec<bool> = program
        .procs
        .iter()
        .map(|q| q.nodes.iter().any(|node| p(&node.stmt)))
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            if has[i] {
                continue;
            }
            let calls_bad = program.procs[i].nodes.iter().any(|node| match &node.stmt {
                Stmt::Call { callee, .. } => has[*callee as usize],
                _ => false,
            });
            if calls_bad {
                has[i] = true;
                changed = true;
            }
        }
    }
    has
}

/// Searches the state space of `m`'s program for what `opts` asks, the way `how` says
/// (depth-first with several workers when [`ExplicitOptions::workers`] asks for them:
/// `parallel.rs`; random walks with [`ExplicitOptions::swarm`]'s `random`), under the
/// fingerprint salt of its seed.
pub fn search(m: &Machine, opts: &Options, how: &ExplicitOptions) -> SearchResult {
    crate::canon::salted(how.swarm.salt(), || search_salted(m, opts, how))
}

/// [`search`] under its fingerprint salt.
fn search_salted(m: &Machine, opts: &Options, how: &ExplicitOptions) -> SearchResult {
    if how.swarm.random {
        return random::walks(m, opts, how);
    }
    if let Some(property) = opts.liveness {
        return cycles::search(m, opts, how, property);
    }
    if let Some(cluster) = &how.distributed {
        // no verdict can come of a cluster that did not form: the caller says so
        return distributed::search(m, opts, how, cluster).unwrap_or_else(|e| SearchResult {
            failure: Some(e.to_string()),
            ..SearchResult::default()
        });
    }
    if how.workers > 1 && !how.bfs {
        return parallel::search(m, opts, how);
    }
    if level_parallel::applies(opts, how) {
        return level_parallel::search(m, opts, how);
    }
    let mut ex = Explorer::new(m, opts, how, Visited::new(how.exact), None);
    if how.bfs {
        ex.bfs();
    } else {
        ex.dfs();
    }
    ex.finish()
}

impl<'m, 'p> Explorer<'m, 'p> {
    /// A search of `m`'s program storing its states in `visited`; a worker of a parallel
    /// search when `pool` is given.
    fn new(
        m: &'m Machine<'p>,
        opts: &'m Options,
        how: &'m ExplicitOptions,
        visited: Visited,
        pool: Option<std::sync::Arc<parallel::Pool>>,
    ) -> Explorer<'m, 'p> {
        let target_at = crate::search::targets_at(m.program, &opts.targets);
        let mut ex = Explorer {
            m,
            opts,
            how,
            target_at,
            visited,
            pool,
            parallel: Default::default(),
            plain_keys: opts.contexts.is_none() && !opts.cooperative && how.bounding.is_none(),
            encoder: Encoder::default(),
            hasher: SegmentHasher::default(),
            dead: Default::default(),
            symmetric: false,
            touched: None,
            buf: Vec::with_capacity(256),
            scratch: Vec::new(),
            result: SearchResult::default(),
            seen_errors: Default::default(),
            watch: Watch::new(&opts.limits),
            tx: Transactions {
                // the Getafix lock is released by plain assignments, which a summary would hide
                // (nor are collections and exceptions, whose effects summaries do not record)
                // (nor broadcasts, which write other threads' locals that a summary does not carry)
                enabled: how.transactions.is_some()
                    && matches!(m.program.layout, Layout::Standard)
                    && !m.program.beyond_summaries()
                    && !m.program.has_passive(),
                // starting or ending threads, or opening and closing atomic regions, changes who
                // may run: such callees are never one transaction
                // (nor, where a boolean program's threads can deadlock, callees in which a
                // thread can get stuck: the search must visit the state where it waits)
                spawns: reaches(m.program, |st| {
                    matches!(
                        st,
                        Stmt::StartThread { .. }
                            | Stmt::StartThreadGoto
                            | Stmt::EndThread
                            | Stmt::AtomicBegin
                            | Stmt::AtomicEnd
                            | Stmt::Select { atomic: true, .. }
                    ) || m.may_get_stuck_at(st)
                }),
                blocks: reaches(m.program, |st| {
                    matches!(
                        st,
                        Stmt::Select { .. } | Stmt::Yield | Stmt::AtomicBegin | Stmt::AtomicEnd
                    )
                }),
                ..Default::default()
            },
            zing: None,
            zing_seen: Default::default(),
            least_used: Default::default(),
            atomic_interior: false,
            run_interior: false,
            por: false,
            switch_points: false,
            movers: false,
            ran_alone: false,
            expands_all: false,
            chained: 0,
            run_costs: Vec::new(),
            chunk: usize::MAX,
            more: None,
            interior_skipped: 0,
            expanded_alone: 0,
            reexplored: 0,
            order: how.swarm.seed,
            root_order: None,
        };
        // the context bound, schedule bounding and cooperative scheduling count every step of
        // every thread
        let reducible = opts.contexts.is_none() && !opts.cooperative && how.bounding.is_none();
        ex.atomic_interior = reducible && how.reduction.transactions();
        // a cooperative run's step count (`Thread::atomic_steps`, Zing models only) grows at
        // every step inside it, so no cycle stays inside a run (see `Explorer::interior`)
        ex.run_interior = opts.cooperative
            && m.program.keep_completed
            && opts.contexts.is_none()
            && how.bounding.is_none()
            && how.reduction.transactions();
        ex.por = reducible && how.reduction.por();
        // (not in cooperative mode: a thread is left there only right after a yield, and the
        // point a switch would move back to may lie before it)
        ex.switch_points = opts.contexts.is_some() && !opts.cooperative && how.reduction.por();
        ex.movers = ex.por;
        if ex.por || ex.switch_points {
            // states that differ only in dead locals are one state (under a context bound too:
            // what a dead local holds is overwritten before any thread reads it)
            ex.dead = std::rc::Rc::new(DeadLocals::new(m));
            ex.hasher = SegmentHasher::with_dead(ex.dead.clone());
        }
        // the context bound's and cooperative scheduling's bookkeeping names threads by position:
        // `visit` marks those threads, so a permutation must map them onto each other
        // (not under delay bounding, whose scheduler's order names every thread)
        ex.symmetric = how.symmetry
            && crate::canon::symmetric_threads(m.program)
            && !matches!(how.bounding, Some(Bounding::Delays { .. }));
        // both searches fingerprint successors from their parent's canon, where the deep scheme
        // pays off (its whole walk is O(depth) where the plain walk's stack digests are O(1))
        let deep_from = how.deep_from.unwrap_or(crate::canon::DIGESTED_DEPTH);
        ex.hasher = std::mem::take(&mut ex.hasher)
            .symmetric(ex.symmetric)
            .deep_from(deep_from);
        // ZING's count picks states out of the stored ones: partial-order reduction stores others,
        // and symmetry stores one of each set of reorderings
        if m.program.keep_completed && !ex.tx.enabled && !ex.por && !ex.symmetric {
            ex.zing = Some(zing_count::ZingCount::default());
        }
        ex
    }

    /// The result, with the search's counters.
    fn finish(mut self) -> SearchResult {
        let ex = &mut self;
        let how = ex.how;
        ex.result.stats.states = ex.visited.len() as u64;
        ex.result.stats.zing_states = ex.zing.as_ref().map(|z| z.states);
        ex.result.stats.elapsed = ex.watch.elapsed();
        if how.transactions.is_some() {
            ex.result.stats.counters = vec![
                ("transactions summarized", ex.tx.summarized),
                ("transaction summaries reused", ex.tx.reused),
                ("roots in transactions", ex.tx.roots),
            ];
        }
        if ex.atomic_interior || ex.por || ex.run_interior {
            ex.result
                .stats
                .counters
                .push(("states inside transactions not stored", ex.interior_skipped));
        }
        if ex.por {
            ex.result.stats.counters.push((
                "states expanded by one thread (partial-order reduction)",
                ex.expanded_alone,
            ));
        }
        if how.bounding.is_some() {
            ex.result.stats.counters.push((
                "states explored again with fewer preemptions or delays used",
                ex.reexplored,
            ));
        }
        if let Some(b) = ex.visited.table_bytes() {
            ex.result
                .stats
                .counters
                .push(("visited-table bytes", b as u64));
        }
        std::mem::take(&mut ex.result)
    }
}

/// The context-switch bookkeeping of a search node: the thread that moved last and the
/// switches used so far (under a schedule bound, the preemptions or delays used).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ctx {
    last: u32,
    used: u32,
    /// Cooperative mode: the process that must go on (FRESH: any may run).
    hold: u32,
    /// Delay bounding: the scheduler's order of the threads.
    order: bounding::Order,
}

/// No thread has moved yet (or a Getafix phase change started new threads).
const FRESH: u32 = u32::MAX;
/// The thread that moved last has ended: whichever moves next is a new context.
const ENDED: u32 = u32::MAX - 1;

impl Ctx {
    const START: Ctx = Ctx {
        last: FRESH,
        used: 0,
        hold: FRESH,
        order: bounding::Order::EMPTY,
    };
}

/// Where a wide node's outcomes go on ([`Explorer::step_threads`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resume {
    /// The thread whose step was cut, and its next outcome.
    tid: u32,
    skip: u64,
    /// Whether every thread was expanded (the threads after `tid` follow) or `tid` alone.
    all: bool,
}

impl Resume {
    fn only(tid: usize, skip: u64) -> Resume {
        Resume {
            tid: tid as u32,
            skip,
            all: false,
        }
    }

    /// The same expansion, going on after the chunk of thread `tid` that began at `skip`.
    fn next(self, tid: usize, skip: u64, chunk: usize) -> Resume {
        Resume {
            tid: tid as u32,
            skip: skip + chunk as u64,
            all: self.all,
        }
    }
}

/// What to do with a newly stored state.
enum Arrive {
    Expand,
    Skip,
    Stop,
}

impl Explorer<'_, '_> {
    /// Tells the other workers of a parallel search to stop.
    fn stop_pool(&self) {
        if let Some(pool) = &self.pool {
            pool.stop();
        }
    }

    fn count_zing(&mut self, s: &State, ctx: Ctx, initial: bool) {
        if self.zing.is_some()
            && self.how.bounding.is_some()
            && !self.zing_seen.insert(self.hasher.full(s))
        {
            return;
        }
        if let Some(z) = &mut self.zing {
            let held = (ctx.hold as usize) < s.threads.len();
            z.add(self.m, s, initial, held.then_some(ctx.hold as usize));
        }
    }

    /// Whether states are keyed by segmented fingerprints alone (see [`crate::canon::Canon`]).
    fn segmented(&self) -> bool {
        self.plain_keys && self.visited.fingerprinted()
    }

    /// The canon of a state about to be expanded, for its successors' fingerprints.
    fn canon_of(&mut self, s: &State) -> Option<Canon> {
        self.segmented().then(|| self.hasher.canon(s))
    }

    /// The canon of `child`, a successor of `parent` whose canon is `canon`: from the parts the
    /// step changed where the hasher can, else by the whole walk.
    fn child_canon(&mut self, parent: &State, canon: &Canon, child: &State) -> Canon {
        match self.hasher.successor_canon(parent, canon, child, None) {
            Some(c) => {
                if self.how.check_fingerprints {
                    let fp = self.hasher.full(child);
                    assert_eq!(c.fp, fp, "incremental fingerprint");
                }
                c
            }
            None => self.hasher.canon(child),
        }
    }

    /// Stores a state keyed by its canon's fingerprint if it has one (see
    /// [`Explorer::canon_of`]), else as [`Explorer::visit`] does; true if new.
    fn visit_keyed(&mut self, s: &State, ctx: Ctx, canon: Option<&Canon>) -> bool {
        match canon {
            Some(c) if self.visited.fingerprinted() => self.visited.insert_fp(c.fp),
            _ => self.visit(s, ctx),
        }
    }

    /// Stores a state (with its context bookkeeping under a context bound); true if new.
    fn visit(&mut self, s: &State, ctx: Ctx) -> bool {
        if self.plain_keys && self.visited.fingerprinted() {
            return self.visited.insert_fp(self.hasher.full(s));
        }
        self.buf.clear();
        // under symmetry a bookkeeping entry that names a thread is a mark on that thread's
        // part, and the entry itself is written as 0 (a thread) or as its special value
        let threads = s.threads.len();
        let named = |t: u32| if (t as usize) < threads { 0 } else { t };
        let (last, hold) = if self.symmetric {
            let mut marks = [0u32; 2];
            let mut n = 0;
            if self.opts.contexts.is_some() || self.how.bounding.is_some() {
                marks[n] = ctx.last;
                n += 1;
            }
            if self.opts.cooperative {
                marks[n] = ctx.hold;
                n += 1;
            }
            self.encoder
                .encode_symmetric_marked(s, &self.dead, &marks[..n], &mut self.buf);
            (named(ctx.last), named(ctx.hold))
        } else {
            self.encoder.encode_masked(s, &self.dead, &mut self.buf);
            (ctx.last, ctx.hold)
        };
        if self.how.bounding.is_some() {
            // schedule bounding: the program state and the monitor's state without its count
            // are the key; the same key reached with fewer preemptions or delays used than
            // before is explored again (it has more budget left: it covers the costlier
            // arrival), one reached with as many or more is not
            self.buf.extend_from_slice(&last.to_le_bytes());
            if matches!(self.how.bounding, Some(Bounding::Delays { .. })) {
                ctx.order.key_bytes(&mut self.buf);
            }
            if self.visited.insert(&self.buf) {
                let fp = crate::canon::fingerprint(&self.buf);
                self.least_used.insert(fp, ctx.used);
                return true;
            }
            let fp = crate::canon::fingerprint(&self.buf);
            return match self.least_used.get_mut(&fp) {
                Some(least) if *least <= ctx.used => false,
                Some(least) => {
                    *least = ctx.used;
                    self.reexplored += 1;
                    true
                }
                None => {
                    self.least_used.insert(fp, ctx.used);
                    true
                }
            };
        }
        if self.opts.contexts.is_some() {
            self.buf.extend_from_slice(&last.to_le_bytes());
            self.buf.extend_from_slice(&ctx.used.to_le_bytes());
        }
        if self.opts.cooperative {
            self.buf.extend_from_slice(&hold.to_le_bytes());
        }
        self.visited.insert(&self.buf)
    }

    /// Whether thread `last` of `parent`, which made the last step, may be left for another
    /// under a context bound ([`Machine::switch_point`]; an ended thread always).
    fn may_leave(&self, parent: &State, last: u32) -> bool {
        parent
            .threads
            .get(last as usize)
            .and_then(|t| t.stack.top())
            .is_none_or(|f| self.m.switch_point(f.proc, f.pc))
    }

    /// The bookkeeping after `choice` led from `parent` to a state by a step of `kind`; `None`
    /// if the step exceeds the context bound, or switches where no switch is needed.
    fn advance(&mut self, parent: &State, ctx: Ctx, choice: Choice, kind: Kind) -> Option<Ctx> {
        let t = choice.thread;
        let mut next = ctx;
        if self.opts.cooperative {
            let yielded = parent.threads[t as usize]
                .stack
                .top()
                .is_some_and(|f| matches!(self.m.program.node(f.proc, f.pc).stmt, Stmt::Yield));
            next.hold = if yielded || kind == Kind::ThreadEnd || self.phase_change(parent, t) {
                FRESH
            } else {
                t
            };
        }
        if let Some(bounding) = self.how.bounding {
            return self.advance_bounded(bounding, parent, next, choice, kind);
        }
        let Some(bound) = self.opts.contexts else {
            return Some(next);
        };
        match ctx.last {
            FRESH => {
                next.last = t;
                next.used = 0;
            }
            last if last == t => {}
            last => {
                // a switch: only where the thread that ran may be left (it got there by a
                // step another thread can see); elsewhere the same run switches earlier
                if self.switch_points && !self.may_leave(parent, last) {
                    return None;
                }
                next.last = t;
                next.used = ctx.used + 1;
            }
        }
        if next.used > bound {
            self.result.context_cut = true;
            return None;
        }
        if kind == Kind::ThreadEnd {
            next.last = ENDED;
        }
        if kind == Kind::ThreadStart && self.phase_change(parent, t) {
            next.last = FRESH;
        }
        Some(next)
    }

    /// Whether thread `t`'s step is the Getafix start of the thread phase.
    fn phase_change(&self, s: &State, t: u32) -> bool {
        let Layout::Getafix { init, endinit, .. } = self.m.program.layout else {
            return false;
        };
        s.threads[t as usize]
            .stack
            .top()
            .is_some_and(|f| f.proc == init && f.pc == endinit)
    }

    fn target(&self, s: &State) -> Option<u32> {
        s.threads.iter().find_map(|t| {
            let f = t.stack.top()?;
            self.target_at[f.proc as usize][f.pc as usize]
        })
    }

    fn stack_depth(s: &State) -> u32 {
        s.threads.iter().map(|t| t.stack.depth()).max().unwrap_or(0)
    }

    /// The finding for a violating outcome reached by `choice`: for a summarized call, the
    /// error the summary found inside it.
    fn violation_finding(&self, v: Violation, choice: Choice, path: Path) -> Finding {
        if choice.outcome & MACRO != 0 {
            let mac = &self.tx.macros[(choice.outcome & !MACRO) as usize];
            if let (None, Some(f)) = (mac.effect, &mac.tx.finding) {
                return match f {
                    Finding::Target { label, .. } => Finding::Target {
                        label: label.clone(),
                        path,
                    },
                    Finding::Runtime { error, .. } => Finding::Runtime {
                        error: *error,
                        path,
                    },
                    Finding::Assertion { .. }
                    | Finding::Deadlock { .. }
                    | Finding::Cycle { .. } => Finding::Assertion { path },
                };
            }
        }
        Finding::of_violation(v, path)
    }

    /// Whether no thread can move and some thread is blocked at a select not marked `end`
    /// (zing-language.md §6.5).
    fn deadlocked(&self, s: &State) -> bool {
        self.m.deadlocked(s)
    }

    /// Records a finding (macro steps expanded); returns true if the search should stop.
    fn found(&mut self, f: Finding, key: (u8, u32, u32)) -> bool {
        let first = match &self.pool {
            // several workers may each find an error before they stop: one is reported
            Some(pool) if self.opts.keep_going => pool.first_sight(key),
            Some(pool) => pool.claim_first(),
            None => self.seen_errors.insert(key),
        };
        if first {
            let f = match f {
                Finding::Assertion { path } => Finding::Assertion {
                    path: self.expand(path),
                },
                Finding::Runtime { error, path } => Finding::Runtime {
                    error,
                    path: self.expand(path),
                },
                Finding::Target { label, path } => Finding::Target {
                    label,
                    path: self.expand(path),
                },
                Finding::Deadlock { path } => Finding::Deadlock {
                    path: self.expand(path),
                },
                f @ Finding::Cycle { .. } => f,
            };
            self.result.findings.push(f);
        }
        !self.opts.keep_going
    }

    /// Checks a newly stored state: the depth bound, then the target labels. Returns whether to
    /// expand it, or a stop.
    fn arrive(&mut self, s: &State, path: impl Fn() -> Path) -> Arrive {
        let depth = Self::stack_depth(s);
        self.result.stats.max_stack = self.result.stats.max_stack.max(depth);
        if let Some(t) = self.target(s) {
            let label = self.opts.targets[t as usize].clone();
            let f = Finding::Target {
                label,
                path: path(),
            };
            if self.found(f, (1, t, 0)) {
                return Arrive::Stop;
            }
        }
        if self.deadlocked(s) {
            let f = Finding::Deadlock { path: path() };
            if self.found(f, (3, 0, 0)) {
                return Arrive::Stop;
            }
            return Arrive::Skip;
        }
        if depth > self.opts.limits.max_depth {
            self.result.cut = true;
            return Arrive::Skip;
        }
        Arrive::Expand
    }

    /// The key under which a violation found by a step of `c.thread` from `s` is reported
    /// once (`--keep-going`): the node the step starts at (where the report places it) and
    /// the finding's kind, so that an assertion and a runtime error of one statement are two.
    fn violation_key(s: &State, c: Choice, f: &Finding) -> (u8, u32, u32) {
        Self::with_kind(Self::step_start(s, c), f)
    }

    /// The node thread `c.thread`'s step from `s` starts at.
    fn step_start(s: &State, c: Choice) -> (u32, u32) {
        let top = s.threads[c.thread as usize].stack.top();
        (top.map_or(0, |f| f.proc), top.map_or(0, |f| f.pc))
    }

    /// [`Explorer::violation_key`] of a finding at the step start `at`.
    fn with_kind(at: (u32, u32), f: &Finding) -> (u8, u32, u32) {
        f.violation_key(at)
    }
}
