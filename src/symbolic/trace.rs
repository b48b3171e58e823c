//! Counterexamples: a shortest-first hierarchical trajectory (seed 001 §3.2) walked back from
//! the error through the logged batches of path edges, expanded through summary edges into
//! concrete steps, and turned into interpreter choices.
//!
//! Walking back from a point (one valuation of the vertex's scope) at stamp `s`, each
//! predecessor is looked for in the batches with smaller stamps, the oldest first, so the
//! stamps strictly decrease and the walk ends. A step over a call's summary picks the caller's
//! point and a matching exit point of the callee, then walks inside the callee back to its entry
//! (a nested frame of the walk); at the entry of a procedure, the outermost walk goes on in a
//! caller, until the initial batch of `main`.
//!
//! The walk yields one point per concrete step, so the path is rebuilt by executing the
//! program on the interpreter: at each step the first outcome whose state agrees with the next
//! point (on the variables in its scope; the others are dead or untouched) is taken.
//!
//! The points only serve to pick among a step's outcomes, so a call whose whole execution has
//! no choice to make (the callee and everything it calls is *forced*: no `*`, no `goto` with
//! several targets, no havoc or constraint, no arbitrary initial value anyone reads) is not
//! walked into: the trail holds a gap there, and the interpreter runs the call through to its
//! return by itself. A gap that meets a choice after all makes the trace be rebuilt without
//! gaps, so a gap never changes the path, only what it costs to find it.

mod forced;
mod pre;
mod replay;
#[cfg(test)]
mod tests;

use super::bdd::Bdds;
use super::model::Encoder;
use super::reach::{Engine, Xfer, NONE};
use zingrs_lang::ir::Stmt;

/// A valuation of the scope of a vertex, found in the batch with stamp `stamp`.
pub(super) struct Point<F> {
    pub(super) v: u32,
    /// The conjunction of `vals`, built when first needed (most steps of a walk never need it).
    cube: std::cell::OnceCell<F>,
    /// `(variable, value)` for the scope's variables.
    pub(super) vals: Vals,
    stamp: u32,
}

impl<F> Point<F> {
    fn cube<B: Bdds<F = F>>(&self, b: &B) -> &F {
        self.cube.get_or_init(|| b.literals(&self.vals))
    }

    pub(super) fn get(&self, var: u32) -> Option<bool> {
        self.vals
            .binary_search_by_key(&var, |p| p.0)
            .ok()
            .map(|i| self.vals[i].1)
    }
}

/// A valuation of a scope, sorted by variable (inline: scopes are a few variables).
pub(super) type Vals = smallvec::SmallVec<[(u32, bool); 16]>;

/// A valuation and the stamp of the batch holding it.
pub(super) type Stamped = (u32, Vals);

/// The points of a walk, compactly: a counterexample has a point per concrete step (millions
/// on large programs), and each point's valuation is over its vertex's scope, so the values are
/// kept as bits in scope order.
#[derive(Default)]
pub(super) struct Trail {
    /// The vertex of each point ([`NONE`] for a gap: a forced call run on the interpreter
    /// alone, between the point at the call and the point at its return).
    pub(super) v: Vec<u32>,
    /// Where each point's bits start in `words`.
    start: Vec<u32>,
    words: Vec<u64>,
}

impl Trail {
    fn push<F>(&mut self, p: &Point<F>) {
        self.v.push(p.v);
        self.start.push(self.words.len() as u32);
        for chunk in p.vals.chunks(64) {
            let mut w = 0u64;
            for (k, &(_, val)) in chunk.iter().enumerate() {
                w |= (val as u64) << k;
            }
            self.words.push(w);
        }
    }

    /// A gap: the call of the point before it runs to the point after it on the interpreter.
    fn push_gap(&mut self) {
        self.v.push(NONE);
        self.start.push(self.words.len() as u32);
    }

    pub(super) fn len(&self) -> usize {
        self.v.len()
    }

    fn reverse(&mut self) {
        self.v.reverse();
        self.start.reverse();
    }

