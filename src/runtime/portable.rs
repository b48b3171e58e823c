//! A state that can cross threads.
//!
//! [`State`] shares its parts through `Rc` (non-atomic counts: cheap successors), so it stays
//! on the thread that made it. The parallel search hands work between workers; a state
//! handed over as a [`Portable`] is a plain copy of every value it holds, and the worker that
//! takes it rebuilds the same state (the same threads, frames, values and heap addresses)
//! without re-executing the path that reached it, which on a search a million steps deep
//! would cost a million steps per handover.

use super::state::{Frame, Heap, Object, Stack, State, Thread};
use super::value::{Addr, Value};
use std::rc::Rc;
use zingrs_lang::ir::{Pc, ProcId};

/// A deep copy of a [`State`] that owns all its parts (and so is `Send`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Portable {
    globals: Box<[Value]>,
    threads: Vec<PortableThread>,
    heap: Vec<(Addr, Object)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct PortableThread {
    /// Bottom frame first.
    frames: Vec<(ProcId, Pc, Box<[Value]>)>,
    thread_locals: Box<[Value]>,
    atomic: bool,
    atomic_steps: u32,
}

impl Portable {
    /// The copy of `s`.
    pub fn of(s: &State) -> Portable {
        let threads = s
            .threads
            .iter()
            .map(|t| {
                let mut frames = Vec::with_capacity(t.stack.depth() as usize);
                t.stack.for_each_bottom_up(|f| {
                    frames.push((f.proc, f.pc, Box::from(&f.locals[..])));
                });
                PortableThread {
                    frames,
                    thread_locals: Box::from(&t.thread_locals[..]),
                    atomic: t.atomic,
                    atomic_steps: t.atomic_steps,
                }
            })
            .collect();
        Portable {
            globals: Box::from(&s.globals[..]),
            threads,
            heap: s.heap.iter().map(|(a, o)| (*a, Object::clone(o))).collect(),
        }
    }

    /// The state this is a copy of.
    pub fn state(&self) -> State {
        let threads: Vec<Rc<Thread>> = self
            .threads
            .iter()
            .map(|t| {
                let mut stack = Stack::default();
                for (proc, pc, locals) in &t.frames {
                    stack = stack.push(Frame {
                        proc: *proc,
                        pc: *pc,
                        locals: Rc::from(&locals[..]),
                    });
                }
                Rc::new(Thread {
                    stack,
                    thread_locals: Rc::from(&t.thread_locals[..]),
                    atomic: t.atomic,
                    atomic_steps: t.atomic_steps,
                })
            })
            .collect();
        State {
            globals: Rc::from(&self.globals[..]),
            threads: Rc::from(threads),
            heap: self
                .heap
                .iter()
                .map(|(a, o)| (*a, Rc::new(o.clone())))
                .collect::<Heap>(),
        }
    }
}

/// The byte encoding of states that cross a process boundary (the distributed search,
/// `explore::distributed`): compact, since every state stored by another process is sent
/// once per arrival. Unsigned numbers are LEB128 varints, values one tag byte (`false`,
/// `true`, null, a small integer in the tag itself, or an integer or address after it).
/// A state is its globals, its threads (each its frames bottom first, its thread-locals and
/// atomic bookkeeping) and its heap objects in address order; each of these parts (the
/// globals, a thread, the heap) is preceded by its length in bytes, so that a reader finds
/// a part's bytes without reading them item by item (to look them up among the parts it
/// decoded before: [`Portable::decode_shared`]).
impl Portable {
    /// Appends the encoding of `s` to `out` (read back by [`Portable::decode`]).
    pub fn encode(s: &State, out: &mut Vec<u8>) {
        Portable::encode_cached(s, out, &mut Encoded::default());
    }

