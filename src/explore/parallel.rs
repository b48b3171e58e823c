//! The depth-first search on several workers (`--workers N`).
//!
//! Every worker runs the ordinary depth-first search ([`Explorer::dfs`]) over one visited set
//! that all of them share ([`crate::canon::SharedVisited`]): a state stored by one is known to
//! all, so each state is expanded once, by whichever worker stored it. The set of stored
//! states does not depend on which worker stores what: every reduction decides a state's
//! successors from the state alone (the cycle proviso is static, interior states are a
//! property of the step), so the count is the single worker's at any number of workers.
//!
//! Work moves as copies of states ([`Portable`]: states share their parts through `Rc` and
//! never leave their worker), as [`Task`]s in one [`Pool`] that every worker takes from, the
//! last left first. A task comes about in two ways:
//!
//! - *At the depth bound, before anyone waits.* A worker that is more than
//!   [`ExplicitOptions::handoff_depth`] (default [`crate::explore::HANDOFF_DEPTH`], 1,000)
//!   steps below the root of its task, and sees fewer tasks in the pool than there are
//!   workers, leaves the successor it was about to descend into (stored already, as every
//!   successor is when its parent is expanded) as a task instead, and goes on with the
//!   siblings. So a worker that runs out of work nearly always finds a task waiting, instead
//!   of waiting for a busy worker to notice it (SPIN's multi-core DFS hands states off at a
//!   depth bound too, always; here only while the pool is short: leaving every successor at
//!   the bound as a task turned philosophers-ordered 9 unreduced, 7.6 M states, into a
//!   million tasks and 10 GB of copies). The bound keeps a worker that just took a task from
//!   handing its first steps straight back.
//! - *On demand.* A worker that finds the pool empty waits in it; a busy one that sees it
//!   waiting (one relaxed load per step) hands over work from the lowest node on its stack
//!   that has some (`dfs/handover.rs`): half of the node's pending outcome positions with a
//!   copy of its state, or half of its open successors, one task each. This is what splits
//!   searches shallower than the bound.
//!
//! A task's path, for counterexamples, is a [`Trail`]: the trail of the task it came from and
//! the single steps since (macro steps and chained transactions expanded: they index the
//! giver's summaries). A search 350 K steps deep is then hundreds of tasks each holding its
//! own stretch, shared by the tasks handed from the same stack through marks every 256 path
//! nodes, and the whole path is put together for a finding only (and, under the search's
//! self-check, to re-execute each task's path and compare with its copy).
//!
//! Termination: a worker goes idle only with an empty stack and an empty pool, under the
//! pool's lock; when every worker is idle and the pool is empty no worker can hand anything
//! over any more, and the search is over. The first finding (without `--keep-going`) or
//! limit stops every worker; the finding's path is a path like any other and is replayed as
//! a single worker's would be. One worker (`--workers 1`) runs no pool and never hands
//! anything off: the single-threaded search in its own order.

use super::{Ctx, ExplicitOptions, Explorer};
use crate::canon::{SharedVisited, Visited};
use crate::runtime::{Machine, Portable, Value};
use crate::search::{Choice, Options, Path, SearchResult, WorkerStats};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The path from an initial valuation to the root of a task, for counterexamples: the path
/// to the root of the task it came from (`parent`), then the single steps taken since
/// (macro steps and chained transactions expanded). A search 350 K steps deep splits into
/// hundreds of tasks, and each keeps only its own stretch of the path; the whole path is
/// put together for a finding only ([`Trail::path`]).
pub(super) struct Trail {
    parent: Option<Arc<Trail>>,
    /// The initial valuation (the first trail's only; empty in the others).
    init: Vec<Value>,
    choices: Vec<Choice>,
    /// The steps from the initial valuation to the end of `choices`.
    len: usize,
}

impl Trail {
    /// The trail of a search from an initial state.
    pub fn start(init: Vec<Value>) -> Arc<Trail> {
        Arc::new(Trail {
            parent: None,
            init,
            choices: Vec::new(),
            len: 0,
        })
    }

    /// The trail of `parent` followed by `choices` (single steps).
    pub fn then(parent: &Arc<Trail>, choices: Vec<Choice>) -> Arc<Trail> {
        Arc::new(Trail {
            parent: Some(parent.clone()),
            init: Vec::new(),
            len: parent.len + choices.len(),
            choices,
        })
    }

