//! §10 rule 23: methods called inside `wait(…)` are evaluated as pure predicates, so they
//! (and the methods they call) must not `choose`, `select`, `yield`, `send`, start processes
//! or write anything but their own locals.

use super::ast::*;
use crate::diag::Diagnostic;
use crate::ir::Span;
use std::collections::HashSet;

/// Checks every method reachable from a call in a `wait` pattern.
pub fn check(model: &Model, roots: &[(CallTarget, Span)], diags: &mut Vec<Diagnostic>) {
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    let mut work: Vec<(u32, u32)> = Vec::new();
    for (t, _) in roots {
        if let CallTarget::Method { class, index } = t {
            if seen.insert((*class, *index)) {
                work.push((*class, *index));
            }
        }
    }
    while let Some((class, index)) = work.pop() {
        let Some(Decl {
            kind: DeclKind::Class(c),
            ..
        }) = model.decls.get(class as usize)
        else {
            continue;
        };
        let Some(m) = c.methods.get(index as usize) else {
            continue;
        };
        let mut walker = Walker {
            method: &m.sig.name.name,
            diags,
            callees: Vec::new(),
        };
        walker.block(&m.body);
        for callee in walker.callees {
            if seen.insert(callee) {
                work.push(callee);
            }
        }
    }
}

struct Walker<'a> {
    method: &'a str,
    diags: &'a mut Vec<Diagnostic>,
    callees: Vec<(u32, u32)>,
}

impl Walker<'_> {
    fn bad(&mut self, span: Span, what: &str) {
        self.diags.push(
            Diagnostic::error(
                span,
                format!(
                    "`{}` is called in `wait`, so it must not {what}",
                    self.method
                ),
            )
            .with_label("side effect in a predicate method")
            .with_note(
                "predicates in `wait(…)` are evaluated while checking enabledness and must be pure",
            ),
        );
    }

    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn call(&mut self, e: &Expr) {
        if let ExprKind::Call {
            target: Some(CallTarget::Method { class, index }),
            ..
        } = &e.kind
        {
            self.callees.push((*class, *index));
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        crate::deep::grow(|| self.stmt_here(s))
    }

    fn stmt_here(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Block(b) | StmtKind::Atomic(b) => self.block(b),
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    if !writes_local(t) {
                        self.bad(t.span, "write to fields, statics or array elements");
                    }
                }
                match &value.kind {
                    ExprKind::Choose(_) | ExprKind::ChooseType(_) => {
                        self.bad(value.span, "use `choose`")
                    }
                    ExprKind::Call { .. } => self.call(value),
                    _ => {}
                }
            }
            StmtKind::Expr(e) => self.call(e),
            StmtKind::Async(_) => self.bad(s.span, "start processes"),
            StmtKind::Select(_) => self.bad(s.span, "use `select`"),
            StmtKind::Yield => self.bad(s.span, "`yield`"),
            StmtKind::Send { .. } => self.bad(s.span, "`send`"),
            StmtKind::If { then, els, .. } => {
                self.stmt(then);
                if let Some(e) = els {
                    self.stmt(e);
                }
            }
            StmtKind::While { body, .. } | StmtKind::Foreach { body, .. } => self.stmt(body),
            StmtKind::Labeled { stmt, .. } => self.stmt(stmt),
            StmtKind::Try { body, handlers } => {
                self.block(body);
                for h in handlers {
                    self.stmt(&h.body);
                }
            }
            _ => {}
        }
    }
}

/// Whether an assignment target is a local or parameter (or a part of a local struct).
fn writes_local(e: &Expr) -> bool {
    crate::deep::grow(|| match &e.kind {
        ExprKind::Name(_, res) => matches!(
            res,
            NameRes::Local(_) | NameRes::Param(_) | NameRes::Unresolved
        ),
        ExprKind::Member {
            base,
            res: MemberRes::StructField { .. },
            ..
        } => writes_local(base),
        _ => false,
    })
}
