//! Lowering of method bodies to control-flow graphs (zing-language.md §4, §6.2).
//!
//! Nodes are emitted in text order, so node 0 is the entry. Successor slots that are not known
//! yet are "pending" and are patched to the next node emitted; labels written before a
//! statement wait likewise for the next node. A method always ends with an implicit `return`
//! node, so nothing is left pending.

use super::ast::{self, Block, Method, Select, StmtKind};
use super::lower::{default_const, Ctx};
use super::types::{DeclId, Type as ZType};
use crate::ir::{self, Const, Expr, Init, LValue, Node, Pc, Proc, Span, Stmt, Var};

/// Per-method lowering state (expressions are in `lower_expr.rs`).
pub(super) struct Body<'a, 'm> {
    pub(super) cx: &'a mut Ctx<'m>,
    /// Signature parameter index → slot.
    pub(super) param_slot: Vec<u32>,
    /// Slot of `Method::locals[0]`.
    pub(super) local_base: u32,
    /// Slots of the `out` parameters, in signature order.
    out_slots: Vec<u32>,
    /// The method's result type.
    ret: ZType,
    nodes: Vec<Node>,
    /// Successor slots to patch to the next node.
    pending: Vec<(Pc, usize)>,
    /// Labels for the next node.
    labels: Vec<String>,
    /// `goto` nodes and their targets, resolved at the end.
    gotos: Vec<(Pc, String)>,
    /// Inside an atomic block: the labels declared in it.
    atomic_labels: Option<Vec<String>>,
}

impl<'a, 'm> Body<'a, 'm> {
    /// Lowers one method of class `class` to a procedure.
    pub(super) fn lower_method(
        cx: &'a mut Ctx<'m>,
        class: DeclId,
        class_name: &str,
        m: &'m Method,
    ) -> Proc {
        let has_this = m.mods.is_static.is_none();
        let mut locals = Vec::new();
        if has_this {
            let ty = cx.ir_type_at(ZType::Class(class), m.sig.name.span);
            locals.push(var("this", ty, m.sig.name.span));
        }
        let mut param_slot = vec![0; m.sig.params.len()];
        let mut out_slots = Vec::new();
        for pass_outs in [false, true] {
            for (i, p) in m.sig.params.iter().enumerate() {
                if p.is_out != pass_outs {
                    continue;
                }
                param_slot[i] = locals.len() as u32;
                if p.is_out {
                    out_slots.push(locals.len() as u32);
                }
                let ty = cx.ir_type_at(p.ty.ty, p.ty.span);
                locals.push(var(&p.name.name, ty, p.name.span));
            }
        }
        let params = locals.len() as u32;
        let local_base = params;
        for l in &m.locals {
            // unsupported local types are reported at their declarations
            let ty = cx.ir_type(l.ty).unwrap_or(ir::Type::Bool);
            locals.push(var(&l.name.name, ty, l.name.span));
        }
        let mut returns = Vec::new();
        let ret = m.sig.ret.ty;
        if ret != ZType::Void {
            returns.push(cx.ir_type_at(ret, m.sig.ret.span));
        }
        for p in m.sig.params.iter().filter(|p| p.is_out) {
            returns.push(cx.ir_type(p.ty.ty).unwrap_or(ir::Type::Bool));
        }
        let mut body = Body {
            cx,
            param_slot,
            local_base,
            out_slots,
            ret,
            nodes: Vec::new(),
            pending: Vec::new(),
            labels: Vec::new(),
            gotos: Vec::new(),
            atomic_labels: None,
        };
        for s in &m.body.stmts {
            body.stmt(s);
        }
        let end = Span::new(m.span.end.saturating_sub(1) as usize, m.span.end as usize);
        let values = body.return_values(None);
        body.emit(Stmt::Return { values }, end, 0);
        body.resolve_gotos();
        Proc {
            name: format!("{class_name}.{}", m.sig.name.name),
            params,
            locals,
            returns,
            atomic: m.mods.is_atomic.is_some(),
            nodes: body.nodes,
            span: m.span,
            tries: Vec::new(),
        }
    }

