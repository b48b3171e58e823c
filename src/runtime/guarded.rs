//! Shared data that behaves like a thread's own: globals and object fields that a simple
//! static analysis proves are accessed only under one lock, or by one thread.
//!
//! A location is *protected* when it is not a lock itself (see [`super::locks`]) and either
//! - every access to it anywhere is made while the accessing frame holds one particular lock
//!   location on every path (the must-hold facts of `locks`; a global lock held at every call
//!   of a procedure counts inside it), except accesses made before the program's only initial
//!   thread has started any other (*initialization*); or
//! - every access is made by the initial thread, in code no other thread runs.
//!
//! A step on a protected location is then independent of every step of every other thread:
//! while the accessing thread holds the lock no other thread can hold it, so none can touch
//! the location, and a release only comes later in the accessing thread. Such a step is a
//! both-mover (Lipton; Flanagan and Qadeer), and `independence` counts it as private, so a
//! critical section `acquire; x = x + 1; y = x; release` is one transaction.
//!
//! Heap fields are judged per class and field, against aliasing: an access `y.f` counts as
//! guarded only by a global lock, or by the lock field `y.l` of the same object through the
//! same local `y` (which the frame has not reassigned since it acquired `y.l`: the must-hold
//! facts die when `y` is written). An access through a reference whose class is not known
//! statically makes that field index unprotected in every class. An access through a local
//! that holds a fresh object (`super::fresh`: allocated by this frame and not yet published)
//! touches no shared data and does not count.

use super::fresh::fresh_locals;
use super::locks::{class_of, Discipline, Key, Loc};
use zingrs_lang::ir::{Expr, LValue, Layout, Operand, Proc, Program, Stmt};

/// The protected globals and class fields of a program, and its fresh objects.
#[derive(Debug, Default)]
pub(super) struct Protected {
    globals: Vec<bool>,
    /// Per class, per field.
    fields: Vec<Vec<bool>>,
    /// Per procedure and node, the locals that hold a fresh object there (`super::fresh`).
    fresh: Vec<Vec<Vec<u32>>>,
}

impl Protected {
    /// Whether local `x` holds an object that no other thread can reach yet, for the accesses
    /// made by the step at `pc` of `proc`.
    pub(super) fn fresh(&self, proc: u32, pc: usize, x: u32) -> bool {
        self.fresh
            .get(proc as usize)
            .and_then(|p| p.get(pc))
            .is_some_and(|f| f.binary_search(&x).is_ok())
    }

    /// Whether every access to global `g` is protected.
    pub(super) fn global(&self, g: u32) -> bool {
        self.globals.get(g as usize).copied().unwrap_or(false)
    }

    /// Whether every access to field `f` of class `c`'s objects is protected.
    pub(super) fn field(&self, c: u32, f: u32) -> bool {
        self.fields
            .get(c as usize)
            .and_then(|fs| fs.get(f as usize))
            .copied()
            .unwrap_or(false)
    }
}

/// What guards an access: a global lock, or the lock field of the accessed object itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guard {
    Global(u32),
    Own(u32),
}

/// What the accesses to one location have in common so far.
#[derive(Clone, Debug)]
struct Accesses {
    /// The guards every access after initialization had (`None`: no such access yet).
    guards: Option<Vec<Guard>>,
    /// Every access so far was made by the initial thread alone.
    main_only: bool,
}

impl Default for Accesses {
    fn default() -> Self {
        Accesses {
            guards: None,
            main_only: true,
        }
    }
}

impl Accesses {
    fn note(&mut self, guards: Vec<Guard>, init: bool, main_only: bool) {
        self.main_only &= main_only;
        if init {
            return;
        }
        match &mut self.guards {
            None => self.guards = Some(guards),
            Some(old) => old.retain(|g| guards.contains(g)),
        }
    }

    fn protected(&self) -> bool {
        self.main_only || self.guards.as_ref().is_none_or(|g| !g.is_empty())
    }
}