    /// [`Portable::encode`], copying the bytes of the parts `s` shares with states encoded
    /// before (kept in `seen`: the same thread, globals or heap, not an equal one) instead of
    /// encoding them again: a state sent to its owner shares all its threads but one or two
    /// with its siblings and its parent's other successors.
    pub fn encode_cached(s: &State, out: &mut Vec<u8>, seen: &mut Encoded) {
        seen.bound();
        if !seen
            .globals
            .as_ref()
            .is_some_and(|(g, _)| Rc::ptr_eq(g, &s.globals))
        {
            let at = seen.bytes.len();
            sized(&mut seen.bytes, |b| wire::values(&s.globals, b));
            seen.globals = Some((s.globals.clone(), at..seen.bytes.len()));
        }
        if let Some((_, r)) = &seen.globals {
            out.extend_from_slice(&seen.bytes[r.clone()]);
        }
        wire::uint(s.threads.len() as u64, out);
        for t in s.threads.iter() {
            let key = Rc::as_ptr(t) as usize;
            let r = match seen.threads.get(&key) {
                Some((_, r)) => r.clone(),
                None => {
                    let at = seen.bytes.len();
                    sized(&mut seen.bytes, |b| encode_thread(t, b));
                    let r = at..seen.bytes.len();
                    // the cache holds the thread: its address names it while it is kept
                    seen.threads.insert(key, (t.clone(), r.clone()));
                    r
                }
            };
            out.extend_from_slice(&seen.bytes[r]);
        }
        if !seen.heap.as_ref().is_some_and(|(h, _)| h.ptr_eq(&s.heap)) {
            let at = seen.bytes.len();
            sized(&mut seen.bytes, |b| encode_heap(&s.heap, b));
            seen.heap = Some((s.heap.clone(), at..seen.bytes.len()));
        }
        if let Some((_, r)) = &seen.heap {
            out.extend_from_slice(&seen.bytes[r.clone()]);
        }
    }

    /// The state `bytes` encode ([`Portable::encode`]), or `None` for bytes that are not
    /// one (a peer of another version: refused, never guessed at).
    pub fn decode(bytes: &[u8]) -> Option<State> {
        Portable::decode_shared(bytes, &mut Decoded::default())
    }

    /// [`Portable::decode`], sharing the globals, threads and heaps whose bytes equal those
    /// of one decoded before (kept in `seen`) instead of building them again: the states a
    /// process receives differ from each other in a thread or two, as the successors a
    /// process makes itself do, and sharing their parts saves their allocations and memory.
    pub fn decode_shared(bytes: &[u8], seen: &mut Decoded) -> Option<State> {
        let mut r = wire::Reader { bytes, at: 0 };
        seen.bound();
        let globals = {
            let part = r.sized()?;
            match seen.globals.get(part) {
                Some(g) => g.clone(),
                None => {
                    let mut p = wire::Reader::whole(part);
                    let g: Rc<[Value]> = Rc::from(p.values()?);
                    if p.at != part.len() {
                        return None;
                    }
                    seen.globals.insert(part.into(), g.clone());
                    g
                }
            }
        };
        let n = r.length()?;
        let mut threads = Vec::with_capacity(n);
        for _ in 0..n {
            let part = r.sized()?;
            let t = match seen.threads.get(part) {
                Some(t) => t.clone(),
                None => {
                    let t = Rc::new(thread(&mut wire::Reader::whole(part))?);
                    seen.threads.insert(part.into(), t.clone());
                    t
                }
            };
            threads.push(t);
        }
        let part = r.sized()?;
        let heap = match seen.heaps.get(part) {
            Some(h) => h.clone(),
            None => {
                let h = heap(&mut wire::Reader::whole(part))?;
                seen.heaps.insert(part.into(), h.clone());
                h
            }
        };
        (r.at == bytes.len()).then(|| State {
            globals,
            threads: Rc::from(threads),
            heap,
        })
    }
}

/// Appends what `write` writes, preceded by its length in bytes.
fn sized(out: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
    // one byte for the length, moved along if the part turns out longer than 127 bytes
    let at = out.len();
    out.push(0);
    write(out);
    let len = out.len() - at - 1;
    if len < 0x80 {
        out[at] = len as u8;
    } else {
        let mut prefix = Vec::with_capacity(10);
        wire::uint(len as u64, &mut prefix);
        out.splice(at..at + 1, prefix);
    }
}

/// One thread of [`Portable::encode`], without its length.
fn encode_thread(t: &Thread, out: &mut Vec<u8>) {
    wire::uint(u64::from(t.stack.depth()), out);
    t.stack.for_each_bottom_up(|f| {
        wire::uint(u64::from(f.proc), out);
        wire::uint(u64::from(f.pc), out);
        wire::values(&f.locals, out);
    });
    wire::values(&t.thread_locals, out);
    out.push(u8::from(t.atomic));
    wire::uint(u64::from(t.atomic_steps), out);
}

