//! Type checking of method bodies and field initializers (zing-language.md §4): scopes and
//! local variables, statement rules (what may stand as a statement, `atomic`/`yield`
//! placement, `select` patterns, labels and `goto`, `return` values, set updates).

use super::ast::*;
use super::tables::{SigInfo, Tables, TypeResolver, TypeUse};
use super::types::{DeclId, Type};
use crate::diag::Diagnostic;
use crate::ir::Span;
use std::collections::HashMap;

/// Most join statements in one `select`.
const MAX_BRANCHES: usize = 64;

/// Per-method checking state; expression checking is in `check_expr.rs`.
pub(super) struct Checker<'a> {
    pub(super) t: &'a Tables,
    pub(super) types: &'a TypeResolver,
    pub(super) diags: &'a mut Vec<Diagnostic>,
    /// The enclosing class.
    pub(super) class: DeclId,
    /// Whether there is no receiver (static method or static field initializer).
    pub(super) is_static: bool,
    /// Whether the enclosing method is `atomic`.
    atomic_method: bool,
    /// Whether we are inside an `atomic` block.
    in_atomic: bool,
    /// The enclosing method's result type (`Void` in initializers).
    ret: Type,
    /// Parameters of the enclosing method.
    pub(super) params: Vec<(String, Type, bool)>,
    /// Open scopes, innermost last: name → local index.
    pub(super) scopes: Vec<Vec<(String, u32)>>,
    /// The locals of the open scopes by name, innermost last: a lookup costs the same at any
    /// nesting depth (a walk over the scopes was quadratic in blocks nested thousands deep).
    pub(super) visible: HashMap<String, Vec<u32>>,
    pub(super) locals: Vec<LocalVar>,
    /// Whether calls are allowed here (inside `wait(…)`).
    pub(super) in_wait: bool,
    /// Methods called inside `wait(…)`, for the purity check.
    pub(super) wait_calls: Vec<(CallTarget, Span)>,
    /// Labels: name, span, block path.
    labels: HashMap<String, Vec<u32>>,
    /// Gotos: target, block path.
    gotos: Vec<(Ident, Vec<u32>)>,
    blocks: Vec<u32>,
    next_block: u32,
}

/// Checks every field initializer and method body of every class.
pub fn check_model(
    t: &Tables,
    types: &TypeResolver,
    model: &mut Model,
    diags: &mut Vec<Diagnostic>,
) {
    let mut wait_calls = Vec::new();
    for (i, d) in model.decls.iter_mut().enumerate() {
        let DeclKind::Class(c) = &mut d.kind else {
            continue;
        };
        let class = i as DeclId;
        for f in c.fields.iter_mut() {
            let Some(init) = &mut f.init else { continue };
            let mut ck = Checker::new(t, types, diags, class, f.mods.is_static.is_some());
            let ty = ck.expr(init);
            ck.assignable(ty, f.ty.ty, init, "initialize", true);
        }
        for m in c.methods.iter_mut() {
            let sig = t.method(class, &m.sig.name.name).map(|(_, s)| s.clone());
            let Some(sig) = sig.filter(|s| s.span == m.sig.name.span) else {
                continue; // a duplicate method: its signature is not in the tables
            };
            let mut ck = Checker::new(t, types, diags, class, sig.is_static);
            ck.enter_method(&sig);
            ck.block(&mut m.body);
            ck.finish_labels();
            m.locals = std::mem::take(&mut ck.locals);
            wait_calls.append(&mut ck.wait_calls);
        }
    }
    super::purity::check(model, &wait_calls, diags);
}

