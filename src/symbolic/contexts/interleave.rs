//! Counterexamples of the context-bounded search, walked back from its stored BDDs.
//!
//! The reached target is one valuation of the augmented program: it fixes the context `c` it
//! is in, the thread `t_i` of every context i ≤ c and the globals `g_i` at every switch. Each
//! thread that runs in one of those contexts has a history of its own, found by walking back
//! the thread's path edges ([`Engine::walk`]) from its last point: the target for the
//! target's thread, a state it may be left in at its last context (globals g_{L+1}) for the
//! others. Statements keep `cs`, ḡ and t̄, so the walk stays in a context until it reaches a
//! point a switch back to the thread started; there it goes on from the same vertex, locals
//! and entry copies at the thread's previous context, with the globals it was left with (the
//! [`Switches`] the walk asks). A history ends where the thread's first context starts.
//! `init`'s walk ends at its `endinit` with the globals context 0 starts with.
//!
//! The histories are then run on the interpreter of the original program, context by context
//! in the order of t̄, each step matched against the next point, so the path the report
//! prints has been executed once already.

use super::tuples::{Contexts, Extra};
use super::{Shape, Tids};
use crate::runtime::{Machine, Outcome, State, Value};
use crate::search::{Finding, Path, Replayed, Replayer};
use crate::symbolic::bdd::Bdds;
use crate::symbolic::reach::{Engine, Found, Xfer, NONE};
use crate::symbolic::trace::{Stamped, Switches, Trail, Vals};
use zingrs_lang::ir::{Pc, ProcId};

/// A sorted valuation's value of `var`.
fn get(vals: &[(u32, bool)], var: u32) -> Option<bool> {
    vals.binary_search_by_key(&var, |p| p.0)
        .ok()
        .map(|i| vals[i].1)
}

/// The number the bits `vars` (least significant first) spell in `vals`.
fn number(vals: &[(u32, bool)], vars: &[u32]) -> Option<u32> {
    let mut n = 0;
    for (bit, &x) in vars.iter().enumerate() {
        if get(vals, x)? {
            n |= 1 << bit;
        }
    }
    Some(n)
}

/// The variables (current copies) of the added globals.
struct Vars {
    own: Vec<u32>,
    cs: Vec<u32>,
    t: Vec<Vec<u32>>,
    gs: Vec<Vec<u32>>,
    atomic: Option<u32>,
}

/// The switch rules for the walk of thread `j`.
struct Thread<'a, B: Bdds> {
    e: &'a Engine<'a, 'a, B>,
    ctx: &'a Contexts<B>,
    vars: &'a Vars,
    /// The entry vertex of the thread's procedure.
    entry: u32,
    /// The thread's first context.
    first: u32,
    /// Per context (up to the target's): the thread's previous context, if any.
    prev: Vec<Option<u32>>,
    /// The globals `init` may start the threads with (for a first context 0).
    started: B::F,
}

impl<B: Bdds> Thread<'_, B> {
    /// Whether the program's globals equal the copy g_i in `vals`.
    fn globals_are(&self, vals: &[(u32, bool)], i: u32) -> bool {
        let copy = &self.vars.gs[i as usize - 1];
        self.vars
            .own
            .iter()
            .zip(copy)
            .all(|(&o, &g)| get(vals, o).is_some() && get(vals, o) == get(vals, g))
    }
}

impl<B: Bdds> Switches for Thread<'_, B> {
    fn starts(&self, v: u32, vals: &[(u32, bool)]) -> bool {
        if v != self.entry || number(vals, &self.vars.cs) != Some(self.first) {
            return false;
        }
        let b = &self.e.bdd;
        let j = self.ctx.starts.iter().position(|&w| w == v);
        let init_ok = j.is_some_and(|j| b.eval(&self.ctx.entry_init[j], vals) == Some(true));
        let globals_ok = if self.first == 0 {
            b.eval(&self.started, vals) == Some(true)
        } else {
            self.globals_are(vals, self.first)
        };
        init_ok && globals_ok
    }

    fn resumed_from(&self, v: u32, vals: &[(u32, bool)], below: u32) -> Option<Stamped> {
        let c = number(vals, &self.vars.cs)?;
        let c2 = (*self.prev.get(c as usize)?)?;
        let ended = self.ctx.release_on_end && self.ctx.ending[v as usize];
        if !self.ctx.switchable[v as usize] || ended || !self.globals_are(vals, c) {
            return None;
        }
        // the same point at context c2, with the globals the thread was left with (g_{c2+1})
        let mut pre: Vals = Vals::from_slice(vals);
        let set = |pre: &mut Vals, var: u32, x: bool| {
            if let Ok(i) = pre.binary_search_by_key(&var, |p| p.0) {
                pre[i].1 = x;
            }
        };
        for (bit, &x) in self.vars.cs.iter().enumerate() {
            set(&mut pre, x, c2 >> bit & 1 == 1);
        }
        for (&o, &g) in self.vars.own.iter().zip(&self.vars.gs[c2 as usize]) {
            set(&mut pre, o, get(vals, g)?);
        }
        if !self.ctx.ending[v as usize]
            && self.vars.atomic.is_some_and(|a| get(&pre, a) == Some(true))
        {
            return None;
        }
        let s = self.e.batch_holding(v, &pre, below)??;
        Some((s, pre))
    }
}

