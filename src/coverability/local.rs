//! Thread-local states and what one step of a thread does to them, learnt from
//! [`Machine::step`] on a state holding that thread alone.
//!
//! A thread's step reads and writes the shared globals and its own stack and thread-locals,
//! nothing of another thread (the engine refuses programs where that is not so), so the
//! outcomes of stepping thread `t` of any state are those of stepping the one-thread state
//! made of the globals and `t`, in the same order: a transition learnt here is named by the
//! same outcome index as in the interpreter's step of the whole state.

use crate::runtime::{Frame, Machine, Outcome, State, Thread, Value, Violation};
use ahash::AHashMap;
use std::rc::Rc;

/// An interned shared valuation.
pub type GId = u32;
/// An interned thread-local state.
pub type LId = u32;

/// What a thread's step in a thread-local state does, seen as counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The thread moves to another local state.
    Move(LId),
    /// The thread moves and starts a thread in the second local state.
    Spawn(LId, LId),
    /// The thread ends (it leaves the state).
    End,
    /// The step is an error.
    Error(Violation),
}

/// One outcome of a step: its index in [`Machine::step`]'s list, the shared valuation after
/// it (unused for an error), and its effect.
#[derive(Clone, Copy, Debug)]
pub struct Trans {
    pub outcome: u32,
    pub g: GId,
    pub effect: Effect,
}

/// The identity of a thread-local state: every frame bottom-up, the thread-locals, atomicity.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Key {
    frames: Vec<Frame>,
    thread_locals: Rc<[Value]>,
    atomic: bool,
}

impl Key {
    /// The key of a thread.
    pub fn of(t: &Thread) -> Key {
        let mut frames = Vec::with_capacity(t.stack.depth() as usize);
        t.stack.for_each_bottom_up(|f| frames.push(f.clone()));
        Key {
            frames,
            thread_locals: t.thread_locals.clone(),
            atomic: t.atomic,
        }
    }
}

/// The interned shared valuations and thread-local states, and the transitions learnt so far.
pub struct Table<'m, 'p> {
    m: &'m Machine<'p>,
    globals: Vec<Rc<[Value]>>,
    global_ids: AHashMap<Rc<[Value]>, GId>,
    locals: Vec<Thread>,
    local_ids: AHashMap<Key, LId>,
    /// Whether each local state owns the atomic section.
    atomic: Vec<bool>,
    /// Per local state, the index of the target label its thread is at (`None`: none).
    target: Vec<Option<u32>>,
    /// Per procedure and pc, the index of a target label there.
    target_at: Vec<Vec<Option<u32>>>,
    steps: AHashMap<(GId, LId), Rc<[Trans]>>,
    scratch: Vec<Outcome>,
}

impl<'m, 'p> Table<'m, 'p> {
    /// An empty table for `m`'s program, with `targets` as the labels to reach.
    pub fn new(m: &'m Machine<'p>, targets: &[String]) -> Self {
        let target_at = crate::search::targets_at(m.program, targets);
        Table {
            m,
            globals: Vec::new(),
            global_ids: AHashMap::default(),
            locals: Vec::new(),
            local_ids: AHashMap::default(),
            atomic: Vec::new(),
            target: Vec::new(),
            target_at,
            steps: AHashMap::default(),
            scratch: Vec::new(),
        }
    }

    /// The id of a shared valuation.
    pub fn global(&mut self, g: &Rc<[Value]>) -> GId {
        if let Some(&id) = self.global_ids.get(g) {
            return id;
        }
        let id = self.globals.len() as GId;
        self.globals.push(g.clone());
        self.global_ids.insert(g.clone(), id);
        id
    }

    /// The id of a thread's local state.
    pub fn local(&mut self, t: &Thread) -> LId {
        let key = Key::of(t);
        if let Some(&id) = self.local_ids.get(&key) {
            return id;
        }
        let id = self.locals.len() as LId;
        let target = t
            .stack
            .top()
            .and_then(|f| self.target_at[f.proc as usize][f.pc as usize]);
        self.locals.push(t.clone());
        self.atomic.push(t.atomic);
        self.target.push(target);
        self.local_ids.insert(key, id);
        id
    }

    /// The id a thread has, if its local state was met already.
    pub fn known(&self, t: &Thread) -> Option<LId> {
        self.local_ids.get(&Key::of(t)).copied()
    }

    /// Whether local state `l` owns the atomic section (only its thread may move).
    pub fn is_atomic(&self, l: LId) -> bool {
        self.atomic[l as usize]
    }

    /// The target label (index into the targets) local state `l` is at, if any.
    pub fn target(&self, l: LId) -> Option<u32> {
        self.target[l as usize]
    }

    /// The number of thread-local states met.
    pub fn locals_len(&self) -> usize {
        self.locals.len()
    }

    /// The number of shared valuations met.
    pub fn globals_len(&self) -> usize {
        self.globals.len()
    }

    /// The outcomes of a step of a thread in local state `l` under shared valuation `g`, in
    /// [`Machine::step`]'s order (pruned choices left out; their indices are skipped).
    pub fn step(&mut self, g: GId, l: LId) -> Rc<[Trans]> {
        if let Some(t) = self.steps.get(&(g, l)) {
            return t.clone();
        }
        let s = State {
            globals: self.globals[g as usize].clone(),
            threads: Rc::from(vec![Rc::new(self.locals[l as usize].clone())]),
            heap: Default::default(),
        };
        let mut outs = std::mem::take(&mut self.scratch);
        outs.clear();
        self.m.step(&s, 0, &mut (), &mut outs);
        let mut trans = Vec::with_capacity(outs.len());
        for (k, o) in outs.drain(..).enumerate() {
            let outcome = k as u32;
            match o {
                Outcome::Next { state, .. } => {
                    let g2 = self.global(&state.globals);
                    let effect = match &state.threads[..] {
                        [] => Effect::End,
                        [me] => Effect::Move(self.local(me)),
                        [me, child] => {
                            let a = self.local(me);
                            Effect::Spawn(a, self.local(child))
                        }
                        _ => unreachable!("one step starts at most one thread"),
                    };
                    trans.push(Trans {
                        outcome,
                        g: g2,
                        effect,
                    });
                }
                Outcome::Violation(v) => trans.push(Trans {
                    outcome,
                    g,
                    effect: Effect::Error(v),
                }),
                Outcome::Pruned => {}
                Outcome::Moved { .. } => unreachable!("Machine::step builds every successor"),
            }
        }
        self.scratch = outs;
        let trans: Rc<[Trans]> = trans.into();
        self.steps.insert((g, l), trans.clone());
        trans
    }
}
