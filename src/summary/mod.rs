//! The summarizing search of seed 004 §6 (Figures 3–9): the whole search for sequential
//! programs, and [`Transaction`] summaries of the calls of concurrent programs that run as one
//! transaction (seed 004 §7), which the plain search applies as single steps.
//!
//! Each procedure invocation context is a `Root`: a visible state (the globals and the
//! callee's frame at its entry) whose *pattern* records the values of the global locations the
//! procedure read (before writing them) on every path explored from it, pruned paths included,
//! and whose *effects* record, per return, the last value of every written location and the
//! returned values. A local DFS (`Summarizer::search`) explores one root; at a call it looks
//! for a root whose pattern matches the callee's entry state (`Match`, Figure 7) and applies
//! that root's effects to the caller (`Apply`, Figure 8) instead of descending. A caller that
//! used a root depends on it (the dependency graph of Figure 4): when the root's pattern or
//! effects grow, the caller's call node is searched again.
//!
//! Visible states are looked up together with the set of locations written since the root's
//! entry (the δ augmentation of §5): two paths that reach the same values but wrote different
//! locations have different effects, and pruning one of them would lose behaviour.
//!
//! Every step still goes through [`Machine::step`], and every finding is a [`crate::search::Path`] on whole
//! states, summaries expanded back into the steps that produced them, so the CLI replays it on
//! the interpreter like any other counterexample.

use crate::canon::{encode_with_roots, fingerprint, Fingerprint};
use crate::runtime::{Addr, Loc, Machine, Outcome, Record, State, Value, GLOBALS};
use crate::search::effects::{
    frame_shape, match_entry, AddrMap, Effect, FrameShape, PathEffect, Transaction,
};
use crate::search::{Choice, Finding, Options, SearchResult, Watch};
use ahash::{AHashMap, AHashSet};
use std::collections::VecDeque;
use zingrs_lang::ir::Stmt;

mod expand;
mod trace;

type RootId = u32;
type NodeId = u32;

/// How a node of a root's search was reached (for expanding traces).
#[derive(Clone, Copy, Debug)]
enum Via {
    Entry,
    Step {
        parent: NodeId,
        choice: Choice,
    },
    Summary {
        parent: NodeId,
        callee: RootId,
        effect: u32,
    },
}

/// A summary under construction: an entry visible state, its pattern and effects, and the
/// local search's tables (Figure 3).
struct Root {
    entry: State,
    /// For roots of the entry procedure: the initial valuation they start from.
    init: Option<Vec<Value>>,
    /// The call node (in its caller's root) whose callee entry created this root.
    origin: Option<(RootId, NodeId)>,
    /// The locations read before written, in the order first read (so that every address a
    /// location names was met earlier, in the entry frame or as a value), with their values.
    pattern: Vec<(Loc, Value)>,
    pattern_set: AHashSet<Loc>,
    /// Effects with the return node and the index of the return outcome that produced them.
    effects: Vec<(Effect, NodeId, u32)>,
    effect_set: AHashSet<Effect>,
    visited: AHashSet<Fingerprint>,
    nodes: Vec<Via>,
    updated: bool,
}

type Wmap = PathEffect;

#[derive(Clone, Copy, PartialEq, Eq)]
enum NodeKind {
    /// A visible state whose next statement runs (or returns).
    Execute,
    /// A caller stopped at a call, with the callee's entry frame on top.
    Call,
}

/// A pending local search (Figure 4's work item): a root's entry (STATE) or one of its call
/// nodes to look at again because the callee's summary changed (SUMMARY).
struct WorkItem {
    root: RootId,
    state: State,
    wmap: Wmap,
    node: NodeId,
    kind: NodeKind,
}

/// A successor about to be visited.
struct Succ {
    state: State,
    wmap: Wmap,
    kind: NodeKind,
    via: Via,
}

/// A node on the local DFS stack with its successors: a window of at most
/// [`crate::runtime::OUTCOME_WINDOW`] of them, and where the node's step goes on when it has more
/// (a parallel assignment of 24 `*` is 2^24 successors, listed a window at a time).
struct Frontier {
    succs: Vec<Succ>,
    next: usize,
    more: Option<Box<More>>,
}

/// Where a wide step's next window of outcomes begins.
struct More {
    state: State,
    wmap: Wmap,
    skip: u64,
}

impl Frontier {
    fn of(succs: Vec<Succ>) -> Frontier {
        Frontier {
            succs,
            next: 0,
            more: None,
        }
    }
}

/// An edge of the dependency graph: a caller's call node uses a root, whose first `num`
/// effects it has applied.
struct Edge {
    target: RootId,
    num: u32,
    /// From the target's entry addresses to the caller's, valid while the target's pattern
    /// has `pattern_len` entries (patterns only grow).
    map: Option<(AddrMap, usize)>,
}

