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
        e => e.for_each_child_mut(|c| remap_expr(c, map)),
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
