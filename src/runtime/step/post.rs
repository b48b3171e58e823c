//! The writes of one step: where each goes, resolved before anything is written, and the
//! values collected copy-on-write and installed into the successor state at once.

use crate::runtime::moved::write_field;
use crate::runtime::state::{Heap, State, Thread};
use crate::runtime::value::{Addr, Value};
use crate::runtime::Machine;
use smallvec::SmallVec;
use std::rc::Rc;

/// Where a write goes, resolved before the step writes anything.
#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    Local(u32),
    Global(u32),
    Field(Addr, u32),
    Discard,
}

/// The values a step writes, copied from the old state only when first written.
pub(super) struct Post<'a> {
    pub(super) machine: &'a Machine<'a>,
    pub(super) old_globals: &'a Rc<[Value]>,
    pub(super) old_tl: &'a Rc<[Value]>,
    pub(super) old_heap: &'a Heap,
    pub(super) globals: Option<Vec<Value>>,
    pub(super) tl: Option<Vec<Value>>,
    /// The whole new heap, once a step replaced an object or allocated one (field writes
    /// made after that go straight into it).
    pub(super) heap: Option<Heap>,
    /// Field writes not applied to a heap yet.
    pub(super) writes: SmallVec<[(Addr, u32, Value); 2]>,
    /// The running frame's locals, copied only when first written.
    pub(super) locals: Rc<[Value]>,
}

impl<'a> Post<'a> {
    pub(super) fn new(
        machine: &'a Machine<'a>,
        state: &'a State,
        thread: &'a Thread,
        locals: &Rc<[Value]>,
    ) -> Post<'a> {
        Post {
            machine,
            old_globals: &state.globals,
            old_tl: &thread.thread_locals,
            old_heap: &state.heap,
            globals: None,
            tl: None,
            heap: None,
            writes: SmallVec::new(),
            locals: locals.clone(),
        }
    }

    pub(super) fn set(&mut self, t: Target, v: Value) {
        match t {
            Target::Discard => {}
            Target::Local(i) => {
                if self.locals[i as usize] != v {
                    Rc::make_mut(&mut self.locals)[i as usize] = v;
                }
            }
            Target::Global(i) => match self.machine.slots[i as usize] {
                crate::runtime::Slot::Shared(s) => {
                    self.globals
                        .get_or_insert_with(|| self.old_globals.to_vec())[s as usize] = v
                }
                crate::runtime::Slot::ThreadLocal(s) => {
                    self.tl.get_or_insert_with(|| self.old_tl.to_vec())[s as usize] = v
                }
            },
            Target::Field(a, f) => match &mut self.heap {
                Some(heap) => write_field(heap, a, f, v),
                None => self.writes.push((a, f, v)),
            },
        }
    }

    /// The new heap, with every field write made so far applied.
    pub(super) fn heap(&mut self) -> &mut Heap {
        let heap = self.heap.get_or_insert_with(|| self.old_heap.clone());
        for (a, f, v) in self.writes.drain(..) {
            write_field(heap, a, f, v);
        }
        heap
    }

    /// The fields of object `a` as the step has left them so far.
    pub(super) fn fields(&mut self, a: Addr) -> Option<&[Value]> {
        self.heap().get(&a).map(|o| &o.fields[..])
    }

    /// Replaces every field of object `a` (a collection grew or shrank).
    pub(super) fn replace(&mut self, a: Addr, fields: Vec<Value>) {
        let heap = self.heap();
        if let Some(obj) = heap.get(&a) {
            let class = obj.class;
            heap.insert(
                a,
                Rc::new(crate::runtime::state::Object {
                    class,
                    fields: fields.into(),
                }),
            );
        }
    }

    pub(super) fn globals(&self) -> &[Value] {
        self.globals.as_deref().unwrap_or(self.old_globals)
    }
    pub(super) fn tl(&self) -> &[Value] {
        self.tl.as_deref().unwrap_or(self.old_tl)
    }

    /// Installs the written values into `st` (locals excepted: the caller places the frame).
    pub(super) fn install(mut self, st: &mut State, tid: usize) -> Rc<[Value]> {
        if self.heap.is_some() || !self.writes.is_empty() {
            self.heap();
            st.heap = self.heap.take().expect("made by heap()");
        }
        if let Some(g) = self.globals {
            st.globals = g.into();
        }
        if let Some(tl) = self.tl {
            st.thread_mut(tid).thread_locals = tl.into();
        }
        self.locals
    }
}