/// Counters reported with `--stats`.
#[derive(Default)]
struct Counters {
    match_attempts: u64,
    match_hits: u64,
    applies: u64,
    transitions: u64,
}

enum Stop {
    Found,
    Limit(crate::search::Limit),
}

/// The summarizing engine's state.
pub struct Summarizer<'m, 'p> {
    m: &'m Machine<'p>,
    opts: &'m Options,
    roots: Vec<Root>,
    by_frame: AHashMap<FrameShape, Vec<RootId>>,
    graph: AHashMap<(RootId, Fingerprint), Edge>,
    /// For each root, the call nodes that use it, to reschedule them when it changes.
    users: AHashMap<RootId, Vec<(RootId, Fingerprint)>>,
    call_nodes: AHashMap<(RootId, Fingerprint), (State, Wmap, NodeId)>,
    worklist: VecDeque<WorkItem>,
    target_at: Vec<Vec<bool>>,
    result: SearchResult,
    seen_errors: AHashSet<(u8, u32, u32)>,
    counters: Counters,
    states: u64,
    watch: Watch,
    buf: Vec<u8>,
    rec: Record,
    outs: Vec<Outcome>,
}

/// Whether the summary engine can run a program by itself (sequential, standard layout, no
/// statement that can block, where a blocked process is a deadlock); otherwise the caller
/// falls back to the plain search.
pub fn applies(m: &Machine) -> bool {
    applies_to(m.program)
}

/// [`applies`], asked of the program alone (before a machine is built, e.g. to name what runs).
pub fn applies_to(program: &zingrs_lang::ir::Program) -> bool {
    why_not(program).is_none()
}

/// Why the summary engine cannot run `program` by itself, if it cannot ([`applies_to`]).
pub fn why_not(program: &zingrs_lang::ir::Program) -> Option<&'static str> {
    let blocking = program.procs.iter().any(|p| {
        p.nodes
            .iter()
            .any(|n| matches!(n.stmt, Stmt::Select { .. } | Stmt::Yield))
    });
    if program.is_concurrent() || program.activations.len() != 1 {
        Some("the summary engine's own search checks sequential programs only; this program has several threads (`zingrs check --engine summary` explores its interleavings, with calls that run as one transaction summarized)")
    } else if blocking {
        Some("the summary engine's own search does not check statements that block (`select`, `yield`)")
    } else if program.beyond_summaries() {
        Some("the summary engine's own search does not record collections whose lengths change, exceptions that unwind frames, or `self`")
    } else {
        None
    }
}

/// Summarizes the call whose callee frame is the top of `visible` (one thread): the summary
/// engine's [`crate::search::effects::Summarize`], which the explicit search calls for calls
/// that run as one transaction (seed 004 §7). `Err` when a limit stopped the search.
pub fn summarize_transaction(
    m: &Machine,
    opts: &Options,
    visible: State,
) -> Result<Transaction, crate::search::Limit> {
    let mut opts = opts.clone();
    opts.keep_going = false;
    let mut s = Summarizer::new(m, &opts);
    let outcome = s.new_root(visible, None, None).and_then(|_| s.drain());
    if let Err(Stop::Limit(l)) = outcome {
        return Err(l);
    }
    let finding = s.result.findings.pop();
    let root = &s.roots[0];
    let effects = (0..root.effects.len())
        .map(|j| (root.effects[j].0.clone(), s.expand_summary(0, j as u32)))
        .collect();
    Ok(Transaction {
        entry: root.entry.clone(),
        pattern: root.pattern.clone(),
        effects,
        finding,
        roots: s.roots.len() as u64,
    })
}

impl<'m, 'p> Summarizer<'m, 'p> {
    fn new(m: &'m Machine<'p>, opts: &'m Options) -> Summarizer<'m, 'p> {
        let target_at = m
            .program
            .procs
            .iter()
            .map(|p| {
                p.nodes
                    .iter()
                    .map(|n| n.labels.iter().any(|l| opts.targets.contains(l)))
                    .collect()
            })
            .collect();
        Summarizer {
            m,
            opts,
            roots: Vec::new(),
            by_frame: AHashMap::new(),
            graph: AHashMap::new(),
            users: AHashMap::new(),
            call_nodes: AHashMap::new(),
            worklist: VecDeque::new(),
            target_at,
            result: SearchResult::default(),
            seen_errors: AHashSet::new(),
            counters: Counters::default(),
            states: 0,
            watch: Watch::new(&opts.limits),
            buf: Vec::new(),
            rec: Record::default(),
            outs: Vec::new(),
        }
    }
}

