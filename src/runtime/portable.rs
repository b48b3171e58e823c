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
}
