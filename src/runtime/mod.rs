//! The runtime: values, states, and the one function that knows what a statement does.
//!
//! [`Machine::step`] executes the statement at the top frame of one thread and lists every
//! successor (each nondeterministic choice is a separate outcome, in a fixed order, so a trace
//! can name a choice by its index and replay it). It also reports the step's transition record
//! (reads, allocations, writes) to a [`Recorder`].

mod coverage;
mod dataflow;
mod eval;
mod fault;
mod fresh;
mod guarded;
mod independence;
mod init;
mod locks;
mod moved;
mod portable;
mod record;
mod state;
mod step;
mod value;

pub use coverage::Coverage;
pub use eval::{int_bounds, Env, Mask, RtError, ANY, CAN_F, CAN_T};
pub use fault::{non_null, Access, Fault};
pub use init::InitialStates;
pub use locks::Mover;
pub use moved::Move;
pub use portable::{wire, Decoded, Encoded, Portable};
pub use record::{Record, Recorder, Touched};
pub use state::{Frame, Heap, Object, Stack, StackDigest, State, Thread, MAX_ATOMIC_STEPS};
pub use step::{const_value, Kind, Outcome, ReturnStep, Violation, OUTCOME_WINDOW};
pub use value::{Addr, Loc, Value, GLOBALS};

use zingrs_lang::ir::{Program, Type};

/// Where a global variable lives: in the shared `globals` cell or in each thread's copy.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Shared(u32),
    ThreadLocal(u32),
}

/// The properties a check looks at when only some are selected (`check --property`): the
/// assertions left out act as `assume` (as under `--no-assertions`), and a runtime error
/// whose check is left out ends its execution unreported. A runtime error belongs to the
/// node its thread's step starts at (where the report places it). Either way the outcome
/// stays in its place in the step's list, as [`Outcome::Pruned`]: a path found under a
/// selection takes the same choices with every property checked (only its last state may
/// show otherwise: a thread waiting at an assertion left out is blocked there, so `replay`
/// selects again).
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// The assertions not checked, by node.
    pub assertions_off: ahash::AHashSet<(zingrs_lang::ir::ProcId, zingrs_lang::ir::Pc)>,
    /// The runtime errors reported, by the node their step starts at.
    pub runtime_on: ahash::AHashSet<(zingrs_lang::ir::ProcId, zingrs_lang::ir::Pc, RtError)>,
    /// The runtime errors reported wherever they happen (the infinite-loop check).
    pub runtime_anywhere: ahash::AHashSet<RtError>,
}

/// Options that change the meaning of statements.
#[derive(Clone, Debug)]
pub struct Semantics {
    /// Report failing assertions (true) or treat `assert` as `assume` (`--no-assertions`).
    pub check_assertions: bool,
    /// A bound on the number of live threads (`--threads N`, Boom's `--threadbound`): a
    /// `start_thread` (or `ASYNC_` call, or Zing `async`) is not enabled while this many
    /// threads are alive. Not enabled rather than skipped, so every bounded path is a path of
    /// the unbounded program too (it replays without the bound); initial threads are not
    /// cut. A search under the bound that finds nothing is a bounded pass, never a proof.
    pub thread_bound: Option<u32>,
    /// Zing's cooperative scheduling (`--cooperative`, zing-language.md §6.4): a process runs
    /// until it yields, so a disabled `select` it reaches other than right after a `yield` (or
    /// at its start) is an invalid blocking select. Which process runs is the search's part.
    pub cooperative: bool,
    /// Whether a state where no thread can move is a deadlock (SPIN's `-E` turns this off,
    /// zingrs's `--no-deadlock`): in Zing, every process blocked at a `select` or completed;
    /// in a boolean program with threads, every live thread blocked by a false `assume`
    /// (or another filter) or waiting for an atomic section that cannot complete.
    pub deadlock: bool,
    /// The globals are observed from outside the program (an LTL formula's propositions read
    /// them, `check --ltl`): none is dead, so none starts with one value for all its initial
    /// values or takes one value of a `*` it is assigned before it is read.
    pub observe_globals: bool,
    /// Only some properties are checked (`check --property`); `None`: all.
    pub selection: Option<std::sync::Arc<Selection>>,
    /// `check --coverage`: where the statements that run are recorded (no change of
    /// meaning; here so that every machine a check makes from these semantics records into
    /// the same place).
    pub coverage: Option<std::sync::Arc<Coverage>>,
    /// The most steps one atomic region (or, under cooperative scheduling, one run of a
    /// process up to its next `yield`) may take before it is ZING's infinite-loop error
    /// (zing-language.md §4.7; `--max-atomic-steps`, default ZING's 1,000,000).
    pub max_atomic_steps: u32,
}