impl<'a> Checker<'a> {
    fn new(
        t: &'a Tables,
        types: &'a TypeResolver,
        diags: &'a mut Vec<Diagnostic>,
        class: DeclId,
        is_static: bool,
    ) -> Checker<'a> {
        Checker {
            t,
            types,
            diags,
            class,
            is_static,
            atomic_method: false,
            in_atomic: false,
            ret: Type::Void,
            params: Vec::new(),
            scopes: vec![Vec::new()],
            visible: HashMap::new(),
            locals: Vec::new(),
            in_wait: false,
            wait_calls: Vec::new(),
            labels: HashMap::new(),
            gotos: Vec::new(),
            blocks: vec![0],
            next_block: 1,
        }
    }

    fn enter_method(&mut self, sig: &SigInfo) {
        self.atomic_method = sig.is_atomic;
        self.ret = sig.ret;
        self.params = sig.params.clone();
    }

    /// Records an error.
    pub(super) fn error(&mut self, span: Span, msg: impl Into<String>, label: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(span, msg).with_label(label));
    }

    /// A type as written in messages.
    pub(super) fn tn(&self, t: Type) -> String {
        self.t.type_name(t)
    }

    // ---- scopes and blocks ----------------------------------------------------------

    fn declare(&mut self, name: &Ident, ty: Type) -> u32 {
        let dup = self
            .scopes
            .last()
            .is_some_and(|s| s.iter().any(|(n, _)| *n == name.name));
        if dup {
            self.error(
                name.span,
                format!("`{}` is already declared in this block", name.name),
                "declared again here",
            );
        }
        let id = self.locals.len() as u32;
        self.locals.push(LocalVar {
            name: name.clone(),
            ty,
        });
        if let Some(s) = self.scopes.last_mut() {
            s.push((name.name.clone(), id));
            self.visible.entry(name.name.clone()).or_default().push(id);
        }
        id
    }

    /// Runs `f` in a nested block (a new scope and a new label region).
    fn nested<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.scopes.push(Vec::new());
        self.blocks.push(self.next_block);
        self.next_block += 1;
        let r = f(self);
        self.blocks.pop();
        for (name, _) in self.scopes.pop().unwrap_or_default() {
            if let Some(ids) = self.visible.get_mut(&name) {
                ids.pop();
            }
        }
        r
    }

    fn block(&mut self, b: &mut Block) {
        self.nested(|ck| {
            for s in b.stmts.iter_mut() {
                ck.stmt(s);
            }
        });
    }

    /// A statement in its own block region (bodies of `if`, `while`, branches, handlers).
    fn body(&mut self, s: &mut Stmt) {
        self.nested(|ck| ck.stmt(s));
    }

    fn finish_labels(&mut self) {
        let gotos = std::mem::take(&mut self.gotos);
        for (target, path) in gotos {
            match self.labels.get(&target.name) {
                None => self.error(
                    target.span,
                    format!("unknown label `{}`", target.name),
                    "no such label in this method",
                ),
                Some(lpath) if !path.starts_with(lpath) => self.error(
                    target.span,
                    format!(
                        "cannot jump into a nested block: label `{}` is not in an enclosing block",
                        target.name
                    ),
                    "`goto` may only target labels of the same or an enclosing block",
                ),
                Some(_) => {}
            }
        }
    }

    // ---- statements -----------------------------------------------------------------

    fn stmt(&mut self, s: &mut Stmt) {
        crate::deep::grow(|| self.stmt_here(s))
    }

    fn stmt_here(&mut self, s: &mut Stmt) {
        let span = s.span;
        match &mut s.kind {
            StmtKind::Empty | StmtKind::Raise(_) => {}
            StmtKind::Block(b) => self.block(b),
            StmtKind::Local {
                ty,
                name,
                init,
                local,
            } => {
                let t = self.types.resolve(ty, TypeUse::Value, self.diags);
                if let Some(e) = init {
                    let et = self.expr(e);
                    self.assignable(et, t, e, "initialize", true);
                }
                *local = Some(self.declare(name, t));
            }
            StmtKind::Assign { targets, value } => self.assign(targets, value),
            StmtKind::Expr(e) => {
                if matches!(e.kind, ExprKind::Call { .. }) {
                    self.call(e);
                } else {
                    self.error(
                        e.span,
                        "only assignments and method calls can be used as statements",
                        "this expression's value is not used",
                    );
                }
            }
            StmtKind::Async(e) => {
                if !matches!(e.kind, ExprKind::Call { .. }) {
                    self.error(e.span, "`async` needs a method call", "not a call");
                    return;
                }
                self.call(e);
                if let ExprKind::Call {
                    target: Some(target),
                    ..
                } = &e.kind
                {
                    if let Some(sig) = self.t.sig(*target) {
                        if sig.ret != Type::Void || sig.params.iter().any(|p| p.2) {
                            self.diags.push(
                                Diagnostic::warning(
                                    e.span,
                                    format!("`async` call of `{}` discards its results", sig.name),
                                )
                                .with_label(
                                    "the result and `out` parameters of a process are lost",
                                ),
                            );
                        }
                    }
                }
            }
            StmtKind::Atomic(b) => {
                if self.atomic_method {
                    self.error(
                        span,
                        "`atomic` block inside an atomic method",
                        "an atomic method is already indivisible",
                    );
                } else if self.in_atomic {
                    self.error(
                        span,
                        "nested `atomic` block",
                        "atomic blocks cannot be nested",
                    );
                }
                let was = std::mem::replace(&mut self.in_atomic, true);
                self.block(b);
                self.in_atomic = was;
            }
            StmtKind::Assert { cond, message } => {
                self.condition(cond, "`assert`");
                if let Some(m) = message {
                    if !matches!(m.kind, ExprKind::Str(_)) {
                        self.error(
                            m.span,
                            "the message of `assert` must be a string literal",
                            "expected a string",
                        );
                    }
                }
            }
            StmtKind::Assume(e) => self.condition(e, "`assume`"),
            StmtKind::Accept(e) => self.condition(e, "`accept`"),
            StmtKind::If { cond, then, els } => {
                self.condition(cond, "`if`");
                if matches!(then.kind, StmtKind::Empty) {
                    self.mistaken_empty(then.span);
                }
                self.body(then);
                if let Some(e) = els {
                    if matches!(e.kind, StmtKind::Empty) {
                        self.mistaken_empty(e.span);
                    }
                    self.body(e);
                }
            }
            StmtKind::While { cond, body } => {
                self.condition(cond, "`while`");
                self.body(body);
            }
            StmtKind::Foreach {
                ty,
                var,
                coll,
                body,
                local,
            } => {
                let t = self.types.resolve(ty, TypeUse::Value, self.diags);
                let ct = self.expr(coll);
                match ct {
                    Type::Set(_) | Type::Array(_) => {
                        if let Some(elem) = self.t.elem(ct) {
                            if elem != t && t != Type::Error && elem != Type::Error {
                                self.error(
                                    ty.span,
                                    format!(
                                        "loop variable of type `{}` for elements of type `{}`",
                                        self.tn(t),
                                        self.tn(elem)
                                    ),
                                    format!(
                                        "the element type of `{}` is `{}`",
                                        self.tn(ct),
                                        self.tn(elem)
                                    ),
                                );
                            }
                        }
                    }
                    Type::Error => {}
                    _ => self.error(
                        coll.span,
                        format!("`foreach` needs a set or an array, found `{}`", self.tn(ct)),
                        "not a set or array",
                    ),
                }
                self.nested(|ck| {
                    *local = Some(ck.declare(var, t));
                    ck.body(body);
                });
            }
            StmtKind::Goto(l) => {
                self.gotos.push((l.clone(), self.blocks.clone()));
            }
            StmtKind::Labeled { label, stmt } => {
                if self.labels.contains_key(&label.name) {
                    self.error(
                        label.span,
                        format!("duplicate label `{}`", label.name),
                        "labels must be unique within a method",
                    );
                } else {
                    self.labels.insert(label.name.clone(), self.blocks.clone());
                }
                self.stmt(stmt);
            }
            StmtKind::Return(e) => self.ret_stmt(span, e.as_mut()),
            StmtKind::Send { chan, msg } => {
                let ct = self.expr(chan);
                let mt = self.expr(msg);
                match ct {
                    Type::Chan(_) => {
                        let want = self.t.elem(ct).unwrap_or(Type::Error);
                        if !self.exact(mt, want, msg) {
                            self.error(
                                msg.span,
                                format!(
                                    "cannot send `{}` on a channel of `{}`",
                                    self.tn(mt),
                                    self.tn(want)
                                ),
                                format!("expected exactly `{}`", self.tn(want)),
                            );
                        }
                    }
                    Type::Error => {}
                    _ => self.error(
                        chan.span,
                        format!("`send` needs a channel, found `{}`", self.tn(ct)),
                        "not a channel",
                    ),
                }
            }
            StmtKind::Select(sel) => self.select(span, sel),
            StmtKind::Try { body, handlers } => {
                self.block(body);
                let mut star: Option<Span> = None;
                let mut names: Vec<String> = Vec::new();
                for h in handlers.iter_mut() {
                    match &h.name {
                        None => {
                            if star.is_some() {
                                self.error(
                                    h.span,
                                    "more than one `*` handler",
                                    "a `try` may have at most one `*` handler",
                                );
                            }
                            star = Some(h.span);
                        }
                        Some(n) => {
                            if names.contains(&n.name) {
                                self.error(
                                    n.span,
                                    format!("duplicate handler for `{}`", n.name),
                                    "already handled above",
                                );
                            }
                            names.push(n.name.clone());
                        }
                    }
                    self.body(&mut h.body);
                }
            }
            StmtKind::Yield => {
                if self.atomic_method {
                    self.error(
                        span,
                        "`yield` in an atomic method",
                        "an atomic method cannot yield",
                    );
                }
            }
            StmtKind::Trace(args) => self.string_first(span, args, "trace"),
            StmtKind::InvokePlugin(args) => self.string_first(span, args, "invokeplugin"),
            StmtKind::InvokeScheduler(args) => {
                for a in args.iter_mut() {
                    self.any_arg(a);
                }
            }
            StmtKind::Event(args) => self.event_args(span, args),
        }
    }

    fn mistaken_empty(&mut self, span: Span) {
        self.diags.push(
            Diagnostic::error(span, "possible mistaken empty statement")
                .with_label("`;` alone is not allowed as the body of `if` or `else`")
                .with_note("write `{ }` for an intentionally empty branch"),
        );
    }

    /// `e` must be `bool`.
    pub(super) fn condition(&mut self, e: &mut Expr, what: &str) {
        let t = self.expr(e);
        if t != Type::Bool && t != Type::Error {
            self.error(
                e.span,
                format!(
                    "the condition of {what} must be `bool`, found `{}`",
                    self.tn(t)
                ),
                "expected `bool`",
            );
        }
    }

    /// An argument of `trace`, `invokeplugin` or `invokescheduler`: any value or a string.
    fn any_arg(&mut self, e: &mut Expr) {
        if let ExprKind::Str(_) = e.kind {
            e.ty = Type::Str;
        } else {
            self.expr(e);
        }
    }

    fn string_first(&mut self, span: Span, args: &mut [Expr], what: &str) {
        match args.first() {
            Some(Expr {
                kind: ExprKind::Str(_),
                ..
            }) => {}
            Some(e) => {
                let s = e.span;
                self.error(
                    s,
                    format!("the first argument of `{what}` must be a string literal"),
                    "expected a string",
                );
            }
            None => self.error(
                span,
                format!("`{what}` needs a string literal argument"),
                "no arguments",
            ),
        }
        for a in args.iter_mut() {
            self.any_arg(a);
        }
    }

    fn event_args(&mut self, span: Span, args: &mut [Expr]) {
        if args.len() != 3 {
            self.error(
                span,
                "`event` takes three arguments (int, int, bool)",
                format!("{} given", args.len()),
            );
        }
        for (i, a) in args.iter_mut().enumerate() {
            let t = self.expr(a);
            let want = if i == 2 { Type::Bool } else { Type::Int };
            self.assignable(t, want, a, "pass", false);
        }
    }

    fn ret_stmt(&mut self, span: Span, e: Option<&mut Expr>) {
        match e {
            Some(e) => {
                let t = self.expr(e);
                if self.ret == Type::Void {
                    self.error(
                        e.span,
                        "a `void` method cannot return a value",
                        "remove this value",
                    );
                } else {
                    self.assignable(t, self.ret, e, "return", false);
                }
            }
            None => {
                if self.ret != Type::Void && self.ret != Type::Error {
                    let msg = format!("`return` needs a value of type `{}`", self.tn(self.ret));
                    self.error(span, msg, "missing value");
                }
            }
        }
    }

    fn select(&mut self, span: Span, sel: &mut Select) {
        if sel.branches.len() > MAX_BRANCHES {
            self.error(
                span,
                format!("a `select` may have at most {MAX_BRANCHES} join statements"),
                format!("{} given", sel.branches.len()),
            );
        }
        let mut timeouts = 0;
        for j in sel.branches.iter_mut() {
            let n = j.patterns.len();
            for p in j.patterns.iter_mut() {
                match p {
                    Pattern::Timeout(s) => {
                        timeouts += 1;
                        if n > 1 {
                            self.error(
                                *s,
                                "`timeout` must be the only pattern of its join statement",
                                "cannot be combined with `&&`",
                            );
                        } else if timeouts > 1 {
                            self.error(
                                *s,
                                "a `select` may have at most one `timeout` branch",
                                "second `timeout`",
                            );
                        }
                    }
                    Pattern::Wait(e) => {
                        let was = std::mem::replace(&mut self.in_wait, true);
                        self.condition(e, "`wait`");
                        self.in_wait = was;
                    }
                    Pattern::Receive { chan, target } => {
                        let ct = self.expr(chan);
                        let lt = self.lvalue(target);
                        match ct {
                            Type::Chan(_) => {
                                let want = self.t.elem(ct).unwrap_or(Type::Error);
                                if lt != want && lt != Type::Error && want != Type::Error {
                                    self.error(
                                        target.span,
                                        format!(
                                            "cannot receive `{}` into `{}`",
                                            self.tn(want),
                                            self.tn(lt)
                                        ),
                                        format!(
                                            "the target must have exactly the message type `{}`",
                                            self.tn(want)
                                        ),
                                    );
                                }
                            }
                            Type::Error => {}
                            _ => self.error(
                                chan.span,
                                format!("`receive` needs a channel, found `{}`", self.tn(ct)),
                                "not a channel",
                            ),
                        }
                    }
                    Pattern::Event(args, s) => {
                        let s = *s;
                        if !sel.is_visible {
                            self.error(
                                s,
                                "`event` patterns are only allowed in `select visible`",
                                "this select is not `visible`",
                            );
                        }
                        self.event_args(s, args);
                    }
                }
            }
            self.body(&mut j.body);
        }
    }
}
