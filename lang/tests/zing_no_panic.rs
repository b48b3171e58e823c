//! Robustness: no input makes the Zing front end panic or overflow its stack.

use proptest::prelude::*;
use zingrs_lang::zing;

/// Valid models covering most of the grammar, mutated by the fuzzer.
const SEEDS: &[&str] = &[
    "enum E { a, b, };
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
    static C ch = new C;
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
        trace(\"r={0}\", r); trace(@\"#line\", 1);
        invokeplugin(\"p\", r); invokescheduler();
        assert(r >= 0, \"neg\"); assume(true); accept(b);
        fin: ;
    }
};
",
    "class Foo {
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
        if (i < 10) {
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
",
];

/// Token texts inserted by the mutator.
const POOL: &[&str] = &[
    "class",
    "struct",
    "interface",
    "enum",
    "range",
    "chan",
    "set",
    "array",
    "static",
    "atomic",
    "activate",
    "void",
    "int",
    "bool",
    "byte",
    "object",
    "string",
    "float",
    "out",
    "new",
    "choose",
    "sizeof",
    "in",
    "this",
    "self",
    "null",
    "true",
    "false",
    "if",
    "else",
    "while",
    "foreach",
    "goto",
    "return",
    "send",
    "select",
    "end",
    "first",
    "visible",
    "wait",
    "receive",
    "timeout",
    "event",
    "try",
    "with",
    "raise",
    "yield",
    "trace",
    "accept",
    "assert",
    "assume",
    "async",
    "invokeplugin",
    "invokescheduler",
    "typeof",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ".",
    "..",
    ":",
    "->",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "<<",
    ">>",
    "+",
    "-",
    "*",
    "/",
    "%",
    "!",
    "~",
    "&",
    "|",
    "^",
    "&&",
    "||",
    "@",
    "@\"",
    "\"",
    "/*",
    "*/",
    "//",
    "#if X",
    "#endif",
    "#define Y",
    "0",
    "1",
    "0x1F",
    "4294967296",
    "1.5",
    "x",
    "M",
    "main",
    "E",
    "a",
    "\n",
    "'",
];

#[derive(Clone, Debug)]
enum Mutation {
    DeleteToken(usize),
    DuplicateToken(usize),
    SwapTokens(usize, usize),
    InsertToken(usize, usize),
    DeleteByte(usize),
    InsertByte(usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteToken),
        any::<usize>().prop_map(Mutation::DuplicateToken),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapTokens(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::InsertToken(a, b)),
        any::<usize>().prop_map(Mutation::DeleteByte),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::InsertByte(a, b)),
    ]
}

/// The texts of a valid model's tokens.
fn words(text: &str) -> Vec<String> {
    let toks = zing::lexer::lex(text).expect("seed lexes");
    toks.iter()
        .map(|t| text[t.span.start as usize..t.span.end as usize].to_string())
        .collect()
}

fn apply(seed: &str, muts: &[Mutation]) -> String {
    let mut toks = words(seed);
    let mut bytes_phase = Vec::new();
    for m in muts {
        let n = toks.len().max(1);
        match m {
            Mutation::DeleteToken(i) if !toks.is_empty() => {
                toks.remove(i % n);
            }
            Mutation::DuplicateToken(i) if !toks.is_empty() => {
                let t = toks[i % n].clone();
                toks.insert(i % n, t);
            }
            Mutation::SwapTokens(a, b) if !toks.is_empty() => toks.swap(a % n, b % n),
            Mutation::InsertToken(i, p) => {
                toks.insert(i % (toks.len() + 1), POOL[p % POOL.len()].to_string())
            }
            _ => bytes_phase.push(m),
        }
    }
    let mut bytes = toks.join(" ").into_bytes();
    for m in bytes_phase {
        match m {
            Mutation::DeleteByte(i) if !bytes.is_empty() => {
                let n = bytes.len();
                bytes.remove(i % n);
            }
            Mutation::InsertByte(i, b) => {
                let n = bytes.len() + 1;
                bytes.insert(i % n, *b)
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn check(text: &str) {
    if let Err(diags) = zing::check("fuzz.zing", text) {
        assert!(!diags.is_empty());
        assert!(diags.iter().any(|d| d.is_error()));
        assert!(diags.len() <= 60, "{} diagnostics", diags.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_soup_never_panics(picks in proptest::collection::vec(any::<usize>(), 0..150)) {
        let text: Vec<&str> = picks.iter().map(|p| POOL[p % POOL.len()]).collect();
        check(&text.join(" "));
    }

    #[test]
    fn mutated_seeds_never_panic(
        seed in 0..SEEDS.len(),
        muts in proptest::collection::vec(mutation(), 1..8),
    ) {
        check(&apply(SEEDS[seed], &muts));
    }
}

#[test]
fn seeds_check_unmutated() {
    for text in SEEDS {
        let joined = apply(text, &[]);
        if let Err(d) = zing::check("seed.zing", &joined) {
            panic!("{d:?}");
        }
    }
}

#[track_caller]
fn deep(text: String) {
    assert!(zing::check("deep.zing", &text).is_err());
}

#[track_caller]
fn deep_ok(text: String) {
    if let Err(d) = zing::check("deep.zing", &text) {
        panic!("{:?}", d.first());
    }
}

fn in_main(body: &str) -> String {
    format!("class M {{ static int x; static bool b; activate static void main() {{ {body} }} }};")
}

/// Nesting of any depth is accepted (the parser once stopped at 400 levels); deep input that
/// is wrong is a diagnostic, never a crash.
#[test]
fn deeply_nested_input_is_checked_not_a_crash() {
    const N: usize = 100_000;
    deep("(".repeat(N));
    deep(in_main(&format!("x = {}x;", "(".repeat(N))));
    deep_ok(in_main(&format!("x = {}x;", "-".repeat(N))));
    deep_ok(in_main(&format!("x = {}x;", "- ".repeat(N))));
    deep_ok(in_main(&format!("b = {}b;", "!".repeat(N))));
    deep_ok(in_main(&format!("x = {};", vec!["x"; N].join(" + "))));
    // `x in x` needs a set on the right
    deep(in_main(&format!("b = {};", vec!["x"; N].join(" in "))));
    // an int has no field `f` and no elements
    deep(in_main(&format!("x = x{};", ".f".repeat(N))));
    deep(in_main(&format!("x = x{};", "[0]".repeat(N))));
    deep(in_main(&"{".repeat(N)));
    deep_ok(in_main(&format!(
        "{}x = 1;{}",
        "{".repeat(N),
        "}".repeat(N)
    )));
    deep(in_main(&"if (b) ".repeat(N)));
    deep_ok(in_main(&format!("{}x = 1;", "while (b) ".repeat(N))));
    // the same label declared twice
    deep(in_main(&format!("{}x = 1;", "L: ".repeat(N))));
    deep(in_main(&format!("{}x = 1;", "atomic { ".repeat(N))));
    deep(in_main(&"select { wait(b) -> ".repeat(N)));
}

#[test]
fn long_flat_input_is_fine() {
    let body: String = (0..20_000)
        .map(|i| format!("L{i}: x = x + {i};\n"))
        .collect();
    let m = zing::check("long.zing", &in_main(&body)).expect("checks");
    assert_eq!(m.decls.len(), 1);
}