/// Runs the summarizing search on a sequential program; `Err` on a program it does not
/// check by itself ([`why_not`]: threads, blocking statements, ...), where its result would
/// be wrong.
pub fn search(m: &Machine, opts: &Options) -> Result<SearchResult, crate::search::NotApplicable> {
    if let Some(reason) = why_not(m.program) {
        return Err(crate::search::NotApplicable {
            engine: "summary",
            reason: reason.into(),
        });
    }
    let mut s = Summarizer::new(m, opts);
    if let Err(Stop::Limit(l)) = s.run() {
        s.result.limit = Some(l);
    }
    let effects: u64 = s.roots.iter().map(|r| r.effects.len() as u64).sum();
    let mut per_proc: Vec<(u64, u64)> = vec![(0, 0); m.program.procs.len()];
    for root in &s.roots {
        let f = root.entry.threads[0]
            .stack
            .top()
            .expect("a root has a frame");
        let e = &mut per_proc[f.proc as usize];
        e.0 += 1;
        e.1 += root.effects.len() as u64;
    }
    let by_proc: Vec<(String, u64, u64)> = per_proc
        .iter()
        .enumerate()
        .filter(|(_, (r, _))| *r > 0)
        .map(|(p, &(r, e))| (m.program.procs[p].name.clone(), r, e))
        .collect();
    s.result.stats.summaries = by_proc;
    let st = &mut s.result.stats;
    st.states = s.states;
    st.transitions = s.counters.transitions;
    st.elapsed = s.watch.elapsed();
    st.max_stack = 1;
    st.counters = vec![
        ("roots", s.roots.len() as u64),
        ("summaries (effects)", effects),
        ("match attempts", s.counters.match_attempts),
        ("match hits", s.counters.match_hits),
        ("summary applications", s.counters.applies),
        (
            "states per root (max)",
            s.roots
                .iter()
                .map(|r| r.visited.len() as u64)
                .max()
                .unwrap_or(0),
        ),
        (
            "states per root (mean)",
            s.roots.iter().map(|r| r.visited.len() as u64).sum::<u64>()
                / (s.roots.len().max(1) as u64),
        ),
    ];
    Ok(s.result)
}

impl Summarizer<'_, '_> {
    fn run(&mut self) -> Result<(), Stop> {
        for (init, s0) in crate::runtime::InitialStates::new(self.m) {
            if self.find_root(&s0).is_some() {
                continue;
            }
            self.result.stats.initial_states += 1;
            let r = self.new_root(s0, Some(init), None)?;
            let _ = r;
            self.drain()?;
        }
        Ok(())
    }

