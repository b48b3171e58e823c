//! Robustness: no input makes the boolean-program front end panic or overflow its stack, and
//! whatever it accepts is a well-formed IR.

mod common;

use proptest::prelude::*;
use zingrs_lang::ir::Program;
use zingrs_lang::{compile, Lang};

/// Token texts inserted by the mutator: keywords, operators and troublemakers.
const POOL: &[&str] = &[
    "begin",
    "end",
    "decl",
    "void",
    "bool",
    "bool<2>",
    "if",
    "then",
    "else",
    "elsif",
    "fi",
    "while",
    "do",
    "od",
    "goto",
    "skip",
    "return",
    "assert",
    "assume",
    "print",
    "enforce",
    "constrain",
    "schoose",
    "dead",
    "start_thread",
    "end_thread",
    "atomic_begin",
    "atomic_end",
    "thread_local",
    "dfs",
    "abortif",
    "sync",
    "wait",
    "broadcast",
    ":=",
    "=>",
    "!=",
    "==",
    "&&",
    "||",
    "!",
    "~",
    "&",
    "|",
    "^",
    "=",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    ":",
    "*",
    "?",
    "<",
    ">",
    "'",
    "T",
    "F",
    "0",
    "1",
    "2",
    "_",
    "x",
    "main",
    "L:",
    "ASYNC_1:",
    "{p q}",
    "/*",
    "*/",
    "//",
    "{",
    "}",
    "@",
    "\n",
    "endinit",
    "init",
    "thread1",
];

/// One edit of a seed program.
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

/// The texts of a valid program's tokens (comments dropped).
fn words(text: &str) -> Vec<String> {
    let toks = zingrs_lang::bp::lexer::lex(text).expect("seed lexes");
    toks.iter()
        .map(|t| text[t.span.start as usize..t.span.end as usize].to_string())
        .collect()
}

fn apply(seed: &str, muts: &[Mutation]) -> String {
    let mut toks = words(seed);
    let mut bytes_phase: Vec<&Mutation> = Vec::new();
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

/// Every successor is a node of the same procedure; every procedure has an entry node.
fn assert_well_formed(p: &Program) {
    for pr in &p.procs {
        assert!(!pr.nodes.is_empty());
        assert!(pr.params as usize <= pr.locals.len());
        for n in &pr.nodes {
            for &s in &n.succ {
                assert!((s as usize) < pr.nodes.len(), "dangling successor");
            }
        }
    }
    for &a in &p.activations {
        assert!((a as usize) < p.procs.len());
    }
}

fn check(text: &str) {
    if let Ok(c) = compile("fuzz.bp", text, Lang::Bp) {
        assert_well_formed(&c.program);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_soup_never_panics(picks in proptest::collection::vec(any::<usize>(), 0..120)) {
        let text: Vec<&str> = picks.iter().map(|p| POOL[p % POOL.len()]).collect();
        check(&text.join(" "));
    }

    #[test]
    fn mutated_seeds_never_panic(
        seed in 0..common::APPENDIX_A.len(),
        muts in proptest::collection::vec(mutation(), 1..8),
    ) {
        check(&apply(common::APPENDIX_A[seed].1, &muts));
    }
}

#[test]
fn seeds_compile_unmutated() {
    for (name, text) in common::APPENDIX_A {
        assert!(compile(name, &apply(text, &[]), Lang::Bp).is_ok(), "{name}");
    }
}

fn deep(text: String) {
    assert!(compile("deep.bp", &text, Lang::Bp).is_err());
}

fn deep_ok(text: String) {
    assert!(compile("deep.bp", &text, Lang::Bp).is_ok());
}

/// Unclosed or too deeply nested statements are errors; well-formed expressions of any depth
/// compile. Neither crashes.
#[test]
fn deeply_nested_input_is_an_error_not_a_crash() {
    const N: usize = 100_000;
    deep("(".repeat(N));
    deep(format!("void main() begin x := {}x; end", "(".repeat(N)));
    deep_ok(format!(
        "decl x; void main() begin x := {}x; end",
        "!".repeat(N)
    ));
    deep_ok(format!(
        "decl x; void main() begin x := {}; end",
        vec!["x"; N].join(" & ")
    ));
    deep_ok(format!(
        "decl x; void main() begin x := {}x; end",
        "x ? x : ".repeat(N)
    ));
    deep(format!("void main() begin {} end", "if * then ".repeat(N)));
    deep(format!(
        "void main() begin {}skip;{} end",
        "if * then ".repeat(N),
        " fi".repeat(N)
    ));
    deep(format!("void main() begin {} end", "while * do ".repeat(N)));
    deep("if ".repeat(N));
    deep_ok(format!(
        "decl x; void main() begin x := {}x{}; end",
        "schoose[".repeat(N),
        ", x]".repeat(N)
    ));
}

#[test]
fn long_flat_input_is_fine() {
    let body: String = (0..20_000).map(|i| format!("L{i}: x := !x;\n")).collect();
    let c = compile(
        "long.bp",
        &format!("decl x; void main() begin {body} end"),
        Lang::Bp,
    )
    .expect("compiles");
    assert_eq!(c.program.procs[0].nodes.len(), 20_001);
}