impl Semantics {
    /// Whether the `assert` at node `pc` of `proc` is checked (otherwise it is an `assume`).
    pub fn checks_assertion(&self, proc: zingrs_lang::ir::ProcId, pc: zingrs_lang::ir::Pc) -> bool {
        self.check_assertions
            && self
                .selection
                .as_ref()
                .is_none_or(|s| !s.assertions_off.contains(&(proc, pc)))
    }

    /// Whether runtime error `e` in a step that starts at node `pc` of `proc` is reported
    /// (otherwise the execution ends there, unreported).
    pub fn reports_error(
        &self,
        proc: zingrs_lang::ir::ProcId,
        pc: zingrs_lang::ir::Pc,
        e: RtError,
    ) -> bool {
        self.selection.as_ref().is_none_or(|s| {
            s.runtime_anywhere.contains(&e) || s.runtime_on.contains(&(proc, pc, e))
        })
    }
}

impl Default for Semantics {
    fn default() -> Self {
        Semantics {
            check_assertions: true,
            thread_bound: None,
            cooperative: false,
            deadlock: true,
            observe_globals: false,
            selection: None,
            coverage: None,
            max_atomic_steps: crate::runtime::MAX_ATOMIC_STEPS,
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
    /// Per procedure, the locals that may be read before written from its entry; the others
    /// start as `false` instead of every value (their value is never observed).
    live_entry: Vec<Vec<bool>>,
    /// Per procedure, the live locals before each node: a nondeterministic value that goes to
    /// a local no path reads before writing it again (a dead formal, a dead target of `*`) is
    /// one value, not every value, so a call with 24 `*` arguments of which one is read has
    /// two outcomes, not 2^24.
    live: Vec<zingrs_lang::liveness::LiveBits>,
    /// The live globals before each node: a nondeterministic value that goes to a global no
    /// execution reads before writing it again (an initial value, a `*`) is one value, so a
    /// loop that havocs 14 globals nobody reads has one successor, not 2^14.
    global_live: zingrs_lang::global_liveness::GlobalLive,
    /// Getafix layout: the global `atomic` used as a lock (bp-language.md §5.13).
    lock_global: Option<u32>,
    /// Procedures whose calls run without interruption: Zing atomic methods, Getafix
    /// `__VERIFIER_atomic…` procedures.
    atomic_proc: Vec<bool>,
    has_atomic_procs: bool,
    /// Per procedure and pc, whether the node lies inside an atomic block (after an
    /// `atomic_begin` or an atomic `select`, before the `atomic_end`).
    in_atomic_block: Vec<Vec<bool>>,
    /// Zing: per procedure, whether it may run inside an atomic region entered by a caller
    /// (called, directly or not, from an atomic block or method), so that leaving one of its
    /// own atomic blocks must look at the frames below to know whether atomicity goes on.
    atomic_context: Vec<bool>,
    /// Which steps touch only their own thread, and the loop heads (for the reductions):
    /// computed on first use, since the BDD engines never ask (building it was 13 % of a
    /// context-bounded bdd run on fib-bp 9, for the product program).
    independence: std::sync::OnceLock<independence::Independence>,
    /// Whether some node is glued to a neighbour (Zing step granularity).
    has_glue: bool,
    /// A boolean program with threads: per procedure and pc, whether the node's step may have
    /// no successor (a filter, an atomic section or lock that may not complete); `None` for
    /// Zing and for sequential boolean programs, which have no deadlocks of this kind.
    may_block: Option<Vec<Vec<bool>>>,
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
        let live: Vec<_> = program
            .procs
            .iter()
            .map(zingrs_lang::liveness::LiveBits::of)
            .collect();
        // live_at_entry's answer, from the bits already computed
        let live_entry = program
            .procs
            .iter()
            .zip(&live)
            .map(|(p, bits)| {
                (0..p.locals.len())
                    .map(|i| i < p.params as usize || (!p.nodes.is_empty() && bits.live(0, i)))
                    .collect()
            })
            .collect();
        let mut m = Machine {
            program,
            semantics,
            slots,
            shared: shared as usize,
            thread_locals: tl as usize,
            live_entry,
            live,
            global_live: zingrs_lang::global_liveness::GlobalLive::of(program),
            lock_global: match program.layout {
                zingrs_lang::ir::Layout::Getafix { .. } => program
                    .globals
                    .iter()
                    .position(|g| g.name == "atomic")
                    .map(|i| i as u32),
                zingrs_lang::ir::Layout::Standard => None,
            },
            atomic_proc: atomic_procs(program),
            has_atomic_procs: atomic_procs(program).iter().any(|&a| a),
            in_atomic_block: program.procs.iter().map(atomic_blocks).collect(),
            atomic_context: Vec::new(),
            independence: std::sync::OnceLock::new(),
            has_glue: program
                .procs
                .iter()
                .any(|p| p.nodes.iter().any(|n| n.glue != zingrs_lang::ir::Glue::No)),
            may_block: None,
        };
        m.atomic_context = m.atomic_contexts();
        m.may_block = m.blocking_nodes();
        m
    }

    /// Per procedure, whether some call chain from inside an atomic region reaches it.
    fn atomic_contexts(&self) -> Vec<bool> {
        use zingrs_lang::ir::Stmt;
        let procs = &self.program.procs;
        let mut ctx = vec![false; procs.len()];
        let mut work: Vec<usize> = Vec::new();
        let callees = |p: usize, all: bool| -> Vec<usize> {
            procs[p]
                .nodes
                .iter()
                .enumerate()
                .filter(|&(pc, _)| all || self.atomic_proc[p] || self.in_atomic_block[p][pc])
                .filter_map(|(_, n)| match &n.stmt {
                    Stmt::Call { callee, .. } => Some(*callee as usize),
                    _ => None,
                })
                .collect()
        };
        for p in 0..procs.len() {
            work.extend(callees(p, false));
        }
        while let Some(p) = work.pop() {
            if !std::mem::replace(&mut ctx[p], true) {
                work.extend(callees(p, true));
            }
        }
        ctx
    }

    /// Zing's nested atomicity: whether the frames below the top of `stack` hold the top
    /// frame inside an atomic region (a caller is in an atomic block or an atomic method), so
    /// that the top frame leaving its own atomic block stays atomic.
    pub(crate) fn enclosing_atomic(&self, stack: &Stack) -> bool {
        let Some(top) = stack.top() else {
            return false;
        };
        if !self.program.nested_atomic || !self.atomic_context[top.proc as usize] {
            return false;
        }
        stack.iter().skip(1).any(|f| {
            self.atomic_proc[f.proc as usize]
                || self.in_atomic_block[f.proc as usize][f.pc as usize]
        })
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

    /// The procedures whose threads exist in an initial state: the activations, or in the
    /// Getafix layout `init` alone (the threads start when it reaches `endinit`).
    pub fn start_procs(&self) -> Vec<u32> {
        match &self.program.layout {
            zingrs_lang::ir::Layout::Getafix { init, .. } => vec![*init],
            zingrs_lang::ir::Layout::Standard => self.program.activations.clone(),
        }
    }

    /// Whether local `i` of `proc` may be read before it is written.
    pub fn live_at_entry(&self, proc: u32, i: usize) -> bool {
        self.live_entry[proc as usize][i]
    }

    /// Whether local `i` of `proc` may be read before it is written from node `pc` on
    /// (formals included: a formal no path reads is dead at the entry).
    #[inline]
    pub fn live_before(&self, proc: u32, pc: u32, i: usize) -> bool {
        self.live[proc as usize].live(pc, i)
    }

    /// Whether global `g` may be read before it is written from node `pc` of `proc` on (the
    /// Getafix lock, which the machine itself reads, always is).
    #[inline]
    pub fn global_live_before(&self, proc: u32, pc: u32, g: usize) -> bool {
        self.semantics.observe_globals
            || self.lock_global == Some(g as u32)
            || self.global_live.live(proc, pc, g)
    }

    /// Whether some statement may read global `g` (the Getafix lock always counts as read).
    pub fn global_read_anywhere(&self, g: usize) -> bool {
        self.semantics.observe_globals
            || self.lock_global == Some(g as u32)
            || self.global_live.read_anywhere(g)
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
            // Zing: a range variable starts at 0 even when 0 is outside the range
            Type::Range(..) => Value::Int(0),
            Type::Ref(_) => Value::Null,
        }
    }
}

fn atomic_procs(program: &Program) -> Vec<bool> {
    let getafix = matches!(program.layout, zingrs_lang::ir::Layout::Getafix { .. });
    program
        .procs
        .iter()
        .map(|p| p.atomic || (getafix && p.name.starts_with("__VERIFIER_atomic")))
        .collect()
}

/// The nodes reachable from an atomic-block entry without passing its end.
fn atomic_blocks(p: &zingrs_lang::ir::Proc) -> Vec<bool> {
    use zingrs_lang::ir::Stmt;
    let mut inside = vec![false; p.nodes.len()];
    let mut work: Vec<u32> = Vec::new();
    for n in &p.nodes {
        let opens = matches!(n.stmt, Stmt::AtomicBegin)
            || matches!(n.stmt, Stmt::Select { atomic: true, .. });
        if opens {
            work.extend(n.succ.iter().copied());
        }
    }
    while let Some(pc) = work.pop() {
        let Some(slot) = inside.get_mut(pc as usize) else {
            continue;
        };
        if *slot {
            continue;
        }
        *slot = true;
        let n = &p.nodes[pc as usize];
        if !matches!(n.stmt, Stmt::AtomicEnd) {
            work.extend(n.succ.iter().copied());
        }
    }
    inside
}

impl Machine<'_> {
    /// A fresh object of `class`, every field at its initial value.
    pub fn new_object(&self, class: u32) -> Object {
        let c = &self.program.classes[class as usize];
        match c.kind {
            zingrs_lang::ir::ClassKind::Object => {}
            zingrs_lang::ir::ClassKind::Array { len } => {
                return self.new_collection(class, len.unwrap_or(0) as usize)
            }
            zingrs_lang::ir::ClassKind::Set | zingrs_lang::ir::ClassKind::Chan => {
                return self.new_collection(class, 0)
            }
        }
        let fields = c.fields.iter().map(Self::initial_value).collect();
        Object { class, fields }
    }

