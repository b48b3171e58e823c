//! Front-end tests for boolean programs: every construct lowers to the expected IR shape, and
//! every static error (E1–E15) and lexical error is reported at the right place.

mod common;

use zingrs_lang::diag::{render, Diagnostic, Severity};
use zingrs_lang::ir::{
    BinOp, Const, Expr, Init, LValue, Layout, Node, Proc, Program, Source, Stmt, UnOp,
};
use zingrs_lang::{compile, Lang};

// ---- helpers ----------------------------------------------------------------------------

fn ok(text: &str) -> Program {
    match compile("t.bp", text, Lang::Bp) {
        Ok(c) => c.program,
        Err(d) => panic!(
            "expected success, got:\n{}",
            render(&Source::new("t.bp", text), &d)
        ),
    }
}

fn errs(text: &str) -> Vec<Diagnostic> {
    match compile("t.bp", text, Lang::Bp) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(d) => d,
    }
}

/// Asserts that compiling fails with `code` at `line:col`.
fn assert_error(text: &str, code: &str, line: u32, col: u32) -> Diagnostic {
    let diags = errs(text);
    let src = Source::new("t.bp", text);
    let found = diags
        .iter()
        .find(|d| d.code.as_deref() == Some(code) && d.is_error())
        .unwrap_or_else(|| panic!("no {code} in:\n{}", render(&src, &diags)));
    assert_eq!(
        src.line_col(found.span.start),
        (line, col),
        "{code} at the wrong place:\n{}",
        render(&src, &diags)
    );
    found.clone()
}

/// Asserts a lexical or syntax error (no code) at `line:col` whose message contains `msg`.
fn assert_plain_error(text: &str, msg: &str, line: u32, col: u32) {
    let diags = errs(text);
    let src = Source::new("t.bp", text);
    let d = diags
        .iter()
        .find(|d| d.message.contains(msg))
        .unwrap_or_else(|| panic!("no `{msg}` in:\n{}", render(&src, &diags)));
    assert_eq!(src.line_col(d.span.start), (line, col));
}

fn proc<'a>(p: &'a Program, name: &str) -> &'a Proc {
    &p.procs[p.proc_by_name(name).expect("procedure") as usize]
}

fn main_nodes(p: &Program) -> &[Node] {
    &proc(p, "main").nodes
}

/// The single value of the first assignment in `main` that targets local `slot`.
fn rhs(p: &Program, nth: usize) -> Expr {
    rhs_ref(p, nth).clone()
}

fn rhs_ref(p: &Program, nth: usize) -> &Expr {
    let assigns: Vec<&Node> = main_nodes(p)
        .iter()
        .filter(|n| matches!(n.stmt, Stmt::Assign { .. }))
        .collect();
    match &assigns[nth].stmt {
        Stmt::Assign { values, .. } => &values[0],
        _ => unreachable!(),
    }
}

fn labelled<'a>(p: &'a Proc, label: &str) -> (usize, &'a Node) {
    p.nodes
        .iter()
        .enumerate()
        .find(|(_, n)| n.labels.iter().any(|l| l == label))
        .unwrap_or_else(|| panic!("no label {label}"))
}

fn t() -> Expr {
    Expr::Const(Const::Bool(true))
}
fn f() -> Expr {
    Expr::Const(Const::Bool(false))
}
fn l(i: u32) -> Expr {
    Expr::Local(i)
}
fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::bin(op, a, b)
}

/// Every successor of every node is a valid pc, and node 0 exists.
fn well_formed(p: &Program) {
    for pr in &p.procs {
        assert!(!pr.nodes.is_empty());
        for n in &pr.nodes {
            for &s in &n.succ {
                assert!(
                    (s as usize) < pr.nodes.len(),
                    "dangling successor in {}",
                    pr.name
                );
            }
        }
        assert!(matches!(pr.nodes.last().unwrap().stmt, Stmt::Return { .. }));
    }
}

fn exprs_main(body: &str) -> Program {
    ok(&format!("void main() begin decl a, b, c, x, y; {body} end"))
}

// ---- expressions ------------------------------------------------------------------------

#[test]
fn equality_binds_tighter_than_and() {
    let p = exprs_main("x := a & b = F;");
    assert_eq!(rhs(&p, 0), bin(BinOp::And, l(0), bin(BinOp::Eq, l(1), f())));
}

#[test]
fn implication_is_left_associative() {
    let p = exprs_main("x := F => F => F;");
    assert_eq!(
        rhs(&p, 0),
        bin(BinOp::Implies, bin(BinOp::Implies, f(), f()), f())
    );
}

#[test]
fn xor_binds_tighter_than_or() {
    let p = exprs_main("x := T | T ^ T;");
    assert_eq!(rhs(&p, 0), bin(BinOp::Or, t(), bin(BinOp::Xor, t(), t())));
}

#[test]
fn full_precedence_ladder() {
    // a => b | c ^ a & b = !c   groups as   a => (b | (c ^ (a & (b = !c))))
    let p = exprs_main("x := a => b | c ^ a & b = !c;");
    let expected = bin(
        BinOp::Implies,
        l(0),
        bin(
            BinOp::Or,
            l(1),
            bin(
                BinOp::Xor,
                l(2),
                bin(BinOp::And, l(0), bin(BinOp::Eq, l(1), Expr::not(l(2)))),
            ),
        ),
    );
    assert_eq!(rhs(&p, 0), expected);
}

