//! The distributed breadth-first search (`check --processes N`): the explicit search's BFS
//! on every worker of every process, over timely dataflow's exchange channels.
//!
//! Ownership: a state belongs to one worker of all processes', picked by its fingerprint
//! (`Searcher::owner`); the owner keeps it in its shard of the visited set and keeps its
//! parent record (the worker and node of the state it came from, and the choice). Who
//! expands it is another matter. A successor for another worker's shard mostly stays with
//! the worker that reached it (the holder), which tells the owner of its fingerprint and
//! parent (`Msg::Claim`); once its level is settled, the owner asks one holder of a
//! new state to expand it (`Msg::Expand`), and the other holders drop their copies.
//! So a successor crosses as some 64 bytes, not as the state (about 200 bytes to encode,
//! copy and decode). Left alone, that would keep every state with the worker that reached
//! the first ones; so a worker that expands more than its share of a level sends that
//! surplus share of its successors to their owners whole instead (and every worker all of
//! them on a narrow level, `Cluster::narrow`, where the answer's round costs more than the
//! bytes), as bytes with its
//! fingerprint: its canon's numbering ([`Canon::numbering`]), so that the owner fingerprints
//! its successors from it without walking the state again, then the state
//! ([`crate::runtime::Portable::encode`]), which the owner decodes (if new) sharing the parts
//! of states it decoded before ([`crate::runtime::Decoded`]) and expands itself. States
//! inside a transaction (`--reduction`'s interior states, not stored) stay with the worker
//! that reached them.
//!
//! Rounds: every worker sends its messages of a round, and timely's progress tracking says
//! when all of them have arrived; then every worker knows every worker's `Status`, and all
//! take the same decision. A level of the BFS takes one or more rounds of at most
//! [`Cluster::batch`] states per worker (flow control: timely has none, so what is in
//! flight is bounded by that batch). A state that arrives is stored at once (the count),
//! but its parent record is settled only when the level before it is complete: the least
//! (level, parent fingerprint, choice) among its arrivals, so the stored tree, the path of
//! every state and the counterexample reported do not depend on timing or on the number of
//! processes. A held state is checked (a target, a deadlock, the depth bound) by its holder
//! as it is reached, while it is in the cache (the check of a state reached again is wasted,
//! but cheaper than a check of a state grown cold), and its finding, if it has one, is
//! offered when the owner's `Msg::Expand` comes, a round after its level is
//! settled; the decision waits that round out (`Status::notified`).
//!
//! Findings: checked where the step is taken (a violating step, or a successor that is an
//! error state), each with the key (path length, parent fingerprint, choice). The search
//! ends once every level shorter than the least key's length is complete: that finding is a
//! shortest counterexample, the same at any number of processes. Its path is rebuilt by
//! walking parent records back through their owners, one message a round, and every worker
//! gets it; each process then replays and reports it as a single-process check does.
//!
//! The files: this one holds a worker's search (its initial states, expanding a batch,
//! a state's arrival at its owner, settling a level); `crossing.rs` how a successor goes to
//! its owner (whole or claimed), what a worker keeps for the owners and the share it sends
//! whole; `wire.rs` the messages and a state's
//! bytes on the way to its owner; `rounds.rs` the round loop, the status every worker
//! sends and the decision all take, and the result summed over workers; `path.rs` the
//! parent records, the findings and the walk back of the counterexample's path; `net.rs`
//! the processes, their connections and timely.

mod crossing;
mod net;
mod path;
mod rounds;
mod wire;

pub use net::{Cluster, BATCH, CONNECT_TIMEOUT, DEFAULT_PORT, NARROW};

use super::{Ctx, ExplicitOptions, Explorer};
use crate::canon::{Canon, Visited};
use crate::runtime::{Kind as StepKind, Machine, Outcome, State, Value, Violation};
use crate::search::{watchdog, Choice, Limit, Options, Path, SearchResult};
use crossing::{Held, SentKey, Slot};
use path::{Candidate, Found, Link, NodeRef};
use rounds::{merge, Outcome2, Status};
use std::collections::{BTreeMap, VecDeque};
use wire::{decode_arrival, Msg, EXPAND_BYTES};

/// A state waiting for its level: its best parent so far and its body.
struct Pending {
    from: NodeRef,
    from_fp: u64,
    choice: Choice,
    body: Body,
}

/// The states waiting for one level: in the order they arrived (a state that has since moved
/// to a lower level leaves `None` behind), and where each is by its fingerprint. Kept apart
/// per level so that settling a level reads its states in turn and drops its index whole.
#[derive(Default)]
struct Waiting {
    index: ahash::AHashMap<u64, u32>,
    states: Vec<Option<Pending>>,
}