    /// The main loop of Figure 4.
    fn drain(&mut self) -> Result<(), Stop> {
        while let Some(w) = self.worklist.pop_back() {
            let root = w.root;
            self.roots[root as usize].updated = false;
            self.search(w)?;
            if self.roots[root as usize].updated {
                for (x, key) in self.users.remove(&root).unwrap_or_default() {
                    if self.graph.get(&(x, key)).is_some_and(|e| e.target == root) {
                        self.graph.remove(&(x, key));
                        if let Some((state, wmap, node)) = self.call_nodes.get(&(x, key)) {
                            self.worklist.push_back(WorkItem {
                                root: x,
                                state: state.clone(),
                                wmap: wmap.clone(),
                                node: *node,
                                kind: NodeKind::Call,
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The visited-table key (§5's Λ(h, ℓ + δ)): the canonical state with the written
    /// addresses as extra roots, then the written locations and the allocated objects under
    /// the same renaming. Two paths that reach the same state but wrote different locations
    /// or allocated different objects have different effects and are kept apart.
    fn key(&mut self, s: &State, eff: &PathEffect) -> Fingerprint {
        self.buf.clear();
        let extra: Vec<Addr> = if s.heap.is_empty() {
            Vec::new()
        } else {
            eff.writes
                .iter()
                .map(|(l, _)| l.addr)
                .filter(|&a| a != GLOBALS && !eff.allocated(a))
                .collect()
        };
        let numbers = encode_with_roots(s, &extra, &mut self.buf);
        let number = |a: Addr| {
            if a == GLOBALS {
                Some(0)
            } else {
                numbers.get(a)
            }
        };
        self.buf.push(0xff);
        for (l, _) in &eff.writes {
            if let Some(n) = number(l.addr) {
                self.buf.extend_from_slice(&n.to_le_bytes());
                self.buf.extend_from_slice(&l.field.to_le_bytes());
            }
        }
        self.buf.push(0xfe);
        for &(a, _) in &eff.allocs {
            if let Some(n) = number(a) {
                self.buf.extend_from_slice(&n.to_le_bytes());
            }
        }
        fingerprint(&self.buf)
    }

    /// `Match` (Figure 7) of one root against a visible state: the entry frames agree
    /// (references up to a bijection), then every pattern location, read through the growing
    /// address map, holds the pattern's value.
    fn match_root(&self, r: RootId, visible: &State) -> Option<AddrMap> {
        let root = &self.roots[r as usize];
        match_entry(self.m, &root.entry, &root.pattern, visible)
    }

    /// A root whose pattern `visible` matches, with the address map.
    fn find_root(&mut self, visible: &State) -> Option<(RootId, AddrMap)> {
        let cands = self.by_frame.get(&frame_shape(visible))?.clone();
        for r in cands {
            self.counters.match_attempts += 1;
            if let Some(map) = self.match_root(r, visible) {
                self.counters.match_hits += 1;
                return Some((r, map));
            }
        }
        None
    }

    fn new_root(
        &mut self,
        entry: State,
        init: Option<Vec<Value>>,
        origin: Option<(RootId, NodeId)>,
    ) -> Result<RootId, Stop> {
        let id = self.roots.len() as RootId;
        let key = self.key(&entry, &PathEffect::default());
        let mut visited = AHashSet::new();
        visited.insert(key);
        self.by_frame
            .entry(frame_shape(&entry))
            .or_default()
            .push(id);
        self.roots.push(Root {
            entry: entry.clone(),
            init,
            origin,
            pattern: Vec::new(),
            pattern_set: AHashSet::new(),
            effects: Vec::new(),
            effect_set: AHashSet::new(),
            visited,
            nodes: vec![Via::Entry],
            updated: false,
        });
        self.states += 1;
        self.arrive(id, 0, &entry)?;
        self.worklist.push_back(WorkItem {
            root: id,
            state: entry,
            wmap: PathEffect::default(),
            node: 0,
            kind: NodeKind::Execute,
        });
        Ok(id)
    }

    /// Checks a newly visited execute node for target labels and the limits.
    fn arrive(&mut self, r: RootId, n: NodeId, s: &State) -> Result<(), Stop> {
        if let Some(l) = self.watch.check(self.states) {
            return Err(Stop::Limit(l));
        }
        let f = s.threads[0]
            .stack
            .top()
            .expect("a visible state has a frame");
        if self.target_at[f.proc as usize][f.pc as usize] {
            let node = self.m.program.node(f.proc, f.pc);
            let Some(t) = self
                .opts
                .targets
                .iter()
                .position(|t| node.labels.contains(t))
            else {
                return Ok(());
            };
            let path = self.path_to(r, n, None);
            let finding = Finding::Target {
                label: self.opts.targets[t].clone(),
                path,
            };
            return self.found(finding, (1, t as u32, 0));
        }
        Ok(())
    }

    fn found(&mut self, f: Finding, key: (u8, u32, u32)) -> Result<(), Stop> {
        if self.seen_errors.insert(key) {
            self.result.findings.push(f);
        }
        if self.opts.keep_going {
            Ok(())
        } else {
            Err(Stop::Found)
        }
    }

    /// Adds the locations read at `s` that hold entry values (neither written nor allocated
    /// on the path) to root `r`'s pattern.
    fn learn(&mut self, r: RootId, s: &State, eff: &PathEffect, reads: &[Loc]) {
        for &loc in reads {
            if eff.wrote(loc) || (loc.addr != GLOBALS && eff.allocated(loc.addr)) {
                continue;
            }
            let root = &mut self.roots[r as usize];
            if root.pattern_set.insert(loc) {
                root.pattern.push((loc, self.m.read_loc(s, 0, loc)));
                root.updated = true;
            }
        }
    }

    /// `Search` (Figure 5): a DFS inside one root.
    fn search(&mut self, w: WorkItem) -> Result<(), Stop> {
        let r = w.root;
        let first = self.expand(r, w.node, &w.state, &w.wmap, w.kind)?;
        let mut stack = vec![(w.node, first)];
        while let Some((id, top)) = stack.last_mut() {
            if top.next >= top.succs.len() {
                match top.more.take() {
                    Some(more) => {
                        let id = *id;
                        *top = self.expand_execute(r, id, &more.state, &more.wmap, more.skip)?;
                    }
                    None => {
                        stack.pop();
                    }
                }
                continue;
            }
            let i = top.next;
            top.next += 1;
            let Succ {
                state,
                wmap,
                kind,
                via,
            } = std::mem::replace(
                &mut top.succs[i],
                Succ {
                    state: self.roots[r as usize].entry.clone(),
                    wmap: PathEffect::default(),
                    kind: NodeKind::Execute,
                    via: Via::Entry,
                },
            );
            self.counters.transitions += 1;
            let key = self.key(&state, &wmap);
            if !self.roots[r as usize].visited.insert(key) {
                continue;
            }
            let root = &mut self.roots[r as usize];
            root.nodes.push(via);
            let id = root.nodes.len() as NodeId - 1;
            self.states += 1;
            if kind == NodeKind::Execute {
                self.arrive(r, id, &state)?;
            }
            let f = self.expand(r, id, &state, &wmap, kind)?;
            stack.push((id, f));
        }
        Ok(())
    }
}
