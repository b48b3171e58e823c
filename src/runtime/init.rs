//! Initial states: every valuation of the globals and of the activations' locals that the
//! initialisers allow (Bebop's arbitrary initial values) and that satisfies the activations'
//! `enforce` invariants.

use super::state::{Frame, Stack, State, Thread};
use super::value::Value;
use super::Machine;
use std::rc::Rc;
use zingrs_lang::ir::{Const, Init, Type, Var};

/// Enumerates the initial states lazily (there are 2^n of them for n unconstrained booleans).
pub struct InitialStates<'m, 'p> {
    machine: &'m Machine<'p>,
    /// One entry per slot: shared globals, thread-local globals, then each activation's locals.
    fixed: Vec<Option<Value>>,
    current: Vec<Value>,
    done: bool,
}

fn slot_value(v: &Var) -> Option<Value> {
    match (v.ty, v.init) {
        (_, Init::Value(Const::Bool(b))) => Some(Value::Bool(b)),
        (_, Init::Value(Const::Int(i))) => Some(Value::Int(i)),
        (_, Init::Value(Const::Null)) => Some(Value::Null),
        (Type::Bool, Init::Any) => None,
        (ty, Init::Any) => Some(Machine::default_value(ty)),
    }
}

impl<'m, 'p> InitialStates<'m, 'p> {
    pub fn new(machine: &'m Machine<'p>) -> Self {
        let p = machine.program;
        let mut fixed: Vec<Option<Value>> = Vec::new();
        fixed.extend(p.globals.iter().filter(|g| !g.thread_local).map(slot_value));
        fixed.extend(p.globals.iter().filter(|g| g.thread_local).map(slot_value));
        for a in machine.start_procs() {
            let proc = &p.procs[a as usize];
            fixed.extend(proc.locals.iter().enumerate().map(|(i, v)| {
                match slot_value(v) {
                    // a local never read before written starts with one value, not every value
                    None if !machine.live_at_entry(a, i) => Some(Value::Bool(false)),
                    other => other,
                }
            }));
        }
        let current = fixed
            .iter()
            .map(|f| f.unwrap_or(Value::Bool(false)))
            .collect();
        InitialStates {
            machine,
            fixed,
            current,
            done: false,
        }
    }

    /// The number of initial valuations before `enforce` filtering (saturating).
    pub fn count(&self) -> u128 {
        let free = self.fixed.iter().filter(|f| f.is_none()).count() as u32;
        1u128.checked_shl(free).unwrap_or(u128::MAX)
    }

    /// Builds the state for a valuation in this iterator's slot order.
    pub fn build(machine: &Machine, valuation: &[Value]) -> State {
        let p = machine.program;
        let (shared, rest) = valuation.split_at(machine.shared_count());
        let (tl, mut rest) = rest.split_at(machine.thread_local_count());
        let tl: Rc<[Value]> = tl.into();
        let mut threads = Vec::new();
        for a in machine.start_procs() {
            let n = p.procs[a as usize].locals.len();
            let (mine, more) = rest.split_at(n);
            rest = more;
            threads.push(Rc::new(Thread {
                stack: Stack::new(Frame {
                    proc: a,
                    pc: 0,
                    locals: mine.into(),
                }),
                thread_locals: tl.clone(),
                atomic: false,
                atomic_steps: 0,
            }));
        }
        let mut globals = shared.to_vec();
        let mut heap = super::state::Heap::default();
        for (addr, &(g, class, len)) in (1..).zip(&p.static_news) {
            let obj = match len {
                Some(n) => machine.new_collection(class, n as usize),
                None => machine.new_object(class),
            };
            heap.insert(addr, Rc::new(obj));
            if let super::Slot::Shared(i) = machine.slots[g as usize] {
                globals[i as usize] = Value::Ref(addr);
            }
        }
        State {
            globals: globals.into(),
            threads: threads.into(),
            heap,
        }
    }

    /// The number of values in a valuation.
    pub fn width(&self) -> usize {
        self.fixed.len()
    }

    fn advance(&mut self) {
        let mut i = self.fixed.len();
        loop {
            if i == 0 {
                self.done = true;
                return;
            }
            i -= 1;
            if self.fixed[i].is_none() {
                if self.current[i] == Value::Bool(false) {
                    self.current[i] = Value::Bool(true);
                    return;
                }
                self.current[i] = Value::Bool(false);
            }
        }
    }
}

impl Iterator for InitialStates<'_, '_> {
    /// The valuation (kept for traces) and the state built from it.
    type Item = (Vec<Value>, State);

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let valuation = self.current.clone();
            self.advance();
            let state = Self::build(self.machine, &valuation);
            let ok =
                (0..state.threads.len()).all(|t| self.machine.invariant_holds(&state, t, &mut ()));
            if ok {
                return Some((valuation, state));
            }
        }
        None
    }
}
