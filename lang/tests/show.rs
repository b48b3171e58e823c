//! Expressions written back as source text (`Program::show`): in the model's own syntax, with
//! only the parentheses precedence needs and fields by name, and read back to the same IR.

use proptest::prelude::*;
use zingrs_lang::ir::{Expr, Program, Stmt};
use zingrs_lang::{compile, Lang};

const BP_DECLS: &str = "decl a, b, c;\n";
const ZING_DECLS: &str = "class Node { int val; Node next; bool ok; };\n\
    struct P { int x; int y; };\n\
    array Arr[4] int;\n\
    array Ps[2] P;\n\
    class Main {\n  static int g;\n  static activate void main() {\n\
    int x; int y; bool p; bool q; Node n; Arr a; Ps ps;\n\
    n = new Node; n.next = new Node; a = new Arr; ps = new Ps;\n";

fn program(lang: Lang, cond: &str) -> Program {
    let text = match lang {
        Lang::Bp => format!("{BP_DECLS}void main() begin assert({cond}); end\n"),
        Lang::Zing => format!("{ZING_DECLS}    assert({cond});\n  }}\n}};\n"),
    };
    let name = if lang == Lang::Bp { "t.bp" } else { "t.zing" };
    match compile(name, &text, lang) {
        Ok(c) => c.program,
        Err(d) => panic!("{text}: {d:?}"),
    }
}

/// The first assertion's condition, and the procedure it is in.
fn assertion(p: &Program) -> (u32, &Expr) {
    for (i, proc) in p.procs.iter().enumerate() {
        for n in &proc.nodes {
            if let Stmt::Assert { cond } = &n.stmt {
                return (i as u32, cond);
            }
        }
    }
    panic!("no assertion");
}

/// `cond` as `show` writes it.
fn shown(lang: Lang, cond: &str) -> String {
    let p = program(lang, cond);
    let (proc, e) = assertion(&p);
    p.show(proc, e).to_string()
}

/// What `show` writes reads back to the same IR.
fn round_trip(lang: Lang, cond: &str) {
    let p = program(lang, cond);
    let (proc, e) = assertion(&p);
    let text = p.show(proc, e).to_string();
    let q = program(lang, &text);
    assert_eq!(assertion(&q).1, e, "{cond} was shown as {text}");
}

#[test]
fn boolean_programs_keep_only_the_parentheses_precedence_needs() {
    for (src, want) in [
        ("((a & b) | c)", "a & b | c"),
        ("(a & (b | c))", "a & (b | c)"),
        ("(a & (b = F))", "a & b = F"),
        ("((a & b) = F)", "(a & b) = F"),
        ("(!(a) & b)", "!a & b"),
        ("!(a & b)", "!(a & b)"),
        ("((a => b) => c)", "a => b => c"),
        ("(a => (b => c))", "a => (b => c)"),
        ("(a ^ (b ^ c))", "a ^ (b ^ c)"),
        ("((a | b) ^ c)", "(a | b) ^ c"),
        ("(a ? b : (c ? a : b))", "a ? b : c ? a : b"),
        ("((a ? b : c) ? a : b)", "(a ? b : c) ? a : b"),
        ("schoose[(a & b), c] != T", "schoose[a & b, c] != T"),
    ] {
        assert_eq!(shown(Lang::Bp, src), want, "{src}");
        round_trip(Lang::Bp, src);
    }
}

#[test]
fn zing_expressions_are_written_in_zing_with_field_names() {
    for (src, want) in [
        ("((x + 1) * 2) == 4", "(x + 1) * 2 == 4"),
        ("(x + (1 * 2)) == 4", "x + 1 * 2 == 4"),
        ("(x - (y - 1)) < 0", "x - (y - 1) < 0"),
        ("((x - y) - 1) < 0", "x - y - 1 < 0"),
        ("(p && (q || p))", "p && (q || p)"),
        ("((p && q) || p)", "p && q || p"),
        ("n.next.val == x", "n.next.val == x"),
        ("n.next.ok", "n.next.ok"),
        ("a[(x + 1)] == -(-x)", "a[x + 1] == -(-x)"),
        ("ps[1].y > ps[0].x", "ps[1].y > ps[0].x"),
        ("(p == q) != true", "p == q != true"),
        ("((x & y) == 0)", "(x & y) == 0"),
        ("(x << 2) + 1 > 0", "(x << 2) + 1 > 0"),
        ("Main.g + x > 0", "Main.g + x > 0"),
        ("!(p) && (x / y) % 3 == 0", "!p && x / y % 3 == 0"),
    ] {
        assert_eq!(shown(Lang::Zing, src), want, "{src}");
        round_trip(Lang::Zing, src);
    }
}

/// Random fully parenthesized boolean expressions over `a`, `b`, `c`.
fn bp_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just("c".to_string()),
        Just("T".to_string()),
        Just("F".to_string()),
    ];
    leaf.prop_recursive(6, 48, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|x| format!("!({x})")),
            (inner.clone(), 0..6usize, inner.clone()).prop_map(|(x, op, y)| {
                let op = ["&", "|", "^", "=", "!=", "=>"][op];
                format!("({x} {op} {y})")
            }),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, x, y)| format!("({c} ? {x} : {y})")),
            (inner.clone(), inner).prop_map(|(x, y)| format!("schoose[{x}, {y}]")),
        ]
    })
}

/// Random fully parenthesized Zing `int` expressions.
fn zing_int() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("x".to_string()),
        Just("y".to_string()),
        Just("n.val".to_string()),
        Just("n.next.val".to_string()),
        Just("Main.g".to_string()),
        (0..5i32).prop_map(|i| i.to_string()),
    ];
    leaf.prop_recursive(5, 32, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|x| format!("-({x})")),
            inner.clone().prop_map(|x| format!("~({x})")),
            inner.clone().prop_map(|x| format!("a[({x})]")),
            (inner.clone(), 0..10usize, inner).prop_map(|(x, op, y)| {
                let op = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"][op];
                format!("({x} {op} {y})")
            }),
        ]
    })
}

/// Random fully parenthesized Zing `bool` expressions.
fn zing_bool() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("p".to_string()),
        Just("q".to_string()),
        Just("n.ok".to_string()),
        Just("true".to_string()),
        (zing_int(), 0..6usize, zing_int()).prop_map(|(x, op, y)| {
            let op = ["<", "<=", ">", ">=", "==", "!="][op];
            format!("({x} {op} {y})")
        }),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|x| format!("!({x})")),
            (inner.clone(), 0..7usize, inner).prop_map(|(x, op, y)| {
                let op = ["&&", "||", "&", "|", "^", "==", "!="][op];
                format!("({x} {op} {y})")
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn boolean_program_expressions_read_back_to_the_same_ir(e in bp_expr()) {
        round_trip(Lang::Bp, &e);
    }

    #[test]
    fn zing_expressions_read_back_to_the_same_ir(e in zing_bool()) {
        round_trip(Lang::Zing, &e);
    }
}
