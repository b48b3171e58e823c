//! The distributed breadth-first search (`check --processes N`): the explicit search's BFS
//! on every worker of every process, over timely dataflow's exchange channels.
//!
//! Ownership: a state belongs to one worker of all processes', picked by its fingerprint
//! (`Searcher::owner`); the owner keeps it in its shard of the visited set, keeps its
//! parent record (the worker and node of the state it came from, and the choice), and
//! expands it. A successor goes to its owner as bytes with its fingerprint: its canon's
//! numbering ([`Canon::numbering`]), so that the owner fingerprints its successors from it
//! without walking the state again, then the state ([`crate::runtime::Portable::encode`]),
//! which the owner decodes (if new) sharing the parts of states it decoded before
//! ([`crate::runtime::Decoded`]). States inside a transaction
//! (`--reduction`'s interior states, not stored) stay with the worker that reached them.
//!
//! Rounds: every worker sends its messages of a round, and timely's progress tracking says
//! when all of them have arrived; then every worker knows every worker's `Status`, and all
//! take the same decision. A level of the BFS takes one or more rounds of at most
//! [`Cluster::batch`] states per worker (flow control: timely has none, so what is in
//! flight is bounded by that batch). A state that arrives is stored at once (the count),
//! but its parent record is settled only when the level before it is complete: the least
//! (level, parent fingerprint, choice) among its arrivals, so the stored tree, the path of
//! every state and the counterexample reported do not depend on timing or on the number of
//! processes.
//!
//! Findings: checked where the step is taken (a violating step, or a successor that is an
//! error state), each with the key (path length, parent fingerprint, choice). The search
//! ends once every level shorter than the least key's length is complete: that finding is a
//! shortest counterexample, the same at any number of processes. Its path is rebuilt by
//! walking parent records back through their owners, one message a round, and every worker
//! gets it; each process then replays and reports it as a single-process check does.

mod net;

pub use net::{Cluster, BATCH, CONNECT_TIMEOUT, DEFAULT_PORT};

use super::{Ctx, ExplicitOptions, Explorer};
use crate::canon::{Canon, Visited};
use crate::runtime::{
    Kind as StepKind, Machine, Outcome, Portable, RtError, State, Value, Violation,
};
use crate::search::{watchdog, Choice, Finding, Limit, Options, Path, SearchResult};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// A node of some worker's parent records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct NodeRef {
    worker: u32,
    node: u32,
}

/// A parent record: an initial state (its valuation's index), or the node a state came from
/// and the choice taken there.
enum Link {
    Root(u32),
    Child(NodeRef, Choice),
}

/// What a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Found {
    Assertion,
    Runtime(RtError),
    Target(u32),
    Deadlock,
}

/// A finding and where its path starts to be rebuilt: the node it was found from (for an
/// initial state, its own) and the last choice (none for an initial state).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Candidate {
    len: u64,
    from_fp: u64,
    last: Option<Choice>,
    kind: Found,
    at: NodeRef,
}

impl Candidate {
    /// The order in which findings are preferred: shortest, then by the state found from
    /// and the choice (independent of timing and of who found it).
    fn key(&self) -> (u64, u64, u32, u32, u8) {
        let c = self.last.map_or((0, 0), |c| (c.thread, c.outcome));
        let rank = match self.kind {
            Found::Target(_) => 0,
            Found::Deadlock => 1,
            Found::Assertion | Found::Runtime(_) => 2,
        };
        (self.len, self.from_fp, c.0, c.1, rank)
    }
}

/// What a worker did, summed (or maxed) over workers for the report.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
struct Counts {
    states: u64,
    transitions: u64,
    initial: u64,
    max_stack: u32,
    max_path: u64,
    interior: u64,
    alone: u64,
    cut: bool,
    thread_cut: bool,
    /// States sent to another worker, and the bytes of their messages.
    sent: u64,
    sent_bytes: u64,
}