    /// The value of the `k`-th variable of point `i`'s scope.
    pub(super) fn bit(&self, i: usize, k: usize) -> bool {
        self.words[self.start[i] as usize + k / 64] >> (k % 64) & 1 != 0
    }
}

/// How a predecessor point was found: the same valuation (the step changes nothing), a set
/// to pick from, or a valuation found by evaluation.
enum Pre<F> {
    Kept,
    Meet(F),
    Vals(Vals),
}

/// Buffers [`Engine::pre_by_eval`] reuses from one step of the walk to the next.
#[derive(Default)]
struct Scratch {
    /// A valuation of the predecessor's scope.
    vals: Vec<(u32, bool)>,
    /// The point's values of the next copies of an assignment's live targets.
    next: Vec<(u32, bool)>,
    /// Where the free variables are in `vals`.
    free: Vec<usize>,
    /// `vals` and `next` merged, for the assignment's relation.
    full: Vec<(u32, bool)>,
    /// Where the free variables are in `full`.
    free_full: Vec<usize>,
}

/// The switch rules of the context-bounded search as a walk of one thread sees them
/// (`contexts::interleave`): where the thread's history starts, and the earlier context a
/// point was resumed from.
pub(super) trait Switches {
    /// Whether the thread's first context starts at `v` with valuation `vals`.
    fn starts(&self, v: u32, vals: &[(u32, bool)]) -> bool;
    /// A valuation at `v` in an earlier context of the thread, in a batch older than `below`,
    /// that the switch rules resume as `vals`; with the stamp of its batch.
    fn resumed_from(&self, v: u32, vals: &[(u32, bool)], below: u32) -> Option<Stamped>;
}

/// A frame of the backward walk: the current point. A nested frame walks inside a callee
/// from an exit back to its entry; its parent waits at the call.
struct WalkFrame<F> {
    at: Point<F>,
}

impl<B: Bdds> Engine<'_, '_, B> {
    /// The batches of `v`, oldest first.
    fn batches(&self, v: u32) -> smallvec::SmallVec<[u32; 8]> {
        let mut out = smallvec::SmallVec::new();
        let mut i = self.head[v as usize];
        while i != NONE {
            out.push(i);
            i = self.log[i as usize].1;
        }
        out.reverse();
        out
    }

    /// The oldest batch of `v` older than `below` that meets `pre`, and the meet.
    pub(super) fn first_meet(&self, v: u32, pre: &B::F, below: u32) -> Option<(u32, B::F)> {
        let b = &self.bdd;
        if b.is_false(pre) {
            return None;
        }
        for i in self.batches(v) {
            if i >= below {
                break;
            }
            let meet = b.and(&self.log[i as usize].0, pre);
            if !b.is_false(&meet) {
                return Some((i, meet));
            }
        }
        None
    }

    /// The union of the batches of `v` older than `below`.
    fn before(&self, v: u32, below: u32) -> B::F {
        let b = &self.bdd;
        let mut acc = b.constant(false);
        for i in self.batches(v) {
            if i >= below {
                break;
            }
            acc = b.or(&acc, &self.log[i as usize].0);
        }
        acc
    }

    /// One valuation of `v`'s scope inside `f`.
    pub(super) fn point(&self, v: u32, f: &B::F, stamp: u32) -> Point<B::F> {
        let pick = self.bdd.pick(f).expect("a non-empty set");
        let vals: Vals = self
            .scope_of(v)
            .iter()
            .map(|&x| (x, pick[x as usize].unwrap_or(false)))
            .collect();
        Point {
            v,
            cube: Default::default(),
            vals,
            stamp,
        }
    }

    /// The value sets of call site `c`'s arguments (over the caller's current copies).
    fn arg_sets(&self, c: u32) -> Vec<super::model::Sets<B::F>> {
        let q = self.proc_of[c as usize];
        let Stmt::Call { args, .. } = &self.m.program.node(q, self.pc(c)).stmt else {
            return Vec::new();
        };
        let enc = Encoder {
            bdd: &self.bdd,
            layout: self.layout,
        };
        args.iter().map(|a| enc.sets(a, &enc.unprimed())).collect()
    }

