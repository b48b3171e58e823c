//! The breadth-first search on several workers (`--bfs --workers N`): level-synchronous over
//! one shared visited set ([`crate::canon::SharedVisited`]).
//!
//! Every worker keeps the states it stored (they share their parts through `Rc` and stay
//! with their worker) in queues by level, and its own part of the search tree (a node's
//! parent may be another worker's node). A round expands one level: each worker expands its
//! own states of that level, storing successors in the shared set (one compare-and-swap per
//! new fingerprint: a state is stored, linked and queued once, by whichever worker stored it
//! first) and queuing the new ones at their level. Then every worker waits at a barrier,
//! having written what it holds (its least level and the states queued there, and the least
//! finding it made); after it every worker reads all of that and takes the same decision:
//! stop (a finding, a limit), end (nothing queued anywhere), or the next level. Nothing
//! crosses between workers per state: no encoding, no copy, no lookup in a list of waiting
//! states (the distributed search's costs, `distributed/`), only the shared table's insert.
//!
//! Balance: a worker's successors stay with it, so the workers' shares of a level drift
//! apart. Where they differ by more than [`SLACK`] of the level, the workers that hold more
//! than their share move the surplus as copies ([`Portable`]) to those that hold less (the
//! same plan computed by every worker from the counts they all read), behind a second
//! barrier. On wide searches only a few per cent of the states move.
//!
//! Findings: a worker that finds an error (a violating step, or a stored successor at a
//! target label or deadlocked) notes it with a key (its path's length in single steps, the
//! fingerprint of the state it was found from or at, the choice, the kind) and finishes its
//! level. The search stops after the first level from which no shorter path can come (the
//! level itself, unless a chained transaction made the finding's step longer than one), and
//! the least key among all workers' findings is reported. So the counterexample is a
//! shortest one (never longer than the single worker's, which reports the first error of the
//! level it expands: a chained transaction's error found there may be longer than one found
//! from the next level), and which error is reported does not depend on timing or on the
//! number of workers (the path leading to its state is one of the shortest, whichever parent
//! stored it first). A limit (`--max-states`, `--timeout`, `--memory`, Ctrl-C) seen by one
//! worker stops all of them at their next state.
//!
//! `--workers 1` never comes here: the single-threaded search in its own order. Searches that
//! this does not cover run on one thread ([`applies`]): ZING's order (`--search zing`, whose
//! levels are ZING's steps and whose first error is ZING's first), cooperative scheduling
//! (its chained runs are queued level by level), `--keep-going`, `--seed` (the order within a
//! level is the seed's), and the summary engine's transactions.

use super::reduce::unchain;
use super::{Ctx, ExplicitOptions, Explorer};
use crate::canon::{Canon, SharedVisited, Visited};
use crate::runtime::{InitialStates, Machine, Outcome, Portable, State, Value};
use crate::search::{watchdog, Choice, Finding, Limit, Options, Path, SearchResult};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The share of a level by which the workers' parts may differ before states are moved to
/// balance them (and at least [`MIN_MOVE`] states).
const SLACK: f64 = 0.05;
/// Below this many states of difference, a level is never rebalanced.
const MIN_MOVE: usize = 32;

/// Whether the level-synchronous search on several workers applies to a search (else it
/// runs on one thread).
pub(super) fn applies(opts: &Options, how: &ExplicitOptions) -> bool {
    how.bfs
        && how.workers > 1
        && !how.zing_order
        && !opts.cooperative
        && !opts.keep_going
        && how.swarm.seed.is_none()
        && how.transactions.is_none()
        && how.bounding.is_none()
}

/// A node of some worker's part of the search tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct NodeRef {
    worker: u32,
    node: u32,
}

/// The worker of a [`Link`] whose node is an initial state (the node is then the index of
/// its valuation).
const ROOT: u32 = u32::MAX;

/// A node of the search tree: its parent and the choice taken there (or an initial state).
#[derive(Clone, Copy)]
struct Link {
    parent: NodeRef,
    choice: Choice,
}

/// A state queued for expansion, with its node.
struct Item {
    state: State,
    ctx: Ctx,
    node: NodeRef,
    canon: Option<Canon>,
}

/// A queued state moved to another worker to balance a level.
struct Moved {
    state: Portable,
    ctx: Ctx,
    node: NodeRef,
}

/// The order of findings: the path's length, the fingerprint of the state found from (a
/// violating step) or at (a target, a deadlock), the choice, the kind.
type Key = (u64, u64, u32, u32, (u8, u32, u32));

/// A finding (its path still empty) and where its path ends.
struct Candidate {
    key: Key,
    finding: Finding,
    at: NodeRef,
    last: Option<Choice>,
}