/// The protected locations of `program`, given its lock discipline.
pub(super) fn analyze(program: &Program, d: &Discipline) -> Protected {
    let enforced = program.has_passive()
        || program
            .procs
            .iter()
            .any(|p| p.nodes.iter().any(|n| n.invariant.is_some()));
    if enforced || matches!(program.layout, Layout::Getafix { .. }) {
        return Protected::default();
    }
    let fresh: Vec<Vec<Vec<u32>>> = program.procs.iter().map(fresh_locals).collect();
    let threads = Threads::new(program);
    let mut globals = vec![Accesses::default(); program.globals.len()];
    let mut fields: Vec<Vec<Accesses>> = program
        .classes
        .iter()
        .map(|c| vec![Accesses::default(); c.fields.len()])
        .collect();
    let mut unknown_fields: Vec<u32> = Vec::new();
    let mut all_globals = false;
    let live = reachable(program);
    for (i, p) in program.procs.iter().enumerate() {
        if !live[i] {
            // never runs: its accesses never happen
            continue;
        }
        for (pc, node) in p.nodes.iter().enumerate() {
            if matches!(node.stmt, Stmt::Constrain { .. }) {
                all_globals = true;
            }
            let held = &d.held[i][pc];
            let init = threads.init[i][pc];
            let main_only = threads.main_only[i][pc];
            // a call's results are written when the callee returns, which may have released
            let results_held: &[Key] = match &node.stmt {
                Stmt::Call { callee, .. } if d.may_release[*callee as usize] => &[],
                _ => held,
            };
            let fresh_here = &fresh[i][pc];
            let mut field = |base: &Expr, f: u32, held: &[Key]| match class_of(program, p, base) {
                // an object no other thread reaches yet: no access to shared data
                Some(_) if matches!(base, Expr::Local(y) if fresh_here.contains(y)) => {}
                Some(c) => {
                    let mut guards = global_guards(held);
                    if let Expr::Local(y) = base {
                        guards.extend(held.iter().filter_map(|k| match k {
                            (Loc::Field(lc, lf), Some(x)) if *lc == c && x == y => {
                                Some(Guard::Own(*lf))
                            }
                            _ => None,
                        }));
                    }
                    if let Some(a) = fields
                        .get_mut(c as usize)
                        .and_then(|v| v.get_mut(f as usize))
                    {
                        a.note(guards, init, main_only);
                    }
                }
                None => unknown_fields.push(f),
            };
            let is_call = matches!(node.stmt, Stmt::Call { .. });
            node.stmt.for_each_operand(|op| match op {
                Operand::Write(lv) => {
                    let held = if is_call { results_held } else { held };
                    match lv {
                        LValue::Global(g) => {
                            globals[*g as usize].note(global_guards(held), init, main_only)
                        }
                        LValue::Field(base, f) => field(base, *f, held),
                        _ => {}
                    }
                }
                Operand::Read(e) => e.walk(&mut |e| match e {
                    Expr::Global(g) | Expr::PrimedGlobal(g) => {
                        globals[*g as usize].note(global_guards(held), init, main_only)
                    }
                    Expr::Field(base, f) => field(base, *f, held),
                    _ => {}
                }),
            });
        }
    }
    let is_lock = |l: Loc| d.locks.contains(&l);
    Protected {
        fresh,
        globals: globals
            .iter()
            .enumerate()
            .map(|(g, a)| {
                let var = &program.globals[g];
                !all_globals
                    && !var.thread_local
                    && !is_lock(Loc::Global(g as u32))
                    && a.protected()
            })
            .collect(),
        fields: fields
            .iter()
            .enumerate()
            .map(|(c, fs)| {
                fs.iter()
                    .enumerate()
                    .map(|(f, a)| {
                        !unknown_fields.contains(&(f as u32))
                            && !is_lock(Loc::Field(c as u32, f as u32))
                            && a.protected()
                    })
                    .collect()
            })
            .collect(),
    }
}

fn global_guards(held: &[Key]) -> Vec<Guard> {
    held.iter()
        .filter_map(|k| match k {
            (Loc::Global(g), None) => Some(Guard::Global(*g)),
            _ => None,
        })
        .collect()
}