    /// Points at call vertex `c` that enter the callee at entry point `at`.
    fn callers_pre(&self, i: usize, at: &Point<B::F>) -> B::F {
        let b = &self.bdd;
        let cs = &self.callsites[i];
        let touched = &self.procs[cs.callee as usize].touched;
        let lits: Vec<(u32, bool)> = touched
            .iter()
            .filter_map(|g| at.get(self.layout.cv(g)).map(|x| (self.layout.cv(g), x)))
            .collect();
        let mut pre = b.literals(&lits);
        for (j, s) in self.arg_sets(cs.c).into_iter().enumerate() {
            if let Some(x) = at.get(self.layout.cv(self.g + j as u32)) {
                pre = b.and(&pre, if x { &s.t } else { &s.f });
            }
        }
        pre
    }

    /// Walks back from the error point to the initial state (with `switches`, to the start of
    /// the thread's first context, through its earlier contexts); the points in forward order.
    /// With `gaps`, a call of a forced procedure ([`Engine::forced_calls`]) is a gap in the
    /// trail instead of the callee's points.
    pub(super) fn walk(
        &self,
        start: Point<B::F>,
        switches: Option<&dyn Switches>,
        gaps: bool,
    ) -> Result<Trail, String> {
        let b = &self.bdd;
        let forced = if gaps {
            self.forced_calls()
        } else {
            Vec::new()
        };
        // the predecessors of each vertex, in increasing order, in one flat array
        let n = self.proc_of.len();
        let mut pred_start = vec![0u32; n + 1];
        for u in 0..n as u32 {
            let ss = self.succs(u);
            for (k, &w) in ss.iter().enumerate() {
                if !ss[..k].contains(&w) {
                    pred_start[w as usize + 1] += 1;
                }
            }
        }
        for i in 0..n {
            pred_start[i + 1] += pred_start[i];
        }
        let mut fill = pred_start.clone();
        let mut pred_list = vec![0u32; pred_start[n] as usize];
        for u in 0..n as u32 {
            let ss = self.succs(u);
            for (k, &w) in ss.iter().enumerate() {
                if !ss[..k].contains(&w) {
                    pred_list[fill[w as usize] as usize] = u;
                    fill[w as usize] += 1;
                }
            }
        }
        let preds = |v: u32| {
            &pred_list[pred_start[v as usize] as usize..pred_start[v as usize + 1] as usize]
        };
        let main_entry = self.entry(self.main);
        let mut out = Trail::default();
        let mut frames: Vec<WalkFrame<B::F>> = vec![WalkFrame { at: start }];
        let mut scratch = Scratch::default();
        loop {
            let top = frames.last().expect("a frame");
            let at = &top.at;
            let v = at.v;
            let q = self.proc_of[v as usize];
            if let Some(sw) = switches {
                if frames.len() == 1 && sw.starts(v, &at.vals) {
                    out.push(&frames.pop().expect("frame").at);
                    break;
                }
            }
            if v == self.entry(q) {
                let info = &self.procs[q as usize];
                let start = if info.called {
                    // the point satisfies E = C (the self-loop mentions only its scope)
                    match b.eval(&info.selfloop, &at.vals) {
                        Some(x) => x,
                        None => b.is_false(&b.and_not(at.cube(b), &info.selfloop)),
                    }
                } else {
                    at.stamp == 0
                };
                if start {
                    if frames.len() > 1 {
                        // the callee's entry: the parent frame is at the call already
                        out.push(&frames.pop().expect("nested frame").at);
                        continue;
                    }
                    if v == main_entry && at.stamp == 0 {
                        out.push(&frames.pop().expect("frame").at);
                        break;
                    }
                    // the outermost walk goes on in a caller
                    let mut best: Option<(u32, usize, B::F)> = None;
                    for &i in &self.procs[q as usize].callsites {
                        let pre = self.callers_pre(i as usize, at);
                        let c = self.callsites[i as usize].c;
                        if let Some((s, meet)) = self.first_meet(c, &pre, at.stamp) {
                            if best.as_ref().is_none_or(|x| s < x.0) {
                                best = Some((s, i as usize, meet));
                            }
                        }
                    }
                    let Some((s, i, meet)) = best else {
                        return Err(format!("no caller enters vertex {v}"));
                    };
                    let c = self.callsites[i].c;
                    let p = self.point(c, &meet, s);
                    let top = frames.last_mut().expect("frame");
                    out.push(&std::mem::replace(&mut top.at, p));
                    continue;
                }
            }
            // a predecessor inside the procedure, possibly over a summary
            let mut best: Option<(u32, u32, Pre<B::F>)> = None;
            for &u in preds(v) {
                let Some(x) = self.xfer[u as usize].as_deref() else {
                    continue;
                };
                if let Some(s) = self.kept_point(u, v, x, at) {
                    // the step keeps the point: no BDD operation, no new pick
                    if let Some(s) = s {
                        if best.as_ref().is_none_or(|x| s < x.0) {
                            best = Some((s, u, Pre::Kept));
                        }
                    }
                    continue;
                }
                if let Some(found) = self.pre_by_eval(u, v, x, at, &mut scratch) {
                    if let Some((s, vals)) = found {
                        if best.as_ref().is_none_or(|x| s < x.0) {
                            best = Some((s, u, Pre::Vals(vals)));
                        }
                    }
                    continue;
                }
                let pre = match x {
                    Xfer::Jump { .. } => at.cube(b).clone(),
                    Xfer::Branch { t, f, .. } => {
                        let s = self.succs(u);
                        let mut g = b.constant(false);
                        if s[0] == v {
                            g = b.or(&g, t);
                        }
                        if s[1] == v {
                            g = b.or(&g, f);
                        }
                        b.and(at.cube(b), &g)
                    }
                    Xfer::Assume { t, .. } | Xfer::Assert { t, .. } => b.and(at.cube(b), t),
                    Xfer::Update {
                        rel, back, ncube, ..
                    } => {
                        // the point's cube with the targets' current copies renamed to next
                        let lits: Vec<(u32, bool)> = at
                            .vals
                            .iter()
                            .map(|&(x, val)| (b.renamed(back, x), val))
                            .collect();
                        b.and_exists(&b.literals(&lits), rel, ncube)
                    }
                    Xfer::Call(i) => self.summary_pre(*i as usize, at),
                    Xfer::Return { .. } => continue,
                };
                if let Some((s, meet)) = self.first_meet(u, &pre, at.stamp) {
                    if best.as_ref().is_none_or(|x| s < x.0) {
                        best = Some((s, u, Pre::Meet(meet)));
                    }
                }
            }
            // the same vertex in an earlier context of the thread (a switch back to it)
            let mut switched = false;
            if let Some((s, vals)) = switches.and_then(|sw| sw.resumed_from(v, &at.vals, at.stamp))
            {
                if best.as_ref().is_none_or(|x| s < x.0) {
                    best = Some((s, v, Pre::Vals(vals)));
                    switched = true;
                }
            }
            let Some((s, u, meet)) = best else {
                return Err(format!(
                    "no predecessor of vertex {v} at stamp {}",
                    at.stamp
                ));
            };
            let p = match meet {
                Pre::Meet(meet) => self.point(u, &meet, s),
                Pre::Kept => Point {
                    v: u,
                    cube: at.cube.clone(),
                    vals: at.vals.clone(),
                    stamp: s,
                },
                Pre::Vals(vals) => Point {
                    v: u,
                    cube: Default::default(),
                    vals,
                    stamp: s,
                },
            };
            if let (false, Some(Xfer::Call(i))) = (switched, self.xfer[u as usize].as_deref()) {
                if forced.get(*i as usize) == Some(&true) {
                    // the call runs through on the interpreter alone
                    let top = frames.last_mut().expect("frame");
                    out.push(&std::mem::replace(&mut top.at, p));
                    out.push_gap();
                    continue;
                }
                // over the summary: the callee runs from its entry to an exit in a nested frame
                let exit = self.exit_point(*i as usize, &p, at)?;
                let top = frames.last_mut().expect("frame");
                out.push(&std::mem::replace(&mut top.at, p));
                frames.push(WalkFrame { at: exit });
                continue;
            }
            let top = frames.last_mut().expect("frame");
            out.push(&std::mem::replace(&mut top.at, p));
        }
        out.reverse();
        Ok(out)
    }

