//! Lowering of checked Zing models to the IR: the shapes of classes, globals, procedures and
//! nodes for each supported construct, the benchmark models, and one "not supported yet"
//! diagnostic per refused construct.

use zingrs_lang::diag::{render, Diagnostic};
use zingrs_lang::ir::{
    ArithOp, BinOp, ClassKind, CmpOp, Const, Expr, Glue, Init, LValue, Pc, Proc, ProcId, Program,
    SetOp, Source, Stmt, Type, UnOp, Width,
};
use zingrs_lang::{compile, Lang};

// ---- helpers ----------------------------------------------------------------------------

fn lower(text: &str) -> Program {
    match compile("t.zing", text, Lang::Zing) {
        Ok(c) => c.program,
        Err(d) => panic!(
            "expected lowering to succeed, got:\n{}",
            render(&Source::new("t.zing", text), &d)
        ),
    }
}

fn errors(text: &str) -> Vec<Diagnostic> {
    match compile("t.zing", text, Lang::Zing) {
        Ok(_) => panic!("expected lowering to fail for:\n{text}"),
        Err(d) => d,
    }
}

/// Asserts that lowering refuses `construct` with the standard message, at the first
/// occurrence of `at` in the text.
fn assert_refused(text: &str, construct: &str, at: &str) {
    let diags = errors(text);
    let src = Source::new("t.zing", text);
    let msg = format!("`{construct}` is not supported yet by zingrs (lowering)");
    let want = text.find(at).expect("anchor in text") as u32;
    assert!(
        diags
            .iter()
            .any(|d| d.is_error() && d.message == msg && d.span.start == want),
        "no error {msg:?} at {:?}:\n{}",
        src.line_col(want),
        render(&src, &diags)
    );
    assert!(
        diags.iter().all(|d| !d.message.contains("type-check")),
        "the front end must accept the model"
    );
}

fn proc<'a>(p: &'a Program, name: &str) -> (ProcId, &'a Proc) {
    let id = p
        .proc_by_name(name)
        .unwrap_or_else(|| panic!("no procedure {name}"));
    (id, &p.procs[id as usize])
}

/// Every node of a procedure, one line each, for failure messages.
fn dump(p: &Program, id: ProcId) -> String {
    let pr = &p.procs[id as usize];
    (0..pr.nodes.len())
        .map(|pc| {
            let n = &pr.nodes[pc];
            format!(
                "{pc}: {} -> {:?} {:?}",
                p.describe(id, pc as Pc),
                n.succ,
                n.labels
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The statements of a procedure's nodes.
fn stmts<'a>(p: &'a Program, name: &str) -> Vec<&'a Stmt> {
    proc(p, name).1.nodes.iter().map(|n| &n.stmt).collect()
}

fn int32() -> Type {
    Type::Int {
        bits: 32,
        signed: true,
    }
}

fn k(i: i64) -> Expr {
    Expr::Const(Const::Int(i))
}

fn loc(i: u32) -> Expr {
    Expr::Local(i)
}

/// `a && b` as lowered: `a ? b : false` (short-circuit).
fn and_then(a: Expr, b: Expr) -> Expr {
    Expr::Ite(bx(a), bx(b), bx(Expr::Const(Const::Bool(false))))
}

/// `a || b` as lowered: `a ? true : b` (short-circuit).
fn or_else(a: Expr, b: Expr) -> Expr {
    Expr::Ite(bx(a), bx(Expr::Const(Const::Bool(true))), bx(b))
}

fn bx(e: Expr) -> Box<Expr> {
    Box::new(e)
}

/// The single target and value of an assignment node.
fn assign_of(s: &Stmt) -> (&LValue, &Expr) {
    match s {
        Stmt::Assign {
            targets, values, ..
        } if targets.len() == 1 => (targets[0].as_ref().expect("a target"), &values[0]),
        other => panic!("expected a single assignment, got {other:?}"),
    }
}

// ---- classes, globals, procedures ---------------------------------------------------------

const COUNTER: &str = "class Counter {
    int n;
    bool on = true;
    static int total = 3;
    Counter next;
    void Add(int k) {
        n = n + k;
        this.on = false;
        total = total + 1;
    }
};
class Main {
    static bool flag;
    activate static void main() {
        Counter c;
        c = new Counter;
        c.Add(2);
        c.next = c;
        Counter.total = 0;
    }
    activate static void other() { }
};
";

#[test]
fn class_fields_and_instance_method() {
    let p = lower(COUNTER);
    assert_eq!(p.classes.len(), 2);
    let counter = &p.classes[0];
    assert_eq!(counter.name, "Counter");
    let fields: Vec<_> = counter
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.ty, f.init))
        .collect();
    assert_eq!(
        fields,
        vec![
            ("n", int32(), Init::Value(Const::Int(0))),
            ("on", Type::Bool, Init::Value(Const::Bool(true))),
            ("next", Type::Ref(0), Init::Value(Const::Null)),
        ]
    );
    assert!(p.classes[1].fields.is_empty());

    let (id, add) = proc(&p, "Counter.Add");
    assert_eq!(add.params, 2, "this + k");
    assert_eq!(add.locals[0].name, "this");
    assert_eq!(add.locals[0].ty, Type::Ref(0));
    assert_eq!(add.locals[1].name, "k");
    assert!(add.returns.is_empty());
    assert!(!add.atomic);
    let this_n = Expr::Field(bx(loc(0)), 0);
    let (lv, v) = assign_of(&add.nodes[0].stmt);
    assert_eq!(*lv, LValue::Field(bx(loc(0)), 0), "{}", dump(&p, id));
    assert_eq!(
        *v,
        Expr::Arith(ArithOp::Add, int32(), bx(this_n), bx(loc(1)))
    );
    let (lv, v) = assign_of(&add.nodes[1].stmt);
    assert_eq!(*lv, LValue::Field(bx(loc(0)), 1));
    assert_eq!(*v, Expr::Const(Const::Bool(false)));
    let (lv, v) = assign_of(&add.nodes[2].stmt);
    assert_eq!(*lv, LValue::Global(0));
    assert_eq!(
        *v,
        Expr::Arith(ArithOp::Add, int32(), bx(Expr::Global(0)), bx(k(1)))
    );
    let last = add.nodes.last().unwrap();
    assert!(matches!(&last.stmt, Stmt::Return { values: Some(v) } if v.is_empty()));
    assert!(last.succ.is_empty());
    // straight-line code: each node flows to the next
    for (pc, n) in add.nodes.iter().enumerate().take(3) {
        assert_eq!(n.succ, vec![pc as Pc + 1]);
    }
}

