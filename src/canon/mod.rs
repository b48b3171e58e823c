//! Canonical forms and fingerprints of states.
//!
//! Two states are the same state iff their canonical bytes are equal. The encoding walks the
//! state in a fixed order — the shared globals, then each thread in order with its atomic flag,
//! its thread-local globals and its frames bottom to top (procedure, pc, locals). The layout of
//! every part is fixed by the program, so the encoding needs no separators. Heap objects, once
//! the language has them, are renamed by this same depth-first walk and garbage is dropped.
//!
//! The visited set stores a 128-bit fingerprint of the bytes (hash compaction) unless `--exact`
//! asks for the bytes themselves.

use crate::runtime::{Addr, State, Value};
use xxhash_rust::xxh3::xxh3_128;

/// A 128-bit hash of a state's canonical bytes.
pub type Fingerprint = u128;

/// Renames heap addresses in the order the walk first meets them, and remembers which objects
/// still have to be written.
#[derive(Default)]
struct Renaming {
    numbers: Numbers,
    pending: Vec<Addr>,
}

/// Canonical numbers of addresses: a short list searched in order while the heap is small (the
/// common case; no hashing, no allocation beyond the list), a hash map beyond that.
#[derive(Default)]
pub struct Numbers {
    small: Vec<(Addr, u32)>,
    big: Option<std::collections::HashMap<Addr, u32, ahash::RandomState>>,
}

/// Beyond this many objects [`Numbers`] switches to a hash map.
const SMALL: usize = 32;

impl Numbers {
    /// The canonical number of `a`, if the walk reached it.
    pub fn get(&self, a: Addr) -> Option<u32> {
        match &self.big {
            Some(m) => m.get(&a).copied(),
            None => self.small.iter().find(|&&(x, _)| x == a).map(|&(_, n)| n),
        }
    }

    fn len(&self) -> usize {
        self.big.as_ref().map_or(self.small.len(), |m| m.len())
    }

    fn insert(&mut self, a: Addr, n: u32) {
        match &mut self.big {
            Some(m) => {
                m.insert(a, n);
            }
            None if self.small.len() < SMALL => self.small.push((a, n)),
            None => {
                // a fixed-seed hasher: a randomly seeded one per state costs more than the state
                let mut m = std::collections::HashMap::with_capacity_and_hasher(
                    4 * SMALL,
                    ahash::RandomState::with_seeds(1, 2, 3, 4),
                );
                m.extend(self.small.drain(..));
                m.insert(a, n);
                self.big = Some(m);
            }
        }
    }
}

impl Renaming {
    fn number(&mut self, a: Addr) -> u32 {
        if let Some(n) = self.numbers.get(a) {
            return n;
        }
        let n = self.numbers.len() as u32 + 1;
        self.numbers.insert(a, n);
        self.pending.push(a);
        n
    }
}

#[inline]
fn value(buf: &mut Vec<u8>, v: Value, ren: &mut Renaming) {
    match v {
        Value::Bool(b) => buf.push(b as u8),
        Value::Int(i) => {
            buf.push(2);
            buf.extend_from_slice(&i.to_le_bytes());
        }
        Value::Null => buf.push(3),
        Value::Ref(a) => {
            buf.push(4);
            buf.extend_from_slice(&ren.number(a).to_le_bytes());
        }
    }
}

/// Appends the canonical bytes of `state` to `buf`: the roots (globals, then each thread's
/// atomic flag, thread-local globals and frames bottom to top), then every reachable object in
/// the order the walk first met it, with addresses replaced by those numbers. Unreachable
/// objects (garbage) are not written, so states that differ only in garbage or in the choice
/// of addresses encode equally (seed 004 §4).
pub fn encode(state: &State, buf: &mut Vec<u8>) {
    encode_with_roots(state, &[], buf);
}

