//! Boolean-program expressions of any depth are checked end to end on every engine.

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{err, with_stdin};

/// `assert(a ^ a ^ ... ^ a)` with `n` terms after `a := T`: the chain is T for odd `n` and F
/// for even `n` (x ^ x = F), so the check passes for odd `n` and fails for even `n`.
fn xor_chain_model(n: usize) -> String {
    let chain = vec!["a"; n].join(" ^ ");
    format!("decl a;\nvoid main() begin\n  a := T;\n  assert({chain});\nend\n")
}

/// Expressions of any depth are checked on every engine (256 nested operators was once the
/// limit, and deeper trees overflowed the stack): XOR chains of 400, 10,000 and 100,000 terms
/// and 100,000 parentheses, with the verdict derived by hand.
#[test]
fn deep_expressions_are_checked_on_every_engine() {
    for n in [400, 10_000, 100_000] {
        for (terms, code) in [(n, 3), (n + 1, 0)] {
            let model = xor_chain_model(terms);
            for engine in ["explicit", "summary", "bdd"] {
                let o = with_stdin(
                    &["check", "-", "--lang", "bp", "--engine", engine, "-q"],
                    &model,
                );
                assert_eq!(
                    o.status.code(),
                    Some(code),
                    "{terms} terms, {engine}: {}",
                    err(&o)
                );
            }
        }
    }
    // `assert(!(((...(a)...))))` inside 100,000 parentheses fails (a is T)
    let n = 100_000;
    let model = format!(
        "decl a;\nvoid main() begin\n  a := T;\n  assert(!{}a{});\nend\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    for engine in ["explicit", "summary", "bdd"] {
        let o = with_stdin(&["check", "-", "--lang", "bp", "--engine", engine], &model);
        assert_eq!(o.status.code(), Some(3), "{engine}: {}", err(&o));
    }
    // the whole pipeline with a trace and JSON: printing, replay, the report
    let o = with_stdin(
        &["check", "-", "--lang", "bp", "--format", "json"],
        &xor_chain_model(100_000),
    );
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
}

/// Syntax trees whose every level has an operator below it (100,001 nested `!`, 20,000 nested
/// `?:` and `schoose`) are built, lowered and dropped without recursing as deep as they are:
/// the drop moves only children with children to its work list, and these trees have one at
/// every level. `!` nested an odd number of times negates `a` (T), so the assertion fails; the
/// `?:` and `schoose` nest can be T (every `schoose` may pick `a`), so its negation can fail.
#[test]
fn deep_unary_and_ternary_nests_are_checked() {
    let nots = format!(
        "decl a;\nvoid main() begin\n  a := T;\n  assert({}a);\nend\n",
        "!".repeat(100_001)
    );
    let mut nest = String::from("a");
    for i in 0..20_000 {
        nest = if i % 2 == 1 {
            format!("schoose[a, {nest}]")
        } else {
            format!("(a ? {nest} : F)")
        };
    }
    let nest = format!("decl a;\nvoid main() begin\n  a := T;\n  assert(!({nest}));\nend\n");
    for model in [&nots, &nest] {
        for engine in ["explicit", "bdd"] {
            let o = with_stdin(
                &["check", "-", "--lang", "bp", "--engine", engine, "-q"],
                model,
            );
            assert_eq!(o.status.code(), Some(3), "{engine}: {}", err(&o));
        }
    }
}