#[test]
fn static_fields_are_globals_and_activations_in_order() {
    let p = lower(COUNTER);
    let globals: Vec<_> = p
        .globals
        .iter()
        .map(|g| (g.name.as_str(), g.ty, g.init, g.thread_local))
        .collect();
    assert_eq!(
        globals,
        vec![
            ("Counter.total", int32(), Init::Value(Const::Int(3)), false),
            (
                "Main.flag",
                Type::Bool,
                Init::Value(Const::Bool(false)),
                false
            ),
        ]
    );
    let main = p.proc_by_name("Main.main").unwrap();
    let other = p.proc_by_name("Main.other").unwrap();
    assert_eq!(p.activations, vec![main, other]);
    assert!(matches!(p.layout, zingrs_lang::ir::Layout::Standard));
    assert_eq!(p.source.name, "t.zing");
    assert_eq!(p.source.text, COUNTER);
    let names: Vec<_> = p.procs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["Counter.Add", "Main.main", "Main.other"]);
}

#[test]
fn new_and_instance_calls() {
    let p = lower(COUNTER);
    let (id, main) = proc(&p, "Main.main");
    let add = p.proc_by_name("Counter.Add").unwrap();
    assert_eq!(main.params, 0);
    assert_eq!(main.locals[0].name, "c");
    assert_eq!(main.locals[0].ty, Type::Ref(0));
    let s = stmts(&p, "Main.main");
    // `Counter c;` executes nothing (the local starts at null)
    assert_eq!(main.locals[0].init, Init::Value(Const::Null));
    assert!(
        matches!(
            s[0],
            Stmt::New {
                target: LValue::Local(0),
                class: 0
            }
        ),
        "{}",
        dump(&p, id)
    );
    match s[1] {
        Stmt::Call {
            callee,
            args,
            results,
        } => {
            assert_eq!(*callee, add);
            assert_eq!(args, &vec![loc(0), k(2)]);
            assert!(results.is_empty());
        }
        other => panic!("expected a call, got {other:?}"),
    }
    let (lv, v) = assign_of(s[2]);
    assert_eq!(*lv, LValue::Field(bx(loc(0)), 2));
    assert_eq!(*v, loc(0));
    let (lv, _) = assign_of(s[3]);
    assert_eq!(*lv, LValue::Global(0));
    assert!(matches!(s[4], Stmt::Return { .. }));
    assert_eq!(s.len(), 5);
    // node spans quote their statements
    assert_eq!(p.source.snippet(main.nodes[0].span), "c = new Counter;");
    assert_eq!(p.line_of(id, 1), 17);
}

#[test]
fn bare_method_call_in_instance_method_passes_this() {
    let p = lower(
        "class A {
    int v;
    void Inc() { v = v + 1; }
    void Twice() { Inc(); this.Inc(); }
    static void S() { }
    activate static void main() { A a; a = new A; a.Twice(); S(); A.S(); }
};",
    );
    let inc = p.proc_by_name("A.Inc").unwrap();
    let s_id = p.proc_by_name("A.S").unwrap();
    for (i, s) in stmts(&p, "A.Twice").iter().take(2).enumerate() {
        match s {
            Stmt::Call { callee, args, .. } => {
                assert_eq!(*callee, inc);
                assert_eq!(args, &vec![loc(0)], "call {i} passes this");
            }
            other => panic!("expected a call, got {other:?}"),
        }
    }
    let s = stmts(&p, "A.main");
    for st in &s[2..4] {
        assert!(
            matches!(st, Stmt::Call { callee, args, results } if *callee == s_id && args.is_empty() && results.is_empty())
        );
    }
}

// ---- choose ----------------------------------------------------------------------------------

#[test]
fn choose_bool_enum_and_range() {
    let p = lower(
        "enum Color { Red, Green, Blue };
enum Other { X };
range R 2 .. 5;
class M {
    static Color sc;
    activate static void main() {
        bool b; Color c; int i; R r;
        b = choose(bool);
        c = choose(Color);
        i = choose(R);
        r = choose(R);
        sc = choose(Color);
        i = choose(Color);
    }
};",
    );
    let (id, main) = proc(&p, "M.main");
    assert_eq!(main.locals[1].ty, Type::Enum(0));
    assert_eq!(main.locals[3].ty, Type::Range(2, 5));
    assert_eq!(
        main.locals[3].init,
        Init::Value(Const::Int(0)),
        "range defaults are 0"
    );
    assert_eq!(p.globals[0].ty, Type::Enum(0));
    let chooses: Vec<_> = main
        .nodes
        .iter()
        .filter_map(|n| match &n.stmt {
            Stmt::Choose { target, ty, lo, hi } => Some((target.clone(), *ty, *lo, *hi)),
            _ => None,
        })
        .collect();
    assert_eq!(
        chooses,
        vec![
            (LValue::Local(0), Type::Bool, 0, 1),
            (LValue::Local(1), Type::Enum(0), 0, 2),
            (LValue::Local(2), Type::Range(2, 5), 2, 5),
            (LValue::Local(3), Type::Range(2, 5), 2, 5),
            (LValue::Global(0), Type::Enum(0), 0, 2),
            (LValue::Local(2), Type::Enum(0), 0, 2),
        ],
        "{}",
        dump(&p, id)
    );
}

// ---- calls with out parameters, async ----------------------------------------------------

const OUTS: &str = "class M {
    static int Div(int a, int b, out int r) {
        r = a % b;
        return a / b;
    }
    static void Two(out bool x, int k, out int y) {
        x = true;
        y = k;
    }
    static int Fall() { }
    activate static void main() {
        int q; int r; bool x; int y;
        q = Div(7, 2, out r);
        Div(1, 1, out r);
        Two(out x, 5, out y);
        q = Fall();
        Fall();
    }
};";