/// Which code only the initial thread runs, and which it runs before it starts any other.
struct Threads {
    /// Per procedure and node: run only by the initial thread, before any other thread exists.
    init: Vec<Vec<bool>>,
    /// Per procedure and node: run only by the initial thread.
    main_only: Vec<Vec<bool>>,
}

impl Threads {
    fn new(program: &Program) -> Threads {
        let mut out = Threads {
            init: program
                .procs
                .iter()
                .map(|p| vec![false; p.nodes.len()])
                .collect(),
            main_only: program
                .procs
                .iter()
                .map(|p| vec![false; p.nodes.len()])
                .collect(),
        };
        let [main] = program.activations[..] else {
            return out;
        };
        let main = main as usize;
        let p = &program.procs[main];
        let spawns = may_spawn(program);
        let spawning = |pc: usize| {
            let node = &p.nodes[pc];
            let mut calls_spawner = false;
            for_each_callee(&node.stmt, |c| calls_spawner |= spawns[c as usize]);
            calls_spawner || matches!(node.stmt, Stmt::StartThread { .. } | Stmt::StartThreadGoto)
        };
        let handlers: Vec<usize> = p
            .tries
            .iter()
            .flat_map(|t| t.handlers.iter().map(|h| h.1 as usize))
            .collect();
        let new_thread_starts: Vec<usize> = p
            .nodes
            .iter()
            .filter(|n| matches!(n.stmt, Stmt::StartThreadGoto))
            .filter_map(|n| n.succ.get(1).map(|&s| s as usize))
            .collect();
        let mut roots = vec![0];
        roots.extend(&handlers);
        let main_nodes = reach(p, &roots, false);
        let other_nodes = reach(p, &new_thread_starts, true);
        // after a spawn (a handler may run after anything)
        let mut late_roots: Vec<usize> = (0..p.nodes.len())
            .filter(|&pc| main_nodes[pc] && spawning(pc))
            .flat_map(|pc| {
                let node = &p.nodes[pc];
                let keep = if matches!(node.stmt, Stmt::StartThreadGoto) {
                    1
                } else {
                    node.succ.len()
                };
                node.succ[..keep.min(node.succ.len())]
                    .iter()
                    .map(|&s| s as usize)
                    .collect::<Vec<_>>()
            })
            .collect();
        late_roots.extend(&handlers);
        let late = reach(p, &late_roots, false);
        let init_node =
            |pc: usize| main_nodes[pc] && !other_nodes[pc] && !late[pc] && !spawning(pc);
        let callees_of = |nodes: &mut dyn Iterator<Item = &zingrs_lang::ir::Node>| {
            let mut out = vec![false; program.procs.len()];
            for n in nodes {
                for_each_callee(&n.stmt, |c| out[c as usize] = true);
                if let Stmt::StartThread { callee, .. } = n.stmt {
                    out[callee as usize] = true;
                }
            }
            closure(program, out)
        };
        let mut from_others = callees_of(
            &mut p
                .nodes
                .iter()
                .enumerate()
                .filter(|(pc, _)| other_nodes[*pc])
                .map(|(_, n)| n),
        );
        // every thread started anywhere runs its procedure and what it calls; one started by
        // `start_thread goto` in another procedure runs the rest of that procedure
        let mut started = callees_of(&mut program.procs.iter().flat_map(|q| {
            q.nodes
                .iter()
                .filter(|n| matches!(n.stmt, Stmt::StartThread { .. }))
        }));
        let mut forks = vec![false; program.procs.len()];
        for (q, proc) in program.procs.iter().enumerate() {
            forks[q] = q != main
                && proc
                    .nodes
                    .iter()
                    .any(|n| matches!(n.stmt, Stmt::StartThreadGoto));
        }
        for (a, b) in started.iter_mut().zip(closure(program, forks)) {
            *a |= b;
        }
        for (a, b) in from_others.iter_mut().zip(&started) {
            *a |= *b;
        }
        let from_main = callees_of(
            &mut p
                .nodes
                .iter()
                .enumerate()
                .filter(|(pc, _)| main_nodes[*pc])
                .map(|(_, n)| n),
        );
        if from_others[main] || from_main[main] {
            return out;
        }
        let from_late = callees_of(
            &mut p
                .nodes
                .iter()
                .enumerate()
                .filter(|(pc, _)| main_nodes[*pc] && !init_node(*pc))
                .map(|(_, n)| n),
        );
        let from_init = callees_of(
            &mut p
                .nodes
                .iter()
                .enumerate()
                .filter(|(pc, _)| init_node(*pc))
                .map(|(_, n)| n),
        );
        for pc in 0..p.nodes.len() {
            out.main_only[main][pc] = main_nodes[pc] && !other_nodes[pc];
            out.init[main][pc] = init_node(pc);
        }
        for q in 0..program.procs.len() {
            if q == main || from_others[q] {
                continue;
            }
            let only_main = from_main[q];
            let only_init = from_init[q] && !from_late[q];
            for pc in 0..program.procs[q].nodes.len() {
                out.main_only[q][pc] = only_main;
                out.init[q][pc] = only_init;
            }
        }
        out
    }
}

