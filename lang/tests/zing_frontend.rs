//! Front-end tests for Zing: the benchmark models and a program per construct type-check;
//! each static error is reported at the right place; syntax errors are all reported.

use zingrs_lang::diag::{render, Diagnostic};
use zingrs_lang::ir::Source;
use zingrs_lang::zing::ast::{ExprKind, Model, NameRes, StmtKind};
use zingrs_lang::zing::{self, types::Type};
use zingrs_lang::{compile, Lang};

// ---- helpers ----------------------------------------------------------------------------

fn ok(text: &str) -> Model {
    match zing::check("t.zing", text) {
        Ok(m) => m,
        Err(d) => panic!(
            "expected success, got:\n{}",
            render(&Source::new("t.zing", text), &d)
        ),
    }
}

fn errs(text: &str) -> Vec<Diagnostic> {
    match zing::check("t.zing", text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(d) => d,
    }
}

/// Asserts that checking fails with an error whose message contains `msg` at `line:col`.
fn assert_error(text: &str, msg: &str, line: u32, col: u32) {
    let diags = errs(text);
    let src = Source::new("t.zing", text);
    let found = diags
        .iter()
        .find(|d| d.is_error() && d.message.contains(msg))
        .unwrap_or_else(|| panic!("no error containing {msg:?} in:\n{}", render(&src, &diags)));
    assert_eq!(
        src.line_col(found.span.start),
        (line, col),
        "{msg:?} at the wrong place:\n{}",
        render(&src, &diags)
    );
}

/// Wraps statements into a static method of a class `M` with a few handy declarations.
fn in_main(stmts: &str) -> String {
    format!(
        "enum Color {{ Red, Green, Blue, }};
class Box {{ int v; bool b; }};
class M {{
    static int g;
    static Box box;
    activate static void main() {{
{stmts}
    }}
}};
"
    )
}

// ---- the benchmark models (benchmarks.md) -----------------------------------------------

const CLONE: &str = "class Foo {
    bool x;
    Foo Clone() {
        Foo t = new Foo;
        t.x = x;
        return t;
    }
};

class Main {
    static Foo g;

    static void M(int i) {
        Foo f;
        bool b;
        if (i < 12) {
            f = g.Clone();
            b = choose(bool);
            g.x = b;
            M(i + 1);
            assert(g.x == b);
            g.x = f.x;
        }
    }

    activate static void main() {
        g = new Foo;
        M(0);
        assert(g.x == false);
    }
};
";

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

const PHILOSOPHERS: &str = "class Fork { bool taken; };

class Phil {
    Fork left;
    Fork right;

    void Run() {
        while (true) {
            atomic { select { wait(!left.taken) -> left.taken = true; } }
            atomic { select { wait(!right.taken) -> right.taken = true; } }
            right.taken = false;
            left.taken = false;
        }
    }
};

array Forks[3] Fork;

class Table {
    static Forks forks;

    activate static void Start() {
        atomic {
            int i = 0;
            Phil p;
            forks = new Forks;
            while (i < sizeof(Forks)) {
                forks[i] = new Fork;
                i = i + 1;
            }
            i = 0;
            while (i < 3) {
                p = new Phil;
                p.left = forks[i];
                p.right = forks[(i + 1) % sizeof(Forks)];
                async p.Run();
                i = i + 1;
            }
        }
    }
};
";

/// The account example of zing-language.md §2.3.
const ACCOUNT: &str = "class Account {
    int balance = 10;
    static int opened;

    activate static void Setup() {
        Account a;
        a = new Account;
        opened = opened + 1;
        async a.Spend(3);
        async a.Spend(4);
    }

    atomic bool TryTake(int amount) {
        if (balance < amount) return false;
        balance = balance - amount;
        return true;
    }

    void Spend(int amount) {
        bool ok;
        ok = TryTake(amount);
        assert(balance >= 0, \"overdrawn\");
    }
};
";