#[test]
fn out_parameters_results_are_ordered_result_first() {
    let p = lower(OUTS);
    let div = p.proc_by_name("M.Div").unwrap();
    let two = p.proc_by_name("M.Two").unwrap();
    let fall = p.proc_by_name("M.Fall").unwrap();
    let (_, d) = proc(&p, "M.Div");
    assert_eq!(d.params, 3);
    assert_eq!(d.returns, vec![int32(), int32()]);
    let ret = d
        .nodes
        .iter()
        .find_map(|n| match &n.stmt {
            Stmt::Return { values: Some(v) } => Some(v.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        ret,
        vec![
            Expr::Arith(ArithOp::Div, int32(), bx(loc(0)), bx(loc(1))),
            loc(2)
        ]
    );
    // falling off the end returns the default result and the out parameters
    assert!(
        matches!(&d.nodes.last().unwrap().stmt, Stmt::Return { values: Some(v) } if *v == vec![k(0), loc(2)])
    );

    // input parameters come first in the frame, then the out parameters
    let (_, t) = proc(&p, "M.Two");
    let slots: Vec<_> = t.locals.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(slots, vec!["k", "x", "y"]);
    assert_eq!(t.params, 3);
    assert_eq!(t.returns, vec![Type::Bool, int32()]);
    assert!(
        matches!(&t.nodes.last().unwrap().stmt, Stmt::Return { values: Some(v) } if *v == vec![loc(1), loc(2)])
    );
    assert_eq!(assign_of(&t.nodes[1].stmt).1, &loc(0), "y = k reads slot 0");

    let (_, f) = proc(&p, "M.Fall");
    // an empty body is ZING's empty statement, a step before the return
    assert!(matches!(&f.nodes[0].stmt, Stmt::Skip));
    assert!(matches!(&f.nodes[1].stmt, Stmt::Return { values: Some(v) } if *v == vec![k(0)]));

    let calls: Vec<_> = stmts(&p, "M.main")
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Call {
                callee,
                args,
                results,
            } => Some((*callee, args.clone(), results.clone())),
            _ => None,
        })
        .collect();
    let l = |i| Some(LValue::Local(i));
    assert_eq!(
        calls,
        vec![
            (div, vec![k(7), k(2)], vec![l(0), l(1)]),
            (div, vec![k(1), k(1)], vec![None, l(1)]),
            (two, vec![k(5)], vec![l(2), l(3)]),
            (fall, vec![], vec![l(0)]),
            (fall, vec![], vec![]),
        ]
    );
}

#[test]
fn async_starts_threads() {
    let c = compile(
        "t.zing",
        "class W {
    int v;
    void Run(int k) { v = k; }
    static void S(byte b) { }
    static int R(out int o) { o = 1; return 2; }
    activate static void main() {
        W w; int x;
        w = new W;
        async w.Run(3);
        async S(4);
        async R(out x);
    }
};",
        Lang::Zing,
    )
    .expect("lowers");
    assert!(
        c.warnings.iter().any(|w| w.message.contains("discards")),
        "front-end warnings are kept"
    );
    let p = c.program;
    let run = p.proc_by_name("W.Run").unwrap();
    let s = p.proc_by_name("W.S").unwrap();
    let r = p.proc_by_name("W.R").unwrap();
    let starts: Vec<_> = stmts(&p, "W.main")
        .into_iter()
        .filter_map(|s| match s {
            Stmt::StartThread { callee, args } => Some((*callee, args.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        vec![(run, vec![loc(0), k(3)]), (s, vec![k(4)]), (r, vec![])]
    );
}

// ---- atomic blocks ---------------------------------------------------------------------------

#[test]
fn atomic_block_without_select() {
    let p = lower(
        "class M {
    static int x;
    static void F() {
        atomic { x = 1; x = 2; }
    }
    static void G() {
        atomic {
            if (x > 0) { return; }
            inner: x = 1;
            if (x == 1) { goto inner; }
            goto done;
        }
        done: x = 3;
    }
    atomic static void A() { x = 4; }
    activate static void main() { F(); }
};",
    );
    let s = stmts(&p, "M.F");
    assert!(matches!(s[0], Stmt::AtomicBegin));
    assert!(matches!(s[1], Stmt::Assign { .. }));
    assert!(matches!(s[2], Stmt::Assign { .. }));
    assert!(matches!(s[3], Stmt::AtomicEnd));
    assert!(matches!(s[4], Stmt::Return { .. }));

    let (id, g) = proc(&p, "M.G");
    let d = dump(&p, id);
    assert!(matches!(g.nodes[0].stmt, Stmt::AtomicBegin), "{d}");
    // every return and every goto leaving the block is preceded by an AtomicEnd
    for (pc, n) in g.nodes.iter().enumerate() {
        let leaves = match &n.stmt {
            Stmt::Return { .. } => pc + 1 != g.nodes.len(),
            Stmt::Goto => g.nodes[n.succ[0] as usize]
                .labels
                .contains(&"done".to_string()),
            _ => false,
        };
        if leaves {
            assert!(matches!(g.nodes[pc - 1].stmt, Stmt::AtomicEnd), "{d}");
        }
    }
    // the goto to `inner` stays inside: no AtomicEnd before it
    let inner_goto = g
        .nodes
        .iter()
        .position(|n| {
            matches!(n.stmt, Stmt::Goto) && g.nodes[n.succ[0] as usize].labels == ["inner"]
        })
        .expect("goto inner");
    assert!(
        !matches!(g.nodes[inner_goto - 1].stmt, Stmt::AtomicEnd),
        "{d}"
    );
    let ends = g
        .nodes
        .iter()
        .filter(|n| matches!(n.stmt, Stmt::AtomicEnd))
        .count();
    assert_eq!(ends, 3, "return, goto done, end of block: {d}");

    let (_, a) = proc(&p, "M.A");
    assert!(a.atomic);
    assert!(!a
        .nodes
        .iter()
        .any(|n| matches!(n.stmt, Stmt::AtomicBegin | Stmt::AtomicEnd)));
}

#[test]
fn atomic_block_with_leading_select() {
    let p = lower(
        "class Fork { bool taken; };
class M {
    static Fork f;
    static int n;
    static void Take() {
        atomic {
            select { wait(!f.taken) -> f.taken = true; }
            n = n + 1;
        }
    }
    activate static void main() { f = new Fork; Take(); }
};",
    );
    let (id, t) = proc(&p, "M.Take");
    let d = dump(&p, id);
    assert!(
        !t.nodes.iter().any(|n| matches!(n.stmt, Stmt::AtomicBegin)),
        "the select begins the block: {d}"
    );
    match &t.nodes[0].stmt {
        Stmt::Select {
            guards,
            first,
            end,
            atomic,
            ..
        } => {
            assert!(*atomic);
            assert!(*first, "a single-branch select behaves as `first`");
            assert!(!*end);
            assert_eq!(
                guards,
                &vec![Expr::not(Expr::Field(bx(Expr::Global(0)), 0))]
            );
        }
        other => panic!("expected a select, got {other:?}\n{d}"),
    }
    assert_eq!(t.nodes[0].succ, vec![1]);
    assert_eq!(
        assign_of(&t.nodes[1].stmt).0,
        &LValue::Field(bx(Expr::Global(0)), 0)
    );
    assert_eq!(assign_of(&t.nodes[2].stmt).0, &LValue::Global(1));
    assert!(matches!(t.nodes[3].stmt, Stmt::AtomicEnd), "{d}");
    assert!(matches!(t.nodes[4].stmt, Stmt::Return { .. }), "{d}");
}

// ---- select ------------------------------------------------------------------------------

#[test]
fn select_with_two_wait_branches() {
    let p = lower(
        "class M {
    static int x;
    static bool y;
    static bool z;
    activate static void main() {
        select end {
            wait(x > 0) -> x = 0;
            wait(y && z) && wait(x == 0) -> { y = false; z = true; }
        }
        x = 9;
        select first { wait(y) -> ; wait(true) -> ; }
    }
};",
    );
    let (id, m) = proc(&p, "M.main");
    let d = dump(&p, id);
    let Stmt::Select {
        guards,
        first,
        end,
        atomic,
        ..
    } = &m.nodes[0].stmt
    else {
        panic!("expected a select:\n{d}")
    };
    assert!(!*first && *end && !*atomic);
    let g = |i| Expr::Global(i);
    assert_eq!(
        guards,
        &vec![
            Expr::Cmp(CmpOp::Gt, bx(g(0)), bx(k(0))),
            Expr::bin(
                BinOp::And,
                and_then(g(1), g(2)),
                Expr::bin(BinOp::Eq, g(0), k(0))
            ),
        ]
    );
    assert_eq!(m.nodes[0].succ, vec![1, 2], "{d}");
    assert_eq!(assign_of(&m.nodes[1].stmt).0, &LValue::Global(0));
    assert_eq!(assign_of(&m.nodes[2].stmt).0, &LValue::Global(1));
    // both branches join at `x = 9;`
    assert_eq!(m.nodes[1].succ, vec![4], "{d}");
    assert_eq!(m.nodes[3].succ, vec![4], "{d}");
    assert_eq!(assign_of(&m.nodes[4].stmt).1, &k(9));
    assert!(matches!(
        m.nodes[5].stmt,
        Stmt::Select {
            first: true,
            end: false,
            ..
        }
    ));
    assert!(matches!(m.nodes[6].stmt, Stmt::Skip));
    assert!(matches!(m.nodes[7].stmt, Stmt::Skip));
    assert_eq!(m.nodes[5].succ, vec![6, 7]);
}