/// The heap of [`Portable::encode`], without its length.
fn encode_heap(heap: &Heap, out: &mut Vec<u8>) {
    wire::uint(heap.len() as u64, out);
    let mut last = 0;
    for (a, o) in heap.iter() {
        // addresses ascend: each as its distance from the one before
        wire::uint(u64::from(*a - last), out);
        last = *a;
        wire::uint(u64::from(o.class), out);
        wire::values(&o.fields, out);
    }
}

/// The parts of the states [`Portable::encode_cached`] encoded lately, with their bytes: the
/// threads by their address (each held, so that its address names it while it is here), the
/// last globals and the last heap. Forgotten whole past [`Encoded::LIMIT`] threads or
/// [`Encoded::BYTES`] bytes.
#[derive(Default)]
pub struct Encoded {
    threads: ahash::AHashMap<usize, (Rc<Thread>, std::ops::Range<usize>)>,
    globals: Option<(Rc<[Value]>, std::ops::Range<usize>)>,
    heap: Option<(Heap, std::ops::Range<usize>)>,
    bytes: Vec<u8>,
}

impl Encoded {
    /// The threads kept at most.
    pub const LIMIT: usize = 1 << 14;
    /// The bytes kept at most.
    pub const BYTES: usize = 1 << 20;

    fn bound(&mut self) {
        if self.threads.len() > Encoded::LIMIT || self.bytes.len() > Encoded::BYTES {
            *self = Encoded::default();
        }
    }
}

/// One thread of [`Portable::encode`], read whole from `r`.
fn thread(r: &mut wire::Reader) -> Option<Thread> {
    let depth = r.length()?;
    let mut stack = Stack::default();
    for _ in 0..depth {
        let proc = ProcId::try_from(r.uint()?).ok()?;
        let pc = Pc::try_from(r.uint()?).ok()?;
        let locals: Rc<[Value]> = Rc::from(r.values()?);
        stack = stack.push(Frame { proc, pc, locals });
    }
    let thread_locals: Rc<[Value]> = Rc::from(r.values()?);
    let atomic = r.byte()? != 0;
    let atomic_steps = u32::try_from(r.uint()?).ok()?;
    (r.at == r.bytes.len()).then_some(Thread {
        stack,
        thread_locals,
        atomic,
        atomic_steps,
    })
}

/// The heap of [`Portable::encode`], read whole from `r`.
fn heap(r: &mut wire::Reader) -> Option<Heap> {
    let n = r.length()?;
    let mut heap = Heap::default();
    let mut last: Addr = 0;
    for _ in 0..n {
        last = last.checked_add(Addr::try_from(r.uint()?).ok()?)?;
        let class = u32::try_from(r.uint()?).ok()?;
        let fields: Box<[Value]> = r.values()?.into_boxed_slice();
        heap.insert(last, Rc::new(Object { class, fields }));
    }
    (r.at == r.bytes.len()).then_some(heap)
}

/// The parts of the states [`Portable::decode_shared`] decoded, by their bytes, to be shared
/// by the next states with the same parts. Forgotten whole past [`Decoded::LIMIT`] parts,
/// so that it holds no more than a few megabytes.
#[derive(Default)]
pub struct Decoded {
    globals: ahash::AHashMap<Box<[u8]>, Rc<[Value]>>,
    threads: ahash::AHashMap<Box<[u8]>, Rc<Thread>>,
    heaps: ahash::AHashMap<Box<[u8]>, Heap>,
}

impl Decoded {
    /// The parts kept at most.
    pub const LIMIT: usize = 1 << 15;

    fn bound(&mut self) {
        if self.globals.len() + self.threads.len() + self.heaps.len() > Decoded::LIMIT {
            *self = Decoded::default();
        }
    }
}

/// The pieces of [`Portable::encode`]: varints and tagged values.
pub mod wire {
    use super::{Addr, Value};

    /// Tags of a value; a tag from `SMALL` on is the integer `tag - SMALL - 64` itself.
    const FALSE: u8 = 0;
    const TRUE: u8 = 1;
    const NULL: u8 = 2;
    const INT: u8 = 3;
    const REF: u8 = 4;
    const SMALL: u8 = 8;

