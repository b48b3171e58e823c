//! Program states: shared globals plus every thread's stack of frames.
//!
//! States are persistent so that a successor costs O(change), not O(state): globals, the
//! thread vector and each frame's locals sit behind `Rc`s (non-atomic counts: a search runs on
//! one thread) and are copied only when written, and each thread's stack is an immutable
//! linked list whose frames below the top are shared between a state and all its successors.

use super::value::Value;
use std::rc::Rc;
use zingrs_lang::ir::{Pc, ProcId};

/// One activation of a procedure.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    pub proc: ProcId,
    pub pc: Pc,
    pub locals: Rc<[Value]>,
}

#[derive(Debug)]
struct StackNode {
    frame: Frame,
    below: Stack,
    depth: u32,
    /// The digest of the frames from the bottom up to this one ([`Stack::digest`]), computed
    /// at most once: `Some(None)` when they cannot be digested.
    digest: std::cell::OnceCell<Option<StackDigest>>,
}

/// A digest of the frames of a stack from the bottom up: a hash of their contents with each
/// reference replaced by its position in `refs`, the distinct addresses they hold in the order
/// a bottom-up walk first meets them. Frames that hold the same few references (a deep
/// recursion passing an object down) share one `refs`.
#[derive(Clone, Debug, Default)]
pub struct StackDigest {
    pub hash: u128,
    pub refs: Rc<[super::value::Addr]>,
}

/// A persistent call stack; the top frame is the one that runs.
#[derive(Clone, Debug, Default)]
pub struct Stack(Option<Rc<StackNode>>);

impl Drop for Stack {
    /// Frees a chain of frames no one else holds iteratively: a recursive drop would overflow
    /// the machine stack on call stacks hundreds of thousands of frames deep.
    fn drop(&mut self) {
        if self.depth() < 1024 {
            // shallow: the fields' own (recursive) drop is cheaper
            return;
        }
        let mut cur = self.0.take();
        while let Some(node) = cur {
            match Rc::try_unwrap(node) {
                Ok(mut n) => cur = n.below.0.take(),
                Err(_) => break,
            }
        }
    }
}

impl Stack {
    pub fn new(frame: Frame) -> Stack {
        Stack::default().push(frame)
    }
    pub fn push(&self, frame: Frame) -> Stack {
        Stack(Some(Rc::new(StackNode {
            frame,
            below: self.clone(),
            depth: self.depth() + 1,
            digest: std::cell::OnceCell::new(),
        })))
    }
    /// The stack without its top frame.
    pub fn pop(&self) -> Stack {
        match &self.0 {
            Some(n) => n.below.clone(),
            None => Stack::default(),
        }
    }
    /// The stack with its top frame replaced.
    pub fn with_top(&self, frame: Frame) -> Stack {
        self.pop().push(frame)
    }
    /// Whether both are the same stack in memory (then they are equal).
    pub fn ptr_eq(&self, other: &Stack) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
    /// Whether both stacks have a top frame and the same frames below it in memory.
    pub fn same_below(&self, other: &Stack) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => a.below.ptr_eq(&b.below),
            _ => false,
        }
    }
    /// The frames below the top one.
    pub fn below(&self) -> Option<&Stack> {
        self.0.as_ref().map(|n| &n.below)
    }
    pub fn top(&self) -> Option<&Frame> {
        self.0.as_ref().map(|n| &n.frame)
    }
    /// The top frame to change in place, if no other stack shares it (its digest is
    /// forgotten): a replay that keeps only its last state moves it without a new frame.
    pub fn top_mut(&mut self) -> Option<&mut Frame> {
        let n = Rc::get_mut(self.0.as_mut()?)?;
        n.digest = std::cell::OnceCell::new();
        Some(&mut n.frame)
    }
    pub fn depth(&self) -> u32 {
        self.0.as_ref().map_or(0, |n| n.depth)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
    /// Frames from the top down.
    pub fn iter(&self) -> impl Iterator<Item = &Frame> {
        let mut cur = self.0.as_deref();
        std::iter::from_fn(move || {
            let n = cur?;
            cur = n.below.0.as_deref();
            Some(&n.frame)
        })
    }
    /// Calls `f` on every frame from the bottom (the thread's first procedure) up, without
    /// allocating while the stack is shallow.
    #[inline]
    pub fn for_each_bottom_up<'a>(&'a self, mut f: impl FnMut(&'a Frame)) {
        fn go<'a>(s: &'a Stack, f: &mut impl FnMut(&'a Frame)) {
            if let Some(n) = &s.0 {
                go(&n.below, f);
                f(&n.frame);
            }
        }
        match &self.0 {
            None => {}
            Some(n) if n.depth == 1 => f(&n.frame),
            Some(n) if n.depth <= 64 => go(self, &mut f),
            Some(_) => self.frames_bottom_up().into_iter().for_each(f),
        }
    }
    /// A digest of the whole stack, `step(below's digest, frame)` folded from the bottom up
    /// (the empty stack's digest is 0), or `None` when `step` gives `None` for some frame. Each
    /// node keeps its digest, so the digest of a stack whose lower part was digested before
    /// costs the frames above it only: fingerprinting a deep stack step after step is linear in
    /// the number of steps, not quadratic. `step` must be the same function on every call.
    pub fn digest(
        &self,
        step: impl Fn(&StackDigest, &Frame) -> Option<StackDigest>,
    ) -> Option<&StackDigest> {
        // the nodes whose digest is not known yet, top first
        let mut todo: Vec<&StackNode> = Vec::new();
        let mut cur = self.0.as_deref();
        let mut base = Some(StackDigest::default());
        while let Some(n) = cur {
            if let Some(d) = n.digest.get() {
                base = d.clone();
                break;
            }
            todo.push(n);
            cur = n.below.0.as_deref();
        }
        for n in todo.into_iter().rev() {
            let d = base.and_then(|b| step(&b, &n.frame));
            let _ = n.digest.set(d.clone());
            base = d;
        }
        self.0.as_deref().and_then(|n| n.digest.get()?.as_ref())
    }

    /// Frames from the bottom (the thread's first procedure) up.
    pub fn frames_bottom_up(&self) -> Vec<&Frame> {
        let mut v: Vec<&Frame> = self.iter().collect();
        v.reverse();
        v
    }
}

