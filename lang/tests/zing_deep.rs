//! Zing expressions and statements of any depth parse, check and lower (the parser once
//! refused more than 400 nested levels): operator chains, nested parentheses, prefix chains,
//! nested blocks and nested `if`/`while`, 5,000 levels deep and more, on a test thread's
//! stack. Deep input that is wrong is still a diagnostic, never a crash.

use zingrs_lang::diag::{render, Diagnostic};
use zingrs_lang::ir::{Expr, Program, Source, Stmt};
use zingrs_lang::{compile, Lang};

fn in_main(body: &str) -> String {
    format!("class M {{ static int x; static bool b; activate static void main() {{ {body} }} }};")
}

fn lower(text: &str) -> Program {
    match compile("deep.zing", text, Lang::Zing) {
        Ok(c) => c.program,
        Err(d) => panic!(
            "expected the model to compile, got:\n{}",
            render(&Source::new("deep.zing", &text[..text.len().min(200)]), &d)
        ),
    }
}

fn errors(text: &str) -> Vec<Diagnostic> {
    match compile("deep.zing", text, Lang::Zing) {
        Ok(_) => panic!("expected diagnostics"),
        Err(d) => d,
    }
}

/// The value of the first assignment in the program.
fn first_assigned(p: &Program) -> &Expr {
    p.procs
        .iter()
        .flat_map(|proc| proc.nodes.iter())
        .find_map(|n| match &n.stmt {
            Stmt::Assign { values, .. } => values.first(),
            _ => None,
        })
        .expect("an assignment")
}

/// The number of operator levels on the longest path from the root (without recursion).
fn height(e: &Expr) -> usize {
    let mut max = 0;
    let mut work = vec![(e, 1usize)];
    while let Some((e, h)) = work.pop() {
        max = max.max(h);
        match e {
            Expr::Arith(_, _, a, b) | Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) => {
                work.extend([(&**a, h + 1), (&**b, h + 1)]);
            }
            Expr::Unary(_, a) | Expr::Neg(_, a) | Expr::Convert(_, a) => work.push((&**a, h + 1)),
            Expr::Ite(c, a, b) => work.extend([(&**c, h + 1), (&**a, h + 1), (&**b, h + 1)]),
            _ => {}
        }
    }
    max
}

/// The number of nodes of the program's procedures (every statement is at least one).
fn nodes(p: &Program) -> usize {
    p.procs.iter().map(|proc| proc.nodes.len()).sum()
}

#[test]
fn expressions_5000_deep_and_deeper_compile() {
    for n in [401, 5_000, 100_000] {
        // a left-nested chain: n - 1 additions
        let chain = vec!["x"; n].join(" + ");
        let p = lower(&in_main(&format!("x = {chain};")));
        assert!(height(first_assigned(&p)) >= n, "chain of {n}");
        // right-nested through parentheses
        let right = format!("{}x{}", "1 + (".repeat(n), ")".repeat(n));
        let p = lower(&in_main(&format!("x = {right};")));
        assert!(height(first_assigned(&p)) > n, "right-nested {n}");
        // prefix chains
        let negs = format!("{}x", "- ".repeat(n));
        let p = lower(&in_main(&format!("x = {negs};")));
        assert!(height(first_assigned(&p)) >= n, "{n} negations");
        let nots = format!("{}b", "!".repeat(n));
        let p = lower(&in_main(&format!("b = {nots};")));
        assert!(height(first_assigned(&p)) > n, "{n} negations");
        // parentheses alone add no level
        let parens = format!("{}x{}", "(".repeat(n), ")".repeat(n));
        let p = lower(&in_main(&format!("x = {parens} + 1;")));
        assert!(height(first_assigned(&p)) < 5, "{n} parentheses");
    }
}

#[test]
fn statements_5000_deep_and_deeper_compile() {
    for n in [401, 5_000, 50_000] {
        let blocks = format!("{}x = 1;{}", "{ ".repeat(n), " }".repeat(n));
        let p = lower(&in_main(&blocks));
        assert!(nodes(&p) >= 2, "{n} blocks");
        let ifs = format!("{}x = 1;", "if (b) ".repeat(n));
        let p = lower(&in_main(&ifs));
        assert!(nodes(&p) >= n, "{n} nested ifs");
        let whiles = format!("{}x = 1;", "while (b) ".repeat(n));
        let p = lower(&in_main(&whiles));
        assert!(nodes(&p) >= n, "{n} nested whiles");
        let elses = format!("{}x = 1;", "if (b) x = 2; else ".repeat(n));
        let p = lower(&in_main(&elses));
        assert!(nodes(&p) >= 2 * n, "{n} else-ifs");
    }
}

#[test]
fn deep_wrong_input_is_still_a_diagnostic() {
    let n = 5_000;
    // an undeclared name at the bottom of a deep expression
    let chain = format!("{} + y", vec!["x"; n].join(" + "));
    let d = errors(&in_main(&format!("x = {chain};")));
    assert!(d.iter().any(|d| d.message.contains("`y`")), "{d:?}");
    // a type error deep inside blocks: a bool assigned to an int
    let blocks = format!("{}x = true;{}", "{ ".repeat(n), " }".repeat(n));
    assert!(!errors(&in_main(&blocks)).is_empty());
    // unbalanced
    assert!(!errors(&in_main(&"{ ".repeat(n))).is_empty());
    assert!(!errors(&in_main(&format!("x = {}x;", "(".repeat(n)))).is_empty());
}
