//! The parts of seed 004's procedure summaries that more than one engine handles: a path's
//! and a call's *effects* (Figure 3: what was allocated and written, and the results), the
//! *patterns* they are matched by (`Match`, Figure 7) and their application to another state
//! (`Apply`, Figure 8), and the [`Transaction`] summaries of calls that run as one transaction
//! (§7). The summary engine ([`crate::summary`]) builds them; the explicit search
//! ([`crate::explore`]) applies transactions as single steps. Both import them from here, so
//! neither imports the other.

use super::{Choice, Finding, Limit, Options};
use crate::runtime::{
    Addr, Loc, Machine, Outcome, ReturnStep, Stack, State, Thread, Value, GLOBALS,
};
use ahash::AHashSet;
use std::rc::Rc;

/// What a path did since its root's entry: the last value of each location it wrote and the
/// objects it allocated (with their classes), in the root's address space.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PathEffect {
    /// Sorted by location.
    pub(crate) writes: Vec<(Loc, Value)>,
    pub(crate) allocs: Vec<(Addr, u32)>,
}

impl PathEffect {
    pub(crate) fn set(&mut self, loc: Loc, v: Value) {
        match self.writes.binary_search_by_key(&loc, |(l, _)| *l) {
            Ok(i) => self.writes[i].1 = v,
            Err(i) => self.writes.insert(i, (loc, v)),
        }
    }
    pub(crate) fn wrote(&self, loc: Loc) -> bool {
        self.writes.binary_search_by_key(&loc, |(l, _)| *l).is_ok()
    }
    pub(crate) fn allocated(&self, a: Addr) -> bool {
        self.allocs.iter().any(|&(x, _)| x == a)
    }
}

/// What a procedure invocation did (Figure 3's effect), with its results.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Effect {
    path: PathEffect,
    rets: Box<[Value]>,
    /// ZING's count of atomic steps at the return, less the count at the root's entry (0 in
    /// boolean programs, which keep no count), and what stepping says of the return step:
    /// Apply gives the caller the count that stepping through the callee would have
    /// ([`Machine::count_summarized_call`]).
    steps: i64,
    ret: ReturnStep,
}

impl Effect {
    /// Gives the outcome `out` of a return that applying this effect completed (thread `tid`,
    /// which entered the callee with the atomic step count `at_entry`) the count stepping
    /// would have left; `Err` if stepping would have stopped at ZING's infinite-loop error
    /// inside the call: `Some(n)` at the `n`-th of the steps that the effect stands for (from
    /// the callee's entry through its return), `None` at the last of them, the return.
    pub(crate) fn count_steps(
        &self,
        m: &Machine,
        tid: usize,
        at_entry: u32,
        out: &mut Outcome,
    ) -> Result<(), Option<usize>> {
        let before = i64::from(at_entry) + self.steps;
        let before = u32::try_from(before.max(0)).unwrap_or(u32::MAX);
        m.count_summarized_call(tid, at_entry, before, self.ret, out)
            .map_err(|n| n.map(|n| n as usize))
    }
}

/// The first of the labels that name an effect's allocations (far above real addresses).
const ALLOC_LABEL: Addr = 0x8000_0000;

/// The effect of a path that returns `rets` in state `s`: the allocations still reachable —
/// from the globals, the results, or an object that existed at the root's entry (which the
/// caller may still reach; a new object hangs off an old one only through a write the path
/// made) — and the writes except those to allocations that became garbage (seed 004 §5). Allocations are renamed to labels in allocation order, so that effects equal
/// up to the addresses of new objects are one effect.
pub(crate) fn effect_at_return(
    m: &Machine,
    entry: &State,
    s: &State,
    path: &PathEffect,
    rets: &[Value],
) -> Effect {
    let (steps, ret) = if m.program.keep_completed {
        let count = |st: &State| i64::from(m.zing_count(st, 0).0);
        (count(s) - count(entry), m.return_step(s, 0))
    } else {
        (0, ReturnStep::default())
    };
    let is_alloc = |a: Addr| path.allocated(a);
    let mut reach: AHashSet<Addr> = AHashSet::new();
    let mut work: Vec<Addr> = Vec::new();
    let root_value = |v: &Value, work: &mut Vec<Addr>| {
        if let Value::Ref(a) = v {
            work.push(*a);
        }
    };
    for v in s.globals.iter().chain(rets.iter()) {
        root_value(v, &mut work);
    }
    for t in s.threads.iter() {
        for v in t.thread_locals.iter() {
            root_value(v, &mut work);
        }
    }
    // a new object can hang off an old one only through a write to one of its fields
    for (l, v) in &path.writes {
        if l.addr != GLOBALS && !is_alloc(l.addr) {
            root_value(v, &mut work);
        }
    }
    while let Some(a) = work.pop() {
        if !is_alloc(a) || !reach.insert(a) {
            continue;
        }
        if let Some(obj) = s.heap.get(&a) {
            for v in obj.fields.iter() {
                root_value(v, &mut work);
            }
        }
    }
    let kept: Vec<(Addr, u32)> = path
        .allocs
        .iter()
        .copied()
        .filter(|(a, _)| reach.contains(a))
        .collect();
    let label = |a: Addr| {
        kept.iter()
            .position(|&(x, _)| x == a)
            .map(|i| ALLOC_LABEL + i as Addr)
    };
    let rename = |v: Value| match v {
        Value::Ref(a) if is_alloc(a) => label(a).map_or(Value::Null, Value::Ref),
        other => other,
    };
    let mut writes: Vec<(Loc, Value)> = path
        .writes
        .iter()
        .filter_map(|&(l, v)| {
            let addr = if l.addr != GLOBALS && is_alloc(l.addr) {
                label(l.addr)?
            } else {
                l.addr
            };
            Some((Loc { addr, ..l }, rename(v)))
        })
        .collect();
    writes.sort_by_key(|(l, _)| *l);
    Effect {
        path: PathEffect {
            writes,
            allocs: kept
                .iter()
                .enumerate()
                .map(|(i, &(_, c))| (ALLOC_LABEL + i as Addr, c))
                .collect(),
        },
        rets: rets.iter().map(|&v| rename(v)).collect(),
        steps,
        ret,
    }
}