// ---- control flow -------------------------------------------------------------------------

#[test]
fn if_while_goto_and_labels() {
    let p = lower(
        "class M {
    static int g;
    activate static void main() {
        int i;
        while (i < 3) { i = i + 1; }
        if (i == 3) { g = 1; } else { g = 2; }
        if (g > 1) g = 0;
        L: g = 5;
        M2: ;
        goto L;
    }
};",
    );
    let (id, m) = proc(&p, "M.main");
    let d = dump(&p, id);
    let n = &m.nodes;
    // 0: while test; 1: body; 2: if test; 3: then; 4: else; 5: if test; 6: then;
    // 7: L; 8: M2 skip; 9: goto; 10: return (`int i;` takes no node)
    assert!(
        matches!(&n[0].stmt, Stmt::Branch { cond } if *cond == Expr::Cmp(CmpOp::Lt, bx(loc(0)), bx(k(3)))),
        "{d}"
    );
    assert_eq!(p.source.snippet(n[0].span), "while (i < 3)");
    assert_eq!(n[0].succ, vec![1, 2], "{d}");
    assert_eq!(n[1].succ, vec![0], "loop back edge: {d}");
    assert!(matches!(n[2].stmt, Stmt::Branch { .. }));
    assert_eq!(p.source.snippet(n[2].span), "if (i == 3)");
    assert_eq!(n[2].succ, vec![3, 4], "{d}");
    assert_eq!(n[3].succ, vec![5]);
    assert_eq!(n[4].succ, vec![5]);
    assert_eq!(n[5].succ, vec![6, 7], "if without else: {d}");
    assert_eq!(n[6].succ, vec![7]);
    assert_eq!(n[7].labels, vec!["L".to_string()]);
    assert_eq!(n[8].labels, vec!["M2".to_string()]);
    assert!(matches!(n[8].stmt, Stmt::Skip));
    assert!(matches!(n[9].stmt, Stmt::Goto));
    assert_eq!(n[9].succ, vec![7], "{d}");
    assert!(matches!(n[10].stmt, Stmt::Return { .. }));
    assert_eq!(n.len(), 11, "{d}");
}