/// A thread: its stack, its copies of `thread_local` globals, and whether it owns the atomic
/// section.
#[derive(Clone, Debug)]
pub struct Thread {
    pub stack: Stack,
    pub thread_locals: Rc<[Value]>,
    pub atomic: bool,
    /// Steps taken since the thread entered the atomic region it is in (0 outside one): more
    /// than `Semantics::max_atomic_steps` is ZING's infinite-loop-in-atomic error. Part of the state,
    /// so that a loop inside an atomic region is not cut by the visited set.
    pub atomic_steps: u32,
}

/// The most steps one atomic region may take by default (zing-language.md §4.7: "more than
/// 1,000,000 basic actions in one step"); [`crate::runtime::Semantics::max_atomic_steps`]
/// holds a run's own.
pub const MAX_ATOMIC_STEPS: u32 = 1_000_000;

/// A heap object: an instance of a class, its fields in the class's order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Object {
    pub class: u32,
    pub fields: Box<[Value]>,
}

/// The heap: objects by address (address 0 is the `globals` cell, kept apart in
/// [`State::globals`]). Persistent, so a write copies only a path of the tree and the object;
/// its nodes are counted with `Rc` (non-atomic), like the rest of a state.
pub type Heap = imbl::GenericOrdMap<super::Addr, Rc<Object>, imbl::shared_ptr::RcK>;

/// A whole program state.
#[derive(Clone, Debug)]
pub struct State {
    /// The shared globals: the fields of the `globals` cell.
    pub globals: Rc<[Value]>,
    /// Live threads in creation order; a thread that ends is removed. Each thread sits
    /// behind its own `Rc`: a successor copies one pointer per thread and a new thread only
    /// for the one that moved.
    pub threads: Rc<[Rc<Thread>]>,
    pub heap: Heap,
}

impl State {
    /// The address a new object gets: one past the largest in use (seed 004's |h| + 1).
    pub fn fresh_addr(&self) -> super::Addr {
        self.heap.get_max().map_or(1, |(a, _)| a + 1)
    }

    /// Thread `tid`, to be changed (copied first if shared).
    pub fn thread_mut(&mut self, tid: usize) -> &mut Thread {
        Rc::make_mut(&mut Rc::make_mut(&mut self.threads)[tid])
    }

    /// The thread list with thread `tid` replaced by `t`.
    pub fn with_thread(&self, tid: usize, t: Thread) -> Rc<[Rc<Thread>]> {
        let mut t = Some(Rc::new(t));
        // an exact-size iterator: the list is built in its one allocation
        self.threads
            .iter()
            .enumerate()
            .map(|(i, x)| {
                if i == tid {
                    t.take().expect("one thread replaced")
                } else {
                    x.clone()
                }
            })
            .collect()
    }

    /// The thread owning the atomic section, if any.
    pub fn atomic_owner(&self) -> Option<usize> {
        self.threads.iter().position(|t| t.atomic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_million_frames_deep_stack_drops_without_recursion() {
        let mut s = Stack::default();
        for pc in 0..1_000_000 {
            s = s.push(Frame {
                proc: 0,
                pc,
                locals: Rc::from(Vec::new()),
            });
        }
        let shared = s.pop();
        assert_eq!(shared.depth(), 999_999);
        drop(s);
        assert_eq!(shared.top().map(|f| f.pc), Some(999_998));
        drop(shared);
    }
}