/// A one-to-one map from one state's addresses to another's (Match's addrMap).
#[derive(Clone, Debug, Default)]
pub struct AddrMap(Vec<(Addr, Addr)>);

impl AddrMap {
    fn get(&self, a: Addr) -> Option<Addr> {
        self.0.iter().find(|&&(x, _)| x == a).map(|&(_, y)| y)
    }
    /// Relates `a` to `b`; false if that breaks the bijection.
    fn relate(&mut self, a: Addr, b: Addr) -> bool {
        match (self.get(a), self.0.iter().find(|&&(_, y)| y == b)) {
            (Some(y), _) => y == b,
            (None, Some(_)) => false,
            (None, None) => {
                self.0.push((a, b));
                true
            }
        }
    }
    /// Whether two values agree under the map (extending it for new references).
    fn agree(&mut self, pattern: Value, actual: Value) -> bool {
        match (pattern, actual) {
            (Value::Ref(a), Value::Ref(b)) => self.relate(a, b),
            (x, y) => x == y,
        }
    }
    /// A location of the pattern's state in the matched state's addresses.
    pub(crate) fn loc(&self, l: Loc) -> Option<Loc> {
        if l.addr == GLOBALS {
            Some(l)
        } else {
            self.get(l.addr).map(|addr| Loc { addr, ..l })
        }
    }
    fn value(&self, v: Value) -> Option<Value> {
        match v {
            Value::Ref(a) => self.get(a).map(Value::Ref),
            other => Some(other),
        }
    }
}

/// `Match` (Figure 7) of an entry visible state and its pattern against a visible state: the
/// entry frames agree (references up to a bijection), then every pattern location, read
/// through the growing address map, holds the pattern's value.
pub(crate) fn match_entry(
    m: &Machine,
    entry: &State,
    pattern: &[(Loc, Value)],
    visible: &State,
) -> Option<AddrMap> {
    let (et, vt) = (&entry.threads[0], &visible.threads[0]);
    let (ef, vf) = (et.stack.top()?, vt.stack.top()?);
    if ef.proc != vf.proc || ef.pc != vf.pc || ef.locals.len() != vf.locals.len() {
        return None;
    }
    // ZING's atomic step count (Effect::steps): inside an atomic region it only grows until
    // the callee returns, so an effect's change to it holds at any count; outside one it is 0
    // (in a cooperative run it grows too, unless the callee restarts it at a choice: then the
    // change applied is off by the count at the entry, a limit this does not yet meet)
    // (and the mark of a step of ZING's that went through a choice, which the callee keeps
    // unless it meets a choice: the mark at its return is then the entry's)
    if m.program.keep_completed
        && (et.atomic != vt.atomic || m.zing_count(entry, 0).1 != m.zing_count(visible, 0).1)
    {
        return None;
    }
    let mut map = AddrMap::default();
    let frames = ef.locals.iter().zip(vf.locals.iter());
    let tls = et.thread_locals.iter().zip(vt.thread_locals.iter());
    for (&p, &a) in frames.chain(tls) {
        if !map.agree(p, a) {
            return None;
        }
    }
    for &(loc, v) in pattern {
        let at = map.loc(loc)?;
        if !map.agree(v, m.read_loc(visible, 0, at)) {
            return None;
        }
    }
    // related objects must be of one class and length: a step may read an object's class
    // (a call through an interface dispatches on it) without reading any of its fields
    let same_kind = map
        .0
        .iter()
        .all(|&(a, b)| match (entry.heap.get(&a), visible.heap.get(&b)) {
            (Some(x), Some(y)) => x.class == y.class && x.fields.len() == y.fields.len(),
            (None, None) => true,
            _ => false,
        });
    same_kind.then_some(map)
}

