//! The canonical order of a state's threads under symmetry reduction.
//!
//! Threads are interchangeable when nothing in the model reads a thread's position (see
//! [`super::symmetric_threads`]); then any reordering of the thread list is the same state,
//! and the canonical walk visits the threads in an order that does not depend on where they
//! stand. That order sorts the threads by a *key*: the thread's part of the walk, written with a
//! numbering of the heap that does not depend on the other threads — the objects the globals
//! reach are numbered first, as a walk of the globals alone meets them, and the objects only this
//! thread reaches are numbered on from there and written after the part (up to [`KEY_OBJECTS`]
//! of them, in first-met order). A key is therefore the same however the heap's addresses and
//! the other threads are arranged. The walk then numbers the globals and the objects they
//! reach, then visits the threads in key order, numbering the objects only they reach (when no
//! thread holds such an object the order numbers nothing and is not computed), then those
//! objects' parts; the threads' parts so numbered are written
//! sorted (the exact form) or hashed under one seed and summed (the segmented fingerprint), so
//! what a form keeps is the globals, the *multiset* of numbered thread parts, and the numbered
//! objects.
//!
//! Soundness does not depend on the keys: the parts carry the objects' numbers, so two states
//! with the same globals, multiset of parts and numbered objects are one state up to heap
//! renaming and an order of their threads (map each thread to one with an equal part, each
//! object to the object of its number), whatever order numbered them. The keys only decide how
//! much is identified: two threads with equal keys are walked in the order of their positions,
//! so a state and a reordering of it may, rarely, number the heap apart (two threads whose
//! parts look alike but share different objects with each other, or own more than
//! [`KEY_OBJECTS`]); that stores a state twice, never merges two that differ.

use super::{globals_part, object_part, thread_part, DeadLocals, Encoder, Rename};
use crate::runtime::{Addr, State};

/// The most objects a thread's key writes beyond the globals' (a thread that owns a large
/// structure is keyed by its first objects; ties beyond them only lose identification).
pub(super) const KEY_OBJECTS: usize = 64;

/// Computes the canonical order of a state's threads, reusing its buffers from state to state.
#[derive(Default)]
pub(super) struct Sorter {
    /// Numbers the heap for the keys (the globals' objects first).
    enc: Encoder,
    /// Per thread: its key.
    keys: Vec<Vec<u8>>,
    /// Per thread: whether its part holds a reference (its key then needs the heap).
    refs: Vec<bool>,
    /// The threads in canonical order (positions in the state's list).
    pub(super) order: Vec<u32>,
    /// The exact form's buffers for the threads' parts.
    pub(super) parts: Vec<Vec<u8>>,
    scratch: Vec<u8>,
}

/// A renaming that only notes whether the walk met a reference.
struct Probe(bool);

impl Rename for Probe {
    #[inline]
    fn number(&mut self, _: Addr) -> u32 {
        self.0 = true;
        0
    }
    fn numbered(&self, _: usize) -> Option<Addr> {
        None
    }
}

/// The byte that says which of `marks` name the thread at position `i` (bit j: `marks[j]`).
#[inline]
pub(super) fn mark_bits(marks: &[u32], i: usize) -> u8 {
    marks
        .iter()
        .enumerate()
        .fold(0u8, |b, (j, &m)| b | (((m as usize == i) as u8) << j))
}

impl Sorter {
    /// Computes every thread's key of `s` (each prefixed with its [`mark_bits`] when `marks`
    /// is not empty). When no thread holds a reference, each key is exactly the thread's part
    /// of the walk (after its mark byte), whatever the numbering.
    pub(super) fn keys(&mut self, s: &State, dead: &DeadLocals, marks: &[u32]) {
        let n = s.threads.len();
        if self.keys.len() < n {
            self.keys.resize_with(n, Vec::new);
        }
        self.refs.clear();
        for (i, t) in s.threads.iter().enumerate() {
            let key = &mut self.keys[i];
            key.clear();
            if !marks.is_empty() {
                key.push(mark_bits(marks, i));
            }
            let mut probe = Probe(false);
            thread_part(t, key, &mut probe, dead);
            self.refs.push(probe.0);
        }
        if !self.refs.iter().any(|&r| r) {
            return;
        }
        // the globals' objects, numbered as a walk of the globals alone meets them
        self.scratch.clear();
        globals_part(s, &mut self.scratch, &mut self.enc);
        let mut i = 0;
        while let Some(a) = self.enc.numbered(i) {
            i += 1;
            object_part(s, a, &mut self.scratch, &mut self.enc);
        }
        let shared = i;
        for (t, thread) in s.threads.iter().enumerate() {
            if !self.refs[t] {
                continue;
            }
            let key = &mut self.keys[t];
            key.clear();
            if !marks.is_empty() {
                key.push(mark_bits(marks, t));
            }
            thread_part(thread, key, &mut self.enc, dead);
            let mut i = shared;
            while i - shared < KEY_OBJECTS {
                let Some(a) = self.enc.numbered(i) else {
                    break;
                };
                i += 1;
                object_part(s, a, key, &mut self.enc);
            }
            self.enc.truncate(shared);
        }
        self.enc.reset();
    }

