//! The runtime: values, states, and the one function that knows what a statement does.
//!
//! [`Machine::step`] executes the statement at the top frame of one thread and lists every
//! successor (each nondeterministic choice is a separate outcome, in a fixed order, so a trace
//! can name a choice by its index and replay it). It also reports the step's transition record
//! (reads, allocations, writes) to a [`Recorder`].

mod eval;
mod init;
mod record;
mod state;
mod step;
mod value;

pub use eval::{Env, Mask, ANY, CAN_F, CAN_T};
pub use init::InitialStates;
pub use record::{Record, Recorder};
pub use state::{Frame, Stack, State, Thread};
pub use step::{Kind, Outcome, Violation};
pub use value::{Addr, Loc, Value, GLOBALS};

use zingrs_lang::ir::{Program, Type};

/// Where a global variable lives: in the shared `globals` cell or in each thread's copy.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Shared(u32),
    ThreadLocal(u32),
}

/// Options that change the meaning of statements.
#[derive(Clone, Copy, Debug)]
pub struct Semantics {
    /// Report failing assertions (true) or treat `assert` as `assume` (`--no-assertions`).
    pub check_assertions: bool,
}

impl Default for Semantics {
    fn default() -> Self {
        Semantics {
            check_assertions: true,
        }
    }
}

/// A program prepared for execution.
pub struct Machine<'p> {
    pub program: &'p Program,
    pub semantics: Semantics,
    slots: Vec<Slot>,
    shared: usize,
    thread_locals: usize,
}

impl<'p> Machine<'p> {
    pub fn new(program: &'p Program, semantics: Semantics) -> Machine<'p> {
        let mut slots = Vec::with_capacity(program.globals.len());
        let (mut shared, mut tl) = (0u32, 0u32);
        for g in &program.globals {
            if g.thread_local {
                slots.push(Slot::ThreadLocal(tl));
                tl += 1;
            } else {
                slots.push(Slot::Shared(shared));
                shared += 1;
            }
        }
        Machine {
            program,
            semantics,
            slots,
            shared: shared as usize,
            thread_locals: tl as usize,
        }
    }

    /// The value of global `i` as seen by a thread.
    #[inline]
    pub fn global(&self, globals: &[Value], thread_locals: &[Value], i: u32) -> Value {
        match self.slots[i as usize] {
            Slot::Shared(s) => globals[s as usize],
            Slot::ThreadLocal(s) => thread_locals[s as usize],
        }
    }

    /// Every global's value as seen by thread `tid` (or by no thread: thread-locals read as
    /// false), in declaration order.
    pub fn global_values(&self, state: &State, tid: Option<usize>) -> Vec<Value> {
        let tl: &[Value] = match tid.and_then(|t| state.threads.get(t)) {
            Some(t) => &t.thread_locals,
            None => &[],
        };
        (0..self.slots.len() as u32)
            .map(|i| match self.slots[i as usize] {
                Slot::Shared(s) => state.globals[s as usize],
                Slot::ThreadLocal(s) => tl.get(s as usize).copied().unwrap_or(Value::Bool(false)),
            })
            .collect()
    }

    pub fn shared_count(&self) -> usize {
        self.shared
    }
    pub fn thread_local_count(&self) -> usize {
        self.thread_locals
    }

    fn default_value(ty: Type) -> Value {
        match ty {
            Type::Bool | Type::Void => Value::Bool(false),
            Type::Int { .. } | Type::Enum(_) => Value::Int(0),
            Type::Range(lo, _) => Value::Int(lo),
            Type::Ref(_) => Value::Null,
        }
    }
}