/// A worker's status at the end of a round, sent to every worker.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Status {
    /// It still has states of the level being expanded.
    more: bool,
    /// The least level of a state it has queued, waiting, or sent this round.
    next: Option<u64>,
    best: Option<Candidate>,
    /// A limit it reached (`Limit::code`, 0 for none).
    limit: u8,
    counts: Counts,
    /// It sent a step of a path's walk back this round.
    walking: bool,
}

/// The messages between workers.
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Msg {
    /// A successor for its owner: its fingerprint and level, where it came from, and the
    /// state's bytes.
    Arrive {
        fp: u64,
        level: u64,
        from: NodeRef,
        from_fp: u64,
        choice: Choice,
        state: Bytes,
    },
    Status(u32, Box<Status>),
    /// A path walked back to `node` of the receiver: the choices from there on, last first.
    Walk {
        node: u32,
        choices: Vec<Choice>,
    },
    /// The whole path: the initial valuation (encoded) and the choices, last first.
    Path {
        init: Vec<u8>,
        choices: Vec<Choice>,
    },
}

/// The bytes of a [`Msg::Arrive`] besides the state's own, as timely's bincode writes it:
/// the destination (4), the variant (4), the fingerprint, level, parent node, parent
/// fingerprint, choice and the state's length (8 each).
const ARRIVE_HEADER: u64 = 56;

/// A state's bytes, serialized as one byte string (serde's default for a `Vec<u8>` is a
/// sequence, written and read a byte at a time).
#[derive(Clone, Debug)]
struct Bytes(Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a state's bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// The bytes of a state sent to its owner: its canon's numbering (see
/// [`Canon::numbering`]: a tag, 0 for none, else 1 + whether it is free of the threads'
/// order, then the addresses as varints), so that the owner need not walk the state again to
/// fingerprint its successors, then the state ([`Portable::encode`]).
fn encode_arrival(state: &State, canon: &Canon, out: &mut Vec<u8>) {
    match canon.numbering() {
        None => out.push(0),
        Some((order_free, order)) => {
            out.push(1 + u8::from(order_free));
            crate::runtime::wire::uint(order.len() as u64, out);
            for &a in order {
                crate::runtime::wire::uint(u64::from(a), out);
            }
        }
    }
    Portable::encode(state, out);
}

/// The state and (unless it was sent without one) the canon that [`encode_arrival`] wrote,
/// for the state whose fingerprint is `fp`; `None` for bytes that are not such a state.
fn decode_arrival(
    fp: u64,
    bytes: &[u8],
    seen: &mut crate::runtime::Decoded,
) -> Option<(State, Option<Canon>)> {
    let mut r = crate::runtime::wire::Reader { bytes, at: 0 };
    let canon = match r.byte()? {
        0 => None,
        tag @ (1 | 2) => {
            let n = r.length()?;
            let order = (0..n)
                .map(|_| r.uint().and_then(|a| u32::try_from(a).ok()))
                .collect::<Option<Vec<_>>>()?;
            Some(Canon::from_numbering(fp, tag == 2, &order))
        }
        _ => return None,
    };
    let state = Portable::decode_shared(&bytes[r.at..], seen)?;
    Some((state, canon))
}

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
    Local(State, Canon),
    Wire(State),
    Error(Found),
}

/// A state queued for expansion.
struct Queued {
    state: State,
    node: u32,
    canon: Canon,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Expand(u64),
    Walk,
    Done,
}

/// One worker of the distributed search.
struct Searcher<'e, 'm, 'p> {
    ex: &'e mut Explorer<'m, 'p>,
    me: u32,
    peers: u32,
    batch: usize,
    nodes: Vec<Link>,
    inits: Vec<Vec<Value>>,
    queue: BTreeMap<u64, VecDeque<Queued>>,
    /// The states waiting for their level to be settled, by level.
    waiting: BTreeMap<u64, Waiting>,
    /// The parts of the states received lately, shared by those received next.
    decoded: crate::runtime::Decoded,
    best: Option<Candidate>,
    limit: Option<Limit>,
    sent: u64,
    sent_bytes: u64,
    /// The least level sent this round.
    sent_min: Option<u64>,
    walking: bool,
    path: Option<Path>,
    out: Vec<(u32, Msg)>,
    /// The last status of every worker.
    statuses: Vec<Status>,
    rounds: u64,
}

