//! Lock discipline: the boolean globals and object fields that a program uses only as locks,
//! and which steps acquire and release them (the movers of the transaction reduction).
//!
//! A *lock location* is a boolean global, or a boolean field of a class of objects, every
//! access to which anywhere in the program is one of:
//! - an *acquire*, a test-and-set that begins a step outside any atomic region: Zing's
//!   `atomic { select { wait(!x.f) -> x.f = true; } }` or a boolean program's
//!   `atomic_begin; assume(!g); g := T; atomic_end;`, where `x` is a local;
//! - a *release* by the thread that holds it: `x.f = false` (or `g := F`) at a node where the
//!   same frame has acquired `x.f` on every path and has since neither released it, nor
//!   assigned `x`, nor called a procedure that may release a lock (*must-hold*).
//!
//! Then a location that is true stays so until its holder releases it, and nobody else writes
//! it or reads it. An acquire commutes to the right of every step of another thread (it only
//! waits for other threads' releases, and after it every other acquire of the location is
//! blocked and no other thread holds it to release it): a *right mover*. A release never blocks
//! and commutes to the left of every step of another thread (before it, others' acquires of
//! the location are blocked): a *left mover* (Lipton; Flanagan and Qadeer). The search may
//! therefore run a thread's release on without interleaving, and an acquire may begin a
//! transaction (see `explore::reduce`).
//!
//! Zing's acquire must begin a step outside every atomic region: inside one a disabled `select`
//! is a runtime error rather than a wait, which would not commute.

use super::Machine;
use zingrs_lang::ir::{
    ClassKind, Const, Expr, Glue, LValue, Layout, Operand, Proc, Program, Stmt, Type, UnOp,
};

/// What a node's step is to the transaction reduction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mover {
    /// Anything else (a non-mover, unless it is private: see `independence`).
    #[default]
    None,
    /// The first node of an acquire of a lock location (a right mover).
    Acquire,
    /// A release of a lock location by its holder (a left mover).
    Release,
}

/// A boolean global, or field `f` of the objects of a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Loc {
    Global(u32),
    Field(u32, u32),
}

/// A lock location as one frame names it: the location and the local holding the object.
pub(super) type Key = (Loc, Option<u32>);

/// What the lock analysis found: every node's mover class, the lock locations, and the locks
/// each frame must hold before each node (what `super::guarded` builds on).
pub(super) struct Discipline {
    /// Per procedure and node, its mover class.
    pub mover: Vec<Vec<Mover>>,
    /// Per procedure and node, the keys of lock locations the frame holds there on every path
    /// (including the global locks that every call of the procedure holds).
    pub held: Vec<Vec<Vec<Key>>>,
    /// The locations that are locks (every access an acquire or a release by the holder).
    pub locks: Vec<Loc>,
    /// Per procedure: whether a call of it may release a lock.
    pub may_release: Vec<bool>,
}

impl Discipline {
    /// No movers, no locks: for programs the analysis does not cover.
    fn none(program: &Program) -> Discipline {
        Discipline {
            mover: program
                .procs
                .iter()
                .map(|p| vec![Mover::None; p.nodes.len()])
                .collect(),
            held: program
                .procs
                .iter()
                .map(|p| vec![Vec::new(); p.nodes.len()])
                .collect(),
            locks: Vec::new(),
            may_release: vec![true; program.procs.len()],
        }
    }
}