    /// The number of steps from the initial valuation.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The whole path.
    pub fn path(&self) -> Path {
        let mut parts = vec![self];
        while let Some(p) = parts.last().and_then(|t| t.parent.as_deref()) {
            parts.push(p);
        }
        let mut choices = Vec::with_capacity(self.len);
        for t in parts.iter().rev() {
            choices.extend_from_slice(&t.choices);
        }
        Path {
            init: parts.last().map_or_else(Vec::new, |t| t.init.clone()),
            choices,
        }
    }
}

impl Drop for Trail {
    /// Drops a long chain of trails one link at a time, not recursively.
    fn drop(&mut self) {
        let mut next = self.parent.take();
        while let Some(p) = next {
            next = match Arc::try_unwrap(p) {
                Ok(mut t) => t.parent.take(),
                Err(_) => None,
            };
        }
    }
}

/// A state handed over: the state itself, the path from an initial valuation that reaches
/// it (for counterexamples), its context bookkeeping, and whether it is still to be stored
/// (a deferred lone successor).
pub(super) struct Task {
    pub state: Portable,
    pub trail: Arc<Trail>,
    pub ctx: Ctx,
    pub unchecked: bool,
    /// A node of the giver's stack with its outcomes dropped: the positions of those still
    /// to take (the path then reaches the node, not one of its successors).
    pub positions: Option<u64>,
    /// With `positions`: the order in which the giver listed the node's outcomes (`None`:
    /// the program's), which the positions refer to ([`Explorer::listing_order`]).
    pub order: Option<crate::search::swarm::Rng>,
}

/// What one worker gave, took and waited.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct WorkerCounts {
    pub states: u64,
    pub given: u64,
    pub taken: u64,
    /// Successors left in the pool at the depth bound ([`ExplicitOptions::handoff_depth`]).
    pub handed_off: u64,
    pub idle: Duration,
    pub cpu: Option<Duration>,
}

struct Shared {
    tasks: Vec<Task>,
    idle: usize,
    done: bool,
}

/// Where idle workers wait for work and busy ones leave it.
pub(super) struct Pool {
    workers: usize,
    shared: Mutex<Shared>,
    wake: Condvar,
    /// Idle workers without a task waiting for them: a busy worker hands one over when it
    /// sees this above 0 (one relaxed load per expanded state).
    hungry: AtomicUsize,
    /// The tasks waiting in `shared` (read without the lock).
    queued: AtomicUsize,
    stop: AtomicBool,
    first: AtomicBool,
    /// The errors found so far (`--keep-going` reports each once, whichever worker saw it).
    seen: Mutex<ahash::AHashSet<(u8, u32, u32)>>,
}