/// One thread's history: its trail and the context of each point.
struct History {
    thread: usize,
    trail: Trail,
    cs: Vec<u32>,
}

/// The counterexample of finding `f`: a path of the original program `m` and its replay
/// (every state when `all`).
pub(super) fn counterexample<B: Bdds>(
    e: &Engine<'_, '_, B>,
    ctx: &Contexts<B>,
    x: &Extra,
    shape: &Shape,
    m: &Machine,
    f: Found,
    all: bool,
) -> Result<(Finding, Replayed), String> {
    let b = &e.bdd;
    let cv = |s: u32| e.layout.cv(s);
    let vars = Vars {
        own: x.own.iter().map(|&s| cv(s)).collect(),
        cs: x.cs.iter().map(|&s| cv(s)).collect(),
        t: x.t
            .iter()
            .map(|v| v.iter().map(|&s| cv(s)).collect())
            .collect(),
        gs: x
            .gs
            .iter()
            .map(|v| v.iter().map(|&s| cv(s)).collect())
            .collect(),
        atomic: ctx.atomic.map(cv),
    };
    let (v, set) = match f {
        Found::Target { v, .. } => (v, b.constant(true)),
        Found::Assertion { v } => match e.xfer[v as usize].as_deref() {
            Some(Xfer::Assert { bad, .. }) => (v, bad.clone()),
            _ => return Err("not an assertion".into()),
        },
    };
    let (s, meet) = e
        .first_meet(v, &set, NONE)
        .ok_or("the error vertex has no path edge")?;
    let target = e.point(v, &meet, s);
    let mut histories: Vec<History> = Vec::new();
    let init_start;
    let schedule: Vec<usize>;
    if ctx.endinit.is_some() && e.proc_of[v as usize] == e.main {
        // inside `init`, before any thread
        schedule = Vec::new();
        init_start = Some(target);
    } else {
        let c = number(&target.vals, &vars.cs).ok_or("the target has no context")?;
        schedule = (0..=c as usize)
            .map(|i| number(&target.vals, &vars.t[i]).map(|t| t as usize))
            .collect::<Option<_>>()
            .ok_or("the target has no schedule")?;
        // ḡ and t̄ as the target has them: every thread's history shares them
        let mut shared: Vec<(u32, bool)> = vars
            .t
            .iter()
            .flatten()
            .chain(vars.gs.iter().flatten())
            .filter_map(|&x| target.get(x).map(|val| (x, val)))
            .collect();
        shared.sort_unstable();
        let shared = b.literals(&shared);
        let started = match ctx.endinit {
            Some(endinit) => {
                let at = &e.reached[endinit as usize];
                let mut keep = vars.own.clone();
                keep.sort_unstable();
                b.project(at, &keep)
            }
            // the standard layout: main's first context starts in an initial state
            None => e.initial(),
        };
        let mut target = Some(target);
        for j in 0..ctx.starts.len() {
            let Some(last) = schedule.iter().rposition(|&t| t == j) else {
                continue;
            };
            let first = schedule.iter().position(|&t| t == j).expect("j runs") as u32;
            let prev = (0..schedule.len())
                .map(|i| {
                    schedule[..i]
                        .iter()
                        .rposition(|&t| t == j)
                        .map(|p| p as u32)
                })
                .collect();
            let start = if last == c as usize {
                target.take().expect("one thread runs in the last context")
            } else {
                // a state the thread may be left in at its last context, with globals g_{last+1}
                let mut left = b.and(&ctx.cs_is[last], &ctx.phase);
                left = b.and(&left, &shared);
                left = b.and(&left, &ctx.t_is[last][j]);
                let mut best: Option<(u32, u32, B::F)> = None;
                for (w, r) in e.reached.iter().enumerate() {
                    if !ctx.switchable[w] || b.is_false(r) {
                        continue;
                    }
                    let s = if ctx.ending[w] {
                        ctx.conj_eq(b, &left, last as u32 + 1, true)
                    } else {
                        b.and(
                            &ctx.conj_eq(b, &left, last as u32 + 1, false),
                            &ctx.unlocked,
                        )
                    };
                    if let Some((st, meet)) = e.first_meet(w as u32, &s, NONE) {
                        if best.as_ref().is_none_or(|x| st < x.0) {
                            best = Some((st, w as u32, meet));
                        }
                    }
                }
                let (st, w, meet) = best
                    .ok_or_else(|| format!("thread {j} has no state to leave at context {last}"))?;
                e.point(w, &meet, st)
            };
            let sw = Thread {
                e,
                ctx,
                vars: &vars,
                entry: ctx.starts[j],
                first,
                prev,
                started: started.clone(),
            };
            let trail = e
                .walk(start, Some(&sw), false)
                .map_err(|w| format!("thread slot {j}: {w}"))?;
            let cs = (0..trail.len())
                .map(|i| value(e, &trail, i, &vars.cs))
                .collect::<Option<Vec<u32>>>()
                .ok_or("a point without a context")?;
            histories.push(History {
                thread: j,
                trail,
                cs,
            });
        }
        // `init` at `endinit` with the globals context 0 starts with
        init_start = match ctx.endinit {
            Some(endinit) => Some(init_point(e, &vars, &histories, schedule[0], endinit)?),
            None => None,
        };
    }
    let run = Run {
        e,
        m,
        own: &x.own[..shape.own_globals as usize],
        orig: &shape.orig,
        sites: &shape.sites,
    };
    let violation = matches!(f, Found::Assertion { .. });
    let (path, replayed) = match init_start {
        Some(init_start) => {
            let init_trail = e.walk(init_start, None, false)?;
            run.replay(&init_trail, &schedule, &histories, violation, all)?
        }
        None => run.replay_standard(&schedule, &histories, violation, all)?,
    };
    Ok((e.finding_of(f, path), replayed))
}