    /// Points at call vertex `i.c` whose summary edges (from exits older than the point `at`
    /// at the return point) lead to `at`.
    fn summary_pre(&self, i: usize, at: &Point<B::F>) -> B::F {
        let b = &self.bdd;
        let cs = &self.callsites[i];
        let q = cs.callee as usize;
        let mut ex = b.constant(false);
        for &r in &self.procs[q].returns {
            if let Some(Xfer::Return { rel }) = self.xfer[r as usize].as_deref() {
                let pe = self.before(r, at.stamp);
                ex = b.or(&ex, &b.and_exists(&pe, rel, &self.procs[q].exit_cube));
            }
        }
        let lifted = self.lift(cs, &ex);
        let back: Vec<(u32, u32)> = cs
            .ret_slots
            .iter()
            .map(|&s| (self.layout.cv(s), self.layout.nv(s)))
            .collect();
        let ncube = b.cube(
            &cs.ret_slots
                .iter()
                .map(|&s| self.layout.nv(s))
                .collect::<Vec<_>>(),
        );
        b.and_exists(&b.rename(at.cube(b), &b.renaming(&back)), &lifted, &ncube)
    }

    /// A point at an exit of the callee of call site `i` that the caller point `pc` enters and
    /// that returns to `at`.
    fn exit_point(
        &self,
        i: usize,
        pc: &Point<B::F>,
        at: &Point<B::F>,
    ) -> Result<Point<B::F>, String> {
        let b = &self.bdd;
        let cs = &self.callsites[i];
        let q = cs.callee as usize;
        let touched = &self.procs[q].touched;
        let mut lits: Vec<(u32, bool)> = Vec::new();
        for g in touched.iter() {
            if let Some(x) = pc.get(self.layout.cv(g)) {
                lits.push((self.layout.ev(g), x));
            }
            if !cs.recv.contains(&Some(g)) {
                if let Some(x) = at.get(self.layout.cv(g)) {
                    lits.push((self.layout.cv(g), x));
                }
            }
        }
        for (j, s) in self.arg_sets(cs.c).into_iter().enumerate() {
            let can_t = !b.is_false(&b.restrict(&s.t, pc.cube(b)));
            let can_f = !b.is_false(&b.restrict(&s.f, pc.cube(b)));
            if can_t != can_f {
                lits.push((self.layout.ev(self.g + j as u32), can_t));
            }
        }
        let mut nlits: Vec<(u32, bool)> = Vec::new();
        for (k, r) in cs.recv.iter().enumerate() {
            if let Some(s) = r {
                if let Some(x) = at.get(self.layout.cv(*s)) {
                    nlits.push((self.layout.nv(self.g + k as u32), x));
                }
            }
        }
        let link = b.literals(&lits);
        let nlink = b.literals(&nlits);
        let ncube = b.cube(&self.ret_vars(q));
        let mut best: Option<(u32, u32, B::F)> = None;
        for &r in &self.procs[q].returns {
            let Some(Xfer::Return { rel }) = self.xfer[r as usize].as_deref() else {
                continue;
            };
            let outs = b.exists(&b.and(rel, &nlink), &ncube);
            let pre = b.and(&link, &outs);
            if let Some((s, meet)) = self.first_meet(r, &pre, at.stamp) {
                if best.as_ref().is_none_or(|x| s < x.0) {
                    best = Some((s, r, meet));
                }
            }
        }
        let Some((s, r, meet)) = best else {
            return Err(format!("no exit of procedure {q} matches a summary edge"));
        };
        Ok(self.point(r, &meet, s))
    }

    /// The next copies of the result temporaries of procedure `q`.
    fn ret_vars(&self, q: usize) -> Vec<u32> {
        let n = self.m.program.procs[q].returns.len() as u32;
        (0..n).map(|k| self.layout.nv(self.g + k)).collect()
    }
}