    // ---- node emission ----------------------------------------------------------------

    /// Appends a node with `nsucc` successor slots (unpatched); the pending slots and labels
    /// go to it.
    fn emit(&mut self, stmt: Stmt, span: Span, nsucc: usize) -> Pc {
        let pc = self.nodes.len() as Pc;
        for (n, slot) in std::mem::take(&mut self.pending) {
            self.nodes[n as usize].succ[slot] = pc;
        }
        self.nodes.push(Node {
            stmt,
            succ: vec![pc; nsucc],
            span,
            labels: std::mem::take(&mut self.labels),
            invariant: None,
            glue: ir::Glue::No,
        });
        pc
    }

    /// Appends a node with one successor, the next node.
    pub(super) fn simple(&mut self, stmt: Stmt, span: Span) {
        let pc = self.emit(stmt, span, 1);
        self.pending.push((pc, 0));
    }

    /// Gives waiting labels a no-op node of their own (when the next node emitted is not
    /// where they belong).
    fn flush_labels(&mut self, span: Span) {
        if !self.labels.is_empty() {
            self.simple(Stmt::Skip, span);
        }
    }

    fn resolve_gotos(&mut self) {
        for (pc, label) in std::mem::take(&mut self.gotos) {
            let target = self
                .nodes
                .iter()
                .position(|n| n.labels.contains(&label))
                .unwrap_or(pc as usize);
            self.nodes[pc as usize].succ = vec![target as Pc];
        }
    }

    /// `[result] ++ out parameters` for a `return` (`value` already converted).
    fn return_values(&self, value: Option<Expr>) -> Option<Vec<Expr>> {
        let mut v = Vec::new();
        if self.ret != ZType::Void {
            v.push(value.unwrap_or_else(|| {
                let ty = self.cx.ir_type(self.ret).unwrap_or(ir::Type::Bool);
                Expr::Const(default_const(ty))
            }));
        }
        v.extend(self.out_slots.iter().map(|&s| Expr::Local(s)));
        Some(v)
    }

    // ---- statements -------------------------------------------------------------------