impl Waiting {
    fn push(&mut self, fp: u64, p: Pending) {
        self.index.insert(fp, self.states.len() as u32);
        self.states.push(Some(p));
    }
}

/// What a waiting state is: one to expand (with its canon if known), or an error state,
/// whose finding is made from the parent record it settles with.
enum Body {
    /// Reached here, or sent whole (decoded; its canon unless sent without).
    Wire(State, Option<Canon>),
    Error(Found),
    /// Kept by another worker, which claimed it ([`Msg::Claim`]).
    Held(Slot),
}

/// How a successor comes to its owner: as bytes, as itself (reached by the owner), or as a
/// claim of the worker that keeps it.
enum Arrival {
    Bytes(Vec<u8>),
    Local(State, Canon),
    Held(Slot),
}

/// A state queued for expansion, and its node among the parent records (at its owner: the
/// `from` of its successors).
struct Queued {
    state: State,
    at: NodeRef,
    canon: Canon,
}

/// One worker of the distributed search.
struct Searcher<'e, 'm, 'p> {
    ex: &'e mut Explorer<'m, 'p>,
    me: u32,
    peers: u32,
    batch: usize,
    /// [`Cluster::narrow`].
    narrow: u64,
    nodes: Vec<Link>,
    inits: Vec<Vec<Value>>,
    queue: BTreeMap<u64, VecDeque<Queued>>,
    /// The states waiting for their level to be settled, by level.
    waiting: BTreeMap<u64, Waiting>,
    /// The parts of the states received lately, shared by those received next.
    decoded: crate::runtime::Decoded,
    /// The bytes of the parts of the states sent lately, copied for those sent next.
    encoded: crate::runtime::Encoded,
    best: Option<Candidate>,
    limit: Option<Limit>,
    sent: u64,
    sent_bytes: u64,
    /// Successors not sent again: their owner had them from this worker with a parent at
    /// least as good.
    unsent: u64,
    /// The successors sent to their owners while expanding `sent_level`, by fingerprint:
    /// see [`Searcher::send`].
    sent_keys: ahash::AHashMap<u64, SentKey>,
    sent_level: u64,
    /// The least level sent this round.
    sent_min: Option<u64>,
    /// The successors this worker keeps for their owners, by the level they were first
    /// claimed at (the key of a [`Slot`]), in the order claimed; each taken when its owner
    /// asks, and the rest of a level dropped once it is settled.
    held: BTreeMap<u64, Vec<Option<Held>>>,
    /// Successors claimed (sent without their state), and the held states expanded here.
    claimed: u64,
    expanded_held: u64,
    /// The level settled last: once the round that carries the owners' requests for it is
    /// read, the held states of the levels below it that no owner asked for are dropped.
    drop_after: Option<u64>,
    /// This round carries [`Msg::Expand`] requests from this worker.
    notified: bool,
    /// The level being expanded and the states of it expanded here so far.
    at_level: (u64, u64),
    /// The share, out of 1024, of the successors for other workers sent whole this batch.
    whole: u64,
    walking: bool,
    path: Option<Path>,
    out: Vec<(u32, Msg)>,
    /// The last status of every worker.
    statuses: Vec<Status>,
    rounds: u64,
}

