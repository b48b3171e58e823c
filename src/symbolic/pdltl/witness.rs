//! The counterexample of a pushdown LTL violation, built on the interpreter with the
//! repeating heads as the guide: a breadth-first search of the product (interpreter states,
//! automaton state) from the initial states to a repeating head (the stem), then, again and
//! again, from the head reached to the next repeating head with an accepting automaton state
//! on the way (perhaps inside a call that returned), never returning from the frame the search started in, until a head (top frame,
//! globals, automaton state) comes back. The steps between its two visits are the cycle: they
//! run on top of the frames below the head without touching them, so repeating them forever
//! is a run, whatever new frames they leave between (a pushdown lasso). The repeating heads
//! guarantee every search succeeds: from each of them a path of the head graph reaches an
//! accepting edge into another.

use super::{Pd, F};
use crate::ltl::Ltl;
use crate::runtime::{InitialStates, Outcome, State, Value};
use crate::search::{self, Choice, Limit, Path};
use crate::symbolic::bdd::Bdds;
use std::collections::VecDeque;

/// Why no lasso came out.
pub(crate) enum NoLasso {
    Limit(Limit),
    /// A bug of ours: the repeating heads promised a continuation the interpreter lacks.
    Bug(String),
}

/// The stutter step of a run that ends (not a choice of the path).
const STUTTER: Choice = Choice {
    thread: u32::MAX,
    outcome: u32::MAX - 1,
};

/// A product node of the search: the state, the automaton state, how it was reached.
struct Node {
    state: State,
    q: u32,
    /// An accepting automaton state was entered since the search's start.
    acc: bool,
    parent: usize,
    via: Choice,
}

/// The head of a state and automaton state: top frame (or none), globals, automaton state.
type HeadKey = (Option<crate::runtime::Frame>, Vec<Value>, u32);

fn head_key(s: &State, q: u32) -> HeadKey {
    let top = s.threads.first().and_then(|t| t.stack.top()).cloned();
    (top, s.globals.to_vec(), q)
}

fn depth(s: &State) -> u32 {
    s.threads.first().map_or(0, |t| t.stack.depth())
}

fn bools(vs: &[Value]) -> Vec<bool> {
    vs.iter().map(|v| *v == Value::Bool(true)).collect()
}

struct Search<'a, 'm, 'p> {
    e: &'a Pd<'m, 'p>,
    z: &'a [F],
    ltl: &'a Ltl,
    budget: u64,
    spent: u64,
}

impl Search<'_, '_, '_> {
    /// Whether `(s, q)` is a repeating head.
    fn in_z(&self, s: &State, q: u32) -> bool {
        let top = s.threads.first().and_then(|t| t.stack.top());
        let (v, locals) = match top {
            Some(f) => (self.e.base[f.proc as usize] + f.pc, bools(&f.locals)),
            None => (self.e.done, Vec::new()),
        };
        let lits = self.e.head_literals(&bools(&s.globals), q, &locals);
        self.e.b.eval(&self.z[v as usize], &lits) == Some(true)
    }

    /// The product successors of `(s, q)`: a step and the automaton's move into the state
    /// it reaches, or, where the run ends, the stutter.
    fn successors(&self, s: &State, q: u32) -> Vec<(Choice, State, u32)> {
        let m = self.e.m;
        let mut outs = Vec::new();
        if s.threads.first().is_some_and(|t| !t.stack.is_empty()) {
            m.step(s, 0, &mut (), &mut outs);
        }
        let mut next = Vec::new();
        let mut moves = false;
        for (i, o) in outs.into_iter().enumerate() {
            match o {
                Outcome::Next { state, .. } => {
                    moves = true;
                    let letter = self.ltl.letter(m, &state);
                    let choice = Choice {
                        thread: 0,
                        outcome: i as u32,
                    };
                    for r in self.ltl.next(q, letter) {
                        next.push((choice, state.clone(), r));
                    }
                }
                Outcome::Pruned => {}
                // (safety was checked first: no violation is reachable)
                _ => moves = true,
            }
        }
        if !moves && self.e.stutter {
            let letter = self.ltl.letter(m, s);
            for r in self.ltl.next(q, letter) {
                next.push((STUTTER, s.clone(), r));
            }
        }
        next
    }

    /// Breadth-first from `starts` to a node `goal` accepts (checked on arrival, also at a
    /// node seen before, so a cycle back to the start counts); `floor`: no state shallower
    /// than it (but a finished run, from depth 1). Returns the choices and the node reached,
    /// and the index of the start it came from.
    #[allow(clippy::type_complexity)]
    fn bfs(
        &mut self,
        starts: Vec<(State, u32)>,
        floor: u32,
        goal: &dyn Fn(&Self, &State, u32, bool) -> bool,
    ) -> Result<Option<(usize, Vec<Choice>, State, u32)>, NoLasso> {
        let mut seen: ahash::AHashSet<(u128, u32, bool)> = Default::default();
        let mut nodes: Vec<Node> = Vec::new();
        let mut queue = VecDeque::new();
        let mut buf = Vec::new();
        let mut key = |s: &State, q: u32, acc: bool| {
            buf.clear();
            crate::canon::encode(s, &mut buf);
            (xxhash_rust::xxh3::xxh3_128(&buf), q, acc)
        };
        for (state, q) in starts {
            seen.insert(key(&state, q, false));
            nodes.push(Node {
                state,
                q,
                acc: false,
                parent: usize::MAX,
                via: STUTTER,
            });
            queue.push_back(nodes.len() - 1);
        }
        while let Some(i) = queue.pop_front() {
            self.spent += 1;
            if self.spent > self.budget {
                return Err(NoLasso::Limit(Limit::States));
            }
            if self.spent & 255 == 0 {
                if let Some(l) = search::watchdog::stopped() {
                    return Err(NoLasso::Limit(l));
                }
            }
            let succs = self.successors(&nodes[i].state, nodes[i].q);
            for (via, state, q) in succs {
                let d = depth(&state);
                if d < floor && d > 0 {
                    continue;
                }
                let acc = nodes[i].acc || self.ltl.accepting(q);
                if goal(self, &state, q, acc) {
                    let mut choices = vec![via];
                    let mut at = i;
                    while nodes[at].parent != usize::MAX {
                        choices.push(nodes[at].via);
                        at = nodes[at].parent;
                    }
                    choices.reverse();
                    return Ok(Some((at, choices, state, q)));
                }
                if seen.insert(key(&state, q, acc)) {
                    nodes.push(Node {
                        state,
                        q,
                        acc,
                        parent: i,
                        via,
                    });
                    queue.push_back(nodes.len() - 1);
                }
            }
        }
        Ok(None)
    }
}