#[test]
fn benchmark_models_check() {
    for (name, text) in [
        ("zing-clone", CLONE),
        ("zing-alloc", ALLOC),
        ("zing-patterns", PATTERNS),
        ("philosophers", PHILOSOPHERS),
        ("account", ACCOUNT),
    ] {
        if let Err(d) = zing::check(name, text) {
            panic!("{name}:\n{}", render(&Source::new(name, text), &d));
        }
    }
}

#[test]
fn compile_lowers_checked_models() {
    let c = compile("clone.zing", CLONE, Lang::Zing).expect("the clone model lowers");
    assert!(!c.program.activations.is_empty());
    // A broken model yields its real diagnostics, not lowering ones.
    let d = compile("bad.zing", "class C { int x };", Lang::Zing).unwrap_err();
    assert!(d.iter().all(|d| !d.message.contains("lowering")));
}

#[test]
fn names_and_types_are_resolved() {
    let m = ok(CLONE);
    let zingrs_lang::zing::ast::DeclKind::Class(main) = &m.decls[1].kind else {
        panic!("Main is a class")
    };
    let method = &main.methods[0];
    assert_eq!(method.locals.len(), 2);
    assert_eq!(method.locals[0].ty, Type::Class(0));
    let StmtKind::If { cond, .. } = &method.body.stmts[2].kind else {
        panic!("third statement is the if")
    };
    assert_eq!(cond.ty, Type::Bool);
    let ExprKind::Binary(_, l, _) = &cond.kind else {
        panic!("i < N")
    };
    assert!(matches!(l.kind, ExprKind::Name(_, NameRes::Param(0))));
    assert_eq!(l.ty, Type::Int);
}

// ---- every construct --------------------------------------------------------------------