    fn stmt(&mut self, s: &ast::Stmt) {
        let span = s.span;
        match &s.kind {
            StmtKind::Empty | StmtKind::Accept(_) => self.simple(Stmt::Skip, span),
            StmtKind::Trace(_)
            | StmtKind::Event(_)
            | StmtKind::InvokePlugin(_)
            | StmtKind::InvokeScheduler(_) => self.simple(Stmt::Skip, span),
            StmtKind::Block(b) => {
                if b.stmts.is_empty() {
                    self.simple(Stmt::Skip, span);
                }
                for st in &b.stmts {
                    self.stmt(st);
                }
            }
            StmtKind::Local {
                ty, init, local, ..
            } => {
                let t = self.cx.ir_type_at(ty.ty, ty.span);
                let Some(i) = local else { return };
                let target = LValue::Local(self.local_base + i);
                match init {
                    Some(e) => self.assign(vec![(target, ty.ty)], e, span),
                    None => self.simple(
                        Stmt::Assign {
                            targets: vec![Some(target)],
                            values: vec![Expr::Const(default_const(t))],
                            constrain: None,
                        },
                        span,
                    ),
                }
            }
            StmtKind::Assign { targets, value } => {
                let targets = targets.iter().map(|t| (self.lvalue(t), t.ty)).collect();
                self.assign(targets, value, span);
            }
            StmtKind::Expr(e) => {
                let st = self.call(e, None, false);
                self.simple(st, span);
            }
            StmtKind::Async(e) => {
                let st = self.call(e, None, true);
                self.simple(st, span);
            }
            StmtKind::Atomic(b) => self.atomic(span, b),
            StmtKind::Assert { cond, .. } => {
                let cond = self.expr(cond);
                self.simple(Stmt::Assert { cond }, span);
            }
            StmtKind::Assume(e) => {
                if !matches!(e.kind, ast::ExprKind::Bool(true)) {
                    let cond = self.expr(e);
                    self.simple(Stmt::Assume { cond }, span);
                }
            }
            StmtKind::If { cond, then, els } => {
                let c = self.expr(cond);
                let b = self.emit(Stmt::Branch { cond: c }, self.head(span, cond.span), 2);
                self.pending.push((b, 0));
                self.stmt(then);
                if let Some(e) = els {
                    self.flush_labels(then.span);
                    let mut exits = std::mem::take(&mut self.pending);
                    self.pending.push((b, 1));
                    self.stmt(e);
                    self.pending.append(&mut exits);
                } else {
                    self.pending.push((b, 1));
                }
            }
            StmtKind::While { cond, body } => {
                let c = self.expr(cond);
                let b = self.emit(Stmt::Branch { cond: c }, self.head(span, cond.span), 2);
                self.pending.push((b, 0));
                self.stmt(body);
                for (n, slot) in std::mem::take(&mut self.pending) {
                    self.nodes[n as usize].succ[slot] = b;
                }
                let labels = std::mem::take(&mut self.labels);
                self.nodes[b as usize].labels.extend(labels);
                self.pending.push((b, 1));
            }
            StmtKind::Goto(l) => {
                if self
                    .atomic_labels
                    .as_ref()
                    .is_some_and(|ls| !ls.contains(&l.name))
                {
                    self.simple(Stmt::AtomicEnd, span);
                }
                let pc = self.emit(Stmt::Goto, span, 1);
                self.gotos.push((pc, l.name.clone()));
            }
            StmtKind::Labeled { label, stmt } => {
                self.labels.push(label.name.clone());
                self.stmt(stmt);
            }
            StmtKind::Return(e) => {
                let value = e.as_ref().map(|e| {
                    let v = self.expr(e);
                    self.convert(v, e.ty, self.ret)
                });
                if self.atomic_labels.is_some() {
                    self.simple(Stmt::AtomicEnd, span);
                }
                let values = self.return_values(value);
                self.emit(Stmt::Return { values }, span, 0);
            }
            StmtKind::Select(sel) => self.select(span, sel, false),
            StmtKind::Yield => self.simple(Stmt::Yield, span),
            StmtKind::Foreach { body, .. } => {
                self.cx
                    .unsupported(span, "foreach", "iteration over sets and arrays");
                self.stmt(body);
            }
            StmtKind::Send { .. } => {
                self.cx
                    .unsupported(span, "send", "channels are not lowered yet");
                self.simple(Stmt::Skip, span);
            }
            StmtKind::Try { body, handlers } => {
                self.cx
                    .unsupported(span, "try", "exceptions are not lowered yet");
                self.simple(Stmt::Skip, span);
                for st in &body.stmts {
                    self.stmt(st);
                }
                for h in handlers {
                    self.stmt(&h.body);
                }
            }
            StmtKind::Raise(_) => {
                self.cx
                    .unsupported(span, "raise", "exceptions are not lowered yet");
                self.simple(Stmt::Skip, span);
            }
        }
    }

    /// `if (c)` / `while (c)`: the keyword through the condition's closing parenthesis.
    fn head(&self, stmt: Span, cond: Span) -> Span {
        let text = self.cx.text.as_bytes();
        let mut end = cond.end as usize;
        while end < text.len() && text[end].is_ascii_whitespace() {
            end += 1;
        }
        let end = if text.get(end) == Some(&b')') {
            end + 1
        } else {
            cond.end as usize
        };
        Span::new(stmt.start as usize, end)
    }