/// The rebuilt finding, the counts of every worker, the limit, and the rounds taken.
struct Outcome2 {
    finding: Option<Finding>,
    counts: Vec<Counts>,
    limit: Option<Limit>,
    rounds: u64,
    interior_alone: (bool, bool),
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
            ex: &mut ex,
            nodes: Vec::new(),
            inits: Vec::new(),
            queue: BTreeMap::new(),
            waiting: BTreeMap::new(),
            decoded: Default::default(),
            best: None,
            limit: None,
            sent: 0,
            sent_bytes: 0,
            sent_min: None,
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

/// The result every process reports: the finding, the counts summed over all workers.
fn merge(
    o: Outcome2,
    cluster: &Cluster,
    elapsed: std::time::Duration,
    opts: &Options,
) -> SearchResult {
    let mut r = SearchResult::default();
    let mut total = Counts::default();
    for c in &o.counts {
        total.states += c.states;
        total.transitions += c.transitions;
        total.initial += c.initial;
        total.max_stack = total.max_stack.max(c.max_stack);
        total.max_path = total.max_path.max(c.max_path);
        total.interior += c.interior;
        total.alone += c.alone;
        total.cut |= c.cut;
        total.thread_cut |= c.thread_cut;
        total.sent += c.sent;
        total.sent_bytes += c.sent_bytes;
    }
    r.findings.extend(o.finding);
    r.limit = o.limit;
    r.cut = total.cut;
    r.thread_cut = total.thread_cut;
    r.stats.states = total.states;
    r.stats.transitions = total.transitions;
    r.stats.initial_states = total.initial;
    r.stats.max_stack = total.max_stack;
    r.stats.max_path = total.max_path;
    r.stats.elapsed = elapsed;
    let (interior, alone) = o.interior_alone;
    if interior {
        r.stats
            .counters
            .push(("states inside transactions not stored", total.interior));
    }
    if alone {
        r.stats.counters.push((
            "states expanded by one thread (partial-order reduction)",
            total.alone,
        ));
    }
    r.stats.counters.extend([
        ("processes", cluster.processes as u64),
        ("workers", o.counts.len() as u64),
        ("rounds", o.rounds),
        ("states sent to another worker", total.sent),
        (
            "bytes sent per state sent",
            total.sent_bytes.checked_div(total.sent).unwrap_or(0),
        ),
    ]);
    let _ = opts;
    r
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

    fn offer(&mut self, c: Candidate) {
        if self.best.is_none_or(|b| c.key() < b.key()) {
            self.best = Some(c);
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
                self.push_queue(
                    0,
                    Queued {
                        state: s0,
                        node,
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
            node,
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
                        let at = self.here(node);
                        self.offer(Candidate {
                            len,
                            from_fp: canon.fp,
                            last: Some(choice),
                            kind,
                            at,
                        });
                    }
                    Outcome::Next { state, kind } => {
                        self.ex.result.stats.transitions += 1;
                        if self.ex.advance(&s, ctx, choice, kind).is_none() {
                            continue;
                        }
                        let child = self.ex.child_canon(&s, &canon, &state);
                        let len = level + self.ex.cost(&s, ctx.hold, choice);
                        let from_ref = self.here(node);
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
                                self.push_queue(
                                    len,
                                    Queued {
                                        state,
                                        node: n,
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
                            self.arrive(fp, len, from_ref, canon.fp, choice, Err((state, child)));
                        } else {
                            let mut bytes = Vec::with_capacity(256);
                            encode_arrival(&state, &child, &mut bytes);
                            self.sent += 1;
                            self.sent_bytes += ARRIVE_HEADER + bytes.len() as u64;
                            self.out.push((
                                owner,
                                Msg::Arrive {
                                    fp: child.fp,
                                    level: len,
                                    from: from_ref,
                                    from_fp: canon.fp,
                                    choice,
                                    state: Bytes(bytes),
                                },
                            ));
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
        body: Result<Vec<u8>, (State, Canon)>,
    ) {
        let key = |l: u64, f: u64, c: Choice| (l, f, c.thread, c.outcome);
        if !self.ex.visited.insert_fp(fp) {
            // stored already: if still waiting for its level, keep the least parent
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
            return;
        }
        let (state, canon) = match body {
            Ok(bytes) => match decode_arrival(fp, &bytes, &mut self.decoded) {
                Some(sc) => sc,
                None => panic!("a state from another worker does not decode"),
            },
            Err((s, c)) => (s, Some(c)),
        };
        let body = match self.check_arrival(&state) {
            (Some(kind), _) => Body::Error(kind),
            (None, false) => return,
            (None, true) => match canon {
                Some(c) => Body::Local(state, c),
                None => Body::Wire(state),
            },
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

    /// The states waiting for `level`, whose parents are now settled: recorded and queued.
    fn settle(&mut self, level: u64) {
        let Some(w) = self.waiting.remove(&level) else {
            return;
        };
        drop(w.index);
        for p in w.states.into_iter().flatten() {
            let (state, canon) = match p.body {
                Body::Local(s, c) => (s, c),
                Body::Wire(s) => {
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
            self.push_queue(level, Queued { state, node, canon });
        }
    }

    /// Follows parent records from `node` of this worker back as far as they stay here,
    /// then hands the walk to the owner of the next record, or sends the whole path to
    /// every worker.
    fn walk(&mut self, mut node: u32, mut choices: Vec<Choice>) {
        self.walking = true;
        loop {
            match self.nodes[node as usize] {
                Link::Root(i) => {
                    let mut init = Vec::new();
                    crate::runtime::wire::values(&self.inits[i as usize], &mut init);
                    for w in 0..self.peers {
                        self.out.push((
                            w,
                            Msg::Path {
                                init: init.clone(),
                                choices: choices.clone(),
                            },
                        ));
                    }
                    return;
                }
                Link::Child(from, c) => {
                    choices.push(c);
                    if from.worker == self.me {
                        node = from.node;
                    } else {
                        self.out.push((
                            from.worker,
                            Msg::Walk {
                                node: from.node,
                                choices,
                            },
                        ));
                        return;
                    }
                }
            }
        }
    }

    fn status(&self, phase: Phase) -> Status {
        let more = match phase {
            Phase::Expand(l) => self.queue.get(&l).is_some_and(|q| !q.is_empty()),
            _ => false,
        };
        let queued = self
            .queue
            .iter()
            .find(|(_, q)| !q.is_empty())
            .map(|(l, _)| *l);
        let waiting = self.waiting.keys().next().copied();
        let next = [queued, waiting, self.sent_min].into_iter().flatten().min();
        let stats = &self.ex.result.stats;
        Status {
            more,
            next,
            best: self.best,
            limit: self.limit.map_or(0, Limit::code),
            counts: Counts {
                states: self.ex.visited.len() as u64,
                transitions: stats.transitions,
                initial: stats.initial_states,
                max_stack: stats.max_stack,
                max_path: stats.max_path,
                interior: self.ex.interior_skipped,
                alone: self.ex.expanded_alone,
                cut: self.ex.result.cut,
                thread_cut: self.ex.result.thread_cut,
                sent: self.sent,
                sent_bytes: self.sent_bytes,
            },
            walking: self.walking,
        }
    }

    /// Rounds until the search is over: expansion level by level, then the walk back of
    /// the finding's path.
    fn run(&mut self, net: &mut net::Net) {
        self.initial();
        // the initial states are a round of their own: its status says where to begin
        let mut phase = Phase::Expand(0);
        let mut first = true;
        loop {
            if !first {
                match phase {
                    Phase::Expand(l) if self.limit.is_none() => self.expand_batch(l),
                    _ => {}
                }
            }
            let status = self.status(if first { Phase::Done } else { phase });
            for w in 0..self.peers {
                self.out
                    .push((w, Msg::Status(self.me, Box::new(status.clone()))));
            }
            self.sent_min = None;
            self.walking = false;
            let Ok(inbox) = net.round(&mut self.out) else {
                // a connection lost: `net::run` returns it as the search's error
                return;
            };
            self.rounds += 1;
            let mut walks = Vec::new();
            for msg in inbox {
                match msg {
                    Msg::Arrive {
                        fp,
                        level,
                        from,
                        from_fp,
                        choice,
                        state,
                    } => self.arrive(fp, level, from, from_fp, choice, Ok(state.0)),
                    Msg::Status(w, st) => self.statuses[w as usize] = *st,
                    Msg::Walk { node, choices } => walks.push((node, choices)),
                    Msg::Path { init, choices } => {
                        let init = crate::runtime::wire::Reader {
                            bytes: &init,
                            at: 0,
                        }
                        .values()
                        .unwrap_or_else(|| panic!("a path's initial valuation does not decode"));
                        let mut choices = choices;
                        choices.reverse();
                        self.path = Some(Path { init, choices });
                    }
                }
            }
            phase = self.decide(if first { None } else { Some(phase) });
            first = false;
            match phase {
                Phase::Done => return,
                Phase::Walk => {
                    for (node, choices) in walks {
                        self.walk(node, choices);
                    }
                }
                Phase::Expand(_) => {}
            }
        }
    }

    /// The next phase, from every worker's status (the same decision on every worker).
    fn decide(&mut self, phase: Option<Phase>) -> Phase {
        if self.path.is_some() {
            return Phase::Done;
        }
        if self.statuses.iter().any(|s| s.limit != 0) {
            return Phase::Done;
        }
        let states: u64 = self.statuses.iter().map(|s| s.counts.states).sum();
        if self.ex.opts.limits.max_states.is_some_and(|m| states >= m) {
            self.limit = Some(Limit::States);
            self.statuses[self.me as usize].limit = self.limit.map_or(0, Limit::code);
            return Phase::Done;
        }
        if phase == Some(Phase::Walk) {
            if !self.statuses.iter().any(|s| s.walking) {
                panic!("the walk back of a counterexample's path was lost");
            }
            return Phase::Walk;
        }
        let best = self
            .statuses
            .iter()
            .filter_map(|s| s.best)
            .min_by_key(|c| c.key());
        // every finding of length up to the level settled last is known: the steps from the
        // levels before it are all taken, and its states all checked
        let settled = match phase {
            Some(Phase::Expand(l)) => Some(l),
            _ => None,
        };
        let next = self.statuses.iter().filter_map(|s| s.next).min();
        if let Some(b) = best {
            let complete = settled.is_some_and(|l| b.len <= l) || next.is_none_or(|n| b.len < n);
            if complete {
                self.best = Some(b);
                if b.at.worker == self.me {
                    self.walk(b.at.node, b.last.into_iter().collect());
                }
                return Phase::Walk;
            }
        }
        if let Some(l) = settled {
            if self.statuses.iter().any(|s| s.more) {
                return Phase::Expand(l);
            }
        }
        match next {
            // (with nothing left every finding is complete: none was found)
            None => Phase::Done,
            Some(n) => {
                self.settle(n);
                Phase::Expand(n)
            }
        }
    }

    /// The finding, with its path rebuilt (chains expanded as the single search does).
    fn finding(&mut self) -> Option<Finding> {
        let path = self.path.take()?;
        let b = self.best?;
        let f = match b.kind {
            Found::Assertion => Finding::Assertion { path },
            Found::Runtime(error) => Finding::Runtime { error, path },
            Found::Target(t) => Finding::Target {
                label: self.ex.opts.targets[t as usize].clone(),
                path,
            },
            Found::Deadlock => Finding::Deadlock { path },
        };
        self.ex.result.findings.clear();
        self.ex.found(f, (0, 0, 0));
        self.ex.result.findings.pop()
    }
}
