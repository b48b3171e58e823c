//! The summarizing search of seed 004 §6 (Figures 3–9), for sequential programs.
//!
//! Each procedure invocation context is a [`Root`]: a visible state (the globals and the
//! callee's frame at its entry) whose *pattern* records the values of the global locations the
//! procedure read (before writing them) on every path explored from it, pruned paths included,
//! and whose *effects* record, per return, the last value of every written location and the
//! returned values. A local DFS ([`Summarizer::search`]) explores one root; at a call it looks
//! for a root whose pattern matches the callee's entry state (`Match`, Figure 7) and applies
//! that root's effects to the caller (`Apply`, Figure 8) instead of descending. A caller that
//! used a root depends on it (the dependency graph of Figure 4): when the root's pattern or
//! effects grow, the caller's call node is searched again.
//!
//! Visible states are looked up together with the set of locations written since the root's
//! entry (the δ augmentation of §5): two paths that reach the same values but wrote different
//! locations have different effects, and pruning one of them would lose behaviour.
//!
//! Every step still goes through [`Machine::step`], and every finding is a [`Path`] on whole
//! states, summaries expanded back into the steps that produced them, so the CLI replays it on
//! the interpreter like any other counterexample.

use crate::canon::{encode, fingerprint, Fingerprint};
use crate::explore::{Choice, Finding, Options, Path, SearchResult, Watch};
use crate::runtime::{Frame, Kind, Loc, Machine, Outcome, Record, Stack, State, Thread, Value};
use ahash::{AHashMap, AHashSet};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use zingrs_lang::ir::Stmt;

type RootId = u32;
type NodeId = u32;

/// What a procedure invocation did: the last value of each location it wrote, and its results.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Effect {
    writes: Vec<(Loc, Value)>,
    rets: Box<[Value]>,
}

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
    pattern: BTreeMap<Loc, Value>,
    /// Effects with the return node and the index of the return outcome that produced them.
    effects: Vec<(Effect, NodeId, u32)>,
    effect_set: AHashSet<Effect>,
    visited: AHashSet<Fingerprint>,
    nodes: Vec<Via>,
    updated: bool,
}

/// The written locations and their current values, sorted by location.
type Wmap = Vec<(Loc, Value)>;

fn wmap_set(w: &mut Wmap, loc: Loc, v: Value) {
    match w.binary_search_by_key(&loc, |(l, _)| *l) {
        Ok(i) => w[i].1 = v,
        Err(i) => w.insert(i, (loc, v)),
    }
}

fn wmap_has(w: &Wmap, loc: Loc) -> bool {
    w.binary_search_by_key(&loc, |(l, _)| *l).is_ok()
}

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

/// A node on the local DFS stack with its successors.
struct Frontier {
    succs: Vec<Succ>,
    next: usize,
}

/// An edge of the dependency graph: a caller's call node uses a root, whose first `num`
/// effects it has applied.
struct Edge {
    target: RootId,
    num: u32,
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
    Limit(crate::explore::Limit),
}

/// The summarizing engine's state.
pub struct Summarizer<'m, 'p> {
    m: &'m Machine<'p>,
    opts: &'m Options,
    roots: Vec<Root>,
    by_frame: AHashMap<(Frame, Arc<[Value]>), Vec<RootId>>,
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

/// Whether the summary engine can run a program by itself (sequential, standard layout);
/// otherwise the caller falls back to the plain search.
pub fn applies(m: &Machine) -> bool {
    !m.program.is_concurrent() && m.program.activations.len() == 1
}

/// Runs the summarizing search on a sequential program.
pub fn search(m: &Machine, opts: &Options) -> SearchResult {
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
    let mut s = Summarizer {
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
    };
    if let Err(Stop::Limit(l)) = s.run() {
        s.result.limit = Some(l);
    }
    let effects: u64 = s.roots.iter().map(|r| r.effects.len() as u64).sum();
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
    ];
    s.result
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

    /// The visited-table key: the canonical state plus the written-location set δ.
    fn key(&mut self, s: &State, wmap: &Wmap) -> Fingerprint {
        self.buf.clear();
        encode(s, &mut self.buf);
        self.buf.push(0xff);
        for (l, _) in wmap {
            self.buf.extend_from_slice(&l.addr.to_le_bytes());
            self.buf.extend_from_slice(&l.field.to_le_bytes());
        }
        fingerprint(&self.buf)
    }

    fn frame_key(s: &State) -> (Frame, Arc<[Value]>) {
        let t = &s.threads[0];
        let f = t.stack.top().expect("a visible state has a frame").clone();
        (f, t.thread_locals.clone())
    }