/// The distributed breadth-first search of `m`'s program: this process's part, on
/// `how.workers` workers; every process returns the same result (process 0 prints it).
pub fn search(
    m: &Machine,
    opts: &Options,
    how: &ExplicitOptions,
    cluster: &Cluster,
) -> Result<SearchResult, String> {
    let start = std::time::Instant::now();
    if how.zing_order {
        // its process steps may cost no level, and a level settled twice would break the
        // dropping of what workers keep for their owners (`Searcher::drop_held`)
        return Err("the distributed search does not follow ZING's order (--search zing)".into());
    }
    let model = {
        // the model and the options that decide the states stored and the findings
        let o = format!(
            "{}\u{0}{:?}\u{0}{:?}\u{0}{:?}\u{0}{}\u{0}{:?}\u{0}{}",
            m.program.source.text,
            opts.targets,
            how.reduction,
            how.symmetry,
            opts.limits.max_depth,
            m.semantics.thread_bound,
            m.semantics.check_assertions && m.semantics.deadlock
        );
        xxhash_rust::xxh3::xxh3_64(o.as_bytes())
    };
    // the workers own what they use: timely runs them on threads of its own
    let program = std::sync::Arc::new(m.program.clone());
    let semantics = m.semantics.clone();
    let opts_owned = opts.clone();
    let how_owned = how.clone();
    let batch = cluster.batch.max(1);
    let narrow = cluster.narrow;
    let ends = net::run(cluster, how.workers, model, move |net| {
        let m = Machine::new(&program, semantics.clone());
        let opts = &opts_owned;
        let mut ex = Explorer::new(&m, opts, &how_owned, Visited::new(false), None);
        ex.chunk = crate::runtime::OUTCOME_WINDOW;
        ex.zing = None;
        if net.index() > 0 {
            ex.watch = crate::search::Watch::new(&crate::search::Limits {
                progress: false,
                ..opts.limits.clone()
            });
        }
        let peers = net.peers() as u32;
        let mut s = Searcher {
            me: net.index() as u32,
            peers,
            batch,
            narrow,
            ex: &mut ex,
            nodes: Vec::new(),
            inits: Vec::new(),
            queue: BTreeMap::new(),
            waiting: BTreeMap::new(),
            decoded: Default::default(),
            encoded: Default::default(),
            best: None,
            limit: None,
            sent: 0,
            sent_bytes: 0,
            unsent: 0,
            sent_keys: Default::default(),
            sent_level: 0,
            sent_min: None,
            held: BTreeMap::new(),
            claimed: 0,
            expanded_held: 0,
            drop_after: None,
            notified: false,
            at_level: (0, 0),
            whole: 0,
            walking: false,
            path: None,
            out: Vec::new(),
            statuses: vec![Status::default(); peers as usize],
            rounds: 0,
        };
        s.run(net);
        let finding = s.finding();
        let counts = s.statuses.iter().map(|st| st.counts).collect();
        let limit = s.statuses.iter().find_map(|st| Limit::from_code(st.limit));
        let rounds = s.rounds;
        let reductions = (ex.atomic_interior || ex.por, ex.por);
        Outcome2 {
            finding,
            counts,
            limit,
            rounds,
            interior_alone: reductions,
        }
    })?;
    let Some(first) = ends.into_iter().next() else {
        return Err("no worker ran".into());
    };
    Ok(merge(first, cluster, start.elapsed(), opts))
}