/// The lock discipline of `m`'s program: movers, lock locations and must-hold facts.
pub(super) fn analyze(m: &Machine) -> Discipline {
    let program = m.program;
    // the Getafix layout's global `atomic` is a lock of its own kind; an `enforce` invariant
    // may read anything after any step; a broadcast writes other threads' locals (kept simple:
    // no movers at all)
    let enforced = program
        .procs
        .iter()
        .any(|p| p.nodes.iter().any(|n| n.invariant.is_some()))
        || program.has_passive();
    if matches!(program.layout, Layout::Getafix { .. }) || enforced {
        return Discipline::none(program);
    }
    let mut bad = Disqualified::default();
    // per procedure: its acquires (first node, key, nodes of the pattern) and releases
    let mut acquires: Vec<Vec<(usize, Key, Vec<usize>)>> = Vec::new();
    let mut releases: Vec<Vec<(usize, Key)>> = Vec::new();
    let mut candidates: Vec<Loc> = Vec::new();
    for (i, p) in program.procs.iter().enumerate() {
        let preds = predecessors(p);
        let mut acq = Vec::new();
        let mut rel = Vec::new();
        let mut in_pattern = vec![false; p.nodes.len()];
        for pc in 0..p.nodes.len() {
            if let Some((key, nodes)) = acquire(program, p, pc, &preds) {
                let begins_step = p.nodes[pc].glue == Glue::No
                    && preds[pc]
                        .iter()
                        .all(|&q| matches!(p.nodes[q].glue, Glue::No | Glue::ToPrevious));
                let atomic_context = program.nested_atomic
                    && (m.atomic_proc[i] || m.atomic_context[i] || m.in_atomic_block[i][pc]);
                if !begins_step || atomic_context {
                    bad.loc(key.0);
                }
                for &n in &nodes {
                    in_pattern[n] = true;
                }
                candidates.push(key.0);
                acq.push((pc, key, nodes));
            } else if let Some(key) = release(program, p, pc) {
                in_pattern[pc] = true;
                candidates.push(key.0);
                rel.push((pc, key));
            }
        }
        // every other access disqualifies what it touches
        for (pc, n) in p.nodes.iter().enumerate() {
            if in_pattern[pc] {
                continue;
            }
            if matches!(n.stmt, Stmt::Constrain { .. }) {
                bad.all_globals = true;
            }
            n.stmt.for_each_operand(|op| bad.operand(program, p, op));
        }
        acquires.push(acq);
        releases.push(rel);
    }
    // a release must be by the holder: the frame's must-hold facts
    let may_release = may_release(program, &releases);
    let held = held_everywhere(program, &acquires, &releases, &may_release);
    for (i, rel) in releases.iter().enumerate() {
        for &(pc, key) in rel {
            if !held[i][pc].contains(&key) {
                bad.loc(key.0);
            }
        }
    }
    let mut out = Discipline::none(program);
    for (i, p) in program.procs.iter().enumerate() {
        for &(pc, key, _) in &acquires[i] {
            if !bad.is(key.0) {
                out.mover[i][pc] = Mover::Acquire;
            }
        }
        for &(pc, key) in &releases[i] {
            let glued = p.nodes[pc].glue != Glue::No
                || p.nodes[pc]
                    .succ
                    .iter()
                    .any(|&s| p.nodes[s as usize].glue != Glue::No);
            if !bad.is(key.0) && !glued {
                out.mover[i][pc] = Mover::Release;
            }
        }
    }
    candidates.sort();
    candidates.dedup();
    out.locks = candidates.into_iter().filter(|&l| !bad.is(l)).collect();
    out.may_release = may_release;
    let locks = &out.locks;
    out.held = held
        .into_iter()
        .map(|per_node| {
            per_node
                .into_iter()
                .map(|mut keys| {
                    keys.retain(|k| locks.contains(&k.0));
                    keys
                })
                .collect()
        })
        .collect();
    out
}