impl Pool {
    fn new(workers: usize) -> Pool {
        Pool {
            workers,
            shared: Mutex::new(Shared {
                tasks: Vec::new(),
                idle: 0,
                done: false,
            }),
            wake: Condvar::new(),
            hungry: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            first: AtomicBool::new(false),
            seen: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    #[inline]
    pub fn hungry(&self) -> bool {
        self.hungry.load(Relaxed) > 0
    }

    /// Ends the search for every worker (a finding, a limit).
    pub fn stop(&self) {
        self.stop.store(true, Relaxed);
        let mut g = self.lock();
        g.done = true;
        self.wake.notify_all();
    }

    /// Whether this is the search's first finding (without `--keep-going`, the one
    /// reported).
    pub fn claim_first(&self) -> bool {
        !self.first.swap(true, Relaxed)
    }

    /// Whether the error `key` is seen for the first time by any worker.
    pub fn first_sight(&self, key: (u8, u32, u32)) -> bool {
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key)
    }

    /// Whether fewer tasks wait than there are workers: a worker deep enough below the
    /// root of its own task then leaves its next successor as a task.
    #[inline]
    pub fn short(&self) -> bool {
        self.queued.load(Relaxed) < self.workers
    }

    fn update_hungry(&self, g: &Shared) {
        self.queued.store(g.tasks.len(), Relaxed);
        self.hungry
            .store(g.idle.saturating_sub(g.tasks.len()), Relaxed);
    }

    /// Leaves a task for any worker (the last left is the first taken).
    pub fn give(&self, task: Task) {
        let mut g = self.lock();
        g.tasks.push(task);
        self.update_hungry(&g);
        if g.idle > 0 {
            self.wake.notify_one();
        }
    }

    /// The next task for a worker whose own search is over; `None` when the whole search is
    /// (every worker idle and nothing left, or a stop).
    pub fn take(&self) -> Option<Task> {
        let mut g = self.lock();
        g.idle += 1;
        loop {
            if g.done || self.stopped() {
                return None;
            }
            if let Some(t) = g.tasks.pop() {
                g.idle -= 1;
                self.update_hungry(&g);
                return Some(t);
            }
            if g.idle == self.workers {
                g.done = true;
                self.hungry.store(0, Relaxed);
                self.wake.notify_all();
                return None;
            }
            self.update_hungry(&g);
            g = self.wake.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Explorer<'_, '_> {
    /// Waits for a task, counting the time idle.
    pub(super) fn take_task(&mut self) -> Option<Task> {
        let t = Instant::now();
        let task = self.pool.as_ref().and_then(|p| p.take());
        self.parallel.idle += t.elapsed();
        task
    }
}

/// The depth-first search of `m`'s program on `how.workers` workers.
pub(super) fn search(m: &Machine, opts: &Options, how: &ExplicitOptions) -> SearchResult {
    let workers = how.workers;
    let shared = Arc::new(SharedVisited::new(how.exact, workers));
    let pool = Arc::new(Pool::new(workers));
    let start = Instant::now();
    let results: Vec<(SearchResult, WorkerCounts)> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let visited = Visited::shared(shared.clone(), w, opts.limits.max_states);
                let pool = pool.clone();
                std::thread::Builder::new()
                    .name(format!("zingrs-worker-{w}"))
                    .stack_size(crate::search::WORKER_STACK)
                    .spawn_scoped(sc, move || {
                        // a worker that panics stops the others (which would otherwise wait
                        // for it in the pool forever); the panic goes on to the caller
                        let stop = pool.clone();
                        let salt = how.swarm.salt();
                        let run = std::panic::AssertUnwindSafe(move || {
                            crate::canon::salted(salt, || {
                                let mut ex = Explorer::new(m, opts, how, visited, Some(pool));
                                if w > 0 {
                                    // one progress line, the first worker's
                                    ex.watch = crate::search::Watch::new(&crate::search::Limits {
                                        progress: false,
                                        ..opts.limits.clone()
                                    });
                                }
                                let cpu = crate::limits::thread_cpu_time();
                                ex.dfs();
                                let mut counts = ex.parallel;
                                counts.states = ex.visited.own() as u64;
                                counts.cpu = cpu
                                    .zip(crate::limits::thread_cpu_time())
                                    .map(|(a, b)| b - a);
                                (ex.finish(), counts)
                            })
                        });
                        std::panic::catch_unwind(run).unwrap_or_else(|e| {
                            stop.stop();
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
    merge(results, &shared, start.elapsed())
}

/// One result from the workers': findings in the order the workers stopped, counters
/// summed, the states counted once in the shared set.
pub(super) fn merge(
    results: Vec<(SearchResult, WorkerCounts)>,
    shared: &SharedVisited,
    elapsed: Duration,
) -> SearchResult {
    let mut out = SearchResult::default();
    let mut counters: Vec<(&'static str, u64)> = Vec::new();
    let mut zing: Option<u64> = None;
    for (r, counts) in results {
        out.findings.extend(r.findings);
        out.cut |= r.cut;
        out.context_cut |= r.context_cut;
        out.thread_cut |= r.thread_cut;
        out.limit = out.limit.or(r.limit);
        let s = r.stats;
        out.stats.transitions += s.transitions;
        out.stats.initial_states += s.initial_states;
        out.stats.max_stack = out.stats.max_stack.max(s.max_stack);
        out.stats.max_path = out.stats.max_path.max(s.max_path);
        if let Some(z) = s.zing_states {
            zing = Some(zing.unwrap_or(0) + z);
        }
        for (name, v) in s.counters {
            if name == "visited-table bytes" {
                continue;
            }
            match counters.iter_mut().find(|(n, _)| *n == name) {
                Some((_, total)) => *total += v,
                None => counters.push((name, v)),
            }
        }
        out.stats.workers.push(WorkerStats {
            states: counts.states,
            given: counts.given,
            taken: counts.taken,
            handed_off: counts.handed_off,
            idle: counts.idle,
            cpu: counts.cpu,
        });
    }
    if let Some(b) = shared.table_bytes() {
        counters.push(("visited-table bytes", b as u64));
    }
    out.stats.counters = counters;
    out.stats.zing_states = zing;
    out.stats.states = shared.len() as u64;
    out.stats.elapsed = elapsed;
    out
}
