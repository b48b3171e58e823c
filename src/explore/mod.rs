//! Plain explicit-state search over whole states (every thread's whole stack).
//!
//! Depth-first by default, breadth-first with `--bfs` (shortest counterexamples). Successors
//! come from [`Machine::step`] for every thread that may run (only the atomic owner while there
//! is one; the depth-first search asks [`Machine::step_moves`] and builds only the successors
//! it has not seen); states are identified by their canonical bytes ([`crate::canon`]). A finding is
//! returned as a [`Path`]: the initial valuation and, per step, the thread and the index of the
//! outcome taken, which [`replay`] re-executes before anything is reported.
//!
//! With [`Options::transactions`] (the summary engine on concurrent models) a call that runs
//! as one transaction is not stepped into: its [`Transaction`] summary is applied, as one
//! macro step that a reported path expands back into the callee's own steps.

mod chunked;
mod limits;
mod reduce;
mod replay;
mod zing_count;

pub use limits::{
    default_memory_limit, peak_bytes, resident_bytes, thread_cpu_time, watchdog, Clock, Limit,
    Limits, Watch, DEFAULT_MAX_DEPTH,
};
pub use reduce::Reduction;
pub use replay::{replay, replay_keeping, Replayed, Replayer};

use crate::canon::{Canon, DeadLocals, Encoder, MoveFp, SegmentHasher, Visited};
use crate::runtime::{
    InitialStates, Kind, Machine, Outcome, RtError, State, Touched, Value, Violation,
};
use crate::summary::Transaction;
use chunked::Chunked;
use reduce::{split_chain, Levels};
use serde::{Deserialize, Serialize};
use std::time::Duration;
use zingrs_lang::ir::{Layout, Stmt};

/// What to search for and how.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub bfs: bool,
    /// With `bfs`: ZING's order (zing-language.md §6.6), level by level in ZING steps (a
    /// process step, a whole atomic region being one, and a choice among two or more
    /// alternatives each cost one), processes and choices in ascending order.
    pub zing_order: bool,
    pub exact: bool,
    /// Labels whose reaching is an error (`--target`).
    pub targets: Vec<String>,
    pub limits: Limits,
    /// Go on after the first error and report every distinct one.
    pub keep_going: bool,
    /// Bound on the number of context switches along a path (`--contexts K`).
    pub contexts: Option<u32>,
    /// Zing's cooperative scheduling: a process runs until it yields, blocks or ends.
    pub cooperative: bool,
    /// BDD engine: do not quantify dead locals out (`--no-live-ranges`, to measure their effect).
    pub no_live_ranges: bool,
    /// BDD engine: keep every global in every procedure (`--no-mod-ref`).
    pub no_mod_ref: bool,
    /// Only the verdict will be shown: counterexamples are still replayed, but not turned into
    /// source-level traces (which costs more than the search on long traces).
    pub verdict_only: bool,
    /// Summarize calls that run as one transaction (the summary engine on concurrent models).
    pub transactions: bool,
    /// For tests: fingerprint every successor by the whole walk too, and panic if the
    /// incremental fingerprint differs.
    pub check_fingerprints: bool,
    /// The reductions applied (`--reduction`; none under a context bound or in cooperative
    /// mode, whose bookkeeping counts every step).
    pub reduction: Reduction,
    /// Symmetry reduction (`--symmetry`): for boolean programs searched without a context
    /// bound, states whose thread lists are permutations of each other are one state (see
    /// [`crate::canon::symmetric_threads`]). The search keeps concrete states, so paths
    /// replay as they are.
    pub symmetry: bool,
    /// For a program that can create threads without bound and no `--threads`: the explicit
    /// engines search under the live-thread bounds 2, 3, ... in turn, up to the first bound
    /// that finds an error or cuts no creation (see `cli::check`).
    pub deepen_threads: bool,
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
    /// The initial valuation, in [`InitialStates`] slot order.
    pub init: Vec<Value>,
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
}