/// Calls `f` with every procedure `stmt` calls, as a statement or inside an expression.
fn for_each_callee(stmt: &Stmt, mut f: impl FnMut(u32)) {
    if let Stmt::Call { callee, .. } = stmt {
        f(*callee);
    }
    stmt.for_each_operand(|op| {
        if let Operand::Read(e) = op {
            e.walk(&mut |e| {
                if let Expr::Call(c, _) = e {
                    f(*c);
                }
            });
        }
    });
}

/// `set` and every procedure its procedures call, transitively.
fn closure(program: &Program, mut set: Vec<bool>) -> Vec<bool> {
    let mut work: Vec<usize> = (0..set.len()).filter(|&i| set[i]).collect();
    while let Some(q) = work.pop() {
        for n in &program.procs[q].nodes {
            for_each_callee(&n.stmt, |c| {
                if !set[c as usize] {
                    set[c as usize] = true;
                    work.push(c as usize);
                }
            });
        }
    }
    set
}

/// Per procedure: whether some thread may run it (an activation, or called or started from
/// one that may).
fn reachable(program: &Program) -> Vec<bool> {
    let mut set = vec![false; program.procs.len()];
    let mut work: Vec<usize> = program.activations.iter().map(|&a| a as usize).collect();
    for &a in &work {
        set[a] = true;
    }
    while let Some(q) = work.pop() {
        for n in &program.procs[q].nodes {
            let mut add = |c: u32| {
                if !set[c as usize] {
                    set[c as usize] = true;
                    work.push(c as usize);
                }
            };
            for_each_callee(&n.stmt, &mut add);
            if let Stmt::StartThread { callee, .. } = n.stmt {
                add(callee);
            }
        }
    }
    set
}

/// Per procedure: whether a call of it may start a thread.
fn may_spawn(program: &Program) -> Vec<bool> {
    let direct: Vec<bool> = program
        .procs
        .iter()
        .map(|p| {
            p.nodes
                .iter()
                .any(|n| matches!(n.stmt, Stmt::StartThread { .. } | Stmt::StartThreadGoto))
        })
        .collect();
    let mut may = direct;
    loop {
        let mut changed = false;
        for (i, p) in program.procs.iter().enumerate() {
            if may[i] {
                continue;
            }
            let mut calls = false;
            for n in &p.nodes {
                for_each_callee(&n.stmt, |c| calls |= may[c as usize]);
            }
            if calls {
                may[i] = true;
                changed = true;
            }
        }
        if !changed {
            return may;
        }
    }
}

