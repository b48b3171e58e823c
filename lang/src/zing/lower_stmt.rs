//! Lowering of method bodies to control-flow graphs (zing-language.md §4, §6.2).
//!
//! Nodes are emitted in text order, so node 0 is the entry. Successor slots that are not known
//! yet are "pending" and are patched to the next node emitted; labels written before a
//! statement wait likewise for the next node. A method always ends with an implicit `return`
//! node, so nothing is left pending.

use super::ast::{self, Block, Method, Select, StmtKind};
use super::lower::{default_const, Ctx};
use super::lower_expr::Lowered;
use super::types::{DeclId, Type as ZType};
use crate::ir::{self, Const, Expr, Init, LValue, Node, Pc, Proc, Span, Stmt, Var};

/// Per-method lowering state (expressions are in `lower_expr.rs`).
pub(super) struct Body<'a, 'm> {
    pub(super) cx: &'a mut Ctx<'m>,
    /// Signature parameter index → its first slot.
    pub(super) param_slot: Vec<u32>,
    /// `Method::locals` index → its first slot.
    pub(super) local_slot: Vec<u32>,
    /// The procedure's slots (hidden ones are added for `foreach` indices).
    locals: Vec<Var>,
    /// Slots of the `out` parameters' leaves, in signature order.
    out_slots: Vec<u32>,
    /// `try` statements lowered so far.
    tries: Vec<ir::Try>,
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
    /// The method's labels that sit directly on an `atomic` block: a `goto` from another
    /// atomic block to one of them does not end atomicity (ZING runs both blocks as one step).
    on_atomic: Vec<String>,
    method: &'m Method,
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
                for (suffix, lt) in cx.leaves(p.ty.ty) {
                    if p.is_out {
                        out_slots.push(locals.len() as u32);
                    }
                    let ty = cx.ir_type_at(lt, p.ty.span);
                    locals.push(var(&format!("{}{suffix}", p.name.name), ty, p.name.span));
                }
            }
        }
        let params = locals.len() as u32;
        let mut local_slot = Vec::with_capacity(m.locals.len());
        for l in &m.locals {
            local_slot.push(locals.len() as u32);
            for (suffix, lt) in cx.leaves(l.ty) {
                // unsupported local types are reported at their declarations
                let ty = cx.ir_type(lt).unwrap_or(ir::Type::Bool);
                locals.push(var(&format!("{}{suffix}", l.name.name), ty, l.name.span));
            }
        }
        let mut returns = Vec::new();
        let ret = m.sig.ret.ty;
        if ret != ZType::Void {
            for (_, lt) in cx.leaves(ret) {
                returns.push(cx.ir_type_at(lt, m.sig.ret.span));
            }
        }
        for p in m.sig.params.iter().filter(|p| p.is_out) {
            for (_, lt) in cx.leaves(p.ty.ty) {
                returns.push(cx.ir_type(lt).unwrap_or(ir::Type::Bool));
            }
        }
        let mut body = Body {
            cx,
            param_slot,
            local_slot,
            locals,
            out_slots,
            tries: Vec::new(),
            ret,
            nodes: Vec::new(),
            pending: Vec::new(),
            labels: Vec::new(),
            gotos: Vec::new(),
            atomic_labels: None,
            on_atomic: Vec::new(),
            method: m,
        };
        collect_labels_if(&m.body.stmts, true, &mut body.on_atomic);
        if m.body.stmts.is_empty() {
            // ZING compiles an empty body as the empty statement `{}`: entering the method
            // takes a step of its own before the return (`{ int x; }` or `{ return; }` do not)
            body.simple(Stmt::Skip, m.body.span);
        }
        for s in &m.body.stmts {
            body.stmt(s);
        }
        let end = Span::new(m.span.end.saturating_sub(1) as usize, m.span.end as usize);
        let values = body.return_values(None);
        body.emit(Stmt::Return { values }, end, 0);
        body.resolve_gotos();
        // innermost first: nested bodies are shorter than the bodies around them
        body.tries.sort_by_key(|t| t.body.end - t.body.start);
        Proc {
            name: format!("{class_name}.{}", m.sig.name.name),
            params,
            locals: body.locals,
            returns,
            atomic: m.mods.is_atomic.is_some(),
            nodes: body.nodes,
            span: m.span,
            tries: body.tries,
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

    /// [`Body::simple`] for a node that takes no step of its own.
    fn glued(&mut self, stmt: Stmt, span: Span, glue: ir::Glue) -> Pc {
        let pc = self.emit(stmt, span, 1);
        self.nodes[pc as usize].glue = glue;
        self.pending.push((pc, 0));
        pc
    }

    fn method_local_ty(&self, i: u32) -> ZType {
        self.method
            .locals
            .get(i as usize)
            .map_or(ZType::Bool, |l| l.ty)
    }

    /// A hidden `int` slot (a `foreach` index).
    fn hidden_local(&mut self, name: &str, span: Span) -> u32 {
        let ty = ir::Type::Int {
            bits: 32,
            signed: true,
        };
        self.locals.push(var(name, ty, span));
        self.locals.len() as u32 - 1
    }

    /// Resets the locals a block declared as control leaves it (zing-language.md §4.2): a
    /// node glued to the step that leaves.
    fn reset_block_locals(&mut self, b: &Block) {
        if self.pending.is_empty() {
            return;
        }
        let mut targets = Vec::new();
        let mut values = Vec::new();
        for st in &b.stmts {
            let StmtKind::Local { local: Some(i), .. } = &st.kind else {
                continue;
            };
            let Some(&first) = self.local_slot.get(*i as usize) else {
                continue;
            };
            let n = self.cx.width(self.method_local_ty(*i));
            for k in first..first + n {
                let ty = self.locals[k as usize].ty;
                targets.push(Some(LValue::Local(k)));
                values.push(Expr::Const(default_const(ty)));
            }
        }
        if targets.is_empty() {
            return;
        }
        let close = Span::new(b.span.end.saturating_sub(1) as usize, b.span.end as usize);
        self.flush_labels(close);
        self.glued(
            Stmt::Assign {
                targets,
                values,
                constrain: None,
            },
            close,
            ir::Glue::ToPrevious,
        );
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

    /// `[result leaves] ++ out parameters` for a `return` (`value` already converted).
    fn return_values(&self, value: Option<Vec<Expr>>) -> Option<Vec<Expr>> {
        let mut v = Vec::new();
        if self.ret != ZType::Void {
            v.extend(value.unwrap_or_else(|| {
                self.cx
                    .leaves(self.ret)
                    .into_iter()
                    .map(|(_, t)| {
                        let ty = self.cx.ir_type(t).unwrap_or(ir::Type::Bool);
                        Expr::Const(default_const(ty))
                    })
                    .collect()
            }));
        }
        v.extend(self.out_slots.iter().map(|&s| Expr::Local(s)));
        Some(v)
    }

    // ---- statements -------------------------------------------------------------------

    fn stmt(&mut self, s: &ast::Stmt) {
        crate::deep::grow(|| self.stmt_here(s))
    }

    fn stmt_here(&mut self, s: &ast::Stmt) {
        let span = s.span;
        match &s.kind {
            StmtKind::Empty => self.simple(Stmt::Skip, span),
            // no effect on the state, but the condition is evaluated and may fail (§4.15); the
            // node is listed in `Program::accepts`: a step that runs it with the condition
            // true is accepting (`check --liveness`)
            StmtKind::Accept(e) => {
                let value = self.expr(e);
                let pc = self.emit(
                    Stmt::Assign {
                        targets: vec![None],
                        values: vec![value],
                        constrain: None,
                    },
                    span,
                    1,
                );
                self.pending.push((pc, 0));
                self.cx.accept_pcs.push(pc);
            }
            StmtKind::Trace(args)
            | StmtKind::Event(args)
            | StmtKind::InvokePlugin(args)
            | StmtKind::InvokeScheduler(args) => self.evaluate(args, span),
            StmtKind::Block(b) => {
                if b.stmts.is_empty() {
                    self.simple(Stmt::Skip, span);
                }
                for st in &b.stmts {
                    self.stmt(st);
                }
                self.reset_block_locals(b);
            }
            StmtKind::Local {
                ty, init, local, ..
            } => {
                if !matches!(ty.ty, ZType::Struct(_)) {
                    // reports an unsupported type
                    self.cx.ir_type_at(ty.ty, ty.span);
                }
                let Some(i) = local else { return };
                let Some(&first) = self.local_slot.get(*i as usize) else {
                    return;
                };
                let n = self.cx.width(ty.ty);
                let targets = (first..first + n).map(LValue::Local).collect();
                // `T x;` executes nothing: the local holds its default already (§4.2)
                if let Some(e) = init {
                    self.assign(vec![(targets, ty.ty)], e, span);
                }
            }
            StmtKind::Assign { targets, value } if matches!(targets[..], [ref t] if matches!(t.ty, ZType::Set(_))) => {
                self.set_update(&targets[0], value, span)
            }
            StmtKind::Assign { targets, value } => {
                let targets = targets.iter().map(|t| (self.lvalues(t), t.ty)).collect();
                self.assign(targets, value, span);
            }
            StmtKind::Expr(e) => {
                let c = self.call_lowered(e, None, false);
                self.emit_call(c, span);
            }
            StmtKind::Async(e) => {
                let c = self.call_lowered(e, None, true);
                self.emit_call(c, span);
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
                    && !self.on_atomic.contains(&l.name)
                {
                    // leaving the block ends atomicity; the jump is part of the atomic step
                    // (unless it lands on another atomic block, which the step then runs too)
                    self.glued(Stmt::AtomicEnd, span, ir::Glue::ToNext);
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
                    if matches!(e.ty, ZType::Struct(_)) {
                        return self.exprs(e);
                    }
                    let v = self.expr(e);
                    vec![self.convert(v, e.ty, self.ret)]
                });
                if self.atomic_labels.is_some() {
                    // the return (and the caller's completion) is part of the atomic step
                    self.glued(Stmt::AtomicEnd, span, ir::Glue::ToNext);
                }
                let values = self.return_values(value);
                self.emit(Stmt::Return { values }, span, 0);
            }
            StmtKind::Select(sel) => self.select(span, sel, false),
            StmtKind::Yield => self.simple(Stmt::Yield, span),
            StmtKind::Foreach {
                coll, body, local, ..
            } => self.foreach(span, coll, body, *local),
            StmtKind::Send { chan, msg } => {
                let chan = self.expr(chan);
                let values = self.exprs(msg);
                self.simple(Stmt::Send { chan, values }, span);
            }
            StmtKind::Try { body, handlers } => self.try_with(span, body, handlers),
            StmtKind::Raise(name) => {
                let exception = self.cx.exception(&name.name);
                self.emit(Stmt::Raise { exception }, span, 0);
            }
        }
    }

    /// Emits a lowered call. A call through an interface tests the receiver's class against
    /// each implementing class in turn (tests glued into the call step; a null receiver is a
    /// null dereference at the call) and calls that class's method.
    pub(super) fn emit_call(&mut self, c: Lowered, span: Span) {
        let (receiver, arms) = match c {
            Lowered::One(st) => return self.simple(st, span),
            Lowered::Dispatch(r, arms) => (r, arms),
        };
        if arms.is_empty() {
            // no class implements the interface: only null can be the receiver
            return self.evaluate_exprs(vec![Expr::ClassIs(Box::new(receiver), 0)], span);
        }
        let n = arms.len();
        let mut exits = Vec::new();
        for (i, (class, st)) in arms.into_iter().enumerate() {
            let cond = Expr::ClassIs(Box::new(receiver.clone()), class);
            let b = self.emit(Stmt::Branch { cond }, span, 2);
            self.nodes[b as usize].glue = ir::Glue::ToNext;
            self.pending.push((b, 0));
            if i + 1 == n {
                // the last class also takes references of other classes (object conversions)
                self.pending.push((b, 1));
            }
            let pc = self.emit(st, span, 1);
            exits.push((pc, 0));
            if i + 1 < n {
                self.pending.push((b, 1));
            }
        }
        self.pending.extend(exits);
    }

    /// A step that evaluates expressions (string literals aside) and discards their values.
    fn evaluate(&mut self, args: &[ast::Expr], span: Span) {
        let values: Vec<Expr> = args
            .iter()
            .filter(|a| !matches!(a.kind, ast::ExprKind::Str(_)))
            .map(|a| self.expr(a))
            .collect();
        self.evaluate_exprs(values, span);
    }

    fn evaluate_exprs(&mut self, values: Vec<Expr>, span: Span) {
        self.simple(
            Stmt::Assign {
                targets: vec![None; values.len()],
                values,
                constrain: None,
            },
            span,
        );
    }

    /// `s = s + e`, `s = s - e`, `s = s + t`, `s = s - t` (and the swapped `s = t - s`, read
    /// as `s = s - t`, §10 rule 7): the set object is updated in place.
    fn set_update(&mut self, target: &ast::Expr, value: &ast::Expr, span: Span) {
        let ast::ExprKind::Binary(op, a, b) = &value.kind else {
            // a plain reference assignment
            let t = vec![(self.lvalues(target), target.ty)];
            self.assign(t, value, span);
            return;
        };
        let same = |x: &ast::Expr| {
            self.cx.text.get(x.span.start as usize..x.span.end as usize)
                == self
                    .cx
                    .text
                    .get(target.span.start as usize..target.span.end as usize)
        };
        let operand = if same(a) { b } else { a };
        let all = matches!(operand.ty, ZType::Set(_));
        let op = match (op, all) {
            (ast::BinOp::Add, false) => ir::SetOp::Insert,
            (ast::BinOp::Add, true) => ir::SetOp::InsertAll,
            (_, false) => ir::SetOp::Remove,
            (_, true) => ir::SetOp::RemoveAll,
        };
        let set = self.expr(target);
        let operand = self.expr(operand);
        self.simple(Stmt::SetUpdate { set, op, operand }, span);
    }

    /// `foreach (T x in e) S`: one step initialises the index and tests it; each element
    /// fetch runs with the first body step, each increment with the next test (§6.2).
    fn foreach(&mut self, span: Span, coll: &ast::Expr, body: &ast::Stmt, local: Option<u32>) {
        let idx = self.hidden_local("foreach.index", span);
        let int = ir::Type::Int {
            bits: 32,
            signed: true,
        };
        self.glued(
            Stmt::Assign {
                targets: vec![Some(LValue::Local(idx))],
                values: vec![Expr::Const(Const::Int(0))],
                constrain: None,
            },
            span,
            ir::Glue::ToNext,
        );
        let elem_ty = self.cx.elem_type(coll.ty).unwrap_or(ZType::Int);
        let w = self.cx.width(elem_ty);
        let c = self.expr(coll);
        let size = Expr::Size(Box::new(c.clone()), w);
        let cond = Expr::Cmp(ir::CmpOp::Lt, Box::new(Expr::Local(idx)), Box::new(size));
        let test = self.emit(Stmt::Branch { cond }, span, 2);
        self.pending.push((test, 0));
        let first = local.and_then(|i| self.local_slot.get(i as usize).copied());
        if let Some(first) = first {
            let targets = (0..w).map(|k| Some(LValue::Local(first + k))).collect();
            let values = (0..w)
                .map(|k| {
                    Expr::Elem(
                        Box::new(c.clone()),
                        Box::new(Expr::Local(idx)),
                        ir::Width {
                            width: w,
                            offset: k,
                        },
                    )
                })
                .collect();
            // the fetch shows in a trace as the loop's header (`foreach (int e in a)`), not
            // as the bare collection expression
            let header_end = self
                .cx
                .text
                .get(coll.span.end as usize..)
                .and_then(|t| t.find(')'))
                .map_or(coll.span.end, |k| coll.span.end + k as u32 + 1);
            self.glued(
                Stmt::Assign {
                    targets,
                    values,
                    constrain: None,
                },
                Span {
                    start: span.start,
                    end: header_end,
                },
                ir::Glue::ToNext,
            );
        }
        self.stmt(body);
        self.flush_labels(body.span);
        let inc = Expr::Arith(
            ir::ArithOp::Add,
            int,
            Box::new(Expr::Local(idx)),
            Box::new(Expr::Const(Const::Int(1))),
        );
        let pc = self.emit(
            Stmt::Assign {
                targets: vec![Some(LValue::Local(idx))],
                values: vec![inc],
                constrain: None,
            },
            span,
            1,
        );
        self.nodes[pc as usize].glue = ir::Glue::ToNext;
        self.nodes[pc as usize].succ = vec![test];
        self.pending.push((test, 1));
    }

    /// `try { … } with { N -> S … }`: entering takes no step (a node glued to its successor:
    /// a process resting at the `try` rests before the first statement of the body, which
    /// begins a step of its own, as in ZING: the step that arrives at the `try` ends there);
    /// while control is in the body,
    /// a raised exception goes to the matching handler; after a handler, control continues
    /// after the statement.
    fn try_with(&mut self, span: Span, body: &Block, handlers: &[ast::Handler]) {
        let start = self.nodes.len() as Pc;
        let kw = Span::new(span.start as usize, span.start as usize + "try".len());
        self.glued(Stmt::Skip, kw, ir::Glue::ToNext);
        for st in &body.stmts {
            self.stmt(st);
        }
        self.reset_block_locals(body);
        if self.nodes.len() as Pc == start + 1 {
            // an empty body: the statement is nothing, so the step that arrives at it ends
            // after it; glued through, that step would also run the statement after the try
            // (a procedure's return, when the try is its last statement, which no other step
            // can make: the summary engine relies on returns being steps of their own)
            self.nodes[start as usize].glue = ir::Glue::ToPrevious;
        }
        self.flush_labels(body.span);
        let end = self.nodes.len() as Pc;
        let mut exits = std::mem::take(&mut self.pending);
        let mut hs = Vec::new();
        for h in handlers {
            let pc = self.nodes.len() as Pc;
            let name = h.name.as_ref().map(|n| self.cx.exception(&n.name));
            self.stmt(&h.body);
            self.flush_labels(h.span);
            if self.nodes.len() as Pc == pc {
                self.simple(Stmt::Skip, h.span);
            }
            hs.push((name, pc));
            exits.append(&mut self.pending);
        }
        self.pending = exits;
        self.tries.push(ir::Try {
            body: start..end,
            handlers: hs,
        });
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
        self.reset_block_locals(b);
        let close = Span::new(b.span.end.saturating_sub(1) as usize, b.span.end as usize);
        self.simple(Stmt::AtomicEnd, close);
        self.atomic_labels = saved;
    }

    /// A `select`: one node, `succ[i]` = branch `i`'s statement; a branch is enabled when its
    /// `wait` conditions hold and its channels are non-empty, and taking it performs its
    /// receives in the select's step. A `timeout` branch is swapped with the last one (§4.12).
    fn select(&mut self, span: Span, sel: &Select, atomic: bool) {
        let n = sel.branches.len();
        let mut order: Vec<usize> = (0..n).collect();
        let timeout = sel.branches.iter().position(|j| {
            j.patterns
                .iter()
                .any(|p| matches!(p, ast::Pattern::Timeout(_)))
        });
        if let Some(t) = timeout {
            order.swap(t, n - 1);
        }
        let mut guards = Vec::new();
        let mut receives = Vec::new();
        for &b in &order {
            let j = &sel.branches[b];
            let mut guard: Option<Expr> = None;
            let mut recv = Vec::new();
            for p in &j.patterns {
                let g = match p {
                    ast::Pattern::Wait(e) => self.expr(e),
                    ast::Pattern::Receive { chan, target } => {
                        let w = self.cx.elem_type(chan.ty).map_or(1, |t| self.cx.width(t));
                        let c = self.expr(chan);
                        recv.push(ir::Receive {
                            chan: c.clone(),
                            targets: self.lvalues(target),
                        });
                        Expr::Cmp(
                            ir::CmpOp::Gt,
                            Box::new(Expr::Size(Box::new(c), w)),
                            Box::new(Expr::Const(Const::Int(0))),
                        )
                    }
                    ast::Pattern::Timeout(_) | ast::Pattern::Event(..) => continue,
                };
                guard = Some(match guard {
                    Some(prev) => Expr::bin(ir::BinOp::And, prev, g),
                    None => g,
                });
            }
            guards.push(guard.unwrap_or(Expr::Const(Const::Bool(true))));
            receives.push(recv);
        }
        let stmt = Stmt::Select {
            guards,
            receives,
            first: sel.is_first || n == 1,
            end: sel.is_end,
            atomic,
        };
        let pc = self.emit(stmt, span, n);
        let mut exits = Vec::new();
        for (i, &b) in order.iter().enumerate() {
            let j = &sel.branches[b];
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
    collect_labels_if(stmts, false, out);
}

/// The labels declared in `stmts`; with `on_atomic`, only those that sit directly on an
/// `atomic` block (possibly through other labels).
fn collect_labels_if(stmts: &[ast::Stmt], on_atomic: bool, out: &mut Vec<String>) {
    for s in stmts {
        collect_stmt_labels(s, on_atomic, out);
    }
}

fn collect_stmt_labels(s: &ast::Stmt, on_atomic: bool, out: &mut Vec<String>) {
    crate::deep::grow(|| collect_stmt_labels_here(s, on_atomic, out))
}

/// Whether a labelled statement is an `atomic` block (through further labels).
fn labels_atomic(s: &ast::Stmt) -> bool {
    match &s.kind {
        StmtKind::Atomic(_) => true,
        StmtKind::Labeled { stmt, .. } => labels_atomic(stmt),
        _ => false,
    }
}

fn collect_stmt_labels_here(s: &ast::Stmt, on_atomic: bool, out: &mut Vec<String>) {
    let rec = |s: &ast::Stmt, out: &mut Vec<String>| collect_stmt_labels(s, on_atomic, out);
    match &s.kind {
        StmtKind::Labeled { label, stmt } => {
            if !on_atomic || labels_atomic(stmt) {
                out.push(label.name.clone());
            }
            rec(stmt, out);
        }
        StmtKind::Block(b) | StmtKind::Atomic(b) => collect_labels_if(&b.stmts, on_atomic, out),
        StmtKind::If { then, els, .. } => {
            rec(then, out);
            if let Some(e) = els {
                rec(e, out);
            }
        }
        StmtKind::While { body, .. } | StmtKind::Foreach { body, .. } => rec(body, out),
        StmtKind::Select(sel) => {
            for j in &sel.branches {
                rec(&j.body, out);
            }
        }
        StmtKind::Try { body, handlers } => {
            collect_labels_if(&body.stmts, on_atomic, out);
            for h in handlers {
                rec(&h.body, out);
            }
        }
        _ => {}
    }
}