const CONSTRUCTS: &[(&str, &str)] = &[
    ("statics and initializers", "class C {
        static int n = 3;
        static C me = new C;
        int refs = 0;
        bool flag = true;
        activate static void main() { n = n + 1; me.refs = me.refs + n; }
    };"),
    ("instance methods and this", "class C {
        int v;
        void Set(int x) { this.v = x; v = v + 1; }
        int Get() { return this.v; }
        activate static void main() { C c; int r; c = new C; c.Set(4); r = c.Get(); assert(r == 5); }
    };"),
    ("atomic and activate methods", "class C {
        static int x;
        atomic static void Inc() { x = x + 1; }
        activate static void a() { Inc(); }
        static activate void b() { C.Inc(); }
    };"),
    ("out parameters", "class C {
        static void Div(int a, int b, out int q, out int r) { q = a / b; r = a % b; }
        activate static void main() { int q; int r; Div(7, 2, out q, out r); assert(q == 3 && r == 1); }
    };"),
    ("structs by value, nested", "struct P { int x; int y; };
        struct Seg { P a; P b; };
        class C {
            static Seg s;
            activate static void main() { P p; p.x = 1; s.a = p; s.b.y = s.a.x + 2; assert(s.b.y == 3); }
        };"),
    ("enums with trailing comma", "enum E { A, B, C, };
        class M { static E e;
            activate static void main() { E f = E.B; e = choose(E); if (e == E.A) { f = E.C; } assert(f != e || e == E.C); int o; o = e; } };"),
    ("ranges", "range R 1 .. 4; range Neg -2 .. 2;
        class M { activate static void main() { int i; R r; i = choose(R); r = i; i = r + 1; i = choose(Neg); } };"),
    ("arrays fixed, dynamic, enum-indexed", "enum E { a, b };
        array F[4] int; array D[] bool; array X[E] int; array H[0x10] byte;
        class M { activate static void main() {
            F f; D d; X x; H h; int n = 3;
            f = new F; d = new D[n + 1]; x = new X; h = new H;
            f[2] = sizeof(f); d[0] = true; x[E.b] = 7; h[1] = 200;
            n = sizeof(F) + sizeof(d) + sizeof(X);
            n = choose(f);
        } };"),
    ("sets", "set S int; class Obj { int v; }; set OS Obj;
        class M { activate static void main() {
            S s; S t; OS os; Obj o; int e; bool in1;
            s = new S; t = new S; os = new OS; o = new Obj;
            s = s + 3; s = s + t; s = s - 1; s = s - t; t = t + 4;
            os = os + o; os = os - o;
            in1 = 3 in s; in1 = 1 + 2 in s && true; in1 = o in os;
            e = choose(s); e = sizeof(s);
            foreach (int v in s) { e = e + v; }
        } };"),
    ("channels send and receive", "chan IntChan int;
        struct Msg { int seq; bool ack; };
        chan MsgChan Msg;
        class M {
            static IntChan c = new IntChan;
            static MsgChan mc;
            activate static void producer() { Msg m; send(c, 1); m.seq = 2; mc = new MsgChan; send(mc, m); }
            activate static void consumer() {
                int x; Msg m;
                select { receive(c, x) -> assert(x == 1); }
                select first { receive(mc, m) -> x = m.seq; timeout -> ; }
            }
        };"),
    ("select forms", "chan C int;
        class M {
            static C c; static bool b;
            static bool Ready() { return b; }
            activate static void main() {
                int x; int y;
                c = new C;
                select { wait(b) -> x = 1; wait(!b) -> { x = 2; } }
                select end { wait(b) -> ; }
                select end first visible { wait(Ready() && x > 0) -> return; timeout -> x = 3; }
                select visible { event(1, 2, true) -> ; receive(c, x) && receive(c, y) -> x = x + y; }
                select { [Note(1)] wait(true) && wait(b) -> goto done; }
                done: ;
            }
        };"),
    ("async calls", "class W {
            int id;
            void Run(int k) { id = k; }
            static void Go(int k) { assert(k >= 0); }
        };
        class M { activate static void main() { W w; w = new W; async w.Run(1); async W.Go(2); } };"),
    ("atomic blocks", "class M { static int x;
        activate static void main() { atomic { x = x + 1; yield; } atomic { select { wait(x > 0) -> x = 0; } } } };"),
    ("assert, assume, accept", "class M { static int x;
        activate static void main() { assume(x == 0); assert(x == 0); assert(x == 0, \"x is zero\"); accept(true); assume(true); } };"),
    ("if else while", "class M { static int x;
        activate static void main() {
            if (x == 0) x = 1; else if (x == 1) { x = 2; } else { ; }
            while (x < 10) x = x + 1;
            while (x > 100);
            while (true) { if (x > 5) goto after; x = x + 1; }
            after: x = 0;
        } };"),
    ("goto and labels out of blocks", "class M { static int x;
        activate static void main() {
            top: x = x + 1;
            atomic { if (x < 3) goto top; }
            select { wait(true) -> goto fin; }
            fin: { }
        } };"),
    ("try with raise", "class M { static int tries; static bool failed;
        static void Work() { if (tries < 2) raise Busy; raise Broken; }
        activate static void main() {
            try { Work(); } with { Busy -> tries = tries + 1; * -> { failed = true; } }
            try { raise Other; } with { Other -> ; }
        } };"),
    ("yield trace event plugins", "class M { static int x;
        activate static void main() {
            yield;
            trace(\"x is {0}\", x);
            trace(@\"#line\", 1, 2, 3, 4, 5);
            trace(@\"#file\", 0, @\"C:\\models\\m.zing\");
            event(1, 2, false);
            invokeplugin(\"plug\", x, true);
            invokescheduler(1, x);
        } };"),
    ("self, null, object", "chan C int;
        class O { int v; };
        class M {
            static object any; static O o;
            activate static void main() {
                int me = self; O p; C c;
                any = null; c = new C; any = c; c = any;
                p = null; o = new O; any = o; p = any;
                if (p == null || any != null) { me = 0; }
                if (o == p) { me = 1; }
            } };"),
    ("integer types and arithmetic", "class M {
        static byte b; static sbyte sb; static short s; static ushort us;
        static int i; static uint ui; static long l; static ulong ul;
        activate static void main() {
            b = 200; sb = -5; s = 1000; us = 60000; i = -7; ui = 4000000000; l = 5000000000; ul = 18446744073709551615;
            i = b + sb * s - us / 3 % 7;
            l = i + ui; l = l << 3; i = i >> 2; i = ~i & 0xff | 3 ^ 5;
            b = i; i = b; ul = ul + 1; ui = ui * 2u; l = 7L; ul = 3UL;
            i = -2147483648; l = -l; i = +i;
            bool t = b < i && s <= l && us > 0 && ul >= 1;
            t = t & true | false ^ !t;
        } };"),
    ("chained assignment and choose", "class Q { int v; };
        class M { static Q x; static Q y;
            activate static void main() { bool c; M.x = M.y = new Q; x = y = new Q; c = choose(bool); } };"),
    ("interfaces", "interface Shape { int Area(); void Grow(int by); };
        class Sq : Shape {
            int side;
            int Area() { return side * side; }
            void Grow(int by) { side = side + by; }
            activate static void main() { Shape s; int a; s = new Sq; s.Grow(2); a = s.Area(); }
        };"),
    ("verbatim identifiers and strings", "class M { static int @set; static bool @end;
        activate static void main() { @set = 1; @end = @set == 1; assert(@end, @\"say \"\"hi\"\"\"); } };"),
    ("preprocessor", "#define DEBUG
        #if DEBUG && !RELEASE
        class M { activate static void main() { assert(true); } };
        #else
        this is not zing
        #endif
        #region extras
        class N { static int x; };
        #endregion"),
    ("forward references and field named like a type", "struct itemsShipped { int n; };
        class M {
            static itemsShipped itemsShipped;
            activate static void main() { itemsShipped.n = Later.k; Later.Bump(); }
        };
        class Later { static int k = 2; static void Bump() { k = k + 1; } };"),
    ("recursion and non-void fall-through", "class M {
        static int Fact(int n) { int r; if (n <= 1) return 1; r = Fact(n - 1); return n * r; }
        static bool Never() { }
        activate static void main() { int f; f = Fact(5); assert(f == 120); } };"),
    ("locals reset per block and foreach over arrays", "array A[] int;
        class M { activate static void main() {
            A a; int sum; a = new A[3];
            foreach (int v in a) { int t = v; sum = sum + t; }
            { int t = 2; sum = sum + t; }
        } };"),
    ("comments and unicode names", "/* block\n comment */ class Zähler { // line comment
        static int wert; activate static void main() { wert = 1; } };"),
];

#[test]
fn every_construct_checks() {
    assert!(CONSTRUCTS.len() >= 20);
    for (what, text) in CONSTRUCTS {
        if let Err(d) = zing::check("t.zing", text) {
            panic!("{what}:\n{}", render(&Source::new("t.zing", *text), &d));
        }
    }
}

#[test]
fn choose_and_in_annotations() {
    let m = ok(&in_main(
        "        Color c; bool b; c = choose(Color); b = choose(bool);",
    ));
    let zingrs_lang::zing::ast::DeclKind::Class(c) = &m.decls[2].kind else {
        panic!()
    };
    let StmtKind::Assign { value, .. } = &c.methods[0].body.stmts[2].kind else {
        panic!()
    };
    assert_eq!(value.ty, Type::Enum(0));
}

// ---- static errors ----------------------------------------------------------------------

#[test]
fn unknown_names() {
    assert_error(&in_main("        y = 1;"), "unknown name `y`", 7, 1 + 8);
    assert_error(
        &in_main("        box.y = 1;"),
        "unknown field `y` in class `Box`",
        7,
        13,
    );
    assert_error(&in_main("        Nope n;"), "unknown type `Nope`", 7, 9);
    assert_error(
        &in_main("        g = Color.Purple;"),
        "enum `Color` has no member `Purple`",
        7,
        19,
    );
    assert_error(
        &in_main("        Missing();"),
        "unknown method `Missing` in class `M`",
        7,
        9,
    );
    assert_error(
        &in_main("        goto nowhere;"),
        "unknown label `nowhere`",
        7,
        14,
    );
}

#[test]
fn type_mismatches() {
    assert_error(
        &in_main("        g = true;"),
        "cannot assign `bool` to `int`",
        7,
        13,
    );
    assert_error(
        &in_main("        if (g) { }"),
        "condition of `if` must be `bool`",
        7,
        13,
    );
    assert_error(
        &in_main("        bool b = g + true;"),
        "operator `+` cannot be applied to `int` and `bool`",
        7,
        18,
    );
    assert_error(
        &in_main("        Color c; c = 1;"),
        "cannot assign `int` to `Color`",
        7,
        22,
    );
    assert_error(
        &in_main("        box = new Color;"),
        "cannot allocate `Color`",
        7,
        19,
    );
    assert_error(
        "struct P { int x; }; class M { static P a; static P b; activate static void main() { bool e = a == b; } };",
        "cannot compare `P` with `P`",
        1,
        95,
    );
}

#[test]
fn calls_in_the_wrong_place() {
    let prog = "class M {
    static int F() { return 1; }
    activate static void main() {
        int x;
        x = F() + 1;
    }
};";
    assert_error(
        prog,
        "method call cannot be used inside an expression",
        5,
        13,
    );
    let prog = "class M {
    static int F() { return 1; }
    activate static void main() {
        int x = F();
    }
};";
    assert_error(
        prog,
        "method call cannot be used inside an expression",
        4,
        17,
    );
    assert_error(
        &in_main("        g + 1;"),
        "only assignments and method calls",
        7,
        9,
    );
    assert_error(
        &in_main("        bool c; if (choose(bool)) { }"),
        "`choose` may only be the entire right side",
        7,
        21,
    );
}

#[test]
fn atomic_and_yield_rules() {
    let prog = "class M {
    atomic static void A() {
        yield;
    }
    activate static void main() { A(); }
};";
    assert_error(prog, "`yield` in an atomic method", 3, 9);
    let prog = "class M {
    atomic static void A() { atomic { } }
    activate static void main() { atomic { atomic { } } }
};";
    assert_error(prog, "`atomic` block inside an atomic method", 2, 30);
    assert_error(prog, "nested `atomic` block", 3, 44);
}

#[test]
fn declaration_rules() {
    assert_error(
        "class M {\n    activate void main() { }\n};",
        "`activate` method `main` must be `static`",
        2,
        19,
    );
    assert_error(
        "class M {\n    activate static int main(int a) { return a; }\n};",
        "must return `void`, take no parameters",
        2,
        25,
    );
    assert_error(
        "struct S { int x = 1; };",
        "struct fields cannot have initializers",
        1,
        20,
    );
    assert_error("enum E { a, b, a };", "duplicate member `a` in `E`", 1, 16);
    assert_error(
        "class A { };\nstruct A { int x; };",
        "duplicate type `A`",
        2,
        8,
    );
    assert_error(
        "range R 0 .. 3; array A[R] int;",
        "arrays cannot be indexed by a range type",
        1,
        25,
    );
    assert_error(
        "class M { static string s; };",
        "variables of type `string` are not supported",
        1,
        18,
    );
    assert_error(
        "class M { static float f; };",
        "type `float` is not supported",
        1,
        18,
    );
    assert_error("struct S { S next; };", "struct `S` contains itself", 1, 8);
    assert_error(
        "interface I { void m(); };\nclass C : I { };",
        "class `C` does not implement `I.m`",
        2,
        11,
    );
}

#[test]
fn statement_rules() {
    assert_error(
        &in_main("        if (g == 0) ;"),
        "possible mistaken empty statement",
        7,
        21,
    );
    assert_error(
        &in_main("        if (g == 0) { } else ;"),
        "possible mistaken empty statement",
        7,
        30,
    );
    assert_error(
        &in_main("        return 1;"),
        "a `void` method cannot return a value",
        7,
        16,
    );
    assert_error(
        "class M { static int F() { return; } };",
        "`return` needs a value of type `int`",
        1,
        28,
    );
    assert_error(
        "chan C int; class M { static C c; activate static void main() { send(c, true); } };",
        "cannot send `bool` on a channel of `int`",
        1,
        73,
    );
    assert_error(
        "chan C int; class M { static C c; activate static void main() { bool b; select { receive(c, b) -> ; } } };",
        "cannot receive `int` into `bool`",
        1,
        93,
    );
    assert_error(
        &in_main("        select { timeout -> ; timeout -> ; }"),
        "at most one `timeout`",
        7,
        31,
    );
    assert_error(
        &in_main("        select { timeout && wait(true) -> ; }"),
        "`timeout` must be the only pattern",
        7,
        18,
    );
    assert_error(
        &in_main("        select { event(1, 2, true) -> ; }"),
        "`event` patterns are only allowed in `select visible`",
        7,
        18,
    );
    assert_error(&in_main("        L: ; L: ;"), "duplicate label `L`", 7, 14);
    assert_error(
        &in_main("        goto In; { In: ; }"),
        "cannot jump into a nested block",
        7,
        14,
    );
    assert_error(
        &in_main("        try { } with { * -> ; * -> ; }"),
        "more than one `*` handler",
        7,
        31,
    );
    assert_error(
        &in_main("        int x; int x;"),
        "`x` is already declared in this block",
        7,
        20,
    );
}

#[test]
fn set_rules() {
    let prelude = "set S int; class M { static S s; static S t; activate static void main() {";
    assert_error(
        &format!("{prelude} s = t + 1; }} }};"),
        "a set can only be updated in place",
        1,
        80,
    );
    assert_error(
        &format!("{prelude} bool b = s == t; }} }};"),
        "operator `==` cannot be applied to a set",
        1,
        85,
    );
    assert_error(
        &format!("{prelude} s = s + true; }} }};"),
        "cannot add `bool` to a set of `int`",
        1,
        84,
    );
    assert_error(
        &format!("{prelude} bool b = true in s; }} }};"),
        "cannot test whether `bool` is in a set of `int`",
        1,
        85,
    );
    // Swapped difference is accepted with a warning (§10 rule 7).
    let (_, warnings) = zing::analyze("t.zing", &format!("{prelude} s = t - s; }} }};")).unwrap();
    assert!(warnings
        .iter()
        .any(|w| w.message.contains("set difference")));
}

#[test]
fn static_context_rules() {
    assert_error(
        "class M { int v; static void F() { v = 1; } };",
        "instance field `v` cannot be used in a static context",
        1,
        36,
    );
    assert_error(
        "class M { static void F() { M m; m = this; } };",
        "`this` in a static context",
        1,
        38,
    );
    assert_error(
        "class M { void G() { } static void F() { G(); } };",
        "instance method `G` cannot be called from a static context",
        1,
        42,
    );
    assert_error(
        "class M { static int s; void G() { int x; x = this.s; } };",
        "static field `s` must be accessed through its class",
        1,
        52,
    );
}

#[test]
fn call_argument_rules() {
    let prog = "class M {
    static void F(int a, out int b) { b = a; }
    activate static void main() {
        int r;
        F(1);
        F(1, r);
        F(true, out r);
    }
};";
    assert_error(prog, "`F` takes 2 arguments, 1 given", 5, 9);
    assert_error(prog, "parameter `b` is an `out` parameter", 6, 14);
    assert_error(
        prog,
        "argument 1 of `F`: cannot convert `bool` to `int`",
        7,
        11,
    );
}

#[test]
fn lexical_errors() {
    assert_error(
        "class M { static int x = 1.5; };",
        "real numbers are not supported",
        1,
        26,
    );
    assert_error("class M { /* open ", "unterminated block comment", 1, 11);
    assert_error(
        "class M { static int x = 'a'; };",
        "unexpected character",
        1,
        26,
    );
    assert_error(
        "class M { static int x = 99999999999999999999; };",
        "too large",
        1,
        26,
    );
    assert_error(
        "class M { activate static void main() { trace(\"abc); } };",
        "unterminated string",
        1,
        47,
    );
}

#[test]
fn syntax_errors() {
    assert_error("class M { int x };", "expected `;`, found `}`", 1, 17);
    assert_error(
        "class M { };\nclass N { }",
        "declarations end with `};`",
        2,
        11,
    );
    assert_error(
        "class M { activate static void main() { C c = new C(); } }; class C { };",
        "`new` takes no parentheses",
        1,
        52,
    );
    assert_error("class M { static int set; };", "found keyword `set`", 1, 22);
    assert_error(
        &in_main("        g = g +;"),
        "expected an expression, found `;`",
        7,
        16,
    );
}

#[test]
fn three_independent_syntax_errors_are_all_reported() {
    let text = "class M {
    static int x
    activate static void main() {
        x = (1 + ;
        if x > 0 { x = 0; }
    }
};
class N { static bool b = ; };
";
    let diags = errs(text);
    assert!(
        diags.len() >= 3,
        "{}",
        render(&Source::new("t.zing", text), &diags)
    );
}

#[test]
fn many_type_errors_at_once() {
    let text =
        in_main("        g = true;\n        box.zz = 1;\n        if (3) { }\n        unknown = 2;");
    assert_eq!(errs(&text).len(), 4);
}

#[test]
fn diagnostics_render_with_file_line_col() {
    let text = in_main("        box.y = 1;");
    let out = render(&Source::new("m.zing", &text), &errs(&text));
    assert!(out.contains("m.zing:7:13"), "{out}");
    assert!(out.contains("unknown field `y` in class `Box`"), "{out}");
}

#[test]
fn more_expression_rules() {
    let prelude = "array D[] int; set S int;
class C {
    int v;
    bool Busy() { v = 1; return true; }
    activate static void main() {
        C c; D d; S s; int x; bool ok;";
    let end = "\n    }\n};";
    let at = |stmt: &str| format!("{prelude}\n        {stmt}{end}");
    assert_error(
        &at("c = new C; select { wait(c.Busy()) -> ; }"),
        "`Busy` is called in `wait`, so it must not write",
        4,
        19,
    );
    assert_error(&at("async x;"), "`async` needs a method call", 7, 15);
    assert_error(&at("d = new D;"), "`new D` needs a size", 7, 17);
    assert_error(
        &at("x = sizeof(x);"),
        "`sizeof` needs a channel, set or array, found `int`",
        7,
        20,
    );
    assert_error(
        &at("x = choose(x);"),
        "cannot `choose` from a value of type `int`",
        7,
        20,
    );
    // `in` takes the whole expression to its left (§5.1).
    assert_error(
        &at("s = new S; ok = ok && x in s;"),
        "cannot test whether `bool` is in a set of `int`",
        7,
        25,
    );
    assert_error(&at("x = c.Busy;"), "method `C.Busy` used as a value", 7, 15);
    assert_error(
        &at("ok = x == null;"),
        "cannot compare `int` with `object`",
        7,
        14,
    );
}

#[test]
fn in_binds_as_the_spec_says() {
    // `x + 1 in s && ok` is `((x + 1) in s) && ok`.
    let m = ok("set S int; class M { static S s; activate static void main() { int x; bool ok; s = new S; ok = x + 1 in s && ok; } };");
    let zingrs_lang::zing::ast::DeclKind::Class(c) = &m.decls[1].kind else {
        panic!()
    };
    let StmtKind::Assign { value, .. } = &c.methods[0].body.stmts[3].kind else {
        panic!()
    };
    let ExprKind::Binary(_, l, _) = &value.kind else {
        panic!("&& at the top")
    };
    assert!(matches!(l.kind, ExprKind::In(..)));
}