/// What a worker tells the others at the end of a round.
#[derive(Clone, Copy, Default)]
struct Slot {
    /// Its least queued level, and how many states wait there.
    next: Option<(u64, usize)>,
    /// The key of its least finding.
    best: Option<Key>,
    /// Whether it saw the search stopped (a limit) by the end of its round. Every worker
    /// decides to stop from the slots, which are the same for all, never from the shared
    /// flag after the barrier: a worker that read it late, once a faster one had passed the
    /// barrier and met a limit in the next level, returned alone, and the others waited for
    /// it at the next barrier forever.
    stopped: bool,
}

/// A barrier that a panicking worker can open for good (so the others do not wait for it).
struct Gate {
    workers: usize,
    state: Mutex<(usize, u64, bool)>,
    cv: Condvar,
}

impl Gate {
    /// Waits for every worker; false once the gate is broken.
    fn wait(&self) -> bool {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if g.2 {
            return false;
        }
        let generation = g.1;
        g.0 += 1;
        if g.0 == self.workers {
            g.0 = 0;
            g.1 += 1;
            self.cv.notify_all();
            return true;
        }
        while g.1 == generation && !g.2 {
            g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        !g.2
    }

    fn break_open(&self) {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        g.2 = true;
        self.cv.notify_all();
    }
}

/// What the workers share besides the visited set.
struct Shared {
    gate: Gate,
    /// Set by a worker that saw a limit (its code in `limit`).
    stop: AtomicBool,
    limit: AtomicU8,
    /// The workers' slots, by the parity of the round (a worker writes the next round's
    /// while a slower one may still read this one's).
    slots: [Mutex<Vec<Slot>>; 2],
    /// States moved to each worker.
    inbox: Vec<Mutex<Vec<Moved>>>,
}

impl Shared {
    fn stop_at(&self, l: Limit) {
        let _ = self.limit.compare_exchange(0, l.code(), Relaxed, Relaxed);
        self.stop.store(true, Relaxed);
    }
}

/// What a worker hands back: its result and counts, its part of the tree, the initial
/// valuations (the first worker's), its least finding.
struct Ended {
    result: SearchResult,
    counts: super::parallel::WorkerCounts,
    tree: Vec<Link>,
    inits: Vec<Vec<Value>>,
    best: Option<Candidate>,
}

/// One worker of the level-synchronous search.
struct Worker<'e, 'm, 'p> {
    ex: &'e mut Explorer<'m, 'p>,
    me: u32,
    shared: &'e Shared,
    tree: Vec<Link>,
    inits: Vec<Vec<Value>>,
    levels: BTreeMap<u64, Vec<Item>>,
    best: Option<Candidate>,
    given: u64,
    taken: u64,
    idle: Duration,
}