#[test]
fn small_statements() {
    let p = lower(
        "class M {
    static bool b;
    activate static void main() {
        assume(true);
        assume(b);
        assert(!b, \"msg\");
        accept(b);
        yield;
        ;
        { }
        trace(\"x {0}\", b);
        event(1, 2, true);
        invokeplugin(\"p\", 1);
        invokescheduler(1);
    }
};",
    );
    let s = stmts(&p, "M.main");
    assert!(matches!(s[0], Stmt::Assume { cond } if *cond == Expr::Global(0)));
    assert!(
        matches!(s[1], Stmt::Assert { cond } if *cond == Expr::Unary(UnOp::Not, bx(Expr::Global(0))))
    );
    // accept, trace, event and the plug-in hooks evaluate their arguments and discard them
    let discards = |st: &Stmt| match st {
        Stmt::Assign {
            targets, values, ..
        } if targets.iter().all(Option::is_none) => values.len(),
        other => panic!("expected a discarding assignment, got {other:?}"),
    };
    assert_eq!(discards(s[2]), 1, "accept(b)");
    assert!(matches!(s[3], Stmt::Yield));
    assert!(matches!(s[4], Stmt::Skip));
    assert!(matches!(s[5], Stmt::Skip));
    let counts: Vec<usize> = s[6..10].iter().map(|st| discards(st)).collect();
    assert_eq!(counts, [1, 3, 1, 1], "string literals are not evaluated");
    assert!(matches!(s[10], Stmt::Return { .. }));
    assert_eq!(s.len(), 11);
}

// ---- arithmetic and conversions -------------------------------------------------------------

const NUMBERS: &str = "enum E { a, b, c };
class M {
    static byte F(byte x, int y) { return y; }
    activate static void main() {
        byte a; byte b; int i; long l; uint u; bool t; E e; sbyte s;
        i = a + b;
        l = i * l;
        u = u + 1;
        l = u + i;
        i = a << 2;
        i = -i;
        u = ~u;
        t = t & t;
        t = t ^ true;
        t = t || t && t;
        i = i % 3 - i / 2;
        i = +a;
        b = i;
        i = b;
        b = 7;
        i = l;
        u = i;
        i = e;
        l = i;
        b = s;
        i = E.c;
        b = F(300, 1);
        i = -5;
        a = b = i;
    }
};";

#[test]
fn arithmetic_types_follow_csharp_promotion() {
    let p = lower(NUMBERS);
    let ty = |bits, signed| Type::Int { bits, signed };
    let ar = |op, t, a, b| Expr::Arith(op, t, bx(a), bx(b));
    // locals: a0 b1 i2 l3 u4 t5 e6 s7 (no params)
    let v = |n: usize| {
        let (_, m) = proc(&p, "M.main");
        assign_of(&m.nodes[n].stmt).1.clone()
    };
    let base = 0; // the eight declarations take no node
    assert_eq!(
        v(base),
        ar(ArithOp::Add, int32(), loc(0), loc(1)),
        "byte + byte is int"
    );
    assert_eq!(v(base + 1), ar(ArithOp::Mul, ty(64, true), loc(2), loc(3)));
    assert_eq!(v(base + 2), ar(ArithOp::Add, ty(32, false), loc(4), k(1)));
    assert_eq!(v(base + 3), ar(ArithOp::Add, ty(64, true), loc(4), loc(2)));
    assert_eq!(v(base + 4), ar(ArithOp::Shl, int32(), loc(0), k(2)));
    assert_eq!(v(base + 5), Expr::Neg(int32(), bx(loc(2))));
    assert_eq!(v(base + 6), Expr::BitNot(ty(32, false), bx(loc(4))));
    assert_eq!(v(base + 7), Expr::bin(BinOp::And, loc(5), loc(5)));
    assert_eq!(
        v(base + 8),
        Expr::bin(BinOp::Xor, loc(5), Expr::Const(Const::Bool(true)))
    );
    assert_eq!(v(base + 9), or_else(loc(5), and_then(loc(5), loc(5))));
    assert_eq!(
        v(base + 10),
        ar(
            ArithOp::Sub,
            int32(),
            ar(ArithOp::Rem, int32(), loc(2), k(3)),
            ar(ArithOp::Div, int32(), loc(2), k(2))
        )
    );
    assert_eq!(v(base + 11), loc(0), "unary plus is the operand");
}

#[test]
fn implicit_conversions_are_checked_when_narrowing() {
    let p = lower(NUMBERS);
    let ty = |bits, signed| Type::Int { bits, signed };
    let conv = |t, e| Expr::Convert(t, bx(e));
    let (id, m) = proc(&p, "M.main");
    let d = dump(&p, id);
    let v = |n: usize| assign_of(&m.nodes[n].stmt).1.clone();
    let base = 12;
    assert_eq!(v(base), conv(ty(8, false), loc(2)), "byte = int: {d}");
    assert_eq!(v(base + 1), loc(1), "int = byte widens");
    assert_eq!(v(base + 2), k(7), "a fitting literal needs no check");
    assert_eq!(v(base + 3), conv(int32(), loc(3)), "int = long");
    assert_eq!(v(base + 4), conv(ty(32, false), loc(2)), "uint = int");
    assert_eq!(v(base + 5), loc(6), "enum to int needs nothing");
    assert_eq!(v(base + 6), loc(2), "long = int widens");
    assert_eq!(v(base + 7), conv(ty(8, false), loc(7)), "byte = sbyte");
    assert_eq!(v(base + 8), k(2), "enum members are ordinals");
    // b = F(300): the argument is converted to the parameter type, the result stored as is
    match &m.nodes[base + 9].stmt {
        Stmt::Call { args, results, .. } => {
            assert_eq!(args, &vec![conv(ty(8, false), k(300)), k(1)]);
            assert_eq!(results, &vec![Some(LValue::Local(1))]);
        }
        other => panic!("expected a call, got {other:?}\n{d}"),
    }
    assert_eq!(v(base + 10), k(-5));
    // a = b = i: one parallel assignment, each value converted to its target
    match &m.nodes[base + 11].stmt {
        Stmt::Assign {
            targets, values, ..
        } => {
            assert_eq!(
                targets,
                &vec![Some(LValue::Local(0)), Some(LValue::Local(1))]
            );
            assert_eq!(values[1], conv(ty(8, false), loc(2)));
            assert_eq!(values[0], values[1], "byte to byte needs nothing more");
        }
        other => panic!("expected an assignment, got {other:?}\n{d}"),
    }
    // return y; in a byte method
    let f = proc(&p, "M.F").1;
    assert!(
        matches!(&f.nodes[0].stmt, Stmt::Return { values: Some(v) } if *v == vec![conv(ty(8, false), loc(1))])
    );
    // a declaration without initializer takes no node: the local starts at its default
    assert_eq!(
        proc(&p, "M.main").1.locals[7].init,
        Init::Value(Const::Int(0))
    );
}

#[test]
fn chained_assignment_of_new_copies_the_object() {
    let p = lower(
        "class Q { };
class M {
    static Q x;
    static Q y;
    activate static void main() { M.x = M.y = new Q; }
};",
    );
    let s = stmts(&p, "M.main");
    assert!(matches!(
        s[0],
        Stmt::New {
            target: LValue::Global(1),
            class: 0
        }
    ));
    let (lv, v) = assign_of(s[1]);
    assert_eq!((lv, v), (&LValue::Global(0), &Expr::Global(1)));
}

// ---- the benchmark models ------------------------------------------------------------------

fn clone_model(n: u32) -> String {
    format!(
        "class Foo {{
    bool x;
    Foo Clone() {{
        Foo t = new Foo;
        t.x = x;
        return t;
    }}
}};

class Main {{
    static Foo g;

    static void M(int i) {{
        Foo f;
        bool b;
        if (i < {n}) {{
            f = g.Clone();
            b = choose(bool);
            g.x = b;
            M(i + 1);
            assert(g.x == b);
            g.x = f.x;
        }}
    }}

    activate static void main() {{
        g = new Foo;
        M(0);
        assert(g.x == false);
    }}
}};
"
    )
}

const ALLOC: &str = "class BoolBox { bool x; };

class Main {
    static BoolBox g1;
    static BoolBox g2;

    static void M() {
        BoolBox f;
        bool c;
        f = new BoolBox;
        f.x = true;
        c = choose(bool);
        if (c) {
            f.x = g1.x;
            g1 = f;
            M();
        }
    }

    activate static void main() {
        g1 = new BoolBox;
        g2 = g1;
        g1.x = false;
        M();
        assert(g1.x == false && g2.x == false);
    }
};
";

const PATTERNS: &str = "class Main {
    static int x;
    static int y;
    static int z;

    static void foo() {
        bool c;
        c = choose(bool);
        if (c) {
            assume(x == 0);
            z = 1;
        } else {
            assume(y == 1);
            assert(false);
        }
    }

    activate static void main() {
        x = 0; y = 0; z = 0;
        foo();
        y = 1;
        foo();
    }
};
";