/// The nodes of `p` reachable from `roots`; a `start_thread goto`'s edge to the new thread is
/// followed only if `new_threads`.
fn reach(p: &Proc, roots: &[usize], new_threads: bool) -> Vec<bool> {
    let mut seen = vec![false; p.nodes.len()];
    let mut work: Vec<usize> = roots
        .iter()
        .copied()
        .filter(|&r| r < p.nodes.len())
        .collect();
    for &r in &work {
        seen[r] = true;
    }
    while let Some(pc) = work.pop() {
        let node = &p.nodes[pc];
        for (k, &s) in node.succ.iter().enumerate() {
            let s = s as usize;
            let to_new = matches!(node.stmt, Stmt::StartThreadGoto) && k == 1;
            if s >= p.nodes.len() || (to_new && !new_threads) || seen[s] {
                continue;
            }
            seen[s] = true;
            work.push(s);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{Machine, Semantics};
    use zingrs_lang::Lang;

    /// The protected globals and fields (`Class.field`) of a model, by name.
    fn protected(text: &str, lang: Lang) -> Vec<String> {
        let name = if lang == Lang::Zing { "t.zing" } else { "t.bp" };
        let program = zingrs_lang::compile(name, text, lang)
            .expect("the model compiles")
            .program;
        let m = Machine::new(&program, Semantics::default());
        let p = analyze(&program, &super::super::locks::analyze(&m));
        let mut out: Vec<String> = program
            .globals
            .iter()
            .enumerate()
            .filter(|(g, _)| p.global(*g as u32))
            .map(|(_, v)| v.name.clone())
            .collect();
        for (c, class) in program.classes.iter().enumerate() {
            for (f, v) in class.fields.iter().enumerate() {
                if p.field(c as u32, f as u32) {
                    out.push(format!("{}.{}", class.name, v.name));
                }
            }
        }
        out
    }

    /// A Zing model with a global lock `busy`; `worker` is Worker's body after the acquire,
    /// `main` main's body.
    fn counter(worker: &str, main: &str, extra: &str) -> String {
        format!(
            "class Main {{
    static bool busy;
    static int count;
    static int seen;
{extra}
    static void Worker() {{
        atomic {{ select {{ wait(!busy) -> busy = true; }} }}
{worker}
        busy = false;
    }}
    activate static void main() {{
{main}
    }}
}};
"
        )
    }

    const SPAWN: &str = "        async Worker();\n        async Worker();";

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn data_accessed_only_under_one_global_lock_is_protected() {
        let text = counter(
            "        count = count + 1;\n        seen = count;",
            SPAWN,
            "",
        );
        let got = protected(&text, Lang::Zing);
        // the lock itself is not data
        assert!(!got.iter().any(|n| n.ends_with("busy")), "{got:?}");
        assert!(got.iter().any(|n| n.ends_with("count")), "{got:?}");
        assert!(got.iter().any(|n| n.ends_with("seen")), "{got:?}");
    }

    #[test]
    fn one_access_without_the_lock_unprotects_the_location() {
        let sneak = "    static void Sneak() { count = count + 1; }";
        let main = format!("{SPAWN}\n        async Sneak();");
        let text = counter(
            "        count = count + 1;\n        seen = count;",
            &main,
            sneak,
        );
        let got = protected(&text, Lang::Zing);
        assert!(!got.iter().any(|n| n.ends_with("count")), "{got:?}");
        assert!(got.iter().any(|n| n.ends_with("seen")), "{got:?}");
    }

    #[test]
    fn initialization_before_the_first_thread_counts_and_later_writes_do_not() {
        let worker = "        count = count + 1;";
        let before = format!("        count = 5;\n{SPAWN}");
        assert!(protected(&counter(worker, &before, ""), Lang::Zing)
            .iter()
            .any(|n| n.ends_with("count")));
        let after = "        async Worker();\n        count = 5;\n        async Worker();";
        assert!(!protected(&counter(worker, after, ""), Lang::Zing)
            .iter()
            .any(|n| n.ends_with("count")));
        // a write in a loop that also starts threads comes after a start
        let looped =
            "        int i = 0;\n        while (i < 2) { count = 5; async Worker(); i = i + 1; }";
        assert!(!protected(&counter(worker, looped, ""), Lang::Zing)
            .iter()
            .any(|n| n.ends_with("count")));
    }

    #[test]
    fn data_only_the_initial_thread_touches_is_protected() {
        let main = format!("{SPAWN}\n        seen = 1;\n        seen = seen + 1;");
        let got = protected(
            &counter("        count = count + 1;", &main, ""),
            Lang::Zing,
        );
        assert!(got.iter().any(|n| n.ends_with("seen")), "{got:?}");
    }

    #[test]
    fn a_global_lock_held_at_every_call_guards_the_callee() {
        let bump = "    static void Bump() { count = count + 1; }";
        let text = counter("        Bump();", SPAWN, bump);
        assert!(protected(&text, Lang::Zing)
            .iter()
            .any(|n| n.ends_with("count")));
        // one call without the lock is enough to lose it
        let main = format!("{SPAWN}\n        Bump();");
        let text = counter("        Bump();", &main, bump);
        assert!(!protected(&text, Lang::Zing)
            .iter()
            .any(|n| n.ends_with("count")));
    }

    /// Accounts whose `lock` field guards `balance`; `deposit` is Worker's body.
    fn accounts(deposit: &str) -> String {
        format!(
            "class Account {{
    bool lock;
    int balance;
    void Add() {{ this.balance = this.balance + 1; }}
}};
class Main {{
    static Account x;
    static Account y;
    static void Worker(Account a, Account b) {{
        atomic {{ select {{ wait(!a.lock) -> a.lock = true; }} }}
{deposit}
        a.lock = false;
    }}
    activate static void main() {{
        atomic {{
            x = new Account;
            y = new Account;
            async Worker(x, x);
            async Worker(y, x);
        }}
    }}
}};
"
        )
    }

    #[test]
    fn a_field_is_guarded_only_by_the_lock_of_its_own_object() {
        let fields = |text: &str| -> Vec<String> {
            protected(text, Lang::Zing)
                .into_iter()
                .filter(|n| n.starts_with("Account."))
                .collect()
        };
        let own = accounts("        a.balance = a.balance + 1;");
        assert_eq!(fields(&own), names(&["Account.balance"]));
        // the lock of `a` does not guard the balance of `b`, which may be another object
        let other = accounts("        b.balance = b.balance + 1;");
        assert_eq!(fields(&other), names(&[]));
        // the object's lock passes into a method called on it
        let call = accounts("        a.Add();");
        assert_eq!(fields(&call), names(&["Account.balance"]));
        let call_other = accounts("        b.Add();");
        assert_eq!(fields(&call_other), names(&[]));
        // an unlocked write to a fresh account, never published, does not count
        let fresh = accounts(
            "        Account t;\n        t = new Account;\n        t.balance = 3;\n        a.balance = t.balance;",
        );
        assert_eq!(fields(&fresh), names(&["Account.balance"]));
        // published first, it does
        let published = accounts(
            "        Account t;\n        t = new Account;\n        y = t;\n        t.balance = 3;",
        );
        assert_eq!(fields(&published), names(&[]));
    }

    #[test]
    fn boolean_programs_guard_globals_with_a_global_lock() {
        let text = "decl l, x, y;
void worker() begin
  atomic_begin; assume(!l); l := T; atomic_end;
  x := !x;
  y := x;
  l := F;
end
void main() begin
  x := F;
  start_thread worker();
  worker();
end
";
        assert_eq!(protected(text, Lang::Bp), names(&["x", "y"]));
        // main's write after the thread started, without the lock
        let late = text.replace("  worker();\nend", "  x := T;\nend");
        assert_eq!(protected(&late, Lang::Bp), names(&["y"]));
    }

    #[test]
    fn a_thread_forked_in_a_callee_is_another_thread() {
        let text = "decl x, y;
void fork() begin
  start_thread goto W;
  goto Z;
  W: x := T;
  end_thread;
  Z: y := T;
end
void main() begin
  fork();
  x := F;
  y := F;
end
";
        // fork's code from W on runs in the new thread, and the analysis counts the whole of a
        // procedure with a `start_thread goto` as another thread's: neither is main's alone
        // (main's own writes come after the start, without a lock)
        assert_eq!(protected(text, Lang::Bp), names(&[]));
    }
}