/// [`encode`] with `extra` addresses as further roots after the threads (the written
/// addresses δ of seed 004 §5, kept even when they became garbage). Returns the canonical
/// number of every reachable address.
pub fn encode_with_roots(state: &State, extra: &[Addr], buf: &mut Vec<u8>) -> Numbers {
    let mut ren = Renaming::default();
    for &v in state.globals.iter() {
        value(buf, v, &mut ren);
    }
    buf.extend_from_slice(&(state.threads.len() as u32).to_le_bytes());
    for t in state.threads.iter() {
        buf.push(t.atomic as u8);
        for &v in t.thread_locals.iter() {
            value(buf, v, &mut ren);
        }
        buf.extend_from_slice(&t.stack.depth().to_le_bytes());
        for f in t.stack.frames_bottom_up() {
            buf.extend_from_slice(&f.proc.to_le_bytes());
            buf.extend_from_slice(&f.pc.to_le_bytes());
            for &v in f.locals.iter() {
                value(buf, v, &mut ren);
            }
        }
    }
    for &a in extra {
        value(buf, Value::Ref(a), &mut ren);
    }
    let mut i = 0;
    while i < ren.pending.len() {
        let a = ren.pending[i];
        i += 1;
        match state.heap.get(&a) {
            Some(obj) => {
                buf.extend_from_slice(&obj.class.to_le_bytes());
                for &v in obj.fields.iter() {
                    value(buf, v, &mut ren);
                }
            }
            None => buf.extend_from_slice(&u32::MAX.to_le_bytes()),
        }
    }
    ren.numbers
}

/// The fingerprint of canonical bytes.
#[inline]
pub fn fingerprint(bytes: &[u8]) -> Fingerprint {
    xxh3_128(bytes)
}

/// An upper bound on the probability that hash compaction merged two distinct states among
/// `n` stored ones (birthday bound n²/2¹²⁹).
pub fn omission_bound(n: u64) -> f64 {
    let n = n as f64;
    n * n / 2f64.powi(129)
}

/// The set of visited states: fingerprints, or whole canonical forms with `--exact`.
pub enum Visited {
    Fingerprints(ahash::AHashSet<Fingerprint>),
    Exact(ahash::AHashSet<Box<[u8]>>),
}

impl Visited {
    pub fn new(exact: bool) -> Visited {
        if exact {
            Visited::Exact(Default::default())
        } else {
            Visited::Fingerprints(Default::default())
        }
    }

    /// Inserts a state's canonical bytes; true if they were new.
    pub fn insert(&mut self, bytes: &[u8]) -> bool {
        match self {
            Visited::Fingerprints(s) => s.insert(fingerprint(bytes)),
            Visited::Exact(s) => {
                if s.contains(bytes) {
                    false
                } else {
                    s.insert(bytes.into())
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Visited::Fingerprints(s) => s.len(),
            Visited::Exact(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{Frame, Stack, Thread};
    use std::sync::Arc;

    fn state(g: bool, l: bool) -> State {
        State {
            globals: vec![Value::Bool(g)].into(),
            threads: Arc::new(vec![Thread {
                stack: Stack::new(Frame {
                    proc: 0,
                    pc: 1,
                    locals: vec![Value::Bool(l)].into(),
                }),
                thread_locals: Vec::new().into(),
                atomic: false,
            }]),
            heap: Default::default(),
        }
    }

    #[test]
    fn equal_states_encode_equally_and_different_ones_differently() {
        let enc = |s: &State| {
            let mut b = Vec::new();
            encode(s, &mut b);
            b
        };
        assert_eq!(enc(&state(true, false)), enc(&state(true, false)));
        assert_ne!(enc(&state(true, false)), enc(&state(false, true)));
        assert_ne!(enc(&state(true, false)), enc(&state(true, true)));
    }

    fn with_heap(objs: &[(Addr, u32, Value)], root: Addr) -> State {
        let mut s = state(true, false);
        s.globals = vec![Value::Ref(root)].into();
        for &(a, class, v) in objs {
            s.heap.insert(
                a,
                std::sync::Arc::new(crate::runtime::Object {
                    class,
                    fields: vec![v].into(),
                }),
            );
        }
        s
    }

    #[test]
    fn heap_addresses_are_renamed_and_garbage_is_dropped() {
        let enc = |s: &State| {
            let mut b = Vec::new();
            encode(s, &mut b);
            b
        };
        // the same list at different addresses, one with garbage
        let a = with_heap(&[(1, 0, Value::Ref(2)), (2, 0, Value::Null)], 1);
        let b = with_heap(
            &[
                (7, 0, Value::Ref(3)),
                (3, 0, Value::Null),
                (9, 1, Value::Int(5)),
            ],
            7,
        );
        assert_eq!(enc(&a), enc(&b));
        // a different shape differs
        let c = with_heap(&[(1, 0, Value::Ref(1))], 1);
        assert_ne!(enc(&a), enc(&c));
    }

    #[test]
    fn visited_set_reports_new_states_once() {
        for exact in [false, true] {
            let mut v = Visited::new(exact);
            assert!(v.insert(b"abc"));
            assert!(!v.insert(b"abc"));
            assert!(v.insert(b"abd"));
            assert_eq!(v.len(), 2);
        }
    }
}
