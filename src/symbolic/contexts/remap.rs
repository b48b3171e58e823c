//! Renaming the globals of a program (the context copies and the other added globals come
//! before them in the variable order).

use zingrs_lang::ir::{Expr, LValue, Program, Stmt};

/// Renames the globals an expression mentions.
fn remap_expr(e: &mut Expr, map: &[u32]) {
    zingrs_lang::deep::grow(|| remap_expr_here(e, map))
}

fn remap_expr_here(e: &mut Expr, map: &[u32]) {
    match e {
        Expr::Global(i) | Expr::PrimedGlobal(i) => *i = map[*i as usize],
        Expr::Unary(_, a)
        | Expr::Field(a, _)
        | Expr::Neg(_, a)
        | Expr::BitNot(_, a)
        | Expr::Convert(_, a)
        | Expr::Size(a, _)
        | Expr::ClassIs(a, _) => remap_expr(a, map),
        Expr::Binary(_, a, b)
        | Expr::Schoose(a, b)
        | Expr::Arith(_, _, a, b)
        | Expr::Cmp(_, a, b)
        | Expr::Elem(a, b, _)
        | Expr::In(a, b) => {
            remap_expr(a, map);
            remap_expr(b, map);
        }
        Expr::Ite(c, a, b) => {
            remap_expr(c, map);
            remap_expr(a, map);
            remap_expr(b, map);
        }
        Expr::Call(_, args) => args.iter_mut().for_each(|a| remap_expr(a, map)),
        Expr::Const(_)
        | Expr::Local(_)
        | Expr::PrimedLocal(_)
        | Expr::PassiveLocal(_)
        | Expr::PrimedPassiveLocal(_)
        | Expr::Nondet
        | Expr::SelfId => {}
    }
}

fn remap_lvalue(lv: &mut LValue, map: &[u32]) {
    match lv {
        LValue::Global(i) => *i = map[*i as usize],
        LValue::Local(_) | LValue::PassiveLocal(_) => {}
        LValue::Field(e, _) => remap_expr(e, map),
        LValue::Elem(a, b, _) => {
            remap_expr(a, map);
            remap_expr(b, map);
        }
    }
}

/// Renames the globals of every statement and invariant (the statements [`applies`] admits).
pub(super) fn remap_program(p: &mut Program, map: &[u32]) {
    for q in &mut p.procs {
        for n in &mut q.nodes {
            if let Some(inv) = &mut n.invariant {
                remap_expr(inv, map);
            }
            match &mut n.stmt {
                Stmt::Branch { cond } | Stmt::Assume { cond } | Stmt::Assert { cond } => {
                    remap_expr(cond, map)
                }
                Stmt::Constrain { expr } => remap_expr(expr, map),
                Stmt::Assign {
                    targets,
                    values,
                    constrain,
                } => {
                    targets
                        .iter_mut()
                        .flatten()
                        .for_each(|t| remap_lvalue(t, map));
                    values.iter_mut().for_each(|v| remap_expr(v, map));
                    if let Some(c) = constrain {
                        remap_expr(c, map);
                    }
                }
                Stmt::Havoc { targets } => targets.iter_mut().for_each(|t| remap_lvalue(t, map)),
                Stmt::Call { args, results, .. } => {
                    args.iter_mut().for_each(|a| remap_expr(a, map));
                    results
                        .iter_mut()
                        .flatten()
                        .for_each(|t| remap_lvalue(t, map));
                }
                Stmt::Return { values } => {
                    values.iter_mut().flatten().for_each(|v| remap_expr(v, map));
                }
                _ => {}
            }
        }
    }
}
