//! The depth-first search: a path of 32-byte entries whose states are rebuilt from
//! checkpoints, successors stored in the visited set a whole node at a time, wide steps
//! taken chunk by chunk.

use super::parallel::Trail;
use super::*;
use std::sync::Arc;

/// A node of the depth-first path. Its state and its pending outcomes are kept (`live`) near
/// the top of the stack, and its state at every [`CHECKPOINT`]-th depth and wherever a macro
/// step (a summarized call, which does not re-execute by its index) reached it; deeper down
/// they are dropped, and re-executed from the nearest node below that kept its state (by the
/// choices `via`) when the search backs up to them. So a deep search costs a few dozen bytes
/// per path node, not a state's.
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

impl Explorer<'_, '_> {
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
        // in an order of the search's own (`--seed`: `listing_order`) the outcomes are
        // permuted once listed, and the pending positions (which are positions in the
        // permuted list) are applied after that
        let order = self.listing_order(
            depth,
            e.via,
            canon.map_or(0, |c| c.fp),
            from.map_or(0, |r| r.skip),
        );
        let early = if order.is_none() { keep.as_ref() } else { None };
        self.step_threads(state, live.ctx, outs, from, |ex, outs, first| {
            if let Some(keep) = early {
                for (i, (_, o)) in outs.iter_mut().enumerate().skip(first) {
                    if !keep.has(i) {
                        *o = Outcome::Pruned;
                    }
                }
            }
            ex.fingerprints(state, canon, &mut outs[first..], keys);
        });
        if let Some(mut rng) = order {
            rng.shuffle_pair(outs, keys);
            if let Some(keep) = &keep {
                for (i, (_, o)) in outs.iter_mut().enumerate() {
                    if !keep.has(i) {
                        *o = Outcome::Pruned;
                    }
                }
            }
        }
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
            for k in keys.iter().filter(|k| k.keyed) {
                self.visited.prefetch(k.fp);
            }
        }
    }

    /// The order in which [`Explorer::fill`] lists the outcomes of path node `depth` (reached
    /// by `via`, its state's fingerprint `fp`, its chunks from `skip`): the program's order
    /// (`None`), or a permutation drawn from the generator returned, the same each time the
    /// node is listed again. A task's bottom node keeps the order of the worker that gave it
    /// when it carries that worker's pending positions ([`Explorer::root_order`]).
    pub(super) fn listing_order(
        &self,
        depth: usize,
        via: Choice,
        fp: u64,
        skip: u64,
    ) -> Option<crate::search::swarm::Rng> {
        if depth == 0 {
            if let Some(order) = &self.root_order {
                return order.clone();
            }
        }
        crate::search::swarm::node_order(
            self.order,
            &[
                depth as u64,
                u64::from(via.thread) << 32 | u64::from(via.outcome),
                fp,
                skip,
            ],
        )
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
        if self.atomic_interior || self.por || self.run_interior {
            // states inside a transaction are not stored: the search runs on through them (a
            // wide step is a choice, whatever a chunk of it holds)
            let any_order = self.order.map(|_| Self::branching_any_order(outs));
            let branching = Self::branching(outs).enumerate();
            for (((c, o), k), (i, b)) in outs.iter().zip(keys.iter_mut()).zip(branching) {
                let b = any_order.as_ref().map_or(b, |v| v[i]);
                if self.interior(state, live.ctx.hold, c.thread, o, b || wide) {
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
                (_, visited) if k.keyed => visited.insert_fp(k.fp),
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
                    if self.how.check_fingerprints {
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
                    if self.how.check_fingerprints && inc.is_some() {
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

    /// Depth-first search (see [`Entry`] for what the stack keeps): from every initial
    /// state, then, as a worker of a parallel search, from the states other workers hand over
    /// (`parallel.rs`).
    pub(super) fn dfs(&mut self) {
        let m = self.m;
        // nodes take a wide step's outcomes chunk by chunk, except where macro steps (call
        // summaries) are listed, which come whole
        self.chunk = if self.tx.enabled { usize::MAX } else { CHUNK };
        // the lists of popped or dropped path nodes, reused
        let mut spare: Spare = Vec::new();
        let mut pending = Pending::default();
        for (init, s0) in InitialStates::new(m) {
            if self.pool.as_ref().is_some_and(|p| p.stopped()) {
                return;
            }
            if !self.visit(&s0, Ctx::START) {
                continue;
            }
            self.result.stats.initial_states += 1;
            let canon = self.canon_of(&s0);
            let root = Self::root(Self::live(&mut spare, s0, canon, Ctx::START), false);
            let trail = Trail::start(init);
            if self.dfs_from(trail, root, &mut spare, &mut pending) {
                self.stop_pool();
                return;
            }
        }
        while let Some(task) = self.take_task() {
            let (trail, root) = self.rebuild(task, &mut spare);
            debug_assert!(self.root_order.is_none() || root.pending != 0);
            if self.dfs_from(trail, root, &mut spare, &mut pending) {
                self.stop_pool();
                return;
            }
        }
    }

    /// The bottom entry of a search from `live`'s state.
    fn root(live: Box<Live>, unchecked: bool) -> Entry {
        Entry {
            via: NO_CHOICE,
            pending: 0,
            live: Some(live),
            fresh: true,
            spilled: false,
            next_chunk: false,
            unchecked,
        }
    }

    /// The path to the top of `stack` (then `last`), whose bottom `trail` reaches.
    fn path_of(trail: &Trail, stack: &Chunked<Entry>, last: Option<Choice>) -> Path {
        let mut path = trail.path();
        path.choices.extend(
            stack
                .iter()
                .map(|e| e.via)
                .filter(|&c| c != NO_CHOICE)
                .chain(last),
        );
        path
    }

    /// Searches depth-first from `root`, a state that `trail` reaches, until its stack is
    /// empty; true when the whole search must stop (a finding, a limit, another worker's
    /// stop).
    ///
    /// As a worker of a parallel search, once [`ExplicitOptions::handoff_depth`] steps
    /// below `root`, it leaves the successor it would descend into (already stored, as every
    /// successor is when its parent is expanded) in the pool as a task for any worker
    /// whenever fewer tasks wait there than there are workers (`parallel.rs`).
    fn dfs_from(
        &mut self,
        trail: Arc<Trail>,
        root: Entry,
        spare: &mut Spare,
        pending: &mut Pending,
    ) -> bool {
        let mut stack = Chunked::default();
        stack.push(root);
        // the nodes below this have nothing to hand over (see `donate`); an iteration pushes
        // or pops at most one node, so the floor follows the stack down
        let mut floor = 0;
        let handoff = match self.pool {
            Some(_) => self.how.handoff_depth.unwrap_or(HANDOFF_DEPTH).max(1),
            None => usize::MAX,
        };
        let prefix = trail.len();
        let mut trails = handover::Trails {
            start: trail,
            marks: Vec::new(),
        };
        while let Some(depth) = stack.len().checked_sub(1) {
            if let Some(pool) = &self.pool {
                if pool.stopped() {
                    return true;
                }
                floor = floor.min(depth);
                trails.cut(depth);
                if pool.hungry() {
                    self.donate(&mut trails, &mut stack, &mut floor, spare, pending);
                }
            }
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
                Self::pop(&mut stack, spare);
                continue;
            }
            if stack[depth].live.is_none() {
                self.restore(&mut stack, spare);
            }
            if !stack[depth].live.as_deref().is_some_and(|l| l.ready) {
                self.fill(&mut stack[depth], depth, pending);
                if stack[depth].unchecked {
                    // the state itself is stored now that its successors are computed
                    stack[depth].unchecked = false;
                    let fp = stack[depth]
                        .live
                        .as_deref()
                        .and_then(|l| l.canon.as_ref())
                        .expect("a deferred state has its canon")
                        .fp;
                    if !self.visited.insert_fp(fp) {
                        Self::pop(&mut stack, spare);
                        continue;
                    }
                    if let Some(l) = self.watch.check(self.visited.len() as u64) {
                        self.result.limit = Some(l);
                        return true;
                    }
                }
                if stack[depth].fresh {
                    // the state's own checks, while its successors' slots arrive
                    let live = stack[depth].live.as_deref().expect("filled");
                    self.count_zing(&live.state, live.ctx, depth == 0 && prefix == 0);
                    let state = &live.state;
                    let arrived = self.arrive(state, || Self::path_of(&trails.start, &stack, None));
                    match arrived {
                        Arrive::Stop => return true,
                        Arrive::Skip => {
                            Self::pop(&mut stack, spare);
                            continue;
                        }
                        Arrive::Expand => {
                            let path = &mut self.result.stats.max_path;
                            *path = (*path).max((prefix + depth) as u64 + 1);
                        }
                    }
                }
                self.settle(&mut stack[depth]);
                if self.result.limit.is_some() {
                    return true;
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
                Self::pop(&mut stack, spare);
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
                    let at = Self::step_start(parent, choice);
                    let f = self.violation_finding(
                        v,
                        choice,
                        Self::path_of(&trails.start, &stack, Some(choice)),
                    );
                    let key = Self::with_kind(at, &f);
                    if self.found(f, key) {
                        return true;
                    }
                    continue;
                }
                Outcome::Next { state, .. } => state,
                Outcome::Moved { mv, .. } => mv.apply(parent),
            };
            if depth + 1 >= handoff && self.pool.as_ref().is_some_and(|p| p.short()) {
                // deep enough below the task's root, and few tasks left: a task for any
                // worker
                self.hand_off(&mut trails, &stack, choice, &state, key);
                continue;
            }
            let shared = match (key.shared, &live.canon, key.moved) {
                (true, Some(c), Some(m)) => Some(c.moved(m)),
                // a deep state's names may change with the step: found again
                (true, Some(c), None) if c.is_deep() => self
                    .hasher
                    .successor_canon(parent, c, &state, None)
                    .filter(|n| n.fp == key.fp),
                (true, Some(c), None) => Some(c.successor(key.fp)),
                _ => None,
            };
            let canon = shared.or_else(|| self.canon_of(&state));
            stack.push(Entry {
                via: choice,
                pending: 0,
                live: Some(Self::live(spare, state, canon, key.ctx)),
                fresh: true,
                spilled: false,
                next_chunk: false,
                unchecked: key.deferred,
            });
            let len = stack.len();
            self.watch.depth = (prefix + len) as u64;
            if len > WINDOW {
                let d = len - 1 - WINDOW;
                let e = &mut stack[d];
                let keep_state = Self::keeps_state(e, d);
                Self::drop_outcomes(spare, pending, e, d, keep_state);
            }
        }
        false
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

mod handover;
mod stack;
#[cfg(test)]
mod tests;