#[test]
fn benchmark_zing_clone_lowers() {
    let p = lower(&clone_model(3));
    let (cid, clone) = proc(&p, "Foo.Clone");
    assert_eq!(clone.params, 1);
    assert_eq!(clone.returns, vec![Type::Ref(0)]);
    let s: Vec<_> = clone.nodes.iter().map(|n| &n.stmt).collect();
    assert!(
        matches!(
            s[0],
            Stmt::New {
                target: LValue::Local(1),
                class: 0
            }
        ),
        "{}",
        dump(&p, cid)
    );
    let (lv, v) = assign_of(s[1]);
    assert_eq!(*lv, LValue::Field(bx(loc(1)), 0));
    assert_eq!(*v, Expr::Field(bx(loc(0)), 0));
    assert!(matches!(s[2], Stmt::Return { values: Some(v) } if *v == vec![loc(1)]));

    let (mid, m) = proc(&p, "Main.M");
    let d = dump(&p, mid);
    assert_eq!(m.params, 1);
    let calls: Vec<_> = m
        .nodes
        .iter()
        .filter_map(|n| match &n.stmt {
            Stmt::Call {
                callee,
                args,
                results,
            } => Some((*callee, args.clone(), results.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            (cid, vec![Expr::Global(0)], vec![Some(LValue::Local(1))]),
            (
                mid,
                vec![Expr::Arith(ArithOp::Add, int32(), bx(loc(0)), bx(k(1)))],
                vec![]
            ),
        ],
        "{d}"
    );
    assert!(m.nodes.iter().any(|n| matches!(
        &n.stmt,
        Stmt::Branch { cond } if *cond == Expr::Cmp(CmpOp::Lt, bx(loc(0)), bx(k(3)))
    )));
    assert!(m.nodes.iter().any(|n| matches!(
        n.stmt,
        Stmt::Choose {
            ty: Type::Bool,
            lo: 0,
            hi: 1,
            ..
        }
    )));
    assert_eq!(p.activations, vec![p.proc_by_name("Main.main").unwrap()]);
}

#[test]
fn benchmark_zing_alloc_lowers() {
    let p = lower(ALLOC);
    assert_eq!(p.classes[0].name, "BoolBox");
    assert_eq!(p.globals.len(), 2);
    let (_, main) = proc(&p, "Main.main");
    let last_assert = main
        .nodes
        .iter()
        .find_map(|n| match &n.stmt {
            Stmt::Assert { cond } => Some(cond.clone()),
            _ => None,
        })
        .unwrap();
    let fx = |g| Expr::Field(bx(Expr::Global(g)), 0);
    let f = Expr::Const(Const::Bool(false));
    assert_eq!(
        last_assert,
        and_then(
            Expr::bin(BinOp::Eq, fx(0), f.clone()),
            Expr::bin(BinOp::Eq, fx(1), f)
        )
    );
}

#[test]
fn benchmark_zing_patterns_lowers() {
    let p = lower(PATTERNS);
    let (id, foo) = proc(&p, "Main.foo");
    let d = dump(&p, id);
    let assumes = foo
        .nodes
        .iter()
        .filter(|n| matches!(n.stmt, Stmt::Assume { .. }))
        .count();
    assert_eq!(assumes, 2, "{d}");
    assert!(foo.nodes.iter().any(
        |n| matches!(&n.stmt, Stmt::Assert { cond } if *cond == Expr::Const(Const::Bool(false)))
    ));
    let s = stmts(&p, "Main.main");
    let calls = s.iter().filter(|s| matches!(s, Stmt::Call { .. })).count();
    assert_eq!(calls, 2);
}

// ---- refused constructs ---------------------------------------------------------------------

/// Wraps statements into an activate method of class `M` with handy declarations.
fn in_main(decls: &str, stmts: &str) -> String {
    format!(
        "{decls}
class M {{
    static int g;
    activate static void main() {{
        int r; bool ok;
{stmts}
    }}
}};
"
    )
}

/// The statements of `M.main` after lowering `in_main(decls, stmts)`.
fn main_stmts(decls: &str, body: &str) -> (Program, Vec<Stmt>) {
    let p = lower(&in_main(decls, body));
    let s = stmts(&p, "M.main").into_iter().cloned().collect();
    (p, s)
}

#[test]
fn arrays_lower_to_collection_classes_and_checked_elements() {
    let (p, s) = main_stmts(
        "array A[3] int;\narray D[] bool;\nclass H { static A arr; };",
        "D d; H.arr = new A; d = new D[r]; H.arr[1] = 2; r = H.arr[r] + sizeof(d);",
    );
    let a = &p.classes[0];
    assert_eq!(a.name, "A");
    assert_eq!(a.kind, ClassKind::Array { len: Some(3) });
    assert_eq!(a.fields.len(), 1, "one leaf per element");
    assert_eq!(p.classes[1].kind, ClassKind::Array { len: None });
    assert!(matches!(&s[0], Stmt::New { class: 0, .. }), "{:?}", s[0]);
    assert!(matches!(
        &s[1],
        Stmt::NewArray {
            class: 1,
            len: Expr::Local(0),
            ..
        }
    ));
    let (lv, _) = assign_of(&s[2]);
    assert!(matches!(lv, LValue::Elem(_, i, Width { width: 1, offset: 0 }) if **i == k(1)));
    let (_, v) = assign_of(&s[3]);
    assert!(matches!(v, Expr::Arith(ArithOp::Add, _, a, b)
        if matches!(**a, Expr::Elem(..)) && matches!(**b, Expr::Size(_, 1))));
}

/// A static initializer runs while the initial state is built, before any process exists
/// (zing-language.md §2.2, §6.1): an array length there is a constant the front end knows, and
/// one outside `int` (§2.10, §5.4: a length is an `int`) is a compile error at the length, not
/// an allocation attempt at run time.
#[test]
fn static_arrays_beyond_the_int_bound_are_compile_errors() {
    let cases = [
        // (declarations, the text the caret must point at)
        (
            "array D[] int;\nclass H { static D d = new D[2147483648]; };",
            "2147483648",
        ),
        ("array D[] int;\nclass H { static D d = new D[-1]; };", "-1"),
        (
            "array D[] int;\nclass H { static D d = new D[4000000000]; };",
            "4000000000",
        ),
        (
            "array F[4000000000] int;\nclass H { static F f = new F; };",
            "new F",
        ),
    ];
    for (decls, at) in cases {
        let text = in_main(decls, "r = 1;");
        let diags = errors(&text);
        let want = text.find(at).expect("anchor in text") as u32;
        assert!(
            diags.iter().any(|d| d.is_error()
                && d.span.start == want
                && d.message.contains("array length")
                && d.message.contains("2147483647")),
            "{decls}: {}",
            render(&Source::new("t.zing", &text), &diags)
        );
    }
    // the largest length an `int` holds is not refused by the front end (memory may be)
    let p = lower(&in_main(
        "array D[] int;\nclass H { static D d = new D[2147483647]; };",
        "r = 1;",
    ));
    assert_eq!(p.static_news.len(), 1);
    assert_eq!(p.static_news[0].2, Some(2147483647));
}

#[test]
fn sizeof_a_fixed_array_type_is_a_constant() {
    let (_, s) = main_stmts("array F[4] bool;", "r = sizeof(F);");
    assert_eq!(assign_of(&s[0]).1, &k(4));
}

#[test]
fn sets_update_in_place_and_test_membership() {
    let (p, s) = main_stmts(
        "set S int;\nclass H { static S s; static S t; };",
        "H.s = new S; H.s = H.s + 1; H.s = H.s - r; H.s = H.s + H.t; H.s = H.t - H.s; ok = 1 in H.s; r = choose(H.s);",
    );
    assert_eq!(p.classes[0].kind, ClassKind::Set);
    let ops: Vec<SetOp> = s
        .iter()
        .filter_map(|st| match st {
            Stmt::SetUpdate { op, .. } => Some(*op),
            _ => None,
        })
        .collect();
    use SetOp::*;
    assert_eq!(
        ops,
        [Insert, Remove, InsertAll, RemoveAll],
        "the swapped form reads s - t"
    );
    assert!(matches!(assign_of(&s[5]).1, Expr::In(..)));
    assert!(matches!(&s[6], Stmt::ChooseElem { targets, .. } if targets.len() == 1));
}

#[test]
fn channels_send_and_receive_struct_messages_leaf_by_leaf() {
    let (p, s) = main_stmts(
        "struct P { int x; bool b; };\nchan C P;\nclass H { static C c; };",
        "P m; H.c = new C; send(H.c, m); select { receive(H.c, m) -> ; timeout -> r = 1; }",
    );
    let c = &p.classes[0];
    assert_eq!((c.kind, c.fields.len()), (ClassKind::Chan, 2));
    assert!(matches!(&s[1], Stmt::Send { values, .. } if values.len() == 2));
    let Stmt::Select {
        guards, receives, ..
    } = &s[2]
    else {
        panic!("expected a select, got {:?}", s[2]);
    };
    // the timeout branch is swapped with the last one: here it already is last
    assert!(matches!(&guards[0], Expr::Cmp(CmpOp::Gt, n, _) if matches!(**n, Expr::Size(_, 2))));
    assert_eq!(guards[1], Expr::Const(Const::Bool(true)));
    assert_eq!(receives[0][0].targets.len(), 2);
    assert!(receives[1].is_empty());
}

#[test]
fn timeout_is_swapped_with_the_last_branch() {
    let (_, s) = main_stmts(
        "",
        "select first { timeout -> r = 1; wait(ok) -> r = 2; wait(!ok) -> r = 3; }",
    );
    let Stmt::Select { guards, .. } = &s[0] else {
        panic!("expected a select");
    };
    // { B2 -> S2  B1 -> S1  timeout -> S0 }
    assert_eq!(guards[0], Expr::not(loc(1)));
    assert_eq!(guards[1], loc(1));
    assert_eq!(guards[2], Expr::Const(Const::Bool(true)));
}

#[test]
fn structs_flatten_into_one_slot_per_leaf() {
    let p = lower(&in_main(
        "struct Q { int a; bool b; };\nstruct P { int x; Q q; };\nclass H { static P g; };",
        "P p; P o; p.q.b = true; o = p; H.g = o; r = H.g.q.a;",
    ));
    let (_, m) = proc(&p, "M.main");
    let names: Vec<&str> = m.locals.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        ["r", "ok", "p.x", "p.q.a", "p.q.b", "o.x", "o.q.a", "o.q.b"]
    );
    let g: Vec<&str> = p.globals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(g, ["H.g.x", "H.g.q.a", "H.g.q.b", "M.g"]);
    let s = stmts(&p, "M.main");
    assert_eq!(assign_of(s[0]).0, &LValue::Local(4));
    assert!(matches!(s[1], Stmt::Assign { targets, .. } if targets.len() == 3));
    assert_eq!(assign_of(s[3]).1, &Expr::Global(1));
}

#[test]
fn exceptions_lower_to_raise_and_handler_tables() {
    let p = lower(&in_main(
        "",
        "try { r = 1; raise Oops; } with { Oops -> r = 2; * -> r = 3; } raise Other;",
    ));
    assert_eq!(p.exceptions, ["Oops", "Other"]);
    let (_, m) = proc(&p, "M.main");
    assert_eq!(m.tries.len(), 1);
    let t = &m.tries[0];
    assert_eq!(t.body, 0..3);
    assert_eq!(
        m.nodes[0].glue,
        Glue::ToNext,
        "entering the try takes no step of its own (the arriving step ends at it)"
    );
    assert_eq!(t.handlers, [(Some(0), 3), (None, 4)]);
    assert!(matches!(m.nodes[2].stmt, Stmt::Raise { exception: 0 }));
    assert!(matches!(m.nodes[5].stmt, Stmt::Raise { exception: 1 }));
}

#[test]
fn foreach_glues_the_fetch_and_the_increment() {
    let p = lower(&in_main(
        "set S int;\nclass H { static S s; };",
        "foreach (int v in H.s) { r = v; }",
    ));
    let (_, m) = proc(&p, "M.main");
    let glue: Vec<Glue> = m.nodes.iter().map(|n| n.glue).collect();
    // index := 0, test, fetch, body, increment, return
    assert_eq!(
        glue,
        [
            Glue::ToNext,
            Glue::No,
            Glue::ToNext,
            Glue::No,
            Glue::ToNext,
            Glue::No
        ]
    );
    assert_eq!(m.nodes[4].succ, [1]);
}

#[test]
fn local_declarations_without_initializer_take_no_node_and_reset_on_exit() {
    let p = lower(&in_main("", "while (ok) { int t; t = r; r = t + 1; }"));
    let (_, m) = proc(&p, "M.main");
    // test, t := r, r := t + 1, reset t (glued), return
    assert_eq!(m.nodes.len(), 5, "{}", dump(&p, 0));
    assert_eq!(m.nodes[3].glue, Glue::ToPrevious);
    assert_eq!(m.nodes[3].succ, [0]);
}

#[test]
fn self_is_the_process_identifier() {
    let (_, s) = main_stmts("", "r = self;");
    assert_eq!(assign_of(&s[0]).1, &Expr::SelfId);
}

#[test]
fn calls_through_interfaces_dispatch_on_the_receivers_class() {
    let p = lower(&in_main(
        "interface I { void Go(); };\nclass W : I { void Go() { } };\nclass V : I { void Go() { } };",
        "I i; i = new W; i.Go();",
    ));
    let (w, v) = (
        p.proc_by_name("W.Go").unwrap(),
        p.proc_by_name("V.Go").unwrap(),
    );
    let (_, m) = proc(&p, "M.main");
    // new W; test W (glued) -> call W.Go | test V (glued) -> call V.Go; return
    assert!(matches!(
        &m.nodes[1].stmt,
        Stmt::Branch {
            cond: Expr::ClassIs(_, 0)
        }
    ));
    assert_eq!(m.nodes[1].glue, Glue::ToNext);
    assert!(matches!(&m.nodes[2].stmt, Stmt::Call { callee, .. } if *callee == w));
    assert!(matches!(
        &m.nodes[3].stmt,
        Stmt::Branch {
            cond: Expr::ClassIs(_, 1)
        }
    ));
    assert!(matches!(&m.nodes[4].stmt, Stmt::Call { callee, .. } if *callee == v));
    assert_eq!(
        m.nodes[3].succ,
        [4, 4],
        "the last class takes every other reference"
    );
    assert_eq!((&m.nodes[2].succ, &m.nodes[4].succ), (&vec![5], &vec![5]));
}

#[test]
fn calls_inside_wait_are_pure_calls() {
    let p = lower(
        "class M {
    static bool Ready() { return true; }
    activate static void main() {
        select { wait(Ready()) -> ; }
    }
};",
    );
    let ready = p.proc_by_name("M.Ready").unwrap();
    let s = stmts(&p, "M.main");
    assert!(matches!(s[0], Stmt::Select { guards, .. } if guards[0] == Expr::Call(ready, vec![])));
}

