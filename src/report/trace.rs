//! Turning a replayed path into source-level trace steps (with what each step changed) and into
//! ZING's state-by-state view.

use super::{Binding, Shown, Trace, TraceStep, ZingTrace};
use crate::runtime::{Addr, Machine, Object, State, Thread, Value, Violation};
use crate::search::{Path, Replayed};
use std::collections::BTreeSet;
use std::rc::Rc;
use zingrs_lang::ir::Type;
use zingrs_lang::ir::{ClassKind, Var};

/// A process as the trace names it: its id (creation order) and name.
#[derive(Clone, Debug)]
pub(super) struct ProcName {
    pub(super) id: u32,
    name: Rc<str>,
}

/// Trace step `index`: thread `tid`'s statement about to run in `state`, with the values in
/// scope when `values` (a trace printed without them need not compute them).
pub(super) fn step_at(
    m: &Machine,
    state: &State,
    tid: usize,
    index: usize,
    values: bool,
) -> Option<TraceStep> {
    let p = m.program;
    let thread = state.threads.get(tid)?;
    let frame = thread.stack.top()?;
    let proc = &p.procs[frame.proc as usize];
    let node = &proc.nodes[frame.pc as usize];
    let mut shown = Vec::new();
    if values {
        shown.extend(
            p.globals
                .iter()
                .zip(m.global_values(state, Some(tid)))
                .filter(|(g, _)| !proc.locals.iter().any(|l| l.name == g.name))
                .map(|(g, v)| Binding {
                    name: g.name.clone(),
                    value: term(m, state, v, Some(g.ty)),
                }),
        );
        shown.extend(
            proc.locals
                .iter()
                .zip(frame.locals.iter())
                .filter(|(l, _)| !internal(&l.name))
                .map(|(l, v)| Binding {
                    name: l.name.clone(),
                    value: term(m, state, *v, Some(l.ty)),
                }),
        );
    }
    let statement = match p.source.snippet(node.span) {
        "" => m.program.describe(frame.proc, frame.pc),
        s => s.to_string(),
    };
    Some(TraceStep {
        step: index,
        thread: tid as u32,
        depth: thread.stack.depth(),
        procedure: proc.name.clone(),
        line: p.line_of(frame.proc, frame.pc),
        statement,
        values: shown,
        changed: Vec::new(),
    })
}

/// The procedure a thread started in (its bottom frame), `Class.method` for Zing.
fn first_proc(m: &Machine, t: &Thread) -> Option<String> {
    let f = t.stack.iter().last()?;
    Some(m.program.procs[f.proc as usize].name.clone())
}

/// The processes of the initial state, in thread order: activated, named after their method.
pub(super) fn initial_names(m: &Machine, s0: &State) -> Vec<ProcName> {
    s0.threads
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let full = first_proc(m, t).unwrap_or_default();
            ProcName {
                id: i as u32,
                name: full.rsplit('.').next().unwrap_or(&full).into(),
            }
        })
        .collect()
}

/// The processes after thread `ran`'s step from `before` (named `names`) to `after`, or
/// `None` when they are the same: a thread that ends may be removed from the thread list (the
/// one that ran), and processes started (`async`) are appended, named `Class.method` and
/// numbered from `next`.
pub(super) fn next_names(
    m: &Machine,
    names: &[ProcName],
    before: &State,
    after: &State,
    ran: usize,
    next: &mut u32,
) -> Option<Vec<ProcName>> {
    if after.threads.len() == before.threads.len() && names.len() == after.threads.len() {
        return None;
    }
    let mut cur = names.to_vec();
    if after.threads.len() < before.threads.len() && ran < cur.len() {
        cur.remove(ran);
    }
    while cur.len() < after.threads.len() {
        let name = first_proc(m, &after.threads[cur.len()]).unwrap_or_default();
        cur.push(ProcName {
            id: *next,
            name: name.into(),
        });
        *next += 1;
    }
    Some(cur)
}

fn class_name(m: &Machine, o: &Object) -> String {
    m.program
        .classes
        .get(o.class as usize)
        .map_or_else(|| format!("class{}", o.class), |c| c.name.clone())
}