    /// `Match` (Figure 7): a root whose entry frame equals the callee's and whose pattern the
    /// state agrees with.
    fn find_root(&mut self, visible: &State) -> Option<RootId> {
        let cands = self.by_frame.get(&Self::frame_key(visible))?;
        for &r in cands {
            self.counters.match_attempts += 1;
            let ok = self.roots[r as usize]
                .pattern
                .iter()
                .all(|(&loc, &v)| self.m.read_loc(visible, 0, loc) == v);
            if ok {
                self.counters.match_hits += 1;
                return Some(r);
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
        let key = self.key(&entry, &Vec::new());
        let mut visited = AHashSet::new();
        visited.insert(key);
        self.by_frame
            .entry(Self::frame_key(&entry))
            .or_default()
            .push(id);
        self.roots.push(Root {
            entry: entry.clone(),
            init,
            origin,
            pattern: BTreeMap::new(),
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
            wmap: Vec::new(),
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

    /// Adds locations read at `s` (before any write on the path) to root `r`'s pattern.
    fn learn(&mut self, r: RootId, s: &State, wmap: &Wmap, reads: &[Loc]) {
        for &loc in reads {
            if wmap_has(wmap, loc) {
                continue;
            }
            let v = self.m.read_loc(s, 0, loc);
            let root = &mut self.roots[r as usize];
            if root.pattern.insert(loc, v).is_none() {
                root.updated = true;
            }
        }
    }

    /// `Search` (Figure 5): a DFS inside one root.
    fn search(&mut self, w: WorkItem) -> Result<(), Stop> {
        let r = w.root;
        let first = self.expand(r, w.node, &w.state, &w.wmap, w.kind)?;
        let mut stack = vec![(w.node, first)];
        while let Some((_, top)) = stack.last_mut() {
            if top.next >= top.succs.len() {
                stack.pop();
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
                    wmap: Vec::new(),
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

    fn expand(
        &mut self,
        r: RootId,
        id: NodeId,
        s: &State,
        wmap: &Wmap,
        kind: NodeKind,
    ) -> Result<Frontier, Stop> {
        match kind {
            NodeKind::Execute => self.expand_execute(r, id, s, wmap),
            NodeKind::Call => self.expand_call(r, id, s, wmap),
        }
    }

    /// `GetNextSuccessorExecute` (Figure 9), plus the RETURN nodes that add effects.
    fn expand_execute(
        &mut self,
        r: RootId,
        id: NodeId,
        s: &State,
        wmap: &Wmap,
    ) -> Result<Frontier, Stop> {
        let m = self.m;
        let f = s.threads[0]
            .stack
            .top()
            .expect("a visible state has a frame");
        let mut rec = std::mem::take(&mut self.rec);
        rec.clear();
        if let Stmt::Return { .. } = m.program.node(f.proc, f.pc).stmt {
            let results = m.return_values(s, 0, &mut rec);
            self.learn(r, s, wmap, &rec.reads);
            self.rec = rec;
            let results = match results {
                Ok(v) => v,
                Err(e) => {
                    // the step lists this error as its only outcome
                    let choice = Choice {
                        thread: 0,
                        outcome: 0,
                    };
                    let path = self.path_to(r, id, Some(choice));
                    self.found(Finding::Runtime { error: e, path }, (2, f.proc, f.pc))?;
                    return Ok(Frontier {
                        succs: Vec::new(),
                        next: 0,
                    });
                }
            };
            let root = &mut self.roots[r as usize];
            for (k, rets) in results.into_iter().enumerate() {
                let e = Effect {
                    writes: wmap.clone(),
                    rets,
                };
                if root.effect_set.insert(e.clone()) {
                    root.effects.push((e, id, k as u32));
                    root.updated = true;
                }
            }
            return Ok(Frontier {
                succs: Vec::new(),
                next: 0,
            });
        }
        let mut outs = std::mem::take(&mut self.outs);
        outs.clear();
        m.step(s, 0, &mut rec, &mut outs);
        self.learn(r, s, wmap, &rec.reads);
        let mut succs = Vec::new();
        let mut stop = None;
        for (k, o) in outs.drain(..).enumerate() {
            let choice = Choice {
                thread: 0,
                outcome: k as u32,
            };
            match o {
                Outcome::Pruned => {}
                Outcome::Violation(v) => {
                    let path = self.path_to(r, id, Some(choice));
                    let key = (0, f.proc, f.pc);
                    if let Err(e) = self.found(Finding::of_violation(v, path), key) {
                        stop = Some(e);
                        break;
                    }
                }
                Outcome::Next { state, kind } => {
                    let via = Via::Step { parent: id, choice };
                    if kind == Kind::Call {
                        succs.push(Succ {
                            state,
                            wmap: wmap.clone(),
                            kind: NodeKind::Call,
                            via,
                        });
                    } else {
                        let mut w = wmap.clone();
                        for &loc in &rec.writes {
                            wmap_set(&mut w, loc, m.read_loc(&state, 0, loc));
                        }
                        succs.push(Succ {
                            state,
                            wmap: w,
                            kind: NodeKind::Execute,
                            via,
                        });
                    }
                }
            }
        }
        outs.clear();
        self.rec = rec;
        self.outs = outs;
        match stop {
            Some(e) => Err(e),
            None => Ok(Frontier { succs, next: 0 }),
        }
    }

    /// The callee's visible state at a call node: the globals and the callee's entry frame.
    fn callee_visible(s: &State) -> State {
        let t = &s.threads[0];
        State {
            globals: s.globals.clone(),
            threads: Arc::new(vec![Thread {
                stack: Stack::new(t.stack.top().expect("a callee frame").clone()),
                thread_locals: t.thread_locals.clone(),
                atomic: t.atomic,
            }]),
            heap: s.heap.clone(),
        }
    }

    /// `GetNextSuccessorCall` (Figure 6): match or create the callee's root, learn its pattern,
    /// and apply every effect not yet applied (`Apply`, Figure 8).
    fn expand_call(
        &mut self,
        r: RootId,
        id: NodeId,
        s: &State,
        wmap: &Wmap,
    ) -> Result<Frontier, Stop> {
        let key = self.key(s, wmap);
        let target = match self.graph.get(&(r, key)) {
            Some(e) => e.target,
            None => {
                let visible = Self::callee_visible(s);
                let target = match self.find_root(&visible) {
                    Some(t) => t,
                    None => self.new_root(visible, None, Some((r, id)))?,
                };
                self.graph.insert((r, key), Edge { target, num: 0 });
                self.users.entry(target).or_default().push((r, key));
                self.call_nodes
                    .insert((r, key), (s.clone(), wmap.clone(), id));
                target
            }
        };
        // the caller now depends on what the callee read
        let reads: Vec<Loc> = self.roots[target as usize]
            .pattern
            .keys()
            .copied()
            .collect();
        self.learn(r, s, wmap, &reads);
        let from = self.graph.get(&(r, key)).map_or(0, |e| e.num) as usize;
        let count = self.roots[target as usize].effects.len();
        let mut succs = Vec::new();
        let mut rec = std::mem::take(&mut self.rec);
        for j in from..count {
            let (effect, _, _) = &self.roots[target as usize].effects[j];
            let effect = effect.clone();
            self.counters.applies += 1;
            let applied = self.m.write_locs(s, 0, &effect.writes);
            rec.clear();
            let out = self.m.finish_return(&applied, 0, &effect.rets, &mut rec);
            let mut w = wmap.clone();
            for &(loc, v) in &effect.writes {
                wmap_set(&mut w, loc, v);
            }
            // reads after the return (the caller's `enforce`) see the callee's writes
            self.learn(r, s, &w, &rec.reads);
            if let Outcome::Next { state, .. } = out {
                for &loc in &rec.writes {
                    wmap_set(&mut w, loc, self.m.read_loc(&state, 0, loc));
                }
                succs.push(Succ {
                    state,
                    wmap: w,
                    kind: NodeKind::Execute,
                    via: Via::Summary {
                        parent: id,
                        callee: target,
                        effect: j as u32,
                    },
                });
            }
        }
        self.rec = rec;
        if let Some(e) = self.graph.get_mut(&(r, key)) {
            e.num = count as u32;
        }
        Ok(Frontier { succs, next: 0 })
    }

    /// The choices from root `r`'s entry to node `n`, summaries expanded into their steps.
    fn choices_within(&self, r: RootId, n: NodeId) -> Vec<Choice> {
        let root = &self.roots[r as usize];
        let mut segments: Vec<Vec<Choice>> = Vec::new();
        let mut cur = n;
        loop {
            match root.nodes[cur as usize] {
                Via::Entry => break,
                Via::Step { parent, choice } => {
                    segments.push(vec![choice]);
                    cur = parent;
                }
                Via::Summary {
                    parent,
                    callee,
                    effect,
                } => {
                    let (_, ret_node, k) = &self.roots[callee as usize].effects[effect as usize];
                    let mut seg = self.choices_within(callee, *ret_node);
                    seg.push(Choice {
                        thread: 0,
                        outcome: *k,
                    });
                    segments.push(seg);
                    cur = parent;
                }
            }
        }
        segments.into_iter().rev().flatten().collect()
    }

    /// A whole path from an initial state to node `n` of root `r` (then `last`).
    fn path_to(&self, r: RootId, n: NodeId, last: Option<Choice>) -> Path {
        let mut segments = vec![self.choices_within(r, n)];
        let mut cur = r;
        while let Some((caller, call_node)) = self.roots[cur as usize].origin {
            segments.push(self.choices_within(caller, call_node));
            cur = caller;
        }
        let init = self.roots[cur as usize].init.clone().unwrap_or_default();
        Path {
            init,
            choices: segments.into_iter().rev().flatten().chain(last).collect(),
        }
    }
}