    /// Sorts the `n` threads whose keys [`Sorter::keys`] computed into [`Sorter::order`]: by
    /// key, equal keys by position.
    pub(super) fn sort(&mut self, n: usize) {
        self.order.clear();
        self.order.extend(0..n as u32);
        let keys = &self.keys;
        self.order
            .sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]));
    }
}

impl Encoder {
    /// Forgets the numbers past the first `n` (so a walk can go on from a shared prefix).
    pub(super) fn truncate(&mut self, n: usize) {
        for &a in &self.order[n..] {
            if (a as usize) < super::DENSE {
                self.dense[a as usize] = 0;
            } else {
                self.sparse.remove(&a);
            }
        }
        self.order.truncate(n);
    }
}

#[cfg(test)]
mod tests {
    use crate::canon::{Encoder, SegmentHasher, NO_DEAD};
    use crate::runtime::{Addr, Frame, Object, Stack, State, Thread, Value};
    use std::rc::Rc;

    /// A state with global `g` and one thread per `(pc, object)`: its local holds the object
    /// at that address (or null), and `objs` are the heap's objects `(address, field)`.
    fn state(g: Value, ts: &[(u32, Option<Addr>)], objs: &[(Addr, Value)]) -> State {
        State {
            globals: vec![g].into(),
            threads: ts
                .iter()
                .map(|&(pc, a)| {
                    Rc::new(Thread {
                        stack: Stack::new(Frame {
                            proc: 0,
                            pc,
                            locals: vec![a.map_or(Value::Null, Value::Ref)].into(),
                        }),
                        thread_locals: Vec::new().into(),
                        atomic: false,
                        atomic_steps: 0,
                    })
                })
                .collect(),
            heap: objs
                .iter()
                .map(|&(a, v)| {
                    (
                        a,
                        Rc::new(Object {
                            class: 0,
                            fields: vec![v].into(),
                        }),
                    )
                })
                .collect(),
        }
    }

    fn exact(s: &State) -> Vec<u8> {
        let mut b = Vec::new();
        Encoder::default().encode_symmetric(s, &NO_DEAD, &mut b);
        b
    }

    fn fp(s: &State) -> u64 {
        SegmentHasher::default().symmetric(true).full(s)
    }

    #[test]
    fn threads_owning_objects_are_one_state_in_any_order() {
        let (t, f) = (Value::Bool(true), Value::Bool(false));
        // two threads at one pc owning objects that hold true and false, at any addresses
        let a = state(
            Value::Null,
            &[(1, Some(5)), (1, Some(9))],
            &[(5, t), (9, f)],
        );
        let b = state(
            Value::Null,
            &[(1, Some(2)), (1, Some(7))],
            &[(2, f), (7, t)],
        );
        assert_eq!(exact(&a), exact(&b));
        assert_eq!(fp(&a), fp(&b));
        // both holding true is another state
        let c = state(
            Value::Null,
            &[(1, Some(5)), (1, Some(9))],
            &[(5, t), (9, t)],
        );
        assert_ne!(exact(&a), exact(&c));
        assert_ne!(fp(&a), fp(&c));
        // sharing one object is another state than owning two equal ones
        let shared = state(Value::Null, &[(1, Some(5)), (1, Some(5))], &[(5, t)]);
        assert_ne!(exact(&c), exact(&shared));
        assert_ne!(fp(&c), fp(&shared));
        // which thread holds the object the global points to counts
        let d = state(Value::Ref(5), &[(1, Some(5)), (2, None)], &[(5, t)]);
        let e = state(Value::Ref(5), &[(2, Some(5)), (1, None)], &[(5, t)]);
        let d_swapped = state(Value::Ref(5), &[(2, None), (1, Some(5))], &[(5, t)]);
        assert_eq!(exact(&d), exact(&d_swapped));
        assert_eq!(fp(&d), fp(&d_swapped));
        assert_ne!(exact(&d), exact(&e));
        assert_ne!(fp(&d), fp(&e));
    }
}