    /// A fresh collection of `class` with `n` elements at their defaults.
    pub fn new_collection(&self, class: u32, n: usize) -> Object {
        let elem = &self.program.classes[class as usize].fields;
        let len = n.saturating_mul(elem.len());
        crate::limits::watchdog::before_model_allocation(
            len.saturating_mul(std::mem::size_of::<Value>()),
        );
        let mut fields = Vec::with_capacity(len);
        for _ in 0..n {
            fields.extend(elem.iter().map(Self::initial_value));
        }
        Object {
            class,
            fields: fields.into(),
        }
    }

    fn initial_value(f: &zingrs_lang::ir::Var) -> Value {
        match f.init {
            zingrs_lang::ir::Init::Value(c) => const_value(c),
            zingrs_lang::ir::Init::Any => Self::default_value(f.ty),
        }
    }

    /// The value at a heap location as thread `tid` sees it (globals are fields of the
    /// `globals` cell).
    pub fn read_loc(&self, s: &State, tid: usize, loc: Loc) -> Value {
        if loc.addr != GLOBALS {
            return s
                .heap
                .get(&loc.addr)
                .and_then(|o| o.fields.get(loc.field as usize).copied())
                .unwrap_or(Value::Null);
        }
        let tl: &[Value] = s.threads.get(tid).map_or(&[], |t| &t.thread_locals);
        self.global(&s.globals, tl, loc.field)
    }