#[test]
fn negation_binds_tighter_than_equality_and_repeats() {
    let p = exprs_main("x := !a = b; y := ~~!a;");
    assert_eq!(rhs(&p, 0), bin(BinOp::Eq, Expr::not(l(0)), l(1)));
    assert_eq!(rhs(&p, 1), Expr::not(Expr::not(Expr::not(l(0)))));
}

#[test]
fn operator_aliases() {
    let p = exprs_main("x := a == b; x := a != b; x := a && b; x := a || b; x := 0 | 1;");
    assert_eq!(rhs(&p, 0), bin(BinOp::Eq, l(0), l(1)));
    assert_eq!(rhs(&p, 1), bin(BinOp::Ne, l(0), l(1)));
    assert_eq!(rhs(&p, 2), bin(BinOp::And, l(0), l(1)));
    assert_eq!(rhs(&p, 3), bin(BinOp::Or, l(0), l(1)));
    assert_eq!(rhs(&p, 4), bin(BinOp::Or, f(), t()));
}

#[test]
fn binary_operators_are_left_associative() {
    let p = exprs_main("x := a & b & c; y := a = b != c;");
    assert_eq!(
        rhs(&p, 0),
        bin(BinOp::And, bin(BinOp::And, l(0), l(1)), l(2))
    );
    assert_eq!(rhs(&p, 1), bin(BinOp::Ne, bin(BinOp::Eq, l(0), l(1)), l(2)));
}

#[test]
fn question_mark_is_nondet_in_operand_position_and_conditional_after_one() {
    let p = exprs_main("x := ?; x := a ? ? : *; x := ? ? a : b; x := a & ?;");
    assert_eq!(rhs(&p, 0), Expr::Nondet);
    assert_eq!(
        rhs(&p, 1),
        Expr::Ite(
            Box::new(l(0)),
            Box::new(Expr::Nondet),
            Box::new(Expr::Nondet)
        )
    );
    assert_eq!(
        rhs(&p, 2),
        Expr::Ite(Box::new(Expr::Nondet), Box::new(l(0)), Box::new(l(1)))
    );
    assert_eq!(rhs(&p, 3), bin(BinOp::And, l(0), Expr::Nondet));
}

#[test]
fn conditional_is_loosest_and_right_associative() {
    let p = exprs_main("x := a => b ? c : a ? b : c;");
    let inner = Expr::Ite(Box::new(l(0)), Box::new(l(1)), Box::new(l(2)));
    assert_eq!(
        rhs(&p, 0),
        Expr::Ite(
            Box::new(bin(BinOp::Implies, l(0), l(1))),
            Box::new(l(2)),
            Box::new(inner)
        )
    );
}

#[test]
fn schoose_and_nondet_anywhere() {
    let p = exprs_main("x := schoose[a, !b]; y := a & schoose[*, F] | *;");
    assert_eq!(
        rhs(&p, 0),
        Expr::Schoose(Box::new(l(0)), Box::new(Expr::not(l(1))))
    );
    assert_eq!(
        rhs(&p, 1),
        bin(
            BinOp::Or,
            bin(
                BinOp::And,
                l(0),
                Expr::Schoose(Box::new(Expr::Nondet), Box::new(f()))
            ),
            Expr::Nondet
        )
    );
}

#[test]
fn parentheses_group() {
    let p = exprs_main("x := (a | b) & c;");
    assert_eq!(
        rhs(&p, 0),
        bin(BinOp::And, bin(BinOp::Or, l(0), l(1)), l(2))
    );
    let Expr::Unary(UnOp::Not, _) = rhs(&exprs_main("x := !(a);"), 0) else {
        panic!()
    };
}

#[test]
fn globals_and_locals_resolve_locals_first() {
    let p = ok("decl g, x; void main() begin decl x; x := g; end");
    match &main_nodes(&p)[0].stmt {
        Stmt::Assign {
            targets, values, ..
        } => {
            assert_eq!(targets, &vec![Some(LValue::Local(0))]);
            assert_eq!(values, &vec![Expr::Global(0)]);
        }
        s => panic!("{s:?}"),
    }
}

// ---- statements -------------------------------------------------------------------------