/// `init`'s point at `endinit` with the globals the first context (of thread `t0`) starts
/// with.
fn init_point<B: Bdds>(
    e: &Engine<'_, '_, B>,
    vars: &Vars,
    histories: &[History],
    t0: usize,
    endinit: u32,
) -> Result<crate::symbolic::trace::Point<B::F>, String> {
    let b = &e.bdd;
    {
        let h0 = histories
            .iter()
            .find(|h| h.thread == t0)
            .expect("thread t_0 runs");
        let scope = e.scope_of(h0.trail.v[0]);
        let lits: Vec<(u32, bool)> = scope
            .iter()
            .enumerate()
            .filter(|(_, x)| vars.own.contains(x))
            .map(|(k, &x)| (x, h0.trail.bit(0, k)))
            .collect();
        let (s, meet) = e
            .first_meet(endinit, &b.literals(&lits), NONE)
            .ok_or("init does not start the threads with these globals")?;
        Ok(e.point(endinit, &meet, s))
    }
}

/// The number the bits `vars` spell at the trail's point `i`.
fn value<B: Bdds>(e: &Engine<B>, t: &Trail, i: usize, vars: &[u32]) -> Option<u32> {
    let scope = e.scope_of(t.v[i]);
    let mut n = 0;
    for (bit, x) in vars.iter().enumerate() {
        let k = scope.binary_search(x).ok()?;
        if t.bit(i, k) {
            n |= 1 << bit;
        }
    }
    Some(n)
}

/// The histories run on the original program's interpreter.
struct Run<'a, 'm, 'p, B: Bdds> {
    e: &'a Engine<'a, 'a, B>,
    m: &'m Machine<'p>,
    /// The augmented program's slot of each of the original program's globals (consecutive;
    /// the globals the standard layout adds follow them).
    own: &'a [u32],
    /// The original procedure of each procedure of the augmented program.
    orig: &'a [ProcId],
    /// The creation sites (procedure and pc) and the thread slots each fills, in order.
    sites: &'a [((ProcId, Pc), Vec<usize>)],
}

