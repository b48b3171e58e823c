//! Initial states: every valuation of the globals and of the activations' locals that the
//! initialisers allow (Bebop's arbitrary initial values) and that satisfies the activations'
//! `enforce` invariants.

use super::state::{Frame, Stack, State, Thread};
use super::value::Value;
use super::Machine;
use std::rc::Rc;
use zingrs_lang::ir::{Const, Init, Layout, Type, Var};

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

/// A value as the report's JSON writes it (a boolean as `true`/`false`, a reference as
/// `{"ref": N}`), for messages about a saved path.
fn shown(v: Value) -> String {
    serde_json::to_string(&v).unwrap_or_else(|_| v.to_string())
}

impl<'m, 'p> InitialStates<'m, 'p> {
    pub fn new(machine: &'m Machine<'p>) -> Self {
        let p = machine.program;
        let mut fixed: Vec<Option<Value>> = Vec::new();
        // Getafix layout: a global that `init` overwrites before reading it starts with one
        // value, not both (its initial value is never observed)
        // and a global no execution reads before writing it (no statement at all, for
        // concurrent programs) starts with one value too
        let live: Vec<bool> = match p.layout {
            Layout::Getafix { init, endinit, .. } => zingrs_lang::liveness::globals_live_at_entry(
                &p.procs[init as usize],
                p.globals.len(),
                endinit,
            )
            .into_iter()
            .enumerate()
            .map(|(g, l)| l && machine.global_read_anywhere(g))
            .collect(),
            Layout::Standard => (0..p.globals.len())
                .map(|g| {
                    machine
                        .start_procs()
                        .iter()
                        .any(|&a| machine.global_live_before(a, 0, g))
                })
                .collect(),
        };
        let global = |(i, g): (usize, &Var)| match slot_value(g) {
            None if !live[i] => Some(Value::Bool(false)),
            other => other,
        };
        fixed.extend(
            p.globals
                .iter()
                .enumerate()
                .filter(|(_, g)| !g.thread_local)
                .map(global),
        );
        fixed.extend(
            p.globals
                .iter()
                .enumerate()
                .filter(|(_, g)| g.thread_local)
                .map(global),
        );
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

    /// Checks that `valuation` is an initial valuation of the program as the language defines
    /// it: one value per slot (in this iterator's order), a boolean where the slot is a boolean
    /// without an initialiser (either value), and exactly the value the language fixes
    /// everywhere else (an initialiser's constant; 0, `false` or `null` for a Zing variable
    /// without one: statics, ranges and enums start at 0, references at `null`). The search
    /// may start a dead boolean at one value only, but the other is as initial, so it is not
    /// required here. `zingrs replay` relies on this: a saved path's start is input.
    pub fn admits(machine: &Machine, valuation: &[Value]) -> Result<(), String> {
        let p = machine.program;
        let mut slots: Vec<(String, &Var)> = Vec::new();
        for local in [false, true] {
            slots.extend(
                p.globals
                    .iter()
                    .filter(|g| g.thread_local == local)
                    .map(|g| (g.name.clone(), g)),
            );
        }
        for a in machine.start_procs() {
            let proc = &p.procs[a as usize];
            slots.extend(
                proc.locals
                    .iter()
                    .map(|v| (format!("{}.{}", proc.name, v.name), v)),
            );
        }
        if valuation.len() != slots.len() {
            return Err(format!(
                "the initial valuation has {} values, the program needs {}",
                valuation.len(),
                slots.len()
            ));
        }
        for ((name, var), &v) in slots.iter().zip(valuation) {
            match slot_value(var) {
                None if matches!(v, Value::Bool(_)) => {}
                None => {
                    return Err(format!(
                        "the initial valuation gives the boolean {name} the value {}",
                        shown(v)
                    ))
                }
                Some(fixed) if fixed == v => {}
                Some(fixed) => {
                    return Err(format!(
                        "the initial valuation gives {name} the value {}, but it starts at {}",
                        shown(v),
                        shown(fixed)
                    ))
                }
            }
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Semantics;

    fn count(src: &str) -> u128 {
        let c = zingrs_lang::compile("t.bp", src, zingrs_lang::Lang::Bp).expect("compiles");
        let m = Machine::new(&c.program, Semantics::default());
        InitialStates::count(&InitialStates::new(&m))
    }

    #[test]
    fn getafix_globals_init_writes_first_start_with_one_value() {
        // 30 globals, all written by init before any read: one initial state, not 2^30
        let names: Vec<String> = (0..30).map(|i| format!("g{i}")).collect();
        let src = format!(
            "decl atomic, {}; void init() begin atomic := F; {} := {}; endinit: skip; end \
             void thread1() begin skip; end void thread2() begin skip; end",
            names.join(", "),
            names.join(", "),
            vec!["F"; 30].join(", ")
        );
        assert_eq!(count(&src), 1);
    }

    #[test]
    fn getafix_globals_read_or_left_by_init_keep_both_values() {
        // a is read before written, h is never written (and read by a thread): 2 * 2
        // initial states
        let src = "decl atomic, a, b, h; \
                   void init() begin atomic := F; b := a; a := F; endinit: skip; end \
                   void thread1() begin assert(h); end void thread2() begin skip; end";
        assert_eq!(count(src), 4);
        // a global no statement reads starts with one value, even where init leaves it
        let src = "decl atomic, a, b, h; \
                   void init() begin atomic := F; b := a; a := F; endinit: skip; end \
                   void thread1() begin skip; end void thread2() begin skip; end";
        assert_eq!(count(src), 2);
    }

    #[test]
    fn standard_layout_globals_read_first_keep_both_values_and_dead_ones_one() {
        // g is read before written: both values; h is written first and k never read: one
        assert_eq!(
            count("decl g, h, k; void main() begin assert(g | h); h := F; end"),
            4
        );
        assert_eq!(
            count("decl g, h, k; void main() begin h := F; assert(g | h); end"),
            2
        );
        // a concurrent program: any read anywhere keeps a global's both values
        assert_eq!(
            count(
                "decl g, h, k; void r() begin assert(h); end \
                 void main() begin h := F; start_thread r(); assert(g); end"
            ),
            4
        );
    }

    #[test]
    fn globals_a_loop_havocs_and_nobody_reads_start_with_one_value() {
        let names: Vec<String> = (0..30).map(|i| format!("g{i}")).collect();
        let src = format!(
            "decl {}; void main() begin while (*) do {} := {}; od end",
            names.join(", "),
            names.join(", "),
            vec!["*"; 30].join(", ")
        );
        assert_eq!(count(&src), 1);
    }
}