    /// `s` with the given locations overwritten, as thread `tid` sees them (a summary's effect
    /// being applied).
    pub fn write_locs(&self, s: &State, tid: usize, writes: &[(Loc, Value)]) -> State {
        let mut st = s.clone();
        if writes.is_empty() {
            return st;
        }
        let mut globals: Option<Vec<Value>> = None;
        let mut tl: Option<Vec<Value>> = None;
        for &(loc, v) in writes {
            if loc.addr != GLOBALS {
                if let Some(obj) = st.heap.get(&loc.addr) {
                    let mut obj = obj.clone();
                    if let Some(slot) = std::rc::Rc::make_mut(&mut obj)
                        .fields
                        .get_mut(loc.field as usize)
                    {
                        *slot = v;
                    }
                    st.heap.insert(loc.addr, obj);
                }
                continue;
            }
            match self.slots[loc.field as usize] {
                Slot::Shared(i) => {
                    globals.get_or_insert_with(|| s.globals.to_vec())[i as usize] = v
                }
                Slot::ThreadLocal(i) => {
                    tl.get_or_insert_with(|| s.threads[tid].thread_locals.to_vec())[i as usize] = v
                }
            }
        }
        if let Some(g) = globals {
            st.globals = g.into();
        }
        if let Some(t) = tl {
            st.thread_mut(tid).thread_locals = t.into();
        }
        st
    }
}