/// The name of field `i` of an object: a declared field's name, else (a collection's element)
/// `[i]`.
fn field_name(m: &Machine, o: &Object, i: usize) -> (String, Option<Type>) {
    match m
        .program
        .classes
        .get(o.class as usize)
        .and_then(|c| c.fields.get(i))
    {
        Some(f) => (format!(".{}", f.name), Some(f.ty)),
        None => (format!("[{i}]"), None),
    }
}

/// What differs between `before` and `after`, the states around a step of thread `tid`.
pub(super) fn changed(
    m: &Machine,
    before: &State,
    after: &State,
    tid: usize,
    procs_before: &[ProcName],
    procs_after: &[ProcName],
) -> Vec<Binding> {
    let p = m.program;
    let mut out = Vec::new();
    let bind = |name: String, value: Shown| Binding { name, value };
    let text = |t: String| Shown::Text(t);
    // the thread keeps its index unless it ended and was removed
    let same_thread = after.threads.len() >= before.threads.len();
    let view = same_thread.then_some(tid);
    for ((g, b), a) in p
        .globals
        .iter()
        .zip(m.global_values(before, view))
        .zip(m.global_values(after, view))
    {
        if a != b {
            out.push(bind(g.name.clone(), term(m, after, a, Some(g.ty))));
        }
    }
    // the running frame: the deeper of the two stacks' common frame (after a call the caller,
    // after a return the caller that receives the results)
    if let (Some(tb), Some(ta)) = (before.threads.get(tid), after.threads.get(tid)) {
        let d = tb.stack.depth().min(ta.stack.depth()) as usize;
        if same_thread && d > 0 {
            // frame d (1-based from the bottom), reached from the top: one or two steps down
            let frames = (
                tb.stack.iter().nth(tb.stack.depth() as usize - d),
                ta.stack.iter().nth(ta.stack.depth() as usize - d),
            );
            if let Some((fb, fa)) = frames.0.zip(frames.1).filter(|(b, a)| b.proc == a.proc) {
                let locals = &p.procs[fa.proc as usize].locals;
                for ((l, b), a) in locals.iter().zip(fb.locals.iter()).zip(fa.locals.iter()) {
                    if a != b && !internal(&l.name) {
                        out.push(bind(l.name.clone(), term(m, after, *a, Some(l.ty))));
                    }
                }
            }
        }
    }
    // a broadcast (`y$ := e`) also writes the top frames of the other threads in the procedure
    if after.threads.len() == before.threads.len() {
        for (q, (tb, ta)) in before.threads.iter().zip(after.threads.iter()).enumerate() {
            if q == tid {
                continue;
            }
            let (Some(fb), Some(fa)) = (tb.stack.top(), ta.stack.top()) else {
                continue;
            };
            if fb.proc != fa.proc || std::rc::Rc::ptr_eq(&fb.locals, &fa.locals) {
                continue;
            }
            let id = procs_after.get(q).map_or(q as u32, |n| n.id);
            let locals = &p.procs[fa.proc as usize].locals;
            for ((l, b), a) in locals.iter().zip(fb.locals.iter()).zip(fa.locals.iter()) {
                if a != b {
                    out.push(bind(format!("process {id}: {}", l.name), Shown::Value(*a)));
                }
            }
        }
    }
    let mut created = Vec::new();
    for (addr, obj) in after.heap.iter() {
        match before.heap.get(addr) {
            Some(old) if std::rc::Rc::ptr_eq(old, obj) => {}
            Some(old) => heap_changes(m, after, *addr, old, obj, &mut out),
            None => {
                let c = class_name(m, obj);
                created.push(bind(format!("{c}#{addr}"), text(format!("new {c}"))));
            }
        }
    }
    out.extend(created);
    chosen(m, before, after, tid, same_thread, &mut out);
    for q in procs_after {
        if !procs_before.iter().any(|b| b.id == q.id) {
            out.push(bind(
                format!("process {}", q.id),
                text(format!("started {}", q.name)),
            ));
        }
    }
    for (i, q) in procs_before.iter().enumerate() {
        let gone = !procs_after.iter().any(|a| a.id == q.id);
        let completed = !gone
            && before.threads.get(i).is_some_and(|t| !t.stack.is_empty())
            && procs_after
                .iter()
                .position(|a| a.id == q.id)
                .and_then(|j| after.threads.get(j))
                .is_some_and(|t| t.stack.is_empty());
        if gone || completed {
            out.push(bind(format!("process {}", q.id), text("ended".into())));
        }
    }
    out
}