#[test]
fn if_elsif_else_chain() {
    let p = ok("decl a, b; void main() begin
        if a then a := F; elsif (b) then b := F; else skip; fi;
        skip;
    end");
    let n = main_nodes(&p);
    // 0 Branch a, 1 a:=F, 2 Branch b, 3 b:=F, 4 skip(else), 5 skip, 6 return
    assert!(matches!(
        n[0].stmt,
        Stmt::Branch {
            cond: Expr::Global(0)
        }
    ));
    assert_eq!(n[0].succ, vec![1, 2]);
    assert_eq!(n[1].succ, vec![5]);
    assert!(matches!(
        n[2].stmt,
        Stmt::Branch {
            cond: Expr::Global(1)
        }
    ));
    assert_eq!(n[2].succ, vec![3, 4]);
    assert_eq!(n[3].succ, vec![5]);
    assert_eq!(n[4].succ, vec![5]);
    assert_eq!(n[5].succ, vec![6]);
    assert!(matches!(n[6].stmt, Stmt::Return { .. }));
    well_formed(&p);
}

#[test]
fn empty_branches_flow_past_fi() {
    let p = ok("decl a; void main() begin if (a) then else fi skip; end");
    let n = main_nodes(&p);
    assert_eq!(n[0].succ, vec![1, 1]);
    let p = ok("decl a; void main() begin if a then fi end");
    assert_eq!(main_nodes(&p)[0].succ, vec![1, 1]);
    let p = ok("decl a; void main() begin if a then elsif !a then a := T else fi end");
    let n = main_nodes(&p);
    assert_eq!(n[0].succ, vec![3, 1]);
    assert_eq!(n[1].succ, vec![2, 3]);
    well_formed(&p);
}

#[test]
fn if_without_else_goes_on_after_fi() {
    let p = ok("decl a; void main() begin if a then skip fi; a := T end");
    let n = main_nodes(&p);
    assert_eq!(n[0].succ, vec![1, 2]);
    assert_eq!(n[1].succ, vec![2]);
}

#[test]
fn while_loops_back() {
    let p = ok("decl a; void main() begin L: while a do a := *; skip od; skip; end");
    let n = main_nodes(&p);
    assert!(matches!(n[0].stmt, Stmt::Branch { .. }));
    assert_eq!(n[0].labels, vec!["L"]);
    assert_eq!(n[0].succ, vec![1, 3]);
    assert_eq!(n[1].succ, vec![2]);
    assert_eq!(n[2].succ, vec![0]);
    assert_eq!(n[3].succ, vec![4]);
    let p = ok("void main() begin while * do od; end");
    assert_eq!(main_nodes(&p)[0].succ, vec![0, 1]);
    well_formed(&p);
}

#[test]
fn goto_several_targets_and_numeric_labels() {
    let p = ok("void main() begin
        goto A, 7, B;
        A: B2: skip;
        7: skip;
        B: goto A;
    end");
    let n = main_nodes(&p);
    assert!(matches!(n[0].stmt, Stmt::Goto));
    assert_eq!(n[0].succ, vec![1, 2, 3]);
    assert_eq!(n[1].labels, vec!["A", "B2"]);
    assert_eq!(n[2].labels, vec!["7"]);
    assert_eq!(n[3].succ, vec![1]);
    well_formed(&p);
}

#[test]
fn repeated_label_on_one_statement_is_harmless() {
    let p = ok("void main() begin L: L: skip; goto L; end");
    assert_eq!(main_nodes(&p)[0].labels, vec!["L"]);
    assert_eq!(main_nodes(&p)[1].succ, vec![0]);
}

#[test]
fn duplicate_label_allowed_when_not_a_target() {
    let p = ok("void main() begin SLIC_ERROR: skip; SLIC_ERROR: skip; end");
    assert!(p.has_label("SLIC_ERROR"));
}

#[test]
fn parallel_assignment_with_constraint_and_discard() {
    let p = ok("decl p, q; void main() begin decl r;
        p, q := *, * constrain 'p != 'q & r;
        _, r := p, q;
    end");
    match &main_nodes(&p)[0].stmt {
        Stmt::Assign {
            targets,
            values,
            constrain: Some(c),
        } => {
            assert_eq!(
                targets,
                &vec![Some(LValue::Global(0)), Some(LValue::Global(1))]
            );
            assert_eq!(values, &vec![Expr::Nondet, Expr::Nondet]);
            assert_eq!(
                c,
                &bin(
                    BinOp::And,
                    bin(BinOp::Ne, Expr::PrimedGlobal(0), Expr::PrimedGlobal(1)),
                    l(0)
                )
            );
        }
        s => panic!("{s:?}"),
    }
    match &main_nodes(&p)[1].stmt {
        Stmt::Assign { targets, .. } => assert_eq!(targets, &vec![None, Some(LValue::Local(0))]),
        s => panic!("{s:?}"),
    }
}

#[test]
fn calls_with_receivers_discards_and_ignored_results() {
    let p = ok("decl g;
    bool<3> h(a, b) begin return a, b, *; end
    bool one() begin return T; end
    void main() begin decl x, y;
        x, _, y := h(g, !x);
        x := one();
        one();
        h(T, F);
    end");
    let n = main_nodes(&p);
    let h = p.proc_by_name("h").unwrap();
    let one = p.proc_by_name("one").unwrap();
    match &n[0].stmt {
        Stmt::Call {
            callee,
            args,
            results,
        } => {
            assert_eq!(*callee, h);
            assert_eq!(args, &vec![Expr::Global(0), Expr::not(l(0))]);
            assert_eq!(
                results,
                &vec![Some(LValue::Local(0)), None, Some(LValue::Local(1))]
            );
        }
        s => panic!("{s:?}"),
    }
    assert!(
        matches!(&n[1].stmt, Stmt::Call { callee, results, .. } if *callee == one && results.len() == 1)
    );
    assert!(matches!(&n[2].stmt, Stmt::Call { results, .. } if results.is_empty()));
    assert!(matches!(&n[3].stmt, Stmt::Call { results, .. } if results.is_empty()));
    assert_eq!(proc(&p, "h").returns.len(), 3);
    assert_eq!(proc(&p, "h").params, 2);
}

#[test]
fn returns_and_falling_off_the_end() {
    let p = ok("bool b() begin if * then return; fi return T; end
    bool<2> b2() begin skip end
    void v() begin return; end
    void main() begin end");
    let b = &proc(&p, "b").nodes;
    assert!(matches!(&b[1].stmt, Stmt::Return { values: None }));
    assert!(b[1].succ.is_empty());
    assert!(matches!(&b[2].stmt, Stmt::Return { values: Some(v) } if v == &vec![t()]));
    assert!(matches!(&b[3].stmt, Stmt::Return { values: None }));
    let b2 = &proc(&p, "b2").nodes;
    assert!(matches!(
        &b2.last().unwrap().stmt,
        Stmt::Return { values: None }
    ));
    let v = &proc(&p, "v").nodes;
    assert!(matches!(&v[0].stmt, Stmt::Return { values: Some(x) } if x.is_empty()));
    let m = main_nodes(&p);
    assert_eq!(m.len(), 1, "empty body: node 0 is the implicit return");
    assert!(matches!(&m[0].stmt, Stmt::Return { values: Some(x) } if x.is_empty()));
}

#[test]
fn assert_assume_abortif_constrain_dead_print_sync_skip() {
    let p = ok("decl g, h; void main() begin
        assert(g); assume h; abortif g; constrain('h = h); dead g, h;
        print(g, h); sync s; skip;
    end");
    let n = main_nodes(&p);
    assert!(matches!(&n[0].stmt, Stmt::Assert { cond } if *cond == Expr::Global(0)));
    assert!(matches!(&n[1].stmt, Stmt::Assume { cond } if *cond == Expr::Global(1)));
    assert!(matches!(&n[2].stmt, Stmt::Assert { cond } if *cond == Expr::not(Expr::Global(0))));
    assert!(matches!(&n[3].stmt, Stmt::Constrain { expr }
        if *expr == bin(BinOp::Eq, Expr::PrimedGlobal(1), Expr::Global(1))));
    assert!(matches!(&n[4].stmt, Stmt::Havoc { targets }
        if targets == &vec![LValue::Global(0), LValue::Global(1)]));
    assert!(matches!(n[5].stmt, Stmt::Skip));
    assert!(matches!(n[6].stmt, Stmt::Skip));
    assert!(matches!(n[7].stmt, Stmt::Skip));
    assert_eq!(n.len(), 9);
}

#[test]
fn contextual_words_are_names_elsewhere() {
    let p = ok("decl sync, wait, abortif, thread_local, dfs;
    void broadcast() begin end
    void main() begin
        sync := T; wait, abortif := F, T; broadcast(); thread_local := dfs;
        abortif wait;
    end");
    let n = main_nodes(&p);
    assert!(matches!(n[0].stmt, Stmt::Assign { .. }));
    assert!(matches!(n[1].stmt, Stmt::Assign { .. }));
    assert!(matches!(n[2].stmt, Stmt::Call { .. }));
    assert!(matches!(&n[4].stmt, Stmt::Assert { cond } if *cond == Expr::not(Expr::Global(1))));
}

#[test]
fn thread_statements() {
    let p = ok("decl g; void w(a) begin g := a; end
    void main() begin
        start_thread w(T);
        start_thread goto L;
        atomic_begin; g := F; atomic_end;
        end_thread;
        L: skip;
    end");
    let n = main_nodes(&p);
    let w = p.proc_by_name("w").unwrap();
    assert!(
        matches!(&n[0].stmt, Stmt::StartThread { callee, args } if *callee == w && args == &vec![t()])
    );
    assert!(matches!(n[1].stmt, Stmt::StartThreadGoto));
    assert_eq!(n[1].succ, vec![2, 6]);
    assert!(matches!(n[2].stmt, Stmt::AtomicBegin));
    assert!(matches!(n[4].stmt, Stmt::AtomicEnd));
    assert!(matches!(n[5].stmt, Stmt::EndThread));
    assert!(n[5].succ.is_empty());
    assert!(p.is_concurrent());
    well_formed(&p);
}

#[test]
fn async_label_makes_call_a_thread() {
    let p = ok("void w() begin end
    bool r() begin end
    void main() begin decl x;
        A: ASYNC_7: w();
        ASYNC_8: x := r();
    end");
    let n = main_nodes(&p);
    assert!(matches!(n[0].stmt, Stmt::StartThread { .. }));
    assert_eq!(n[0].labels, vec!["A", "ASYNC_7"]);
    assert!(
        matches!(n[1].stmt, Stmt::Call { .. }),
        "receivers keep it a call"
    );
}

#[test]
fn procedure_forms_and_global_declarations() {
    let p = ok("decl a := T, b := 0, c := *, d := ?, e;
    f() begin end
    dfs void g() begin end
    dfs bool<1> h() begin end
    void main() begin end
    decl thread_local tl := 1;
    decl late;");
    assert_eq!(p.globals.len(), 7);
    assert_eq!(p.globals[0].init, Init::Value(Const::Bool(true)));
    assert_eq!(p.globals[1].init, Init::Value(Const::Bool(false)));
    assert_eq!(p.globals[2].init, Init::Any);
    assert_eq!(p.globals[3].init, Init::Any);
    assert_eq!(p.globals[4].init, Init::Any);
    assert!(p.globals[5].thread_local);
    assert_eq!(p.globals[5].init, Init::Value(Const::Bool(true)));
    assert!(!p.globals[6].thread_local);
    assert!(proc(&p, "f").returns.is_empty());
    assert!(proc(&p, "g").returns.is_empty());
    assert_eq!(proc(&p, "h").returns.len(), 1);
    let names: Vec<&str> = p.procs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["f", "g", "h", "main"]);
    assert_eq!(p.activations, vec![3]);
    assert!(matches!(p.layout, Layout::Standard));
}

#[test]
fn global_used_before_its_declaration() {
    let p = ok("void main() begin g := T; end decl g;");
    assert!(
        matches!(&main_nodes(&p)[0].stmt, Stmt::Assign { targets, .. }
        if targets == &vec![Some(LValue::Global(0))])
    );
}

#[test]
fn locals_formals_first_then_head_then_mid_body() {
    let p = ok(
        "void f(x, y) begin decl a, b := F; skip; decl c; if * then decl d := T; fi end
    void main() begin end",
    );
    let f = proc(&p, "f");
    let names: Vec<&str> = f.locals.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, vec!["x", "y", "a", "b", "c", "d"]);
    assert_eq!(f.params, 2);
    assert_eq!(f.locals[3].init, Init::Value(Const::Bool(false)));
    let n = &f.nodes;
    assert!(matches!(n[0].stmt, Stmt::Skip));
    assert!(matches!(&n[1].stmt, Stmt::Havoc { targets } if targets == &vec![LValue::Local(4)]));
    assert!(matches!(&n[3].stmt, Stmt::Assign { targets, values, .. }
        if targets == &vec![Some(LValue::Local(5))] && values == &vec![t()]));
}

#[test]
fn mid_body_decl_with_star_is_havoc() {
    let p = ok("void main() begin skip; decl c := *; c := !c; end");
    assert!(matches!(&main_nodes(&p)[1].stmt, Stmt::Havoc { targets } if targets.len() == 1));
}

#[test]
fn head_enforce_is_on_every_node() {
    let p = ok("decl g, h; void main() begin decl x; enforce g; enforce !h;
        if x then skip; fi
    end");
    let inv = bin(BinOp::And, Expr::Global(0), Expr::not(Expr::Global(1)));
    for n in main_nodes(&p) {
        assert_eq!(n.invariant.as_ref(), Some(&inv));
    }
    assert_eq!(main_nodes(&p).len(), 3);
}

#[test]
fn mid_body_enforce_scopes_to_rest_of_its_list() {
    let p = ok("decl g, h; void main() begin
        skip;
        if * then
            skip;
            enforce h;
            while * do skip od;
        fi
        skip;
    end
    void other() begin skip; end");
    let n = main_nodes(&p);
    // 0 skip, 1 branch, 2 skip, 3 assume h, 4 branch(while), 5 skip, 6 skip, 7 return
    assert!(n[0].invariant.is_none());
    assert!(n[2].invariant.is_none());
    assert!(matches!(&n[3].stmt, Stmt::Assume { cond } if *cond == Expr::Global(1)));
    assert!(n[3].invariant.is_none());
    assert_eq!(n[4].invariant, Some(Expr::Global(1)));
    assert_eq!(n[5].invariant, Some(Expr::Global(1)));
    assert!(n[6].invariant.is_none());
    assert!(n[7].invariant.is_none());
    assert!(proc(&p, "other")
        .nodes
        .iter()
        .all(|n| n.invariant.is_none()));
}

#[test]
fn many_mid_body_enforces_stay_shallow() {
    let body: String = (0..1000).map(|_| "enforce g; ").collect();
    let p = ok(&format!("decl g; void main() begin skip; {body} skip; end"));
    fn depth(e: &Expr) -> usize {
        match e {
            Expr::Binary(_, a, b) => 1 + depth(a).max(depth(b)),
            _ => 1,
        }
    }
    let last = &main_nodes(&p)[1001];
    assert!(depth(last.invariant.as_ref().unwrap()) <= 12);
}

#[test]
fn node_spans() {
    let text = "decl g; void main() begin
  L: if (g) then g := F; fi
  while !g do skip od
end";
    let p = ok(text);
    let n = main_nodes(&p);
    assert_eq!(p.source.snippet(n[0].span), "if (g)");
    assert_eq!(p.source.snippet(n[1].span), "g := F");
    assert_eq!(p.source.snippet(n[2].span), "while !g");
    let ret = n.last().unwrap();
    assert_eq!(p.source.snippet(ret.span), "end");
    assert_eq!(p.line_of(0, (n.len() - 1) as u32), 4);
}

#[test]
fn optional_semicolons() {
    let p = ok("void main() begin
        ;; skip ;;
        if * then skip else skip fi
        if * then skip elsif * then skip fi;
        while * do skip od;
        L1: skip
    end");
    well_formed(&p);
    // skip; branch skip skip; branch skip branch skip; branch skip; skip; return
    assert_eq!(main_nodes(&p).len(), 12);
}

#[test]
fn names_comments_and_brace_names() {
    let p = ok("// leading
    decl {a == b}, c$$x, n#1.x-y, $d; /* block
    comment */ void c$$main() begin end
    void main() begin {a == b} := c$$x & n#1.x-y | $d; c$$main(); end // trailing");
    assert_eq!(p.globals[0].name, "{a == b}");
    assert_eq!(p.globals[2].name, "n#1.x-y");
    assert!(p.proc_by_name("c$$main").is_some());
}

#[test]
fn local_hiding_a_global_is_a_warning() {
    let c = compile(
        "t.bp",
        "decl g; void main() begin decl g; g := T; end",
        Lang::Bp,
    )
    .expect("compiles");
    assert_eq!(c.warnings.len(), 1);
    assert_eq!(c.warnings[0].severity, Severity::Warning);
    assert!(c.warnings[0].message.contains("hides"));
}

#[test]
fn getafix_layout() {
    let p = ok("decl atomic, g;
    void init() begin g := F; endinit: skip; end
    void thread1() begin atomic := T; atomic := F; end
    void THREAD_two() begin SLIC_ERROR: skip; end
    void thread() begin end");
    match &p.layout {
        Layout::Getafix {
            init,
            endinit,
            threads,
        } => {
            assert_eq!(*init, p.proc_by_name("init").unwrap());
            assert_eq!(*endinit, 1);
            assert_eq!(
                threads,
                &vec![
                    p.proc_by_name("thread1").unwrap(),
                    p.proc_by_name("THREAD_two").unwrap()
                ]
            );
        }
        l => panic!("{l:?}"),
    }
    assert!(p.activations.is_empty());
    let p = ok(
        "void init() begin endinit: skip; end void thread1() begin end
        void main() begin end",
    );
    match &p.layout {
        Layout::Getafix { threads, .. } => assert_eq!(threads, &vec![1, 2]),
        l => panic!("{l:?}"),
    }
    // Without `endinit` it is an ordinary program and needs `main`.
    assert_error(
        "void init() begin skip; end void thread1() begin end",
        "E12",
        1,
        1,
    );
}

#[test]
fn appendix_a_programs_compile() {
    for (name, text) in common::APPENDIX_A {
        let c = compile(name, text, Lang::Bp)
            .unwrap_or_else(|d| panic!("{name}:\n{}", render(&Source::new(*name, *text), &d)));
        assert!(c.warnings.is_empty(), "{name} has warnings");
        well_formed(&c.program);
        assert_eq!(c.program.activations.len(), 1);
    }
}

#[test]
fn appendix_a19_shape() {
    let text = common::APPENDIX_A
        .iter()
        .find(|(n, _)| *n == "A19")
        .unwrap()
        .1;
    let p = ok(text);
    let m = proc(&p, "main");
    let (w, _) = labelled(m, "W");
    let (z, _) = labelled(m, "Z");
    let stg = m
        .nodes
        .iter()
        .find(|n| matches!(n.stmt, Stmt::StartThreadGoto))
        .unwrap();
    assert_eq!(stg.succ[1] as usize, w);
    let goto = m
        .nodes
        .iter()
        .find(|n| matches!(n.stmt, Stmt::Goto))
        .unwrap();
    assert_eq!(goto.succ, vec![z as u32]);
}

// ---- static errors ----------------------------------------------------------------------

#[test]
fn e1_undeclared_variable() {
    let d = assert_error("void main() begin\n  x := T;\nend", "E1", 2, 3);
    assert!(d.message.contains("undeclared variable `x`"));
    assert_error("void main() begin\n  skip;\n  assume(y);\nend", "E1", 3, 10);
    // A mid-body declaration is visible only after it.
    assert_error("void main() begin\n  z := T;\n  decl z;\nend", "E1", 2, 3);
}

#[test]
fn e2_undefined_procedure() {
    let d = assert_error("void main() begin\n  nope(T);\nend", "E2", 2, 3);
    assert!(d.message.contains("`nope`"));
    assert_error(
        "void main() begin\n  start_thread gone();\nend",
        "E2",
        2,
        16,
    );
}

#[test]
fn e3_argument_count() {
    let d = assert_error(
        "void f(a, b) begin end\nvoid main() begin\n  f(T, F, T);\nend",
        "E3",
        3,
        3,
    );
    assert_eq!(d.message, "procedure `f` expects 2 arguments, got 3");
}

#[test]
fn e4_receiver_count() {
    let d = assert_error(
        "bool f() begin end\nvoid main() begin decl a, b;\n  a, b := f();\nend",
        "E4",
        3,
        11,
    );
    assert_eq!(d.message, "`f` returns 1 value but 2 receivers are given");
    assert_error(
        "void f() begin end\nvoid main() begin decl a;\n  a := f();\nend",
        "E4",
        3,
        8,
    );
}

#[test]
fn e5_return_count() {
    assert_error("void main() begin\n  return T;\nend", "E5", 2, 3);
    assert_error(
        "bool<2> f() begin\n  return T;\nend\nvoid main() begin end",
        "E5",
        2,
        3,
    );
}

#[test]
fn e6_bad_goto_targets() {
    let d = assert_error("void main() begin\n  goto Nowhere;\nend", "E6", 2, 8);
    assert!(d.message.contains("Nowhere"));
    let d = assert_error(
        "void main() begin\n  L: skip;\n  L: skip;\n  goto L;\nend",
        "E6",
        4,
        8,
    );
    assert!(d
        .message
        .contains("duplicate label `L` used as a goto target"));
    assert!(d.notes[0].contains("2, 3"));
    assert_error(
        "void main() begin\n  start_thread goto M;\nend",
        "E6",
        2,
        21,
    );
    // Labels are local to their procedure.
    assert_error(
        "void f() begin X: skip; end\nvoid main() begin\n  goto X;\nend",
        "E6",
        3,
        8,
    );
}

#[test]
fn e7_duplicates() {
    let d = assert_error("decl a;\ndecl a;\nvoid main() begin end", "E7", 2, 6);
    assert!(d.notes.iter().any(|n| n.contains("t.bp:1:6")));
    assert_error("void f(a, a) begin end\nvoid main() begin end", "E7", 1, 11);
    assert_error(
        "void f(a) begin decl a; end\nvoid main() begin end",
        "E7",
        1,
        22,
    );
    assert_error("void main() begin end\nvoid main() begin end", "E7", 2, 6);
    assert_error(
        "void main() begin decl x; skip;\n  if * then decl x; fi\nend",
        "E7",
        2,
        18,
    );
}

#[test]
fn e8_repeated_target() {
    assert_error(
        "decl g; void main() begin\n  g, g := T, F;\nend",
        "E8",
        2,
        6,
    );
    let p = ok("decl g; void main() begin _, _, g := T, F, T; end");
    well_formed(&p);
}

#[test]
fn e9_primes() {
    assert_error("decl g; void main() begin\n  g := 'g;\nend", "E9", 2, 8);
    assert_error("decl g; void main() begin\n  assume('g);\nend", "E9", 2, 10);
    assert_error(
        "decl g; void main() begin\n  g := * constrain '_;\nend",
        "E9",
        2,
        20,
    );
}

#[test]
fn e10_schoose_arity() {
    let d = assert_error(
        "decl g; void main() begin\n  g := schoose[g, g, g];\nend",
        "E10",
        2,
        8,
    );
    assert!(d.message.contains("got 3"));
    assert_error(
        "decl g; void main() begin\n  g := schoose[g];\nend",
        "E10",
        2,
        8,
    );
}

#[test]
fn e11_numbers() {
    assert_error("decl g; void main() begin\n  g := 2;\nend", "E11", 2, 8);
    assert_error("bool<0> f() begin end\nvoid main() begin end", "E11", 1, 1);
}

#[test]
fn e12_no_main() {
    let d = assert_error("void f() begin end", "E12", 1, 1);
    assert!(d.message.contains("no procedure `main`"));
}

#[test]
fn e13_underscore_and_constants() {
    assert_error("decl g; void main() begin\n  g := _;\nend", "E13", 2, 8);
    assert_error("decl T;\nvoid main() begin end", "E13", 1, 6);
    assert_error("void main() begin\n  decl F;\nend", "E13", 2, 8);
    assert_error(
        "void f(a) begin end\nvoid main() begin\n  f(_);\nend",
        "E13",
        3,
        5,
    );
    assert_error("void main(_) begin end", "E13", 1, 11);
}

#[test]
fn e14_wait_and_broadcast() {
    assert_error("void main() begin\n  wait;\nend", "E14", 2, 3);
    assert_error("void main() begin\n  skip;\n  broadcast;\nend", "E14", 3, 3);
}

#[test]
fn e15_start_thread_forms() {
    assert_error(
        "decl g; void f() begin end\nvoid main() begin\n  start_thread g := T;\nend",
        "E15",
        3,
        16,
    );
    assert_error("void main() begin\n  start_thread skip;\nend", "E15", 2, 16);
}

#[test]
fn all_errors_are_reported() {
    let diags = errs("void main() begin\n  x := T;\n  y := T;\n  nope();\nend");
    let codes: Vec<_> = diags.iter().filter_map(|d| d.code.as_deref()).collect();
    assert_eq!(codes, vec!["E1", "E1", "E2"]);
}

// ---- lexical and syntax errors ----------------------------------------------------------

#[test]
fn lexical_errors() {
    assert_plain_error(
        "void main() begin\n  skip; @\nend",
        "unexpected character",
        2,
        9,
    );
    assert_plain_error(
        "decl a;\n  /* open\nvoid main() begin end",
        "unterminated",
        2,
        3,
    );
    assert_plain_error(
        "decl {abc;\nvoid main() begin end",
        "unterminated brace name",
        1,
        6,
    );
    assert_plain_error("decl a % b;", "unexpected character", 1, 8);
    let d = errs("decl a; @ % void main() begin end");
    assert_eq!(d.len(), 2, "both bad characters are reported");
}

#[test]
fn syntax_error_messages() {
    let diags = errs("void main() begin\n  skip\n  skip;\nend");
    assert_eq!(diags[0].message, "expected `;`, found `skip`");
    assert_eq!(diags[0].label, "expected `;`");
    assert_plain_error(
        "void main() begin\n  x := ;\nend",
        "expected an expression",
        2,
        8,
    );
    assert_plain_error(
        "void main() begin\n  if x then skip;\nend",
        "expected `fi`, found `end`",
        3,
        1,
    );
    assert_plain_error(
        "void main() begin\n  L: end",
        "expected a statement after the label",
        2,
        6,
    );
    assert_plain_error(
        "bool f() begin end\nvoid main() begin decl x;\n  x := f() constrain x;\nend",
        "expected `;`, found `constrain`",
        3,
        12,
    );
}

#[test]
fn three_independent_syntax_errors() {
    let text = "void f() begin
  x := ;
  skip;
end
void g() begin
  if then skip; fi
end
void main() begin
  goto ;
  skip;
end";
    let diags = errs(text);
    assert_eq!(
        diags.len(),
        3,
        "{}",
        render(&Source::new("t.bp", text), &diags)
    );
    let src = Source::new("t.bp", text);
    let lines: Vec<u32> = diags.iter().map(|d| src.line_col(d.span.start).0).collect();
    assert_eq!(lines, vec![2, 6, 9]);
}

#[test]
fn missing_end_recovers_at_next_procedure() {
    let diags = errs("void f() begin skip;\nvoid main() begin x := T; end");
    assert_eq!(diags.len(), 1);
    assert!(diags[0].message.contains("expected `end`"));
}

#[test]
fn too_many_errors_are_capped() {
    let body: String = (0..200).map(|_| "x := ;\n").collect();
    let diags = errs(&format!("void main() begin\n{body}end"));
    assert!(diags.len() <= 51 && diags.len() >= 50);
}

#[test]
fn nesting_limits() {
    let ifs = format!("{}skip;{}", "if * then ".repeat(200), " fi".repeat(200));
    ok(&format!("void main() begin {ifs} end"));
}

/// The height of an IR expression, counted without recursion.
fn height(e: &Expr) -> usize {
    let mut work = vec![(e, 1)];
    let mut max = 0;
    while let Some((e, h)) = work.pop() {
        max = max.max(h);
        match e {
            Expr::Unary(_, a) => work.push((a, h + 1)),
            Expr::Binary(_, a, b) | Expr::Schoose(a, b) => {
                work.push((a, h + 1));
                work.push((b, h + 1));
            }
            Expr::Ite(c, a, b) => {
                work.extend([(&**c, h + 1), (&**a, h + 1), (&**b, h + 1)]);
            }
            _ => {}
        }
    }
    max
}

/// Expressions of any depth parse and lower (Moped reads a 400-term XOR chain; 256 levels was
/// once the limit): long operator chains, deep parentheses, prefix chains and right-nested
/// conditionals, up to 100,000 levels, on a test thread's small stack.
#[test]
fn expressions_of_any_depth_compile() {
    for n in [400, 10_000, 100_000] {
        let chain = vec!["a"; n].join(" ^ ");
        let p = ok(&format!("void main() begin decl a; a := {chain}; end"));
        assert_eq!(height(rhs_ref(&p, 0)), n, "xor chain of {n}");
        let parens = format!("{}a{}", "(".repeat(n), ")".repeat(n));
        let p = ok(&format!("void main() begin decl a; a := {parens}; end"));
        assert_eq!(rhs_ref(&p, 0), &l(0), "{n} parentheses");
        let nots = format!("{}a", "!".repeat(n));
        let p = ok(&format!("void main() begin decl a; a := {nots}; end"));
        assert_eq!(height(rhs_ref(&p, 0)), n + 1, "{n} negations");
        let right = format!("{}a{}", "a & (".repeat(n), ")".repeat(n));
        let p = ok(&format!("void main() begin decl a; a := {right}; end"));
        assert_eq!(height(rhs_ref(&p, 0)), n + 1, "right-nested and of {n}");
        let ites = format!("{}a", "a ? a : ".repeat(n));
        let p = ok(&format!("void main() begin decl a; a := {ites}; end"));
        assert_eq!(height(rhs_ref(&p, 0)), n + 1, "{n} conditionals");
        // a deep expression in an error is still reported, not a crash
        let d = errs(&format!("void main() begin decl a; a := {chain} ^ b; end"));
        assert!(d[0].message.contains("`b`"), "{}", d[0].message);
    }
}

#[test]
fn render_shows_position_and_caret() {
    let text = "void main() begin\n  x := T;\nend";
    let diags = errs(text);
    let out = render(&Source::new("file.bp", text), &diags);
    assert!(out.contains("file.bp:2:3"), "{out}");
    assert!(out.contains('^'), "{out}");
    assert!(out.contains("E1"), "{out}");
}

#[test]
fn missing_separators_are_reported_once_and_parsing_goes_on() {
    let diags = errs("void main() begin decl x, y;\n  x := T\n  y := F;\n  x := ;\nend");
    assert_eq!(diags.len(), 2);
    assert_eq!(diags[0].message, "expected `;`, found `y`");
    assert!(diags[1].message.contains("expected an expression"));
    let diags = errs("decl x; void main() begin\n  if x skip; fi\n  while x skip; od\nend");
    assert_eq!(diags.len(), 2);
    assert_eq!(diags[0].message, "expected `then`, found `skip`");
    assert_eq!(diags[1].message, "expected `do`, found `skip`");
    // A broken condition does not hide errors in the branch.
    let diags = errs("void main() begin\n  if := then x := ; fi\nend");
    assert_eq!(diags.len(), 2);
}

#[test]
fn warnings_accompany_errors() {
    let diags = errs("decl g; void main() begin decl g; h := T; end");
    assert!(diags.iter().any(|d| d.severity == Severity::Warning));
    assert!(diags.iter().any(|d| d.code.as_deref() == Some("E1")));
}

#[test]
fn bool_type_spelling_and_dfs_without_type() {
    let p = ok("bool < 2 > two() begin return T, F; end dfs main() begin end");
    assert_eq!(proc(&p, "two").returns.len(), 2);
    assert!(proc(&p, "main").returns.is_empty());
}

#[test]
fn thread_local_only_on_globals() {
    let diags = errs("void main() begin decl thread_local x; end");
    assert!(diags[0].message.contains("thread_local"));
    let p = ok("decl thread_local; void main() begin thread_local := T; end");
    assert!(!p.globals[0].thread_local);
}