/// The breadth-first search of `m`'s program on `how.workers` workers.
pub(super) fn search(m: &Machine, opts: &Options, how: &ExplicitOptions) -> SearchResult {
    let workers = how.workers;
    let visited = Arc::new(SharedVisited::new(how.exact, workers));
    let shared = Shared {
        gate: Gate {
            workers,
            state: Mutex::new((0, 0, false)),
            cv: Condvar::new(),
        },
        stop: AtomicBool::new(false),
        limit: AtomicU8::new(0),
        slots: [
            Mutex::new(vec![Slot::default(); workers]),
            Mutex::new(vec![Slot::default(); workers]),
        ],
        inbox: (0..workers).map(|_| Mutex::default()).collect(),
    };
    let start = Instant::now();
    let ends: Vec<Ended> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let visited = Visited::shared(visited.clone(), w, opts.limits.max_states);
                let shared = &shared;
                std::thread::Builder::new()
                    .name(format!("zingrs-worker-{w}"))
                    .stack_size(crate::search::WORKER_STACK)
                    .spawn_scoped(sc, move || {
                        let salt = how.swarm.salt();
                        let run = std::panic::AssertUnwindSafe(move || {
                            crate::canon::salted(salt, || {
                                let mut ex = Explorer::new(m, opts, how, visited, None);
                                ex.chunk = crate::runtime::OUTCOME_WINDOW;
                                if w > 0 {
                                    // one progress line, the first worker's
                                    ex.watch = crate::search::Watch::new(&crate::search::Limits {
                                        progress: false,
                                        ..opts.limits.clone()
                                    });
                                }
                                let cpu = crate::limits::thread_cpu_time();
                                let mut wk = Worker {
                                    ex: &mut ex,
                                    me: w as u32,
                                    shared,
                                    tree: Vec::new(),
                                    inits: Vec::new(),
                                    levels: BTreeMap::new(),
                                    best: None,
                                    given: 0,
                                    taken: 0,
                                    idle: Duration::ZERO,
                                };
                                wk.run();
                                let Worker {
                                    tree,
                                    inits,
                                    best,
                                    given,
                                    taken,
                                    idle,
                                    ..
                                } = wk;
                                let counts = super::parallel::WorkerCounts {
                                    states: ex.visited.own() as u64,
                                    given,
                                    taken,
                                    handed_off: 0,
                                    idle,
                                    cpu: cpu
                                        .zip(crate::limits::thread_cpu_time())
                                        .map(|(a, b)| b - a),
                                };
                                Ended {
                                    result: ex.finish(),
                                    counts,
                                    tree,
                                    inits,
                                    best,
                                }
                            })
                        });
                        std::panic::catch_unwind(run).unwrap_or_else(|e| {
                            shared.gate.break_open();
                            std::panic::resume_unwind(e)
                        })
                    })
                    .expect("a worker thread")
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut trees = Vec::with_capacity(workers);
    let mut inits = Vec::new();
    let mut best: Option<Candidate> = None;
    let mut results = Vec::with_capacity(workers);
    for e in ends {
        trees.push(e.tree);
        if !e.inits.is_empty() {
            inits = e.inits;
        }
        if let Some(c) = e.best {
            if best.as_ref().is_none_or(|b| c.key < b.key) {
                best = Some(c);
            }
        }
        results.push((e.result, e.counts));
    }
    let mut out = super::parallel::merge(results, &visited, start.elapsed());
    out.findings.clear();
    out.limit = None;
    match best {
        Some(c) => {
            let path = path_to(&trees, &inits, c.at, c.last);
            out.findings.push(with_path(c.finding, path));
        }
        None => out.limit = Limit::from_code(shared.limit.load(Relaxed)),
    }
    out
}

/// The path from an initial valuation to node `at` (then the choice `last`), chained
/// transactions expanded into their single steps.
fn path_to(trees: &[Vec<Link>], inits: &[Vec<Value>], at: NodeRef, last: Option<Choice>) -> Path {
    let mut rev: Vec<Choice> = last.into_iter().collect();
    let mut at = at;
    loop {
        let link = trees[at.worker as usize][at.node as usize];
        if link.parent.worker == ROOT {
            let mut choices = Vec::with_capacity(rev.len());
            for &c in rev.iter().rev() {
                unchain(c, &mut choices);
            }
            return Path {
                init: inits[link.parent.node as usize].clone(),
                choices,
            };
        }
        rev.push(link.choice);
        at = link.parent;
    }
}

/// `f` with its path.
fn with_path(f: Finding, path: Path) -> Finding {
    match f {
        Finding::Assertion { .. } => Finding::Assertion { path },
        Finding::Runtime { error, .. } => Finding::Runtime { error, path },
        Finding::Target { label, .. } => Finding::Target { label, path },
        Finding::Deadlock { .. } => Finding::Deadlock { path },
        f @ Finding::Cycle { .. } => f,
    }
}

/// What a stored state is: one to expand, one not to (beyond the depth bound), or an error.
enum Arrival {
    Expand,
    Skip,
    Error(Finding, (u8, u32, u32)),
}

