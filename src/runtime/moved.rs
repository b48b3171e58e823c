//! Successors kept as their difference from the parent state.
//!
//! Most steps move one thread within its procedure and write a variable or a field. The
//! explicit search fingerprints such a successor from its parent's fingerprint and this
//! difference alone, and builds the state ([`Move::apply`]) only if the visited set does not
//! know it yet: more than half of all successors are states seen before, and building and
//! dropping them (a new stack node, thread, thread list and heap path each) was a large part
//! of the search's time.

use super::state::{Frame, Object, State, Thread};
use super::value::{Addr, Value};
use smallvec::SmallVec;
use std::rc::Rc;
use zingrs_lang::ir::Pc;

/// A successor of a state that differs from it only in thread `tid`'s top frame (same
/// procedure, new pc and locals), that thread's atomic bookkeeping and thread-local globals,
/// the shared globals, and fields of existing objects.
#[derive(Clone, Debug)]
pub struct Move {
    pub tid: u32,
    pub pc: Pc,
    pub locals: Rc<[Value]>,
    pub atomic: bool,
    pub atomic_steps: u32,
    /// New thread-local globals, if written.
    pub thread_locals: Option<Rc<[Value]>>,
    /// New shared globals, if written.
    pub globals: Option<Rc<[Value]>>,
    /// Field writes `(object, field, value)` in the order made; a write to a field the object
    /// does not have, or to an object that does not exist, changes nothing.
    pub writes: SmallVec<[(Addr, u32, Value); 2]>,
}

impl Move {
    /// The successor as a whole state.
    pub fn apply(self, parent: &State) -> State {
        let tid = self.tid as usize;
        let old = &parent.threads[tid];
        let top = old.stack.top().expect("a moved thread has a frame");
        let thread = Thread {
            stack: old.stack.with_top(Frame {
                proc: top.proc,
                pc: self.pc,
                locals: self.locals,
            }),
            thread_locals: self
                .thread_locals
                .unwrap_or_else(|| old.thread_locals.clone()),
            atomic: self.atomic,
            atomic_steps: self.atomic_steps,
        };
        let mut heap = parent.heap.clone();
        for &(a, f, v) in &self.writes {
            write_field(&mut heap, a, f, v);
        }
        State {
            globals: self.globals.unwrap_or_else(|| parent.globals.clone()),
            threads: parent.with_thread(tid, thread),
            heap,
        }
    }

    /// [`Move::apply`] to `state`, the parent, in place: where nothing else holds its thread
    /// list, the moved thread and that thread's top frame, they are changed without copying
    /// (a replay that keeps only its last state takes millions of steps); otherwise the
    /// successor is built as [`Move::apply`] builds it.
    pub fn apply_in_place(self, state: &mut State) {
        let tid = self.tid as usize;
        let unique = Rc::get_mut(&mut state.threads)
            .and_then(|ts| Rc::get_mut(&mut ts[tid]))
            .is_some_and(|t| t.stack.top_mut().is_some());
        if !unique {
            *state = self.apply(state);
            return;
        }
        let ts = Rc::get_mut(&mut state.threads).expect("checked unique");
        let t = Rc::get_mut(&mut ts[tid]).expect("checked unique");
        let top = t.stack.top_mut().expect("checked unique");
        top.pc = self.pc;
        top.locals = self.locals;
        if let Some(tl) = self.thread_locals {
            t.thread_locals = tl;
        }
        t.atomic = self.atomic;
        t.atomic_steps = self.atomic_steps;
        for &(a, f, v) in &self.writes {
            write_field(&mut state.heap, a, f, v);
        }
        if let Some(g) = self.globals {
            state.globals = g;
        }
    }

    /// Each existing object the writes reach, once, with its fields after all of them: what a
    /// fingerprint re-hashes without building the successor.
    pub fn written_objects<'a>(
        &'a self,
        parent: &'a State,
    ) -> impl Iterator<Item = (Addr, &'a Object, SmallVec<[Value; 8]>)> + 'a {
        self.writes
            .iter()
            .enumerate()
            .filter(|&(i, &(a, _, _))| !self.writes[..i].iter().any(|w| w.0 == a))
            .filter_map(move |(i, &(a, _, _))| {
                let o = parent.heap.get(&a)?;
                let mut fields: SmallVec<[Value; 8]> = SmallVec::from_slice(&o.fields);
                for &(_, f, v) in self.writes[i..].iter().filter(|w| w.0 == a) {
                    if let Some(slot) = fields.get_mut(f as usize) {
                        *slot = v;
                    }
                }
                Some((a, &**o, fields))
            })
    }
}

/// Writes field `f` of object `a` (nothing if there is no such field).
pub fn write_field(heap: &mut super::Heap, a: Addr, f: u32, v: Value) {
    // one walk down the map, copying the path to the object once
    if let Some(obj) = heap.get_mut(&a) {
        if let Some(slot) = Rc::make_mut(obj).fields.get_mut(f as usize) {
            *slot = v;
        }
    }
}