/// Whether a local is one the front end made for itself (the index of a `foreach`), which
/// the source does not name: `foreach` is a keyword, so no variable of the model is called so.
pub(super) fn internal(name: &str) -> bool {
    name.starts_with("foreach.")
}

/// The changes to heap object `addr` (`old` before the step, `obj` after it) as the source
/// reads them: an object's fields by name (`Node#2.next`), an array's elements by index
/// (`Arr#1[0]`), and a set or a channel whole, as its contents after the step (an element
/// removed is gone from them).
fn heap_changes(
    m: &Machine,
    after: &State,
    addr: Addr,
    old: &Object,
    obj: &Object,
    out: &mut Vec<Binding>,
) {
    let name = format!("{}#{addr}", class_name(m, obj));
    let class = m.program.classes.get(obj.class as usize);
    match class.map(|c| c.kind) {
        Some(ClassKind::Set | ClassKind::Chan) => {
            if old.fields != obj.fields {
                out.push(Binding {
                    name,
                    value: term(m, after, Value::Ref(addr), Some(Type::Ref(obj.class))),
                });
            }
        }
        Some(ClassKind::Array { .. }) => {
            let fields = class.map_or(&[][..], |c| &c.fields[..]);
            let w = fields.len().max(1);
            for (k, (new, was)) in obj.fields.chunks(w).zip(old.fields.chunks(w)).enumerate() {
                if new != was {
                    out.push(Binding {
                        name: format!("{name}[{k}]"),
                        value: element(m, new, fields).0,
                    });
                }
            }
        }
        _ => {
            for (i, v) in obj.fields.iter().enumerate() {
                if old.fields.get(i) != Some(v) {
                    let (f, ty) = field_name(m, obj, i);
                    out.push(Binding {
                        name: format!("{name}{f}"),
                        value: term(m, after, *v, ty),
                    });
                }
            }
        }
    }
}

/// A `choose` step's targets that kept their value: the value chosen is still what the step
/// did, so it is shown (a target that changed is in `out` already).
fn chosen(
    m: &Machine,
    before: &State,
    after: &State,
    tid: usize,
    same_thread: bool,
    out: &mut Vec<Binding>,
) {
    use zingrs_lang::ir::{LValue, Stmt};
    let p = m.program;
    if !same_thread {
        return;
    }
    let (Some(fb), Some(fa)) = (
        before.threads.get(tid).and_then(|t| t.stack.top()),
        after.threads.get(tid).and_then(|t| t.stack.top()),
    ) else {
        return;
    };
    let targets: Vec<&LValue> = match &p.node(fb.proc, fb.pc).stmt {
        Stmt::Choose { target, .. } => vec![target],
        Stmt::ChooseElem { targets, .. } => targets.iter().collect(),
        _ => return,
    };
    for t in targets {
        let (name, value) = match *t {
            LValue::Local(i) if fa.proc == fb.proc => {
                let Some(l) = p.procs[fa.proc as usize].locals.get(i as usize) else {
                    continue;
                };
                let v = fa.locals.get(i as usize).copied();
                (l.name.clone(), v.map(|v| term(m, after, v, Some(l.ty))))
            }
            LValue::Global(g) => {
                let Some(var) = p.globals.get(g as usize) else {
                    continue;
                };
                let v = m.global_values(after, Some(tid)).get(g as usize).copied();
                (var.name.clone(), v.map(|v| term(m, after, v, Some(var.ty))))
            }
            _ => continue,
        };
        if let Some(value) = value {
            if !out.iter().any(|b| b.name == name) {
                out.push(Binding { name, value });
            }
        }
    }
}

/// The most elements of a collection a trace shows; the rest are counted.
pub(super) const MAX_ELEMENTS: usize = 64;

