//! Which calls are forced (one execution whatever the values), so that the walk leaves a gap
//! for the interpreter there instead of the callee's points.

use crate::symbolic::bdd::Bdds;
use crate::symbolic::reach::Engine;
use zingrs_lang::ir::Stmt;

impl<B: Bdds> Engine<'_, '_, B> {
    /// Per call site, whether the call is forced: its arguments and, transitively, everything
    /// the callee and its callees execute have one outcome a step on the interpreter whatever
    /// the values (no `*`, no `goto` to several places, no havoc, no constraint, no arbitrary
    /// initial value of a local read before it is written). Such a call needs no points: the
    /// interpreter finds its one execution. Conservative: anything else is not forced.
    pub(in crate::symbolic) fn forced_calls(&self) -> Vec<bool> {
        let p = self.m.program;
        let det = |e: &zingrs_lang::ir::Expr| {
            use zingrs_lang::ir::Expr;
            let mut ok = true;
            e.walk(&mut |x| {
                ok &= matches!(
                    x,
                    Expr::Const(_)
                        | Expr::Local(_)
                        | Expr::Global(_)
                        | Expr::Unary(..)
                        | Expr::Binary(..)
                        | Expr::Ite(..)
                )
            });
            ok
        };
        // the procedures whose own steps (the call into them included) are forced
        let mut forced: Vec<bool> = p
            .procs
            .iter()
            .enumerate()
            .map(|(q, proc)| {
                let locals = (proc.params as usize..proc.locals.len()).all(|j| {
                    !matches!(proc.locals[j].init, zingrs_lang::ir::Init::Any)
                        || !self.m.live_at_entry(q as u32, j)
                });
                locals
                    && proc.nodes.iter().all(|n| {
                        n.invariant.as_ref().is_none_or(det)
                            && match &n.stmt {
                                Stmt::Skip => true,
                                Stmt::Goto => n.succ.len() <= 1,
                                Stmt::Branch { cond }
                                | Stmt::Assume { cond }
                                | Stmt::Assert { cond } => det(cond),
                                Stmt::Assign {
                                    values,
                                    constrain: None,
                                    ..
                                } => values.iter().all(det),
                                Stmt::Call { args, .. } => args.iter().all(det),
                                Stmt::Return { values } => values.iter().flatten().all(det),
                                _ => false,
                            }
                    })
            })
            .collect();
        // a caller of a procedure that is not forced is not forced (a work list: call chains
        // can be 100,000 deep)
        let mut callers: Vec<Vec<u32>> = vec![Vec::new(); p.procs.len()];
        for (q, proc) in p.procs.iter().enumerate() {
            for n in &proc.nodes {
                if let Stmt::Call { callee, .. } = n.stmt {
                    callers[callee as usize].push(q as u32);
                }
            }
        }
        let mut work: Vec<u32> = (0..p.procs.len() as u32)
            .filter(|&q| !forced[q as usize])
            .collect();
        while let Some(q) = work.pop() {
            for &c in &callers[q as usize] {
                if forced[c as usize] {
                    forced[c as usize] = false;
                    work.push(c);
                }
            }
        }
        self.callsites
            .iter()
            .map(|cs| {
                forced[cs.callee as usize]
                    && match &p.node(self.proc_of[cs.c as usize], self.pc(cs.c)).stmt {
                        Stmt::Call { args, .. } => args.iter().all(det),
                        _ => false,
                    }
            })
            .collect()
    }
}
