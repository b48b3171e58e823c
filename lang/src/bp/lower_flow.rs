//! Lowering of control flow: `if`/`elsif`/`else` chains, `while` loops with their back
//! edge, and the jump targets of `goto`/`start_thread goto` (checked for E6).

use super::ast::{self, Item};
use super::lower::{Exit, Frag, ProcLower};
use super::lower_expr::Primes;
use crate::diag::Diagnostic;
use crate::ir::{Span, Stmt};

impl ProcLower<'_> {
    pub(super) fn if_stmt(&mut self, arms: &[ast::Arm], els: Option<&[Item]>) -> Frag {
        let mut entry = None;
        let mut exits = Vec::new();
        // The `else` slot of the previous test, waiting for the next test or the else branch.
        let mut prev_else: Option<Exit> = None;
        for arm in arms {
            let cond = self.expr(&arm.cond, Primes::Forbidden);
            let pc = self.push(Stmt::Branch { cond }, arm.head, 2);
            entry.get_or_insert(pc);
            if let Some(slot) = prev_else {
                self.patch(&[slot], pc);
            }
            let body = self.list(&arm.body);
            match body.entry {
                Some(e) => {
                    self.patch(&[(pc, 0)], e);
                    exits.extend(body.exits);
                }
                None => exits.push((pc, 0)),
            }
            prev_else = Some((pc, 1));
        }
        let body = els.map_or_else(Frag::empty, |b| self.list(b));
        match (body.entry, prev_else) {
            (Some(e), Some(slot)) => {
                self.patch(&[slot], e);
                exits.extend(body.exits);
            }
            (_, Some(slot)) => exits.push(slot),
            (_, None) => {}
        }
        Frag { entry, exits }
    }

    pub(super) fn while_stmt(&mut self, cond: &ast::Expr, head: Span, body: &[Item]) -> Frag {
        let cond = self.expr(cond, Primes::Forbidden);
        let pc = self.push(Stmt::Branch { cond }, head, 2);
        let frag = self.list(body);
        let first = frag.entry.unwrap_or(pc);
        self.patch(&[(pc, 0)], first);
        self.patch(&frag.exits, pc);
        Frag {
            entry: Some(pc),
            exits: vec![(pc, 1)],
        }
    }

    /// Fills in jump targets (E6).
    pub(super) fn resolve_gotos(&mut self) {
        let gotos = std::mem::take(&mut self.gotos);
        for g in gotos {
            let mut found = Vec::new();
            for t in &g.targets {
                match self.labels.get(&t.name).map(Vec::as_slice) {
                    Some([pc]) => {
                        if !found.contains(pc) {
                            found.push(*pc);
                        }
                    }
                    Some(many) if many.len() > 1 => {
                        let lines: Vec<String> = many
                            .iter()
                            .filter_map(|&pc| self.nodes.get(pc as usize))
                            .map(|n| self.src.line_col(n.span.start).0.to_string())
                            .collect();
                        self.diags.push(
                            Diagnostic::error(
                                t.span,
                                format!("duplicate label `{}` used as a goto target", t.name),
                            )
                            .with_code("E6")
                            .with_label("ambiguous jump target")
                            .with_note(format!(
                                "`{}` labels the statements at lines {} of `{}`",
                                t.name,
                                lines.join(", "),
                                self.name
                            )),
                        );
                    }
                    _ => self.diags.push(
                        Diagnostic::error(
                            t.span,
                            format!("no label `{}` in procedure `{}`", t.name, self.name),
                        )
                        .with_code("E6")
                        .with_label("unknown jump target")
                        .with_note("a goto can only jump within its own procedure"),
                    ),
                }
            }
            if let Some(node) = self.nodes.get_mut(g.pc as usize) {
                if matches!(node.stmt, Stmt::StartThreadGoto) {
                    if let (Some(slot), Some(&t)) = (node.succ.get_mut(1), found.first()) {
                        *slot = t;
                    }
                } else {
                    node.succ = found;
                }
            }
        }
    }
}