impl<B: Bdds> Run<'_, '_, '_, B> {
    /// Whether thread `tid` of `s` is at the trail's point `i` and agrees with its valuation
    /// (on its locals only unless `globals`).
    fn agrees(&self, s: &State, tid: usize, t: &Trail, i: usize, globals: bool) -> bool {
        let e = self.e;
        let Some(frame) = s.threads.get(tid).and_then(|t| t.stack.top()) else {
            return false;
        };
        let v = t.v[i];
        if frame.proc != self.orig[e.proc_of[v as usize] as usize] || frame.pc != e.pc(v) {
            return false;
        }
        let gv = self.m.global_values(s, Some(tid));
        e.scope_of(v).iter().enumerate().all(|(k, &x)| {
            let (slot, copy) = e.layout.slot_of(x);
            if copy != 1 {
                return true;
            }
            let actual = if slot < e.g {
                let base = self.own.first().copied().unwrap_or(0);
                if !globals || slot < base || slot >= base + self.own.len() as u32 {
                    return true;
                }
                gv[(slot - base) as usize]
            } else {
                match frame.locals.get((slot - e.g) as usize) {
                    Some(v) => *v,
                    None => return true,
                }
            };
            actual.as_bool() == t.bit(i, k)
        })
    }

    /// Steps thread `tid` to each point of `t` in `from..to` in turn.
    fn follow(
        &self,
        r: &mut Replayer,
        tid: usize,
        t: &Trail,
        from: usize,
        to: usize,
    ) -> Result<(), String> {
        for k in from..to {
            let hit = r.outcomes(tid as u32)?.iter().position(|o| match o {
                Outcome::Next { state, .. } => self.agrees(state, tid, t, k, true),
                _ => false,
            });
            let Some(i) = hit else {
                let v = t.v[k];
                return Err(format!(
                    "thread {tid}: no outcome reaches {} pc {}",
                    self.m.program.procs[self.e.proc_of[v as usize] as usize].name,
                    self.e.pc(v)
                ));
            };
            r.take(i as u32)?;
        }
        Ok(())
    }

    fn replay(
        &self,
        init: &Trail,
        schedule: &[usize],
        histories: &[History],
        violation: bool,
        all: bool,
    ) -> Result<(Path, Replayed), String> {
        let e = self.e;
        let p = self.m.program;
        let scope0 = e.scope_of(init.v[0]);
        let value = |var: u32, init_: zingrs_lang::ir::Init| {
            let at = scope0.binary_search(&var).ok().map(|k| init.bit(0, k));
            Value::Bool(
                at.or(crate::symbolic::model::fixed_init(init_))
                    .unwrap_or(false),
            )
        };
        let mut start: Vec<Value> = Vec::new();
        for (i, gv) in p.globals.iter().enumerate() {
            start.push(value(e.layout.cv(self.own[i]), gv.init));
        }
        for (j, lv) in p.procs[e.main as usize].locals.iter().enumerate() {
            start.push(value(e.layout.cv(e.g + j as u32), lv.init));
        }
        let mut r = Replayer::start(self.m, start, all)?;
        if !self.agrees(r.state(), 0, init, 0, true) {
            return Err("the initial state does not match".into());
        }
        self.follow(&mut r, 0, init, 1, init.len())?;
        let mut last_thread = 0;
        if !schedule.is_empty() {
            // init gives way to the threads: their locals as their histories start
            let hit = r.outcomes(0)?.iter().position(|o| match o {
                Outcome::Next { state, .. } => histories
                    .iter()
                    .all(|h| self.agrees(state, h.thread, &h.trail, 0, false)),
                _ => false,
            });
            r.take(hit.ok_or("no start of the threads matches their histories")? as u32)?;
            let mut at = vec![0usize; histories.len()];
            for (c, &j) in schedule.iter().enumerate() {
                let h = histories
                    .iter()
                    .position(|h| h.thread == j)
                    .expect("a history per thread");
                let hist = &histories[h];
                let from = at[h];
                let mut to = from;
                while to < hist.trail.len() && hist.cs[to] == c as u32 {
                    to += 1;
                }
                if to == from {
                    return Err(format!("thread {j} has no point in context {c}"));
                }
                if !self.agrees(r.state(), j, &hist.trail, from, true) {
                    return Err(format!("context {c}: thread {j} does not resume as walked"));
                }
                self.follow(&mut r, j, &hist.trail, from + 1, to)?;
                at[h] = to;
                last_thread = j;
            }
        }
        if violation {
            let i = r
                .outcomes(last_thread as u32)?
                .iter()
                .position(|o| matches!(o, Outcome::Violation(_)))
                .ok_or("the assertion does not fail")?;
            r.take(i as u32)?;
        }
        Ok(r.finish())
    }
}