/// A value as the model's source writes it, for a slot of type `ty` (`None`: not known) in
/// state `s`. In Zing: booleans as `true`/`false`, an enum value by its member
/// (`Color.Red`), a reference to an array, a set or a channel as its contents (`[2, 1, 2]`,
/// `{1, 2}`, `<5, 6>` with the channel's head first; JSON: an array, `{"set": [...]}`,
/// `{"chan": [...]}`), up to [`MAX_ELEMENTS`] elements (then `{"more": N}` says how many
/// are left out). Boolean programs' values, integers, `null` and references to objects are
/// the runtime's values.
pub(super) fn term(m: &Machine, s: &State, v: Value, ty: Option<Type>) -> Shown {
    if m.program.lang != zingrs_lang::Lang::Zing {
        return Shown::Value(v);
    }
    if let Some((text, json)) = leaf(m, v, ty) {
        return Shown::Term { text, json };
    }
    let Value::Ref(a) = v else {
        return Shown::Value(v);
    };
    let Some(obj) = s.heap.get(&a) else {
        return Shown::Value(v);
    };
    let Some(class) = m.program.classes.get(obj.class as usize) else {
        return Shown::Value(v);
    };
    let (open, close, key) = match class.kind {
        ClassKind::Object => return Shown::Value(v),
        ClassKind::Array { .. } => ("[", "]", None),
        ClassKind::Set => ("{", "}", Some("set")),
        ClassKind::Chan => ("<", ">", Some("chan")),
    };
    let w = class.fields.len().max(1);
    let n = obj.fields.len() / w;
    let mut texts = Vec::new();
    let mut items = Vec::new();
    for e in obj.fields.chunks(w).take(MAX_ELEMENTS) {
        let (shown, json) = element(m, e, &class.fields);
        texts.push(shown.to_string());
        items.push(json);
    }
    if n > MAX_ELEMENTS {
        texts.push(format!("… {} more", n - MAX_ELEMENTS));
        items.push(serde_json::json!({ "more": n - MAX_ELEMENTS }));
    }
    let text = format!("{open}{}{close}", texts.join(", "));
    let items = serde_json::Value::Array(items);
    let json = match key {
        Some(k) => serde_json::json!({ k: items }),
        None => items,
    };
    Shown::Term { text, json }
}

/// A boolean or an enum value of a Zing model in source terms: its text and its JSON.
fn leaf(m: &Machine, v: Value, ty: Option<Type>) -> Option<(String, serde_json::Value)> {
    match (v, ty) {
        (Value::Bool(b), _) => Some((b.to_string(), serde_json::Value::Bool(b))),
        (Value::Int(i), Some(Type::Enum(e))) => {
            let decl = m.program.enums.get(e as usize)?;
            let member = decl.members.get(usize::try_from(i).ok()?)?;
            let text = format!("{}.{member}", decl.name);
            Some((text.clone(), serde_json::Value::String(text)))
        }
        _ => None,
    }
}

/// One element of a collection (its leaves `e`, described by `fields`): the value of a
/// one-leaf element, or `(x: 1, y: true)` for a struct's leaves (JSON: an object).
fn element(m: &Machine, e: &[Value], fields: &[Var]) -> (Shown, serde_json::Value) {
    let one = |v: Value, ty: Option<Type>| -> (String, serde_json::Value) {
        match leaf(m, v, ty) {
            Some(x) => x,
            None => (
                v.to_string(),
                serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
            ),
        }
    };
    if e.len() == 1 {
        let (text, json) = one(e[0], fields.first().map(|f| f.ty));
        return (
            Shown::Term {
                text,
                json: json.clone(),
            },
            json,
        );
    }
    let mut texts = Vec::new();
    let mut map = serde_json::Map::new();
    for (i, v) in e.iter().enumerate() {
        let f = fields.get(i);
        let name = f.map_or_else(|| i.to_string(), |f| leaf_name(&f.name));
        let (text, json) = one(*v, f.map(|f| f.ty));
        texts.push(format!("{name}: {text}"));
        map.insert(name, json);
    }
    let json = serde_json::Value::Object(map);
    (
        Shown::Term {
            text: format!("({})", texts.join(", ")),
            json: json.clone(),
        },
        json,
    )
}

/// A collection element's leaf as its struct names it (`[].x` → `x`).
fn leaf_name(name: &str) -> String {
    name.rsplit('.').next().unwrap_or(name).to_string()
}