impl Finding {
    pub fn path(&self) -> &Path {
        match self {
            Finding::Assertion { path }
            | Finding::Runtime { path, .. }
            | Finding::Target { path, .. }
            | Finding::Deadlock { path } => path,
        }
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
    /// Engine-specific counters (summaries computed, BDD nodes, ...), reported as they are.
    pub counters: Vec<(&'static str, u64)>,
    /// Summary engine: per procedure, the roots (patterns) and effects computed.
    pub summaries: Vec<(String, u64, u64)>,
    /// Zing models: ZING's own "distinct states explored" (zing-language.md §6.7).
    pub zing_states: Option<u64>,
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
    pub stats: SearchStats,
}

type Succs = Vec<(Choice, Outcome)>;

struct Explorer<'m, 'p> {
    m: &'m Machine<'p>,
    opts: &'m Options,
    /// For each procedure and pc, the index in `opts.targets` of a target label there.
    target_at: Vec<Vec<Option<u32>>>,
    visited: Visited,
    /// States are keyed by their canonical bytes alone (no context bookkeeping).
    plain_keys: bool,
    encoder: Encoder,
    /// Fingerprints for plain hash compaction, successors' from their parents'.
    hasher: SegmentHasher,
    /// Top-frame locals the stored states leave out (`--reduction por`: dead variables).
    dead: std::rc::Rc<DeadLocals>,
    /// States are stored up to the order of their threads (`Options::symmetry`, where it
    /// applies: plain keys, which name no thread, and interchangeable threads).
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
    /// States inside atomic regions are not stored (`--reduction transactions`).
    atomic_interior: bool,
    /// A thread whose next step is private runs alone (`--reduction por`).
    por: bool,
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
    /// The most outcomes of one thread's step that a path node lists at once ([`CHUNK`], or
    /// unbounded in a depth-first search with transaction summaries): a wider step's outcomes
    /// come in chunks.
    chunk: usize,
    /// Where the outcomes of the last [`Explorer::step_threads`] go on, when it stopped at
    /// [`Explorer::chunk`] outcomes of one thread.
    more: Option<Resume>,
    /// What the reductions saved: states inside transactions not stored, and states
    /// expanded by one thread.
    interior_skipped: u64,
    expanded_alone: u64,
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
    cache: ahash::AHashMap<TxShape, Vec<std::rc::Rc<Transaction>>>,
    macros: Vec<Macro>,
    summarized: u64,
    reused: u64,
    roots: u64,
}

type TxShape = (u32, u32, Box<[Value]>, Box<[Value]>);

/// A step of a path that stands for a whole summarized call: the call's outcome, then the
/// callee's steps to one of its returns (or to its error).
struct Macro {
    thread: u32,
    call: u32,
    tx: std::rc::Rc<Transaction>,
    /// The effect applied, or `None` for the transaction's finding.
    effect: Option<usize>,
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

/// Searches the state space of `m`'s program.
pub fn search(m: &Machine, opts: &Options) -> SearchResult {
    let target_at = m
        .program
        .procs
        .iter()
        .map(|p| {
            p.nodes
                .iter()
                .map(|n| {
                    opts.targets
                        .iter()
                        .position(|t| n.labels.iter().any(|l| l == t))
                        .map(|i| i as u32)
                })
                .collect()
        })
        .collect();
    let mut ex = Explorer {
        m,
        opts,
        target_at,
        visited: Visited::new(opts.exact),
        plain_keys: opts.contexts.is_none() && !opts.cooperative,
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
            enabled: opts.transactions
                && matches!(m.program.layout, Layout::Standard)
                && !m.program.beyond_summaries()
                && !m.program.has_passive(),
            // starting or ending threads, or opening and closing atomic regions, changes who
            // may run: such callees are never one transaction
            spawns: reaches(m.program, |st| {
                matches!(
                    st,
                    Stmt::StartThread { .. }
                        | Stmt::StartThreadGoto
                        | Stmt::EndThread
                        | Stmt::AtomicBegin
                        | Stmt::AtomicEnd
                        | Stmt::Select { atomic: true, .. }
                )
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
        atomic_interior: false,
        por: false,
        movers: false,
        ran_alone: false,
        expands_all: false,
        chained: 0,
        chunk: usize::MAX,
        more: None,
        interior_skipped: 0,
        expanded_alone: 0,
    };
    // the context bound and cooperative scheduling count every step of every thread
    let reducible = opts.contexts.is_none() && !opts.cooperative;
    ex.atomic_interior = reducible && opts.reduction.transactions();
    ex.por = reducible && opts.reduction.por();
    ex.movers = ex.por;
    if ex.por {
        // states that differ only in dead locals are one state
        ex.dead = std::rc::Rc::new(DeadLocals::new(m));
        ex.hasher = SegmentHasher::with_dead(ex.dead.clone());
    }
    // the context bound's and cooperative scheduling's bookkeeping names threads by position
    ex.symmetric = opts.symmetry && ex.plain_keys && crate::canon::symmetric_threads(m.program);
    ex.hasher = std::mem::take(&mut ex.hasher).symmetric(ex.symmetric);
    // ZING's count picks states out of the stored ones: partial-order reduction stores others
    if m.program.keep_completed && !ex.tx.enabled && !ex.por {
        ex.zing = Some(zing_count::ZingCount::default());
    }
    if opts.bfs {
        ex.bfs();
    } else {
        ex.dfs();
    }
    ex.result.stats.states = ex.visited.len() as u64;
    ex.result.stats.zing_states = ex.zing.map(|z| z.states);
    ex.result.stats.elapsed = ex.watch.elapsed();
    if opts.transactions {
        ex.result.stats.counters = vec![
            ("transactions summarized", ex.tx.summarized),
            ("transaction summaries reused", ex.tx.reused),
            ("roots in transactions", ex.tx.roots),
        ];
    }
    if ex.atomic_interior || ex.por {
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
    if let Some(b) = ex.visited.table_bytes() {
        ex.result
            .stats
            .counters
            .push(("visited-table bytes", b as u64));
    }
    ex.result
}

/// The context-switch bookkeeping of a search node: the thread that moved last and the
/// switches used so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ctx {
    last: u32,
    used: u32,
    /// Cooperative mode: the process that must go on (FRESH: any may run).
    hold: u32,
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
    };
}

/// Whether `s` is a deadlock: every thread is blocked at a `select` and at least one of those
/// selects is not marked `end`.
pub fn deadlocked(m: &Machine, s: &State) -> bool {
    if s.threads.is_empty() {
        return false;
    }
    let mut invalid = false;
    for t in 0..s.threads.len() {
        if s.threads[t].stack.is_empty() {
            // a completed Zing process
            continue;
        }
        match m.blocked(s, t) {
            None => return false,
            Some(end) => invalid |= !end,
        }
    }
    invalid
}

/// A node of the depth-first path. Its state and its pending outcomes are kept (`live`) near
/// the top of the stack and at every [`CHECKPOINT`]-th depth; deeper down they are dropped, and
/// re-executed from the checkpoint below (by the choices `via`) when the search backs up to
/// them. So a deep search costs a few dozen bytes per path node, not a state's.
///
/// A node's successors are all stored in the visited set when the node is first expanded,
/// not one by one as the search descends into them: their table slots are then fetched
/// together, and on large tables, where nearly every lookup misses the cache and the TLB,
/// the misses overlap instead of costing one full memory round trip per transition. A
/// successor stored this way and met again inside an earlier sibling's subtree is not
/// explored there: it is explored once, from the node that stored it.
///
/// An entry is 32 bytes: searches millions of steps deep keep one per step.
struct Entry {
    /// The choice that led here ([`NO_CHOICE`] at the bottom).
    via: Choice,
    /// While the node's outcomes are not in `live`: which of them (by position in the node's
    /// list of outcomes) are still to be taken, a bit each below [`MASK_BITS`]; with `spilled`,
    /// the positions are in [`Pending::spill`] instead.
    pending: u64,
    live: Option<Box<Live>>,
    /// The node's successors have not been stored yet (it was never expanded).
    fresh: bool,
    spilled: bool,
    /// The node's outcomes are a new chunk of a wide step ([`CHUNK`]): its successors are to
    /// be stored as a fresh node's are (the node's own checks were made with its first chunk).
    next_chunk: bool,
    /// The node's own state is not stored yet: it is stored once its successors have been
    /// computed (see [`Explorer::settle`]), and the node is dropped if it was known.
    unchecked: bool,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 32);

/// How many outcome positions [`Entry::pending`] holds.
const MASK_BITS: usize = 64;

/// The most outcomes of one thread's step that a depth-first path node lists at once. A
/// wider step (a parallel assignment of 24 `*`: 2^24 outcomes) is taken chunk by chunk, each
/// stored in the visited set when it is listed, so the node never holds the whole list.
const CHUNK: usize = crate::runtime::OUTCOME_WINDOW;

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

/// No choice: the bottom of the path.
const NO_CHOICE: Choice = Choice {
    thread: u32::MAX,
    outcome: u32::MAX,
};

/// What the search knows of a pending outcome besides the outcome itself.
#[derive(Clone, Copy)]
struct Key {
    /// With plain hash compaction, the fingerprint of the outcome's state (if `keyed`).
    fp: u64,
    /// Whether `fp` is the state's fingerprint (plain hash compaction, and a successor state).
    keyed: bool,
    /// Whether `fp` came from the parent's canon (so the state shares its numbering).
    shared: bool,
    /// The state is not stored yet: the search goes on to it unchecked.
    deferred: bool,
    /// For a move, its fingerprint as [`SegmentHasher::successor_move`] gave it.
    moved: Option<MoveFp>,
    /// The context bookkeeping of the outcome's state.
    ctx: Ctx,
    /// The state is strictly inside an atomic region and is not stored at all.
    interior: bool,
}

const NO_KEY: Key = Key {
    fp: 0,
    keyed: false,
    shared: false,
    deferred: false,
    moved: None,
    ctx: Ctx::START,
    interior: false,
};

/// The part of a path node that can be rebuilt.
struct Live {
    state: State,
    /// The node's outcomes, once `ready`; those before `next` were taken, and taken,
    /// already visited or cut ones are [`Outcome::Pruned`].
    outs: Succs,
    /// Per outcome, its key.
    keys: Vec<Key>,
    next: usize,
    /// `outs` holds the node's outcomes (otherwise they are to be computed: stored in the
    /// visited set if the entry is fresh, else rebuilt from the entry's pending positions).
    ready: bool,
    /// With plain hash compaction, the state's fingerprint and numbering.
    canon: Option<Canon>,
    ctx: Ctx,
    /// For a wide node ([`CHUNK`]) only, where its chunks stand (boxed: nearly every node
    /// has none, and this keeps the path node small).
    chunks: Option<Box<Chunks>>,
}

/// Where a wide node's current chunk of outcomes began (`None`: at the start) and where the
/// next begins. A wide node keeps its state and outcomes (it is never dropped), so these are
/// never lost.
#[derive(Default)]
struct Chunks {
    from: Option<Resume>,
    more: Option<Resume>,
}

impl Live {
    /// Whether the node's outcomes come in chunks.
    fn wide(&self) -> bool {
        self.chunks.is_some()
    }
}

/// A popped path node's lists, kept for reuse.
type Spare = Vec<(Succs, Vec<Key>)>;

/// The pending positions of path nodes with more outcomes than [`MASK_BITS`], by depth.
#[derive(Default)]
struct Pending {
    spill: ahash::AHashMap<usize, Vec<u32>>,
}

impl Pending {
    /// Whether a node whose outcomes were dropped has any still to take.
    fn has_any(&self, e: &Entry, depth: usize) -> bool {
        if e.spilled {
            self.spill.get(&depth).is_some_and(|p| !p.is_empty())
        } else {
            e.pending != 0
        }
    }
}

/// Path nodes whose depth is a multiple of this keep their state.
const CHECKPOINT: usize = 64;
/// The top path nodes that keep their state.
const WINDOW: usize = 64;

/// What to do with a newly stored state.
enum Arrive {
    Expand,
    Skip,
    Stop,
}

impl Explorer<'_, '_> {
    fn count_zing(&mut self, s: &State, initial: bool) {
        if let Some(z) = &mut self.zing {
            z.add(self.m, s, initial);
        }
    }

    /// Whether states are keyed by segmented fingerprints alone (see [`crate::canon::Canon`]).
    fn segmented(&self) -> bool {
        self.plain_keys && matches!(self.visited, Visited::Fingerprints(_))
    }

    /// The canon of a state about to be expanded, for its successors' fingerprints.
    fn canon_of(&mut self, s: &State) -> Option<Canon> {
        self.segmented().then(|| self.hasher.canon(s))
    }

    /// Stores a state (with its context bookkeeping under a context bound); true if new.
    fn visit(&mut self, s: &State, ctx: Ctx) -> bool {
        if let (true, Visited::Fingerprints(table)) = (self.plain_keys, &mut self.visited) {
            return table.insert(self.hasher.full(s));
        }
        self.buf.clear();
        if self.symmetric {
            self.encoder.encode_symmetric(s, &self.dead, &mut self.buf);
        } else {
            self.encoder.encode_masked(s, &self.dead, &mut self.buf);
        }
        if self.opts.contexts.is_some() {
            self.buf.extend_from_slice(&ctx.last.to_le_bytes());
            self.buf.extend_from_slice(&ctx.used.to_le_bytes());
        }
        if self.opts.cooperative {
            self.buf.extend_from_slice(&ctx.hold.to_le_bytes());
        }
        self.visited.insert(&self.buf)
    }

    /// The bookkeeping after `choice` led from `parent` to a state by a step of `kind`; `None`
    /// if the step exceeds the context bound.
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
        let Some(bound) = self.opts.contexts else {
            return Some(next);
        };
        match ctx.last {
            FRESH => {
                next.last = t;
                next.used = 0;
            }
            last if last == t => {}
            _ => {
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

    /// The outcomes of every thread that may move in `s`, in the search's order, built, from
    /// `from` on (see [`Explorer::step_threads`]) and at most [`Explorer::chunk`] of one
    /// thread's; [`Explorer::more`] then says where they go on.
    fn successors_from(&mut self, s: &State, ctx: Ctx, from: Option<Resume>) -> Succs {
        let mut out = Vec::new();
        self.step_threads(s, ctx, &mut out, from, |_, out, first| {
            for (_, o) in &mut out[first..] {
                o.materialize(s);
            }
        });
        out
    }

    /// Appends the outcomes of every thread that may move in `s` to `out`, in the search's
    /// order (only the atomic owner while there is one; in cooperative mode the running
    /// process alone unless it is blocked), calling `then` after each thread with the
    /// position of its first outcome. A thread's step with more than [`Explorer::chunk`]
    /// outcomes stops the list there, and [`Explorer::more`] says where it goes on: `from`
    /// such a point, the same expansion continues (that thread's next outcomes, then the
    /// threads after it if every thread was expanded).
    fn step_threads(
        &mut self,
        s: &State,
        ctx: Ctx,
        out: &mut Succs,
        from: Option<Resume>,
        mut then: impl FnMut(&mut Self, &mut Succs, usize),
    ) {
        let owner = s.atomic_owner();
        self.more = None;
        if let Some(r) = from {
            self.ran_alone = false;
            self.chained = 0;
            self.expands_all = r.all && owner.is_none();
            let last = if r.all {
                s.threads.len()
            } else {
                r.tid as usize + 1
            };
            for tid in r.tid as usize..last {
                let skip = if tid == r.tid as usize { r.skip } else { 0 };
                let first = out.len();
                let more = self.steps_of(s, tid, out, skip);
                then(self, out, first);
                if more {
                    self.more = Some(r.next(tid, skip, self.chunk));
                    return;
                }
            }
            return;
        }
        self.expands_all = false;
        if let (None, true) = (owner, (ctx.hold as usize) < s.threads.len()) {
            // cooperative: the running process goes on unless it is blocked
            let first = out.len();
            let tid = ctx.hold as usize;
            let more = self.steps_of(s, tid, out, 0);
            if out.len() > first {
                if more {
                    self.more = Some(Resume::only(tid, 0).next(tid, 0, self.chunk));
                }
                then(self, out, first);
                return;
            }
        }
        self.ran_alone = false;
        self.chained = 0;
        if owner.is_none() && self.por {
            // a persistent set of one thread: the first whose next step is private and has a
            // successor (a step that cannot go on, such as a false `assume`, would otherwise
            // stop every other thread too; a wide step whose first chunk has none counts as
            // one that cannot, which only expands more threads)
            for tid in 0..s.threads.len() {
                if !self.m.may_run_alone(s, tid) {
                    continue;
                }
                let first = out.len();
                let more = self.steps_of(s, tid, out, 0);
                let goes_on = out[first..]
                    .iter()
                    .any(|(_, o)| matches!(o, Outcome::Next { .. } | Outcome::Moved { .. }));
                if goes_on {
                    self.ran_alone = true;
                    if more {
                        self.more = Some(Resume::only(tid, 0).next(tid, 0, self.chunk));
                    }
                    then(self, out, first);
                    return;
                }
                out.truncate(first);
            }
        }
        let runnable = match owner {
            Some(o) => o..o + 1,
            None => 0..s.threads.len(),
        };
        self.expands_all = owner.is_none();
        for tid in runnable {
            let first = out.len();
            let more = self.steps_of(s, tid, out, 0);
            then(self, out, first);
            if more {
                // with an atomic owner, no thread follows it
                let r = Resume {
                    tid: tid as u32,
                    skip: 0,
                    all: owner.is_none(),
                };
                self.more = Some(r.next(tid, 0, self.chunk));
                return;
            }
        }
    }

    /// Appends thread `tid`'s outcomes from position `skip` on, at most [`Explorer::chunk`] of
    /// them; true when more follow.
    fn steps_of(&mut self, s: &State, tid: usize, out: &mut Succs, skip: u64) -> bool {
        if self.tx.enabled && self.transactional(s, tid) {
            self.touched = None;
            self.summarized_call(s, tid, out);
            return false;
        }
        self.scratch.clear();
        let touched = self.touched.get_or_insert_with(Touched::default);
        touched.addrs.clear();
        let mut more = false;
        if self.chunk == usize::MAX {
            self.m.step_moves(s, tid, touched, &mut self.scratch);
        } else {
            let take = self.chunk as u64 + 1;
            self.m
                .step_moves_window(s, tid, touched, &mut self.scratch, skip, take);
            if self.scratch.len() > self.chunk {
                self.scratch.truncate(self.chunk);
                more = true;
            }
        }
        if self.scratch.is_empty() && skip == 0 && self.m.creation_blocked(s, tid) {
            self.result.thread_cut = true;
        }
        let lone = skip == 0 && !more && self.scratch.len() == 1;
        if (self.atomic_interior || self.por) && lone {
            if let Some(chained) = self.chain(s, tid) {
                out.push(chained);
                return false;
            }
        }
        if skip + self.scratch.len() as u64 > u64::from(reduce::MAX_OUTCOMES) {
            // a path cannot name these outcomes: the step is beyond what the search can take
            self.scratch.clear();
            self.result.limit = Some(Limit::States);
            return false;
        }
        let base = skip as u32;
        for (k, o) in self.scratch.drain(..).enumerate() {
            out.push((
                Choice {
                    thread: tid as u32,
                    outcome: base + k as u32,
                },
                o,
            ));
        }
        more
    }

    /// Whether thread `tid` is at a call that runs as one transaction: the callee cannot start
    /// or end a thread or an atomic region, and either the thread is inside an atomic region,
    /// or it is the only thread and the callee can neither block nor yield, or the callee runs
    /// only private steps (both-movers: no other thread can tell when they ran).
    fn transactional(&self, s: &State, tid: usize) -> bool {
        let t = &s.threads[tid];
        let Some(f) = t.stack.top() else {
            return false;
        };
        let Stmt::Call { callee, .. } = &self.m.program.node(f.proc, f.pc).stmt else {
            return false;
        };
        let c = *callee as usize;
        let alone = s.threads.iter().filter(|t| !t.stack.is_empty()).count() == 1;
        !self.tx.spawns[c]
            && (t.atomic || (alone && !self.tx.blocks[c]) || self.m.private_call(*callee))
    }

    /// The successors of a transactional call: per outcome of the call, the callee's summary
    /// (computed once per matching visible state) applied to the caller.
    fn summarized_call(&mut self, s: &State, tid: usize, out: &mut Succs) {
        self.scratch.clear();
        self.m.step(s, tid, &mut (), &mut self.scratch);
        let calls: Vec<Outcome> = self.scratch.drain(..).collect();
        for (k, o) in calls.into_iter().enumerate() {
            let choice = Choice {
                thread: tid as u32,
                outcome: k as u32,
            };
            let Outcome::Next { state: s2, kind } = o else {
                out.push((choice, o));
                continue;
            };
            if kind != Kind::Call {
                out.push((choice, Outcome::Next { state: s2, kind }));
                continue;
            }
            let visible = crate::summary::visible_of(&s2, tid);
            let Some((tx, map)) = self.transaction(&visible) else {
                return;
            };
            if tx.finding.is_some() {
                let c = self.macro_step(tid, k, &tx, None);
                out.push((c, Outcome::Violation(crate::runtime::Violation::Assertion)));
            }
            for j in 0..tx.effects.len() {
                if let Some(o2) = tx.apply(self.m, j, &map, &s2, tid) {
                    let c = self.macro_step(tid, k, &tx, Some(j));
                    out.push((c, o2));
                }
            }
        }
    }

    fn macro_step(
        &mut self,
        tid: usize,
        call: usize,
        tx: &std::rc::Rc<Transaction>,
        effect: Option<usize>,
    ) -> Choice {
        self.tx.macros.push(Macro {
            thread: tid as u32,
            call: call as u32,
            tx: tx.clone(),
            effect,
        });
        Choice {
            thread: tid as u32,
            outcome: MACRO | (self.tx.macros.len() as u32 - 1),
        }
    }

    /// The transaction summary for a callee's visible state, reused when one matches.
    fn transaction(
        &mut self,
        visible: &State,
    ) -> Option<(std::rc::Rc<Transaction>, crate::summary::AddrMap)> {
        let shape = crate::summary::transaction_shape(visible);
        if let Some(cands) = self.tx.cache.get(&shape) {
            for t in cands {
                if let Some(map) = t.matches(self.m, visible) {
                    self.tx.reused += 1;
                    return Some((t.clone(), map));
                }
            }
        }
        match Transaction::summarize(self.m, self.opts, visible.clone()) {
            Ok(t) => {
                self.tx.summarized += 1;
                self.tx.roots += t.roots;
                let t = std::rc::Rc::new(t);
                let map = t.matches(self.m, visible)?;
                self.tx.cache.entry(shape).or_default().push(t.clone());
                Some((t, map))
            }
            Err(l) => {
                self.result.limit = Some(l);
                None
            }
        }
    }

    /// A path with its macro steps expanded into the steps they stand for.
    fn expand(&self, p: Path) -> Path {
        let mut choices = Vec::with_capacity(p.choices.len());
        for c in p.choices {
            if c.outcome & MACRO == 0 {
                // a chained transaction: its first choice, then the lone outcome of each step
                let (first, extra) = split_chain(c);
                choices.push(Choice {
                    thread: c.thread,
                    outcome: first,
                });
                choices.extend((0..extra).map(|_| Choice {
                    thread: c.thread,
                    outcome: 0,
                }));
                continue;
            }
            let mac = &self.tx.macros[(c.outcome & !MACRO) as usize];
            choices.push(Choice {
                thread: mac.thread,
                outcome: mac.call,
            });
            let inner: &[Choice] = match mac.effect {
                Some(j) => &mac.tx.effects[j].1,
                None => mac.tx.finding.as_ref().map_or(&[], |f| &f.path().choices),
            };
            choices.extend(inner.iter().map(|i| Choice {
                thread: mac.thread,
                outcome: i.outcome,
            }));
        }
        Path {
            init: p.init,
            choices,
        }
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
                    Finding::Assertion { .. } | Finding::Deadlock { .. } => {
                        Finding::Assertion { path }
                    }
                };
            }
        }
        Finding::of_violation(v, path)
    }

    /// Whether no thread can move and some thread is blocked at a select not marked `end`
    /// (zing-language.md §6.5).
    fn deadlocked(&self, s: &State) -> bool {
        deadlocked(self.m, s)
    }

    /// Records a finding (macro steps expanded); returns true if the search should stop.
    fn found(&mut self, f: Finding, key: (u8, u32, u32)) -> bool {
        if self.seen_errors.insert(key) {
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

    fn assertion_key(s: &State, c: Choice) -> (u8, u32, u32) {
        let f = s.threads[c.thread as usize].stack.top();
        (0, f.map_or(0, |f| f.proc), f.map_or(0, |f| f.pc))
    }

    /// Computes a live node's outcomes: every one, stored in the visited set (a fresh node),
    /// or only those at the entry's pending positions (a node rebuilt after its outcomes were
    /// dropped).
    ///
    /// A fresh node's successors are only fingerprinted here, and their table slots asked
    /// for; [`Explorer::settle`] stores them. The node's own checks run in between, while the
    /// slots arrive.
    fn fill(&mut self, e: &mut Entry, depth: usize, pending: &mut Pending) {
        let live = e.live.as_deref_mut().expect("a filled node is live");
        debug_assert!(!live.ready);
        live.outs.clear();
        live.keys.clear();
        live.next = 0;
        live.ready = true;
        let keep = if e.fresh || e.next_chunk {
            None
        } else if e.spilled {
            e.spilled = false;
            let spilled = pending
                .spill
                .remove(&depth)
                .expect("spilled positions are kept");
            Some(Keep::Positions(spilled))
        } else {
            Some(Keep::Mask(e.pending))
        };
        let state = &live.state;
        let outs = &mut live.outs;
        let keys = &mut live.keys;
        let canon = live.canon.as_ref();
        let from = live.chunks.as_ref().and_then(|c| c.from);
        self.step_threads(state, live.ctx, outs, from, |ex, outs, first| {
            if let Some(keep) = &keep {
                for (i, (_, o)) in outs.iter_mut().enumerate().skip(first) {
                    if !keep.has(i) {
                        *o = Outcome::Pruned;
                    }
                }
            }
            ex.fingerprints(state, canon, &mut outs[first..], keys);
        });
        match (self.more.take(), &mut live.chunks) {
            (None, None) => {}
            (more, Some(c)) => c.more = more,
            (more, chunks) => *chunks = Some(Box::new(Chunks { from: None, more })),
        }
        if e.fresh {
            self.expanded_alone += self.ran_alone as u64;
            self.interior_skipped += self.chained;
        }
        if e.fresh || e.next_chunk {
            // every successor's table slot is asked for before any is looked up
            if let Visited::Fingerprints(table) = &self.visited {
                for k in keys.iter().filter(|k| k.keyed) {
                    table.prefetch(k.fp);
                }
            }
        }
    }

    /// Completes [`Explorer::fill`]: the context bookkeeping of each outcome (cutting those
    /// beyond the bound), and for a fresh node, storing its successors (those already
    /// visited become [`Outcome::Pruned`]).
    fn settle(&mut self, e: &mut Entry) {
        let live = e.live.as_deref_mut().expect("a settled node is live");
        let wide = live.wide();
        let (state, outs, keys) = (&live.state, &mut live.outs, &mut live.keys);
        let storing = e.fresh || e.next_chunk;
        for ((c, o), k) in outs.iter_mut().zip(keys.iter_mut()) {
            let kind = match o {
                Outcome::Pruned => continue,
                Outcome::Violation(_) => Kind::Internal,
                Outcome::Next { kind, .. } | Outcome::Moved { kind, .. } => {
                    if storing {
                        self.result.stats.transitions += 1;
                    }
                    *kind
                }
            };
            match self.advance(state, live.ctx, *c, kind) {
                Some(ctx) => k.ctx = ctx,
                None => *o = Outcome::Pruned,
            }
        }
        if !storing {
            return;
        }
        e.fresh = false;
        e.next_chunk = false;
        if self.atomic_interior || self.por {
            // states inside a transaction are not stored: the search runs on through them (a
            // wide step is a choice, whatever a chunk of it holds)
            for (((c, o), k), b) in outs.iter().zip(keys.iter_mut()).zip(Self::branching(outs)) {
                if self.interior(state, c.thread, o, b || wide) {
                    k.interior = true;
                    self.interior_skipped += 1;
                }
            }
        }
        // A lone successor that stays inside an atomic region is nearly always new (only a
        // step that forgets a value can lead two states to it). It is not looked up now: the
        // search goes on to it and stores it once its own successors are computed, so that
        // the lookup's memory latency overlaps that work; if it was known after all, that
        // work is dropped.
        let mut left = outs
            .iter()
            .enumerate()
            .filter(|(_, (_, o))| !matches!(o, Outcome::Pruned));
        if let (Some((i, (_, Outcome::Moved { mv, .. }))), None) = (left.next(), left.next()) {
            if mv.atomic && keys[i].keyed && !keys[i].interior {
                keys[i].deferred = true;
                return;
            }
        }
        for ((_, o), k) in outs.iter_mut().zip(keys.iter()) {
            if k.interior {
                continue;
            }
            let new = match (&*o, &mut self.visited) {
                (Outcome::Pruned | Outcome::Violation(_), _) => continue,
                (_, Visited::Fingerprints(table)) if k.keyed => table.insert(k.fp),
                (Outcome::Next { state, .. }, _) => self.visit(state, k.ctx),
                (Outcome::Moved { .. }, _) => unreachable!("unkeyed successors are built"),
            };
            if !new {
                *o = Outcome::Pruned;
                continue;
            }
            if let Some(l) = self.watch.check(self.visited.len() as u64) {
                self.result.limit = Some(l);
                return;
            }
        }
    }

    /// Appends the keys of `outs` (outcomes of `parent`, whose canon is `canon`) to `keys`:
    /// with plain hash compaction, their states' fingerprints, from the parent's when the
    /// step allows.
    fn fingerprints(
        &mut self,
        parent: &State,
        canon: Option<&Canon>,
        outs: &mut [(Choice, Outcome)],
        keys: &mut Vec<Key>,
    ) {
        let segmented = self.segmented();
        for (_, o) in outs {
            if let Outcome::Moved { mv, .. } = o {
                // a move is fingerprinted as it is, if it can be
                let inc = canon
                    .filter(|_| segmented)
                    .and_then(|c| self.hasher.successor_move(parent, c, mv));
                if let Some(m) = inc {
                    if self.opts.check_fingerprints {
                        let whole = self.hasher.full(&mv.clone().apply(parent));
                        assert_eq!(m.fp, whole, "fingerprint of a move");
                    }
                    keys.push(Key {
                        fp: m.fp,
                        keyed: true,
                        shared: true,
                        deferred: false,
                        moved: Some(m),
                        ctx: Ctx::START,
                        interior: false,
                    });
                    continue;
                }
                o.materialize(parent);
            }
            let key = match o {
                Outcome::Next { state, .. } if segmented => {
                    let touched = self.touched.as_ref().map(|t| &t.addrs[..]);
                    let inc = canon.and_then(|c| self.hasher.successor(parent, c, state, touched));
                    let fp = inc.unwrap_or_else(|| self.hasher.full(state));
                    if self.opts.check_fingerprints && inc.is_some() {
                        assert_eq!(fp, self.hasher.full(state), "incremental fingerprint");
                    }
                    Key {
                        fp,
                        keyed: true,
                        shared: inc.is_some(),
                        deferred: false,
                        moved: None,
                        ctx: Ctx::START,
                        interior: false,
                    }
                }
                _ => NO_KEY,
            };
            keys.push(key);
        }
    }

    /// Rebuilds the path nodes above the last live one, up to the top, by re-executing their
    /// choices; their outcomes are rebuilt when each becomes the top.
    fn restore(&mut self, stack: &mut Chunked<Entry>, spare: &mut Spare) {
        let top = stack.len() - 1;
        let base = (0..top)
            .rev()
            .find(|&i| stack[i].live.is_some())
            .expect("the bottom of the stack is live");
        for k in base + 1..=top {
            let c = stack[k].via;
            let parent = &stack[k - 1].live.as_ref().expect("restored in order").state;
            let mut touched = Touched::default();
            let (state, kind) = self.rerun(parent, c, &mut touched);
            let parent = stack[k - 1].live.as_ref().expect("restored in order");
            let ctx = self
                .advance(&parent.state, parent.ctx, c, kind)
                .expect("a choice on the stack stays within the context bound");
            // the state's numbering is its parent's unless the step moved a reference
            let canon = match &parent.canon {
                Some(c) => {
                    match self
                        .hasher
                        .successor(&parent.state, c, &state, Some(&touched.addrs))
                    {
                        Some(fp) => {
                            if self.opts.check_fingerprints {
                                assert_eq!(fp, self.hasher.full(&state), "restored fingerprint");
                            }
                            Some(c.successor(fp))
                        }
                        None => self.canon_of(&state),
                    }
                }
                None => None,
            };
            stack[k].live = Some(Self::live(spare, state, canon, ctx));
        }
    }

    /// A path node's live part for `state`, with reused lists if there are some.
    fn live(spare: &mut Spare, state: State, canon: Option<Canon>, ctx: Ctx) -> Box<Live> {
        let (outs, keys) = spare.pop().unwrap_or_default();
        Box::new(Live {
            state,
            outs,
            keys,
            next: 0,
            ready: false,
            canon,
            ctx,
            chunks: None,
        })
    }

    /// Drops a path node's outcomes (and, unless `keep_state`, its state), remembering which
    /// are still pending and keeping the lists for reuse. The outcomes are whole states,
    /// several times the node's own memory; [`Explorer::fill`] rebuilds them when the search
    /// comes back to the node.
    fn drop_outcomes(
        spare: &mut Spare,
        pending: &mut Pending,
        e: &mut Entry,
        depth: usize,
        keep_state: bool,
    ) {
        let Some(live) = e.live.as_deref_mut() else {
            return;
        };
        if live.wide() {
            // its outcomes are one chunk, and where it stands in its step is kept with them
            return;
        }
        if live.ready {
            // a fresh node has none yet; a node that is not ready has dropped them already
            let left = live
                .outs
                .iter()
                .enumerate()
                .skip(live.next)
                .filter(|(_, (_, o))| !matches!(o, Outcome::Pruned))
                .map(|(i, _)| i as u32);
            if live.outs.len() <= MASK_BITS {
                e.pending = left.fold(0, |m, i| m | 1 << i);
            } else {
                e.spilled = true;
                pending.spill.insert(depth, left.collect());
            }
            live.ready = false;
            let outs = std::mem::take(&mut live.outs);
            let keys = std::mem::take(&mut live.keys);
            Self::keep_lists(spare, outs, keys);
        }
        if !keep_state {
            e.live = None;
        }
    }

    /// Keeps a popped node's lists for reuse.
    fn recycle(spare: &mut Spare, live: Live) {
        Self::keep_lists(spare, live.outs, live.keys);
    }

    /// Pops the top path node, keeping its lists for reuse.
    fn pop(stack: &mut Chunked<Entry>, spare: &mut Spare) {
        if let Some(Entry {
            live: Some(live), ..
        }) = stack.pop()
        {
            Self::recycle(spare, *live);
        }
    }

    fn keep_lists(spare: &mut Spare, mut outs: Succs, mut keys: Vec<Key>) {
        if spare.len() < 64 {
            outs.clear();
            keys.clear();
            spare.push((outs, keys));
        }
    }

    /// Depth-first search (see [`Entry`] for what the stack keeps).
    fn dfs(&mut self) {
        let m = self.m;
        // transaction summaries are applied by macro steps that do not re-execute by index
        let window = if self.tx.enabled { usize::MAX } else { WINDOW };
        // and nodes take a wide step's outcomes chunk by chunk
        self.chunk = if self.tx.enabled { usize::MAX } else { CHUNK };
        // the lists of popped or dropped path nodes, reused
        let mut spare: Spare = Vec::new();
        let mut pending = Pending::default();
        for (init, s0) in InitialStates::new(m) {
            if !self.visit(&s0, Ctx::START) {
                continue;
            }
            self.result.stats.initial_states += 1;
            let path_of = |stack: &Chunked<Entry>, last: Option<Choice>| Path {
                init: init.clone(),
                choices: stack
                    .iter()
                    .map(|e| e.via)
                    .filter(|&c| c != NO_CHOICE)
                    .chain(last)
                    .collect(),
            };
            let canon = self.canon_of(&s0);
            let mut stack = Chunked::default();
            stack.push(Entry {
                via: NO_CHOICE,
                pending: 0,
                live: Some(Self::live(&mut spare, s0, canon, Ctx::START)),
                fresh: true,
                spilled: false,
                next_chunk: false,
                unchecked: false,
            });
            while let Some(depth) = stack.len().checked_sub(1) {
                let e = &stack[depth];
                if !e.fresh
                    && !e.next_chunk
                    && !e.live.as_deref().is_some_and(|l| l.ready)
                    && !pending.has_any(e, depth)
                {
                    // a dropped node with nothing left to take: popped without rebuilding
                    if e.spilled {
                        pending.spill.remove(&depth);
                    }
                    Self::pop(&mut stack, &mut spare);
                    continue;
                }
                if stack[depth].live.is_none() {
                    self.restore(&mut stack, &mut spare);
                }
                if !stack[depth].live.as_deref().is_some_and(|l| l.ready) {
                    self.fill(&mut stack[depth], depth, &mut pending);
                    if stack[depth].unchecked {
                        // the state itself is stored now that its successors are computed
                        stack[depth].unchecked = false;
                        let Visited::Fingerprints(table) = &mut self.visited else {
                            unreachable!("only fingerprinted states are deferred");
                        };
                        let fp = stack[depth]
                            .live
                            .as_deref()
                            .and_then(|l| l.canon.as_ref())
                            .expect("a deferred state has its canon")
                            .fp;
                        if !table.insert(fp) {
                            Self::pop(&mut stack, &mut spare);
                            continue;
                        }
                        if let Some(l) = self.watch.check(self.visited.len() as u64) {
                            self.result.limit = Some(l);
                            return;
                        }
                    }
                    if stack[depth].fresh {
                        // the state's own checks, while its successors' slots arrive
                        let state = &stack[depth].live.as_deref().expect("filled").state;
                        self.count_zing(state, depth == 0);
                        let arrived = self.arrive(state, || path_of(&stack, None));
                        match arrived {
                            Arrive::Stop => return,
                            Arrive::Skip => {
                                Self::pop(&mut stack, &mut spare);
                                continue;
                            }
                            Arrive::Expand => {
                                let path = &mut self.result.stats.max_path;
                                *path = (*path).max(depth as u64 + 1);
                            }
                        }
                    }
                    self.settle(&mut stack[depth]);
                    if self.result.limit.is_some() {
                        return;
                    }
                }
                let top = &mut stack[depth];
                let live = top
                    .live
                    .as_deref_mut()
                    .expect("the top of the stack is live");
                while live
                    .outs
                    .get(live.next)
                    .is_some_and(|(_, o)| matches!(o, Outcome::Pruned))
                {
                    live.next += 1;
                }
                let i = live.next;
                if i >= live.outs.len() {
                    if let Some(c) = live.chunks.as_deref_mut().filter(|c| c.more.is_some()) {
                        // a wide step's next chunk of outcomes
                        c.from = c.more.take();
                        live.ready = false;
                        stack[depth].next_chunk = true;
                        continue;
                    }
                    Self::pop(&mut stack, &mut spare);
                    continue;
                }
                live.next += 1;
                let (choice, outcome) = std::mem::replace(
                    &mut live.outs[i],
                    (
                        Choice {
                            thread: 0,
                            outcome: 0,
                        },
                        Outcome::Pruned,
                    ),
                );
                let key = live.keys[i];
                let parent = &live.state;
                let state = match outcome {
                    Outcome::Pruned => unreachable!("pruned outcomes are skipped"),
                    Outcome::Violation(v) => {
                        let key = Self::assertion_key(parent, choice);
                        let f = self.violation_finding(v, choice, path_of(&stack, Some(choice)));
                        if self.found(f, key) {
                            return;
                        }
                        continue;
                    }
                    Outcome::Next { state, .. } => state,
                    Outcome::Moved { mv, .. } => mv.apply(parent),
                };
                let shared = match (key.shared, &live.canon, key.moved) {
                    (true, Some(c), Some(m)) => Some(c.moved(m)),
                    (true, Some(c), None) => Some(c.successor(key.fp)),
                    _ => None,
                };
                let canon = shared.or_else(|| self.canon_of(&state));
                stack.push(Entry {
                    via: choice,
                    pending: 0,
                    live: Some(Self::live(&mut spare, state, canon, key.ctx)),
                    fresh: true,
                    spilled: false,
                    next_chunk: false,
                    unchecked: key.deferred,
                });
                let len = stack.len();
                if len > window {
                    let d = len - 1 - window;
                    let keep_state = d % CHECKPOINT == 0;
                    let e = &mut stack[d];
                    Self::drop_outcomes(&mut spare, &mut pending, e, d, keep_state);
                }
            }
        }
    }
}

/// Which outcome positions of a rebuilt path node are still pending.
enum Keep {
    Mask(u64),
    Positions(Vec<u32>),
}

impl Keep {
    fn has(&self, i: usize) -> bool {
        match self {
            Keep::Mask(m) => i < MASK_BITS && m >> i & 1 == 1,
            Keep::Positions(p) => p.binary_search(&(i as u32)).is_ok(),
        }
    }
}

impl Explorer<'_, '_> {
    fn bfs(&mut self) {
        enum Link {
            Root(u32),
            Child(u32, Choice),
        }
        let m = self.m;
        // no path node is re-executed here, so transaction summaries do not stop chunking
        self.chunk = CHUNK;
        let mut inits: Vec<Vec<Value>> = Vec::new();
        let mut tree: Vec<Link> = Vec::new();
        let mut queue: Levels<(State, Ctx, u32, u64)> = Levels::default();
        let path_to = |inits: &[Vec<Value>], tree: &[Link], mut node: u32, last: Option<Choice>| {
            let mut choices: Vec<Choice> = last.into_iter().collect();
            loop {
                match tree[node as usize] {
                    Link::Root(i) => {
                        choices.reverse();
                        return Path {
                            init: inits[i as usize].clone(),
                            choices,
                        };
                    }
                    Link::Child(p, c) => {
                        choices.push(c);
                        node = p;
                    }
                }
            }
        };
        for (init, s0) in InitialStates::new(m) {
            if !self.visit(&s0, Ctx::START) {
                continue;
            }
            self.count_zing(&s0, true);
            self.result.stats.initial_states += 1;
            inits.push(init);
            tree.push(Link::Root(inits.len() as u32 - 1));
            let node = tree.len() as u32 - 1;
            match self.arrive(&s0, || path_to(&inits, &tree, node, None)) {
                Arrive::Stop => return,
                Arrive::Skip => {}
                Arrive::Expand => queue.push(0, (s0, Ctx::START, node, 0), false),
            }
            if let Some(l) = self.watch.check(self.visited.len() as u64) {
                self.result.limit = Some(l);
                return;
            }
        }
        while let Some((s, ctx, node, level)) = queue.pop() {
            // a level whose successors are all known stores nothing: look at the watchdog here
            if let Some(l) = limits::watchdog::stopped() {
                self.result.limit = Some(l);
                return;
            }
            self.result.stats.max_path = self.result.stats.max_path.max(level);
            // a wide step's outcomes come a window at a time, each stored as it comes
            let mut from = None;
            let mut wide = false;
            loop {
                let succs = self.successors_from(&s, ctx, from);
                let more = self.more.take();
                wide |= more.is_some();
                if self.result.limit.is_some() {
                    return;
                }
                let interior: Vec<bool> = succs
                    .iter()
                    .zip(Self::branching(&succs))
                    .map(|((c, o), b)| self.interior(&s, c.thread, o, b || wide))
                    .collect();
                for ((choice, outcome), interior) in succs.into_iter().zip(interior) {
                    match outcome {
                        Outcome::Pruned => {}
                        Outcome::Moved { .. } => unreachable!("successors() builds every state"),
                        Outcome::Violation(v) => {
                            if self.advance(&s, ctx, choice, Kind::Internal).is_none() {
                                continue;
                            }
                            let key = Self::assertion_key(&s, choice);
                            let f = self.violation_finding(
                                v,
                                choice,
                                path_to(&inits, &tree, node, Some(choice)),
                            );
                            if self.found(f, key) {
                                return;
                            }
                        }
                        Outcome::Next { state, kind } => {
                            self.result.stats.transitions += 1;
                            let Some(ctx) = self.advance(&s, ctx, choice, kind) else {
                                continue;
                            };
                            if interior {
                                // inside a transaction: not stored, the search runs on
                                self.interior_skipped += 1;
                            } else if !self.visit(&state, ctx) {
                                continue;
                            } else {
                                self.count_zing(&state, false);
                            }
                            if let Some(l) = self.watch.check(self.visited.len() as u64) {
                                self.result.limit = Some(l);
                                return;
                            }
                            tree.push(Link::Child(node, choice));
                            let child = tree.len() as u32 - 1;
                            match self.arrive(&state, || path_to(&inits, &tree, child, None)) {
                                Arrive::Stop => return,
                                Arrive::Skip => {}
                                Arrive::Expand => {
                                    let cost = self.cost(&s, choice);
                                    let next = level + cost;
                                    queue.push(next, (state, ctx, child, next), cost == 0);
                                }
                            }
                        }
                    }
                }
                match more {
                    Some(r) => from = Some(r),
                    None => break,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Semantics;

    fn program(text: &str) -> zingrs_lang::ir::Program {
        zingrs_lang::compile("t.zing", text, zingrs_lang::Lang::Zing)
            .expect("the generated model compiles")
            .program
    }

    /// The default (depth-first) search and the breadth-first one.
    fn dfs_and_bfs(m: &Machine) -> (SearchResult, SearchResult) {
        let bfs = Options {
            bfs: true,
            ..Default::default()
        };
        (search(m, &Options::default()), search(m, &bfs))
    }

    /// Paths far deeper than the window of live path nodes: depth-first search rebuilds the
    /// dropped states from checkpoints and must find what breadth-first search finds.
    #[test]
    fn deep_searches_rebuild_dropped_states_exactly() {
        let p = program(&crate::gen::families::philosophers(5, true));
        let m = Machine::new(&p, Semantics::default());
        let (dfs, bfs) = dfs_and_bfs(&m);
        assert!(dfs.findings.is_empty() && bfs.findings.is_empty());
        assert!(dfs.stats.max_path > (WINDOW + 4 * CHECKPOINT) as u64);
        assert_eq!(dfs.stats.states, bfs.stats.states);
        assert_eq!(dfs.stats.transitions, bfs.stats.transitions);
        // whole canonical forms, and keys with the context bookkeeping: no fingerprints are
        // computed ahead
        let exact = search(
            &m,
            &Options {
                exact: true,
                ..Default::default()
            },
        );
        assert!(exact.stats.max_path > (WINDOW + 4 * CHECKPOINT) as u64);
        assert_eq!(exact.stats.states, bfs.stats.states);
        let bounded = |bfs| Options {
            bfs,
            contexts: Some(3),
            ..Default::default()
        };
        let dfs = search(&m, &bounded(false));
        let bfs = search(&m, &bounded(true));
        assert_eq!(dfs.stats.states, bfs.stats.states);
        let cooperative = |bfs| Options {
            bfs,
            cooperative: true,
            ..Default::default()
        };
        // a process that yields often, for long cooperative paths
        let p = program(
            "class Main {
                static int x;
                activate static void a() {
                    int i = 0;
                    while (i < 3000) { i = i + 1; yield; }
                }
                activate static void b() {
                    while (x < 3) { x = x + 1; yield; }
                }
            };",
        );
        let m = Machine::new(&p, Semantics::default());
        let dfs = search(&m, &cooperative(false));
        let bfs = search(&m, &cooperative(true));
        assert!(
            dfs.stats.max_path > (WINDOW + 4 * CHECKPOINT) as u64,
            "{}",
            dfs.stats.max_path
        );
        assert_eq!(dfs.stats.states, bfs.stats.states);
    }

    /// A node with more outcomes than [`Entry::pending`] has bits, dropped while some are
    /// still pending (each outcome starts a path far deeper than the window): the positions
    /// spill to the side map and every outcome is still explored once.
    #[test]
    fn wide_nodes_dropped_deep_down_keep_their_pending_outcomes() {
        let p = program(
            "range R 0 .. 99;
            class Main {
                static int x;
                activate static void main() {
                    int i = 0;
                    x = choose(R);
                    while (i < 200) { i = i + 1; }
                    x = choose(R);
                    while (i < 400) { i = i + 1; }
                }
            };",
        );
        let m = Machine::new(&p, Semantics::default());
        let (dfs, bfs) = dfs_and_bfs(&m);
        assert!(dfs.stats.max_path > (WINDOW + 4 * CHECKPOINT) as u64);
        assert!(dfs.stats.states > 100 * 400, "{}", dfs.stats.states);
        assert_eq!(dfs.stats.states, bfs.stats.states);
        assert_eq!(dfs.stats.transitions, bfs.stats.transitions);
    }

    /// Lone successors inside atomic regions are stored only after their own successors are
    /// computed; one that was known already (two choices met again) must be dropped with
    /// that work, and the search must store what breadth-first search stores.
    #[test]
    fn deferred_successors_that_were_known_are_dropped() {
        let p = program(
            "class Main {
                static int x;
                static bool b;
                activate static void a() {
                    while (x < 3) {
                        atomic { b = choose(bool); b = false; x = x + 1; }
                    }
                }
                activate static void c() {
                    while (x < 3) {
                        atomic { b = choose(bool); b = false; x = x + 1; }
                    }
                }
            };",
        );
        let m = Machine::new(&p, Semantics::default());
        let (dfs, bfs) = dfs_and_bfs(&m);
        assert!(dfs.findings.is_empty() && bfs.findings.is_empty());
        assert_eq!(dfs.stats.states, bfs.stats.states);
        assert_eq!(dfs.stats.transitions, bfs.stats.transitions);
        assert_eq!(dfs.stats.zing_states, bfs.stats.zing_states);
    }

    #[test]
    fn a_deep_deadlock_path_replays() {
        let p = program(&crate::gen::families::philosophers(5, false));
        let m = Machine::new(&p, Semantics::default());
        let r = search(
            &m,
            &Options {
                keep_going: true,
                ..Default::default()
            },
        );
        let Some(Finding::Deadlock { path }) = r.findings.first() else {
            panic!("philosophers deadlock: {:?}", r.findings);
        };
        assert!(path.choices.len() > WINDOW + CHECKPOINT);
        let end = replay(&m, path).expect("the path replays");
        assert!(deadlocked(&m, end.states.last().expect("a state")));
    }
}