impl Searcher<'_, '_, '_> {
    /// The worker (of all processes') that owns the state with fingerprint `fp`.
    fn owner(&self, fp: u64) -> u32 {
        let h = fp.rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        ((h * u64::from(self.peers)) >> 32) as u32
    }

    fn here(&self, node: u32) -> NodeRef {
        NodeRef {
            worker: self.me,
            node,
        }
    }

    /// Whether a state just reached is an error (a target label, a deadlock) and whether to
    /// expand it (not an error, not past the stack-depth bound): the single search's
    /// `arrive`, without stopping.
    fn check_arrival(&mut self, s: &State) -> (Option<Found>, bool) {
        let depth = Explorer::stack_depth(s);
        let stats = &mut self.ex.result.stats;
        stats.max_stack = stats.max_stack.max(depth);
        if let Some(t) = self.ex.target(s) {
            return (Some(Found::Target(t)), false);
        }
        if self.ex.deadlocked(s) {
            return (Some(Found::Deadlock), false);
        }
        if depth > self.ex.opts.limits.max_depth {
            self.ex.result.cut = true;
            return (None, false);
        }
        (None, true)
    }

    /// The global number of stored states as last known, plus this worker's since.
    fn states_estimate(&self) -> u64 {
        let mine = self.ex.visited.len() as u64;
        let known: u64 = self.statuses.iter().map(|s| s.counts.states).sum();
        let my_known = self.statuses[self.me as usize].counts.states;
        known - my_known + mine
    }

    fn push_queue(&mut self, level: u64, q: Queued) {
        self.queue.entry(level).or_default().push_back(q);
    }

    /// The initial states this worker owns, stored and queued at level 0.
    fn initial(&mut self) {
        let m = self.ex.m;
        for (init, s0) in crate::runtime::InitialStates::new(m) {
            if let Some(l) = watchdog::stopped() {
                self.limit = Some(l);
                return;
            }
            let canon = self.ex.hasher.canon(&s0);
            if self.owner(canon.fp) != self.me || !self.ex.visited.insert_fp(canon.fp) {
                continue;
            }
            self.ex.result.stats.initial_states += 1;
            self.inits.push(init);
            let node = self.nodes.len() as u32;
            self.nodes.push(Link::Root(self.inits.len() as u32 - 1));
            let (err, expand) = self.check_arrival(&s0);
            if let Some(kind) = err {
                let at = self.here(node);
                self.offer(Candidate {
                    len: 0,
                    from_fp: canon.fp,
                    last: None,
                    kind,
                    at,
                });
            }
            if expand {
                let at = self.here(node);
                self.push_queue(
                    0,
                    Queued {
                        state: s0,
                        at,
                        canon,
                    },
                );
            }
            if let Some(l) = self.ex.watch.check(self.states_estimate()) {
                self.limit = Some(l);
                return;
            }
        }
    }

    /// Expands up to a batch of this worker's states of `level`.
    fn expand_batch(&mut self, level: u64) {
        if level != self.sent_level {
            // what was sent while expanding another level is no longer needed (see `send`)
            self.sent_keys.clear();
            self.sent_level = level;
        }
        if self.at_level.0 != level {
            self.at_level = (level, 0);
        }
        self.whole = self.whole_share();
        for _ in 0..self.batch {
            let Some(q) = self.queue.get_mut(&level).and_then(|q| q.pop_front()) else {
                break;
            };
            if let Some(l) = self.ex.watch.check(self.states_estimate()) {
                self.limit = Some(l);
                return;
            }
            self.ex.watch.depth = level;
            let stats = &mut self.ex.result.stats;
            stats.max_path = stats.max_path.max(level);
            self.at_level.1 += 1;
            self.expand(q, level);
            if self.limit.is_some() {
                return;
            }
        }
        if self.queue.get(&level).is_some_and(|q| q.is_empty()) {
            self.queue.remove(&level);
        }
    }

    /// The single search's expansion of one state (`bfs.rs`), its stored successors sent to
    /// their owners.
    fn expand(&mut self, q: Queued, level: u64) {
        let Queued {
            state: s,
            at: from_ref,
            canon,
        } = q;
        let ctx = Ctx::START;
        let mut from = None;
        let mut wide = false;
        loop {
            let succs = self.ex.successors_from(&s, ctx, from);
            let more = self.ex.more.take();
            wide |= more.is_some();
            if let Some(l) = self.ex.result.limit {
                self.limit = Some(l);
                return;
            }
            let interior: Vec<bool> = succs
                .iter()
                .zip(Explorer::branching(&succs))
                .map(|((c, o), b)| self.ex.interior(&s, ctx.hold, c.thread, o, b || wide))
                .collect();
            for ((choice, outcome), interior) in succs.into_iter().zip(interior) {
                match outcome {
                    Outcome::Pruned => {}
                    Outcome::Moved { .. } => unreachable!("successors() builds every state"),
                    Outcome::Violation(v) => {
                        if self
                            .ex
                            .advance(&s, ctx, choice, StepKind::Internal)
                            .is_none()
                        {
                            continue;
                        }
                        let kind = match v {
                            Violation::Assertion => Found::Assertion,
                            Violation::Runtime(e) => Found::Runtime(e),
                        };
                        let len = level + self.ex.cost(&s, ctx.hold, choice);
                        self.offer(Candidate {
                            len,
                            from_fp: canon.fp,
                            last: Some(choice),
                            kind,
                            at: from_ref,
                        });
                    }
                    Outcome::Next { state, kind } => {
                        self.ex.result.stats.transitions += 1;
                        if self.ex.advance(&s, ctx, choice, kind).is_none() {
                            continue;
                        }
                        let child = self.ex.child_canon(&s, &canon, &state);
                        let len = level + self.ex.cost(&s, ctx.hold, choice);
                        if interior {
                            // inside a transaction: not stored; this worker runs on with it
                            self.ex.interior_skipped += 1;
                            let (err, expand) = self.check_arrival(&state);
                            if let Some(kind) = err {
                                self.offer(Candidate {
                                    len,
                                    from_fp: canon.fp,
                                    last: Some(choice),
                                    kind,
                                    at: from_ref,
                                });
                            }
                            if expand {
                                let n = self.nodes.len() as u32;
                                self.nodes.push(Link::Child(from_ref, choice));
                                let at = self.here(n);
                                self.push_queue(
                                    len,
                                    Queued {
                                        state,
                                        at,
                                        canon: child,
                                    },
                                );
                            }
                            continue;
                        }
                        self.sent_min = Some(self.sent_min.map_or(len, |m| m.min(len)));
                        let owner = self.owner(child.fp);
                        if owner == self.me {
                            let fp = child.fp;
                            let body = Arrival::Local(state, child);
                            self.arrive(fp, len, from_ref, canon.fp, choice, body);
                        } else {
                            let parent = (from_ref, canon.fp, choice);
                            self.send(owner, len, parent, state, child);
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

    /// A better parent for a state stored already (by [`Searcher::arrive`]): kept if the
    /// state still waits for its level and the parent is less than the one it has.
    fn improve(&mut self, fp: u64, level: u64, from: NodeRef, from_fp: u64, choice: Choice) {
        let key = |l: u64, f: u64, c: Choice| (l, f, c.thread, c.outcome);
        let Some((l, i)) = self
            .waiting
            .iter()
            .find_map(|(&l, w)| w.index.get(&fp).map(|&i| (l, i as usize)))
        else {
            return;
        };
        let Some(w) = self.waiting.get_mut(&l) else {
            return;
        };
        let Some(p) = w.states[i].as_mut() else {
            return;
        };
        if key(level, from_fp, choice) >= key(l, p.from_fp, p.choice) {
            return;
        }
        (p.from, p.from_fp, p.choice) = (from, from_fp, choice);
        if level < l {
            // reached at a lower level: it waits for that one now
            w.index.remove(&fp);
            if let Some(p) = w.states[i].take() {
                self.waiting.entry(level).or_default().push(fp, p);
            }
        }
    }

    /// A state arrives at its owner (as bytes from another worker, or as the state and its
    /// canon from this one): stored if new, and then checked as the single search checks a
    /// new state (a target, a deadlock, the depth bound); its parent record is kept if it is
    /// the least so far among the arrivals of a state still waiting for its level.
    fn arrive(
        &mut self,
        fp: u64,
        level: u64,
        from: NodeRef,
        from_fp: u64,
        choice: Choice,
        body: Arrival,
    ) {
        if !self.ex.visited.insert_fp(fp) {
            // stored already: if still waiting for its level, keep the least parent
            self.improve(fp, level, from, from_fp, choice);
            return;
        }
        let body = match body {
            // checked by its holder, whom the owner asks for it (`expand_held`)
            Arrival::Held(slot) => Body::Held(slot),
            Arrival::Local(s, c) => match self.checked(s, Some(c)) {
                Some(body) => body,
                None => return,
            },
            Arrival::Bytes(bytes) => {
                let Some((s, c)) = decode_arrival(fp, &bytes, &mut self.decoded) else {
                    panic!("a state from another worker does not decode");
                };
                match self.checked(s, c) {
                    Some(body) => body,
                    None => return,
                }
            }
        };
        self.waiting.entry(level).or_default().push(
            fp,
            Pending {
                from,
                from_fp,
                choice,
                body,
            },
        );
    }

    /// A new state reached here or received whole, checked as the single search checks a new
    /// state: what waits for its level, or nothing (past the stack-depth bound).
    fn checked(&mut self, state: State, canon: Option<Canon>) -> Option<Body> {
        match self.check_arrival(&state) {
            (Some(kind), _) => Some(Body::Error(kind)),
            (None, false) => None,
            (None, true) => Some(Body::Wire(state, canon)),
        }
    }

    /// The states waiting for `level`, whose parents are now settled: recorded and queued,
    /// or (held by another worker) their holders asked to expand them.
    fn settle(&mut self, level: u64) {
        self.drop_after = Some(level);
        let Some(w) = self.waiting.remove(&level) else {
            return;
        };
        drop(w.index);
        for p in w.states.into_iter().flatten() {
            let (state, canon) = match p.body {
                Body::Held(slot) => {
                    let node = self.nodes.len() as u32;
                    self.nodes.push(Link::Child(p.from, p.choice));
                    let at = self.here(node);
                    self.notified = true;
                    self.sent_bytes += EXPAND_BYTES;
                    self.out.push((
                        slot.holder,
                        Msg::Expand {
                            slot,
                            level,
                            at,
                            from: p.from,
                            from_fp: p.from_fp,
                            choice: p.choice,
                        },
                    ));
                    continue;
                }
                Body::Wire(s, Some(c)) => (s, c),
                Body::Wire(s, None) => {
                    let c = self.ex.hasher.canon(&s);
                    (s, c)
                }
                Body::Error(kind) => {
                    self.offer(Candidate {
                        len: level,
                        from_fp: p.from_fp,
                        last: Some(p.choice),
                        kind,
                        at: p.from,
                    });
                    continue;
                }
            };
            let node = self.nodes.len() as u32;
            self.nodes.push(Link::Child(p.from, p.choice));
            let at = self.here(node);
            self.push_queue(level, Queued { state, at, canon });
        }
    }
}