/// A lasso for the repeating heads `z` (some non-empty): the path and the index of the
/// cycle's first step.
pub(crate) fn lasso(
    e: &Pd,
    z: &[F],
    ltl: &Ltl,
    opts: &search::Options,
) -> Result<(Path, usize), NoLasso> {
    let m = e.m;
    let mut s = Search {
        e,
        z,
        ltl,
        budget: opts.limits.max_states.unwrap_or(20_000_000),
        spent: 0,
    };
    // the stem: from every initial node to a repeating head
    let mut inits = Vec::new();
    let mut starts = Vec::new();
    for (init, s0) in InitialStates::new(m) {
        let letter = ltl.letter(m, &s0);
        for q in ltl.initial(letter) {
            inits.push(init.clone());
            starts.push((s0.clone(), q));
        }
    }
    let ready = starts.iter().position(|(s0, q0)| s.in_z(s0, *q0));
    let (init, mut choices, mut cur, mut q) = match ready {
        Some(i) => {
            let (s0, q0) = starts.swap_remove(i);
            (inits.swap_remove(i), Vec::new(), s0, q0)
        }
        None => {
            let found = s.bfs(starts, 0, &|s: &Search, st: &State, q: u32, _| {
                s.in_z(st, q)
            })?;
            let Some((at, stem, st, q)) = found else {
                return Err(NoLasso::Bug(
                    "no repeating head is reachable on the interpreter".into(),
                ));
            };
            (inits[at].clone(), stem, st, q)
        }
    };
    // the cycle: from head to head through accepting automaton states until one repeats
    let mut heads: ahash::AHashMap<HeadKey, usize> = Default::default();
    let cycle_start = loop {
        if heads.len() > 1_000_000 {
            return Err(NoLasso::Bug("no head repeats".into()));
        }
        let floor = depth(&cur);
        // an accepting state on the way (inside a call that returned, perhaps), then a head
        let goal = |s: &Search, st: &State, r: u32, acc: bool| acc && s.in_z(st, r);
        let Some((_, seg, st, r)) = s.bfs(vec![(cur.clone(), q)], floor, &goal)? else {
            return Err(NoLasso::Bug(
                "a repeating head has no accepting continuation on the interpreter".into(),
            ));
        };
        choices.extend(seg);
        cur = st;
        q = r;
        let key = head_key(&cur, q);
        if let Some(&at) = heads.get(&key) {
            break at;
        }
        heads.insert(key, choices.len());
    };
    // a run that ends stutters: its lasso ends at the first stutter, with an empty cycle
    let (choices, cycle_start) = match choices.iter().position(|&c| c == STUTTER) {
        Some(i) => (choices[..i].to_vec(), i),
        None => (choices, cycle_start),
    };
    Ok((Path { init, choices }, cycle_start))
}