impl<B: Bdds> Run<'_, '_, '_, B> {
    /// The creation site at vertex `v`, if it is one.
    fn site_at(&self, v: u32) -> Option<usize> {
        let q = self.e.proc_of[v as usize];
        let pc = self.e.pc(v);
        self.sites.iter().position(|s| s.0 == (q, pc))
    }

    /// Steps the thread of `slot` to each point of its history in `from..to`; a step at a
    /// creation site also creates the next slot of the site, whose first frame must agree
    /// with the start of that slot's history.
    fn follow_slot(
        &self,
        r: &mut Replayer,
        slot: usize,
        tids: &mut Tids,
        histories: &[History],
        h: &History,
        steps: std::ops::Range<usize>,
    ) -> Result<(), String> {
        for k in steps {
            let tid = tids.of(slot)?;
            let site = self.site_at(h.trail.v[k - 1]);
            let child = site.and_then(|i| tids.child(self.sites, i));
            let child_history = child.and_then(|c| histories.iter().find(|h| h.thread == c));
            let hit = r.outcomes(tid as u32)?.iter().position(|o| match o {
                Outcome::Next { state, .. } => {
                    self.agrees(state, tid, &h.trail, k, true)
                        && child_history.is_none_or(|ch| {
                            let new = state.threads.len() - 1;
                            self.agrees(state, new, &ch.trail, 0, false)
                        })
                }
                _ => false,
            });
            let Some(i) = hit else {
                let v = h.trail.v[k];
                return Err(format!(
                    "thread slot {slot}: no outcome reaches {} pc {}",
                    self.m.program.procs[self.orig[self.e.proc_of[v as usize] as usize] as usize]
                        .name,
                    self.e.pc(v)
                ));
            };
            r.take(i as u32)?;
            if let (Some(site), Some(c)) = (site, child) {
                tids.created(site, c, r.state().threads.len() - 1);
            }
        }
        Ok(())
    }

    /// The standard layout: slot 0 (`main`) runs from an initial state; the histories run
    /// context by context in the order of the schedule.
    fn replay_standard(
        &self,
        schedule: &[usize],
        histories: &[History],
        violation: bool,
        all: bool,
    ) -> Result<(Path, Replayed), String> {
        let e = self.e;
        let p = self.m.program;
        let h0 = histories
            .iter()
            .find(|h| h.thread == 0)
            .ok_or("main does not run")?;
        let scope0 = e.scope_of(h0.trail.v[0]);
        let value = |var: u32, init_: zingrs_lang::ir::Init| {
            let at = scope0.binary_search(&var).ok().map(|k| h0.trail.bit(0, k));
            Value::Bool(
                at.or(crate::symbolic::model::fixed_init(init_))
                    .unwrap_or(false),
            )
        };
        let mut start: Vec<Value> = Vec::new();
        for (i, gv) in p.globals.iter().enumerate() {
            start.push(value(e.layout.cv(self.own[i]), gv.init));
        }
        for (j, lv) in p.procs[p.activations[0] as usize].locals.iter().enumerate() {
            start.push(value(e.layout.cv(e.g + j as u32), lv.init));
        }
        let mut r = Replayer::start(self.m, start, all)?;
        let mut tids = Tids::standard(self.sites);
        let mut at = vec![0usize; histories.len()];
        let mut last_tid = 0;
        for (c, &j) in schedule.iter().enumerate() {
            let h = histories
                .iter()
                .position(|h| h.thread == j)
                .expect("a history per thread");
            let hist = &histories[h];
            let from = at[h];
            let mut to = from;
            while to < hist.trail.len() && hist.cs[to] == c as u32 {
                to += 1;
            }
            if to == from {
                return Err(format!("thread slot {j} has no point in context {c}"));
            }
            let tid = tids.of(j)?;
            if !self.agrees(r.state(), tid, &hist.trail, from, true) {
                return Err(format!(
                    "context {c}: thread slot {j} does not resume as walked"
                ));
            }
            self.follow_slot(&mut r, j, &mut tids, histories, hist, from + 1..to)?;
            at[h] = to;
            last_tid = tids.of(j)?;
            // a thread left where it ends, inside an atomic section: it ends (releasing the
            // section) before the next context
            let owner = r.state().threads.get(last_tid).is_some_and(|t| t.atomic);
            if c + 1 < schedule.len() && owner {
                tids.end_in_section(&mut r, last_tid)?;
            }
        }
        if violation {
            let i = r
                .outcomes(last_tid as u32)?
                .iter()
                .position(|o| matches!(o, Outcome::Violation(_)))
                .ok_or("the assertion does not fail")?;
            r.take(i as u32)?;
        }
        Ok(r.finish())
    }
}