/// The trace of a replayed path (`replayed`, which may have kept only its last state): one
/// step per choice (the statement about to run, the values before it and what it changed),
/// then, when the path ends at a target label, the labelled statement; and ZING's view of it.
/// The steps and ZING's states are not built here: [`Trace`] builds them from the path each
/// time they are written, keeping one state at a time, so a trace of millions of steps costs
/// the path, not millions of states.
pub fn build_trace<'m>(
    m: &std::sync::Arc<Machine<'m>>,
    path: &Path,
    replayed: &Replayed,
    end_thread: Option<u32>,
) -> Trace<'m> {
    let last = replayed.states.last();
    // the target's statement is a step when its thread stands somewhere
    let end = end_thread.filter(|&t| {
        last.and_then(|s| s.threads.get(t as usize))
            .is_some_and(|t| !t.stack.is_empty())
    });
    let zing = zing_trace(m, path, replayed, end_thread);
    Trace::replayed(
        super::walk::PathTrace::new(
            m.clone(),
            path.clone(),
            end,
            replayed.violation,
            zing.erring,
        ),
        replayed.threads.max(1),
        zing.trace,
    )
}

/// A value as ZING users read it: booleans as `true`/`false`.
fn show(v: Value, ty: Option<Type>) -> String {
    match (v, ty) {
        (Value::Bool(b), Some(Type::Bool) | None) => b.to_string(),
        _ => v.to_string(),
    }
}

/// The heap objects reachable from the globals and every process's locals, by address.
fn reachable(s: &State) -> BTreeSet<Addr> {
    let mut work: Vec<Addr> = Vec::new();
    let refs = |vals: &[Value], work: &mut Vec<Addr>| {
        work.extend(vals.iter().filter_map(|v| match v {
            Value::Ref(a) => Some(*a),
            _ => None,
        }))
    };
    refs(&s.globals, &mut work);
    for t in s.threads.iter() {
        refs(&t.thread_locals, &mut work);
        for f in t.stack.iter() {
            refs(&f.locals, &mut work);
        }
    }
    let mut seen = BTreeSet::new();
    while let Some(a) = work.pop() {
        if !seen.insert(a) {
            continue;
        }
        if let Some(o) = s.heap.get(&a) {
            refs(&o.fields, &mut work);
        }
    }
    seen
}

/// One state's dump: static fields, reachable heap objects, processes with their frames.
pub(super) fn dump(m: &Machine, s: &State, procs: &[ProcName]) -> Vec<String> {
    let p = m.program;
    let mut lines = Vec::new();
    let shared: Vec<String> = p
        .globals
        .iter()
        .zip(m.global_values(s, None))
        .filter(|(g, _)| !g.thread_local)
        .map(|(g, v)| format!("    {} = {}", g.name, show(v, Some(g.ty))))
        .collect();
    if !shared.is_empty() {
        lines.push("  Static fields:".to_string());
        lines.extend(shared);
    }
    let live = reachable(s);
    let objects: Vec<String> = live
        .iter()
        .filter_map(|a| {
            let o = s.heap.get(a)?;
            let fields: Vec<String> = o
                .fields
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let (f, ty) = field_name(m, o, i);
                    format!("{} = {}", f.trim_start_matches('.'), show(*v, ty))
                })
                .collect();
            Some(format!(
                "    {}#{a}: {}",
                class_name(m, o),
                if fields.is_empty() {
                    "(no fields)".to_string()
                } else {
                    fields.join(", ")
                }
            ))
        })
        .collect();
    if !objects.is_empty() {
        lines.push("  Heap:".to_string());
        lines.extend(objects);
    }
    lines.push("  Processes:".to_string());
    for (i, t) in s.threads.iter().enumerate() {
        let (id, name) = procs.get(i).map_or((i as u32, ""), |q| (q.id, &*q.name));
        let status = if t.stack.is_empty() {
            "completed"
        } else {
            match m.blocked(s, i) {
                Some(true) => "blocked (valid end state)",
                Some(false) => "blocked",
                None => "runnable",
            }
        };
        lines.push(format!(
            "    Process {id} {name}: {status}{}",
            if t.atomic { ", atomic" } else { "" }
        ));
        let tl: Vec<String> = p
            .globals
            .iter()
            .zip(m.global_values(s, Some(i)))
            .filter(|(g, _)| g.thread_local)
            .map(|(g, v)| format!("{} = {}", g.name, show(v, Some(g.ty))))
            .collect();
        if !tl.is_empty() {
            lines.push(format!("      thread-local: {}", tl.join(", ")));
        }
        for f in t.stack.iter() {
            let proc = &p.procs[f.proc as usize];
            let locals: Vec<String> = proc
                .locals
                .iter()
                .zip(f.locals.iter())
                .map(|(l, v)| format!("{} = {}", l.name, show(*v, Some(l.ty))))
                .collect();
            let mut line = format!("      {} (line {})", proc.name, p.line_of(f.proc, f.pc));
            if !locals.is_empty() {
                line.push_str(": ");
                line.push_str(&locals.join(", "));
            }
            lines.push(line);
        }
    }
    lines
}