/// What applying an effect produced, in the target state's addresses.
pub(crate) struct Applied {
    /// The state with the new objects allocated and the writes done (the callee frame still
    /// on top: the return that completes the call comes next).
    pub(crate) state: State,
    pub(crate) allocs: Vec<(Addr, u32)>,
    pub(crate) writes: Vec<(Loc, Value)>,
    pub(crate) rets: Box<[Value]>,
}

/// `Apply` (Figure 8): allocates fresh objects for the effect's allocations, extends the map
/// to them, and writes the effect's locations (as thread `tid` sees them) through the map.
/// `None` if the map lacks an address the effect names.
pub(crate) fn apply_effect(
    m: &Machine,
    effect: &Effect,
    map: &AddrMap,
    s: &State,
    tid: usize,
) -> Option<Applied> {
    let mut map = map.clone();
    let mut st = s.clone();
    let mut allocs = Vec::with_capacity(effect.path.allocs.len());
    let first = st.fresh_addr();
    for (next, &(a, class)) in (first..).zip(effect.path.allocs.iter()) {
        st.heap.insert(next, Rc::new(m.new_object(class)));
        map.0.push((a, next));
        allocs.push((next, class));
    }
    let mut writes = Vec::with_capacity(effect.path.writes.len());
    for &(l, v) in &effect.path.writes {
        writes.push((map.loc(l)?, map.value(v)?));
    }
    let rets = effect
        .rets
        .iter()
        .map(|&v| map.value(v))
        .collect::<Option<Box<[Value]>>>()?;
    let state = m.write_locs(&st, tid, &writes);
    Some(Applied {
        state,
        allocs,
        writes,
        rets,
    })
}

/// The visible state of thread `tid`'s top frame: the globals, the heap and that frame alone.
pub fn visible_of(s: &State, tid: usize) -> State {
    let t = &s.threads[tid];
    State {
        globals: s.globals.clone(),
        threads: Rc::from(vec![Rc::new(Thread {
            stack: Stack::new(t.stack.top().expect("a frame").clone()),
            thread_locals: t.thread_locals.clone(),
            atomic: t.atomic,
            atomic_steps: t.atomic_steps,
        })]),
        heap: s.heap.clone(),
    }
}

/// The summary of one call that runs as a transaction (no other process can move until it
/// returns): computed by a summarizing search from the callee's visible state (the summary
/// engine's [`Summarize`]), and reusable at every call whose visible state matches its pattern.
pub struct Transaction {
    pub(crate) entry: State,
    pub(crate) pattern: Vec<(Loc, Value)>,
    /// Each effect with the steps (of thread 0) from the entry through its return.
    pub effects: Vec<(Effect, Vec<Choice>)>,
    /// An error inside the call, with its path from the entry (thread 0).
    pub finding: Option<Finding>,
    /// Roots the summarizing search needed.
    pub roots: u64,
}

/// Summarizes the call whose callee frame is the top of a visible state (one thread); `Err`
/// when a limit stopped the search. The summary engine provides it
/// ([`crate::explore::ExplicitOptions::transactions`]),
/// so the explicit search applies transactions without importing that engine.
pub type Summarize = fn(&Machine, &Options, State) -> Result<Transaction, Limit>;

impl Transaction {
    /// The address map if `visible` matches this transaction's entry and pattern.
    pub fn matches(&self, m: &Machine, visible: &State) -> Option<AddrMap> {
        match_entry(m, &self.entry, &self.pattern, visible)
    }

    /// Applies effect `j` to thread `tid` of `full` (stopped at the call, the callee's entry
    /// frame on top): the outcome of the return that completes the call, or `Err(n)` when
    /// stepping through the callee would have stopped at ZING's infinite-loop error at the
    /// `n`-th of the effect's steps (the error is the caller's to report, on the path cut
    /// there).
    pub fn apply(
        &self,
        m: &Machine,
        j: usize,
        map: &AddrMap,
        full: &State,
        tid: usize,
    ) -> Option<Result<Outcome, usize>> {
        let (effect, steps) = &self.effects[j];
        let a = apply_effect(m, effect, map, full, tid)?;
        let mut out = m.finish_return(&a.state, tid, &a.rets, &mut ());
        let at_entry = m.zing_count(full, tid).0;
        Some(
            effect
                .count_steps(m, tid, at_entry, &mut out)
                .map(|()| out)
                .map_err(|n| n.map_or(steps.len(), |n| n.min(steps.len()))),
        )
    }
}

/// A frame with references blanked out: roots that could match a visible state share it.
pub type FrameShape = (u32, u32, Box<[Value]>, Box<[Value]>);

fn blank(v: &Value) -> Value {
    match v {
        Value::Ref(_) => Value::Ref(0),
        other => *other,
    }
}

/// The frame shape summaries are indexed by: the top frame's procedure, pc and locals, and the
/// thread locals, with references blanked out (roots that could match a visible state share it).
pub fn frame_shape(s: &State) -> FrameShape {
    let t = &s.threads[0];
    let f = t.stack.top().expect("a visible state has a frame");
    (
        f.proc,
        f.pc,
        f.locals.iter().map(blank).collect(),
        t.thread_locals.iter().map(blank).collect(),
    )
}