    /// `atomic { … }`: `AtomicBegin`, the body, `AtomicEnd`; a leading `select` begins the
    /// block itself (it may block; once enabled the thread enters the atomic block).
    fn atomic(&mut self, span: Span, b: &Block) {
        let mut labels = Vec::new();
        collect_labels(&b.stmts, &mut labels);
        let saved = self.atomic_labels.replace(labels);
        let rest = match b.stmts.first() {
            Some(first) if matches!(first.kind, StmtKind::Select(_)) => {
                if let StmtKind::Select(sel) = &first.kind {
                    self.select(first.span, sel, true);
                }
                &b.stmts[1..]
            }
            _ => {
                let kw = Span::new(span.start as usize, span.start as usize + "atomic".len());
                self.simple(Stmt::AtomicBegin, kw);
                &b.stmts[..]
            }
        };
        for st in rest {
            self.stmt(st);
        }
        let close = Span::new(b.span.end.saturating_sub(1) as usize, b.span.end as usize);
        self.simple(Stmt::AtomicEnd, close);
        self.atomic_labels = saved;
    }

    /// A `select` of `wait` branches: one node, `succ[i]` = branch `i`'s statement.
    fn select(&mut self, span: Span, sel: &Select, atomic: bool) {
        let mut guards = Vec::new();
        for j in &sel.branches {
            let mut guard: Option<Expr> = None;
            for p in &j.patterns {
                let g = match p {
                    ast::Pattern::Wait(e) => self.expr(e),
                    ast::Pattern::Receive { chan, .. } => {
                        self.cx
                            .unsupported(chan.span, "receive", "channels are not lowered yet");
                        continue;
                    }
                    ast::Pattern::Timeout(s) => {
                        self.cx
                            .unsupported(*s, "timeout", "only `wait` patterns are lowered yet");
                        continue;
                    }
                    ast::Pattern::Event(_, s) => {
                        self.cx
                            .unsupported(*s, "event", "only `wait` patterns are lowered yet");
                        continue;
                    }
                };
                guard = Some(match guard {
                    Some(prev) => Expr::bin(ir::BinOp::And, prev, g),
                    None => g,
                });
            }
            guards.push(guard.unwrap_or(Expr::Const(Const::Bool(true))));
        }
        let n = sel.branches.len();
        let stmt = Stmt::Select {
            guards,
            receives: vec![Vec::new(); n],
            first: sel.is_first || n == 1,
            end: sel.is_end,
            atomic,
        };
        let pc = self.emit(stmt, span, n);
        let mut exits = Vec::new();
        for (i, j) in sel.branches.iter().enumerate() {
            self.pending.push((pc, i));
            self.stmt(&j.body);
            if i + 1 < n {
                self.flush_labels(j.body.span);
            }
            exits.append(&mut self.pending);
        }
        self.pending = exits;
    }
}

/// A formal or local starting at its type's default.
fn var(name: &str, ty: ir::Type, span: Span) -> Var {
    Var {
        name: name.to_string(),
        ty,
        init: Init::Value(default_const(ty)),
        thread_local: false,
        span,
    }
}

/// Every label declared (at any depth) in a statement list.
fn collect_labels(stmts: &[ast::Stmt], out: &mut Vec<String>) {
    for s in stmts {
        collect_stmt_labels(s, out);
    }
}

fn collect_stmt_labels(s: &ast::Stmt, out: &mut Vec<String>) {
    match &s.kind {
        StmtKind::Labeled { label, stmt } => {
            out.push(label.name.clone());
            collect_stmt_labels(stmt, out);
        }
        StmtKind::Block(b) | StmtKind::Atomic(b) => collect_labels(&b.stmts, out),
        StmtKind::If { then, els, .. } => {
            collect_stmt_labels(then, out);
            if let Some(e) = els {
                collect_stmt_labels(e, out);
            }
        }
        StmtKind::While { body, .. } | StmtKind::Foreach { body, .. } => {
            collect_stmt_labels(body, out)
        }
        StmtKind::Select(sel) => {
            for j in &sel.branches {
                collect_stmt_labels(&j.body, out);
            }
        }
        StmtKind::Try { body, handlers } => {
            collect_labels(&body.stmts, out);
            for h in handlers {
                collect_stmt_labels(&h.body, out);
            }
        }
        _ => {}
    }
}