#[test]
fn refuses_non_constant_static_initializers() {
    let t = "class Q { };
class M {
    static Q q = new Q;
    static int n = g;
    static int g;
    activate static void main() { }
};";
    assert_refused(t, "non-constant initializer", "g;\n    static int g");
    // `new` allocates while the initial state is built
    let p = lower("class Q { };\nclass M { static Q q = new Q; activate static void main() { } };");
    assert_eq!(p.static_news, [(0, 0, None)]);
    assert_eq!(p.globals[0].init, Init::Value(Const::Null));
    // folded constants are fine
    let p = lower(
        "enum E { a, b };
class M {
    static int n = 1 + 2 * 3;
    static int m = -4;
    static E e = E.b;
    static bool t = !false;
    int inst = 7;
    activate static void main() { }
};",
    );
    let inits: Vec<_> = p.globals.iter().map(|g| g.init).collect();
    assert_eq!(
        inits,
        vec![
            Init::Value(Const::Int(7)),
            Init::Value(Const::Int(-4)),
            Init::Value(Const::Int(1)),
            Init::Value(Const::Bool(true)),
        ]
    );
    assert_eq!(p.classes[0].fields[0].init, Init::Value(Const::Int(7)));
}

#[test]
fn refuses_non_constant_instance_initializers() {
    let t = "class Q { static int s; int n = s; };
class M { activate static void main() { } };";
    assert_refused(t, "non-constant initializer", "s; }");
}