    /// Appends `v` as a LEB128 varint.
    pub fn uint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// Appends one value.
    pub fn value(v: Value, out: &mut Vec<u8>) {
        match v {
            Value::Bool(false) => out.push(FALSE),
            Value::Bool(true) => out.push(TRUE),
            Value::Null => out.push(NULL),
            Value::Int(i) if (-64..(256 - i64::from(SMALL) - 64)).contains(&i) => {
                out.push((i + 64 + i64::from(SMALL)) as u8)
            }
            Value::Int(i) => {
                out.push(INT);
                // zigzag: small negative numbers stay short
                uint(((i << 1) ^ (i >> 63)) as u64, out);
            }
            Value::Ref(a) => {
                out.push(REF);
                uint(u64::from(a), out);
            }
        }
    }

    /// Appends a length and the values.
    pub fn values(vs: &[Value], out: &mut Vec<u8>) {
        uint(vs.len() as u64, out);
        for v in vs {
            value(*v, out);
        }
    }

    /// Reads what the functions above write; every read is `None` past the end or on a
    /// malformed item.
    pub struct Reader<'a> {
        pub bytes: &'a [u8],
        pub at: usize,
    }

    impl<'a> Reader<'a> {
        pub fn byte(&mut self) -> Option<u8> {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            Some(b)
        }

        pub fn uint(&mut self) -> Option<u64> {
            let mut v = 0u64;
            for shift in (0..64).step_by(7) {
                let b = self.byte()?;
                v |= u64::from(b & 0x7f).checked_shl(shift)?;
                if b & 0x80 == 0 {
                    return Some(v);
                }
            }
            None
        }

        /// A length, no larger than the bytes left could hold (one byte an item at least).
        pub fn length(&mut self) -> Option<usize> {
            let n = usize::try_from(self.uint()?).ok()?;
            (n <= self.bytes.len() - self.at).then_some(n)
        }

        pub fn value(&mut self) -> Option<Value> {
            Some(match self.byte()? {
                FALSE => Value::Bool(false),
                TRUE => Value::Bool(true),
                NULL => Value::Null,
                INT => {
                    let z = self.uint()?;
                    Value::Int(((z >> 1) as i64) ^ -((z & 1) as i64))
                }
                REF => Value::Ref(Addr::try_from(self.uint()?).ok()?),
                t if t >= SMALL => Value::Int(i64::from(t) - i64::from(SMALL) - 64),
                _ => return None,
            })
        }

        pub fn values(&mut self) -> Option<Vec<Value>> {
            let n = self.length()?;
            (0..n).map(|_| self.value()).collect()
        }

        /// A reader of all of `bytes`.
        pub fn whole(bytes: &[u8]) -> Reader<'_> {
            Reader { bytes, at: 0 }
        }

        /// The next part of [`super::Portable::encode`]: its length, then its bytes.
        pub fn sized(&mut self) -> Option<&'a [u8]> {
            let n = self.length()?;
            let part = &self.bytes[self.at..self.at + n];
            self.at += n;
            Some(part)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn a_copied_state_is_the_same_state() {
        assert_send::<Portable>();
        let frame = |pc, x| Frame {
            proc: 0,
            pc,
            locals: Rc::from(vec![Value::Int(x), Value::Ref(2)]),
        };
        let mut heap = Heap::default();
        heap.insert(
            2,
            Rc::new(Object {
                class: 1,
                fields: Box::from([Value::Bool(true), Value::Null]),
            }),
        );
        let thread = Thread {
            stack: Stack::new(frame(3, 7)).push(frame(5, 9)),
            thread_locals: Rc::from(vec![Value::Bool(false)]),
            atomic: true,
            atomic_steps: 4,
        };
        let s = State {
            globals: Rc::from(vec![Value::Int(1), Value::Ref(2)]),
            threads: Rc::from(vec![Rc::new(thread.clone()), Rc::new(thread)]),
            heap,
        };
        let back = Portable::of(&s).state();
        assert_eq!(Portable::of(&back), Portable::of(&s));
        let pcs: Vec<Pc> = back.threads[1].stack.iter().map(|f| f.pc).collect();
        assert_eq!(pcs, vec![5, 3]);
        assert!(back.threads[0].atomic);
        assert_eq!(back.heap.get(&2).map(|o| o.class), Some(1));
    }

    #[test]
    fn an_encoded_state_decodes_to_the_same_state() {
        let frame = |pc, x| Frame {
            proc: 3,
            pc,
            locals: Rc::from(vec![Value::Int(x), Value::Ref(70_000), Value::Null]),
        };
        let mut heap = Heap::default();
        for (a, i) in [(2, -65), (9, 1 << 40), (300, i64::MIN)] {
            heap.insert(
                a,
                Rc::new(Object {
                    class: 1,
                    fields: Box::from([Value::Bool(true), Value::Int(i)]),
                }),
            );
        }
        let thread = Thread {
            stack: Stack::new(frame(3, -64)).push(frame(500, 183)),
            thread_locals: Rc::from(vec![Value::Bool(false)]),
            atomic: true,
            atomic_steps: 4,
        };
        let s = State {
            globals: Rc::from(vec![Value::Int(i64::MAX), Value::Ref(2), Value::Int(184)]),
            threads: Rc::from(vec![Rc::new(thread.clone()), Rc::new(thread)]),
            heap,
        };
        let mut bytes = Vec::new();
        Portable::encode(&s, &mut bytes);
        let back = Portable::decode(&bytes).expect("decodes");
        assert_eq!(Portable::of(&back), Portable::of(&s));
        // decoded again with the parts of the first: the same state, its parts shared
        let mut seen = Decoded::default();
        let one = Portable::decode_shared(&bytes, &mut seen).expect("decodes");
        let two = Portable::decode_shared(&bytes, &mut seen).expect("decodes");
        assert_eq!(Portable::of(&two), Portable::of(&s));
        assert!(Rc::ptr_eq(&one.threads[1], &two.threads[1]));
        assert!(Rc::ptr_eq(&one.threads[0], &two.threads[1]));
        assert!(Rc::ptr_eq(&one.globals, &two.globals));
        // a state that differs in one thread shares the other
        let mut other = s.clone();
        let mut t = Thread::clone(&other.threads[1]);
        t.atomic_steps = 5;
        other.threads = Rc::from(vec![other.threads[0].clone(), Rc::new(t)]);
        let mut bytes2 = Vec::new();
        Portable::encode(&other, &mut bytes2);
        let three = Portable::decode_shared(&bytes2, &mut seen).expect("decodes");
        assert_eq!(Portable::of(&three), Portable::of(&other));
        assert!(Rc::ptr_eq(&three.threads[0], &one.threads[0]));
        assert_eq!(three.threads[1].atomic_steps, 5);
        assert!(Portable::decode_shared(&bytes2[..bytes2.len() - 1], &mut seen).is_none());
        // cut short or with bytes left over: refused
        assert!(Portable::decode(&bytes[..bytes.len() - 1]).is_none());
        bytes.push(0);
        assert!(Portable::decode(&bytes).is_none());
    }

    /// Encoded with the parts of states encoded before, a state's bytes are those it has
    /// alone, whatever the cache holds (its threads by address, the last globals and heap),
    /// and a part longer than 127 bytes carries a length of two bytes.
    #[test]
    fn a_state_encoded_with_cached_parts_has_the_same_bytes() {
        let long = Thread {
            stack: Stack::new(Frame {
                proc: 1,
                pc: 2,
                locals: Rc::from(vec![Value::Int(1000); 100]),
            }),
            thread_locals: Rc::from(vec![]),
            atomic: false,
            atomic_steps: 0,
        };
        let short = Thread {
            thread_locals: Rc::from(vec![Value::Bool(true)]),
            ..long.clone()
        };
        let (long, short) = (Rc::new(long), Rc::new(short));
        let state = |threads: Vec<Rc<Thread>>| State {
            globals: Rc::from(vec![Value::Int(3)]),
            threads: Rc::from(threads),
            heap: Heap::default(),
        };
        let a = state(vec![long.clone(), short.clone()]);
        let b = state(vec![short.clone(), long.clone(), long]);
        let mut seen = Encoded::default();
        for s in [&a, &b, &a, &b] {
            let mut alone = Vec::new();
            Portable::encode(s, &mut alone);
            let mut cached = Vec::new();
            Portable::encode_cached(s, &mut cached, &mut seen);
            assert_eq!(cached, alone);
            let back = Portable::decode(&cached).expect("decodes");
            assert_eq!(Portable::of(&back), Portable::of(s));
        }
    }
}