/// The condition's source text and the message of an `assert(cond)` or
/// `assert(cond, "message")` statement's text.
pub(super) fn assert_parts(text: &str) -> Option<(String, String)> {
    let at = text.find("assert")?;
    let rest = &text[at + "assert".len()..];
    let body = &rest[rest.find('(')? + 1..];
    let (mut depth, mut in_str, mut escaped) = (0u32, false, false);
    let (mut comma, mut close) = (None, None);
    for (i, ch) in body.char_indices() {
        if in_str {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match ch {
            '"' => in_str = true,
            '(' | '[' | '{' => depth += 1,
            ')' if depth == 0 => {
                close = Some(i);
                break;
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 && comma.is_none() => comma = Some(i),
            _ => {}
        }
    }
    let close = close?;
    let (cond, msg) = match comma {
        Some(c) => (&body[..c], body[c + 1..close].trim()),
        None => (&body[..close], ""),
    };
    let cond = cond.split_whitespace().collect::<Vec<_>>().join(" ");
    let msg = match msg.strip_prefix('"').and_then(|m| m.strip_suffix('"')) {
        Some(inner) => unescape(inner),
        None => msg.to_string(),
    };
    Some((cond, msg))
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

/// ZING's view of the path apart from its states (which [`Trace`] builds as they are
/// written), and the erring process's thread.
struct ZingParts {
    trace: ZingTrace,
    erring: Option<u32>,
}

/// The erring process's stack and, for a failed assertion, its expression and comment.
fn zing_trace(m: &Machine, path: &Path, replayed: &Replayed, end_thread: Option<u32>) -> ZingParts {
    let p = m.program;
    // the erring process: the one whose step failed, or the one at the target label
    let erring = match (replayed.violation, end_thread) {
        (Some(_), _) => path.choices.last().map(|c| c.thread),
        (None, t) => t,
    };
    let thread = erring.and_then(|t| replayed.states.last()?.threads.get(t as usize));
    let stack = thread.map_or_else(Vec::new, |t| {
        t.stack
            .iter()
            .map(|f| {
                (
                    p.procs[f.proc as usize].name.clone(),
                    p.line_of(f.proc, f.pc),
                )
            })
            .collect()
    });
    let assertion = match (replayed.violation, thread.and_then(|t| t.stack.top())) {
        (Some(Violation::Assertion), Some(f)) => {
            let span = p.node(f.proc, f.pc).span;
            let text = p
                .source
                .text
                .get(span.start as usize..span.end as usize)
                .unwrap_or("");
            Some(assert_parts(text).unwrap_or_else(|| (p.describe(f.proc, f.pc), String::new())))
        }
        _ => None,
    };
    let file = p.source.name.rsplit('/').next().unwrap_or(&p.source.name);
    ZingParts {
        trace: ZingTrace {
            file: file.to_string(),
            stack,
            assertion,
        },
        erring,
    }
}

#[cfg(test)]
mod tests {
    use super::assert_parts;

    #[test]
    fn assert_parts_reads_condition_and_message() {
        assert_eq!(
            assert_parts("assert(x == 1, \"x must be one\");"),
            Some(("x == 1".into(), "x must be one".into()))
        );
        assert_eq!(
            assert_parts("assert(f(a, b) && c[1] ==\n   2);"),
            Some(("f(a, b) && c[1] == 2".into(), String::new()))
        );
        assert_eq!(
            assert_parts("assert (ok, \"a \\\"quoted\\\", comma)\");"),
            Some(("ok".into(), "a \"quoted\", comma)".into()))
        );
        assert_eq!(assert_parts("skip;"), None);
    }
}
