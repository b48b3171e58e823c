//! Name resolution and lowering of expressions and assignment targets (§2.6, §4), with the
//! checks E1, E9, E10, E11 and E13.

use super::ast::{self, ExprKind, Ident, Target};
use super::lower::ProcLower;
use crate::diag::Diagnostic;
use crate::ir::{BinOp, Const, Expr, LValue};

/// Where an expression stands, which decides whether primed names are allowed (§4.6).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Primes {
    Allowed,
    Forbidden,
}

/// The IR operator for an AST operator.
fn op(o: ast::BinOp) -> BinOp {
    match o {
        ast::BinOp::And => BinOp::And,
        ast::BinOp::Or => BinOp::Or,
        ast::BinOp::Xor => BinOp::Xor,
        ast::BinOp::Eq => BinOp::Eq,
        ast::BinOp::Ne => BinOp::Ne,
        ast::BinOp::Implies => BinOp::Implies,
    }
}

/// Placeholder for an expression that failed to resolve (the program is rejected anyway).
fn bad() -> Expr {
    Expr::Const(Const::Bool(false))
}

impl ProcLower<'_> {
    /// A variable visible here: a local declared textually before, else a global.
    fn lookup(&self, name: &str) -> Option<LValue> {
        if let Some(&i) = self.visible.get(name) {
            return Some(LValue::Local(i));
        }
        self.tables
            .global_index
            .get(name)
            .map(|&g| LValue::Global(g))
    }

    /// Resolves `x$` (a name not itself declared) to the slot of the local `x` it is the
    /// passive copy of, reporting misuse: outside a broadcast assignment (E16), or with no
    /// local `x` visible here (E1). `None` after a report.
    fn passive(&mut self, id: &Ident, primed: bool) -> Option<u32> {
        let stem = id.name.strip_suffix('$')?;
        let shown = if primed {
            format!("'{}", id.name)
        } else {
            id.name.clone()
        };
        let Some(&slot) = self.visible.get(stem) else {
            let mut d = Diagnostic::error(
                id.span,
                format!("passive variable `{shown}` names no local variable `{stem}`"),
            )
            .with_code("E1")
            .with_label(format!("`{stem}` is not a local of `{}` here", self.name));
            if self.tables.global_index.contains_key(stem) {
                d = d.with_note(format!(
                    "`{stem}` is a global: every thread shares it, so it has no passive copy"
                ));
            } else if self.declared.contains_key(stem) {
                d = d.with_note(format!(
                    "`{stem}` is declared later in `{}`; a local can be used only after its \
                     declaration",
                    self.name
                ));
            }
            self.diags.push(d);
            return None;
        };
        if !self.passive_ok {
            self.diags.push(
                Diagnostic::error(
                    id.span,
                    format!("passive variable `{shown}` outside a broadcast assignment"),
                )
                .with_code("E16")
                .with_label("not allowed here")
                .with_note(
                    "`x$` may be read only in the value assigned to a passive target `y$` or in \
                     the `constrain` clause of such an assignment",
                ),
            );
            return None;
        }
        self.passive_uses.push(id.span);
        Some(slot)
    }

    fn undeclared(&mut self, id: &Ident) {
        let mut d = Diagnostic::error(id.span, format!("undeclared variable `{}`", id.name))
            .with_code("E1")
            .with_label("not declared");
        if self.declared.contains_key(&id.name) {
            d = d.with_note(format!(
                "`{}` is declared later in `{}`; a local can be used only after its declaration",
                id.name, self.name
            ));
        }
        if id.name == "T" || id.name == "F" {
            d = d.with_note(format!(
                "`{}` is a constant and cannot be assigned",
                id.name
            ));
        }
        self.diags.push(d);
    }

    /// Lowers one expression.
    pub(super) fn expr(&mut self, e: &ast::Expr, primes: Primes) -> Expr {
        crate::deep::grow(|| self.expr_here(e, primes))
    }

    fn expr_here(&mut self, e: &ast::Expr, primes: Primes) -> Expr {
        match &e.kind {
            ExprKind::Name(n) => match n.as_str() {
                "T" => Expr::Const(Const::Bool(true)),
                "F" => Expr::Const(Const::Bool(false)),
                "_" => {
                    self.diags.push(
                        Diagnostic::error(e.span, "`_` cannot be read")
                            .with_code("E13")
                            .with_label("`_` is only a discard target"),
                    );
                    bad()
                }
                _ => match self.lookup(n) {
                    Some(LValue::Local(i)) => Expr::Local(i),
                    Some(LValue::Global(g)) => Expr::Global(g),
                    Some(LValue::Field(..) | LValue::Elem(..) | LValue::PassiveLocal(_)) | None => {
                        let id = Ident {
                            name: n.clone(),
                            span: e.span,
                        };
                        if n.ends_with('$') {
                            return self
                                .passive(&id, false)
                                .map_or_else(bad, Expr::PassiveLocal);
                        }
                        self.undeclared(&id);
                        bad()
                    }
                },
            },
            ExprKind::Primed(id) => self.primed(id, e, primes),
            ExprKind::Number(s) => match s.as_str() {
                "0" => Expr::Const(Const::Bool(false)),
                "1" => Expr::Const(Const::Bool(true)),
                _ => {
                    self.diags.push(
                        Diagnostic::error(e.span, format!("invalid constant `{s}`: the only numbers in an expression are `0` and `1`"))
                            .with_code("E11")
                            .with_label("not a boolean constant"),
                    );
                    bad()
                }
            },
            ExprKind::Nondet => Expr::Nondet,
            ExprKind::Not(a) => Expr::not(self.expr(a, primes)),
            ExprKind::Binary(o, a, b) => {
                let a = self.expr(a, primes);
                let b = self.expr(b, primes);
                Expr::bin(op(*o), a, b)
            }
            ExprKind::Ite(c, a, b) => {
                let c = self.expr(c, primes);
                let a = self.expr(a, primes);
                let b = self.expr(b, primes);
                Expr::Ite(Box::new(c), Box::new(a), Box::new(b))
            }
            ExprKind::Schoose(args) => {
                let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a, primes)).collect();
                if lowered.len() != 2 {
                    self.diags.push(
                        Diagnostic::error(
                            e.span,
                            format!("`schoose` takes 2 arguments, got {}", lowered.len()),
                        )
                        .with_code("E10")
                        .with_label("expected `schoose[a, b]`"),
                    );
                    return bad();
                }
                let mut it = lowered.into_iter();
                match (it.next(), it.next()) {
                    (Some(a), Some(b)) => Expr::Schoose(Box::new(a), Box::new(b)),
                    _ => bad(),
                }
            }
        }
    }

    fn primed(&mut self, id: &Ident, e: &ast::Expr, primes: Primes) -> Expr {
        if primes == Primes::Forbidden {
            self.diags.push(
                Diagnostic::error(
                    e.span,
                    format!("primed name `'{}` outside a constraint", id.name),
                )
                .with_code("E9")
                .with_label("primes are allowed only after `constrain`"),
            );
            return bad();
        }
        if matches!(id.name.as_str(), "_" | "T" | "F") {
            self.diags.push(
                Diagnostic::error(e.span, format!("primed `'{}` is not a variable", id.name))
                    .with_code("E9")
                    .with_label("only variables can be primed"),
            );
            return bad();
        }
        match self.lookup(&id.name) {
            Some(LValue::Local(i)) => Expr::PrimedLocal(i),
            Some(LValue::Global(g)) => Expr::PrimedGlobal(g),
            Some(LValue::Field(..) | LValue::Elem(..) | LValue::PassiveLocal(_)) | None => {
                if id.name.ends_with('$') {
                    return self
                        .passive(id, true)
                        .map_or_else(bad, Expr::PrimedPassiveLocal);
                }
                self.undeclared(id);
                bad()
            }
        }
    }

    /// Lowers a list of expressions in which primes are forbidden.
    pub(super) fn exprs(&mut self, es: &[ast::Expr]) -> Vec<Expr> {
        es.iter().map(|e| self.expr(e, Primes::Forbidden)).collect()
    }

    /// Resolves a variable that is written.
    pub(super) fn lvalue(&mut self, id: &Ident) -> Option<LValue> {
        let lv = self.lookup(&id.name);
        if lv.is_none() && id.name.ends_with('$') {
            return self.passive(id, false).map(LValue::PassiveLocal);
        }
        if lv.is_none() {
            self.undeclared(id);
        }
        lv
    }

    /// Resolves assignment targets or call receivers, reporting repeated variables (E8).
    pub(super) fn targets(&mut self, targets: &[Target]) -> Vec<Option<LValue>> {
        let mut out: Vec<Option<LValue>> = Vec::new();
        for t in targets {
            match t {
                Target::Discard(_) => out.push(None),
                Target::Var(id) => {
                    let lv = self.lvalue(id);
                    if lv.is_some() && out.contains(&lv) {
                        self.diags.push(
                            Diagnostic::error(
                                id.span,
                                format!("`{}` is assigned twice in one statement", id.name),
                            )
                            .with_code("E8")
                            .with_label("repeated target"),
                        );
                    }
                    out.push(lv);
                }
            }
        }
        out
    }
}