impl Worker<'_, '_, '_> {
    fn run(&mut self) {
        if self.me == 0 {
            self.initial();
        }
        let mut round = 0usize;
        loop {
            // what this worker holds, for every worker to read after the barrier
            let next = self.levels.iter().find(|(_, q)| !q.is_empty());
            let slot = Slot {
                next: next.map(|(&l, q)| (l, q.len())),
                best: self.best.as_ref().map(|c| c.key),
                stopped: self.shared.stop.load(Relaxed),
            };
            lock(&self.shared.slots[round & 1])[self.me as usize] = slot;
            if !self.wait() {
                return;
            }
            let slots = lock(&self.shared.slots[round & 1]).clone();
            round += 1;
            if slots.iter().any(|s| s.stopped) {
                return;
            }
            let Some(level) = slots.iter().filter_map(|s| s.next.map(|n| n.0)).min() else {
                return;
            };
            // a step from a state of this level or a later one makes a path at least one
            // longer: no shorter finding can come of them
            let shortest = slots.iter().filter_map(|s| s.best.map(|k| k.0)).min();
            if shortest.is_some_and(|len| level + 1 >= len) {
                return;
            }
            let counts: Vec<usize> = slots
                .iter()
                .map(|s| s.next.filter(|n| n.0 == level).map_or(0, |n| n.1))
                .collect();
            if self.balance(level, &counts) && !self.wait() {
                return;
            }
            self.receive(level);
            self.expand_level(level);
        }
    }

    fn wait(&mut self) -> bool {
        let t = Instant::now();
        let ok = self.shared.gate.wait();
        self.idle += t.elapsed();
        ok
    }

    /// Moves the surplus of `level`'s states to the workers that hold fewer than their share
    /// (every worker computes the same plan from the same `counts`); whether any move.
    fn balance(&mut self, level: u64, counts: &[usize]) -> bool {
        let total: usize = counts.iter().sum();
        let (lo, hi) = (
            counts.iter().min().copied().unwrap_or(0),
            counts.iter().max().copied().unwrap_or(0),
        );
        if hi - lo <= MIN_MOVE.max((total as f64 * SLACK) as usize) {
            return false;
        }
        let w = counts.len();
        let share = |i: usize| total / w + usize::from(i < total % w);
        // donors and takers matched in worker order
        let mut takers: Vec<(usize, usize)> = (0..w)
            .filter(|&i| counts[i] < share(i))
            .map(|i| (i, share(i) - counts[i]))
            .collect();
        let mut t = 0;
        for (i, &count) in counts.iter().enumerate() {
            let mut surplus = count.saturating_sub(share(i));
            while surplus > 0 && t < takers.len() {
                let n = surplus.min(takers[t].1);
                if i == self.me as usize {
                    self.give(level, takers[t].0, n);
                }
                surplus -= n;
                takers[t].1 -= n;
                if takers[t].1 == 0 {
                    t += 1;
                }
            }
        }
        true
    }

    /// Moves `n` of this worker's states of `level` to worker `to`.
    fn give(&mut self, level: u64, to: usize, n: usize) {
        let Some(q) = self.levels.get_mut(&level) else {
            return;
        };
        let moved: Vec<Moved> = q
            .drain(q.len().saturating_sub(n)..)
            .map(|i| Moved {
                state: Portable::of(&i.state),
                ctx: i.ctx,
                node: i.node,
            })
            .collect();
        self.given += moved.len() as u64;
        lock(&self.shared.inbox[to]).extend(moved);
    }

    /// Queues the states moved to this worker.
    fn receive(&mut self, level: u64) {
        let moved = std::mem::take(&mut *lock(&self.shared.inbox[self.me as usize]));
        if moved.is_empty() {
            return;
        }
        self.taken += moved.len() as u64;
        for mv in moved {
            let state = mv.state.state();
            let canon = self.ex.canon_of(&state);
            self.levels.entry(level).or_default().push(Item {
                state,
                ctx: mv.ctx,
                node: mv.node,
                canon,
            });
        }
    }

    /// Stores and queues the initial states (the first worker's).
    fn initial(&mut self) {
        let m = self.ex.m;
        for (init, s0) in InitialStates::new(m) {
            if !self.ex.visit(&s0, Ctx::START) {
                continue;
            }
            self.ex.count_zing(&s0, Ctx::START, true);
            self.ex.result.stats.initial_states += 1;
            self.inits.push(init);
            self.tree.push(Link {
                parent: NodeRef {
                    worker: ROOT,
                    node: self.inits.len() as u32 - 1,
                },
                choice: Choice {
                    thread: 0,
                    outcome: 0,
                },
            });
            let node = self.node();
            match self.check(&s0) {
                Arrival::Error(f, kind) => {
                    let fp = self.ex.hasher.full(&s0);
                    self.note((0, fp, u32::MAX, u32::MAX, kind), f, node, None);
                }
                Arrival::Skip => {}
                Arrival::Expand => {
                    let canon = self.ex.canon_of(&s0);
                    self.queue(0, s0, Ctx::START, node, canon);
                }
            }
            if let Some(l) = self.ex.watch.check(self.ex.visited.len() as u64) {
                self.shared.stop_at(l);
                return;
            }
        }
    }

    /// The node last linked into this worker's tree.
    fn node(&self) -> NodeRef {
        NodeRef {
            worker: self.me,
            node: self.tree.len() as u32 - 1,
        }
    }

    fn queue(&mut self, level: u64, state: State, ctx: Ctx, node: NodeRef, canon: Option<Canon>) {
        self.levels.entry(level).or_default().push(Item {
            state,
            ctx,
            node,
            canon,
        });
    }

    /// Keeps a finding if it is this worker's least.
    fn note(&mut self, key: Key, finding: Finding, at: NodeRef, last: Option<Choice>) {
        if self.best.as_ref().is_none_or(|b| key < b.key) {
            self.best = Some(Candidate {
                key,
                finding,
                at,
                last,
            });
        }
    }

    /// What a newly stored state is (as [`Explorer::arrive`] decides, the finding kept for
    /// the end of the level).
    fn check(&mut self, s: &State) -> Arrival {
        let ex = &mut *self.ex;
        let depth = Explorer::stack_depth(s);
        ex.result.stats.max_stack = ex.result.stats.max_stack.max(depth);
        if let Some(t) = ex.target(s) {
            let label = ex.opts.targets[t as usize].clone();
            let path = empty_path();
            return Arrival::Error(Finding::Target { label, path }, (1, t, 0));
        }
        if ex.deadlocked(s) {
            let path = empty_path();
            return Arrival::Error(Finding::Deadlock { path }, (3, 0, 0));
        }
        if depth > ex.opts.limits.max_depth {
            ex.result.cut = true;
            return Arrival::Skip;
        }
        Arrival::Expand
    }

    /// Expands this worker's states of `level`.
    fn expand_level(&mut self, level: u64) {
        let Some(items) = self.levels.remove(&level) else {
            return;
        };
        self.ex.result.stats.max_path = self.ex.result.stats.max_path.max(level);
        self.ex.watch.depth = level;
        for item in items {
            if self.shared.stop.load(Relaxed) {
                return;
            }
            if let Some(l) = watchdog::stopped() {
                self.shared.stop_at(l);
                return;
            }
            if !self.expand(item, level) {
                return;
            }
        }
    }

    /// Expands one state; false where a limit stops the search.
    fn expand(&mut self, item: Item, level: u64) -> bool {
        let Item {
            state: s,
            ctx,
            node,
            canon,
        } = item;
        // a wide step's outcomes come a window at a time, each stored as it comes
        let mut from = None;
        let mut wide = false;
        loop {
            let ex = &mut *self.ex;
            let (succs, more, window_wide) = ex.successor_window(&s, ctx, from, wide);
            wide = window_wide;
            if let Some(l) = ex.result.limit.take() {
                self.shared.stop_at(l);
                return false;
            }
            for ((choice, outcome), interior) in succs {
                match outcome {
                    Outcome::Pruned => {}
                    Outcome::Moved { .. } => unreachable!("successors() builds every state"),
                    Outcome::Violation(v) => {
                        if self
                            .ex
                            .advance(&s, ctx, choice, super::Kind::Internal)
                            .is_none()
                        {
                            continue;
                        }
                        let f = self.ex.violation_finding(v, choice, empty_path());
                        let kind = Explorer::violation_key(&s, choice, &f);
                        let len = level + self.ex.cost(&s, ctx.hold, choice);
                        let fp = self.ex.hasher.full(&s);
                        self.note(
                            (len, fp, choice.thread, choice.outcome, kind),
                            f,
                            node,
                            Some(choice),
                        );
                    }
                    Outcome::Next { state, kind } => {
                        self.ex.result.stats.transitions += 1;
                        let Some(cctx) = self.ex.advance(&s, ctx, choice, kind) else {
                            continue;
                        };
                        debug_assert!(self.ex.run_costs.is_empty(), "no cooperative runs here");
                        let ccanon = canon.as_ref().map(|c| self.ex.child_canon(&s, c, &state));
                        let cost = self.ex.cost(&s, ctx.hold, choice);
                        if interior {
                            // inside a transaction: not stored, the search runs on
                            self.ex.interior_skipped += 1;
                        } else if !self.ex.visit_keyed(&state, cctx, ccanon.as_ref()) {
                            continue;
                        } else {
                            self.ex.count_zing(&state, cctx, false);
                        }
                        if let Some(l) = self.ex.watch.check(self.ex.visited.len() as u64) {
                            self.shared.stop_at(l);
                            return false;
                        }
                        self.tree.push(Link {
                            parent: node,
                            choice,
                        });
                        let child = self.node();
                        match self.check(&state) {
                            Arrival::Error(f, kind) => {
                                let fp = self.ex.hasher.full(&state);
                                self.note(
                                    (level + cost, fp, u32::MAX, u32::MAX, kind),
                                    f,
                                    child,
                                    None,
                                );
                            }
                            Arrival::Skip => {}
                            Arrival::Expand => {
                                self.queue(level + cost, state, cctx, child, ccanon);
                            }
                        }
                    }
                }
            }
            match more {
                Some(r) => from = Some(r),
                None => return true,
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The path of a finding until [`path_to`] rebuilds it after the search.
fn empty_path() -> Path {
    Path {
        init: Vec::new(),
        choices: Vec::new(),
    }
}