#[test]
fn lowers_the_whole_fuzzing_seed() {
    // The front end's fuzzing seed uses most of the language: all of it lowers.
    lower(SEED);
}

const SEED: &str = "enum E { a, b, };
range R 0 .. 3;
struct P { int x; E e; };
chan C P;
set S int;
array A[] int;
array F[4] bool;
interface I { bool Ok(); };
class W : I {
    int v = 1;
    bool Ok() { return v > 0; }
    void Run(int k, out int r) { r = k + v; }
};
class M {
    static C ch;
    static S s;
    static W w;
    static bool Ready() { return true; }
    atomic static void Bump() { w.v = w.v + 1; }
    activate static void main() {
        P p; int r; A a; E e; bool b;
        s = new S; w = new W; a = new A[3];
        s = s + 2; s = s - 1;
        b = 2 in s && true;
        e = choose(E); r = choose(R); r = choose(s);
        p.x = sizeof(a) + sizeof(F);
        send(ch, p);
        async w.Run(1, out r);
        w.Run(2, out r);
        atomic { Bump(); }
        select first {
            receive(ch, p) && wait(Ready()) -> r = p.x;
            timeout -> ;
        }
        select end visible { event(1, 2, true) -> ; }
        try { raise Oops; } with { Oops -> r = 0; * -> ; }
        foreach (int v in s) { r = r + v; }
        if (r < 0) { goto fin; } else { yield; }
        while (r > 10) r = r - 1;
        trace(\"r={0}\", r);
        assert(r >= 0, \"neg\"); assume(true); accept(b);
        I i; i = w; b = i.Ok();
        r = a[1];
        fin: ;
    }
};
";

#[test]
fn front_end_errors_come_first() {
    // A model that does not type-check reports its type errors, not lowering problems.
    let d = errors("class C { int x; void F() { x = true; } };");
    assert!(d.iter().any(|d| d.message.contains("cannot assign")));
    assert!(d.iter().all(|d| !d.message.contains("lowering")));
}

// ---- robustness ---------------------------------------------------------------------------

mod robustness {
    use super::*;
    use proptest::prelude::*;

    const LABELS: &str = "class M {
    static int x;
    static bool b;
    activate static void main() {
        int i;
        if (b) { L1: assume(true); } else { x = 1; }
        select { wait(b) -> { L2: assume(true); } wait(!b) -> goto fin; }
        atomic { select first { wait(x > 0) -> goto fin; } L3: ; goto L3; }
        while (i < 2) { i = i + 1; L4: assume(true); }
        atomic { if (b) { return; } }
        fin: assume(true);
    }
};
";

    /// Dropping any set of lines from these models never makes `compile` panic, and what
    /// compiles has every successor in range.
    fn mutant(seed: &str, mask: u64) -> String {
        seed.lines()
            .enumerate()
            .filter(|(i, _)| mask & (1 << (i % 64)) == 0)
            .map(|(_, l)| l)
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn well_formed(p: &Program) {
        for pr in &p.procs {
            assert!(!pr.nodes.is_empty());
            for n in &pr.nodes {
                assert!(n.succ.iter().all(|&s| (s as usize) < pr.nodes.len()));
            }
        }
    }

    #[test]
    fn labels_without_nodes_stay_where_they_belong() {
        let p = lower(LABELS);
        well_formed(&p);
        let (id, m) = proc(&p, "M.main");
        let d = dump(&p, id);
        let at = |l: &str| {
            m.nodes
                .iter()
                .position(|n| n.labels.iter().any(|x| x == l))
                .unwrap_or_else(|| panic!("no {l}:\n{d}"))
        };
        // L1 ends the then-branch: it must not label the else-branch's first node
        assert!(matches!(m.nodes[at("L1")].stmt, Stmt::Skip), "{d}");
        assert!(matches!(m.nodes[at("L2")].stmt, Stmt::Skip), "{d}");
        // L4 ends the loop body: it labels the loop test
        assert!(matches!(m.nodes[at("L4")].stmt, Stmt::Branch { .. }), "{d}");
        assert!(
            matches!(m.nodes[at("fin")].stmt, Stmt::Return { .. }),
            "{d}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        #[test]
        fn compile_never_panics(which in 0usize..5, mask in any::<u64>()) {
            let clone = clone_model(2);
            let seeds = [SEED, clone.as_str(), ALLOC, NUMBERS, LABELS];
            let text = mutant(seeds[which], mask & mask.rotate_left(7) & mask.rotate_left(29));
            if let Ok(c) = compile("m.zing", &text, Lang::Zing) {
                well_formed(&c.program);
            }
        }
    }
}