/// Per procedure and node, the keys its frame holds on every path. A procedure's entry holds
/// the global locks that every call of it holds, and an object's lock when every call passes
/// the object through a local that holds it (a greatest fixpoint over the call graph);
/// one that starts a thread, is an activation, is called inside an expression or is never
/// called holds none at its entry.
fn held_everywhere(
    program: &Program,
    acquires: &[Vec<(usize, Key, Vec<usize>)>],
    releases: &[Vec<(usize, Key)>],
    may_release: &[bool],
) -> Vec<Vec<Vec<Key>>> {
    let n = program.procs.len();
    // None: no call of it seen yet (the top of the lattice)
    let mut entry: Vec<Option<Vec<Key>>> = vec![None; n];
    let mut called = vec![false; n];
    let mut root = vec![false; n];
    for &a in &program.activations {
        root[a as usize] = true;
    }
    for p in &program.procs {
        for node in &p.nodes {
            match &node.stmt {
                Stmt::Call { callee, .. } => called[*callee as usize] = true,
                Stmt::StartThread { callee, .. } => root[*callee as usize] = true,
                _ => {}
            }
            node.stmt.for_each_operand(|op| {
                if let Operand::Read(e) = op {
                    e.walk(&mut |e| {
                        if let Expr::Call(c, _) = e {
                            root[*c as usize] = true;
                        }
                    });
                }
            });
        }
    }
    for i in 0..n {
        if root[i] || !called[i] {
            entry[i] = Some(Vec::new());
        }
    }
    let mut held: Vec<Vec<Vec<Key>>> = program
        .procs
        .iter()
        .map(|p| vec![Vec::new(); p.nodes.len()])
        .collect();
    // facts only shrink, so this ends; procedures reached only from a cycle of procedures
    // nobody else calls get no facts (the second round)
    for round in 0..2 {
        if round == 1 {
            for e in entry.iter_mut() {
                e.get_or_insert_with(Vec::new);
            }
        }
        loop {
            let mut changed = false;
            for (i, p) in program.procs.iter().enumerate() {
                let Some(at_entry) = entry[i].clone() else {
                    continue;
                };
                held[i] = must_hold(p, &at_entry, &acquires[i], &releases[i], may_release);
                for (pc, node) in p.nodes.iter().enumerate() {
                    let Stmt::Call { callee, args, .. } = &node.stmt else {
                        continue;
                    };
                    // global locks pass on as they are; an object's lock held through a local
                    // passes on through the formal that the local is given to
                    let mut facts: Vec<Key> = Vec::new();
                    for &(loc, x) in &held[i][pc] {
                        match x {
                            None => facts.push((loc, None)),
                            Some(x) => {
                                facts.extend(args.iter().enumerate().filter_map(|(k, a)| {
                                    (*a == Expr::Local(x)).then_some((loc, Some(k as u32)))
                                }))
                            }
                        }
                    }
                    let slot = &mut entry[*callee as usize];
                    match slot {
                        None => {
                            *slot = Some(facts);
                            changed = true;
                        }
                        Some(old) => {
                            let before = old.len();
                            old.retain(|k| facts.contains(k));
                            changed |= old.len() != before;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }
    held
}

/// The locations some access disqualifies.
#[derive(Default)]
struct Disqualified {
    locs: Vec<Loc>,
    /// Field indices accessed through a reference whose class is not known statically.
    fields: Vec<u32>,
    all_globals: bool,
}

impl Disqualified {
    fn loc(&mut self, l: Loc) {
        self.locs.push(l);
    }

    fn is(&self, l: Loc) -> bool {
        match l {
            Loc::Global(_) if self.all_globals => true,
            Loc::Field(_, f) if self.fields.contains(&f) => true,
            _ => self.locs.contains(&l),
        }
    }

    fn field(&mut self, program: &Program, p: &Proc, base: &Expr, f: u32) {
        match class_of(program, p, base) {
            Some(c) => self.loc(Loc::Field(c, f)),
            None => self.fields.push(f),
        }
    }

    fn operand(&mut self, program: &Program, p: &Proc, op: Operand<'_>) {
        match op {
            Operand::Write(LValue::Global(g)) => self.loc(Loc::Global(*g)),
            Operand::Write(LValue::Field(base, f)) => self.field(program, p, base, *f),
            Operand::Write(_) => {}
            Operand::Read(e) => e.walk(&mut |e| match e {
                Expr::Global(g) | Expr::PrimedGlobal(g) => self.loc(Loc::Global(*g)),
                Expr::Field(base, f) => self.field(program, p, base, *f),
                _ => {}
            }),
        }
    }
}

/// The class of the objects `e` refers to, where its type says so.
pub(super) fn class_of(program: &Program, p: &Proc, e: &Expr) -> Option<u32> {
    let ty = match e {
        Expr::Local(x) => p.locals.get(*x as usize)?.ty,
        Expr::Global(g) => program.globals.get(*g as usize)?.ty,
        Expr::Field(base, f) => {
            let c = class_of(program, p, base)?;
            program.classes.get(c as usize)?.fields.get(*f as usize)?.ty
        }
        _ => return None,
    };
    match ty {
        Type::Ref(c) => Some(c),
        _ => None,
    }
}

/// The lock location `lv` names, if it can be one: a shared boolean global, or a boolean
/// field of an object class reached through a local.
fn place(program: &Program, p: &Proc, lv: &LValue) -> Option<Key> {
    match lv {
        LValue::Global(g) => {
            let v = program.globals.get(*g as usize)?;
            (v.ty == Type::Bool && !v.thread_local).then_some((Loc::Global(*g), None))
        }
        LValue::Field(base, f) => {
            let Expr::Local(x) = **base else {
                return None;
            };
            let c = class_of(program, p, base)?;
            let class = program.classes.get(c as usize)?;
            let is_bool = class.fields.get(*f as usize)?.ty == Type::Bool;
            (class.kind == ClassKind::Object && is_bool).then_some((Loc::Field(c, *f), Some(x)))
        }
        LValue::Elem(..) | LValue::Local(_) | LValue::PassiveLocal(_) => None,
    }
}

/// The place an expression reads, as an l-value (for matching a test against a write).
fn as_place(e: &Expr) -> Option<LValue> {
    match e {
        Expr::Global(g) => Some(LValue::Global(*g)),
        Expr::Field(base, f) if matches!(**base, Expr::Local(_)) => {
            Some(LValue::Field(base.clone(), *f))
        }
        _ => None,
    }
}

/// `lv := value` alone, with no constraint.
fn sets(stmt: &Stmt, value: bool) -> Option<&LValue> {
    match stmt {
        Stmt::Assign {
            targets,
            values,
            constrain: None,
        } if targets.len() == 1 && values == &[Expr::Const(Const::Bool(value))] => {
            targets[0].as_ref()
        }
        _ => None,
    }
}

/// `!lv` as a test.
fn tests_clear(e: &Expr) -> Option<LValue> {
    match e {
        Expr::Unary(UnOp::Not, inner) => as_place(inner),
        _ => None,
    }
}

/// An acquire pattern beginning at `pc`: its key and its nodes, each of the later ones
/// reached only from the one before.
fn acquire(
    program: &Program,
    p: &Proc,
    pc: usize,
    preds: &[Vec<usize>],
) -> Option<(Key, Vec<usize>)> {
    let node = |i: usize| p.nodes.get(i);
    let only_next = |from: usize| -> Option<usize> {
        let n = node(from)?;
        let [next] = n.succ[..] else {
            return None;
        };
        let next = next as usize;
        (preds.get(next)? == &[from]).then_some(next)
    };
    let (tested, nodes) = match &node(pc)?.stmt {
        // Zing: atomic { select { wait(!x.f) -> x.f = true; } }
        Stmt::Select {
            guards,
            receives,
            end: false,
            atomic: true,
            ..
        } if guards.len() == 1 && receives.iter().all(|r| r.is_empty()) => {
            let set = only_next(pc)?;
            let end = only_next(set)?;
            (tests_clear(&guards[0])?, vec![pc, set, end])
        }
        // boolean programs: atomic_begin; assume(!g); g := T; atomic_end;
        Stmt::AtomicBegin => {
            let test = only_next(pc)?;
            let Stmt::Assume { cond } = &node(test)?.stmt else {
                return None;
            };
            let set = only_next(test)?;
            let end = only_next(set)?;
            (tests_clear(cond)?, vec![pc, test, set, end])
        }
        _ => return None,
    };
    let set = nodes[nodes.len() - 2];
    let end = nodes[nodes.len() - 1];
    let written = sets(&node(set)?.stmt, true)?;
    if *written != tested || !matches!(node(end)?.stmt, Stmt::AtomicEnd) {
        return None;
    }
    Some((place(program, p, written)?, nodes))
}

/// A release at `pc`: `lv := false` for a place that can be a lock location.
fn release(program: &Program, p: &Proc, pc: usize) -> Option<Key> {
    place(program, p, sets(&p.nodes[pc].stmt, false)?)
}

fn predecessors(p: &Proc) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); p.nodes.len()];
    for (pc, n) in p.nodes.iter().enumerate() {
        for &s in &n.succ {
            if let Some(v) = preds.get_mut(s as usize) {
                if !v.contains(&pc) {
                    v.push(pc);
                }
            }
        }
    }
    preds
}

/// Per procedure: whether a call of it may release a lock (it or a procedure it calls has a
/// release).
fn may_release(program: &Program, releases: &[Vec<(usize, Key)>]) -> Vec<bool> {
    let mut may: Vec<bool> = releases.iter().map(|r| !r.is_empty()).collect();
    loop {
        let mut changed = false;
        for (i, p) in program.procs.iter().enumerate() {
            if may[i] {
                continue;
            }
            let calls_one = p.nodes.iter().any(|n| match &n.stmt {
                Stmt::Call { callee, .. } => may[*callee as usize],
                _ => false,
            });
            if calls_one {
                may[i] = true;
                changed = true;
            }
        }
        if !changed {
            return may;
        }
    }
}

/// Per node of `p`: the keys its frame holds on every path from the entry, which holds
/// `at_entry` (or from a handler, or from a new thread's start, where it holds none).
fn must_hold(
    p: &Proc,
    at_entry: &[Key],
    acquires: &[(usize, Key, Vec<usize>)],
    releases: &[(usize, Key)],
    may_release: &[bool],
) -> Vec<Vec<Key>> {
    let roots = super::dataflow::roots(p);
    let start: Vec<(usize, Vec<Key>)> = roots
        .iter()
        .enumerate()
        .map(|(i, &r)| (r, if i == 0 { at_entry } else { &[][..] }.to_vec()))
        .collect();
    let transfer = |pc: usize, facts: &mut Vec<Key>| {
        let node = &p.nodes[pc];
        if let Some((_, key, _)) = acquires.iter().find(|a| a.0 == pc) {
            if !facts.contains(key) {
                facts.push(*key);
            }
        } else if let Some((_, key)) = releases.iter().find(|r| r.0 == pc) {
            facts.retain(|k| k != key);
        }
        match &node.stmt {
            Stmt::Constrain { .. } => facts.clear(),
            Stmt::Call { callee, .. } if may_release[*callee as usize] => facts.clear(),
            _ => {}
        }
        node.stmt.for_each_operand(|op| {
            if let Operand::Write(LValue::Local(x)) = op {
                facts.retain(|k| k.1 != Some(*x));
            }
        });
    };
    // the entry meets what its back edges bring; the other roots (handlers, a new thread's
    // first node) hold nothing whatever reaches them
    let follows = |pc: usize, s: usize| {
        let new_thread = matches!(p.nodes[pc].stmt, Stmt::StartThreadGoto)
            && p.nodes[pc].succ.get(1) == Some(&(s as u32));
        !new_thread && (s == 0 || !roots.contains(&s))
    };
    let held = super::dataflow::must_forward(p, &start, transfer, follows);
    held.into_iter().map(Option::unwrap_or_default).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Semantics;
    use zingrs_lang::Lang;

    /// The movers of a model: (procedure, line, class) of every acquire and release.
    fn movers_of(text: &str, lang: Lang) -> Vec<(String, u32, Mover)> {
        let name = if lang == Lang::Zing { "t.zing" } else { "t.bp" };
        let program = zingrs_lang::compile(name, text, lang)
            .expect("the model compiles")
            .program;
        let m = Machine::new(&program, Semantics::default());
        let mut out = Vec::new();
        for (i, p) in program.procs.iter().enumerate() {
            for pc in 0..p.nodes.len() {
                let c = m.mover(i as u32, pc as u32);
                if c != Mover::None {
                    out.push((p.name.clone(), program.line_of(i as u32, pc as u32), c));
                }
            }
        }
        out
    }

    /// A two-fork Zing model; `body` is `Worker`'s body, `extra` more methods of `Main`.
    fn zing(body: &str, extra: &str) -> String {
        format!(
            "class Fork {{ bool taken; }};
class Main {{
    static Fork f0;
    static Fork f1;
    static void Worker(Fork a, Fork b) {{
{body}
    }}
{extra}
    activate static void main() {{
        atomic {{
            f0 = new Fork;
            f1 = new Fork;
            async Worker(f0, f1);
            async Worker(f1, f0);
        }}
    }}
}};
"
        )
    }

    const ACQ_A: &str = "        atomic { select { wait(!a.taken) -> a.taken = true; } }";

    fn worker_movers(body: &str, extra: &str) -> Vec<(u32, Mover)> {
        movers_of(&zing(body, extra), Lang::Zing)
            .into_iter()
            .filter(|(p, ..)| p.ends_with("Worker"))
            .map(|(_, line, c)| (line, c))
            .collect()
    }

    #[test]
    fn acquire_and_release_by_the_holder_are_movers() {
        let body = format!("{ACQ_A}\n        a.taken = false;");
        assert_eq!(
            worker_movers(&body, ""),
            vec![(6, Mover::Acquire), (7, Mover::Release)]
        );
    }

    #[test]
    fn any_other_access_to_the_field_disqualifies_it() {
        let body =
            format!("{ACQ_A}\n        assert(b.taken || !b.taken);\n        a.taken = false;");
        assert_eq!(worker_movers(&body, ""), vec![]);
    }

    #[test]
    fn a_release_without_the_acquire_is_no_mover() {
        // `b` was never acquired by this frame: releasing it may steal another thread's lock
        let body = format!("{ACQ_A}\n        a.taken = false;\n        b.taken = false;");
        assert_eq!(worker_movers(&body, ""), vec![]);
        // nor is a release on one path of two
        let body = format!("        if (a == b) {{\n{ACQ_A}\n        }}\n        a.taken = false;");
        assert_eq!(worker_movers(&body, ""), vec![]);
    }

    #[test]
    fn reassigning_the_local_forgets_what_it_held() {
        let body = format!("{ACQ_A}\n        a = b;\n        a.taken = false;");
        assert_eq!(worker_movers(&body, ""), vec![]);
    }

    #[test]
    fn a_call_that_may_release_forgets_what_the_caller_held() {
        let extra = "    static void Cycle(Fork c) {
        atomic { select { wait(!c.taken) -> c.taken = true; } }
        c.taken = false;
    }";
        let body = format!("{ACQ_A}\n        Cycle(b);\n        a.taken = false;");
        assert_eq!(worker_movers(&body, extra), vec![]);
    }

    #[test]
    fn an_acquire_that_may_run_inside_an_atomic_region_is_no_mover() {
        // inside an atomic region a disabled select is a runtime error, not a wait
        let take = "    static void Take(Fork c) {
        atomic { select { wait(!c.taken) -> c.taken = true; } }
        c.taken = false;
    }";
        let classes = |body: &str, extra: &str| -> Vec<Mover> {
            movers_of(&zing(body, extra), Lang::Zing)
                .into_iter()
                .map(|(_, _, c)| c)
                .collect()
        };
        assert_eq!(classes("        atomic { Take(a); }", take), vec![]);
        let atomic_method = format!("{take}\n    atomic static void Outer(Fork c) {{ Take(c); }}");
        assert_eq!(classes("        Outer(a);", &atomic_method), vec![]);
        // called from ordinary code, it is a lock
        assert_eq!(
            classes("        Take(a);", take),
            vec![Mover::Acquire, Mover::Release]
        );
    }

    #[test]
    fn a_loop_of_releases_and_private_steps_has_a_stop() {
        // each release ends with the next acquire's wait: no cycle of releases alone
        let body =
            format!("        while (true) {{\n{ACQ_A}\n            a.taken = false;\n        }}");
        assert_eq!(
            worker_movers(&body, ""),
            vec![(7, Mover::Acquire), (8, Mover::Release)]
        );
    }

    #[test]
    fn boolean_programs_lock_a_global() {
        let text = "decl l, x;
void main() begin
  start_thread goto T;
T: atomic_begin; assume(!l); l := T; atomic_end;
  x := !x;
  l := F;
end
";
        let got: Vec<_> = movers_of(text, Lang::Bp)
            .into_iter()
            .map(|(_, line, c)| (line, c))
            .collect();
        assert_eq!(got, vec![(4, Mover::Acquire), (6, Mover::Release)]);
        // a read of the lock anywhere else makes it an ordinary variable
        let read = text.replace("x := !x;", "x := !l;");
        assert_eq!(movers_of(&read, Lang::Bp), vec![]);
    }
}
